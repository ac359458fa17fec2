"""The eight benchmark statements without a plan file (q18a, q22a, q51a, q67a, q70a, q77a, q80a, q86a).

Impala has no planner test for them, so their plans are derived here from their own SQL
(apache/impala testdata/workloads/tpcds/queries/tpcds-decimal_v2-<q>.test at the plans' commit),
built from pieces of their base query's plan, in both plan shapes (mt_dop=0 and parallel):

- Seven are the ROLLUP queries written out (README "Variants"): a WITH view `results` and a UNION of
  one branch per rollup level, each reading `results` again. Impala inlines a WITH view at every
  reference, so each branch repeats the view's plan: the base plan's input of its ROLLUP
  aggregation (scans, joins and their exchanges), plus, where `results` groups itself (q67a, q70a,
  q77a, q80a, q86a), that grouping (pre-aggregation, hash exchange, merge). A level's own grouping
  is one more pre-aggregation, hash exchange and merge (a scalar one for the grand total: a
  partial aggregate, an UNPARTITIONED exchange, the final aggregate, and a RANDOM exchange into
  the union, as Impala's DistributedPlanner.createUnionNodeFragment connects an unpartitioned
  input). The union absorbs the partitioned branches' last fragments (same function). UNION
  DISTINCT (q70a, q77a, q80a, q86a) adds an aggregation over all columns (pre-aggregation, hash
  exchange, merge). Above it, the base plan's nodes above its ROLLUP's merge (the window's
  exchange, sort, analytic, top-n, the merging exchange) are kept, their rows following the
  union's.
- q51a rewrites q51's cumulative windows as self-joins: four copies of each channel's `tv`
  pipeline (the base plan's scan, date join, aggregation, hash exchange on the item, sort and
  window), joined in pairs on the item inside their fragment (both sides are partitioned on it:
  a co-located join), re-aggregated there, joined full outer across channels through hash
  exchanges on (d_date, item) as in q51, numbered by a window after a hash exchange on the item,
  and that view `v` twice, joined with itself on the item (co-located), re-aggregated, filtered,
  top-n and merged.

Rows: cloned nodes keep the base plan's SF100 rows; a new grouping emits the groups of the base
plan's ROLLUP class with the same columns where measured_rows.json counted it (rule M2), else
Impala's planner estimate of its groups (the product of its columns' distinct values at SF100, at
most its input); a range self-join on the item (rk >= rk) emits sum over items of n(n+1)/2 for n
rows per item, counted over q51's relations (rule M4), else taken as uniform (rows / all items).
"""

import copy
import os

from tools.tpcds import EXECUTORS, PlanError
from tools.tpcds.fragments import SECTIONS, Built, Converter, Shape
from tools.tpcds.plans import EXCHANGE_KINDS, VARIANT_BASE, Fragment, Node, parse_plan_file, query_sql
from tools.tpcds.rowsize import Layout, RowSizes, Slot
from tools.tpcds.scaling import Scaler, date_groups, preagg_output


# Per variant: the rollup levels (grouping columns of each UNION branch, in the SQL's order), the
# grouping of the view `results` itself (None: it does not group), whether the union is DISTINCT.
ROLLUPS = {
    "q18a": {"levels": [["i_item_id", "ca_country", "ca_state", "ca_county"], ["i_item_id", "ca_country", "ca_state"],
                        ["i_item_id", "ca_country"], ["i_item_id"], []], "results": None, "distinct": False},
    "q22a": {"levels": [["i_product_name", "i_brand", "i_class", "i_category"], ["i_product_name", "i_brand", "i_class"],
                        ["i_product_name", "i_brand"], ["i_product_name"], []], "results": None, "distinct": False},
    "q67a": {"levels": [None] + [["i_category", "i_class", "i_brand", "i_product_name", "d_year", "d_qoy", "d_moy"][:k]
                                 for k in range(7, -1, -1)],
             "results": ["i_category", "i_class", "i_brand", "i_product_name", "d_year", "d_qoy", "d_moy", "s_store_id"],
             "distinct": False},
    "q70a": {"levels": [None, ["s_state"], []], "results": ["s_state", "s_county"], "distinct": True},
    "q77a": {"levels": [None, ["channel"], []], "results": ["channel", "id"], "distinct": True},
    "q80a": {"levels": [None, ["channel"], []], "results": ["channel", "id"], "distinct": True},
    "q86a": {"levels": [None, ["i_category"], []], "results": ["i_category", "i_class"], "distinct": True},
}
# Distinct values of the union's computed columns (not TPC-DS columns): `channel` is one of three
# literals; `id` is a store, call center, web page (q77a) or store, catalog page, web site id (q80a).
COMPUTED_NDV = {"channel": lambda: 3, "id": None}

