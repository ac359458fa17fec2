"""Numbers read off Impala's real runtime profiles (../shared/impala-profiles).

- q72's plan and measured rows per plan node (rule M1), and its senders' row shares (skew);
- the pooled LZ4 ratio of the q72 run's remote traffic (tuple data only);
- per-query start-up from the query timelines (planning, admission, starting the backends,
  tear-down) and codegen per fragment per host from the per-host CodeGen profiles;
- the CPU per row of each operator class from the operators' own timers (`operator_costs`),
  whose ratios the calibration scales by one fitted factor.

All three profiles are SF1 runs of a DEBUG build on one machine (impala-profiles/README.md):
CPU times are inflated against a release build, and the network is loopback.
"""

import json
import os
import re
import statistics

from tools.impala_profile import decode, model
from tools.impala_profile.model import seconds
from tools.tpcds import PROFILE_Q1, PROFILE_Q1_MT, PROFILE_Q72, PlanError
from tools.tpcds.plans import METRIC, parse_lines

# A sender instance that sent at least this share of an exchange's rows in a profile marks a skew,
# which the workload then examines (README "Skew").
SKEW_SHARE = 0.9

SUMMARY_ROW_RE = re.compile(r"^[| -]*(?P<id>\d+):(?P<kind>[A-Z][A-Z -]*?[A-Z])\s{2,}(?P<hosts>\d+)\s+(?P<inst>\d+)\s+"
                            r"\S+\s+\S+\s+(?P<rows>[\d.]+)(?P<ru>[KMGT]?)\s+(?P<est>[\d.]+)(?P<eu>[KMGT]?)\s")


