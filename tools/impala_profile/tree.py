"""The neutral tree every encoding of an Impala profile is read into (decode.py reads JSON and
Thrift, text.py the text rendering): a query's ProfileDoc, its Nodes with their Counters and
SummaryStats, and the explosion of an aggregated fragment into per-instance nodes.
"""

from dataclasses import dataclass, field


class ProfileError(Exception):
    """The input is not a usable Impala profile; the message names the file and what is wrong."""


@dataclass
class Counter:
    unit: str
    value: float  # int for every unit but DOUBLE_VALUE
    stats: dict | None = None  # aggregated JSON rendering: count/min/max/mean over the instances


@dataclass
class SummaryStat:
    """A SummaryStatsCounter: `count` samples of mean `mean` (RpcNetworkTime: one sample per RPC)."""
    unit: str
    count: int
    mean: float
    min: float
    max: float

    @property
    def sum(self):
        return self.mean * self.count


@dataclass
class Node:
    name: str
    counters: dict = field(default_factory=dict)  # name -> Counter
    info: dict = field(default_factory=dict)  # key -> str
    summary: dict = field(default_factory=dict)  # name -> SummaryStat
    events: list = field(default_factory=list)  # [(sequence name or "", [(label, ns), ...])]
    series: list = field(default_factory=list)  # names of time-series counters (kept only to list them)
    children: list = field(default_factory=list, repr=False)
    plan_node_id: int | None = None
    data_sink_id: int | None = None

    def child(self, prefix):
        for c in self.children:
            if c.name.startswith(prefix):
                return c
        return None

    def value(self, name, default=None):
        c = self.counters.get(name)
        return default if c is None else c.value


@dataclass
class ProfileDoc:
    """One query's profile tree, as decoded from one object or line of a file."""
    root: Node
    where: str  # "FILE" or "FILE:line N" / "FILE: object N", for messages
    encoding: str  # how it was stored, for the provenance
    profile_version: int  # 1, or 2 for an aggregated profile
    approximate: bool = False  # per-instance values reconstructed from aggregates
    exec_state: str | None = None  # from the Thrift exec summary, when present
    exec_errors: list = field(default_factory=list)


def explode_aggregate(frag, names):
    """An aggregated fragment node -> a fragment node with one instance child per name, each
    carrying the fragment's (mean) counters. A summary statistic of an aggregated profile is
    merged over the instances, so each instance gets its share of the samples (same mean)."""
    shell = Node(frag.name)
    n = len(names)

    def shared(node):
        out = Node(node.name, counters=node.counters, info=node.info, events=node.events, series=node.series,
                   plan_node_id=node.plan_node_id, data_sink_id=node.data_sink_id)
        out.children = [shared(c) for c in node.children]
        return out

    for k, name in enumerate(names):
        inst = shared(frag)
        inst.name = name
        _share_samples(inst, frag, k, n)
        shell.children.append(inst)
    return shell


def _share_samples(inst, orig, k, n):
    for name, st in orig.summary.items():
        count = st.count // n + (1 if k < st.count % n else 0)
        inst.summary[name] = SummaryStat(st.unit, count, st.mean, st.min, st.max)
    for ci, co in zip(inst.children, orig.children):
        _share_samples(ci, co, k, n)