DERIVATIONS = {
    "q18a": "5 UNION ALL branches (levels of (i_item_id, ca_country, ca_state, ca_county)); each repeats q18's "
            "plan below its ROLLUP (catalog_sales with 6 broadcast joins) and groups by its level: pre-aggregation, "
            "hash exchange, merge (the total: UNPARTITIONED exchange and a RANDOM one into the union); top-n and "
            "the merging exchange from q18",
    "q22a": "5 UNION ALL branches (levels of (i_product_name, i_brand, i_class, i_category)); each repeats q22's "
            "plan below its ROLLUP (inventory with 3 broadcast joins) and groups by its level; top-n and the "
            "merging exchange from q22",
    "q51a": "q51's web and store `tv` pipelines (scan, date join, aggregation, hash exchange on the item, sort, "
            "row_number window) four times each: two self-joins per channel on the item (co-located), each "
            "re-aggregated; the full outer join of the channels through hash exchanges on (d_date, item) as in "
            "q51; a window after a hash exchange on the item; that view twice, self-joined on the item "
            "(co-located), re-aggregated, filtered (10%, the planner's default as in q51), top-n, merging exchange",
    "q67a": "9 UNION ALL branches; each repeats q67's plan below its ROLLUP (store_sales with 3 broadcast joins) "
            "and `results`' grouping by 8 columns (pre-aggregation, hash exchange, merge); branches 2-9 group "
            "again by their level (pre-aggregation, hash exchange, merge; the total: UNPARTITIONED and RANDOM "
            "exchanges); the rank window (hash exchange on i_category), filter, top-n and merging exchange from q67",
    "q70a": "3 UNION DISTINCT branches (detail, by s_state, total); each repeats q70's plan below its ROLLUP "
            "(store_sales, date and store joins, the s_state IN subquery with its own window) and `results`' "
            "grouping by (s_state, s_county); a DISTINCT aggregation over the union; the rank window, top-n and "
            "merging exchange from q70",
    "q77a": "3 UNION DISTINCT branches (detail, by channel, total); each repeats q77's plan below its ROLLUP "
            "(the union of the three channels' aggregated sales and returns) and `results`' grouping by "
            "(channel, id); a DISTINCT aggregation over the union; top-n and merging exchange from q77",
    "q80a": "3 UNION DISTINCT branches (detail, by channel, total); each repeats q80's plan below its ROLLUP "
            "(the union of the three channels' sales with returns, date, item and promotion joins) and "
            "`results`' grouping by (channel, id); a DISTINCT aggregation; top-n and merging exchange from q80",
    "q86a": "3 UNION DISTINCT branches (detail, by i_category, total); each repeats q86's plan below its ROLLUP "
            "(web_sales with date and item joins) and `results`' grouping by (i_category, i_class); a DISTINCT "
            "aggregation; the rank window, top-n and merging exchange from q86",
}


