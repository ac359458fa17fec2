"""The normalised in-memory model of one Impala query profile: query, hosts, fragments and their
instances per host, operators with their rows, exchanges with their sender and receiver counters,
timeline events.

    from tools.impala_profile import decode, model
    queries = [model.build_query(doc) for doc in decode.read_profiles(path)]

Structure comes from the runtime profile tree (fragments, instances, hosts, operator nesting,
sinks); what the tree does not say (an exchange's partitioning, merging, a join's distribution,
an aggregation's phase) comes from the ExecSummary table of the Summary node, and row widths
and limits from the Plan text when its explain level prints them.
"""

import re
from dataclasses import dataclass, field

from tools import join_distribution

from .decode import ProfileError
from .text import ENCODING as TEXT_ENCODING, READ_COUNTERS

_TIME_UNIT_S = {"TIME_NS": 1e-9, "TIME_US": 1e-6, "TIME_MS": 1e-3, "TIME_S": 1.0}


def seconds(counter):
    """A time counter in seconds (None when absent)."""
    if counter is None:
        return None
    return counter.value * _TIME_UNIT_S.get(counter.unit, 1e-9)


def parse_duration(text):
    """Impala's pretty-printed durations ('8s845ms', '1m2s', '322.66ms', '12.5us', '45ns') -> s."""
    total, found = 0.0, False
    for num, unit in re.findall(r"([\d.]+)(h|ms|m|s|us|ns)", text or ""):
        total += float(num) * {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}[unit]
        found = True
    return total if found else None


# ---------------------------------------------------------------------------
# Model
# ---------------------------------------------------------------------------

@dataclass
class Operator:
    """One plan node in one fragment, with its per-instance counters (index = fragment instance)."""
    id: int
    kind: str  # the profile's node kind: HDFS_SCAN_NODE, HASH_JOIN_NODE, AGGREGATION_NODE, ...
    children: list = field(default_factory=list)  # operator ids, the probe/main child first
    build_child: int | None = None  # for a join with its build in this fragment
    per_instance: list = field(default_factory=list, repr=False)  # decode.Node per instance (None: absent)
    label: str = ""  # ExecSummary label (e.g. "HASH JOIN", "MERGING-EXCHANGE", "TOP-N")
    detail: str = ""  # ExecSummary detail (e.g. "INNER JOIN, BROADCAST", "STREAMING", table name)
    row_size: float | None = None  # plan text row-size, bytes
    tuples: int | None = None  # plan text tuple-ids count
    limit: int | None = None  # plan text limit
    join_keys: tuple | None = None  # plan text hash predicates: (probe keys, build keys), column names
    cardinality: float | None = None  # plan text cardinality: the planner's estimate of its rows

    def total(self, counter):
        return sum(n.value(counter, 0) for n in self.per_instance if n is not None)

    def values(self, counter):
        return [(n.value(counter, 0) if n is not None else 0) for n in self.per_instance]

    def local_time_s(self, k, child_ops):
        """Instance k's time in this node alone: TotalTime - InactiveTotalTime - children's TotalTime."""
        n = self.per_instance[k]
        if n is None:
            return 0.0
        t = (seconds(n.counters.get("TotalTime")) or 0) - (seconds(n.counters.get("InactiveTotalTime")) or 0)
        for c in child_ops:
            cn = c.per_instance[k] if k < len(c.per_instance) else None
            if cn is not None:
                t -= seconds(cn.counters.get("TotalTime")) or 0
        return max(t, 0.0)


@dataclass
class Instance:
    id: str
    host: str
    node: object = field(repr=False)  # the decode.Node "Instance ..." of the profile


@dataclass
class Fragment:
    id: str  # "F00"
    instances: list = field(default_factory=list)  # Instance, sorted by host then instance id
    root: int | None = None  # operator id at the top of the fragment's tree
    operators: dict = field(default_factory=dict)  # id -> Operator
    sink_kind: str = ""  # "exchange", "join_build", "result", or the profile's sink name
    sink_target: int | None = None  # exchange id or join node id
    coordinator: bool = False
    partition: str = ""  # plan text: [HASH(...)], [RANDOM], [UNPARTITIONED]

    def hosts(self):
        out = []
        for i in self.instances:
            if i.host not in out:
                out.append(i.host)
        return out

    def per_host(self):
        counts = {}
        for i in self.instances:
            counts[i.host] = counts.get(i.host, 0) + 1
        return counts


