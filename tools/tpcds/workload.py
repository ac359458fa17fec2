"""Generate the TPC-DS SF100 whole-query workload (schema_version 2) from Impala's plans and profiles.

Reads the planner test files of ../shared/impala-plans (Impala's `tpcds_cpu_cost` PlannerTest
expectations: SF3000 statistics, 10 executors) and the runtime profiles of
../shared/impala-profiles, and writes

    scenarios/tpcds_sf100/workload.json   (104 queries: fragments, operators with rows at SF100,
                                           exchanges with row sizes from column types; one plan
                                           for mt_dop=0 and one for mt_dop>0 per query)
    scenarios/tpcds_sf100/README.md       (how every number was derived)

Usage:
    tools/tpcds_workload.py [--plans DIR] [--profiles DIR] [--out DIR] [--costs FILE]

The output is a pure function of its inputs: same input, byte-identical output (no time stamps,
no absolute paths). Standard library only.
"""

import argparse
import json
import os
import re
import sys
import time

from common import atomic, exsim_runner
from tools.tpcds import (CALIBRATION, DEFAULT_OUT, DEFAULT_PLANS, DEFAULT_PROFILES, EXECUTORS, FITTED_CLUSTER,
                         GENERATOR, MEASURED_ROWS, PROFILE_Q72, REPO, PlanError)
from tools.tpcds import profiles as prof
from tools.tpcds import variants
from tools.tpcds.ddl import BLOCK_BYTES, SF1_TEXT_TYPES, TABLE_ROWS, Schema, slot_size
from tools.scenario_ops import walk_ops
from tools.tpcds.fragments import PARALLEL_MT_DOP, SECTIONS, Built, Converter, Shape
from tools.tpcds.joins import Redistributor
from tools.tpcds.plans import (ROLLUP_BASES_REPLACED, VARIANT_BASE, git_blob_sha1, parse_plan_file, query_sql,
                               select_queries)
from tools.tpcds.rowsize import RowSizes, exchange_row
from tools.tpcds.readme import render_readme
from tools.tpcds.scaling import MN_OVERRIDES, SCALE_RULES, Scaler, planner_estimates

# The mt_dop each section was planned with (impala-plans/README.md: the harness forces MT_DOP=2
# for PARALLELPLANS): the join rule is checked against the printed choices at these.
PLANNED_MT_DOP = {"DISTRIBUTEDPLAN": 0, "PARALLELPLANS": 2}

def scan_columns(plan, sizes):
    """(table, alias) -> the columns its scan reads, from a plan whose layouts were solved."""
    return {(n.table, n.alias): [s.name for s in sizes.layouts[sizes.tid(n.tuple_ids[0])].slots]
            for n in plan.nodes.values() if n.kind == "SCAN HDFS"}


def build_section(stem, path, section, fold, mt_dop, schema, name, executors=EXECUTORS):
    """One plan of a plan-file query: (plan JSON, parsed plan, shape, sizes)."""
    plan, data = parse_plan_file(path, section)
    return build_plan(plan, query_sql(data.decode("utf-8")), stem, section, fold, mt_dop, schema, name, executors)


def build_plan(plan, sql, stem, section, fold, mt_dop, schema, name, executors):
    """One parsed plan (`section` of plan `stem`, whose query text is `sql`) for `executors` at `mt_dop`,
    with the benchmark's schema: its rows at the target (rules, measured rows first), its joins
    re-decided, its rows' bytes, as scenario JSON. Returns (plan JSON, plan, shape, sizes)."""
    shape = Shape(plan.root, fold, schema, mt_dop, executors=executors)
    measured = schema.measured_nodes(stem, section)
    planner_estimates(plan, schema, shape.instances, stem)
    Scaler(schema, shape.instances, stem, measured=measured).scale(plan.root)
    decisions = Redistributor(plan, shape, mt_dop, PLANNED_MT_DOP[section]).run()
    if any(d.applied for d in decisions):
        shape = Shape(plan.root, fold, schema, mt_dop, executors=executors)
        Scaler(schema, shape.instances, stem, measured=measured).scale(plan.root)
    plan.join_decisions = decisions
    sizes = RowSizes(plan, schema, sql)
    conv = Converter(shape, sizes, schema, name)
    conv.where = plan.where
    return conv.plan(), plan, shape, sizes


def build_plan_query(q, stem, plans, schema, executors=EXECUTORS):
    path = os.path.join(plans, "tpcds-%s.test" % stem)
    doc = {"name": q}
    out = {}
    for key, (section, fold, mt_dop) in SECTIONS.items():
        out[key] = build_section(stem, path, section, fold, mt_dop, schema, q, executors)
    with open(path, "rb") as f:
        blob = git_blob_sha1(f.read())
    doc["source"] = ("tpcds-%s.test (git blob %s): `fragments`/`exchanges` from its DISTRIBUTEDPLAN with the JOIN "
                     "BUILD fragments folded into their joins (mt_dop=0), `parallel` from its PARALLELPLANS "
                     "(MT_DOP=2 planning: separate join builds); rows are the planner's SF3000 estimates rescaled "
                     "to SF100 (rules in provenance.scale.rules)" % (stem, blob))
    doc.update(out["mt_dop=0"][0])
    doc["parallel"] = out["parallel"][0]
    return Built(q, doc, {"blob": (os.path.basename(path), blob), "plans": out})