class Builder:
    """Makes a plan tree of plans.Node/Fragment from pieces of a base plan and new nodes."""

    def __init__(self, name, base_plan, base_sizes, schema, scaler):
        self.name = name
        self.base = base_plan
        self.schema = schema
        self.scaler = scaler
        self.next_nid = max(base_plan.nodes) + 1
        self.next_fid = max(int(f[1:]) for f in base_plan.frags) + 1
        self.next_tid = 1000
        self.layouts = dict(base_sizes.layouts)
        self.derived = {}     # new node id -> rows function(shape) (evaluated bottom-up after placement)
        self.nodes = []

    def nid(self):
        self.next_nid += 1
        return self.next_nid - 1

    def fragment(self, part, hosts=10, instances=10, join_build=False):
        f = Fragment("F%02d" % self.next_fid, part, hosts, instances, 0, "(derived)")
        f.join_build = join_build
        self.next_fid += 1
        return f

    def copy_fragment(self, fragment, fmap):
        """The copy of `fragment` in a cloned subtree: made with the next fragment id the first
        time, then the same one (`fmap`: base fragment id -> copy)."""
        if fragment.fid not in fmap:
            nf = copy.copy(fragment)
            nf.fid = "F%02d" % self.next_fid
            self.next_fid += 1
            fmap[fragment.fid] = nf
        return fmap[fragment.fid]

    def clone(self, node, fmap=None, parent_frag=None):
        """Deep copy of a base subtree with new node and fragment ids, rows and rules kept."""
        fmap = {} if fmap is None else fmap
        c = copy.copy(node)
        c.nid = self.nid()
        c.base_nid = getattr(node, "base_nid", node.nid)
        c.fragment = self.copy_fragment(node.fragment, fmap)
        c.rule = "as %s node %d: %s" % (self.base.where, c.base_nid, node.rule)
        c.children = [self.clone(ch, fmap) for ch in node.children]
        for ch in c.children:
            ch.parent = c
        if node.kind in EXCHANGE_KINDS:
            c.sender = c.children[0].fragment
        self.nodes.append(c)
        return c

    def node(self, kind, bracket, frag, children, tuple_ids, rule, rows_fn, limit=None, groups_fn=None):
        n = Node(self.nid(), kind, bracket, 0)
        n.fragment = frag
        n.children = list(children)
        for ch in n.children:
            ch.parent = n
        n.tuple_ids = list(tuple_ids)
        n.row_size = sum(self.layouts[RowSizes.tid(t)].planner for t in tuple_ids)
        n.row_size_text = "%.0fB (derived)" % n.row_size
        n.card = n.card100 = 0.0
        n.rule = rule
        n.limit = limit
        if kind in EXCHANGE_KINDS:
            n.sender = n.children[0].fragment
        self.derived[n.nid] = (rows_fn, groups_fn)
        self.nodes.append(n)
        return n

    def layout(self, slots, how):
        tid = str(self.next_tid)
        self.next_tid += 1
        self.layouts[tid] = Layout(tid, slots, how)
        return tid

    def ndv(self, col):
        """Distinct values of a grouping column at SF100 (Impala's planner: NDV, scaled as rule A1)."""
        c = self.schema.column(col)
        if c is None:
            if col == "channel":
                return 3.0
            return None
        r, _ = self.scaler.column_ratio(c.name)
        return max(1.0, c.ndv * r)

    def groups(self, cols, rows_in, id_rows=None):
        """Planner estimate of the groups of `cols` at SF100 (rule A1 with Impala's tuple cap,
        IMPALA-13405, Impala 4.5+; apache/impala b21595276c AggregationNode.java 500-609): the
        columns of one table give at most that table's rows (the product of their distinct values
        capped at its SF100 row count), the tables' caps and the other columns' distinct values
        multiply, and the whole is at most the input. `id_rows`: distinct values of a computed id
        column (its source rows)."""
        per_table = {}
        g = 1.0
        for col in cols:
            v = self.ndv(col)
            c = self.schema.column(col)
            if v is None:
                g *= id_rows if id_rows is not None else rows_in
            elif c is None:
                g *= v
            else:
                per_table[c.table] = per_table.get(c.table, 1.0) * v
        for table, v in sorted(per_table.items()):
            cap = self.schema.tables.rows(table, self.schema.target)
            if table == "date_dim":
                days = self.date_days()
                dg = date_groups(sorted(c for c in cols if self.schema.column(c) is not None
                                        and self.schema.column(c).table == "date_dim"), days) if days else None
                if dg is not None:
                    cap = min(cap, dg)     # rule A4: the calendar of the days the base plan's scan keeps
            g *= min(v, cap)
        return min(g, rows_in)

    def measured_groups(self, pre, cols):
        """The SF100 groups of the base plan's ROLLUP class (of its pre-aggregation `pre`) that groups by
        exactly `cols`, as counted on TPC-DS data (measured_rows.json `classes`, rule M2), or None."""
        rec = self.scaler.measured.get(str(pre.nid), {})
        want = {c.split(".")[-1] for c in cols}
        for k in rec.get("classes", []):
            if "rows" in k and {c[1] for c in k["group_columns"] if c} == want and None not in k["group_columns"]:
                return k["rows"]
        return None

    def date_days(self):
        """Days the base plan's one date_dim scan keeps at SF100, or None (several or none)."""
        scans = [n for n in self.base.nodes.values() if n.kind == "SCAN HDFS" and n.table == "date_dim"]
        return scans[0].card100 if len(scans) == 1 and scans[0].card100 else None


