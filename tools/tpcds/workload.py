"""Generate the TPC-DS SF100 exchange workload from Impala's own distributed plans.

Reads the planner test files that ../shared/impala-plans holds (Impala's
`tpcds_cpu_cost` PlannerTest expectations: SF3000 statistics, 10 executors),
takes every EXCHANGE of each DISTRIBUTEDPLAN, rescales its row count to TPC-DS
scale factor 100, maps its senders and receivers onto a 5-executor cluster,
derives start dependencies from the plan tree, and writes

    scenarios/tpcds_sf100/workload.json   (a scenario, schema_version 1)
    scenarios/tpcds_sf100/README.md       (how every number was derived)

Usage:
    tools/tpcds_workload.py [--plans DIR] [--out DIR]
    python3 -m tools.tpcds.workload [--plans DIR] [--out DIR]

The output is a pure function of the plan files: same input, byte-identical
output (sorted, no time stamps, no absolute paths). Standard library only.
"""

import argparse
import hashlib
import json
import os
import re
import sys
from pathlib import Path

if not __package__:  # run as a script: the repository root on sys.path, as for every entry point
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from analysis import atomic  # noqa: E402
from tools.tpcds import (DEFAULT_OUT, DEFAULT_PLANS, DEFAULT_PROFILES, EXECUTORS, GENERATOR,  # noqa: E402
                         PLAN_EXECUTORS, PROFILE_Q1, PROFILE_Q72, REPO, SF_PLAN, SF_TARGET, PlanError)
from tools.tpcds.ddl import TABLE_ROWS  # noqa: E402
from tools.tpcds.plans import ROLLUP_BASES_REPLACED, VARIANT_BASE, parse_plan, select_queries  # noqa: E402
from tools.tpcds.profiles import measured_inputs, profile_override, q72_check  # noqa: E402
from tools.tpcds.scaling import MN_OVERRIDES, SCALE_RULES, Scaler, fmt_ratio, fmt_rows, ratio  # noqa: E402

KIND_TO_PARTITIONING = {
    "HASH": "HASH_PARTITIONED",
    "BROADCAST": "UNPARTITIONED",
    "UNPARTITIONED": "UNPARTITIONED",
    "RANDOM": "RANDOM",
}


# --------------------------------------------------------------------------
# Placement on the 5-executor cluster
# --------------------------------------------------------------------------

def placement(frag, broadcast_receiver=False):
    """(executors, instances_per_executor, why) for a fragment; 0 = the scenario default."""
    scan = frag.part == "RANDOM"
    if frag.hosts == 1 and frag.instances == 1:
        if frag.part == "UNPARTITIONED":
            return 1, 1, "single-instance UNPARTITIONED fragment: 1 instance on executor 0"
        if scan:
            return 1, 1, "one instance on one host in the plan (scan of a one-file table): 1 instance on executor 0"
        return 1, 1, "one instance on one host in the plan: 1 instance on executor 0"
    if broadcast_receiver and frag.join_build and frag.instances == frag.hosts:
        return 0, 1, ("broadcast join build planned with one instance per host (one build shared by the "
                      "probe instances): 1 instance on each executor")
    if frag.instances == frag.hosts and frag.hosts < PLAN_EXECUTORS:
        n = min(frag.hosts, EXECUTORS)
        if scan:
            why = "scan of a table with %d scan range(s)" % frag.hosts
        else:
            why = "its input comes from that many instances"
        return n, 1, ("plan has %d instance(s) on %d of %d hosts (%s): 1 instance on executors 0..%d" % (
            frag.instances, frag.hosts, PLAN_EXECUTORS, why, n - 1))
    return 0, 0, "all executors, max(1, mt_dop) instances each (derived default)"


# --------------------------------------------------------------------------
# Start dependencies (overlap model, see README)
# --------------------------------------------------------------------------

