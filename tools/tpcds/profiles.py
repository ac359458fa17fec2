"""Numbers read off Impala's real runtime profiles (../shared/impala-profiles).

- q72's plan and measured rows per plan node (rule M1), and its senders' row shares (skew);
- the pooled LZ4 ratio of the q72 run's remote traffic;
- per-query start-up from the query timelines (planning, admission, starting the backends,
  tear-down) and codegen per fragment per host from the per-host CodeGen profiles.

All three profiles are SF1 runs of a DEBUG build on one machine (impala-profiles/README.md):
CPU times are inflated against a release build, and the network is loopback.
"""

import json
import os
import re
import statistics

from tools.tpcds import PROFILE_Q1, PROFILE_Q1_MT, PROFILE_Q72, PlanError
from tools.tpcds.plans import METRIC, parse_lines

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


def profile_lz4_ratio(path):
    """Pooled LZ4 ratio of the remote traffic of a web-UI JSON profile.

    A channel to the sender's own daemon is sent uncompressed, so only receiver
    instances on a daemon where no instance of the exchange sent rows count:
    everything they received was compressed. Ratio = their TotalBytesReceived
    (on the wire) summed / their TotalBytesDequeued (deserialized) summed.
    Returns (ratio, per-exchange detail)."""
    senders = {}    # exchange id -> daemons whose sender instances sent rows
    receivers = {}  # exchange id -> [(daemon, received, dequeued)]

    def visit(node, host):
        name = node.get("profile_name", "")
        m = re.match(r"KrpcDataStreamSender \(dst_id=(\d+)\)", name)
        if m and host and (_counter(node, "RowsSent") or 0) > 0:
            senders.setdefault(int(m.group(1)), set()).add(host)
        m = re.match(r"EXCHANGE_NODE \(id=(\d+)\)", name)
        if m and host:
            got = deq = None
            for ch in node.get("child_profiles", []):
                if ch.get("profile_name") == "Enqueue":
                    got = _counter(ch, "TotalBytesReceived")
                if ch.get("profile_name") == "Dequeue":
                    deq = _counter(ch, "TotalBytesDequeued")
            if got is not None and deq:
                receivers.setdefault(int(m.group(1)), []).append((host, got, deq))

    _walk_instances(load(path), visit)
    wire = raw = 0
    detail = {}
    for x in sorted(receivers):
        remote = [(g, d) for h, g, d in receivers[x] if h not in senders.get(x, set())]
        if remote:
            w, r = sum(g for g, _ in remote), sum(d for _, d in remote)
            wire += w
            raw += r
            detail[x] = {"remote_receivers": len(remote), "bytes_received": w, "bytes_dequeued": r,
                         "ratio": round(w / r, 4)}
    if raw == 0:
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
    }