def _agg_pipeline(b, top, cols, tid, what, groups_of, label=None):
    """Pre-aggregation over `top` (in top's fragment), exchange, merge aggregation in a new fragment.
    groups_of(rows in): the groups at SF100 for the pre-aggregation's input rows. Returns (merge,
    its fragment)."""
    shown = label or ",".join(cols)
    if cols:
        pre = b.node("AGGREGATE", "[STREAMING]", top.fragment, [top], [tid],
                     "A1 %s: pre-aggregation, its groups once per instance" % what,
                     lambda sh, n: preagg_output(groups_of(n.children[0].card100), n.children[0].card100,
                                                 sh.instances(n))[1],
                     groups_fn=lambda sh, n: preagg_output(groups_of(n.children[0].card100), n.children[0].card100,
                                                           sh.instances(n))[0])
        frag = b.fragment("HASH(%s)" % shown)
        x = b.node("EXCHANGE", "[HASH(%s)]" % shown, frag, [pre], [tid], "exchange",
                   lambda sh, n: n.children[0].card100)
        m = b.node("AGGREGATE", "[FINALIZE]", frag, [x], [tid], "A1 %s: merge, its groups" % what,
                   lambda sh, n: min(n.children[0].card100, groups_of(n.children[0].children[0].children[0].card100)))
    else:
        pre = b.node("AGGREGATE", "", top.fragment, [top], [tid], "A2 %s: partial aggregate, one row per instance" % what,
                     lambda sh, n: float(sh.instances(n)))
        frag = b.fragment("UNPARTITIONED", 1, 1)
        x = b.node("EXCHANGE", "[UNPARTITIONED]", frag, [pre], [tid], "exchange", lambda sh, n: n.children[0].card100)
        m = b.node("AGGREGATE", "[FINALIZE]", frag, [x], [tid], "A2 %s: the total, one row" % what,
                   lambda sh, n: 1.0)
    return m, frag


def _find_rollup(plan):
    """The base plan's multi-class (ROLLUP) pre-aggregation, its merge and the node above the merge."""
    pres = [n for n in plan.nodes.values() if n.kind == "AGGREGATE" and n.bracket == "[STREAMING]" and n.classes > 1]
    if len(pres) != 1:
        raise PlanError("%s: expected one multi-class pre-aggregation, found %d" % (plan.where, len(pres)))
    pre = pres[0]
    merge = pre.parent.parent
    top = merge.parent
    if merge.kind != "AGGREGATE" or top is None or top.kind != "AGGREGATE":
        raise PlanError("%s: the ROLLUP's merge and its transposition aggregation were not found" % plan.where)
    return pre, merge, top


def _class_layout(b, pre, cols, sizes):
    """The layout of the base ROLLUP class whose grouping columns are `cols` (set equality)."""
    want = set(cols)
    for i, g in enumerate(pre.group_by):
        names = {e.strip().split(".")[-1] for e in g.split(",") if e.strip().upper() != "NULL"}
        if names == want:
            return RowSizes.tid(pre.tuple_ids[i])
    raise PlanError("%s: no ROLLUP class groups by %s" % (b.base.where, ", ".join(cols) or "nothing"))