def is_exchange(n):
    return n.kind in ("EXCHANGE", "MERGING-EXCHANGE")


def is_blocking(n):
    if n.kind == "AGGREGATE":
        return n.bracket != "[STREAMING]"
    return n.kind in ("SORT", "TOP-N")


def is_join(n):
    return n.kind in ("HASH JOIN", "NESTED LOOP JOIN")


class Deps:
    def __init__(self):
        self.memo = {}

    def first_exchanges(self, node, out):
        if is_exchange(node):
            out.add(node)
            return
        for c in node.children:
            self.first_exchanges(c, out)

    def sender_side(self, node, blocked, acc):
        """Exchanges that the sending pipeline rooted at `node` must wait for."""
        if is_exchange(node):
            if blocked:
                acc.add(node)
            else:
                acc |= self.start_deps(node)
            return
        if is_join(node):
            if len(node.children) > 1:
                builds = set()
                self.first_exchanges(node.children[1], builds)
                acc |= builds
            self.sender_side(node.children[0], blocked, acc)
            return
        below = blocked or is_blocking(node)
        for c in node.children:
            self.sender_side(c, below, acc)

    def receiver_side(self, x):
        """Build-side exchanges of the joins that x's rows are probed into,
        up to the first blocking operator above x's receiver."""
        acc = set()
        child, p = x, x.parent
        while p is not None and not is_exchange(p):
            if is_join(p):
                if p.children[0] is not child:
                    break           # x feeds a join build: the build pipeline ends here
                if len(p.children) > 1:
                    self.first_exchanges(p.children[1], acc)
            if is_blocking(p):
                break
            child, p = p, p.parent
        return acc

    def start_deps(self, x):
        if x.nid in self.memo:
            return self.memo[x.nid]
        acc = set()
        self.sender_side(x.children[0], False, acc)
        acc |= self.receiver_side(x)
        acc.discard(x)
        self.memo[x.nid] = acc
        return acc


def transitive_reduction(direct):
    """direct: id -> set(ids). Drops deps implied by other deps."""
    closure = {}

    def clos(i, stack=()):
        if i in closure:
            return closure[i]
        if i in stack:
            raise PlanError("dependency cycle through %s" % i)
        c = set()
        for d in direct[i]:
            c.add(d)
            c |= clos(d, stack + (i,))
        closure[i] = c
        return c

    out = {}
    for i in direct:
        ds = direct[i]
        keep = set(ds)
        for d in ds:
            keep -= clos(d)
        out[i] = keep
        clos(i)
    return out


# --------------------------------------------------------------------------
# Exchanges
# --------------------------------------------------------------------------

