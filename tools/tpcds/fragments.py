"""A scaled plan tree -> the scenario's fragments, operators and exchanges (schema_version 2).

Two shapes of the same query (README "Plans per mt_dop"):
- mt_dop=0 (`fragments`/`exchanges` of the query): the plan's separate JOIN BUILD fragments are
  folded back into the fragment of their join (Impala builds inside the probe fragment at
  mt_dop=0, on a thread of its own), so the build side's subtree becomes the join's `build`;
- mt_dop>0 (`parallel`): the plan as printed, JOIN BUILD fragments kept (`build`:
  {"fragment": ...}, sink `join_build`), broadcast builds shared by the probe instances of an
  executor.

Placement on the 5 executors (README "Placement"): a fragment whose leftmost leaf is a scan runs
on min(5, scan ranges) executors; a fragment fed by an exchange on its leftmost leaf copies the
executors of the fragment that sends it; UNPARTITIONED fragments run one instance, the root one on
executor 0 (the coordinator). Instances per executor are left to the simulator's rule
(`instances_per_executor` 0, models/query/plan.cpp); `instances()` computes the same rule for a
nominal mt_dop, which the planner's choices (joins.py) and the row estimates of per-instance
operators (scaling.py) use; what runs per instance (a partitioned top-n's share) is the simulator's.
"""

import math
import zlib

from tools.tpcds import EXECUTORS, PlanError
from tools.tpcds.ddl import scan_ranges
from tools.tpcds.filters import scan_filters
from tools.tpcds.plans import EXCHANGE_KINDS, exchange_kind, fragment_nodes
from tools.tpcds.compression import exchange_ratio
from tools.tpcds.rowsize import exchange_row_small_strings
from tools.tpcds.scaling import fmt_rows

KIND_TO_PARTITIONING = {"HASH": "HASH_PARTITIONED", "BROADCAST": "UNPARTITIONED", "UNPARTITIONED": "UNPARTITIONED",
                        "MERGING": "UNPARTITIONED", "RANDOM": "RANDOM"}
PARALLEL_MT_DOP = 8   # nominal mt_dop of the `parallel` plan's row estimates (calibration-data.md A: mt_dop=8)
# The two shapes of every query: the plan file's section each is built from, whether JOIN BUILD
# fragments fold into their join, and the nominal mt_dop of its row estimates.
SECTIONS = {"mt_dop=0": ("DISTRIBUTEDPLAN", True, 0), "parallel": ("PARALLELPLANS", False, PARALLEL_MT_DOP)}


class Built:
    """One query of the workload: its scenario JSON and what the README reports about it."""

    def __init__(self, name, doc, stats):
        self.name = name
        self.doc = doc
        self.stats = stats


def R(x):
    """Rule R1: rows as an integer, at least 1 if positive."""
    r = int(round(x))
    return 1 if x > 0 and r == 0 else r