def rollup_variant(q, base_stem, plans, schema, section, fold, mt_dop, executors):
    spec = ROLLUPS[q]
    path = os.path.join(plans, "tpcds-%s.test" % base_stem)
    plan, data = parse_plan_file(path, section)
    shape0 = Shape(plan.root, fold, schema, mt_dop, executors=executors)
    scaler = Scaler(schema, shape0.instances, base_stem, measured=schema.measured_nodes(base_stem, section))
    scaler.scale(plan.root)
    sizes = RowSizes(plan, schema, query_sql(data.decode("utf-8")))
    b = Builder(q, plan, sizes, schema, scaler)
    pre, merge, trans = _find_rollup(plan)
    src = pre.children[0]
    full = spec["levels"][0] if spec["levels"][0] is not None else spec["results"]
    union_frag = b.fragment("RANDOM")
    inputs = []
    res_cols = spec["results"]

    def grouping(cols, what):
        """(what, groups at SF100 for the input rows): the base plan's ROLLUP class of the same columns
        where it was counted (M2), else the planner's estimate (A1)."""
        m = b.measured_groups(pre, cols) if cols else None
        if m is None:
            return what, lambda rows: b.groups(cols, rows)
        return "%s (M2: %s groups, the base plan's ROLLUP class counted)" % (what, "{:,.0f}".format(m)), (
            lambda rows: min(m, rows))

    for level in spec["levels"]:
        top = b.clone(src)
        frag = top.fragment
        if res_cols is not None:
            tid = _class_layout(b, pre, res_cols, sizes)
            what, groups_of = grouping(res_cols, "`results` grouped by (%s)" % ", ".join(res_cols))
            top, frag = _agg_pipeline(b, top, res_cols, tid, what, groups_of)
        if level is not None:
            tid = _class_layout(b, pre, level, sizes)
            what, groups_of = grouping(level, "level (%s)" % ", ".join(level) if level else "the total")
            top, frag = _agg_pipeline(b, top, level, tid, what, groups_of)
        if frag.part == "UNPARTITIONED":
            # An unpartitioned input reaches the union through a RANDOM exchange.
            x = b.node("EXCHANGE", "[RANDOM]", union_frag, [top], top.tuple_ids, "exchange",
                       lambda sh, n: n.children[0].card100)
            inputs.append(x)
        else:
            _move(top, frag, union_frag)
            inputs.append(top)
    utid = _class_layout(b, pre, full, sizes)
    union = b.node("UNION", "", union_frag, inputs, [utid], "U1 union of the branches: the sum of their rows",
                   lambda sh, n: sum(c.card100 for c in n.children))
    head = union
    if spec["distinct"]:
        head, _ = _agg_pipeline(b, union, ["*"], utid, "UNION DISTINCT over all columns (the levels' rows "
                                "differ: every row is a group)", lambda rows: rows, label="all columns")
    # The base plan above its ROLLUP's transposition aggregation, on top of the union.
    tail_root = _clone_tail(b, plan.root, trans, head)
    root = tail_root
    _derive_rows(b, root, fold, schema, mt_dop, executors)
    notes = {}
    conv = Converter(b.shape, _Sizes(b.layouts), schema, q, notes=notes)
    conv.where = "derived from %s" % plan.where
    return conv.plan(), b


class _Sizes:
    def __init__(self, layouts):
        self.layouts = layouts


def _move(node, old, new):
    """Put the nodes of fragment `old` reachable from `node` (without crossing an exchange) into `new`."""
    if node.fragment is not old:
        return
    node.fragment = new
    if node.kind in EXCHANGE_KINDS:
        return
    for c in node.children:
        _move(c, old, new)


