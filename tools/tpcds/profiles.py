"""Numbers read off Impala's real runtime profiles (../shared/impala-profiles)."""

import json
import os
import re

from tools.tpcds import PROFILE_Q1, PROFILE_Q72, PlanError
from tools.tpcds.ddl import TABLE_ROWS
from tools.tpcds.plans import parse_plan
from tools.tpcds.scaling import Scaler, fmt_rows

# --------------------------------------------------------------------------
# q72 check against the SF1 profile
# --------------------------------------------------------------------------

# Measured per exchange in impala-profiles/tpcds_72_local_run_profile.json
# (SF1, 3 daemons, MT_DOP=12; sums over the KrpcDataStreamSender instances of
# RowsSent and UncompressedRowBatchSize; for a broadcast the latter counts
# every copy, so bytes/row divides by the receiver count too). Paired with the
# exchange of the SF3000 plan that carries the same rows; "shape differs"
# where the two plans put the exchange at different places of the join tree.
Q72_PROFILE = [
    # (our node, profile exchange, what, rows, uncompressed bytes, receivers, comparable)
    (23, 29, "household_demographics broadcast", 1200, 90000, 3, True),
    (24, 30, "customer_demographics broadcast", 384160, 28812000, 3, True),
    (25, 26, "date_dim d1 (d_year=2002) broadcast", 365, 24090, 2, True),
    (26, 24, "item broadcast", 18000, 4637630, 2, True),
    (27, 31, "date_dim d3 broadcast", 73049, 5478675, 3, True),
    (28, 25, "date_dim d2 broadcast", 73049, 2483666, 2, True),
    (31, 23, "warehouse broadcast", 5, 368, 2, True),
    (32, 32, "promotion broadcast", 300, 11700, 3, True),
    (33, 33, "catalog_returns broadcast", 144067, 10805025, 3, True),
    (29, 27, "catalog_sales side, hashed", 1441548, 70635852, 1, False),
    (30, 28, "inventory side, hashed", 16380000, 4021344600, 1, False),
    (34, 34, "HASH(i_item_desc,w_warehouse_name,d1.d_week_seq) after the pre-aggregation",
     2123, 368622, 1, True),
    (36, 36, "MERGING-EXCHANGE to the coordinator (top 100 per sender)", 300, 53273, 1, True),
]


# Rule M1: where a real profile of the same query measured an exchange, its rows and
# bytes per row replace the planner's estimate, scaled from SF1 to SF100 by the
# tables that drive them. Only q72 has such a profile. Its partitioned join is
# fed by catalog_sales (profile exchange 27, all of catalog_sales) and by
# inventory already joined with warehouse, item and date_dim (exchange 28:
# 16.38M rows of 245.5 B at SF1, while the SF3000 plan hashes raw 16-byte
# inventory rows: a different join order); exchange 34 carries the groups of
# (i_item_desc, w_warehouse_name, d_week_seq), 29x fewer than the rules give.
# (our node, profile exchange, SF100/SF1 multiplier as tables, why)
Q72_MEASURED = {
    29: (27, ["catalog_sales"], "rows scale with catalog_sales"),
    30: (28, ["inventory"], "rows scale with inventory (warehouse, item and the week join keep their "
                            "per-row selectivity)"),
    34: (34, ["item", "warehouse"], "groups scale with distinct items x warehouses (weeks do not grow)"),
}


def profile_override(qname, nid):
    """(rows at SF100, bytes per row, why) for an exchange measured in a profile (rule M1), else None."""
    if qname != "q72" or nid not in Q72_MEASURED:
        return None
    pid, tables, why = Q72_MEASURED[nid]
    row = next(r for r in Q72_PROFILE if r[1] == pid)
    _, _, what, prows, pbytes, nrecv, _ = row
    mult = 1.0
    for t in tables:
        mult *= TABLE_ROWS[t][1] / TABLE_ROWS[t][0]
    width = max(1, int(round(pbytes / nrecv / prows)))
    rows = int(round(prows * mult))
    return rows, width, ("M1 measured: q72 SF1 profile exchange %d (%s) sent %s rows of %.1f B; x%.2f to SF100 "
                         "(%s): %s rows of %d B, replacing the plan's estimate" % (
                             pid, what, fmt_rows(prows), pbytes / nrecv / prows, mult, why, fmt_rows(rows), width))


