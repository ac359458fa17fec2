"""Rows of every plan node at target scale factors, from counts on two whole smaller scale factors.

For a benchmark whose tables all grow linearly with the scale factor but a few fixed ones (TPC-H:
every table but nation, 25 rows, and region, 5), a node's rows are counted on two whole scale
factors of the generator's output, A and B (SF1 and SF10), and carried to each target T by the
first rule that applies (`how` in the output); g is the node's growth count_B / count_A and
r = B / A the tables' growth:
  fixed      only fixed tables below it: the count at B (their rows do not change);
  linear     g within TOLERANCE of r: count_B x T / B;
  constant   g within TOLERANCE of 1: count_B (the rule text says why the rows stop growing: a
             limit reached, one group, or groups of a bounded domain such as the 4 combinations
             of l_returnflag and l_linestatus);
  near-linear  dbgen draws each row independently, so a selection of n rows at SF1 is a sample
             whose share of its table is off by about 1/sqrt(n) (q18's 57 orders of more than 300
             units at SF1, 624 at SF10): count_B x T / B, B's count being the less noisy, for
             - a scan without runtime filters of a growing table (its predicates read the row's
               own values: the share they keep does not depend on the scale), and
             - any other node but an aggregation whose g is within 3/sqrt(n) of r, n the smallest
               count at A of the node and of every scan of a growing table it reads (runtime
               filters' builds included), when that band is at most MAX_BAND;
  groups     an aggregation (its groups) with any other growth: the occupancy model, groups
             g = D (1 - exp(-n/D)) of n input rows over a key domain D, D solved at A and at B and
             grown as SF^a between them (a = log(D_B / D_A) / log r: 0 for a fixed domain, 1 for
             a key domain that grows with the data), the target's groups from its input's rows;
  follows    a node that passes or filters one input's rows (exchange, sort, select, top-n,
             analytic, a limit not reached): count_B x the input's target / the input's count_B,
             at most its limit;
  power      anything else (a join or having whose output grows neither like its inputs nor
             not at all): count_B x (T / B)^e with e = log g / log r, the SF1-to-SF10 trend
             carried on; the least sure rule, so the output names it.
A node empty at B is empty at the targets (q11 keeps the parts worth more than 0.0001 of the total,
the specification's fraction for SF1: 1048 at SF1, none at SF10); one empty at A only keeps B's count.

A pre-aggregation ([STREAMING]) is counted as its global groups, as tools/rowcount/translate.py
counts it for TPC-DS: what it emits is the sum over instances of each instance's groups, which
depends on how the rows split over instances, not on the data alone (the workload's rule A3 gives
it from the groups). An exchange's rows are its input's rows (what its senders send in all; a
broadcast sends them to every receiver). A scan's runtime filters are counted one by one (the
share of the scan's rows each producing join keeps) and all together (the scan's rows).
"""

import math

from tools.rowcount import TranslateError
from tools.rowcount.measure import PlanMeasure, Script, _filters_by_join, collect_nodes, counted
from tools.rowcount.occupancy import solve_domain

TOLERANCE = 0.02
# dbgen draws each row's values independently: a selection of n rows at A is a sample whose share
# of its table is off by about 1/sqrt(n); a growth within NOISE of those is read as linear.
NOISE = 3.0
MAX_BAND = 0.5      # a band wider than this (fewer than 36 rows) tells linear from constant no more
FOLLOWS = ("EXCHANGE", "MERGING-EXCHANGE", "SORT", "SELECT", "TOP-N", "ANALYTIC", "CARDINALITY CHECK")


def occupancy(n_a, g_a, n_b, g_b, n_t, ratio, t_over_b):
    """(groups at the target, rule text) from groups g among n input rows at A and B (module docstring)."""
    d_a, d_b = solve_domain(n_a, g_a), solve_domain(n_b, g_b)
    if d_a is None or d_b is None:
        return None
    a = math.log(d_b / d_a) / math.log(ratio)
    d_t = d_b * t_over_b ** a
    g_t = d_t * -math.expm1(-n_t / d_t)
    return min(g_t, n_t), "occupancy: domain %.4g at A, %.4g at B (grows as SF^%.3f), %.4g input rows at the " \
        "target" % (d_a, d_b, a, n_t)


def _near(x, y):
    return abs(x / y - 1.0) <= TOLERANCE