def _clone_tail(b, root, trans, head):
    """Copy the base plan from its root down to (not including) `trans`, with `head` in its place.
    Nodes in trans's fragment join head's fragment."""
    fmap = {trans.fragment.fid: head.fragment}

    def rec(n):
        if n is trans:
            return head
        c = copy.copy(n)
        c.nid = b.nid()
        c.base_nid = n.nid
        c.fragment = b.copy_fragment(n.fragment, fmap)
        c.children = [rec(ch) for ch in n.children]
        for ch in c.children:
            ch.parent = c
        if n.kind in EXCHANGE_KINDS:
            c.sender = c.children[0].fragment
        base_in = sum(ch.card100 for ch in n.children) or 1.0
        limit = n.limit

        def rows(sh, node, c100=n.card100_nolimit if hasattr(n, "card100_nolimit") else n.card100,
                 base_in=base_in, limit=limit, kind=n.kind):
            inp = sum(ch.card100 for ch in node.children)
            r = c100 * (inp / base_in) if base_in else c100
            if kind in EXCHANGE_KINDS:
                return inp
            if limit is not None:
                node.card100_nolimit = r if kind != "TOP-N" else inp
                return min(limit * sh.instances(node), inp if kind == "TOP-N" else r)
            return r
        c.rule = "as %s node %d, rows x (its input here / its input there)" % (b.base.where, n.nid)
        b.derived[c.nid] = (rows, None)
        b.nodes.append(c)
        return c
    return rec(root)


def _derive_rows(b, root, fold, schema, mt_dop, executors):
    """Place the fragments, then compute the rows of the new nodes bottom-up."""
    b.shape = Shape(root, fold, schema, mt_dop, executors=executors)

    def rec(n):
        for c in n.children:
            rec(c)
        if n.nid in b.derived:
            rows_fn, groups_fn = b.derived[n.nid]
            n.card100 = float(rows_fn(b.shape, n))
            if not hasattr(n, "card100_nolimit") or n.limit is None:
                n.card100_nolimit = n.card100
            n.card = n.card100
            if groups_fn is not None:
                n.groups100 = groups_fn(b.shape, n)
    rec(root)


def build(q, plans, schema, executors=EXECUTORS):
    """The Built query of a variant (see the module docstring)."""
    base = "q%02d" % int(VARIANT_BASE[q][1:])
    doc = {"name": q}
    out = {}
    for key, (section, fold, mt_dop) in SECTIONS.items():
        if q == "q51a":
            out[key] = q51a(plans, schema, section, fold, mt_dop, executors)
        else:
            out[key] = rollup_variant(q, base, plans, schema, section, fold, mt_dop, executors)
    doc["source"] = "derived from its SQL (apache/impala testdata/workloads/tpcds/queries/tpcds-decimal_v2-%s.test) " \
                    "with pieces of tpcds-%s.test: %s" % (q, base, DERIVATIONS[q])
    doc.update(out["mt_dop=0"][0])
    doc["parallel"] = out["parallel"][0]
    return Built(q, doc, {"plans": out, "derived": True})


def _colocate(b, probe, build, kind, fold, rows_fn, rule, tuple_ids):
    """A join of two inputs that are already partitioned the same way (on the join key): it runs in the
    probe's fragment; the build side joins it there (mt_dop=0) or in a JOIN BUILD fragment of its own
    (parallel plan), as Impala's DistributedPlanner places a co-located partitioned join."""
    frag = probe.fragment
    old = build.fragment
    if fold:
        _move(build, old, frag)
    else:
        jb = b.fragment(frag.part, join_build=True)
        _move(build, old, jb)
    return b.node("HASH JOIN", "[%s, PARTITIONED]" % kind, frag, [probe, build], tuple_ids, rule, rows_fn)


def _range_self_join_rows(rows, items):
    """Rows of t1 JOIN t2 ON t1.item = t2.item AND t1.rk >= t2.rk when each of `items` items has
    n = rows / items rows numbered 1..n: n(n+1)/2 per item."""
    items = max(1.0, min(items, rows))
    n = rows / items
    return items * n * (n + 1) / 2