def q72_check(plans, stats):
    root, nodes, frags, text = parse_plan(os.path.join(plans, "tpcds-q72.test"))
    Scaler(stats, 0, "q72", instances=3).scale(root)
    rows = []
    for nid, pid, what, prow, pbytes, nrecv, comparable in Q72_PROFILE:
        n = nodes[nid]
        rows.append({
            "node": nid, "profile_exchange": pid, "what": what,
            "sf3000": n.card_text, "model_sf1_rows": int(round(n.card100)),
            "profile_rows": prow, "row_size": n.row_size_text,
            "profile_bytes_per_row": round(pbytes / nrecv / prow, 1),
            "comparable": comparable,
        })
    return rows


# --------------------------------------------------------------------------
# LZ4 ratio measured in the q72 profile
# --------------------------------------------------------------------------

def _counter(node, name):
    for c in node.get("counters", []):
        if c.get("counter_name") == name:
            return c.get("value", 0)
    return None


def profile_lz4_ratio(path):
    """Pooled LZ4 ratio of the remote traffic of a web-UI JSON profile.

    A channel to the sender's own daemon is sent uncompressed, so only receiver
    instances on a daemon where no instance of the exchange sent rows count:
    everything they received was compressed. Ratio = their TotalBytesReceived
    (on the wire) summed / their TotalBytesDequeued (deserialized) summed.
    Returns (ratio, per-exchange detail)."""
    with open(path, "r", encoding="utf-8") as f:
        doc = json.load(f)
    senders = {}    # exchange id -> daemons whose sender instances sent rows
    receivers = {}  # exchange id -> [(daemon, received, dequeued)]

    def walk(node, host):
        name = node.get("profile_name", "")
        if name.startswith("Averaged Fragment"):
            return
        m = re.match(r"Instance \S+ \(host=([^)]+)\)", name)
        if m:
            host = m.group(1)
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
        for ch in node.get("child_profiles", []):
            walk(ch, host)

    walk(doc["contents"], None)
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


# --------------------------------------------------------------------------
# Calibrated parameters
# --------------------------------------------------------------------------

# The shared physical parameters the calibration fits (tools/tpcds_calibrate.py
# writes their values to calibration.json). All zero = uncalibrated.
def profile_query_overhead(path):
    """Seconds of a profiled query outside its fragments' execution: from 'Query submitted' to
    'All ... execution backends ... started' (planning, admission, start-up) plus from 'Last row
    fetched' to 'Unregister query' (tear-down), from the Summary's query timeline."""
    with open(path, "r", encoding="utf-8") as f:
        doc = json.load(f)
    summary = doc["contents"]["child_profiles"][0]
    for seq in summary.get("event_sequences", []):
        ev = {}
        for e in seq.get("events", []):
            label = e.get("label", "")
            key = ("started" if label.startswith("All ") and "started" in label else label)
            ev[key] = e.get("timestamp", 0) * 1e-9
        if all(k in ev for k in ("Query submitted", "started", "Last row fetched", "Unregister query")):
            return (ev["started"] - ev["Query submitted"]) + (ev["Unregister query"] - ev["Last row fetched"])
    raise PlanError("%s: no query timeline with submit, start, fetch and unregister events" % path)


def measured_inputs(profiles):
    """Numbers read off the real profiles: the LZ4 ratio (q72) and the per-query overhead (mean of
    q72 and q1 at mt_dop=0)."""
    lz4, detail = profile_lz4_ratio(os.path.join(profiles, PROFILE_Q72))
    over = {name: profile_query_overhead(os.path.join(profiles, name)) for name in (PROFILE_Q72, PROFILE_Q1)}
    return {"lz4_ratio": lz4, "lz4_detail": detail, "overhead_s": sum(over.values()) / len(over),
            "overhead_detail": {k: round(v, 4) for k, v in sorted(over.items())}}