def target_rule(node, rel, c_a, c_b, inputs, fixed_only, ratio, t_over_b, agg_input=None, smallest_a=None,
                filtered=False):
    """(rows at the target, how, rule text) of one node.
    inputs: [(input's count at B, input's target rows)] of the nodes its rows follow;
    agg_input: an aggregation's (input rows at A, at B, at the target), or None;
    smallest_a: the smallest count at A of the node and the scans it reads (its sampling noise);
    filtered: a scan with runtime filters."""
    if fixed_only:
        return float(c_b), "fixed", "only tables of a fixed size below it: the count at B"
    if c_a > 0 and c_b > 0:
        g = c_b / c_a
        if _near(g, ratio):
            return c_b * t_over_b, "linear", "growth %.4g from A to B (%.4g expected): count at B x T/B" % (g, ratio)
        if _near(g, 1.0):
            if node.limit is not None and c_b >= node.limit:
                why = "its limit %d reached" % node.limit
            elif rel.kind == "aggregate" and not rel.group_columns:
                why = "one group"
            elif rel.kind == "aggregate":
                why = "groups of a bounded domain"
            else:
                why = "rows bounded by what is above a bounded domain"
            return float(c_b), "constant", "growth %.4g from A to B: the count at B (%s)" % (g, why)
        if node.kind == "SCAN HDFS" and not filtered:
            return c_b * t_over_b, "near-linear", (
                "growth %.4g from A to B (%.4g expected): a scan's predicates keep a fixed share of a table that "
                "grows linearly (%d rows at A: sampling noise 1/sqrt(n) = %.3g): count at B x T/B" % (
                    g, ratio, c_a, 1 / math.sqrt(c_a)))
        band = NOISE / math.sqrt(smallest_a) if smallest_a else None
        if band is not None and band <= MAX_BAND and rel.kind != "aggregate" and abs(g / ratio - 1.0) <= band:
            return c_b * t_over_b, "near-linear", (
                "growth %.4g from A to B (%.4g expected), within %g/sqrt(%d) = %.3g, the sampling noise of the "
                "smallest count it reads at A: count at B x T/B" % (g, ratio, NOISE, smallest_a, band))
    elif c_a == 0 and c_b == 0:
        return 0.0, "constant", "no rows at A or B: none at the target"
    elif c_b == 0:
        return 0.0, "constant", ("%d rows at A, none at B: a condition the larger scale no longer meets (q11's "
                                 "share of a total that grows with it) meets none at the target either" % c_a)
    else:
        return float(c_b), "constant", "no rows at A, %d at B: the count at B" % c_b
    if rel.kind == "aggregate" and rel.group_columns and agg_input is not None:
        got = occupancy(agg_input[0], c_a, agg_input[1], c_b, agg_input[2], ratio, t_over_b)
        if got is not None:
            return got[0], "groups", "growth %.4g from A to B; %s" % (c_b / c_a, got[1])
    if node.kind in FOLLOWS and len(inputs) == 1 and inputs[0][0]:
        ib, it = inputs[0]
        v = c_b * it / ib
        why = "growth %.4g from A to B; count at B x the input's growth to the target (%.4g)" % (c_b / c_a, it / ib)
        if node.limit is not None:
            v = min(v, float(node.limit))
            why += ", at most its limit %d" % node.limit
        return v, "follows", why
    e = math.log(c_b / c_a) / math.log(ratio)
    return c_b * t_over_b ** e, "power", "growth %.4g from A to B: count at B x (T/B)^%.3f" % (c_b / c_a, e)