def _tv_node(plan, col):
    """q51's window over one channel's `tv` view (partitioned by its item column)."""
    found = [n for n in plan.nodes.values() if n.kind == "ANALYTIC" and (n.detail("partition by: ") or "") == col]
    if len(found) != 1:
        raise PlanError("%s: expected one window partitioned by %s" % (plan.where, col))
    return found[0]


def _below(node, kind):
    """The first node of `kind` down the leftmost path below `node`."""
    while node.children:
        node = node.children[0]
        if node.kind == kind:
            return node
    raise PlanError("no %s below node %d" % (kind, node.nid))


def _full_outer_join(plan):
    found = [n for n in plan.nodes.values() if n.kind == "HASH JOIN" and n.join_type == "FULL OUTER JOIN"]
    if len(found) != 1:
        raise PlanError("%s: expected one full outer join" % plan.where)
    return found[0]


# The item of q51's view v (its SQL's `case when web.item_sk is not null then web.item_sk else
# store.item_sk end`), as the plan writes it.
V_ITEM = "CASE WHEN ws_item_sk IS NOT NULL THEN ws_item_sk ELSE ss_item_sk END"


def self_joins(stem, plan):
    """The range self-joins a derived statement adds over base plan `stem`'s relations, for the rows
    counter (tools/rowcount/selfjoin.py): {label: {node, key, sources: [(node, key)], key_table}}.
    q51a joins each channel's `tv` (its rows per item: the item's sales days) and the view v (the days
    either channel sold the item) with themselves on the item."""
    if stem != VARIANT_BASE["q51a"]:
        return {}
    web, store = _tv_node(plan, "ws_item_sk"), _tv_node(plan, "ss_item_sk")
    web_in, store_in = _below(web, "HASH JOIN"), _below(store, "HASH JOIN")
    return {
        "q51a web_v1": {"node": web.nid, "key": "ws_item_sk", "sources": [(web_in.nid, "ws_item_sk")],
                        "key_table": "item"},
        "q51a store_v1": {"node": store.nid, "key": "ss_item_sk", "sources": [(store_in.nid, "ss_item_sk")],
                          "key_table": "item"},
        "q51a v": {"node": _full_outer_join(plan).nid, "key": V_ITEM,
                   "sources": [(web_in.nid, "ws_item_sk"), (store_in.nid, "ss_item_sk")], "key_table": "item"},
    }


