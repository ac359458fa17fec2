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
  fragment. Instances and hosts stay 0 (not printed; the generator places fragments itself).
- Tuples: a node that materializes rows makes a tuple of its own (a scan, an aggregation, a
  sort, a top-n, a union; an analytic evaluation adds one to its input's), a join's row is its
  inputs' tuples (a semi or anti join's: the side it returns), every other node passes its
  input's on. Tuple ids are numbered here; the row sizes printed on each node size them.
- An exchange's row size and cardinality are its input's (it forwards every row).
"""

from tools.tpcds import PlanError
from tools.tpcds.plans import EXCHANGE_KINDS, Fragment, exchange_kind

# Nodes that materialize their output rows into a tuple of their own (PlanNode.tupleIds_).
OWN_TUPLE = ("SCAN HDFS", "AGGREGATE", "SORT", "TOP-N", "UNION")


def complete(plan):
    """Give a plan read without fragment headers (plans.parse_lines(fragment_headers=False)) its
    fragments, exchange senders, tuple ids and exchange rows. Returns the plan."""
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
    counter = [0]
    _tuples(plan.root, counter, plan.where)
    return plan


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
