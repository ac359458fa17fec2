"""Turning profiled queries (model.Query) into an exsim scenario in schema_version 2.

    scenario = to_scenario.build_scenario(queries, source_name)

What the profile measured becomes an input where the model takes one (placement, rows per
operator, row widths, compression ratio, CPU costs per row, round trip and bandwidth of the
profile's own network) and an `expected` value where the model predicts it (RPCs, bytes, blocked
and network times, deferrals, the query's runtime). How each input was derived is written next
to it (`provenance`, each exchange's `source`); whatever the profile carries that the model
cannot use is listed in `provenance.ignored` with the reason.
"""

import json
import math
import os
import re

from common import exsim_runner

from .decode import ProfileError
from .model import parse_duration, seconds

SCHEMA_VERSION = 2


def _pointer_bytes():
    """Bytes per tuple of each row a receiver's accounting adds (RowBatch::GetDeserializedSize), as
    the simulator has them."""
    return exsim_runner.batch_bytes("tuple_pointer_bytes")


def _offset_bytes():
    """Bytes per tuple of each row sent beside the tuple data (OutboundRowBatch::GetSerializedSize)."""
    return exsim_runner.batch_bytes("tuple_offset_bytes")


def _unc_overhead(x):
    """(bytes per tuple of each row, what they are) that a sender's UncompressedRowBatchSize adds to
    the tuple data: KRPC counts the deserialized size (a tuple pointer per tuple); the Thrift sender
    before KRPC (2.x/3.x, RowBatch::Serialize(TRowBatch*)) the serialized one, tuple data and a
    4-byte offset per tuple (RowBatch::GetBatchSize)."""
    if any(s.pre_krpc for s in x.senders):
        return _offset_bytes(), "tuple offsets"
    return _pointer_bytes(), "tuple pointers"


SKEW = 1.05  # max/min share above which per-instance weights are written

SCAN_KINDS = re.compile(r"^[A-Z_]*SCAN_NODE$")
OPTIONS_USED = {"MT_DOP", "BATCH_SIZE", "NUM_SCANNER_THREADS"}


class Importer:
    """State for one scenario: the queries, and the notes (ignored items, derivations)."""

    def __init__(self, queries, source):
        self.queries = queries
        self.source = source
        self.ignored = []
        self.derivations = {}

    def ignore(self, what, why):
        item = {"what": what, "why": why}
        if item not in self.ignored:
            self.ignored.append(item)


# ---------------------------------------------------------------------------
# Selection and checks
# ---------------------------------------------------------------------------

def select_queries(all_queries, path, query_id=None):
    """The queries to import: the one named by --query, else every query with an execution.
    Raises ProfileError for a failed query or when nothing has an exchange. Among several queries
    (a workload), one that failed or was cancelled is left out rather than refused: it is
    returned with the others not imported, and build_scenario lists it in provenance.ignored."""
    if query_id:
        chosen = [q for q in all_queries if q.id == query_id]
        if not chosen:
            raise ProfileError(f"{path}: --query {query_id}: no such query in the file (it holds: "
                               + ", ".join(q.id for q in all_queries) + ")")
    else:
        chosen = [q for q in all_queries if q.has_execution] or all_queries
    finished = [q for q in chosen if not q.failed]
    if len(chosen) == 1 or not any(q.exchanges for q in finished):
        for q in chosen:
            if q.failed:
                hint = " (choose another with --query ID)" if len(all_queries) > 1 else ""
                raise ProfileError(f"{q.where}: query {q.id} did not finish: Query State {q.state or '?'}, status: "
                                   f"{q.status.strip() or '?'}; a failed or cancelled query's counters stop where "
                                   f"it ended, import a finished run{hint}")
    with_exchanges = [q for q in finished if q.exchanges]
    if not with_exchanges:
        if len(chosen) == 1:
            q = chosen[0]
            why = ("it has no execution profile (a statement run on the coordinator only, or DDL)"
                   if not q.has_execution else
                   f"its plan is a single fragment ({len(q.fragments)} fragment, NUM_NODES="
                   f"{q.option('NUM_NODES', '0')}): no data stream sender or receiver")
            raise ProfileError(f"{q.where}: query {q.id} has no exchange: {why}; nothing for exsim to simulate")
        raise ProfileError(f"{path}: none of the {len(chosen)} queries has an exchange; nothing for exsim to "
                           "simulate")
    return with_exchanges, [q for q in all_queries if q not in with_exchanges]


def _check_query(q):
    for x in q.exchanges.values():
        if not x.senders or not x.receivers:
            side = "sender" if not x.senders else "receiver"
            raise ProfileError(f"{q.where}: query {q.id}: exchange {x.id} has no {side} instance in the profile "
                               "(an incomplete profile)")
        if not x.partitioning:
            raise ProfileError(f"{q.where}: query {q.id}: exchange {x.id}: its partitioning is in none of the "
                               "ExecSummary, the Plan (its 'DATASTREAM SINK [..., EXCHANGE=N, ...]' or exchange "
                               "line) and the sender's ExecOption: expected one of them, as Impala prints them")
        if x.partitioning not in exsim_runner.partitioning_names():
            raise ProfileError(f"{q.where}: query {q.id}: exchange {x.id}: partitioning {x.partitioning} is not a "
                               f"sender kind the simulator has ({', '.join(exsim_runner.partitioning_names())})")


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------

def _r(v, digits=6):
    """Round for output: stable text, no float noise."""
    if v is None:
        return None
    if isinstance(v, int):
        return v
    r = round(float(v), digits)
    return int(r) if r == int(r) and abs(r) < 1e15 else r


def _skewed(values):
    vals = [v for v in values]
    if len(vals) < 2:
        return False
    lo, hi = min(vals), max(vals)
    if hi <= 0:
        return False
    return lo <= 0 or hi / lo > SKEW


def _shares(values):
    total = sum(values)
    if total <= 0:
        return [1.0 for _ in values]
    floor = 1e-9
    return [float(f"{max(v / total, floor):.6g}") for v in values]


def _tuples(x):
    return x.tuples or 1


def _exchange_id(xid):
    return f"x{xid}"


# ---------------------------------------------------------------------------
# Row widths, compression, network
# ---------------------------------------------------------------------------

def _receiver_shares(x):
    rows = [r.rows for r in x.receivers]
    if x.limit is not None or sum(rows) <= 0:
        # Rows past a limit are not counted by RowsReturned: use the bytes dequeued instead.
        rows = [r.bytes_dequeued or 0 for r in x.receivers]
    total = sum(rows)
    return [v / total if total else 1 / len(rows) for v in rows]


def _local_fraction(x, s, shares):
    """Share of sender s's uncompressed bytes sent to receivers in its own daemon, which Impala
    sends without LZ4. A broadcast serializes once, compressed unless its only channel is local.
    The Thrift sender before KRPC (DataStreamSender, 2.x/3.x) serializes every batch once, with
    LZ4, whatever the channel (RowBatch::Serialize(TRowBatch*) has no local case): none."""
    if s.pre_krpc:
        return 0.0
    hosts = [r.instance.host for r in x.receivers]
    if _every_receiver(x):
        return 1.0 if len(hosts) == 1 and hosts[0] == s.instance.host else 0.0
    return sum(w for w, h in zip(shares, hosts) if h == s.instance.host)


def _every_receiver(x):
    """The sender sends every batch to every receiver (the simulator's kind table)."""
    return exsim_runner.partitioning(x.partitioning)["every_receiver"]


def _collectors(x):
    """The sender routes rows into per-channel collectors (the simulator's send mode of its kind and
    channels), so that its batch size follows from its buffer and the row's fixed bytes."""
    return exsim_runner.send_mode(x.partitioning, len(x.receivers)) == "collectors"


def _copies(x):
    return len(x.receivers) if _every_receiver(x) else 1


def _tuple_bytes(x):
    """(uncompressed tuple bytes per row, rows) over the exchange: UncompressedRowBatchSize
    (KRPC: tuple data + 8 bytes per tuple pointer; Thrift: + 4 per tuple offset) minus those."""
    rows = sum(s.rows for s in x.senders)
    unc = sum(s.uncompressed or 0 for s in x.senders)
    if rows <= 0 or unc <= 0:
        return None, rows
    per_row = unc / (rows * _copies(x)) - _unc_overhead(x)[0] * _tuples(x)
    return max(per_row, 1.0), rows