def q51a(plans, schema, section, fold, mt_dop, executors):
    path = os.path.join(plans, "tpcds-q51.test")
    plan, data = parse_plan_file(path, section)
    shape0 = Shape(plan.root, fold, schema, mt_dop, executors=executors)
    scaler = Scaler(schema, shape0.instances, "q51", measured=schema.measured_nodes("q51", section))
    scaler.scale(plan.root)
    sizes = RowSizes(plan, schema, query_sql(data.decode("utf-8")))
    b = Builder("q51a", plan, sizes, schema, scaler)

    web_tv, store_tv = _tv_node(plan, "ws_item_sk"), _tv_node(plan, "ss_item_sk")
    foj = _full_outer_join(plan)
    items = schema.tables.rows("item", schema.target)
    measured = schema.measured_self_joins("q51", section)

    def self_join(label, what):
        """(rows function, rule) of a range self-join: measured (rule M4) or the uniform estimate."""
        m = measured.get(label, {})
        if "rows" in m:
            return (lambda sh, n: m["rows"]), "M4 %s measured: %s" % (what, m["rule"])
        return (lambda sh, n: _range_self_join_rows(n.children[0].card100, items)), (
            "%s: n(n+1)/2 rows per item, n = rows / items" % what)

    def slot(name, size):
        return Slot(name, size, 0.0, True)

    cume = b.layout([slot("item_sk", 4), slot("d_date", 4), slot("sum_sales", 8), slot("cume_sales", 16)],
                    "web_v1/store_v1 aggregation: item_sk INT, d_date DATE, sum DECIMAL(17,2), cume DECIMAL(38,2)")
    vrow = b.layout([slot("item_sk", 4), slot("d_date", 4), slot("web_sales", 16), slot("store_sales", 16)],
                    "v: item_sk INT, d_date DATE, web_sales, store_sales DECIMAL(38,2)")
    rk = b.layout([slot("row_number", 8)], "row_number() BIGINT")
    final = b.layout([slot("item_sk", 4), slot("d_date", 4)] + [slot(c, 16) for c in (
        "web_sales", "store_sales", "web_cumulative", "store_cumulative")],
        "result: item_sk INT, d_date DATE, four DECIMAL(38,2)")

    def channel_v1(tv, label):
        a, c = b.clone(tv), b.clone(tv)
        rows, rule = self_join(label, "range self-join on the item (v1.rk >= v2.rk)")
        join = _colocate(b, a, c, "INNER JOIN", fold, rows, rule, a.tuple_ids + c.tuple_ids)
        return b.node("AGGREGATE", "[FINALIZE]", join.fragment, [join], [cume],
                      "A1 group by (v1.item_sk, v1.d_date, v1.sum): one row per row of v1 (co-located, one phase)",
                      lambda sh, n: n.children[0].children[0].card100)

    def view_v():
        web, store = channel_v1(web_tv, "q51a web_v1"), channel_v1(store_tv, "q51a store_v1")
        jf = b.fragment("HASH(d_date,item_sk)")
        xw = b.node("EXCHANGE", "[HASH(d_date,item_sk)]", jf, [web], [cume], "exchange", lambda sh, n: n.children[0].card100)
        bf = jf if fold else b.fragment("HASH(d_date,item_sk)", join_build=True)
        xs = b.node("EXCHANGE", "[HASH(d_date,item_sk)]", bf, [store], [cume], "exchange",
                    lambda sh, n: n.children[0].card100)
        j = b.node("HASH JOIN", "[FULL OUTER JOIN, PARTITIONED]", jf, [xw, xs], [cume + "N", cume],
                   "full outer join on (item, d_date): q51's (node %d)" % foj.nid, lambda sh, n: foj.card100)
        vf = b.fragment("HASH(item_sk)")
        x = b.node("EXCHANGE", "[HASH(item_sk)]", vf, [j], [cume + "N", cume], "exchange",
                   lambda sh, n: n.children[0].card100)
        so = b.node("SORT", "", vf, [x], [vrow], "P1 sort for row_number: its input", lambda sh, n: n.children[0].card100)
        return b.node("ANALYTIC", "", vf, [so], [vrow, rk], "P1 row_number() over (partition by item_sk): its input",
                      lambda sh, n: n.children[0].card100)

    va, vb = view_v(), view_v()
    rows, rule = self_join("q51a v", "range self-join of v on the item (v1.rk >= v2.rk)")
    join = _colocate(b, va, vb, "INNER JOIN", fold, rows, rule, [vrow, rk, vrow + "N", rk + "N"])
    agg = b.node("AGGREGATE", "[FINALIZE]", join.fragment, [join], [final],
                 "A1 group by v1's columns: one row per row of v1 (co-located, one phase)",
                 lambda sh, n: n.children[0].children[0].card100)
    sel = b.node("SELECT", "", join.fragment, [agg], [final],
                 "web_cumulative > store_cumulative: 10% (the planner's default selectivity, as q51's SELECT)",
                 lambda sh, n: 0.1 * n.children[0].card100)
    top = b.node("TOP-N", "[LIMIT=100]", join.fragment, [sel], [final], "L1 top 100 per instance",
                 lambda sh, n: min(n.children[0].card100, 100 * sh.instances(n)), limit=100)
    rf = b.fragment("UNPARTITIONED", 1, 1)
    mx = b.node("MERGING-EXCHANGE", "[UNPARTITIONED]", rf, [top], [final], "exchange",
                lambda sh, n: n.children[0].card100, limit=100)
    _derive_rows(b, mx, fold, schema, mt_dop, executors)
    conv = Converter(b.shape, _Sizes(b.layouts), schema, "q51a")
    conv.where = "derived from %s" % plan.where
    return conv.plan(), b