@dataclass
class Sender:
    """KrpcDataStreamSender counters of one sending instance."""
    instance: Instance
    rows: int
    bytes_sent: int
    uncompressed: int | None
    rpcs: int | None  # TransmitData RPCs (None: the version counts no RPCs, e.g. the Thrift sender of 2.x)
    eos: int | None  # None: no EosSent counter
    rpc_success: int | None  # None in profiles (4.0) that have no RpcSuccess counter
    inactive_s: float
    serialize_s: float
    transmit_s: float
    total_s: float
    rpc_network: object = None  # decode.SummaryStat, ns
    rpc_recvr: object = None
    pre_krpc: bool = False  # a DataStreamSender (Thrift RPCs, Impala 2.x/3.x)


@dataclass
class Receiver:
    """EXCHANGE_NODE counters of one receiving instance (Enqueue and Dequeue children)."""
    instance: Instance
    rows: int
    bytes_received: int
    batches_received: int | None  # None: the version does not count it (Thrift receiver of 2.x/3.x)
    bytes_dequeued: int | None
    deferred: int | None
    has_deferred_s: float
    data_wait_s: float
    first_batch_wait_s: float
    deserialize_s: float
    eos_received: int | None
    pre_krpc: bool = False
    # DispatchTime (decode.SummaryStat, ns): a request's wait from its arrival to a service thread's
    # AddBatch, per RPC (KRPC receivers that record it; None otherwise)
    dispatch: object = None


@dataclass
class Exchange:
    id: int
    partitioning: str = ""  # HASH_PARTITIONED, UNPARTITIONED, RANDOM, KUDU, DIRECTED
    broadcast: bool = False  # an UNPARTITIONED sender with one channel per receiver instance
    detail: str = ""  # the plan's words, e.g. "HASH(cs_sold_date_sk,cs_item_sk)", "BROADCAST"
    merging: bool = False
    sender_fragment: str = ""
    receiver_fragment: str = ""
    senders: list = field(default_factory=list)
    receivers: list = field(default_factory=list)
    tuples: int | None = None  # tuples per row, from the plan text
    row_size: float | None = None  # planner's row-size, bytes
    limit: int | None = None  # a limit on the exchange node (rows past it are dropped)
    partitioning_from: str = ""  # where the partitioning was read when the ExecSummary lacks it


@dataclass
class Query:
    id: str
    where: str
    encoding: str
    profile_version: int
    approximate: bool
    state: str = ""
    status: str = ""
    statement: str = ""
    impala_version: str = ""
    query_type: str = ""
    options: dict = field(default_factory=dict)
    coordinator: str = ""
    hosts: list = field(default_factory=list)  # coordinator first
    fragments: dict = field(default_factory=dict, repr=False)  # id -> Fragment
    exchanges: dict = field(default_factory=dict, repr=False)  # id -> Exchange
    timeline: dict = field(default_factory=dict)  # "Query Timeline" label -> s
    compilation: dict = field(default_factory=dict)  # "Query Compilation" label -> s
    duration_s: float | None = None
    codegen_s: dict = field(default_factory=dict)  # (fragment, host) -> s
    layout_notes: list = field(default_factory=list)  # how an older layout was read
    exec_summary_found: bool = False
    plan_found: bool = False
    has_execution: bool = False
    duplicate_of: str = ""  # where the same query was read first (a workload of several files)

    @property
    def failed(self):
        return self.state in ("EXCEPTION", "ERROR", "CANCELLED", "FAILED") or (
            self.status not in ("", "OK") and not self.status.startswith("OK"))

    def host_index(self, host):
        return self.hosts.index(host)

    def option(self, name, default=None):
        return self.options.get(name.upper(), default)

    # Timeline events, by Impala version (ClientRequestState / Coordinator, 2.x to 5.0): the start is
    # 'Query submitted' (2.9+) or 'Start execution' (2.x); the fragments are started at 'All N
    # execution backends (M fragment instances) started' (3.x+), 'All N remote fragments started'
    # or 'Remote fragments started' (2.x); the end is the last fetch, else the first, else rows
    # available, else unregistering the query.
    START_EVENTS = ("Query submitted", "Start execution")
    END_EVENTS = ("Last row fetched", "First row fetched", "Rows available", "Unregister query")

    def _event(self, names):
        return next(((n, self.timeline[n]) for n in names if n in self.timeline), (None, None))

    def startup_event(self):
        return next(((k, v) for k, v in self.timeline.items()
                     if (k.startswith("All ") or k.startswith("Remote fragments")) and k.endswith("started")),
                    (None, None))

    def startup_s(self):
        """From the start event to the fragments' start (see START_EVENTS)."""
        _, start = self._event(self.START_EVENTS)
        _, ready = self.startup_event()
        if start is None or ready is None:
            return None
        return ready - start

    def runtime_s(self):
        """From the start event to the end event (see END_EVENTS)."""
        _, start = self._event(self.START_EVENTS)
        _, end = self._event(self.END_EVENTS)
        if start is None or end is None:
            return None
        return end - start

    def runtime_events(self):
        """(start label, end label) that runtime_s measures between."""
        return self._event(self.START_EVENTS)[0], self._event(self.END_EVENTS)[0]


