"""Plans printed at the standard explain level, completed with what the verbose level prints.

Impala's TPC-H planner test (tpch-all.test) prints its plans at the standard explain level: no
`Fnn:PLAN FRAGMENT` headers, no tuple ids, no row size or cardinality on exchanges (a separate
join build opens with a bare `JOIN BUILD` line). The generator reads plans at the verbose level.
`complete(plan)` derives what is missing from the plan's own structure, by Impala's rules:

- Fragments: an exchange's input starts a fragment (its sender); the root's is the coordinator's.
  A fragment's partition is that of its leftmost input, as Impala's planner sets a fragment's
  data partition (DistributedPlanner): a scan's fragment is RANDOM, one reading a hash exchange
  is HASH(its keys), one reading an unpartitioned or merging exchange UNPARTITIONED. Fragments
  are numbered F00 (the root) onwards in the order the plan prints them; the planner's own
  numbers are not printed. A join build the parser read from its `JOIN BUILD` line keeps its
  fragment. Hosts and instances, given the cluster the plan was made for, are what the verbose
  level would print: an unpartitioned fragment runs on 1 host; a scan's fragment on as many as its
  largest scan has ranges (its file's blocks of ddl.BLOCK_BYTES), at most every executor; any other
  on every executor; at mt_dop 0 one instance a host, at mt_dop N a scan's fragment
  min(N, ranges per host) a host and any other N (a join build: its join's fragment's). Impala's
  join rule needs them: with them it reproduces every join choice tpch-all.test prints.
- Tuples: a node that materializes rows makes a tuple of its own (a scan, an aggregation, a
  sort, a top-n, a union; an analytic evaluation adds one to its input's), a join's row is its
  inputs' tuples (a semi or anti join's: the side it returns), every other node passes its
  input's on. Tuple ids are numbered here; the row sizes printed on each node size them.
- An exchange's row size and cardinality are its input's (it forwards every row).
"""

import math

from tools.tpcds import PlanError
from tools.tpcds.ddl import BLOCK_BYTES
from tools.tpcds.plans import EXCHANGE_KINDS, Fragment, exchange_kind

# Nodes that materialize their output rows into a tuple of their own (PlanNode.tupleIds_).
OWN_TUPLE = ("SCAN HDFS", "AGGREGATE", "SORT", "TOP-N", "UNION")


def complete(plan, executors=None, mt_dop=0):
    """Give a plan read without fragment headers (plans.parse_lines(fragment_headers=False)) its
    fragments, exchange senders, tuple ids and exchange rows, and, given the `executors` and
    `mt_dop` it was planned for, each fragment's hosts and instances. Returns the plan."""
    builds = {n.nid: n.fragment for n in plan.nodes.values()
              if n.fragment is not None and n.fragment.join_build
              and (n.parent is None or n.parent.fragment is not n.fragment)}
    frags = {}
    made = [0]

    def new_fragment(top):
        fr = Fragment("F%02d" % made[0], "", 0, 0, top.line, "")
        made[0] += 1
        frags[fr.fid] = fr
        return fr

    def assign(node, frag):
        if node.nid in builds:
            frag = builds[node.nid]
            frags.setdefault(frag.fid, frag)
        node.fragment = frag
        for c in node.children:
            if node.kind in EXCHANGE_KINDS:
                node.sender = new_fragment(c)
                assign(c, node.sender)
            else:
                assign(c, frag)

    assign(plan.root, new_fragment(plan.root))
    tops = {}
    for n in sorted(plan.nodes.values(), key=lambda n: n.line):
        tops.setdefault(n.fragment.fid, n)
    for fid, fr in frags.items():
        if not fr.join_build:
            fr.part = _partition(tops[fid], plan.where)
    plan.frags = dict(sorted(frags.items()))
    if executors is not None:
        _hosts(plan, executors, mt_dop)
    counter = [0]
    _tuples(plan.root, counter, plan.where)
    return plan


def _hosts(plan, executors, mt_dop):
    nodes = {}
    for n in plan.nodes.values():
        nodes.setdefault(n.fragment.fid, []).append(n)
    builds = []
    for fid, fr in plan.frags.items():
        if fr.join_build:
            builds.append(fr)
            continue
        ranges = [max(1, math.ceil(s.hdfs["size_bytes"] / BLOCK_BYTES)) for s in nodes[fid]
                  if s.kind == "SCAN HDFS" and s.hdfs is not None]
        if fr.part == "UNPARTITIONED":
            fr.hosts, per = 1, 1
        elif fr.part == "RANDOM" and ranges:
            fr.hosts = min(executors, max(ranges))
            per = 1 if mt_dop == 0 else min(mt_dop, math.ceil(max(ranges) / fr.hosts))
        else:
            fr.hosts, per = executors, max(1, mt_dop)
        fr.instances = fr.hosts * per
    for fr in builds:
        # the fragment of the join it builds for: the parent of its top node
        top = min((n for n in plan.nodes.values() if n.fragment is fr), key=lambda n: n.line)
        joined = top.parent.fragment
        fr.hosts, fr.instances = joined.hosts, joined.instances


def _partition(top, where):
    """The data partition of the fragment whose first printed node is `top`: its leftmost input's."""
    n = top
    while n.children and n.kind not in EXCHANGE_KINDS and n.children[0].fragment is n.fragment:
        n = n.children[0]
    if n.kind == "SCAN HDFS":
        return "RANDOM"
    if n.kind in EXCHANGE_KINDS:
        kind = exchange_kind(n)
        if kind == "HASH":
            return n.bracket.strip("[]")
        if kind in ("UNPARTITIONED", "MERGING"):
            return "UNPARTITIONED"
        raise PlanError("%s: fragment of node %d reads a %s exchange at its leftmost leaf" % (where, top.nid, kind))
    # no scan or exchange below (a constant union, say): it runs on the coordinator
    return "UNPARTITIONED"


def _tuples(node, counter, where):
    for c in node.children:
        _tuples(c, counter, where)

    def fresh():
        counter[0] += 1
        return str(counter[0] - 1)

    k = node.kind
    kids = node.children
    if k in EXCHANGE_KINDS:
        src = kids[0]
        node.tuple_ids = list(src.tuple_ids)
        if node.row_size is None:
            node.row_size, node.row_size_text = src.row_size, src.row_size_text
        if node.card is None:
            node.card, node.card_text = src.card, src.card_text
    elif k in OWN_TUPLE:
        node.tuple_ids = [fresh()]
    elif k == "ANALYTIC":
        node.tuple_ids = list(kids[0].tuple_ids) + [fresh()]
    elif k in ("HASH JOIN", "NESTED LOOP JOIN"):
        jt = node.join_type
        if "SEMI" in jt or "ANTI" in jt:
            side = kids[1] if jt.startswith("RIGHT") else kids[0]
            node.tuple_ids = list(side.tuple_ids)
        else:
            node.tuple_ids = [t for c in kids for t in c.tuple_ids]
    elif kids:
        node.tuple_ids = list(kids[0].tuple_ids)
    else:
        raise PlanError("%s: node %d:%s has no input and makes no tuple" % (where, node.nid, k))