def load(path):
    try:
        with open(path, "r", encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise PlanError("%s: cannot read the profile (%s)" % (path, e))


def _counter(node, name):
    for c in node.get("counters", []):
        if c.get("counter_name") == name:
            return c.get("value", 0)
    return None


def _summary(doc):
    return doc["contents"]["child_profiles"][0]


def _info(doc, key):
    for i in _summary(doc).get("info_strings", []):
        if i.get("key") == key:
            return i.get("value", "")
    raise PlanError("profile has no %r in its Summary" % key)


def measured_plan(path):
    """The plan printed in a profile, each node's `card` replaced by the rows it really returned
    (the ExecSummary's #Rows, summed over instances). Returns (Plan, {node id: (estimate, rows)})."""
    doc = load(path)
    text = _info(doc, "Plan")
    plan = parse_lines(text.split("\n"), 0, os.path.basename(path) + " Plan")
    rows = {}
    for ln in _info(doc, "ExecSummary").split("\n"):
        m = SUMMARY_ROW_RE.match(ln)
        if m:
            rows[int(m.group("id"))] = (float(m.group("est")) * METRIC[m.group("eu")],
                                        float(m.group("rows")) * METRIC[m.group("ru")])
    for n in plan.nodes.values():
        if n.nid not in rows:
            raise PlanError("%s: ExecSummary has no row for node %d" % (path, n.nid))
        n.card = rows[n.nid][1]
        n.card_text = "%s measured" % _metric(n.card)
    return plan, rows


def _metric(v):
    for unit, div in (("G", 1e9), ("M", 1e6), ("K", 1e3)):
        if v >= div:
            return "%.2f%s" % (v / div, unit)
    return "%.0f" % v


def _walk_instances(doc, visit):
    """visit(node, host) over every node of every fragment instance (not the averaged copies)."""
    def walk(node, host):
        name = node.get("profile_name", "")
        if name.startswith("Averaged Fragment"):
            return
        m = re.match(r"Instance \S+ \(host=([^)]+)\)", name)
        if m:
            host = m.group(1)
        visit(node, host)
        for ch in node.get("child_profiles", []):
            walk(ch, host)
    walk(doc["contents"], None)


def sender_rows(path):
    """{exchange id: [(host, rows sent) per sender instance]} of a profile."""
    out = {}

    def visit(node, host):
        m = re.match(r"KrpcDataStreamSender \(dst_id=(\d+)\)", node.get("profile_name", ""))
        if m and host:
            out.setdefault(int(m.group(1)), []).append((host, _counter(node, "RowsSent") or 0))
    _walk_instances(load(path), visit)
    return {k: sorted(v) for k, v in out.items()}


def _profiled_query(path):
    """The profile as tools/impala_profile models it (operators, instances, exchanges)."""
    try:
        docs = decode.read_profiles(path)
        return model.build_query(docs[0])
    except decode.ProfileError as e:
        raise PlanError(str(e))


def profile_lz4_ratio(path):
    """Pooled LZ4 ratio of the tuple data of a profile's remote traffic.

    A channel to the sender's own daemon is sent uncompressed, so only receiver instances on a
    daemon where no instance of the exchange sent rows count: everything they received was
    compressed. Neither receiver counter is tuple data alone: TotalBytesReceived is the compressed
    tuple data plus the uncompressed tuple offsets, 4 bytes per tuple of each row
    (krpc-data-stream-recvr.cc AddBatch: tuple_data.size() + tuple_offsets.size()), and
    TotalBytesDequeued is RowBatch::GetDeserializedSize, the uncompressed tuple data plus an 8-byte
    pointer per tuple of each row. The scenario's `compression_ratio` is compressed / uncompressed
    tuple data (the simulator adds offsets and pointers from `tuples_per_row`), so

        ratio = sum(received - 4 x tuples x rows) / sum(dequeued - 8 x tuples x rows)

    over those receivers, with the tuples per row of the exchange node (the plan's tuple-ids) and
    each receiver's RowsReturned. Returns (ratio, per-exchange detail)."""
    q = _profiled_query(path)
    wire = raw = 0
    detail = {}
    for xid in sorted(q.exchanges):
        x = q.exchanges[xid]
        sent_from = {s.instance.host for s in x.senders if s.rows > 0}
        remote = [r for r in x.receivers if r.instance.host not in sent_from and r.bytes_dequeued > 0]
        if not remote:
            continue
        if not x.tuples:
            raise PlanError("%s: exchange %d: the plan text gives no tuple-ids" % (path, xid))
        rows = sum(r.rows for r in remote)
        got = sum(r.bytes_received for r in remote)
        deq = sum(r.bytes_dequeued for r in remote)
        w, d = got - 4 * x.tuples * rows, deq - 8 * x.tuples * rows
        wire += w
        raw += d
        detail[xid] = {"remote_receivers": len(remote), "rows": rows, "tuples_per_row": x.tuples,
                       "bytes_received": got, "bytes_dequeued": deq, "raw_ratio": round(got / deq, 4),
                       "ratio": round(w / d, 4)}
    if raw <= 0:
        raise PlanError("%s: no receiver with only remote senders" % path)
    return wire / raw, detail


START_EVENTS = {
    "planning_s": ("Query submitted", "Planning finished"),
    "admission_s": ("Planning finished", "Completed admission"),
    "backend_start_s": ("Completed admission", "started"),
    "teardown_s": ("Last row fetched", "Unregister query"),
}


def query_startup(path):
    """Seconds of a profiled query outside its fragments' execution, from the Summary's query
    timeline: planning (submitted -> planning finished), admission (-> completed admission),
    starting the backends (-> 'All N execution backends ... started') and tear-down (last row
    fetched -> unregister). The client's fetch ('Rows available' -> 'First row fetched') is left
    out: it is the client's, not the query's."""
    for seq in _summary(load(path)).get("event_sequences", []):
        ev = {}
        for e in seq.get("events", []):
            label = e.get("label", "")
            key = "started" if label.startswith("All ") and "started" in label else label
            ev[key] = e.get("timestamp", 0) * 1e-9
        if all(a in ev and b in ev for a, b in START_EVENTS.values()):
            out = {k: round(ev[b] - ev[a], 6) for k, (a, b) in START_EVENTS.items()}
            out["total_s"] = round(sum(out.values()), 6)
            return out
    raise PlanError("%s: no query timeline with submit, planning, admission, start, fetch and unregister "
                    "events" % path)


def codegen_per_fragment(path):
    """[(host, fragment, seconds)] of codegen: CodegenTotalWallClockTime of each per-host
    'Fragment Fnn' CodeGen profile (Impala codegens a fragment once per executor)."""
    out = []

    def walk(node, host, frag):
        name = node.get("profile_name", "")
        if re.match(r"^[^/\s]+:\d+$", name):
            host = name
        m = re.match(r"^(?:Coordinator )?Fragment (F\d+)$", name)
        if m:
            frag = m.group(1)
        if name == "CodeGen" and host and frag:
            t = _counter(node, "CodegenTotalWallClockTime")
            if t is not None:
                out.append((host, frag, t * 1e-9))
        for ch in node.get("child_profiles", []):
            walk(ch, host, frag)

    doc = load(path)
    for ch in doc["contents"]["child_profiles"]:
        if ch.get("profile_name", "").startswith("Execution Profile"):
            for sub in ch.get("child_profiles", []):
                if sub.get("profile_name") == "Per Node Profiles":
                    walk(sub, None, None)
    if not out:
        raise PlanError("%s: no per-host CodeGen profile" % path)
    return sorted(out)


# The operator classes of the scenario's `costs` and what times each in a profile: the operator's
# own timer, so that waits (runtime filters, scanner threads, a join's build, an exchange) stay out.
COST_CLASSES = (
    ("scan", "scan_ns_per_row", "HDFS_SCAN_NODE: MaterializeTupleTime per RowsRead (the per-row work on the "
     "columns a query reads and its predicates; the profiles' tables are TEXT, whose DelimiterParseTime, finding "
     "the field boundaries of every byte of every line, has no counterpart in the workload's Parquet scans and "
     "is left out)"),
    ("join_build", "join_build_ns_per_row", "Hash Join Builder: BuildRowsPartitionTime + HashTablesBuildTime "
     "per BuildRows (in the join at mt_dop=0, in its join-build fragment at mt_dop>0)"),
    ("join_probe", "join_probe_ns_per_row", "HASH_JOIN_NODE: ProbeTime per ProbeRows"),
    ("aggregate", "aggregate_ns_per_row", "AGGREGATION_NODE: its Grouping/NonGroupingAggregator's BuildTime + "
     "StreamingTime + GetResultsTime per input row (its child's RowsReturned)"),
    ("sort", "sort_ns_per_row", "SORT_NODE (sort or top-n): its own time (TotalTime - InactiveTotalTime - its "
     "child's TotalTime) per input row"),
    ("analytic", "analytic_ns_per_row", "ANALYTIC_EVAL_NODE: its own time per input row"),
    ("other", "other_ns_per_row", "SELECT_NODE, UNION_NODE: their own time per input row"),
)
# An operator instance counts when it handled this many rows: below it, per-operator fixed costs
# (Open, hash table allocation, codegen'd function set-up) dominate its timer.
COST_MIN_ROWS = 10000
# A class is measured when its counted instances cover this many rows of this many distinct plan
# operators (query and node); otherwise it takes a stand-in class's value (COST_STAND_INS).
COST_MIN_CLASS_ROWS = 100000
COST_MIN_OPERATORS = 3
COST_STAND_INS = {
    "sort": ("aggregate", "a sort puts every input row into its runs and compares keys, a top-n every row "
             "through a heap: like a hash aggregation, per-row materialization and comparison in a structure "
             "larger than the cache (the one top-n measured is listed, not used)"),
    "analytic": ("aggregate", "Impala evaluates analytic functions with the aggregation's function evaluators "
                 "(AggFnEvaluator Add/GetValue), row by row over the sorted input"),
    "other": ("join_probe", "a select evaluates its conjuncts on each row, a union copies each row: per-row "
              "expression work without a hash table, taken at a probe's cost (an upper side)"),
}


def _own_cpu(op, k, kids):
    """(rows, seconds) of operator instance k by its class's timer (COST_CLASSES), or None."""

    n = op.per_instance[k]
    if n is None:
        return None

    def t(node, name):
        return (seconds(node.counters.get(name)) or 0.0) if node is not None else 0.0

    def child(prefix):
        return next((c for c in n.children if c.name.startswith(prefix)), None)
    rows_in = sum(c.per_instance[k].value("RowsReturned", 0) for c in kids
                  if k < len(c.per_instance) and c.per_instance[k] is not None)
    if op.kind == "HDFS_SCAN_NODE":
        return "scan", n.value("RowsRead", 0), t(n, "MaterializeTupleTime")
    if op.kind == "HASH_JOIN_NODE":
        return "join_probe", n.value("ProbeRows", 0), t(n, "ProbeTime")
    if op.kind == "AGGREGATION_NODE":
        a = child("GroupingAggregator") or child("NonGroupingAggregator")
        return "aggregate", rows_in, sum(t(a, c) for c in ("BuildTime", "StreamingTime", "GetResultsTime"))
    cls = {"SORT_NODE": "sort", "ANALYTIC_EVAL_NODE": "analytic", "SELECT_NODE": "other",
           "UNION_NODE": "other"}.get(op.kind)
    if cls:
        return cls, rows_in, op.local_time_s(k, kids)
    return None


def _builders(inst_node):
    """Every 'Hash Join Builder' profile under a fragment instance (integrated or separate builds)."""
    out = []

    def walk(node):
        if node.name.startswith("Hash Join Builder"):
            out.append(node)
        for c in node.children:
            walk(c)
    walk(inst_node)
    return out


def operator_costs(profiles, names=(PROFILE_Q72, PROFILE_Q1, PROFILE_Q1_MT)):
    """CPU per row of each operator class (COST_CLASSES), read off the operators' own timers in the
    profiles: every operator instance that handled at least COST_MIN_ROWS rows, pooled per class
    (seconds summed / rows summed). The profiles are DEBUG builds on one machine, so only the ratios
    between classes are meant: the calibration scales them by one fitted factor. A class with too
    little evidence takes its stand-in's value (COST_STAND_INS), which the result says."""

    samples = {c: [] for c, _, _ in COST_CLASSES}
    for name in names:
        q = _profiled_query(os.path.join(profiles, name))
        qname = "q72" if name == PROFILE_Q72 else "q1"
        for fid, f in sorted(q.fragments.items()):
            for oid, op in sorted(f.operators.items()):
                kids = [f.operators[c] for c in op.children]
                if op.build_child is not None:
                    kids.append(f.operators[op.build_child])
                for k in range(len(f.instances)):
                    got = _own_cpu(op, k, kids)
                    if got and got[1] >= COST_MIN_ROWS:
                        samples[got[0]].append((name, qname, "%s node %d" % (fid, oid), got[1], got[2]))
            for inst in f.instances:
                for b in _builders(inst.node):
                    rows = b.value("BuildRows", 0)
                    if rows >= COST_MIN_ROWS:
                        secs = sum(seconds(b.counters.get(c)) or 0.0
                                   for c in ("BuildRowsPartitionTime", "HashTablesBuildTime"))
                        m = re.search(r"join_node_id=(\d+)", b.name)
                        samples["join_build"].append((name, qname, "build of join node %s" % (
                            m.group(1) if m else b.name), rows, secs))
    out = {}
    for cls, key, timer in COST_CLASSES:
        got = samples[cls]
        rows = sum(r for _, _, _, r, _ in got)
        secs = sum(t for _, _, _, _, t in got)
        operators = len({(qn, where) for _, qn, where, _, _ in got})
        per_profile = {}
        for name, _, _, r, t in got:
            pr = per_profile.setdefault(name, [0, 0.0, 0])
            pr[0] += r
            pr[1] += t
            pr[2] += 1
        out[cls] = {
            "key": key, "timer": timer, "rows": rows, "seconds": round(secs, 6),
            "instances": len(got), "operators": operators,
            "ns_per_row": round(1e9 * secs / rows, 1) if rows else None,
            "per_profile": {n: {"rows": v[0], "seconds": round(v[1], 6), "instances": v[2],
                                "ns_per_row": round(1e9 * v[1] / v[0], 1)} for n, v in sorted(per_profile.items())},
            "measured": rows >= COST_MIN_CLASS_ROWS and operators >= COST_MIN_OPERATORS,
        }
    for cls, v in out.items():
        if v["measured"]:
            v["debug_ns_per_row"] = v["ns_per_row"]
            v["how"] = "measured"
        else:
            stand, why = COST_STAND_INS[cls]
            if not out[stand]["measured"]:
                raise PlanError("operator costs: class %s has too little evidence and its stand-in %s too" % (
                    cls, stand))
            v["debug_ns_per_row"] = out[stand]["ns_per_row"]
            v["how"] = ("too little evidence (%d rows of %d operators; at least %d rows of %d operators needed): "
                        "the %s's value, because %s" % (v["rows"], v["operators"], COST_MIN_CLASS_ROWS,
                                                        COST_MIN_OPERATORS, stand.replace("_", " "), why))
    return out


def measured_inputs(profiles):
    """Everything the workload and its calibration read off the profiles, with the detail."""
    for name in (PROFILE_Q72, PROFILE_Q1, PROFILE_Q1_MT):
        if not os.path.isfile(os.path.join(profiles, name)):
            raise PlanError("profile %s not found in %s; pass --profiles DIR" % (name, profiles))
    lz4, detail = profile_lz4_ratio(os.path.join(profiles, PROFILE_Q72))
    startup = {name: query_startup(os.path.join(profiles, name)) for name in (PROFILE_Q72, PROFILE_Q1, PROFILE_Q1_MT)}
    codegen = {name: codegen_per_fragment(os.path.join(profiles, name))
               for name in (PROFILE_Q72, PROFILE_Q1, PROFILE_Q1_MT)}
    per_fragment = [s for rows in codegen.values() for _, _, s in rows]
    return {
        "lz4_ratio": lz4, "lz4_detail": detail,
        "startup": startup,
        "startup_s": statistics.mean(v["total_s"] for v in startup.values()),
        "codegen": {k: [{"host": h, "fragment": f, "s": round(s, 6)} for h, f, s in v] for k, v in codegen.items()},
        "codegen_s_per_fragment": statistics.mean(per_fragment),
        "codegen_median_s": statistics.median(per_fragment),
        "codegen_fragments": len(per_fragment),
        "operator_costs": operator_costs(profiles),
    }