def git_blob_sha1(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def feeding_tables(node, acc):
    if node.kind == "SCAN HDFS":
        acc.add(node.table)
    for c in node.children:
        feeding_tables(c, acc)


def mn_caps_below(node, acc):
    if node.mn_capped:
        acc.append(node)
    for c in node.children:
        mn_caps_below(c, acc)


def exchange_kind(node):
    b = node.bracket.strip("[]")
    if node.kind == "MERGING-EXCHANGE":
        return "MERGING"
    if b.startswith("HASH("):
        return "HASH"
    return b


def build_query(qname, stem, plans, stats):
    path = os.path.join(plans, "tpcds-%s.test" % stem)
    root, nodes, frags, text = parse_plan(path)
    scaler = Scaler(stats, 1, stem)
    scaler.scale(root)
    deps = Deps()
    fname = os.path.basename(path)
    xs = sorted((n for n in nodes.values() if is_exchange(n)), key=lambda n: n.nid)
    result = []
    for x in xs:
        kind = exchange_kind(x)
        if kind not in ("HASH", "BROADCAST", "UNPARTITIONED", "MERGING", "RANDOM"):
            raise PlanError("%s: exchange %d has unknown partitioning %s" % (fname, x.nid, x.bracket))
        child = x.children[0]
        classes = max(1, child.classes)
        width = max(1, int(round(x.row_size / classes)))
        rows = x.card100
        rows_int = int(round(rows))
        if rows > 0 and rows_int == 0:
            rows_int = 1
        measured = profile_override(qname, x.nid)
        if measured is not None:
            rows_int, width, measured_why = measured
        s_exec, s_inst, s_why = placement(x.sender)
        if kind in ("UNPARTITIONED", "MERGING"):
            r_exec, r_inst, r_why = 1, 1, "single receiver instance (%s fragment %s, hosts=%d instances=%d)" % (
                x.fragment.part, x.fragment.fid, x.fragment.hosts, x.fragment.instances)
        else:
            r_exec, r_inst, r_why = placement(x.fragment, broadcast_receiver=(kind == "BROADCAST"))
        tables = set()
        feeding_tables(child, tables)
        caps = []
        mn_caps_below(child, caps)
        e = {
            "id": "%s.x%02d" % (qname, x.nid),
            "query": qname,
            "partitioning": KIND_TO_PARTITIONING["UNPARTITIONED" if kind == "MERGING" else kind],
        }
        if kind == "MERGING":
            e["merging"] = True
        if s_exec:
            e["sender_executors"] = s_exec
        if s_inst:
            e["sender_instances_per_executor"] = s_inst
        if r_exec:
            e["receiver_executors"] = r_exec
        if r_inst:
            e["receiver_instances_per_executor"] = r_inst
        e["rows_total"] = rows_int
        e["fixed_row_bytes"] = width
        e["var_row_bytes"] = 0
        e["tuples_per_row"] = min(64, len(x.tuple_ids))
        src = []
        src.append("%s line %d, DISTRIBUTEDPLAN node %d:%s %s%s" % (
            fname, x.line, x.nid, x.kind, x.bracket[:80], "..." if len(x.bracket) > 80 else ""))
        if qname in VARIANT_BASE:
            src.append("%s has no plan file: the plan of its base query %s is used (assumption)" % (
                qname, VARIANT_BASE[qname]))
        src.append("SF3000 plan: cardinality=%s row-size=%s tuple-ids=%s" % (
            x.card_text, x.row_size_text, ",".join(x.tuple_ids)))
        src.append("rows_total: %s x%s = %s at SF100 (%s; below it, node %d: %s)" % (
            x.card_text.split("(")[0], fmt_ratio(ratio(x)), fmt_rows(rows), x.rule, child.nid, child.rule))
        if tables:
            src.append("fed by: " + ", ".join(
                "%s x%s" % (t, fmt_ratio(TABLE_ROWS[t][1] / TABLE_ROWS[t][2])) for t in sorted(tables)))
        for c in caps:
            src.append("M:N join cap at node %d: %s" % (c.nid, c.rule.split("; M:N cap: ")[-1]))
        if measured is not None:
            src.append(measured_why)
        if measured is None and classes > 1:
            src.append("row width: row-size %s / %d aggregation classes (each row carries one class; "
                       "assumption)" % (x.row_size_text, classes))
        elif measured is None:
            src.append("row width: the plan's row-size")
        src.append("tuples_per_row: number of tuple ids")
        src.append("senders: %s %s hosts=%d instances=%d%s -> %s" % (
            x.sender.fid, "[" + x.sender.part[:60] + ("...]" if len(x.sender.part) > 60 else "]"),
            x.sender.hosts, x.sender.instances,
            (" " + x.sender.adjusted) if x.sender.adjusted else "", s_why))
        src.append("receivers: %s hosts=%d instances=%d%s -> %s" % (
            x.fragment.fid, x.fragment.hosts, x.fragment.instances,
            " JOIN BUILD" if x.fragment.join_build else "", r_why))
        e["source"] = "; ".join(src)
        dep_nodes = deps.start_deps(x)
        e["_deps"] = sorted("%s.x%02d" % (qname, d.nid) for d in dep_nodes)
        e["_kind"] = kind
        e["_bytes"] = rows_int * width
        e["_width"] = width
        result.append(e)
    data = open(path, "rb").read()
    scans = sum(n.card100 for n in nodes.values() if n.kind == "SCAN HDFS")
    return result, {"file": fname, "git_blob_sha1": git_blob_sha1(data), "scan_rows": scans}


CALIBRATION_KEYS = {
    "var_fraction": "share of the plan's row-size that is variable-length data (strings): the collector "
                    "sizes batches by the fixed part only",
    "compress_ns_per_byte": "sender CPU per uncompressed byte to LZ4-compress a batch, on the sender's "
                            "thread between batches (compress_ns_per_byte of every exchange)",
    "query_work_ns_per_row": "CPU per row outside the exchanges (scan decoding, joins, aggregation, "
                             "sorting): scan rows are spread over executors x 16 scanner threads at mt_dop=0 "
                             "(Impala's default, one per core) and executors x mt_dop otherwise, work rows "
                             "over executors x max(1, mt_dop) fragment threads (query_work_ns_per_row)",
}


def load_calibration(path):
    """The fitted values of a calibration.json: {key: value} for CALIBRATION_KEYS."""
    with open(path, "r", encoding="utf-8") as f:
        doc = json.load(f)
    params = doc["parameters"]
    out = {}
    for k in CALIBRATION_KEYS:
        v = params[k]["value"]
        if not isinstance(v, (int, float)) or v < 0:
            raise ValueError("parameters.%s.value: expected a number >= 0" % k)
        out[k] = float(v)
    if out["var_fraction"] >= 1:
        raise ValueError("parameters.var_fraction.value: expected a number below 1")
    return out


def calibration_provenance(c):
    if not c["values"]:
        how = "uncalibrated: no calibration.json (run tools/tpcds_calibrate.py)"
    else:
        how = "fitted by tools/tpcds_calibrate.py, values in %s" % c["file"]
    return {
        "compression_ratio": "%.4f: measured, pooled LZ4 ratio of the remote traffic in "
                             "impala-profiles/tpcds_72_local_run_profile.json (receivers on daemons where no "
                             "instance of the exchange sent rows: TotalBytesReceived / TotalBytesDequeued, "
                             "summed over exchanges %s)" % (c["lz4_ratio"], ", ".join(str(x) for x in c["lz4_detail"])),
        "query_overhead_s": "%.4f: measured, mean over the q72 and q1 (mt_dop=0) profiles of the query "
                            "timeline's 'Query submitted' to 'All execution backends started' plus 'Last row "
                            "fetched' to 'Unregister query' (%s)" % (
                                c["overhead_s"], ", ".join("%s %.4f s" % kv for kv in c["overhead_detail"].items())),
        "fitted": how,
        "parameters": {k: {"value": c["values"].get(k, 0.0), "meaning": v} for k, v in CALIBRATION_KEYS.items()},
    }


def apply_calibration(scenario, summary, cal, lz4_ratio, overhead_s):
    """Return a copy of scenario with the calibrated costs and widths set."""
    import copy
    out = copy.deepcopy(scenario)
    f = float(cal.get("var_fraction", 0.0))
    out["query_overhead_s"] = round(overhead_s, 4)
    out["query_work_ns_per_row"] = round(float(cal.get("query_work_ns_per_row", 0.0)), 4)
    out["queries"] = {q: {"work_rows": w, "scan_rows": summary["query_scan_rows"][q]}
                      for q, w in summary["query_work_rows"].items()}
    out["exchange_defaults"] = {"compression_ratio": round(lz4_ratio, 4)}
    if "compress_ns_per_byte" in cal:
        out["exchange_defaults"]["compress_ns_per_byte"] = round(float(cal["compress_ns_per_byte"]), 4)
    for e in out["exchanges"]:
        width = summary["widths"][e["id"]]
        fixed = max(1, int(round(width * (1.0 - f))))
        e["fixed_row_bytes"] = fixed
        e["var_row_bytes"] = width - fixed
        e["source"] += "; fixed/var %d/%d: row width %d split by var_fraction %.4g" % (
            fixed, width - fixed, width, f)
    # Keep the keys in the order of the format's documentation.
    order = ["schema_version", "query_order", "name", "description", "seed", "provenance", "query_overhead_s",
             "query_work_ns_per_row", "queries", "cluster", "flags", "exchange_defaults", "exchanges"]
    return {k: out[k] for k in order if k in out}


# --------------------------------------------------------------------------
# The workload
# --------------------------------------------------------------------------

def build_workload(plans):
    stats_path = os.path.join(plans, "stats-3TB.json")
    with open(stats_path, "r", encoding="utf-8") as f:
        stats = json.load(f)["tpcds_partitioned_parquet_snap"]
    for t, (sf1, sf100, sf3000) in TABLE_ROWS.items():
        if stats[t]["numRows"] != sf3000:
            raise PlanError("stats-3TB.json: %s numRows %d, expected SF3000 %d" % (t, stats[t]["numRows"], sf3000))
    readme = open(os.path.join(plans, "README.md"), "r", encoding="utf-8").read()
    m = re.search(r"Snapshot used: commit `([0-9a-f]{40})`", readme)
    commit = m.group(1) if m else "unknown"
    tpcds, selected = select_queries(plans)

    all_x = []
    scan_rows_by_query = {}
    files = {}
    per_query = []
    for q, stem in selected:
        xs, meta = build_query(q, stem, plans, stats)
        scan_rows_by_query[q] = meta.pop("scan_rows")
        files[meta["file"]] = meta["git_blob_sha1"]
        all_x.extend(xs)
        per_query.append((q, stem, xs))

    # Dependencies: transitive reduction inside each query. Queries run one
    # after another (the benchmark runs them serially): the scenario says so
    # with query_order "sequential" rather than with `after` across queries.
    direct = {e["id"]: set(e["_deps"]) for e in all_x}
    reduced = transitive_reduction(direct)
    for q, stem, xs in per_query:
        for e in xs:
            e["after"] = sorted(reduced[e["id"]])

    # Per query: scan rows (decoded by scanner threads at mt_dop=0) and work rows, every row an
    # exchange delivers to the operators above it (a broadcast delivers each row to each receiving
    # executor), run on fragment threads.
    query_work, query_scan = {}, {}
    for q, stem, xs in per_query:
        delivered = sum(e["rows_total"] * ((e.get("receiver_executors") or EXECUTORS) if e["_kind"] == "BROADCAST"
                                           else 1) for e in xs)
        query_work[q] = int(round(delivered))
        query_scan[q] = int(round(scan_rows_by_query[q]))

    # Summary counts.
    kinds = ["HASH", "BROADCAST", "UNPARTITIONED", "MERGING", "RANDOM"]
    counts = {k: 0 for k in kinds}
    rows_by = {k: 0 for k in kinds}
    bytes_by = {k: 0 for k in kinds}
    for e in all_x:
        counts[e["_kind"]] += 1
        rows_by[e["_kind"]] += e["rows_total"]
        bytes_by[e["_kind"]] += e["_bytes"]
    q_rows = []
    for q, stem, xs in per_query:
        c = {k: sum(1 for e in xs if e["_kind"] == k) for k in kinds}
        hb = sum(e["_bytes"] for e in xs if e["_kind"] == "HASH")
        hr = sum(e["rows_total"] for e in xs if e["_kind"] == "HASH")
        q_rows.append((q, stem, c, hr, hb))
    biggest = sorted((e for e in all_x if e["_kind"] == "HASH"),
                     key=lambda e: (-e["_bytes"], e["id"]))[:15]
    summary = {
        "commit": commit, "tpcds": tpcds, "selected": selected, "files": files,
        "counts": counts, "rows_by": rows_by, "bytes_by": bytes_by, "per_query": q_rows,
        "exchanges": len(all_x), "biggest": [(e["id"], e["rows_total"], e["fixed_row_bytes"], e["_bytes"])
                                             for e in biggest],
        "q72": q72_check(plans, stats),
        "no_after": sum(1 for e in all_x if not e["after"]),
        "hash_batches": sum(e["rows_total"] / max(1, 16384 // e["fixed_row_bytes"])
                            for e in all_x if e["_kind"] == "HASH"),
        "widths": {e["id"]: e["_width"] for e in all_x},
        "query_work_rows": query_work,
        "query_scan_rows": query_scan,
    }

    exchanges = []
    for e in all_x:
        out = {}
        for k in ("id", "query", "partitioning", "merging", "sender_executors", "sender_instances_per_executor",
                  "receiver_executors", "receiver_instances_per_executor", "rows_total", "fixed_row_bytes",
                  "var_row_bytes", "tuples_per_row", "after", "source"):
            if k in e:
                out[k] = e[k]
        exchanges.append(out)

    provenance = {
        "generator": GENERATOR + " (regenerate: /usr/bin/python3 tools/tpcds_workload.py)",
        "readme": "scenarios/tpcds_sf100/README.md explains every rule below",
        "plans": {
            "where": "../shared/impala-plans: Apache Impala planner test expectations, "
                     "testdata/workloads/functional-planner/queries/PlannerTest/tpcds_cpu_cost/",
            "apache_impala_commit": commit,
            "section": "DISTRIBUTEDPLAN (NUM_NODES=0, MT_DOP unset)",
            "statistics": "stats-3TB.json: TPC-DS scale factor 3000, planned for 10 executors "
                          "(TpcdsCpuCostPlannerTest)",
            "files_git_blob_sha1": dict(sorted(files.items())),
        },
        "query_set": {
            "count": len(selected),
            "rule": "the 111 TPC-DS statements of impala-plans/queries.txt (Impala's tpcds benchmark workload) "
                    "minus the 7 ROLLUP queries whose rollup-free official variant is also listed "
                    "(q18, q22, q67, q70, q77, q80, q86, replaced by their 'a' variants); q51 and q51a both kept. "
                    "The measured run's own list is not published (calibration-data.md gives only the count 104).",
            "queries": [q for q, _ in selected],
            "excluded": list(ROLLUP_BASES_REPLACED),
            "variants_using_base_plan": dict(sorted(VARIANT_BASE.items())),
            "plan_files": {q: "tpcds-%s.test" % stem for q, stem in selected},
        },
        "scale": {
            "from_scale_factor": SF_PLAN,
            "to_scale_factor": SF_TARGET,
            "table_rows": {t: {"sf1": v[0], "sf100": v[1], "sf3000": v[2]} for t, v in sorted(TABLE_ROWS.items())},
            "table_rows_source": "SF100: TPC-DS specification, Table 3-2 'Database Row Counts' (they agree with "
                                 "shared/reference/calibration-data.md and the table in impala-plans/README.md); "
                                 "SF3000: numRows of impala-plans/stats-3TB.json (checked by the generator); SF1: "
                                 "expected results of apache/impala testdata/workloads/tpcds/queries/count.test "
                                 "at the same commit (Impala's SF1 test load, the data of the q72 profile; used "
                                 "only for the q72 check)",
            "rules": SCALE_RULES,
            "mn_join_overrides": {"%s node %d" % k: "%s: %s" % v for k, v in sorted(MN_OVERRIDES.items())},
        },
        "cluster": {
            "executors": "5: calibration-data.md section A (5 executors, AWS m6id.4xlarge)",
            "cores_per_executor": "16: m6id.4xlarge has 16 vCPU (calibration-data.md section A)",
            "nic_bandwidth_gbps": "12.5: m6id.4xlarge network 'up to 12.5 Gbit/s' (calibration-data.md section A)",
            "rtt_us": "390: network time per RPC, calibration-data.md section A",
        },
        "seed": "1: the simulator's default seed (no number here is drawn at random)",
        "flags": "the measured baseline of calibration-data.md section A: mt_dop=0, "
                 "data_stream_sender_buffer_size 16 KiB, LZ4 compression on, K=1",
        "placement": PLACEMENT_RULES,
        "dependencies": DEPENDENCY_RULES,
        "row_width": WIDTH_RULES,
        "costs": "producer_ns_per_row, consumer_ns_per_row, compression_ratio and the fixed/var split come "
                 "from the calibration (provenance.calibration); hash/copy/compress/serialize/deserialize "
                 "costs keep the simulator defaults (the plans' cost= fields are planner units, not time)",
        "counts": {
            "queries": len(selected),
            "exchanges": len(all_x),
            "by_plan_kind": {k: counts[k] for k in kinds},
            "hash_rows_total": rows_by["HASH"],
            "hash_bytes_total": bytes_by["HASH"],
            "bytes_note": "bytes = rows_total x fixed_row_bytes (uncompressed tuple data)",
        },
        "calibration_comparison": "calibration-data.md counts 630 hash exchanges whose receivers are not pushing "
                                  "back; these plans give %d hash exchanges for the 104 statements (see README)"
                                  % counts["HASH"],
    }
    scenario = {
        "schema_version": 1,
        "query_order": "sequential",
        "name": "tpcds_sf100",
        "description": "Impala TPC-DS benchmark (104 statements) at SF100 on 5 executors: every exchange of "
                       "Impala's own distributed plans, rows rescaled from SF3000, queries run one after another",
        "seed": 1,
        "provenance": provenance,
        "cluster": {"executors": EXECUTORS, "cores_per_executor": 16, "nic_bandwidth_gbps": 12.5, "rtt_us": 390},
        "flags": {"mt_dop": 0, "data_stream_sender_buffer_size": 16384, "rpcs_in_flight_per_channel": 1,
                  "compression": True},
        "exchanges": exchanges,
    }
    return scenario, summary


PLACEMENT_RULES = {
    "default": "all 5 executors, sender/receiver_instances_per_executor 0 (= max(1, mt_dop)), so the same file "
               "works for mt_dop=0 and mt_dop=8",
    "single_instance": "a fragment planned as hosts=1 instances=1 (the coordinator's UNPARTITIONED fragment, a "
                       "scan of a one-file table, or a fragment fed only by one) -> executors 1, instances 1",
    "few_hosts": "a fragment planned with one instance on each of n<10 hosts (a scan of item, split into 4 "
                 "scan ranges by the planner test, or a fragment fed only by such a scan) -> executors min(n, 5), "
                 "instances 1",
    "shared_join_build": "a broadcast exchange into a JOIN BUILD fragment planned with one instance per host "
                         "(one build shared by the probe instances) -> receivers on all executors, instances 1; "
                         "a hash exchange into a partitioned join build keeps the default (one build per probe "
                         "instance)",
    "gather": "UNPARTITIONED and MERGING-EXCHANGE receivers -> receiver_executors 1, "
              "receiver_instances_per_executor 1",
}

DEPENDENCY_RULES = {
    "after": "an exchange starts when every exchange in its `after` list has finished",
    "build_before_probe": "an exchange whose rows go through a join's probe side (on the sending or the "
                          "receiving side, up to the next blocking operator) waits for every exchange that "
                          "feeds that join's build side",
    "blocking": "an exchange whose sending pipeline reaches another exchange through a blocking operator "
                "(non-streaming aggregation, sort, top-n, or a join build) waits for it",
    "streaming": "an exchange that streams rows received from another exchange (through streaming operators "
                 "only) is given that exchange's own start condition, so both start together",
    "reduction": "`after` lists are transitively reduced",
    "serial_queries": "queries run one after another in the benchmark order, each alone on the cluster: "
                      "query_order \"sequential\" (each query starts when every exchange of the previous one "
                      "has ended)",
}

WIDTH_RULES = {
    "fixed_row_bytes": "the row width (the plan's row-size: fixed slots plus average string lengths; after a "
                       "multi-class aggregation (ROLLUP, several DISTINCTs) row-size / number of classes, since "
                       "each row carries one class's tuple (assumption)) x (1 - var_fraction), rounded, at least 1",
    "var_row_bytes": "the rest of the row width: the plans give no fixed/var split, so one shared fraction "
                     "(var_fraction, fitted) stands for the strings' share",
    "tuples_per_row": "number of tuple ids of the exchange in the plan",
}


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------

def dump_json(obj):
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plans", default=DEFAULT_PLANS,
                    help="folder with Impala's TPC-DS planner tests (default: ../shared/impala-plans)")
    ap.add_argument("--out", default=DEFAULT_OUT,
                    help="output folder for workload.json and README.md (default: scenarios/tpcds_sf100)")
    ap.add_argument("--profiles", default=DEFAULT_PROFILES,
                    help="folder of the real runtime profiles the LZ4 ratio and the per-query overhead are "
                         "read from (default: ../shared/impala-profiles)")
    ap.add_argument("--calibration", default=None,
                    help="fitted parameters (default: OUT/calibration.json if it exists, else uncalibrated)")
    args = ap.parse_args(argv)
    for name in (PROFILE_Q72, PROFILE_Q1):
        if not os.path.isfile(os.path.join(args.profiles, name)):
            sys.stderr.write("tpcds_workload: profile %s not found in %s; pass --profiles DIR\n" % (
                name, args.profiles))
            return 2
    for need in ("queries.txt", "stats-3TB.json", "README.md", "tpcds-q72.test"):
        if not os.path.isfile(os.path.join(args.plans, need)):
            sys.stderr.write("tpcds_workload: plan folder %s not found or incomplete (missing %s); "
                             "pass --plans DIR (Impala's tpcds_cpu_cost planner tests, see "
                             "../shared/impala-plans/README.md)\n" % (args.plans, need))
            return 2
    cal_path = args.calibration or os.path.join(args.out, "calibration.json")
    cal = {}
    if args.calibration or os.path.isfile(cal_path):
        try:
            cal = load_calibration(cal_path)
        except (OSError, ValueError, KeyError) as e:
            sys.stderr.write("tpcds_workload: %s: %s\n" % (cal_path, e))
            return 2
    try:
        base, summary = build_workload(args.plans)
        measured = measured_inputs(args.profiles)
    except PlanError as e:
        sys.stderr.write("tpcds_workload: %s\n" % e)
        return 1
    scenario = apply_calibration(base, summary, cal, measured["lz4_ratio"], measured["overhead_s"])
    summary["calibration"] = dict(measured, values=cal, file=os.path.relpath(cal_path, REPO) if cal else None)
    scenario["provenance"]["calibration"] = calibration_provenance(summary["calibration"])
    from tools.tpcds.readme import render_readme  # the README module reads this one's rule tables
    atomic.write_text(os.path.join(args.out, "workload.json"), dump_json(scenario))
    atomic.write_text(os.path.join(args.out, "README.md"), render_readme(scenario, summary))
    c = summary["counts"]
    print("tpcds_workload: %d queries, %d exchanges (HASH %d, BROADCAST %d, UNPARTITIONED %d, MERGING %d, "
          "RANDOM %d) -> %s" % (len(summary["selected"]), summary["exchanges"], c["HASH"], c["BROADCAST"],
                                c["UNPARTITIONED"], c["MERGING"], c["RANDOM"], args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