# ---------------------------------------------------------------------------
# ExecSummary and Plan text
# ---------------------------------------------------------------------------

@dataclass
class SummaryRow:
    key: str  # "20" for a plan node, "F14" for a fragment's sink row
    name: str  # "HASH JOIN", "EXCHANGE SENDER", "JOIN BUILD", "ROOT", "MERGING-EXCHANGE"
    detail: str
    parent: "SummaryRow | None" = None
    branch: bool = False  # printed under "|--": a build side / secondary child
    children: list = field(default_factory=list)
    instances: int | None = None  # its "#Inst" column

    def fragment(self):
        """The fragment the row belongs to: its own key for a sink row, else the nearest sink above."""
        r = self
        while r is not None:
            if r.key.startswith("F"):
                return r.key
            r = r.parent
        return None


def parse_exec_summary(text):
    """The ExecSummary table -> {key: SummaryRow} with the tree its |-- prefixes draw."""
    rows = {}
    lines = (text or "").splitlines()
    header = next((i for i, l in enumerate(lines) if l.lstrip().startswith("Operator")), None)
    if header is None:
        return rows
    hdr = lines[header]
    c_hosts = hdr.find("#Hosts")
    c_detail = hdr.find("Detail")
    if c_hosts < 0:
        return rows
    last_at_depth = {}
    for line in lines[header + 1:]:
        if not line.strip() or set(line.strip()) <= {"-"}:
            continue
        label = line[:c_hosts].rstrip()
        detail = line[c_detail:].strip() if c_detail >= 0 else ""
        m = re.match(r"^((?:\|  |\|--|   )*)(\S.*)$", label)
        if not m:
            continue
        prefix, text_ = m.group(1), m.group(2).strip()
        depth = len(prefix) // 3
        branch = prefix.endswith("|--")
        mm = re.match(r"^(F?\d+):(.+)$", text_)
        if not mm:
            continue
        key, name = mm.group(1), mm.group(2).strip()
        if not key.startswith("F"):
            key = str(int(key))
        counts = line[c_hosts:].split()[:2]
        row = SummaryRow(key, name, detail, branch=branch,
                         instances=int(counts[1]) if len(counts) == 2 and counts[1].isdigit() else None)
        parent = last_at_depth.get(depth - 1) if branch else last_at_depth.get(depth)
        if branch and parent is None:
            parent = last_at_depth.get(depth)
        row.parent = parent
        if parent is not None:
            parent.children.append(row)
        last_at_depth[depth] = row
        for d in [d for d in last_at_depth if d > depth]:
            del last_at_depth[d]
        rows[key] = row
    return rows