class TwoScales:
    """The counts of a set of plans on two whole scale factors, and their targets."""

    def __init__(self, plans, schema, benchmark, tables):
        """tables: those both folders hold (their rows are counted too)."""
        self.bench = benchmark
        self.tables = sorted(tables)
        self.pms = []
        self.A, self.B = Script(benchmark.macros), Script(benchmark.macros)
        for t in self.tables:
            for s in (self.A, self.B):
                s.table("SELECT count(*) FROM %s" % t)
        for key, plan, text in plans:
            pm = PlanMeasure(key, plan, schema, text, benchmark)
            self.pms.append(pm)
            want = []
            for nid, rel in sorted(pm.rel.items()):
                want.append((rel.name, None))
                if rel.input:
                    want.append((rel.input, None))
                if plan.nodes[nid].kind == "SCAN HDFS" and pm.tr.filters.get(nid):
                    plain = "n%d_plain" % nid
                    want.append((plain, None))
                    for _, _, cond in _filters_by_join(pm.tr.filters[nid]):
                        want.append((plain, cond))
            self.A.plan(pm, want)
            self.B.plan(pm, want)

    def run(self, db_a, db_b, threads, say):
        self.A.run(db_a, threads, say, "SF A")
        self.B.run(db_b, threads, say, "SF B")

    def table_rows(self, script):
        return {t: script.get_table("SELECT count(*) FROM %s" % t) for t in self.tables}

    def records(self, scale_a, scale_b, targets):
        """{plan key: section record} (the output's layout, tools/tpch_measure_rows.py)."""
        return {pm.key: self._section(pm, scale_a, scale_b, targets) for pm in self.pms}

    def _section(self, pm, scale_a, scale_b, targets):
        ratio = scale_b / float(scale_a)
        val = {}

        def count(script, name, where=None):
            return counted(script, pm, name, where)

        def value(node):
            if node.nid in val:
                return val[node.nid]
            rel = pm.rel[node.nid]
            c_a, c_b = count(self.A, rel.name), count(self.B, rel.name)
            fixed_only = all(t in self.bench.fixed_tables for t in pm.tables_below(rel.name))
            reads = pm.tr.closure([rel.name])
            smallest = min([c_a] + [count(self.A, pm.rel[n.nid].name) for n in pm.plan.nodes.values()
                                    if n.kind == "SCAN HDFS" and n.nid in pm.rel
                                    and n.table not in self.bench.fixed_tables
                                    and (pm.rel[n.nid].name in reads or "n%d_plain" % n.nid in reads)])
            ins = [i for i in pm.inputs(node) if i.nid in pm.rel]
            rec = {"kind": node.kind, "counts": {"sf%g" % scale_a: c_a, "sf%g" % scale_b: c_b},
                   "growth": (c_b / c_a) if c_a else None, "rows": {}, "how": None, "rule": {}}
            if node.card is not None:
                rec["planner_sf%g" % scale_a] = node.card
            hows = []
            for t in targets:
                inputs = [(count(self.B, pm.rel[i.nid].name), value(i)["rows"]["sf%g" % t]) for i in ins]
                agg_input = None
                if rel.input:
                    n_a, n_b = count(self.A, rel.input), count(self.B, rel.input)
                    n_t = _input_target(n_a, n_b, ratio, t / float(scale_b), inputs)
                    agg_input = (n_a, n_b, n_t)
                rows, how, why = target_rule(node, rel, c_a, c_b, inputs, fixed_only, ratio, t / float(scale_b),
                                             agg_input, smallest if smallest > 0 else None,
                                             bool(pm.tr.filters.get(node.nid)))
                rec["rows"]["sf%g" % t] = rows
                rec["rule"]["sf%g" % t] = why
                hows.append(how)
            rec["how"] = hows[0] if len(set(hows)) == 1 else "/".join(hows)
            if len(set(rec["rule"].values())) == 1:
                rec["rule"] = next(iter(rec["rule"].values()))
            val[node.nid] = rec
            return rec

        nodes = collect_nodes(pm, value, val, lambda node, rec: self._scan_extras(pm, node, rec, scale_a, scale_b))
        return {"nodes": {k: nodes[k] for k in sorted(nodes, key=int)},
                "untranslated": {str(k): pm.failed[k] for k in sorted(pm.failed)},
                "sql": {name: r.sql for name, r in pm.tr.rels.items()}}

    def _scan_extras(self, pm, node, rec, scale_a, scale_b):
        """A filtered scan's rows before its filters and the share each producing join's filters keep."""
        if not pm.tr.filters.get(node.nid):
            return
        plain = "n%d_plain" % node.nid
        try:
            before, keeps = {}, []
            for label, script in (("sf%g" % scale_a, self.A), ("sf%g" % scale_b, self.B)):
                p = script.get(pm, plain)
                if not isinstance(p, int):
                    raise TranslateError("the engine refused it: %s" % str(p)[:300])
                before[label] = p
            for jid, rfs, cond in _filters_by_join(pm.tr.filters[node.nid]):
                keep = {}
                for label, script in (("sf%g" % scale_a, self.A), ("sf%g" % scale_b, self.B)):
                    k = script.get(pm, plain, cond)
                    if not isinstance(k, int):
                        raise TranslateError("the engine refused it: %s" % str(k)[:300])
                    keep[label] = (k / before[label]) if before[label] else 1.0
                keeps.append({"join": jid, "filters": rfs, "keep": keep})
            rec["before_filters"] = before
            rec["filters"] = keeps
        except TranslateError as e:
            rec["filters_error"] = str(e)


def _input_target(n_a, n_b, ratio, t_over_b, inputs):
    """An aggregation's input rows at the target: its child's target when the input is the child's
    relation, else (a relation between them) the same rule as a node: linear, constant or its trend."""
    if len(inputs) == 1 and inputs[0][0] == n_b:
        return inputs[0][1]
    if n_a > 0 and n_b > 0:
        g = n_b / n_a
        if _near(g, ratio):
            return n_b * t_over_b
        if _near(g, 1.0):
            return float(n_b)
        return n_b * t_over_b ** (math.log(g) / math.log(ratio))
    return float(n_b)