def build_q72(plans, profiles, schema, executors=EXECUTORS):
    """q72 from its real profile (rule M1): the profile's plan shape (MT_DOP=12 planning on 3 hosts,
    the shape of impala-plans/tpcds/tpcds-q72.test), its measured rows per node rescaled from SF1, the
    columns and scan ranges of the same scans in the SF3000 planner test, and the skew of its
    exchange 28 (one sender instance sent every row)."""
    top_path = os.path.join(plans, "tpcds-q72.test")
    top, data = parse_plan_file(top_path, "DISTRIBUTEDPLAN")
    sql = query_sql(data.decode("utf-8"))
    top_sizes = RowSizes(top, schema, sql)
    cols = scan_columns(top, top_sizes)
    hdfs = {(n.table, n.alias): n.hdfs for n in top.nodes.values() if n.kind == "SCAN HDFS"}
    ppath = os.path.join(profiles, PROFILE_Q72)
    shares = prof.sender_rows(ppath)
    doc = {"name": "q72"}
    out = {}
    skew_notes = []
    for key, (section, fold, mt_dop) in SECTIONS.items():
        plan, measured = prof.measured_plan(ppath)
        for n in plan.nodes.values():
            if n.kind == "SCAN HDFS":
                if (n.table, n.alias) not in hdfs:
                    raise PlanError("q72: the profile scans %s %s, the planner test does not" % (n.table, n.alias))
                n.hdfs = hdfs[(n.table, n.alias)]
        shape = Shape(plan.root, fold, schema, mt_dop, base_scale=1, executors=executors)
        Scaler(schema, shape.instances, "q72", base=1, estimates=False).scale(plan.root)
        sizes = RowSizes(plan, schema, sql, scan_columns=cols)
        notes = {n.nid: "measured at SF1: %s (planner's SF1 estimate %s)" % (
            "{:,.0f}".format(measured[n.nid][1]), "{:,.0f}".format(measured[n.nid][0]))
            for n in plan.nodes.values()}
        weights = {}
        for x in plan.exchanges():
            sent = shares.get(x.nid, [])
            total = sum(r for _, r in sent)
            if len(sent) < 2 or total == 0 or max(r for _, r in sent) < prof.SKEW_SHARE * total:
                continue
            scan = _leftmost_scan(x.children[0], shape)
            if scan is None:
                continue
            note = ("skew: in the profile %s; one sender instance sent %s of the rows (the inventory file is in "
                    "date order and only one scan range holds the year the join keeps)" % (
                        ", ".join("%s %s rows" % (h, "{:,}".format(r)) for h, r in sent),
                        "%.0f%%" % (100.0 * max(r for _, r in sent) / total)))
            # Why the profile is skewed decides whether SF100 is: at SF1 the table is one file in date order,
            # so the year the join keeps sits in one instance's ranges. At SF100 it is one partition per week
            # (the planner test's partitions), and the scheduler deals a year's partitions over every
            # executor: the rows the join keeps come from all of them. The skew is not carried over.
            parts = (scan.hdfs or {}).get("total")
            note += ("; not carried to SF100: there the table has %s partitions (one per week, the planner "
                     "test's), a year of them dealt over every executor, so every sender instance passes rows"
                     % (parts if parts else "several"))
            notes[x.nid] = note
            skew_notes.append("%s exchange %d: %s" % (key, x.nid, note))
        conv = Converter(shape, sizes, schema, "q72", notes=notes, weights=weights)
        conv.where = plan.where
        out[key] = (conv.plan(), plan, shape, sizes)
    with open(top_path, "rb") as f:
        blob = git_blob_sha1(f.read())
    doc["source"] = ("rule M1: the plan printed in impala-profiles/%s (a real q72 run, SF1, MT_DOP=12, 3 daemons; "
                     "the shape of impala-plans/tpcds/tpcds-q72.test), `fragments`/`exchanges` with its JOIN BUILD "
                     "fragments folded into their joins (mt_dop=0), `parallel` as printed; rows: the run's measured "
                     "rows per node (ExecSummary) rescaled from SF1 to SF100; scan columns and partitions from "
                     "tpcds-q72.test (git blob %s)" % (PROFILE_Q72, blob))
    doc.update(out["mt_dop=0"][0])
    doc["parallel"] = out["parallel"][0]
    return Built("q72", doc, {"blob": ("tpcds-q72.test", blob), "plans": out, "skew": skew_notes})