def _capacity_from_rpcs(x, shares):
    """Rows per hash-collector batch that reproduce the measured data RPCs: each channel sends
    ceil(rows on it / capacity) batches. None when every channel sent at most one batch (the
    counts then say nothing about the capacity)."""
    if any(s.rpcs is None for s in x.senders):
        return None
    measured = sum(s.rpcs for s in x.senders)
    chans = [s.rows * w for s in x.senders for w in shares]
    nonempty = sum(1 for c in chans if c >= 0.5)
    if measured <= nonempty or not chans:
        return None

    def predicted(cap):
        return sum(math.ceil(round(c) / cap) for c in chans if round(c) > 0)

    lo, hi = 1, max(int(max(chans)), 1)
    while lo < hi:  # smallest capacity whose prediction is <= measured
        mid = (lo + hi) // 2
        if predicted(mid) <= measured:
            hi = mid
        else:
            lo = mid + 1
    best = min((c for c in (lo - 1, lo, lo + 1) if c >= 1), key=lambda c: (abs(predicted(c) - measured), c))
    return best, predicted(best), measured


def exchange_shape(imp, q, x, buffer_bytes):
    """Row widths and compression ratio of exchange x, and how they were derived."""
    shares = _receiver_shares(x)
    T = _tuples(x)
    tuple_bytes, rows = _tuple_bytes(x)
    notes = []
    out = {"tuples_per_row": T}
    if not x.tuples:
        notes.append("tuples per row unknown (no plan text with tuple-ids): 1 assumed")
    if tuple_bytes is None:
        row = x.row_size or 64
        out["fixed_row_bytes"] = max(1, int(round(row)))
        notes.append(f"no UncompressedRowBatchSize: fixed_row_bytes {out['fixed_row_bytes']} from the plan's "
                     "row-size" if x.row_size else "no row size in the profile: 64 bytes assumed")
        return out, notes, None
    cap = _capacity_from_rpcs(x, shares) if _collectors(x) else None
    if cap is not None:
        capacity, pred, measured = cap
        fixed = max(1, buffer_bytes // capacity)
        out["fixed_row_bytes"] = fixed
        out["var_row_bytes"] = max(0, int(round(tuple_bytes - fixed)))
        notes.append(f"fixed_row_bytes {fixed} = {buffer_bytes} // {capacity} rows per batch, the collector "
                     f"capacity that gives {pred} data RPCs for the measured per-channel rows ({measured} measured); "
                     f"var_row_bytes {out['var_row_bytes']} = {tuple_bytes:.1f} uncompressed tuple bytes per row "
                     f"(UncompressedRowBatchSize / rows - {_unc_overhead(x)[0]} x {T} {_unc_overhead(x)[1]}) - fixed")
        if tuple_bytes < fixed:
            notes.append(f"the measured tuple bytes per row ({tuple_bytes:.1f}) are below the fixed size the RPC "
                         "count implies (NULL tuples are not serialized): bytes will be over-estimated")
    elif not _collectors(x) or any(s.rpcs is None for s in x.senders):
        out["fixed_row_bytes"] = max(1, int(round(tuple_bytes)))
        why = ("this sender sends whole input batches: the width does not set its batch size"
               if not _collectors(x) else
               "the profile counts no RPCs, so the collector capacity cannot be fitted")
        notes.append(f"fixed_row_bytes {out['fixed_row_bytes']} = UncompressedRowBatchSize / rows - "
                     f"{_unc_overhead(x)[0]} x {T} {_unc_overhead(x)[1]}, all counted as fixed ({why})")
    else:
        # Every channel sent at most one batch: its capacity held the largest channel's rows.
        most = max([round(s.rows * w) for s in x.senders for w in shares] + [1])
        fixed = max(1, min(int(round(tuple_bytes)), buffer_bytes // most))
        out["fixed_row_bytes"] = fixed
        if tuple_bytes - fixed >= 0.5:
            out["var_row_bytes"] = int(round(tuple_bytes - fixed))
        notes.append(f"every channel sent at most one batch, so the collector held the largest channel's "
                     f"{most} rows: fixed_row_bytes {fixed} = min({tuple_bytes:.1f} uncompressed tuple bytes per "
                     f"row, {buffer_bytes} // {most}), the rest variable")
    # Compression: per sender, bytes on the wire = local share uncompressed + the rest x ratio.
    num = den = 0.0
    for s in x.senders:
        if not s.rows or not s.uncompressed:
            continue
        copies = _copies(x)
        u = s.uncompressed - _unc_overhead(x)[0] * T * s.rows * copies
        w = s.bytes_sent - _offset_bytes() * T * s.rows * copies
        f = _local_fraction(x, s, shares)
        num += w - u * f
        den += u * (1 - f)
    if den > 0 and den >= 0.01 * sum(max(s.uncompressed or 0, 0) for s in x.senders):
        out["compression_ratio"] = _r(min(1.0, max(0.01, num / den)), 4)
        notes.append(f"compression_ratio {out['compression_ratio']} = (TotalBytesSent - {_offset_bytes()} x {T} "
                     "offset bytes per row - the bytes sent uncompressed to receivers in the sender's own daemon) "
                     "/ the uncompressed tuple bytes sent to other daemons, over the senders")
        return out, notes, (num, den)
    return out, notes, None


def fit_network(exchanges):
    """Fit RpcNetworkTime = rtt + bytes / bandwidth over the sender instances (mean bytes per RPC
    vs mean network time per RPC, weighted by RPC count). Returns (rtt_us, gbps, text) or None."""
    pts = []
    for x in exchanges:
        for s in x.senders:
            n = s.rpc_network
            total = s.rpc_success if s.rpc_success is not None else \
                s.rpcs + s.eos if s.rpcs is not None and s.eos is not None else None
            if n is None or n.count <= 0 or not total or total <= 0:
                continue
            pts.append((s.bytes_sent / total, n.mean, n.count))
    if len(pts) < 2:
        return None
    sw = sum(w for _, _, w in pts)
    mx = sum(x * w for x, _, w in pts) / sw
    my = sum(y * w for _, y, w in pts) / sw
    sxx = sum(w * (x - mx) ** 2 for x, _, w in pts)
    sxy = sum(w * (x - mx) * (y - my) for x, y, w in pts)
    slope = sxy / sxx if sxx > 0 else 0.0
    icpt = my - slope * mx
    text = (f"least-squares fit of RpcNetworkTime (mean per RPC) = rtt + bytes per RPC / bandwidth over "
            f"{len(pts)} sender instances, weighted by their RPC counts")
    if slope <= 0 or icpt <= 0:
        mean = sum(y * w for _, y, w in pts) / sw
        return mean * 1e-3, None, (f"mean RpcNetworkTime over all {int(sw)} RPCs of the profile (a fit of "
                                   f"time = rtt + bytes / bandwidth over the {len(pts)} sender instances gave no "
                                   f"positive slope and intercept: per-RPC time does not grow with the payload "
                                   f"here); bandwidth left at its default")
    gbps = 8.0 / slope  # slope in ns per byte
    return icpt * 1e-3, min(max(gbps, 0.1), 1000.0), text


def fit_dispatch(exchanges):
    """The receivers' mean DispatchTime per RPC (us), pooled over every sample, and how; None when no
    receiver records it. DispatchTime is a request's wait from its arrival to a service thread's
    AddBatch: KRPC's hand-off and, when every service thread is busy, the wait for one, which the
    simulation adds on its own; on the lightly loaded daemons of a profile that part is small."""
    stats = [r.dispatch for x in exchanges for r in x.receivers if r.dispatch is not None and r.dispatch.count > 0]
    if not stats:
        return None
    n = sum(d.count for d in stats)
    mean_ns = sum(d.mean * d.count for d in stats) / n
    return mean_ns * 1e-3, (f"the receivers' mean DispatchTime over {n} RPCs ({len(stats)} receiver instances): a "
                            f"request's wait from its arrival to a service thread taking it up, which the senders "
                            f"wait for and RpcNetworkTime (rtt_us) excludes")


# ---------------------------------------------------------------------------
# CPU costs from the profile's timers
# ---------------------------------------------------------------------------

COST_CLASS = {"HASH_JOIN_NODE": "join_probe", "NESTED_LOOP_JOIN_NODE": "join_probe",
              "AGGREGATION_NODE": "aggregate", "SORT_NODE": "sort",
              "ANALYTIC_EVAL_NODE": "analytic"}


def measure_costs(imp):
    """ns per row by operator class, pooled over every instance of every imported query: the
    operator's own time (TotalTime - InactiveTotalTime - children's TotalTime; for a scan also
    minus its runtime-filter wait) over the rows the contract charges (rows read, probe rows,
    build rows, input rows)."""
    time = {}
    rows = {}
    waits = []

    def add(cls, t, n):
        time[cls] = time.get(cls, 0.0) + t
        rows[cls] = rows.get(cls, 0) + n

    for q in imp.queries:
        for f in q.fragments.values():
            for op in f.operators.values():
                kids = [f.operators[c] for c in op.children + ([op.build_child] if op.build_child is not None
                                                               else [])]
                for k, n in enumerate(op.per_instance):
                    if n is None:
                        continue
                    own = op.local_time_s(k, kids)
                    if SCAN_KINDS.match(op.kind):
                        m = re.search(r"Waited (\S+)\.", n.info.get("Runtime filters", ""))
                        if m:
                            w = parse_duration(m.group(1)) or 0.0
                            if w > 0.001:
                                waits.append((q.id, f.id, op.id, w))
                            own = max(own - w, 0.0)
                        add("scan", own, int(n.value("RowsRead", n.value("RowsReturned", 0))))
                    elif op.kind == "EXCHANGE_NODE":
                        continue
                    elif op.kind.endswith("JOIN_NODE"):
                        builder = next((c for c in n.children if "Join Builder" in c.name), None)
                        if builder is not None:  # a build inside the join (mt_dop=0): its own class
                            bt = (seconds(builder.counters.get("TotalTime")) or 0) - \
                                (seconds(builder.counters.get("InactiveTotalTime")) or 0)
                            add("join_build", max(bt, 0.0), int(builder.value("BuildRows", 0)))
                            own = max(own - max(bt, 0.0), 0.0)
                        probe = n.value("ProbeRows")
                        if probe is None:
                            probe = sum(f.operators[c].per_instance[k].value("RowsReturned", 0)
                                        for c in op.children if f.operators[c].per_instance[k] is not None)
                        add("join_probe", own, int(probe))
                    else:
                        cls = COST_CLASS.get(op.kind, "other")
                        inp = sum(f.operators[c].per_instance[k].value("RowsReturned", 0)
                                  for c in op.children if f.operators[c].per_instance[k] is not None)
                        if not op.children:
                            inp = int(n.value("RowsReturned", 0))
                        add(cls, own, int(inp))
            if f.sink_kind == "join_build":
                for inst in f.instances:
                    b = next((c for c in inst.node.children if "Join Builder" in c.name), None)
                    if b is not None:
                        bt = (seconds(b.counters.get("TotalTime")) or 0) - \
                            (seconds(b.counters.get("InactiveTotalTime")) or 0)
                        add("join_build", max(bt, 0.0), int(b.value("BuildRows", 0)))
    costs = {}
    for cls in ("scan", "join_build", "join_probe", "aggregate", "sort", "analytic", "other"):
        if rows.get(cls):
            costs[f"{cls}_ns_per_row"] = _r(time[cls] / rows[cls] * 1e9, 3)
    imp.derivations["costs"] = (
        "ns per row of each operator class, pooled over every instance: the operator's own time "
        "(TotalTime - InactiveTotalTime - its children's TotalTime; a join's build measured by its "
        "Join Builder; a scan minus the runtime-filter wait its 'Runtime filters' info string reports) "
        "divided by rows read (scan), build rows, probe rows, or input rows; measured on the profiled "
        "cluster's build (" + ", ".join(sorted({q.impala_version.split('(')[0].replace('impalad version ', '')
                                               .strip() for q in imp.queries})) + ")")
    starts = [q.startup_s() for q in imp.queries if q.startup_s() is not None]
    if starts:
        costs["query_startup_s"] = _r(sum(starts) / len(starts))
        labels = sorted({(q._event(q.START_EVENTS)[0], q.startup_event()[0]) for q in imp.queries
                         if q.startup_s() is not None})
        if all(a == "Query submitted" and b.startswith("All ") and "execution backends" in b for a, b in labels):
            between = "'Query submitted' to 'All N execution backends (M fragment instances) started'"
        else:
            between = ", ".join(f"'{a}' to '{b}'" for a, b in labels)
        imp.derivations["costs.query_startup_s"] = (
            f"the Query Timeline from {between}" + (" (mean over the queries)" if len(starts) > 1 else ""))
    cg = [v for q in imp.queries for v in q.codegen_s.values()]
    if cg:
        costs["codegen_s_per_fragment"] = _r(sum(cg) / len(cg))
        imp.derivations["costs.codegen_s_per_fragment"] = (
            f"mean CodeGen TotalTime over the {len(cg)} (fragment, daemon) pairs of 'Per Node Profiles' "
            f"(min {min(cg) * 1e3:.1f} ms, max {max(cg) * 1e3:.1f} ms)")
        if max(cg) > 2 * min(cg):
            imp.ignore("codegen time per fragment", "it varies between fragments and daemons "
                       f"({min(cg) * 1e3:.1f}-{max(cg) * 1e3:.1f} ms); the contract has one value, the mean")
    if waits:
        longest = max(waits, key=lambda w: w[3])
        imp.ignore("runtime filter waits",
                   f"{len(waits)} scan instance(s) waited for runtime filters before reading (longest: query "
                   f"{longest[0]} fragment {longest[1]} scan {longest[2]}, {longest[3]:.3f} s); the model has no "
                   "runtime filters, so that wait is neither a cost nor simulated, and the simulated query runs "
                   "without it")
    return costs


def measure_exchange_costs(imp):
    """CPU costs of the senders and receivers, pooled over every exchange."""
    out = {}
    ser_t = ser_b = comp_t = comp_b = 0.0
    hash_t = hash_n = 0.0
    des_t = des_b = 0.0
    for q in imp.queries:
        for x in q.exchanges.values():
            T = _tuples(x)
            shares = _receiver_shares(x)
            for s in x.senders:
                if not s.rows or not s.uncompressed:
                    continue
                u = s.uncompressed - _unc_overhead(x)[0] * T * s.rows * _copies(x)
                f = _local_fraction(x, s, shares)
                if f >= 1.0:
                    ser_t += s.serialize_s
                    ser_b += u
                else:
                    comp_t += s.serialize_s
                    comp_b += u
                if _collectors(x):
                    hash_t += max(s.total_s - s.inactive_s - s.serialize_s - s.transmit_s, 0.0)
                    hash_n += s.rows
            for r in x.receivers:
                if r.bytes_dequeued:
                    des_t += r.deserialize_s
                    des_b += r.bytes_dequeued - _pointer_bytes() * T * r.rows
    ser = None
    if ser_b >= 1e6:
        ser = ser_t / ser_b * 1e9
        out["serialize_ns_per_byte"] = _r(ser, 4)
        imp.derivations["exchange_defaults.serialize_ns_per_byte"] = (
            "SerializeBatchTime / uncompressed tuple bytes of the senders whose every channel is local "
            "(no LZ4)")
    if comp_b > 0:
        base = ser if ser is not None else 0.0
        comp = max(comp_t / comp_b * 1e9 - base, 0.0)
        if ser is None:
            out["serialize_ns_per_byte"] = 0
        out["compress_ns_per_byte"] = _r(comp, 4)
        imp.derivations["exchange_defaults.compress_ns_per_byte"] = (
            "SerializeBatchTime / uncompressed tuple bytes of the senders with remote channels"
            + (" minus serialize_ns_per_byte" if ser is not None else
               " (serialization and LZ4 together: no all-local sender to separate them, so "
               "serialize_ns_per_byte is 0)"))
    if hash_n > 0:
        out["hash_ns_per_row"] = _r(hash_t / hash_n * 1e9, 3)
        out["copy_ns_per_row"] = 0
        imp.derivations["exchange_defaults.hash_ns_per_row"] = (
            "(TotalTime - InactiveTotalTime - SerializeBatchTime - TransmitDataTime) / RowsSent of the "
            "hash-partitioned senders with more than one channel; the profile does not separate hashing "
            "from the copy into the collectors, so copy_ns_per_row is 0")
    if des_b > 0:
        out["deserialize_ns_per_byte"] = _r(des_t / des_b * 1e9, 4)
        imp.derivations["exchange_defaults.deserialize_ns_per_byte"] = (
            "DeserializeRowBatchTime / uncompressed tuple bytes dequeued, over every receiver")
    return out


# ---------------------------------------------------------------------------
# Plans
# ---------------------------------------------------------------------------

def _unpartitioned(q, f):
    if f.coordinator or f.partition.startswith("UNPARTITIONED"):
        return True
    if f.partition:
        return False
    # No plan text: a fragment fed only by a non-broadcast UNPARTITIONED exchange has one instance.
    leaf = _leftmost_leaf(f)
    if leaf is not None and leaf.kind == "EXCHANGE_NODE":
        x = q.exchanges.get(leaf.id)
        return x is not None and x.partitioning == "UNPARTITIONED" and not x.broadcast
    return False


def _leftmost_leaf(f):
    if f.root is None:
        return None
    op = f.operators[f.root]
    while op.children:
        op = f.operators[op.children[0]]
    return op


def _build_fragment_of(q, join_id):
    for f in q.fragments.values():
        if f.sink_kind == "join_build" and f.sink_target == join_id:
            return f
    return None


def placement(imp, q, f, profiled):
    """executors / first_executor / instances_per_executor of fragment f, and why."""
    hosts = f.hosts()
    idx = sorted(q.host_index(h) for h in hosts)
    per_host = f.per_host()
    counts = sorted(set(per_host.values()))
    out = {}
    leaf = _leftmost_leaf(f)
    ranges = None
    if leaf is not None and SCAN_KINDS.match(leaf.kind):
        ranges = int(leaf.total("ScanRangesComplete")) or None
    if _unpartitioned(q, f) and len(f.instances) == 1:
        out["executors"] = 1
        out["first_executor"] = idx[0]
        why = f"unpartitioned: one instance, on executor {idx[0]}"
    elif len(hosts) == len(q.hosts) and not (ranges is not None and ranges <= len(hosts)):
        out["executors"] = 0
        why = "all executors (scales with cluster.executors)"
    else:
        out["executors"] = len(hosts)
        out["first_executor"] = idx[0]
        why = f"{len(hosts)} executor(s) from {idx[0]}"
        if ranges is not None and ranges <= len(hosts):
            why += f" (its scan has {ranges} scan range(s): Impala gives a daemon without ranges no instance)"
        if idx != list(range(idx[0], idx[0] + len(idx))):
            imp.ignore(f"query {q.id} fragment {f.id} placement",
                       f"it ran on executors {idx}, not a contiguous range: placed on {idx[0]}..{idx[0] + len(idx) - 1}")
    if not profiled:
        if counts != [1]:
            imp.ignore(f"query {q.id} fragment {f.id} instances", f"{per_host} per daemon at mt_dop=0")
        return out, why
    n = counts[-1]
    if len(counts) > 1:
        imp.ignore(f"query {q.id} fragment {f.id} instances per daemon",
                   f"uneven ({per_host}): the contract takes one count per executor, {n} written")
    out["instances_per_executor"] = n  # left to Impala's rule where the simulator's gives n (_leave_to_rule)
    return out, why


def _op(imp, q, f, op_id, profiled, weights):
    op = f.operators[op_id]
    node = {"op": None, "id": str(op.id)}
    rows = int(op.total("RowsReturned"))
    kind = op.kind
    first = next((n for n in op.per_instance if n is not None), None)
    if SCAN_KINDS.match(kind):
        node["op"] = "scan"
        node["table"] = (first.info.get("Table Name") if first else None) or op.detail or kind
        node["rows"] = rows
        read = int(op.total("RowsRead"))
        if read and read != rows:
            node["rows_read"] = read
        ranges = int(op.total("ScanRangesComplete"))
        if ranges:
            node["scan_ranges"] = ranges
        if op.id in weights:
            node["instance_weights"] = weights[op.id]
        if kind != "HDFS_SCAN_NODE":
            imp.ignore(f"query {q.id} scan {op.id} kind", f"{kind} is simulated as a plain scan")
        return node
    if kind == "EXCHANGE_NODE":
        return {"op": "exchange", "id": str(op.id), "exchange": _exchange_id(op.id)}
    node["rows"] = rows
    kids = [_op(imp, q, f, c, profiled, weights) for c in op.children]
    if kind in ("HASH_JOIN_NODE", "NESTED_LOOP_JOIN_NODE"):
        node["op"] = "hash_join" if kind == "HASH_JOIN_NODE" else "nested_loop_join"
        node["probe"] = kids[0] if kids else None
        if op.build_child is not None:
            node["build"] = _op(imp, q, f, op.build_child, profiled, weights)
        else:
            bf = _build_fragment_of(q, op.id)
            if bf is None:
                raise ProfileError(f"{q.where}: query {q.id}: join {op.id} has no build side in the profile")
            if profiled:
                node["build"] = {"fragment": bf.id}
                node["shared"] = "BROADCAST" in op.detail
            else:  # the mt_dop=0 plan builds inside the join
                node["build"] = _op(imp, q, bf, bf.root, profiled, weights)
        return node
    if kind == "AGGREGATION_NODE":
        node["op"] = "aggregate"
        node["phase"] = "streaming" if "STREAMING" in op.detail else "finalize"
        node["input"] = kids[0]
        return node
    if kind == "SORT_NODE":
        topn = "TOP-N" in op.label or any(n is not None and n.info.get("SortType") == "TopN"
                                           for n in op.per_instance)
        node["op"] = "top_n" if topn else "sort"
        node["input"] = kids[0]
        if topn:
            node["limit"] = op.limit or max(int(v) for v in op.values("RowsReturned"))
        return node
    if kind == "ANALYTIC_EVAL_NODE":
        node["op"] = "analytic"
        node["input"] = kids[0]
        return node
    if kind == "UNION_NODE":
        node["op"] = "union"
        node["inputs"] = kids
        return node
    if kind == "SELECT_NODE" or len(kids) == 1:
        node["op"] = "select"
        node["input"] = kids[0]
        if kind != "SELECT_NODE":
            imp.ignore(f"query {q.id} operator {op.id} ({kind})",
                       "no such operator in the model: simulated as a select (streaming, 'other' CPU class)")
        return node
    raise ProfileError(f"{q.where}: query {q.id}: operator {op.id} ({kind}) with {len(kids)} inputs has no "
                       "counterpart in the scenario format")


def _scan_weights(imp, q, f, profiled):
    """Per-instance weights for the fragment's leftmost scan, when its instances are skewed."""
    leaf = _leftmost_leaf(f)
    if leaf is None or not SCAN_KINDS.match(leaf.kind) or len(f.instances) < 2:
        return {}
    root = f.operators[f.root]
    out_rows = root.values("RowsReturned")
    scan_rows = leaf.values("RowsReturned")
    if not profiled:  # one instance per daemon: sum per host
        hosts = f.hosts()
        out_rows = [sum(v for v, i in zip(out_rows, f.instances) if i.host == h) for h in hosts]
        scan_rows = [sum(v for v, i in zip(scan_rows, f.instances) if i.host == h) for h in hosts]
    if len(out_rows) < 2:
        return {}
    tot_out, tot_scan = sum(out_rows), sum(scan_rows)
    follows = tot_out > 0 and tot_scan > 0 and all(
        abs(a / tot_out - b / tot_scan) <= 0.02 for a, b in zip(out_rows, scan_rows))
    target = scan_rows if (follows or tot_out <= 0) else out_rows
    if not _skewed(target):
        return {}
    if not follows and tot_out > 0 and profiled:
        imp.ignore(f"query {q.id} fragment {f.id} per-instance rows",
                   f"its output per instance {out_rows} does not follow its scan {leaf.id}'s {scan_rows} (the "
                   "skew arises above the scan); the contract weighs instances at the scan only, so scan "
                   f"{leaf.id}'s instance_weights follow the output, and its per-instance scan work is misplaced")
    return {leaf.id: _shares(target)}


def _pinned(q, f, place):
    """True when fragment f's instance count cannot change with cluster.executors or mt_dop, so
    that one weight per instance stays meaningful."""
    if place.get("executors", 0) == 0:
        return False
    if place.get("instances_per_executor", 0) != 0 or _unpartitioned(q, f):
        return True
    leaf = _leftmost_leaf(f)
    if leaf is not None and SCAN_KINDS.match(leaf.kind):
        ranges = int(leaf.total("ScanRangesComplete"))
        return 0 < ranges <= max(place["executors"], 1)  # min(mt_dop, ceil(ranges / executors)) = 1
    return False


def _unwritten_skew(imp, q, f, what, values):
    imp.ignore(f"query {q.id} fragment {f.id} {what}",
               f"skewed ({values}) but not written: the fragment's instance count follows cluster.executors "
               "or mt_dop, and weights are one per instance")


def _fragment_json(imp, q, f, place, profiled, weights):
    frag = {"id": f.id, **place, "root": _op(imp, q, f, f.root, profiled, weights)}
    if f.sink_kind == "exchange":
        frag["sink"] = {"exchange": _exchange_id(f.sink_target)}
    elif f.sink_kind == "join_build":
        frag["sink"] = {"join_build": str(f.sink_target)}
    else:
        frag["sink"] = {"result": True}
        if f.sink_kind != "result":
            imp.ignore(f"query {q.id} fragment {f.id} sink", f"{f.sink_kind or 'an unknown sink'} is "
                       "simulated as the query's result sink")
    return frag


def _leave_to_rule(imp, q, kept, placements, notes, mt_dop, executors):
    """Where Impala's instance rule gives a fragment its profiled count, write 0 (the rule) so that
    the count follows mt_dop and cluster.executors; else keep the count. The rule is the simulator's
    (models/query/plan.cpp), asked through `exsim explain`: one copy of the plan per fragment, that
    fragment left to the rule and every other at its profiled count. Without a simulator, or when it
    refuses the plan (the final check then says why), every count stays as profiled."""
    exsim = exsim_runner.default_exsim()
    if not kept:
        return
    if not os.access(exsim, os.X_OK):
        imp.ignore("Impala's instance rule", f"no simulator to ask ({exsim} is not built; exsim profile import "
                   "always has one): every profiled instance count is written, so none follows mt_dop or "
                   "cluster.executors")
        for f in kept:
            notes[f.id] += f"; {placements[f.id]['instances_per_executor']} instance(s) per executor as profiled"
        return
    quiet = Importer(imp.queries, imp.source)  # the copies' notes are the real plan's, written once
    fragments = [_fragment_json(quiet, q, f, placements[f.id], True, {}) for f in kept]
    exchanges = [{"id": _exchange_id(xid), "partitioning": q.exchanges[xid].partitioning} for xid in sorted(q.exchanges)]
    copies = []
    for i, f in enumerate(kept):
        copy = [dict(g) for g in fragments]
        copy[i]["instances_per_executor"] = 0
        copies.append({"name": f"{i}", "fragments": copy, "exchanges": exchanges})
    text = json.dumps({"schema_version": SCHEMA_VERSION, "cluster": {"executors": executors},
                       "flags": {"mt_dop": mt_dop}, "queries": copies})
    code, stdout, stderr = exsim_runner.run_text(exsim, "placement.json", text, verb="explain",
                                                 extra=("--format", "json"))
    placed = {}
    if code == 0:
        for copy, f in zip(json.loads(stdout)["queries"], kept):
            placed[f.id] = next(g["instances_per_executor"] for g in copy["fragments"] if g["id"] == f.id)
    else:
        first = (stderr.strip().splitlines() or [f"exit status {code}"])[0]
        imp.ignore(f"query {q.id}: Impala's instance rule", f"the simulator refused the plan ({first}): every "
                   "profiled instance count is written")
    for f in kept:
        n = placements[f.id]["instances_per_executor"]
        if placed.get(f.id) == n:
            placements[f.id]["instances_per_executor"] = 0
            notes[f.id] += f"; {n} instance(s) per executor = Impala's rule at mt_dop={mt_dop}"
        else:
            notes[f.id] += f"; {n} instance(s) per executor as profiled"


def plan_json(imp, q, mt_dop, profiled, executors):
    """(fragments, placement notes, pinned fragment ids) of the plan as profiled, or (profiled
    False) of the same plan with its join-build fragments folded into their joins: the mt_dop=0
    plan of a query profiled at mt_dop > 0. executors: the scenario's cluster.executors."""
    kept = [q.fragments[fid] for fid in sorted(q.fragments)
            if profiled or q.fragments[fid].sink_kind != "join_build"]
    placements, notes, pinned = {}, {}, set()
    for f in kept:
        if f.root is None:
            raise ProfileError(f"{q.where}: query {q.id}: fragment {f.id} has no operator tree")
        placements[f.id], notes[f.id] = placement(imp, q, f, profiled)
    if profiled:
        _leave_to_rule(imp, q, kept, placements, notes, mt_dop, executors)
    for f in kept:
        if _pinned(q, f, placements[f.id]):
            pinned.add(f.id)
    weights = {}
    for f in kept:
        folded = [] if profiled else [g for g in q.fragments.values()
                                      if g.sink_kind == "join_build" and g.sink_target in f.operators]
        for g in [f] + folded:
            w = _scan_weights(imp, q, g, profiled)
            if w and f.id in pinned:
                weights.update(w)
            elif w and profiled:
                _unwritten_skew(imp, q, g, "scan skew", [_r(v, 4) for v in next(iter(w.values()))])
    fragments = [_fragment_json(imp, q, f, placements[f.id], profiled, weights) for f in kept]
    return fragments, notes, pinned


def exchanges_json(imp, q, profiled, buffer_bytes, pooled_ratio, pinned):
    out = []
    for xid in sorted(q.exchanges):
        x = q.exchanges[xid]
        shape, notes, _ = exchange_shape(imp, q, x, buffer_bytes)
        e = {"id": _exchange_id(xid), "partitioning": x.partitioning}
        if x.partitioning_from:
            notes.insert(0, f"partitioning from {x.partitioning_from} (no ExecSummary row for it)")
        if x.merging:
            e["merging"] = True
        e.update(shape)
        if "compression_ratio" in e:
            pass
        elif pooled_ratio is not None:
            e["compression_ratio"] = _r(pooled_ratio, 4)
            notes.append(f"compression_ratio {pooled_ratio:.4f}: the query's pooled ratio (every channel of this "
                         "exchange stayed in one daemon, so it was not compressed)")
        else:
            notes.append("compression_ratio not measurable (no remote channel in the profile): default kept")
        if _collectors(x):
            rows = [r.rows for r in x.receivers]
            if not profiled:
                hosts = []
                for r in x.receivers:
                    if r.instance.host not in hosts:
                        hosts.append(r.instance.host)
                rows = [sum(r.rows for r in x.receivers if r.instance.host == h) for h in hosts]
            if _skewed(rows) and len(rows) > 1:
                if x.receiver_fragment in pinned:
                    e["receiver_weights"] = _shares(rows)
                elif profiled:
                    _unwritten_skew(imp, q, q.fragments[x.receiver_fragment], f"receiver skew of exchange {xid}",
                                    _shares(rows))
        senders, receivers = len(x.senders), len(x.receivers)
        e["source"] = (f"profile exchange {xid}: {x.detail or x.partitioning}"
                       f"{' (merging)' if x.merging else ''}, {x.sender_fragment} x{senders} -> "
                       f"{x.receiver_fragment} x{receivers}; " + "; ".join(notes))
        e["expected"] = expected_exchange(x)
        if x.limit is not None:
            imp.ignore(f"query {q.id} exchange {xid} limit",
                       f"the exchange node returns at most {x.limit} rows; the contract has no limit on an "
                       "exchange leaf, so the receiving fragment processes every row received")
        out.append(e)
    return out


def expected_exchange(x, _r=_r):
    """The profile's measured counters of exchange x, under the results' names (rounded to the
    microsecond for a scenario; compare passes an identity to keep them exact)."""
    s = x.senders
    r = x.receivers
    byts = sum(v.bytes_sent for v in s)
    exp = {
        "senders": len(s),
        "receivers": len(r),
        "rows_sent": sum(v.rows for v in s),
    }
    # A counter the profile's version does not keep is left out, not written as 0.
    if all(v.rpcs is not None for v in s):
        rpcs = sum(v.rpcs for v in s)
        exp["rpcs"] = rpcs
    if all(v.eos is not None for v in s):
        exp["eos_rpcs"] = sum(v.eos for v in s)
    exp["bytes_sent"] = byts
    if "rpcs" in exp:
        exp["mean_rpc_bytes"] = _r(byts / rpcs, 1) if rpcs else 0
    exp["slowest_sender_blocked_s"] = _r(max(v.inactive_s for v in s))
    exp["InactiveTotalTime_s"] = _r(sum(v.inactive_s for v in s))
    if all(v.deferred is not None for v in r):
        exp["rpcs_deferred"] = sum(v.deferred for v in r)
    exp["TotalBytesSent"] = byts
    if all(v.deferred is not None for v in r):
        exp["TotalRPCsDeferred"] = sum(v.deferred for v in r)
    if all(v.rpc_success is not None for v in s):
        exp["RpcSuccess"] = sum(v.rpc_success for v in s)
    if all(v.uncompressed is not None for v in s):
        exp["UncompressedRowBatchSize"] = sum(v.uncompressed for v in s)
    net = [v.rpc_network for v in s if v.rpc_network is not None and v.rpc_network.count]
    if net:
        exp["RpcNetworkTime_s"] = _r(sum(n.sum for n in net) * 1e-9)
        exp["RpcNetworkTime_mean_s"] = _r(sum(n.sum for n in net) / sum(n.count for n in net) * 1e-9, 9)
    rcv = [v.rpc_recvr for v in s if v.rpc_recvr is not None and v.rpc_recvr.count]
    if rcv:
        exp["RpcRecvrTime_s"] = _r(sum(n.sum for n in rcv) * 1e-9)
    exp["TotalHasDeferredRPCsTime_s"] = _r(max(v.has_deferred_s for v in r))
    exp["DataWaitTime_s"] = _r(max(v.data_wait_s for v in r))
    exp["TotalBytesReceived"] = sum(v.bytes_received for v in r)
    return exp


# Keys of an exchange's `expected`, for the provenance.
EXPECTED_KEYS = {
    "senders, receivers": "instances",
    "rows_sent": "sum of RowsSent",
    "rpcs": "TransmitData RPCs: RpcSuccess - EosSent (4.0 profiles: NetworkThroughput samples)",
    "eos_rpcs": "sum of EosSent",
    "bytes_sent": "sum of TotalBytesSent",
    "mean_rpc_bytes": "bytes_sent / rpcs",
    "slowest_sender_blocked_s": "largest InactiveTotalTime of a sender instance",
    "InactiveTotalTime_s": "sum of InactiveTotalTime over the sender instances",
    "rpcs_deferred": "sum of the receivers' TotalRPCsDeferred",
    "TotalBytesSent, TotalRPCsDeferred": "the same as bytes_sent and rpcs_deferred, under the profile's names",
    "RpcSuccess": "sum of RpcSuccess (TransmitData + EndDataStream)",
    "UncompressedRowBatchSize": "sum of UncompressedRowBatchSize (deserialized size: tuple data + 8 bytes "
                                "per tuple pointer; a broadcast counts every copy)",
    "RpcNetworkTime_s": "sum over every RPC of RpcNetworkTime (round trip minus the receiver's time)",
    "RpcNetworkTime_mean_s": "RpcNetworkTime_s / RPCs sampled",
    "RpcRecvrTime_s": "sum over every RPC of RpcRecvrTime",
    "TotalHasDeferredRPCsTime_s": "largest TotalHasDeferredRPCsTime of a receiver instance",
    "DataWaitTime_s": "largest DataWaitTime of a receiver instance",
    "TotalBytesReceived": "sum over the receiver instances",
}


def expected_query(q):
    exp = {}
    if q.runtime_s() is not None:
        exp["runtime_s"] = _r(q.runtime_s())
    if q.duration_s is not None:
        exp["duration_s"] = _r(q.duration_s)
    if q.startup_s() is not None:
        exp["startup_s"] = _r(q.startup_s())
    t = q.timeline
    start_label, start = q._event(q.START_EVENTS)
    if start is not None and "Planning finished" in t:
        exp["planning_s"] = _r(t["Planning finished"] - start)
    if "Submit for admission" in t and "Completed admission" in t:
        exp["admission_s"] = _r(t["Completed admission"] - t["Submit for admission"])
    exp["bytes_sent"] = sum(s.bytes_sent for x in q.exchanges.values() for s in x.senders)
    return exp


# ---------------------------------------------------------------------------
# Scenario
# ---------------------------------------------------------------------------

def _int_option(q, name, default):
    v = q.option(name)
    if v is None or v == "":
        return default
    try:
        return int(v)
    except ValueError:
        raise ProfileError(f"{q.where}: query {q.id}: query option {name}={v!r} is not an integer") from None


def _why_skipped(q):
    if q.duplicate_of:
        return f"the same query as in {q.duplicate_of} (another form of one profile): imported once, from there"
    if q.failed:
        return (f"did not finish (Query State {q.state or '?'}): a failed or cancelled query's counters stop where "
                "it ended; left out of the workload")
    if q.exchanges:
        return "not selected (--query)"
    return "no exchange (no execution profile, or a single-fragment plan): nothing to simulate"


def _name_and_origin(source):
    """The scenario's name and where its queries came from, for the description: one file's name, or
    for several files (a workload) the folder that holds them all."""
    if isinstance(source, str):
        base = source.rsplit("/", 1)[-1]
        return re.sub(r"[^A-Za-z0-9_.-]+", "_", re.sub(r"\.json$", "", base)), base
    folder = os.path.basename(os.path.commonpath([os.path.abspath(f) for f in source])) or "profiles"
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", folder) + "_workload", f"{len(source)} files in {folder}"


def build_scenario(queries, source, skipped=()):
    """queries: the model.Query objects to import (each with exchanges); source: the profile's path,
    or the list of paths of a workload of several files; skipped: the inputs' other queries, listed in
    provenance.ignored."""
    imp = Importer(queries, source)
    for q in queries:
        _check_query(q)
    first = queries[0]
    # Impala's defaults for the flags a profile does not record (be/src/runtime/krpc-data-stream-sender.cc,
    # exchange-node.cc, the BATCH_SIZE query option) are the parameter table's.
    default_batch = exsim_runner.parameter_default("flags", "batch_size")
    sender_buffer = exsim_runner.parameter_default("flags", "data_stream_sender_buffer_size")
    mt_dop = _int_option(first, "MT_DOP", 0)
    batch = _int_option(first, "BATCH_SIZE", 0) or default_batch
    flags = {"mt_dop": mt_dop, "batch_size": batch, "data_stream_sender_buffer_size": sender_buffer,
             "exchg_node_buffer_size_bytes": exsim_runner.parameter_default("flags", "exchg_node_buffer_size_bytes")}
    scanners = _int_option(first, "NUM_SCANNER_THREADS", 0)
    if scanners:
        flags["num_scanner_threads"] = scanners
    imp.derivations["flags"] = (
        f"mt_dop and batch_size from the query options (MT_DOP={first.option('MT_DOP', 'unset: 0')}, "
        f"BATCH_SIZE={first.option('BATCH_SIZE', f'unset: {default_batch}')}); "
        "data_stream_sender_buffer_size and exchg_node_buffer_size_bytes are daemon flags a profile does not "
        "record: Impala's defaults written")
    for q in queries:
        for name, value in sorted(q.options.items()):
            if name not in OPTIONS_USED:
                imp.ignore(f"query option {name}={value}" + (f" (query {q.id})" if len(queries) > 1 else ""),
                           "not a parameter of the model")
    for q in skipped:
        what = " ".join((q.statement or q.query_type).split())[:60]
        imp.ignore(f"query {q.id} ({what!r})", _why_skipped(q))

    hosts = max((len(q.hosts) for q in queries))
    cluster = {"executors": hosts}
    machines = {h.rpartition(":")[0] for q in queries for h in q.hosts}
    net = fit_network([x for q in queries for x in q.exchanges.values()])
    if net is None:
        remote = any(s.instance.host != r.instance.host for q in queries for x in q.exchanges.values()
                     for s in x.senders for r in x.receivers)
        has_net = any(s.rpc_network is not None for q in queries for x in q.exchanges.values() for s in x.senders)
        why = ("the profile has no RpcNetworkTime (its senders predate KRPC's per-RPC timing, or the version "
               "does not record it)" if not has_net else
               "fewer than two sender instances with RpcNetworkTime samples: no fit")
        imp.derivations["cluster.network"] = (
            f"ASSUMED: rtt_us, nic_bandwidth_gbps and the loopback keys are the contract's defaults: {why}"
            + ("; every channel of the profile is remote, so the simulated network times rest on those defaults"
               if remote else ""))
    if net is not None:
        rtt_us, gbps, text = net
        if len(machines) == 1:
            cluster["rtt_us"] = _r(rtt_us, 2)
            cluster["loopback_rtt_us"] = _r(rtt_us, 2)
            if gbps:
                cluster["nic_bandwidth_gbps"] = _r(gbps, 3)
                cluster["loopback_bandwidth_gbps"] = _r(gbps, 3)
            imp.derivations["cluster.network"] = (
                f"every daemon ran on one machine ({next(iter(machines))}), so every RPC crossed the loopback "
                f"interface: rtt_us and loopback_rtt_us are both the {text}"
                + ("; nic and loopback bandwidth both its 8 / slope Gbit/s" if gbps else ""))
        else:
            cluster["rtt_us"] = _r(rtt_us, 2)
            if gbps:
                cluster["nic_bandwidth_gbps"] = _r(gbps, 3)
            imp.derivations["cluster.network"] = (f"rtt_us and nic_bandwidth_gbps: the {text} (local and remote "
                                                  "channels together; loopback keys left at their defaults)")
    dispatch = fit_dispatch([x for q in queries for x in q.exchanges.values()])
    if dispatch is not None:
        cluster["rpc_dispatch_us"] = _r(dispatch[0], 2)
        imp.derivations["cluster.rpc_dispatch_us"] = dispatch[1]
    else:
        imp.derivations["cluster.rpc_dispatch_us"] = (
            "ASSUMED: 0, the contract's default: the profile's receivers record no DispatchTime (older versions), "
            "so the fitted rtt_us holds every wait of an RPC but its deserialization")
    imp.ignore("cores and hardware threads per executor",
               "a profile does not record them: the contract's defaults (cores_per_executor, threads_per_core) "
               "apply; set them with --set cluster.cores_per_executor=N")

    costs = measure_costs(imp)
    pooled_num = pooled_den = 0.0
    for q in queries:
        for x in q.exchanges.values():
            _, _, nd = exchange_shape(imp, q, x, sender_buffer)
            if nd is not None:
                pooled_num += nd[0]
                pooled_den += nd[1]
    pooled = min(1.0, max(0.01, pooled_num / pooled_den)) if pooled_den > 0 else None
    exchange_defaults = measure_exchange_costs(imp)

    out_queries = []
    placement_notes = {}
    for q in queries:
        qm = _int_option(q, "MT_DOP", 0)
        entry = {"name": q.id,
                 "source": f"{q.where}: {q.encoding}; {q.impala_version or 'Impala version not recorded'}; "
                           f"{len(q.hosts)} daemon(s), mt_dop={qm}; "
                           + re.sub(r"\s+", " ", q.statement)[:200]}
        own_x_costs = {}
        if len(queries) > 1:
            entry.update(_own_settings(q, flags, costs, first, default_batch, source))
            own_x_costs = {k: v for k, v in measure_exchange_costs(Importer([q], source)).items()
                           if exchange_defaults.get(k) != v}
        if qm > 0:
            frags0, _, pinned0 = plan_json(imp, q, qm, False, cluster["executors"])
            xs0 = exchanges_json(imp, q, False, sender_buffer, pooled, pinned0)
            fragsp, why, pinnedp = plan_json(imp, q, qm, True, cluster["executors"])
            xsp = exchanges_json(imp, q, True, sender_buffer, pooled, pinnedp)
            entry["fragments"], entry["exchanges"] = frags0, _strip_expected(xs0)
            entry["parallel"] = {"fragments": fragsp, "exchanges": xsp}
            imp.derivations[f"query {q.id} plans"] = (
                f"'parallel' is the profiled plan (mt_dop={qm}, join builds in their own fragments); "
                "'fragments'/'exchanges' is the same plan at mt_dop=0, each join-build fragment folded into its "
                "join, one instance per executor; measured counters are kept on the profiled plan's exchanges")
        else:
            entry["fragments"], why, pinned = plan_json(imp, q, 0, True, cluster["executors"])
            entry["exchanges"] = exchanges_json(imp, q, True, sender_buffer, pooled, pinned)
        placement_notes[q.id] = why
        for plan in (entry, entry.get("parallel") or {}):
            for x in plan.get("exchanges", []):
                for k, v in own_x_costs.items():
                    x.setdefault(k, v)
        entry["expected"] = expected_query(q)
        a, b = q.runtime_events()
        if (a, b) != ("Query submitted", "Last row fetched"):
            imp.derivations[f"query {q.id} expected.runtime_s"] = (
                f"the Query Timeline from '{a}' to '{b}' (the events this profile's version writes)"
                if a and b else "not measured: the Query Timeline has no start or end event "
                f"(it has: {', '.join(q.timeline) or 'no events'})")
        if q.layout_notes:
            imp.derivations[f"query {q.id} layout"] = "; ".join(q.layout_notes)
        absent = _absent_counters(q)
        if absent:
            imp.derivations[f"query {q.id} counters"] = absent
        out_queries.append(entry)
        if q.approximate:
            hosts = ("hosts from the text's 'Instances:' lists" if q.encoding.startswith("text") else
                     "hosts dealt from 'Per Node Profiles'")
            imp.ignore(f"query {q.id} per-instance values",
                       "an aggregated profile rendered as JSON or text keeps only statistics (count/min/max/mean) "
                       f"per counter: every instance was given the mean, {hosts}, and each summary statistic "
                       "(RpcNetworkTime, ...) merged over the instances was shared out evenly among them; import "
                       "the raw profile log line for per-instance values")

    no_ratio = sorted({f"{e['name']} {x['id']}" for e in out_queries
                       for x in (e.get("parallel") or e)["exchanges"] if "compression_ratio" not in x})
    if no_ratio:
        imp.derivations["exchanges.compression_ratio"] = (
            "ASSUMED: the contract's default compression ratio for " + ", ".join(no_ratio[:6])
            + (", ..." if len(no_ratio) > 6 else "") + ": none of the profile's channels crossed daemons "
            "(a channel inside one daemon is not compressed), so no ratio was measured")
    _ignore_common(imp, queries)
    provenance = {
        "generator": "exsim profile import (tools/impala_profile)",
        "profile": source,
        "queries": {q.id: {"where": q.where, "encoding": q.encoding, "profile_version": q.profile_version,
                           "impala_version": q.impala_version,
                           "executors": {str(i): h + (" (coordinator)" if h == q.coordinator else "")
                                         for i, h in enumerate(q.hosts)}} for q in queries},
        "derivations": imp.derivations,
        "placement": placement_notes,
        "expected_keys": EXPECTED_KEYS,
        "ignored": imp.ignored,
    }
    name, origin = _name_and_origin(source)
    desc = (f"Impala query {first.id} imported from {origin}"
            if len(queries) == 1 else f"{len(queries)} Impala queries imported from {origin}")
    if any("costs" in e or "flags" in e for e in out_queries):
        imp.derivations["queries' own flags and costs"] = (
            "each query keeps the query options it ran with (MT_DOP, BATCH_SIZE, NUM_SCANNER_THREADS, where they "
            "differ from the first query's, which are the top-level flags) and the CPU costs measured on its own "
            "operators, senders and receivers, start-up and codegen (where they differ from the top-level ones, "
            "pooled over every query): the queries of a workload run different expressions, and may come from "
            "other builds or machines, so pooled costs would move time between them. `--set` of a flag or a "
            "cost still sets it for every query")
    sc = {"schema_version": SCHEMA_VERSION, "name": name, "description": desc, "seed": 1,
          "provenance": provenance}
    if len(queries) > 1:
        sc["query_order"] = "sequential"
    sc["cluster"] = cluster
    sc["flags"] = flags
    sc["costs"] = costs
    sc["exchange_defaults"] = exchange_defaults
    sc["queries"] = out_queries
    return sc


def _own_settings(q, flags, costs, first, default_batch, source):
    """A workload query's own `flags` (its query options that differ from the workload's) and `costs`
    (those measured on its own operators that differ from the pooled ones), each only when it has some."""
    out = {}
    own_flags = {}
    for name, key, default in (("MT_DOP", "mt_dop", 0), ("BATCH_SIZE", "batch_size", default_batch),
                               ("NUM_SCANNER_THREADS", "num_scanner_threads", 0)):
        value = _int_option(q, name, 0) or default
        if value != flags.get(key, default):
            own_flags[key] = value
    if own_flags:
        out["flags"] = own_flags
    own_costs = {k: v for k, v in measure_costs(Importer([q], source)).items() if costs.get(k) != v}
    if own_costs:
        out["costs"] = own_costs
    return out


def _absent_counters(q):
    """What this profile's Impala version does not count, and how the others were mapped."""
    senders = [s for x in q.exchanges.values() for s in x.senders]
    receivers = [r for x in q.exchanges.values() for r in x.receivers]
    notes = []
    if any(s.pre_krpc for s in senders):
        notes.append("DataStreamSender (Thrift RPCs, before KRPC): BytesSent read as TotalBytesSent, RowsReturned "
                     "(2.0-2.5: none, the instance's RowsProduced) as RowsSent, the instance's "
                     "TotalNetworkSendTime (the sender's waits for its previous RPC) as InactiveTotalTime; "
                     "TransmitDataRPCTime / ThriftTransmitTime (wall time inside synchronous RPCs), "
                     "NetworkThroughput and OverallThroughput (rates derived from them) have no counterpart; "
                     "compression_ratio over every channel (the Thrift sender compressed local channels too, "
                     "the simulator leaves them uncompressed: it sends more bytes on them than measured)")
    if any(r.pre_krpc for r in receivers):
        notes.append("exchange nodes without Enqueue/Dequeue (Thrift receiver): BytesReceived read as "
                     "TotalBytesReceived, SendersBlockedTimer as TotalHasDeferredRPCsTime, "
                     "FirstBatchArrivalWaitTime as FirstBatchWaitTime, DeserializeRowBatchTimer as "
                     "DeserializeRowBatchTime, the node's InactiveTotalTime (in text: TotalTime - non-child of "
                     "its header) as DataWaitTime; SendersBlockedTotalTimer(*) (summed over blocked senders) "
                     "and the instance's TotalNetworkReceiveTime (summed over its exchanges) have no counterpart")
    missing = [k for k, gone in (("rpcs and mean_rpc_bytes (no RPC count)", any(s.rpcs is None for s in senders)),
                                 ("eos_rpcs (no EosSent)", any(s.eos is None for s in senders)),
                                 ("RpcSuccess", any(s.rpc_success is None for s in senders)),
                                 ("RpcNetworkTime", all(s.rpc_network is None for s in senders)),
                                 ("rpcs_deferred / TotalRPCsDeferred", any(r.deferred is None for r in receivers)))
               if gone]
    if missing and (notes or any(s.rpcs is None or s.eos is None for s in senders)):
        notes.append("not in this profile, so not in 'expected': " + ", ".join(missing))
    return "; ".join(notes)


def _strip_expected(xs):
    """The mt_dop=0 plan's exchanges: measured counters belong to the profiled (parallel) plan."""
    out = []
    for e in xs:
        e = dict(e)
        e.pop("expected", None)
        out.append(e)
    return out


def _ignore_common(imp, queries):
    series = sorted({s for q in queries for f in q.fragments.values() for i in f.instances
                     for s in _series(i.node)})
    if series:
        imp.ignore("time series counters (" + ", ".join(series[:8]) + (", ..." if len(series) > 8 else "") + ")",
                   "the model takes no time-varying input; they are sampled views of counters kept elsewhere")
    imp.ignore("'Averaged Fragment' nodes", "averages of the per-instance counters, which are read instead")
    imp.ignore("memory counters (PeakMemoryUsage, buffer pool reservations, spilling)",
               "the model does not simulate operator memory; exchange memory is its own estimate")
    imp.ignore("host time series and per-node totals (HostCpu*, HostNetwork*, Per Node Peak Memory, user and "
               "system time)", "measurements of the machine, not inputs of the model")
    for q in queries:
        retries = sum(int(s.instance.node.value("RpcRetry", 0) or 0) for x in q.exchanges.values()
                      for s in x.senders)
        early = 0
        for x in q.exchanges.values():
            for s in x.senders:
                n = next((c for c in s.instance.node.children if "DataStreamSender" in c.name), None)
                if n is not None:
                    retries += int(n.value("RpcRetry", 0) or 0)
            for r in x.receivers:
                node = next((c for c in r.instance.node.children if c.name.startswith("EXCHANGE_NODE")), None)
                enq = node.child("Enqueue") if node is not None else None
                early += int(enq.value("TotalEarlySenders", 0)) if enq is not None else 0
        if retries:
            imp.ignore(f"query {q.id}: {retries} RpcRetry", "busy-service rejections and retries are not modelled")
        thrift = _thrift_only_counters(q)
        if thrift:
            imp.ignore(f"query {q.id}: {', '.join(thrift)}",
                       "counters of the Thrift sender and receiver before KRPC with no counterpart in the model: "
                       "ThriftTransmitTime / TransmitDataRPCTime sum the wall time inside synchronous RPCs over "
                       "the channels' threads, NetworkThroughput and OverallThroughput are rates derived from "
                       "them (no RPC count, no per-RPC time), SendersBlockedTotalTimer sums the blocked time over "
                       "senders, TotalNetworkReceiveTime sums the waits of all an instance's exchanges")
        if early:
            imp.ignore(f"query {q.id}: {early} TotalEarlySenders", "receivers are never late in the model")


# Counters of the Thrift data stream (2.x/3.x) the model has no input or result for.
_THRIFT_ONLY = ("ThriftTransmitTime", "TransmitDataRPCTime", "NetworkThroughput", "OverallThroughput",
                "SendersBlockedTotalTimer", "TotalNetworkReceiveTime")


def _thrift_only_counters(q):
    """The _THRIFT_ONLY counters query q's pre-KRPC senders, receivers and their instances hold."""
    found = set()
    for x in q.exchanges.values():
        for s in x.senders:
            if s.pre_krpc:
                sender = next((c for c in s.instance.node.children if "DataStreamSender" in c.name), None)
                found |= set(sender.counters if sender is not None else ()) | set(s.instance.node.counters)
        for r in x.receivers:
            if r.pre_krpc:
                stack = [r.instance.node]
                while stack:
                    node = stack.pop()
                    if node.name == f"EXCHANGE_NODE (id={x.id})":
                        found |= set(node.counters)
                    stack.extend(node.children)
                found |= set(r.instance.node.counters)
    return [c for c in _THRIFT_ONLY if c in found]


def _series(node):
    out = list(node.series)
    for c in node.children:
        out.extend(_series(c))
    return out


# ---------------------------------------------------------------------------
# Another cluster size
# ---------------------------------------------------------------------------

def _exchange_inputs(root):
    """Exchange ids read by an operator tree, leftmost first."""
    if not isinstance(root, dict):
        return []
    if root.get("op") == "exchange":
        return [root["exchange"]]
    out = []
    for k in ("input", "probe", "build"):
        out += _exchange_inputs(root.get(k))
    for c in root.get("inputs") or []:
        out += _exchange_inputs(c)
    return out


def _drop_weights(node):
    dropped = False
    if isinstance(node, dict):
        if node.pop("instance_weights", None) is not None:
            dropped = True
        for k in ("input", "probe", "build"):
            dropped = _drop_weights(node.get(k)) or dropped
        for c in node.get("inputs") or []:
            dropped = _drop_weights(c) or dropped
    return dropped


def _scan_of(root):
    """The leftmost leaf of an operator tree when it is a scan."""
    node = root
    while isinstance(node, dict):
        if node.get("op") == "scan":
            return node
        node = node.get("input") or node.get("probe") or (node.get("inputs") or [None])[0]
    return None


def retarget(sc, executors):
    """Re-place a scenario's fragments pinned to executors of the profiled cluster for a cluster of
    `executors`, as Impala's scheduler (be/src/scheduling/scheduler.cc at b21595276c) would place them:
    the root fragment stays on the coordinator (executor 0); a scan fragment runs on the executors
    that get its scan ranges, at most min(scan ranges, executors) of them, from executor 0 (the
    profiled daemons holding its data are gone, so locality is not kept); an interior fragment
    follows its leftmost input fragment's executors (an unpartitioned one takes one of them, the
    first); a join-build fragment follows its join's fragment. Fragments that scale with
    cluster.executors need nothing. Per-instance weights of a fragment whose instance count changes
    are dropped. Returns the notes, one per re-placed fragment, by plan id."""
    if not isinstance(executors, int) or executors < 1:
        raise ProfileError(f"--executors {executors}: expected a number of executors >= 1")
    profiled = sc["cluster"]["executors"]
    sc["cluster"]["executors"] = executors
    notes = {}
    for q in sc["queries"]:
        for plan_name, plan in ((q["name"], q), (q["name"] + " parallel", q.get("parallel"))):
            if not plan:
                continue
            frags = {f["id"]: f for f in plan["fragments"]}
            sender_of = {f["sink"]["exchange"]: f["id"] for f in plan["fragments"] if "exchange" in f.get("sink", {})}
            receiver_of = {}
            for f in plan["fragments"]:
                for xid in _exchange_inputs(f["root"]):
                    receiver_of[xid] = f["id"]
            done = {}

            def place(fid, seen=()):
                if fid in done:
                    return done[fid]
                f = frags[fid]
                k, first = f.get("executors", 0), f.get("first_executor", 0)
                if k == 0 or fid in seen:
                    done[fid] = (0, 0, None)
                    return done[fid]
                if first + k <= executors:
                    done[fid] = (k, first, None)
                    return done[fid]
                sink = f.get("sink", {})
                scan = _scan_of(f["root"])
                inputs = _exchange_inputs(f["root"])
                if "join_build" in sink:
                    join_frag = next((g for g in plan["fragments"] if _has_join(g["root"], sink["join_build"])), None)
                    nk, nf, _ = place(join_frag["id"], seen + (fid,)) if join_frag else (min(k, executors), 0, "")
                    why = f"co-located with its join's fragment {join_frag['id'] if join_frag else '?'}"
                    if nk == 0:
                        nk, nf = executors, 0
                elif scan is not None:
                    ranges = scan.get("scan_ranges") or k
                    nk, nf = min(k, ranges, executors), 0
                    why = (f"its scan's {ranges} scan range(s) go to {nk} of the {executors} executors (the "
                           "profiled daemons that held them are gone)")
                elif inputs and inputs[0] in sender_of:
                    ik, i_first, _ = place(sender_of[inputs[0]], seen + (fid,))
                    if ik == 0:
                        ik, i_first = executors, 0
                    nk = 1 if k == 1 else min(k, ik)
                    nf = i_first
                    why = (f"follows its leftmost input fragment {sender_of[inputs[0]]}"
                           + (" (unpartitioned: one of its executors, the first)" if k == 1 else ""))
                else:
                    nk, nf = min(k, executors), 0
                    why = "no scan or input to follow: from executor 0"
                if nk >= executors:
                    nk, nf = executors, 0
                if nf + nk > executors:
                    nf = executors - nk
                dropped = _drop_weights(f["root"])
                for x in plan["exchanges"]:
                    if receiver_of.get(x["id"]) == fid and nk != k and x.pop("receiver_weights", None) is not None:
                        dropped = True
                note = (f"{fid}: ran on executors {first}..{first + k - 1} of {profiled}; on {executors}: "
                        f"executors {nf}..{nf + nk - 1}, {why}"
                        + ("; its per-instance weights dropped (the instance count changed)" if dropped and nk != k
                           else ""))
                f["executors"], f["first_executor"] = nk, nf
                done[fid] = (nk, nf, note)
                return done[fid]

            for fid in frags:
                _, _, note = place(fid)
                if note:
                    notes.setdefault(plan_name, []).append(note)
    return notes


def narrow_scans(sc):
    """{query name: [(fragment id, executors, scan ranges)]} of the scan fragments that run on fewer
    executors than the cluster has because the profile's scan has no more scan ranges: on a cluster
    larger than the profiled one those scans stay where they were, and the query gains little."""
    n = sc["cluster"]["executors"]
    out = {}
    for q in sc["queries"]:
        for f in (q.get("parallel") or q)["fragments"]:
            scan, k = _scan_of(f["root"]), f.get("executors", 0)
            if scan is not None and 0 < k < n and scan.get("scan_ranges"):
                out.setdefault(q["name"], []).append((f["id"], k, scan["scan_ranges"]))
    return out


def _has_join(root, join_id):
    if not isinstance(root, dict):
        return False
    if root.get("id") == join_id and root.get("op") in ("hash_join", "nested_loop_join"):
        return True
    return any(_has_join(root.get(k), join_id) for k in ("input", "probe", "build")) or \
        any(_has_join(c, join_id) for c in root.get("inputs") or [])