class Shape:
    """Fragment structure of one plan tree: which fragment each node runs in (after folding join
    builds at mt_dop=0), and each fragment's placement and nominal instance count."""

    def __init__(self, root, fold, schema, mt_dop, base_scale=None, executors=EXECUTORS):
        self.root = root
        self.executors = executors   # the target cluster's executors (the measured cluster's by default)
        self.fold = fold
        self.schema = schema
        self.mt_dop = mt_dop
        self.base_scale = schema.stats_scale if base_scale is None else base_scale  # the plan's rows' scale
        self.frag_of = {}       # node id -> Fragment (effective)
        self.frag_nodes = {}    # fid -> root node of the fragment
        self.sink = {}          # fid -> ("result",) | ("exchange", node) | ("join_build", join node)
        self.order = []         # fids, root first, depth first
        self._assign(root, root.fragment, ("result",))
        self.place = {}         # fid -> (executors, first, why)
        self.inst = {}          # fid -> nominal instances in total
        self.ranges = {}        # scan node id -> (ranges, why)
        for fid in self.order:
            self._place(fid)

    def _assign(self, node, frag, sink):
        if frag.fid not in self.frag_nodes:
            self.frag_nodes[frag.fid] = node
            self.sink[frag.fid] = sink
            self.order.append(frag.fid)
        self.frag_of[node.nid] = frag
        for c in node.children:
            if node.kind in EXCHANGE_KINDS:
                self._assign(c, c.fragment, ("exchange", node))
            elif c.fragment is node.fragment or (self.fold and c.fragment.join_build):
                self._assign(c, frag, sink)
            elif c.fragment.join_build:
                self._assign(c, c.fragment, ("join_build", node))
            else:
                raise PlanError("node %d: child %d is in fragment %s without an exchange or join build" % (
                    node.nid, c.nid, c.fragment.fid))

    def nodes_in(self, fid):
        return fragment_nodes(self.frag_nodes[fid],
                              lambda n: self.frag_of.get(n.nid) is not None and self.frag_of[n.nid].fid == fid)

    def leftmost_leaf(self, fid):
        n = self.frag_nodes[fid]
        while n.children and n.kind not in EXCHANGE_KINDS:
            nxt = n.children[0]
            if self.frag_of[nxt.nid].fid != fid:
                break
            n = nxt
        return n

    def scan_ranges(self, node):
        if node.nid not in self.ranges:
            self.ranges[node.nid] = scan_ranges(node.table, node.hdfs, self.schema)
        return self.ranges[node.nid]

    def _place(self, fid):
        if fid in self.place:
            return self.place[fid]
        root = self.frag_nodes[fid]
        frag = self.frag_of[root.nid]
        sink = self.sink[fid]
        leaf = self.leftmost_leaf(fid)
        scans = [n for n in self.nodes_in(fid) if n.kind == "SCAN HDFS"]
        if sink[0] == "result":
            place = (1, 0, "the coordinator's fragment: 1 instance on executor 0")
            inst = 1
        elif sink[0] == "join_build":
            n, first, _ = self._place(self.frag_of[sink[1].nid].fid)
            shared = sink[1].distribution == "BROADCAST"
            probe_inst = self.inst[self.frag_of[sink[1].nid].fid]
            place = (n, first, "join build of node %d: on its probe fragment's executors, %s" % (
                sink[1].nid, "one build per executor shared by the probe instances (broadcast)" if shared
                else "one build per probe instance (partitioned)"))
            inst = n if shared else probe_inst
        elif frag.part == "UNPARTITIONED":
            if leaf.kind in EXCHANGE_KINDS:
                _, first, _ = self._place(self.frag_of[leaf.children[0].nid].fid)
            else:
                first = 0
            place = (1, first, "UNPARTITIONED fragment: 1 instance, on the executor of its first input")
            inst = 1
        elif leaf.kind == "SCAN HDFS" or (scans and leaf.kind not in EXCHANGE_KINDS):
            main = max(scans, key=lambda s: self.scan_ranges(s)[0]) if scans else leaf
            ranges, why = self.scan_ranges(main)
            n = min(self.executors, ranges)
            first = 0 if n == self.executors else zlib.crc32(main.table.encode()) % (self.executors - n + 1)
            place = (n, first, "scans %s: %s -> %s" % (
                main.table, why, "all executors" if n == self.executors else
                "executors %d..%d (first: crc32 of the table name, as a file keeps one host)" % (first, first + n - 1)))
            per = 1 if self.mt_dop == 0 else min(self.mt_dop, math.ceil(ranges / n))
            inst = n * per
        elif leaf.kind in EXCHANGE_KINDS:
            sfid = self.frag_of[leaf.children[0].nid].fid
            n, first, _ = self._place(sfid)
            place = (n, first, "copies the executors of %s, which feeds its leftmost input (exchange %d)" % (
                sfid, leaf.nid))
            inst = self.inst[sfid]
        else:
            place = (self.executors, 0, "no scan or exchange input: all executors")
            inst = self.executors * max(1, self.mt_dop)
        self.place[fid] = place
        self.inst[fid] = inst
        return place

    def instances(self, node):
        """Nominal instances of the fragment a node runs in."""
        return self.inst[self.frag_of[node.nid].fid]