def _leftmost_scan(node, shape):
    fid = shape.frag_of[node.nid].fid
    n = node
    while n.kind != "SCAN HDFS":
        if not n.children or shape.frag_of[n.children[0].nid].fid != fid:
            return None
        n = n.children[0]
    return n


def q72_row_size_check(plans, profiles, schema):
    """The sender's batch capacity of the q72 profile's exchange 28 against its counters.

    Exchange 28 (HASH(d1.d_date_sk, inv_item_sk), one sender instance, 3 receivers) sent 16.38M rows
    in 93,070 data RPCs: about 176 rows per 16 KiB batch, so Impala's fixed row size was
    16384 / 176 = 93.1 B (capacity = floor(16384 / row size) = 176 for sizes 92.6 to 93.09 B).
    The rule here, applied to the same tuples with the column types of the run's schema (SF1 text
    tables: BIGINT item keys, STRING dates), gives the fixed size to compare."""
    top, data = parse_plan_file(os.path.join(plans, "tpcds-q72.test"), "DISTRIBUTEDPLAN")
    sql = query_sql(data.decode("utf-8"))
    cols = scan_columns(top, RowSizes(top, schema, sql))
    ppath = os.path.join(profiles, PROFILE_Q72)
    plan, _ = prof.measured_plan(ppath)
    sizes = RowSizes(plan, schema, sql, scan_columns=cols)
    x = plan.nodes[28]
    doc = prof.load(ppath)
    rows = rpcs = None

    def visit(node, host):
        nonlocal rows, rpcs
        if node.get("profile_name") == "KrpcDataStreamSender (dst_id=28)":
            r = prof._counter(node, "RowsSent") or 0
            if r:
                rows = r
                for st in node.get("summary_stats_counters", []):
                    if st.get("counter_name") == "NetworkThroughput":
                        rpcs = st.get("num_of_samples")
    prof._walk_instances(doc, visit)
    if not rows or not rpcs:
        raise PlanError("%s: exchange 28's sender counters not found" % ppath)
    tuples = []
    fixed_run = 0
    for t in x.tuple_ids:
        lay = sizes.layouts[RowSizes.tid(t)]
        size = sum(slot_size(SF1_TEXT_TYPES[s.name]) for s in lay.slots) + (len(lay.slots) + 7) // 8
        fixed_run += size
        tuples.append("%s %s = %d B" % (t, "+".join("%s:%s" % (s.name, SF1_TEXT_TYPES[s.name]) for s in lay.slots),
                                        size))
    fixed_wl, var_wl, _, _ = exchange_row(sizes, x)
    receivers = 3
    batches_per_channel = rows / receivers
    buffer = exsim_runner.parameter_default("flags", "data_stream_sender_buffer_size")  # the run's: Impala's default
    capacity = buffer // fixed_run
    predicted = receivers * -(-int(batches_per_channel) // capacity)
    return {
        "exchange": "q72 profile exchange 28 (HASH(d1.d_date_sk,inv_item_sk)), tuples %s" % ",".join(x.tuple_ids),
        "rows_sent": rows, "data_rpcs": rpcs, "rows_per_rpc": round(rows / rpcs, 1),
        "measured_fixed_row_bytes": round(buffer / (rows / rpcs), 1),
        "rule_fixed_row_bytes_run_schema": fixed_run,
        "rule_tuples": tuples,
        "rule_capacity_rows": capacity,
        "rule_data_rpcs": predicted,
        "workload_schema_fixed_row_bytes": fixed_wl,
        "workload_schema_var_row_bytes": var_wl,
    }


def counts(built):
    """Totals over the mt_dop=0 plans and the parallel plans (README "Counts")."""
    out = {}
    for key in SECTIONS:
        c = {"queries": len(built), "fragments": 0, "exchanges": 0, "by_partitioning": {}, "hash_exchanges": 0,
             "scan_rows_by_table": {}, "scan_rows_read_by_table": {}, "join_build_fragments": 0}
        for b in built:
            plan = b.doc if key == "mt_dop=0" else b.doc["parallel"]
            c["fragments"] += len(plan["fragments"])
            c["join_build_fragments"] += sum(1 for f in plan["fragments"] if "join_build" in f["sink"])
            for x in plan["exchanges"]:
                kind = "MERGING" if x.get("merging") else x["partitioning"]
                c["by_partitioning"][kind] = c["by_partitioning"].get(kind, 0) + 1
                c["exchanges"] += 1
                c["hash_exchanges"] += x["partitioning"] == "HASH_PARTITIONED"
            for f in plan["fragments"]:
                for op in walk_ops(f["root"]):
                    if op["op"] == "scan":
                        t = op["table"]
                        c["scan_rows_by_table"][t] = c["scan_rows_by_table"].get(t, 0) + op["rows"]
                        c["scan_rows_read_by_table"][t] = c["scan_rows_read_by_table"].get(t, 0) + op["rows_read"]
        c["by_partitioning"] = dict(sorted(c["by_partitioning"].items()))
        c["scan_rows_by_table"] = dict(sorted(c["scan_rows_by_table"].items()))
        c["scan_rows_read_by_table"] = dict(sorted(c["scan_rows_read_by_table"].items()))
        out[key] = c
    return out


def lz4_ns_per_byte():
    """LZ4's compression CPU per uncompressed byte: the simulator's default."""
    return exsim_runner.parameter_default("exchange", "compress_ns_per_byte")


LZ4_SPEED = "about 780 MB/s"


def fitted_where(fitted):
    """Where the fitted values came from: the calibration file, relative to the repository when inside it."""
    if not fitted:
        return None
    path = fitted["path"]
    return os.path.relpath(path, REPO) if os.path.abspath(path).startswith(REPO) else path


def load_costs(path):
    """Fitted values from a calibration file: {"costs": {...}, "exchange_defaults": {...}, "cluster": {...},
    "source": str}."""
    try:
        with open(path, "r", encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise PlanError("%s: cannot read fitted costs (%s)" % (path, e))
    if not isinstance(doc.get("costs"), dict):
        raise PlanError("%s: expected an object `costs` of fitted values (as tools/tpcds_calibrate.py writes)" % path)
    for k, v in doc["costs"].items():
        if k not in exsim_runner.cost_keys():
            raise PlanError("%s: costs.%s is not a cost of the format" % (path, k))
        if not isinstance(v, (int, float)) or v < 0:
            raise PlanError("%s: costs.%s: expected a number >= 0" % (path, k))
    for k, v in doc.get("exchange_defaults", {}).items():
        if k not in ("compress_ns_per_byte", "compression_ratio") or not isinstance(v, (int, float)) or v < 0:
            raise PlanError("%s: exchange_defaults.%s: expected compress_ns_per_byte or compression_ratio >= 0" % (
                path, k))
    for k, v in doc.get("cluster", {}).items():
        if k not in FITTED_CLUSTER or not isinstance(v, (int, float)) or v < 0:
            raise PlanError("%s: cluster.%s: expected %s >= 0" % (path, k, " or ".join(FITTED_CLUSTER)))
    scale = doc.get("parameters", {}).get("cpu_scale", {}).get("value")
    if scale is not None and not (isinstance(scale, (int, float)) and scale > 0):
        raise PlanError("%s: parameters.cpu_scale.value: expected a number > 0" % path)
    doc["path"] = path
    return doc


def build_workload(plans, profiles, fitted=None, executors=EXECUTORS, measured_rows=None):
    """(scenario, summary) for the inputs; `fitted` replaces the placeholder costs (load_costs). `executors`:
    the cluster the plans are re-decided and placed for (the measured cluster's 5 by default).
    `measured_rows`: (path, document) of measured_rows.json, whose counts replace the rules' (rule M2)."""
    schema = Schema(plans)
    if measured_rows is not None:
        schema.measured = measured_rows[1]
    with open(os.path.join(plans, "README.md"), "r", encoding="utf-8") as f:
        m = re.search(r"Snapshot used: commit `([0-9a-f]{40})`", f.read())
    commit = m.group(1) if m else "unknown"
    tpcds, selected = select_queries(plans)
    measured = prof.measured_inputs(profiles)
    built = []
    for q, stem in selected:
        if q == "q72":
            built.append(build_q72(plans, profiles, schema, executors))
        elif q in VARIANT_BASE:
            built.append(variants.build(q, plans, schema, executors))
        else:
            built.append(build_plan_query(q, stem, plans, schema, executors))
    check = q72_row_size_check(plans, profiles, schema)
    cnt = counts(built)
    costs, cost_prov = costs_section(measured, fitted)
    exchange_defaults = {"compression_ratio": round(measured["lz4_ratio"], 4),
                         "compress_ns_per_byte": lz4_ns_per_byte()}
    if fitted:
        exchange_defaults.update(fitted.get("exchange_defaults", {}))
    provenance = provenance_section(commit, built, selected, measured, cost_prov, cnt, check, fitted)
    scenario = {
        "schema_version": 2,
        "name": "tpcds_sf100",
        "description": "Impala TPC-DS benchmark (104 statements) at SF100 on 5 executors: whole queries "
                       "(fragments, operators, exchanges) from Impala's own plans, rows rescaled from SF3000, "
                       "one plan for mt_dop=0 and one for mt_dop>0, queries run one after another",
        "seed": 1,
        "query_order": "sequential",
        "provenance": provenance,
        "cluster": {"executors": executors, "cores_per_executor": 8, "threads_per_core": 2,
                    "nic_bandwidth_gbps": 12.5, "rtt_us": 390, **(fitted or {}).get("cluster", {})},
        "flags": {"mt_dop": 0, "data_stream_sender_buffer_size": 16384, "rpcs_in_flight_per_channel": 1,
                  "compression": True},
        "costs": costs,
        "exchange_defaults": exchange_defaults,
        "queries": [b.doc for b in built],
    }
    provenance["join_distribution"] = join_decisions(built)
    if measured_rows is not None:
        provenance["scale"]["measured_rows"] = measured_provenance(measured_rows, built)
    if executors != EXECUTORS:
        scenario["description"] = scenario["description"].replace(
            "on %d executors:" % EXECUTORS, "retargeted to %d executors (the measured cluster has %d):" % (
                executors, EXECUTORS))
        provenance["retargeted"] = (
            "planned for %d executors instead of the measured %d (tools/tpcds_workload.py --executors): every "
            "join re-decided by rule J3 with %d probe hosts, every fragment placed on min(%d, its scan ranges) "
            "executors, per-instance rows (A3) for the instances that gives; where the rules and the placement "
            "below say 5 executors, read %d. Costs, start-up and LZ4 are the 5-executor calibration's (the "
            "hardware per executor is the same)" % (executors, EXECUTORS, executors, executors, executors))
    summary = {"commit": commit, "tpcds": tpcds, "selected": selected, "built": built, "counts": cnt,
               "check": check, "measured": measured, "costs": cost_prov,
               "q72_senders": prof.sender_rows(os.path.join(profiles, PROFILE_Q72)), "fitted": fitted}
    return scenario, summary


def load_measured_rows(path):
    """(path, document) of a measured_rows.json written by tools/tpcds_measure_rows.py."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        doc = json.loads(data)
    except (OSError, ValueError) as e:
        raise PlanError("%s: cannot read the measured rows (%s)" % (path, e))
    if not isinstance(doc, dict) or not isinstance(doc.get("queries"), dict):
        raise PlanError("%s: expected the measured rows of tools/tpcds_measure_rows.py (a 'queries' object)" % path)
    doc["_blob"] = git_blob_sha1(data)
    return path, doc


def measured_provenance(measured_rows, built):
    """What rule M2 took from measured_rows.json: the file, how its rows were counted, how many nodes."""
    path, doc = measured_rows
    by_how, untranslated = {}, 0
    for q in doc["queries"].values():
        for sec in q.values():
            for rec in sec.get("nodes", {}).values():
                by_how[rec.get("how")] = by_how.get(rec.get("how"), 0) + 1
            untranslated += len(sec.get("untranslated", {}))
    applied, pairs, joins = {}, {}, {}
    for b in built:
        for key, val in b.stats.get("plans", {}).items():
            plan = val[1] if isinstance(val, tuple) and len(val) > 1 else None
            nodes = getattr(plan, "nodes", None) or {}
            nodes = nodes.values() if isinstance(nodes, dict) else nodes
            nodes = list(nodes)
            applied[key] = applied.get(key, 0) + sum(1 for n in nodes if getattr(n, "rule", "").startswith("M2"))
            pairs[key] = pairs.get(key, 0) + sum(1 for n in nodes if "; M3 " in getattr(n, "rule", ""))
            joins[key] = joins.get(key, 0) + sum(1 for n in nodes if getattr(n, "rule", "").startswith("M4"))
    return {"file": os.path.relpath(path, REPO) if os.path.abspath(path).startswith(REPO) else os.path.basename(path),
            "git_blob_sha1": doc["_blob"], "scale_factor": doc.get("scale_factor"),
            "base_scale_factor": doc.get("base_scale_factor"), "engine": doc.get("engine"),
            "nodes_by_how": dict(sorted(by_how.items())), "nodes_untranslated": untranslated,
            "nodes_applied": applied, "pre_aggregations_with_pairs": pairs, "self_joins_measured": joins,
            "rule": "M2: a node measured on TPC-DS data takes its count instead of the rules' estimate "
                    "(tools/rowcount/measure.py: exact, sample, base); the rules stay the fallback"}


def join_decisions(built):
    """Rule J3's outcome per plan section: how many joins changed, and which (query:join printed->now)."""
    out = {}
    for key, (section, _, _) in SECTIONS.items():
        changed, kept, joins = [], [], 0
        for b in built:
            plan = b.stats.get("plans", {}).get(key, (None, None))[1]
            for d in getattr(plan, "join_decisions", []):
                joins += 1
                if d.applied:
                    changed.append("%s:%d %s->%s" % (b.name, d.nid, d.printed.lower(), d.at_target.lower()))
                elif d.why.startswith("kept as printed"):
                    kept.append("%s:%d (%s)" % (b.name, d.nid, d.why[len("kept as printed: "):]))
        out[key] = {"section": section, "joins": joins, "changed": len(changed), "changed_joins": changed,
                    "kept_as_printed": kept}
    return out


def costs_section(measured, fitted):
    """The workload's `costs` and their provenance. The operator classes: cpu_scale x their CPU per row
    in the profiles when a calibration gives the scale (checked against the calibration's own values,
    so that a stale calibration.json is an error, not a silent mismatch), the calibration file's values
    when it gives no scale, else the profiles' DEBUG values unscaled. Start-up and codegen: measured."""
    costs, prov = {}, {}
    fitted_costs = (fitted or {}).get("costs", {})
    scale = (fitted or {}).get("parameters", {}).get("cpu_scale", {}).get("value")
    where = fitted_where(fitted)
    classes = {v["key"]: (cls, v) for cls, v in measured["operator_costs"].items()}
    for k in exsim_runner.cost_keys(unit="ns"):   # the operator classes' CPU per row
        cls, m = classes[k]
        what = exsim_runner.parameter_rows()["costs"][k]["description"]
        basis = "%s DEBUG ns/row in the profiles (%s; README \"Costs\")" % (
            m["debug_ns_per_row"], "measured" if m["how"] == "measured" else
            "too little evidence, the %s's" % m["how"].split(": the ")[1].split("'s value")[0])
        if scale is not None:
            v = round(scale * m["debug_ns_per_row"], 3)
            if k in fitted_costs and abs(fitted_costs[k] - v) > 1e-9:
                raise PlanError("%s: costs.%s = %s, but cpu_scale %s x the profiles' %s ns/row = %s: the calibration "
                                "is stale (rerun tools/tpcds_calibrate.py --fit)" % (
                                    where, k, fitted_costs[k], scale, m["debug_ns_per_row"], v))
            status = "fitted: cpu_scale %s (%s) x %s" % (scale, where, basis)
        elif k in fitted_costs:
            v, status = fitted_costs[k], "fitted: from %s" % where
        else:
            v, status = m["debug_ns_per_row"], "measured, unscaled (not calibrated yet: tools/tpcds_calibrate.py --fit): " + basis
        costs[k] = v
        prov[k] = {"value": v, "status": status, "what": what}
    start = round(measured["startup_s"], 4)
    cg = round(measured["codegen_s_per_fragment"], 4)
    for k, v, what in (("query_startup_s", start, "per query before any fragment starts: planning, admission, "
                        "starting the backends, plus the tear-down after the last row (mean over the q72, q1 "
                        "mt_dop=0 and q1 mt_dop=12 profiles' timelines; profiles.query_startup)"),
                       ("codegen_s_per_fragment", cg, "per fragment per executor: mean CodegenTotalWallClockTime "
                        "of the %d per-host fragment CodeGen profiles of the same three runs (median %.4f s; "
                        "profiles.codegen_per_fragment)" % (measured["codegen_fragments"],
                                                            measured["codegen_median_s"]))):
        if k in fitted_costs:
            costs[k] = fitted_costs[k]
            prov[k] = {"value": fitted_costs[k], "status": "fitted: from %s" % where, "what": what, "measured": v}
        else:
            costs[k] = v
            prov[k] = {"value": v, "status": "measured (SF1, DEBUG build, one machine)", "what": what}
    fitted_x = (fitted or {}).get("exchange_defaults", {})
    prov["compress_ns_per_byte"] = {
        "value": fitted_x.get("compress_ns_per_byte", lz4_ns_per_byte()),
        "status": ("fitted: %s" % where) if "compress_ns_per_byte" in fitted_x else
                  "measured: LZ4's compression speed, the simulator's default (exsim params: %s); not "
                  "fitted (tools/tpcds/calibrate.py says why)" % LZ4_SPEED,
        "what": "LZ4 per uncompressed byte on the sender (exchange_defaults)"}
    return costs, prov


def provenance_section(commit, built, selected, measured, cost_prov, cnt, check, fitted):
    dispatch = (fitted or {}).get("cluster", {}).get("rpc_dispatch_us")
    return {
        "generator": GENERATOR + " (regenerate: /usr/bin/python3 tools/tpcds_workload.py)",
        "readme": "scenarios/tpcds_sf100/README.md explains every rule below",
        "plans": {
            "where": "../shared/impala-plans: Apache Impala planner test expectations, "
                     "testdata/workloads/functional-planner/queries/PlannerTest/tpcds_cpu_cost/",
            "apache_impala_commit": commit,
            "mt_dop=0": "DISTRIBUTEDPLAN (COMPUTE_PROCESSING_COST planning, MT_DOP unset) with each separate JOIN "
                        "BUILD fragment folded into its join's fragment, as Impala runs joins at mt_dop=0",
            "parallel": "PARALLELPLANS (the harness's MT_DOP=2 planning: the planner's mt_dop costing of broadcast "
                        "joins, separate JOIN BUILD fragments), used for every mt_dop > 0",
            "statistics": "stats-3TB.json: TPC-DS scale factor 3000, planned for 10 executors "
                          "(TpcdsCpuCostPlannerTest)",
            "files_git_blob_sha1": dict(sorted(b.stats["blob"] for b in built if "blob" in b.stats)),
        },
        "query_set": {
            "count": len(selected),
            "rule": "the 111 TPC-DS statements of impala-plans/queries.txt (Impala's tpcds benchmark workload) "
                    "minus the 7 ROLLUP queries whose rollup-free official variant is also listed "
                    "(q18, q22, q67, q70, q77, q80, q86, replaced by their 'a' variants); q51 and q51a both kept. "
                    "The measured run's own list is not published (calibration-data.md gives only the count 104).",
            "queries": [q for q, _ in selected],
            "excluded": list(ROLLUP_BASES_REPLACED),
            "variants": variants.DERIVATIONS,
        },
        "scale": {
            "from_scale_factor": 3000, "to_scale_factor": 100,
            "table_rows": {t: {"sf1": v[0], "sf100": v[1], "sf3000": v[2]} for t, v in sorted(TABLE_ROWS.items())},
            "table_rows_source": "SF100: TPC-DS specification, Table 3-2 'Database Row Counts' (they agree with "
                                 "shared/reference/calibration-data.md and the table in impala-plans/README.md); "
                                 "SF3000: numRows of impala-plans/stats-3TB.json (checked by the generator); SF1: "
                                 "expected results of apache/impala testdata/workloads/tpcds/queries/count.test "
                                 "at the same commit (Impala's SF1 test load, the data of the q72 profile)",
            "rules": SCALE_RULES,
            "mn_join_overrides": {"%s node %d" % k: "%s: %s" % v for k, v in sorted(MN_OVERRIDES.items())},
        },
        "row_size": {
            "fixed_row_bytes": "sum over ALL tuples of the exchange's row (tuple-ids) of each tuple's fixed size: "
                               "its slots (INT/DATE/DECIMAL(7,2) 4, BIGINT 8, STRING 12, ...) plus one null bit per "
                               "slot rounded up to bytes; what Impala's sender divides its buffer by",
            "var_row_bytes": "the row's string bytes: statistics' avgColLen of each STRING slot (stats-3TB.json); "
                             "one class's strings for a multi-class aggregation's row",
            "slots": "recovered per tuple from the printed row-sizes and the columns the SQL names (rowsize.py)",
            "check": check,
        },
        "placement": {
            "scan_ranges": "one file per selected partition at SF100 (the date partitions are the same at every "
                           "scale factor), split into %d MiB HDFS blocks; an unpartitioned table is one file "
                           "(assumption: the measured cluster's storage is not published)" % (BLOCK_BYTES >> 20),
            "executors": "a fragment whose leftmost leaf is a scan: min(5, scan ranges) executors (a one-file "
                         "table: one executor, chosen by crc32 of its name); a fragment fed on its leftmost leaf "
                         "by an exchange: its sender's executors; UNPARTITIONED: one instance (the root on "
                         "executor 0, the coordinator); join builds (parallel plan): their probe's executors",
            "instances": "instances_per_executor 0 everywhere: the simulator's rule per mt_dop; row estimates "
                         "of per-instance operators use 1 per executor (mt_dop=0) and the same rule at mt_dop=%d "
                         "(parallel)" % PARALLEL_MT_DOP,
        },
        "cluster": {
            "executors": "5: calibration-data.md section A (5 executors, AWS m6id.4xlarge)",
            "cores_per_executor": "8 physical cores, threads_per_core 2: m6id.4xlarge's 16 vCPUs are 8 cores with "
                                  "two hardware threads each (shared/reference/impala-query-execution.md); "
                                  "second_thread_gain: the simulator's default (a cited assumption)",
            "nic_bandwidth_gbps": "12.5: m6id.4xlarge network 'up to 12.5 Gbit/s' (calibration-data.md section A)",
            "rtt_us": "390: network time per RPC, calibration-data.md section A",
            "rpc_dispatch_us": (
                "fitted: %s (%s): a request's hand-off to a service thread, which the sender waits for and the "
                "published network time per RPC excludes; fitted to the non-pushback hash exchanges' blocked time"
                % (dispatch, fitted_where(fitted)) if dispatch is not None else
                "0, the simulator's default (no calibration given)"),
        },
        "flags": "the measured baseline of calibration-data.md section A: mt_dop=0, "
                 "data_stream_sender_buffer_size 16 KiB, LZ4 compression on, K=1",
        "seed": "1: the simulator's default seed (no number here is drawn at random)",
        "costs": cost_prov,
        "profiles": {
            "compression_ratio": "%.4f: measured, pooled LZ4 ratio of the tuple data of the remote traffic in "
                                 "impala-profiles/%s (receivers on daemons where no instance of the exchange sent "
                                 "rows: TotalBytesReceived less 4 offset bytes per tuple / TotalBytesDequeued less "
                                 "8 pointer bytes per tuple, summed over exchanges %s)" % (
                                     measured["lz4_ratio"], PROFILE_Q72,
                                     ", ".join(str(x) for x in measured["lz4_detail"])),
            "operator_costs": {
                "what": "CPU per row of each operator class from the operators' own timers (profiles.operator_costs): "
                        "operator instances that handled at least %d rows, seconds summed / rows summed per class, in "
                        "the q72 and both q1 profiles (DEBUG builds: only the ratios are used; costs = cpu_scale x "
                        "these)" % prof.COST_MIN_ROWS,
                "classes": measured["operator_costs"]},
            "startup": measured["startup"],
            "codegen_per_fragment": measured["codegen"],
        },
        "counts": cnt,
        "fitted_from": (fitted or {}).get("source"),
    }


def dump_json(obj):
    return json.dumps(obj, indent=1, ensure_ascii=False) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plans", default=DEFAULT_PLANS,
                    help="folder with Impala's TPC-DS planner tests (default: ../shared/impala-plans)")
    ap.add_argument("--profiles", default=DEFAULT_PROFILES,
                    help="folder of Impala's runtime profiles (default: ../shared/impala-profiles)")
    ap.add_argument("--out", default=DEFAULT_OUT,
                    help="output folder for workload.json and README.md (default: scenarios/tpcds_sf100)")
    ap.add_argument("--costs", default=CALIBRATION,
                    help="fitted costs ({\"costs\": {...}, \"exchange_defaults\": {...}, \"parameters\": ...}, as "
                         "tools/tpcds_calibrate.py --fit writes them; default: scenarios/tpcds_sf100/calibration.json "
                         "when it exists); 'none': not calibrated")
    ap.add_argument("--measured-rows", default=MEASURED_ROWS,
                    help="rows counted on TPC-DS data by tools/tpcds_measure_rows.py, which replace the rules' "
                         "estimates (rule M2; default: scenarios/tpcds_sf100/measured_rows.json); 'none': the "
                         "rules only")
    ap.add_argument("--executors", type=int, default=EXECUTORS,
                    help="plan and place the queries for this many executors (default %d, the measured cluster; "
                         "another count needs --out, and no README is written for it)" % EXECUTORS)
    args = ap.parse_args(argv)
    try:
        row = exsim_runner.parameter_rows()["cluster"]["executors"]  # what exsim validate takes
    except exsim_runner.ExsimError as e:
        ap.error("--executors: cannot read exsim's range of cluster.executors: %s" % e)
    if not int(row["min"]) <= args.executors <= int(row["max"]):
        ap.error("--executors %d: expected %d to %d (exsim's range of cluster.executors)" % (
            args.executors, int(row["min"]), int(row["max"])))
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        ap.error("--out %s: not a folder (workload.json and README.md are written in it)" % args.out)
    if args.executors != EXECUTORS and os.path.abspath(args.out) == os.path.abspath(DEFAULT_OUT):
        ap.error("--executors %d: pass --out DIR (%s holds the measured %d-executor workload)" % (
            args.executors, os.path.relpath(DEFAULT_OUT, REPO), EXECUTORS))
    for need in ("queries.txt", "stats-3TB.json", "README.md", "tpcds-q72.test"):
        if not os.path.isfile(os.path.join(args.plans, need)):
            sys.stderr.write("tpcds_workload: plan folder %s not found or incomplete (missing %s); "
                             "pass --plans DIR (Impala's tpcds_cpu_cost planner tests, see "
                             "../shared/impala-plans/README.md)\n" % (args.plans, need))
            return 2
    if not os.path.isfile(os.path.join(args.profiles, PROFILE_Q72)):
        sys.stderr.write("tpcds_workload: profile %s not found in %s; pass --profiles DIR\n" % (
            PROFILE_Q72, args.profiles))
        return 2
    t0 = time.monotonic()
    try:
        use = args.costs not in (None, "", "none") and (args.costs != CALIBRATION or
                                                         os.path.isfile(args.costs))
        fitted = load_costs(args.costs) if use else None
        mr = None
        if args.measured_rows not in (None, "", "none"):
            mr = load_measured_rows(args.measured_rows)
        scenario, summary = build_workload(args.plans, args.profiles, fitted, args.executors, mr)
    except (PlanError, exsim_runner.ExsimError) as e:  # ExsimError: the simulator's rules are asked of it
        sys.stderr.write("tpcds_workload: %s\n" % e)
        return 2
    atomic.write_text(os.path.join(args.out, "workload.json"), dump_json(scenario))
    if args.executors == EXECUTORS:
        atomic.write_text(os.path.join(args.out, "README.md"), render_readme(scenario, summary))
    else:
        sys.stderr.write("tpcds_workload: no README.md for %d executors (the README describes the measured %d-executor "
                         "workload; provenance.retargeted says what changed)\n" % (args.executors, EXECUTORS))
    c = summary["counts"]["mt_dop=0"]
    sys.stderr.write("tpcds_workload: %d queries, %d fragments, %d exchanges (%s; %d hash) -> %s in %.1f s\n" % (
        c["queries"], c["fragments"], c["exchanges"],
        ", ".join("%s %d" % kv for kv in c["by_partitioning"].items()), c["hash_exchanges"],
        os.path.relpath(args.out, REPO) if os.path.abspath(args.out).startswith(REPO) else args.out,
        time.monotonic() - t0))
    return 0