def parse_plan(text):
    """Plan text (explain level >= 2 prints these) -> ({node id: {row_size, tuples, limit, label,
    partition}}, {fragment id: partition}).

    An exchange's partition is the sending fragment's sink line, 'DATASTREAM SINK [FRAGMENT=F07,
    EXCHANGE=20, UNPARTITIONED]' (verbose plans of 2.x, DataStreamSink.java), else the exchange's
    own line '20:EXCHANGE [BROADCAST]': both print the planner's words (ExchangeNode.java:
    BROADCAST, HASH(exprs), UNPARTITIONED, RANDOM)."""
    nodes, frags = {}, {}
    current = None
    for raw in (text or "").splitlines():
        line = raw.lstrip("|- ").rstrip()
        m = re.match(r"^(F\d+):PLAN FRAGMENT \[([^\]]*)\]", line)
        if m:
            frags[m.group(1)] = m.group(2)
            current = None
            continue
        m = re.match(r"^(?:KRPC )?DATASTREAM SINK \[FRAGMENT=F\d+, EXCHANGE=(\d+), (.+)\]$", line)
        if m:
            sink = nodes.setdefault(int(m.group(1)), {})
            sink["partition"], sink["partition_line"] = m.group(2).strip(), "DATASTREAM SINK"
            current = None
            continue
        m = re.match(r"^(\d+):([A-Z][A-Z -]*[A-Z])(?: \[(.*)\])?$", line)
        if m:
            current = nodes.setdefault(int(m.group(1)), {})
            current["label"] = m.group(2)
            if m.group(2).endswith("EXCHANGE") and m.group(3) and "partition" not in current:
                current["partition"], current["partition_line"] = m.group(3).strip(), m.group(2)
            lm = re.search(r"LIMIT=(\d+)", m.group(3) or "")
            if lm:
                current["limit"] = int(lm.group(1))
            continue
        if current is None:
            continue
        m = re.search(r"tuple-ids=([\d,N]+) row-size=([\d.]+)(B|KB|MB)", line)
        if m:
            current["tuples"] = len(m.group(1).split(","))
            current["row_size"] = float(m.group(2)) * {"B": 1, "KB": 1024, "MB": 1 << 20}[m.group(3)]
        m = re.match(r"^limit: (\d+)$", line)
        if m:
            current["limit"] = int(m.group(1))
        m = re.search(r"\bcardinality=([\d.]+)([KMBT]?)\b", line)
        if m:
            current["cardinality"] = float(m.group(1)) * {"": 1, "K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}[m.group(2)]
        m = re.match(r"^hash predicates: (.+)$", line)
        if m:
            current["join_keys"] = _join_keys(m.group(1))
    return nodes, frags


def _join_keys(text):
    """A join's hash predicates -> (probe keys, build keys), column names only (as a fragment's
    HASH(...) partition names them), or None."""
    probe, build = join_distribution.hash_predicate_keys(text)
    if probe is None:
        return None
    return tuple(e.split(".")[-1] for e in probe), tuple(e.split(".")[-1] for e in build)


# ---------------------------------------------------------------------------
# Building the model from a decoded profile tree
# ---------------------------------------------------------------------------

_OPERATOR_RE = re.compile(r"^([A-Z][A-Z_]*) \(id=(\d+)\)$")
_INSTANCE_RE = re.compile(r"^Instance (\S+) \(host=([^)]+)\)$")
_FRAGMENT_RE = re.compile(r"^(Coordinator )?Fragment (F\d+)$")
_SENDER_RE = re.compile(r"^(?:Krpc)?DataStreamSender \(dst_id=(\d+)\)$")
_BUILDER_RE = re.compile(r"^(?:Hash|Nested Loop) Join Builder \(join_node_id=(\d+)\)$")

PARTITIONING = {"HASH": "HASH_PARTITIONED", "BROADCAST": "UNPARTITIONED", "UNPARTITIONED": "UNPARTITIONED",
                "RANDOM": "RANDOM", "KUDU": "KUDU", "DIRECTED": "DIRECTED"}


def _host_key(host):
    name, _, port = host.rpartition(":")
    return (name, int(port) if port.isdigit() else 0, host)


def build_query(doc):
    """ProfileDoc -> Query. Raises ProfileError when the tree lacks what every profile has."""
    root = doc.root
    m = re.match(r"^Query \(id=([^)]+)\)$", root.name)
    if not m:
        raise ProfileError(f"{doc.where}: not an Impala query profile: the root node is {root.name[:60]!r}, "
                           "expected 'Query (id=...)'")
    q = Query(m.group(1), doc.where, doc.encoding, doc.profile_version, doc.approximate)
    summary = root.child("Summary")
    if summary is None:
        raise ProfileError(f"{doc.where}: query {q.id}: no 'Summary' node: not a complete query profile")
    info = summary.info
    q.state = info.get("Query State", "")
    q.status = info.get("Query Status", "")
    if doc.exec_state in ("FAILED", "CANCELLED") and q.status in ("", "OK"):
        q.state = doc.exec_state
        q.status = "; ".join(doc.exec_errors) or doc.exec_state
    q.statement = info.get("Sql Statement", "")
    q.impala_version = info.get("Impala Version", "")
    q.query_type = info.get("Query Type", "")
    q.coordinator = info.get("Coordinator", "")
    q.duration_s = parse_duration(info.get("Duration", ""))
    opts = info.get("Query Options (set by configuration and planner)") or \
        info.get("Query Options (set by configuration)") or ""
    for part in re.split(r",(?=[A-Z][A-Z0-9_]*=)", opts):
        k, sep, v = part.partition("=")
        if sep:
            q.options[k.strip().upper()] = v.strip()
    for name, events in summary.events:
        target = None
        labels = [l for l, _ in events]
        if name == "Query Timeline" or "Query submitted" in labels:
            target = q.timeline
        elif name == "Query Compilation" or "Planning finished" in labels and "Analysis finished" in labels:
            target = q.compilation
        if target is not None:
            for label, ts in events:
                target.setdefault(label, ts * 1e-9)

    exec_summary = parse_exec_summary(info.get("ExecSummary", ""))
    q.exec_summary_found = bool(exec_summary)
    plan_nodes, plan_frags = parse_plan(info.get("Plan", ""))
    q.plan_found = bool(plan_nodes)

    exec_profile = next((c for c in root.children if c.name.startswith("Execution Profile")), None)
    if exec_profile is None:
        if doc.encoding == TEXT_ENCODING and q.query_type in ("QUERY", "DML", "") and q.state in ("FINISHED", "") \
                and not q.failed:
            raise ProfileError(f"{q.where}: query {q.id}: no 'Execution Profile' node, though its Summary says a "
                               f"{q.query_type or 'query'} that {q.state.lower() or 'ran'}: expected the execution "
                               "profile Impala prints after the Summary (is the profile cut short?)")
        return q
    for frag_node in exec_profile.children:
        fm = _FRAGMENT_RE.match(frag_node.name)
        if fm:
            _read_fragment(q, frag_node, fm.group(2), bool(fm.group(1)), exec_summary, plan_nodes)
        elif frag_node.name == "Per Node Profiles":
            _read_per_node(q, frag_node)
    q.has_execution = bool(q.fragments)
    for fid, part in plan_frags.items():
        if fid in q.fragments:
            q.fragments[fid].partition = part
    hosts = sorted({i.host for f in q.fragments.values() for i in f.instances}, key=_host_key)
    if q.coordinator in hosts:
        hosts.remove(q.coordinator)
        hosts.insert(0, q.coordinator)
    q.hosts = hosts
    for f in q.fragments.values():
        f.instances.sort(key=lambda i: (hosts.index(i.host), i.id))
        for op in f.operators.values():
            op.per_instance = [_find_operator(i.node, op.id) for i in f.instances]
    _link_exchanges(q, exec_summary, plan_nodes)
    if doc.encoding == TEXT_ENCODING and not q.failed:
        _check_complete(q, exec_summary)
    return q


def _check_complete(q, exec_summary):
    """A text profile has no end marker: one cut short at a line break still reads. What its own
    ExecSummary lists must be there: each fragment's instances ("#Inst"), and in each instance
    each operator of the fragment. (A cut inside the last operator's counters is not seen.)"""
    for key, row in exec_summary.items():
        if not key.startswith("F") or not row.instances:
            continue
        frag = q.fragments.get(key)
        found = len(frag.instances) if frag else 0
        if found != row.instances:
            raise ProfileError(f"{q.where}: query {q.id}: the ExecSummary lists {row.instances} instance(s) of "
                               f"fragment {key}, the profile holds {found}: expected each instance as Impala "
                               "prints it (is the profile cut short?)")
        ops = [int(k) for k, r in exec_summary.items() if not k.startswith("F") and r.fragment() == key]
        for inst in frag.instances:
            missing = [o for o in ops if _find_operator(inst.node, o) is None]
            if missing:
                raise ProfileError(f"{q.where}: query {q.id}: instance {inst.id} of fragment {key} has no node of "
                                   f"operator {missing[0]} ({exec_summary[str(missing[0])].name}), which the "
                                   "ExecSummary lists: expected every operator of the fragment (is the profile "
                                   "cut short?)")
    # Impala gives every instance of a fragment the same counters: one that lacks a counter the
    # model reads, which its siblings have, was cut off.
    for fid, frag in q.fragments.items():
        if len(frag.instances) < 2 or q.approximate:
            continue
        nodes = [[c for c in _walk(inst.node) if _OPERATOR_RE.match(c.name) or _SENDER_RE.match(c.name)]
                 for inst in frag.instances]
        for i, inst in enumerate(frag.instances):
            if [c.name for c in nodes[i]] != [c.name for c in nodes[0]]:
                continue  # a different tree: not for this check
            for mine, first in zip(nodes[i], nodes[0]):
                have = lambda n: {k for k in (*n.counters, *n.summary) if k in READ_COUNTERS}  # noqa: E731
                lost = sorted((have(first) - have(mine)) | (have(mine) - have(first)))
                if lost:
                    short = inst if len(have(mine)) < len(have(first)) else frag.instances[0]
                    raise ProfileError(f"{q.where}: query {q.id}: {mine.name} of instance {short.id} (fragment "
                                       f"{fid}) has no counter {lost[0]}, which the fragment's other instances "
                                       "have: expected the same counters in every instance (is the profile cut "
                                       "short?)")


def _walk(node):
    for c in node.children:
        yield c
        yield from _walk(c)


def _find_operator(node, op_id):
    for c in node.children:
        m = _OPERATOR_RE.match(c.name)
        if m and int(m.group(2)) == op_id:
            return c
        found = _find_operator(c, op_id)
        if found is not None:
            return found
    return None


def _read_fragment(q, frag_node, fid, coordinator, exec_summary, plan_nodes):
    frag = Fragment(fid, coordinator=coordinator)
    for inst_node in frag_node.children:
        im = _INSTANCE_RE.match(inst_node.name)
        if im:
            frag.instances.append(Instance(im.group(1), im.group(2), inst_node))
    if not frag.instances and coordinator and any(_OPERATOR_RE.match(c.name) for c in frag_node.children):
        # Impala up to 2.8 (coordinator.cc, 2.7.0: the executor's profile renamed "Coordinator
        # Fragment Fnn") puts the coordinator's fragment directly above its nodes, with no
        # Instance child: its one instance is the query's own id, on the coordinator.
        if not q.coordinator:
            raise ProfileError(f"{q.where}: query {q.id}: 'Coordinator Fragment {fid}' has no Instance child and "
                               "the Summary names no Coordinator: its host is unknown")
        frag.instances.append(Instance(q.id, q.coordinator, frag_node))
        q.layout_notes.append(f"{frag_node.name}: no Instance child (the layout of Impala 2.8 and earlier): "
                              f"one instance on the coordinator {q.coordinator}")
    if not frag.instances:
        return
    q.fragments[fid] = frag
    # The operator tree and sink, from the first instance (every instance runs the same plan).
    first = frag.instances[0].node
    roots = []
    for c in first.children:
        sm = _SENDER_RE.match(c.name)
        bm = _BUILDER_RE.match(c.name)
        if sm:
            frag.sink_kind, frag.sink_target = "exchange", int(sm.group(1))
        elif bm:
            frag.sink_kind, frag.sink_target = "join_build", int(bm.group(1))
        elif c.name == "PLAN_ROOT_SINK":
            frag.sink_kind = "result"
        elif _OPERATOR_RE.match(c.name):
            roots.append(c)
        elif c.data_sink_id is not None:
            frag.sink_kind = c.name
    if len(roots) == 1:
        frag.root = _read_operator(frag, roots[0], exec_summary, plan_nodes)
    elif len(roots) > 1:
        raise ProfileError(f"{q.where}: query {q.id}: fragment {fid} has {len(roots)} operator trees in one "
                           "instance")


def _read_operator(frag, node, exec_summary, plan_nodes):
    kind, oid = _OPERATOR_RE.match(node.name).groups()
    op = Operator(int(oid), kind)
    kids = [c for c in node.children if _OPERATOR_RE.match(c.name)]
    ids = [_read_operator(frag, c, exec_summary, plan_nodes) for c in kids]
    row = exec_summary.get(str(op.id))
    if row is not None:
        op.label, op.detail = row.name, row.detail
        branch_ids = {int(r.key) for r in row.children if r.branch and not r.key.startswith("F")}
        main = [i for i in ids if i not in branch_ids]
        builds = [i for i in ids if i in branch_ids]
        ids = main + builds
    elif kind.endswith("JOIN_NODE") and len(ids) == 2:
        ids = [ids[1], ids[0]]  # the profile lists a join's build child first
    if kind.endswith("JOIN_NODE") and len(ids) == 2:
        op.children, op.build_child = [ids[0]], ids[1]
    else:
        op.children = ids
    extra = plan_nodes.get(op.id, {})
    op.row_size, op.tuples, op.limit = extra.get("row_size"), extra.get("tuples"), extra.get("limit")
    op.join_keys, op.cardinality = extra.get("join_keys"), extra.get("cardinality")
    frag.operators[op.id] = op
    return op.id


def _read_per_node(q, per_node):
    for host in per_node.children:
        for frag in host.children:
            fm = re.match(r"^Fragment (F\d+)$", frag.name)
            cg = frag.child("CodeGen") if fm else None
            if cg is not None:
                t = seconds(cg.counters.get("TotalTime"))
                if t is not None:
                    q.codegen_s[(fm.group(1), host.name)] = t


def _sender_of(inst):
    for c in inst.node.children:
        if _SENDER_RE.match(c.name):
            return c
    return None


def _partition_kind(detail):
    """(partitioning, broadcast) of the planner's words for an exchange ('HASH(a, b)', 'BROADCAST',
    'UNPARTITIONED', ...), as an ExecSummary row or a plan line prints them; ("", False) for none."""
    detail = detail.strip()
    return (PARTITIONING.get(re.split(r"[(\s,]", detail)[0], "") if detail else ""), detail.startswith("BROADCAST")


def _link_exchanges(q, exec_summary, plan_nodes):
    for f in q.fragments.values():
        if f.sink_kind == "exchange":
            x = q.exchanges.setdefault(f.sink_target, Exchange(f.sink_target))
            x.sender_fragment = f.id
            for inst in f.instances:
                x.senders.append(_read_sender(inst, _sender_of(inst)))
        for op in f.operators.values():
            if op.kind == "EXCHANGE_NODE":
                x = q.exchanges.setdefault(op.id, Exchange(op.id))
                x.receiver_fragment = f.id
                x.receivers = [_read_receiver(inst, n) for inst, n in zip(f.instances, op.per_instance)]
                x.tuples, x.row_size, x.limit = op.tuples, op.row_size, op.limit
                x.merging = "MERGING" in op.label or any(
                    n is not None and "MergeGetNext" in n.counters for n in op.per_instance)
                x.detail = op.detail
                x.partitioning, x.broadcast = _partition_kind(op.detail.split(",")[0] if op.detail else "")
    for x in q.exchanges.values():
        plan = plan_nodes.get(x.id, {})
        if not x.partitioning and plan.get("partition"):
            # No ExecSummary row for it (2.x adds the ExecSummary only when the query is
            # unregistered, impala-server.cc): the plan's sink line names the partitioning.
            x.detail = plan["partition"]
            x.partitioning, x.broadcast = _partition_kind(x.detail)
            x.merging = x.merging or "MERGING" in plan.get("label", "")
            x.partitioning_from = f"the plan's {plan['partition_line']} line" if x.partitioning else ""
        if not x.partitioning and x.senders:
            # No ExecSummary: the sender's ExecOption names its kind.
            opt = " ".join(s.instance.node.info.get("ExecOption", "") for s in x.senders[:1])
            sn = _sender_of(x.senders[0].instance)
            opt = (sn.info.get("ExecOption", "") if sn is not None else "") or opt
            for word, part in (("Hash Partitioned", "HASH_PARTITIONED"), ("Unpartitioned", "UNPARTITIONED"),
                               ("Random", "RANDOM"), ("Kudu", "KUDU"), ("Directed", "DIRECTED")):
                if word in opt:
                    x.partitioning = part
                    x.detail = x.detail or word
                    x.partitioning_from = "the sender's ExecOption"
            x.broadcast = x.partitioning == "UNPARTITIONED" and len(x.receivers) > 1


def _summary(node, name):
    return node.summary.get(name) if node is not None else None


def _read_sender(inst, n):
    """Sender counters under their KRPC names (Impala 3.x-5.0, KrpcDataStreamSender); the Thrift
    sender of 2.x/3.x (DataStreamSender, be/src/runtime/data-stream-sender.cc at 2.7.0 and 3.0.0)
    counts BytesSent and RowsReturned and has no count of RPCs: what a version does not count is
    None, not 0."""
    if n is None:
        return Sender(inst, 0, 0, None, None, None, None, 0.0, 0.0, 0.0, 0.0)
    rpc_success = n.value("RpcSuccess")
    eos = n.value("EosSent")
    tput = _summary(n, "NetworkThroughput")
    net = _summary(n, "RpcNetworkTime")
    if rpc_success is not None and eos is not None:
        rpcs = int(rpc_success) - int(eos)
    elif tput is not None:
        rpcs = tput.count  # one NetworkThroughput sample per data RPC
    elif net is not None and eos is not None:
        rpcs = max(net.count - int(eos), 0)
    else:
        rpcs = None
    # RowsSent (KRPC), RowsReturned (Thrift sender from 2.6, IMPALA-2076), else the instance's
    # RowsProduced: the senders of 2.0-2.5 (data-stream-sender.cc) count no rows, and a sender sends
    # every row its fragment instance produces.
    rows = n.value("RowsSent", n.value("RowsReturned", inst.node.value("RowsProduced", 0)))
    sent = n.value("TotalBytesSent", n.value("BytesSent", 0))
    pre_krpc = not n.name.startswith("Krpc")
    # The time the sender waited for a channel's previous RPC: KRPC's InactiveTotalTime. The Thrift
    # sender (2.x/3.x) times its WaitForRpc() only in the instance's TotalNetworkSendTime (an instance
    # has one sender) and leaves its own InactiveTotalTime 0.
    blocked = n.counters.get("InactiveTotalTime")
    if pre_krpc and not (blocked and blocked.value) and inst.node.counters.get("TotalNetworkSendTime"):
        blocked = inst.node.counters["TotalNetworkSendTime"]
    return Sender(inst, int(rows), int(sent), n.value("UncompressedRowBatchSize"), rpcs,
                  int(eos) if eos is not None else None,
                  int(rpc_success) if rpc_success is not None else None,
                  seconds(blocked) or 0.0,
                  seconds(n.counters.get("SerializeBatchTime")) or 0.0,
                  seconds(n.counters.get("TransmitDataTime")) or 0.0,
                  seconds(n.counters.get("TotalTime")) or 0.0, net, _summary(n, "RpcRecvrTime"),
                  pre_krpc=pre_krpc)


def _read_receiver(inst, n):
    """Receiver counters: KRPC's Enqueue/Dequeue children (3.x-5.0), else the counters the Thrift
    receiver (data-stream-recvr.cc at 2.7.0 / 3.0.0) keeps on the exchange node itself:
    BytesReceived, SendersBlockedTimer (wall time some sender was blocked on a full queue, the
    counterpart of TotalHasDeferredRPCsTime), DeserializeRowBatchTimer; its data-arrival wait is the
    node's InactiveTotalTime. Counts a version does not keep are None."""
    enq = n.child("Enqueue") if n is not None else None
    deq = n.child("Dequeue") if n is not None else None

    def v(node, name, default=0):
        return node.value(name, default) if node is not None else default

    def s(node, name):
        return (seconds(node.counters.get(name)) or 0.0) if node is not None else 0.0

    def t(node, name):
        return seconds(node.counters.get(name)) if node is not None else None

    if enq is not None:
        deferred = v(enq, "TotalRPCsDeferred", None)
        return Receiver(inst, int(v(n, "RowsReturned")), int(v(enq, "TotalBytesReceived")),
                        int(v(enq, "TotalBatchesReceived")), int(v(deq, "TotalBytesDequeued")),
                        int(deferred) if deferred is not None else None, s(enq, "TotalHasDeferredRPCsTime"),
                        # DataWaitTime: a child of TotalGetBatchTime in Dequeue (older KRPC: on the node)
                        s(deq, "DataWaitTime") or s(n, "DataWaitTime"),
                        s(deq, "FirstBatchWaitTime"), s(enq, "DeserializeRowBatchTime"),
                        int(v(enq, "TotalEosReceived")), dispatch=_summary(enq, "DispatchTime"))
    wait = t(n, "DataWaitTime")
    if wait is None:
        wait = t(n, "DataArrivalTimer")
    if wait is None:
        wait = t(n, "InactiveTotalTime")
    return Receiver(inst, int(v(n, "RowsReturned")), int(v(n, "TotalBytesReceived", v(n, "BytesReceived"))),
                    None, None, None, s(n, "SendersBlockedTimer"), wait or 0.0,
                    s(n, "FirstBatchArrivalWaitTime"), s(n, "DeserializeRowBatchTimer"), None, pre_krpc=True)