class Converter:
    """Turns a scaled plan tree and its Shape into scenario JSON (one plan of one query)."""

    def __init__(self, shape, sizes, schema, name, notes=None, weights=None):
        self.shape = shape
        self.sizes = sizes          # RowSizes (layouts per tuple id)
        self.schema = schema
        self.name = name
        self.notes = notes or {}    # node id -> extra source text
        self.weights = weights or {}  # scan node id -> instance_weights
        self.exchanges = []

    def xid(self, node):
        return "x%02d" % node.nid

    def fid(self, fid):
        return fid

    def op(self, n):
        k = n.kind
        rows = R(n.card100)
        rows_inner = R(getattr(n, "card100_nolimit", n.card100))
        nid = str(n.nid)
        if k in EXCHANGE_KINDS:
            out = {"op": "exchange", "id": nid, "exchange": self.xid(n)}
            if n.limit is not None:
                out = {"op": "limit", "id": nid + "L", "rows": min(n.limit, R(n.card100)), "limit": n.limit,
                       "input": out}
            return out
        if k == "SCAN HDFS":
            tables, target = self.schema.tables, self.schema.target
            ratio = tables.rows(n.table, target) / tables.rows(n.table, self.shape.base_scale)
            if n.hdfs is None or n.hdfs["sel"] == n.hdfs["total"] or n.stored_rows is None:
                read = tables.rows(n.table, target)     # every partition: the table's rows at the target
            else:
                read = R(n.stored_rows * ratio)
            inner = {"op": "scan", "id": nid, "table": n.table, "rows": min(rows_inner, read), "rows_read": read,
                     "scan_ranges": self.shape.scan_ranges(n)[0]}
            if n.nid in self.weights:
                inner["instance_weights"] = self.weights[n.nid]
            rfs, note = scan_filters(n)
            if rfs:
                inner["runtime_filters"] = [{"join": str(j.nid), "keep": round(keep, 6)} for j, keep, _ in rfs]
                if note not in n.rule:
                    n.rule += "; " + note
        elif k in ("HASH JOIN", "NESTED LOOP JOIN"):
            inner = {"op": "hash_join" if k == "HASH JOIN" else "nested_loop_join", "id": nid, "rows": rows_inner,
                     "probe": self.op(n.children[0])}
            b = n.children[1]
            bf = self.shape.frag_of[b.nid]
            if bf.fid != self.shape.frag_of[n.nid].fid:
                inner["build"] = {"fragment": bf.fid}
                inner["shared"] = n.distribution == "BROADCAST"
            else:
                inner["build"] = self.op(b)
        elif k == "AGGREGATE":
            inner = {"op": "aggregate", "id": nid, "rows": rows_inner,
                     "phase": "streaming" if n.bracket == "[STREAMING]" else "finalize"}
            groups = getattr(n, "groups100", None)
            if groups is not None and inner["phase"] == "streaming":
                inner["groups"] = R(min(groups, n.children[0].card100))
            inner["input"] = self.op(n.children[0])
        elif k == "TOP-N":
            if n.limit is None:
                # A partitioned top-n (a partition limit): the simulator gives each instance its share
                # of the rows, from the instances it places.
                return {"op": "top_n", "id": nid, "rows": rows, "partitioned": True, "input": self.op(n.children[0])}
            return {"op": "top_n", "id": nid, "rows": rows, "limit": n.limit, "input": self.op(n.children[0])}
        elif k in ("SORT", "ANALYTIC", "SELECT", "CARDINALITY CHECK"):
            kind = {"SORT": "sort", "ANALYTIC": "analytic"}.get(k, "select")
            inner = {"op": kind, "id": nid, "rows": rows_inner, "input": self.op(n.children[0])}
        elif k == "UNION":
            inner = {"op": "union", "id": nid, "rows": rows_inner, "inputs": [self.op(c) for c in n.children]}
        else:
            raise PlanError("%s: node %d: no scenario operator for %s" % (self.name, n.nid, k))
        if n.limit is not None:
            return {"op": "limit", "id": nid + "L", "rows": rows, "limit": n.limit, "input": inner}
        return inner

    def fragment(self, fid):
        root = self.shape.frag_nodes[fid]
        sink = self.shape.sink[fid]
        n, first, why = self.shape.place[fid]
        out = {"id": fid, "executors": 0 if n == self.shape.executors else n, "first_executor": first,
               "instances_per_executor": 0, "root": self.op(root)}
        if sink[0] == "result":
            out["sink"] = {"result": True}
        elif sink[0] == "exchange":
            out["sink"] = {"exchange": self.xid(sink[1])}
        else:
            out["sink"] = {"join_build": str(sink[1].nid)}
        frag = self.shape.frag_of[root.nid]
        rules = "; ".join("%d %s %s: %s%s" % (x.nid, x.kind, fmt_rows(x.card100), x.rule,
                                              (" (" + self.notes[x.nid] + ")") if x.nid in self.notes else "")
                          for x in self.shape.nodes_in(fid) if x.kind not in EXCHANGE_KINDS)
        out["source"] = "%s %s: %s [%s] hosts=%d instances=%d%s in the plan -> %s; rows at SF%d: %s" % (
            getattr(self, "where", ""), "line %d" % frag.line if frag.line else "(a new fragment)", frag.fid, frag.part[:60] + ("..." if len(frag.part) > 60 else ""),
            frag.hosts, frag.instances, " JOIN BUILD" if frag.join_build else "", why, self.schema.target, rules or "none")
        return out

    def exchange(self, x):
        kind = exchange_kind(x)
        fixed, var, tuples, how = exchange_row_small_strings(self.sizes, x, self.schema)
        ratio, lz4_how = exchange_ratio(self.sizes, x, self.schema, scale=self.schema.target)
        e = {"id": self.xid(x), "partitioning": KIND_TO_PARTITIONING[kind]}
        if kind == "MERGING":
            e["merging"] = True
        e["fixed_row_bytes"] = fixed
        e["var_row_bytes"] = var
        e["tuples_per_row"] = min(64, tuples)
        e["compression_ratio"] = round(ratio, 4)
        how += "; C1 " + lz4_how
        send = self.shape.frag_of[x.children[0].nid].fid
        recv = self.shape.frag_of[x.nid].fid
        e["source"] = ("%s %s, node %d:%s %s%s; sender %s, receiver %s; rows: what %s's pipeline emits "
                       "(about %s at SF%d with the nominal instances); row: tuple-ids=%s planner row-size=%s -> "
                       "fixed %d B (slots + null bytes) + strings %d B: %s" % (
                           getattr(self, "where", ""), "line %d" % x.line if x.line else "(a new exchange)",
                           x.nid, x.kind, x.bracket[:70],
                           "..." if len(x.bracket) > 70 else "", send, recv, send, fmt_rows(x.card100), self.schema.target,
                           ",".join(x.tuple_ids), x.row_size_text, fixed, var, how))
        if x.nid in self.notes:
            e["source"] += "; " + self.notes[x.nid]
        return e

    def plan(self):
        frags = [self.fragment(fid) for fid in self.shape.order]
        xs = sorted((n for n in self._all_nodes() if n.kind in EXCHANGE_KINDS), key=lambda n: n.nid)
        return {"fragments": frags, "exchanges": [self.exchange(x) for x in xs]}

    def _all_nodes(self):
        out = []

        def walk(n):
            out.append(n)
            for c in n.children:
                walk(c)
        walk(self.shape.root)
        return out

