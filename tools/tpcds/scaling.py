"""Re-estimation of every plan node's rows from SF3000 to SF100 (README: "Rows at SF100")."""

import math
import re

from tools.tpcds import PlanError
from tools.tpcds.plans import fragment_leaf
from tools.tpcds.filters import MIN_REJECT

# Rule D1: date ranges the planner estimates with its default selectivity.
# Impala has no histograms: a two-sided range on date_dim.d_month_seq or
# date_dim.d_year is estimated at 10% of date_dim (7.30K rows) whatever its
# width, and the FK/PK join of a fact table with that date_dim then keeps every
# fact row (|dim| / NDV(fact date key) > 1). The range's real rows follow from
# the calendar: date_dim has one row per day, 73,049 days = 2,400 months = 200
# years (TPC-DS specification; d_month_seq and d_year number them).
DATE_DIM_DAYS = 73049
DAYS_PER_UNIT = {"d_month_seq": DATE_DIM_DAYS / 2400.0, "d_year": DATE_DIM_DAYS / 200.0}
DATE_RANGE_RE = re.compile(
    r"^(?:\w+\.)?(d_month_seq|d_year) <= CAST\((\d+) AS INT\), (?:\w+\.)?(d_month_seq|d_year) >= CAST\((\d+) AS INT\)$")
# Days one distinct value of a fact table's date key covers: sales and returns
# carry a day, inventory a week (inv_date_sk takes one date per week).
DATE_KEY_DAYS = {"inv_date_sk": 7}


# Joins the planner could not match to a key (`fk/pk conjuncts: none`) whose
# estimate exceeds both inputs get a cap (README, rule J2). The default cap is
# derived from the plan; these joins get a cap chosen from the query's SQL,
# with the reason. Key: (plan file stem, join node id).
MN_OVERRIDES = {
    ("q47", 33): ("min", "self-join of the aggregated CTE v1 on all its grouping keys, one-to-one"),
    ("q47", 34): ("min", "self-join of the aggregated CTE v1 on all its grouping keys, one-to-one"),
    ("q57", 33): ("min", "self-join of the aggregated CTE v1 on all its grouping keys, one-to-one"),
    ("q57", 34): ("min", "self-join of the aggregated CTE v1 on all its grouping keys, one-to-one"),
    ("q59", 16): ("min", "week-over-week self-join of the aggregated CTE wss on store and week, one-to-one"),
    ("q72", 16): ("keep", "d1.d_week_seq = d2.d_week_seq really gives each catalog row the 7 days of its week"),
    ("q72", 17): ("left", "residual inv_quantity_on_hand < cs_quantity; assumed at most one inventory row "
                          "per catalog row, the q72 SF1 profile shows 0.05 (67.84K out of 1.44M)"),
    ("q95", 6): ("keep", "self-join of web_sales on ws_order_number really multiplies (several lines per order)"),
    ("q95", 10): ("keep", "self-join of web_sales on ws_order_number really multiplies (several lines per order)"),
    ("q95", 11): ("keep", "ws_wh joined with web_returns on the order number really multiplies"),
}


def measured_pairs(m, leaf, instances):
    """Rule M3's count for a pre-aggregation's record `m` in measured_rows.json: the (instance, group) pairs
    counted for `instances` instances and the leaf its fragment has in the workload's plan, the printed one
    (`per_instance`) or one that J3 gave it (`per_instance_alternatives`: the leaf of a fragment J3 merged
    into it, or the hash exchange J3 put on a join's probe side, `probe_of` that join); None when none was."""
    where = ("probe_of", leaf.probe_of) if leaf.probe_of is not None else ("leaf", leaf.nid)
    for p in [m.get("per_instance")] + list(m.get("per_instance_alternatives") or []):
        if p and p.get("rows") is not None and p.get("instances") == instances and p.get(where[0]) == where[1]:
            return p
    return None


def preagg_output(groups, rows_in, instances):
    """Rule A3: what a streaming pre-aggregation emits, as Impala's planner estimates it
    (AggregationNode.estimatePreaggCardinality, IMPALA-2945, Impala 4.5+; apache/impala
    b21595276c AggregationNode.java 336-348, 445-479): each of its `instances` sees
    ceil(rows_in / instances) rows whose keys fall uniformly on `groups` values, so it keeps
    the expected number of distinct keys among them, groups x (1 - (1 - 1/groups)^n), rounded
    up; the total is at most its input. With one instance, or no more rows than groups, it is
    min(rows_in, groups). Returns (groups per instance, rows out in total)."""
    if rows_in <= 0:
        return 0.0, 0.0
    instances = max(1, int(instances))
    if instances == 1 or rows_in <= groups:
        out = min(rows_in, groups)
        return out / instances, out
    g = max(1.0, groups)
    n = math.ceil(rows_in / instances)
    per = float(math.ceil(g * -math.expm1(n * math.log1p(-1.0 / g)))) if g > 1 else 1.0
    per = min(per, n)
    out = min(rows_in, per * instances)
    return out / instances, out


# Rule A4: the calendar bounds the groups of date_dim columns. date_dim has one row per day, so
# the rows of a date_dim scan are days; in D consecutive days a column that numbers a unit of u
# days (absolute: d_year, d_month_seq, d_week_seq, d_date) takes at most ceil(D / u) + 1 values, a
# cyclic one (d_moy, d_qoy, d_dow, d_dom) at most its cycle; a grouping of several takes the finest.
DATE_UNITS = {"d_date_sk": (1, None), "d_date": (1, None), "d_dom": (1, 31), "d_dow": (1, 7),
              "d_week_seq": (7, None), "d_moy": (30.44, 12), "d_month_seq": (30.44, None),
              "d_qoy": (91.31, 4), "d_quarter_seq": (91.31, None), "d_year": (365.25, None)}


def date_groups(cols, days):
    """Distinct values of the date_dim columns `cols` within `days` consecutive days, or None
    when a column is not one the calendar bounds."""
    if not cols or any(c not in DATE_UNITS for c in cols):
        return None
    unit = min(DATE_UNITS[c][0] for c in cols)
    absolute = any(DATE_UNITS[c][1] is None for c in cols)
    n = math.ceil(days / unit) + (1 if unit > 1 else 0)
    if not absolute:
        cycle = 1
        for c in cols:
            cycle *= DATE_UNITS[c][1]
        n = min(n, cycle)
    return float(max(1, min(n, days)))


# --------------------------------------------------------------------------
# Row-count scaling from SF3000 to SF100
# --------------------------------------------------------------------------

class Scaler:
    """Re-estimates every plan node's rows at the target scale factor (`target`, SF100).

    Works bottom-up on the plan tree; each node's rule is recorded in node.rule. `schema`: the
    benchmark's tables (ddl.Tables), statistics and scale factors (ddl.Schema). `base` is the scale
    factor the node counts (node.card) are at: the statistics' (3000) for the planner tests'
    estimates, 1 for the measured rows of the q72 profile (rule M1);
    the rules that correct the planner's own estimates (D1, J2's overrides, the date-key joins) apply
    when `estimates` (the planner tests'), not to measured rows. `instances(node)` is the number of
    instances the node's fragment runs in the plan being built (5 per fragment at mt_dop=0):
    rows that Impala produces once per instance (a pre-aggregation's groups, a per-instance
    limit, a partial aggregate without grouping) follow it.
    """

    def __init__(self, schema, instances, plan_stem="", base=None, measured=None, estimates=True):
        self.tables = schema.tables
        self.join_caps = schema.join_caps   # rule J2's caps chosen per query (MN_OVERRIDES for TPC-DS)
        self.plan_stem = plan_stem
        self.measured = measured or {}   # node id (str) -> measured_rows.json's record (rule M2)
        self.instances = instances
        self.stats = schema.stats   # table -> {"numRows", "columns": {...}} at schema.stats_scale
        self.stats_scale = schema.stats_scale
        self.base = schema.stats_scale if base is None else base
        self.target = schema.target
        self.estimates = estimates
        self.groups = {}            # streaming aggregate node id -> groups at the target

    def rows_at(self, table, scale):
        return self.tables.rows(table, scale)

    def table_ratio(self, table):
        return self.rows_at(table, self.target) / self.rows_at(table, self.base)

    def column_ratio(self, col):
        """Ratio of a grouping column's distinct values, target / base (1 if unknown)."""
        col = col.split(".")[-1]
        table = self.tables.table_of(col)
        if table is None:
            return 1.0, "unknown column %s: ratio 1" % col
        cstats = self.stats[table]["columns"].get(col)
        if cstats is None:
            return 1.0, "no statistics for %s: ratio 1" % col
        ndv = max(1, cstats["numDVs"])
        rows_stats = self.rows_at(table, self.stats_scale)
        rest = col.split("_", 1)[1]
        if ndv >= 0.5 * rows_stats:
            r = self.table_ratio(table)
            return r, "%s key-like (NDV %d of %d rows): x%s" % (col, ndv, rows_stats, fmt_ratio(r))
        ref = self.tables.referenced(rest, table)
        if ref is not None:
            r = self.table_ratio(ref)
            return r, "%s references %s: x%s" % (col, ref, fmt_ratio(r))
        r = min(ndv, self.rows_at(table, self.target)) / min(ndv, self.rows_at(table, self.base))
        return r, "%s bounded domain (NDV %d): x%s" % (col, ndv, fmt_ratio(r))

    def group_ratio(self, node):
        cols = set()
        for g in node.group_by:
            for tok in re.findall(r"\b[a-z][a-z0-9]*(?:\.[a-z][a-z0-9_]*)?_[a-z0-9_]+\b", g):
                if tok.split(".")[-1].startswith(("valid_tid", "murmur_hash")):
                    continue
                cols.add(tok.split(".")[-1])
        r = 1.0
        notes = []
        for c in sorted(cols):
            cr, note = self.column_ratio(c)
            r *= cr
            if cr != 1.0:
                notes.append(note)
        return r, cols, notes

    def mn_cap(self, node, jt):
        """Cap for a join the planner could not match to a key (fk/pk none) and
        whose estimate exceeds both inputs (see README, rule J2)."""
        left, right = node.children
        l100, r100 = left.card100, right.card100
        if jt == "FULL OUTER JOIN":
            return l100 + r100, "full outer join <= left + right"
        preds = node.detail("hash predicates: ") or ""
        lkeys, rkeys = set(), set()
        for conj in preds.split(", "):
            if " = " in conj:
                a, b = conj.split(" = ", 1)
                lkeys |= key_columns(a)
                rkeys |= key_columns(b)
        lu = unique_on(left, lkeys) if lkeys else False
        ru = unique_on(right, rkeys) if rkeys else False
        override = self.join_caps.get((self.plan_stem, node.nid)) if self.estimates else None
        if override is not None:
            mode, reason = override
            if mode == "keep":
                return float("inf"), "planner estimate kept (%s)" % reason
            if mode == "min":
                return min(l100, r100), "<= smaller input (%s)" % reason
            if mode == "left":
                return l100, "<= left input (%s)" % reason
            raise PlanError("unknown override mode %s" % mode)
        if ru and not lu:
            cap = l100 if jt != "RIGHT OUTER JOIN" else l100 + r100
            return cap, "right input unique on the join keys: <= left input"
        if lu and not ru:
            cap = r100 if jt != "LEFT OUTER JOIN" else l100 + r100
            return cap, "left input unique on the join keys: <= right input"
        if lu and ru:
            return min(l100, r100), "both inputs unique on the join keys: <= smaller input"
        return max(l100, r100), "<= larger input (assumption: no row multiplication)"

    def date_join_fix(self, node, jt):
        """Rule D1 at a join whose build side is a date_dim range (see DATE_RANGE_RE).

        The planner kept min(1, |dim estimate| / NDV(fact date key)) of the probe
        rows; the range really keeps min(1, days / days the fact's dates cover).
        Returns (correction factor, why) or None."""
        if not self.estimates or jt not in ("INNER JOIN", "LEFT SEMI JOIN") or len(node.children) != 2:
            return None
        d = node.children[1]
        while d.kind in ("EXCHANGE",) and d.children:
            d = d.children[0]
        if d.kind != "SCAN HDFS" or getattr(d, "date_days", None) is None:
            return None
        preds = node.detail("hash predicates: ") or ""
        for conj in preds.split(", "):
            m = re.match(r"^(?:\w+\.)?([a-z]+_[a-z_]*date_sk) = (?:\w+\.)?d_date_sk$", conj)
            if not m:
                continue
            key = m.group(1)
            table = self.tables.table_of(key)
            cst = self.stats.get(table, {}).get("columns", {}).get(key) if table else None
            if not cst or cst["numDVs"] <= 0:
                return None
            ndv = cst["numDVs"]
            span = ndv * DATE_KEY_DAYS.get(key, 1)
            planner = min(1.0, d.card / ndv)
            real = min(1.0, d.date_days / span)
            return real / planner, "%d of the %d days %s covers, where the planner kept %s of the rows" % (
                d.date_days, span, key, fmt_ratio(planner))
        return None

    def pre_aggregation_groups(self, node):
        """Groups at SF100 of a streaming pre-aggregation, from the merging aggregation that
        finishes it (above its exchange): (groups, why) or None when there is none."""
        x = node.parent
        m = x.parent if x is not None and x.kind in ("EXCHANGE",) else None
        if m is None or m.kind != "AGGREGATE" or m.bracket == "[STREAMING]":
            return None
        src = node.children[0]
        if m.card >= 0.5 * src.card:
            r = ratio(src)
            return m.card * r, "merge aggregation %d keeps %s of %s input rows: groups x%s (input ratio)" % (
                m.nid, fmt_rows(m.card), fmt_rows(src.card), fmt_ratio(r))
        gr, cols, notes = self.group_ratio(m)
        groups = m.card * gr
        why = "merge aggregation %d has %s groups: x%s (group columns%s)" % (
            m.nid, fmt_rows(m.card), fmt_ratio(gr), ": " + "; ".join(notes) if notes else ": none grow")
        cap = self.tuple_cap(node, cols)
        if cap is not None and cap[0] < groups:
            groups = cap[0]
            why += "; A4 %s" % cap[1]
        return groups, why

    def tuple_cap(self, node, cols):
        """Rule A4: the groups of an aggregation whose columns all come from scans below it, at
        SF100: per table, the product of its columns' distinct values at SF100, at most the rows
        its scan below `node` outputs (for date_dim, the calendar's count for that many days),
        multiplied over the tables (Impala's per-tuple cap, IMPALA-13405, with the scans' SF100
        output as the bound). None when a column's table or scan cannot be found."""
        scans = {}

        def walk(n):
            if n.kind == "SCAN HDFS":
                scans.setdefault(n.table, []).append(n)
            for c in n.children:
                walk(c)
        walk(node)
        by_table = {}
        for col in cols:
            table = self.tables.table_of(col)
            if table is None:
                return None
            by_table.setdefault(table, []).append(col)
        if not by_table:
            return None
        total = 1.0
        parts = []
        for table in sorted(by_table):
            tcols = sorted(by_table[table])
            if len(scans.get(table, [])) != 1:
                return None
            rows = scans[table][0].card100
            if table == "date_dim":
                g = date_groups(tcols, rows)
                if g is None:
                    return None
                how = "%s: %s in %s days" % (",".join(tcols), fmt_rows(g), fmt_rows(rows))
            else:
                g = 1.0
                for c in tcols:
                    cstats = self.stats[table]["columns"].get(c)
                    if cstats is None:
                        return None
                    r, _ = self.column_ratio(c)
                    g *= max(1.0, cstats["numDVs"] * r)
                g = min(g, rows)
                how = "%s: %s (distinct values at SF100, at most its scan's %s rows)" % (
                    ",".join(tcols), fmt_rows(g), fmt_rows(rows))
            total *= g
            parts.append(how)
        return total, "per-table cap %s: %s" % (fmt_rows(total), "; ".join(parts))

    def scale(self, node):
        for c in node.children:
            self.scale(c)
        k = node.kind
        ch = node.children
        c0 = node.card
        n_inst = self.instances(node)
        if k == "SCAN HDFS":
            r = self.table_ratio(node.table)
            node.card100 = c0 * r
            node.rule = "S1 scan of %s: x%s (table rows)" % (node.table, fmt_ratio(r))
            days = date_range_days(node) if self.estimates else None
            if days is not None:
                node.date_days = days
                node.card100 = days
                node.rule = "D1 date range: %d days (the plan's %s is the planner's default selectivity)" % (
                    days, node.card_text)
        elif k in ("HASH JOIN", "NESTED LOOP JOIN"):
            jt = node.join_type
            rl = ratio(ch[0])
            rr = ratio(ch[1]) if len(ch) > 1 else 1.0
            fix = self.date_join_fix(node, jt)
            if fix is not None:
                factor, fix_why = fix
                r, why = rl * factor, "D1 date-range join: left-input ratio x %s (%s)" % (fmt_ratio(factor), fix_why)
            elif jt in ("LEFT SEMI JOIN", "LEFT ANTI JOIN"):
                r, why = rl, "J1 left-input ratio (semi/anti join)"
            elif jt in ("RIGHT SEMI JOIN", "RIGHT ANTI JOIN"):
                r, why = rr, "J1 right-input ratio (semi/anti join)"
            elif jt == "CROSS JOIN":
                r, why = rl * rr, "J1 product of the input ratios (cross join)"
            else:
                # The input whose size changes most with the scale factor (the fact side of a
                # fact-to-dimension join): the smaller ratio from SF3000, the larger from SF1.
                r = rl if abs(math.log(rl or 1e-300)) >= abs(math.log(rr or 1e-300)) else rr
                why = "J1 ratio of the input that changes most with the scale (%s)" % jt.lower()
            node.card100 = c0 * r
            node.rule = "%s: x%s" % (why, fmt_ratio(r))
            if (node.fkpk in ("none", "assumed fk/pk") and len(ch) == 2 and jt != "CROSS JOIN" and self.estimates
                    and c0 > max(ch[0].card, ch[1].card)):
                cap, capwhy = self.mn_cap(node, jt)
                node.mn_capped = True
                if node.card100 > cap:
                    node.card100 = cap
                    node.rule += "; J2 M:N cap: %s" % capwhy
                else:
                    node.rule += "; J2 M:N cap: %s, not binding" % capwhy
        elif k == "AGGREGATE":
            rin = ratio(ch[0])
            k_cls = max(1, node.classes)
            pre = self.pre_aggregation_groups(node) if node.bracket == "[STREAMING]" and node.group_by else None
            below = ch[0].children[0] if ch[0].kind == "EXCHANGE" and ch[0].children else None
            if not node.group_by:
                node.card100 = float(n_inst)
                node.rule = "A2 aggregation without grouping: one row per instance (%d)" % n_inst
            elif pre is not None:
                groups, why = pre
                self.groups[node.nid] = groups
                per, node.card100 = preagg_output(groups, ch[0].card100, n_inst)
                node.groups100 = per
                node.rule = "A1 streaming pre-aggregation of %s groups (%s); A3 each of its %d instance(s) " \
                            "keeps the distinct keys of its share: %s" % (
                                fmt_rows(groups), why, n_inst, fmt_rows(node.card100))
            elif below is not None and below.nid in self.groups:
                groups = self.groups[below.nid]
                node.card100 = min(ch[0].card100, groups)
                node.rule = "A1 merge of the pre-aggregation %d: its groups (%s), at most its input" % (
                    below.nid, fmt_rows(groups))
            elif c0 >= 0.5 * ch[0].card:
                node.card100 = c0 * rin
                node.rule = "A1 aggregation driven by its input (%s of %s rows): x%s (input ratio)" % (
                    fmt_rows(c0), fmt_rows(ch[0].card), fmt_ratio(rin))
            else:
                gr, cols, notes = self.group_ratio(node)
                node.card100 = min(c0 * gr, ch[0].card100 * k_cls)
                node.rule = "A1 aggregation driven by its groups (%s of %s rows): x%s (group columns%s)" % (
                    fmt_rows(c0), fmt_rows(ch[0].card), fmt_ratio(gr),
                    ": " + "; ".join(notes) if notes else ": none change")
                if node.card100 < c0 * gr:
                    node.rule += ", capped at input x %d class(es)" % k_cls
        elif k == "UNION":
            s0 = sum(c.card for c in ch)
            s100 = sum(c.card100 for c in ch)
            r = s100 / s0 if s0 > 0 else 1.0
            node.card100 = c0 * r
            node.rule = "U1 union: x%s (sum of inputs)" % fmt_ratio(r)
        elif k in ("EXCHANGE", "MERGING-EXCHANGE"):
            node.card100 = ch[0].card100
            node.rule = "exchange: the rows its senders emit"
        elif ch:
            r = ratio(ch[0])
            node.card100 = c0 * r
            node.rule = "P1 %s: x%s (input ratio)" % (k.lower(), fmt_ratio(r))
            if k == "TOP-N" and node.limit is None and node.partition_limit is not None:
                node.rule += "; a partitioned top-n (%d rows per partition)" % node.partition_limit
        else:
            node.card100 = c0
            node.rule = "%s leaf: unchanged" % k.lower()
        self.apply_measured(node, n_inst)
        node.card100_nolimit = node.card100
        if node.limit is not None and k not in ("EXCHANGE", "MERGING-EXCHANGE"):
            base = ch[0].card100 if ch and k == "TOP-N" else node.card100
            node.card100_nolimit = base
            node.card100 = min(node.limit * n_inst, base)
            node.rule += "; L1 limit %d per instance x %d instance(s)" % (node.limit, n_inst)

    def apply_measured(self, node, n_inst):
        """Rule M2: a node whose rows were counted on TPC-DS data (scenarios/tpcds_sf100/measured_rows.json,
        tools/tpcds_measure_rows.py) takes them instead of the rules' estimate. A streaming pre-aggregation
        takes its measured groups and keeps rule A3 for what each instance emits; a node with a limit keeps
        rule L1 (the limit per instance) over its measured input."""
        m = self.measured.get(str(node.nid))
        if m is None or m.get("rows") is None or node.kind not in MEASURED_KINDS or node.limit is not None:
            return
        rows = float(m["rows"])
        how = measured_how(m)
        if node.kind == "AGGREGATE" and not node.group_by:
            return       # A2: one row per instance
        was = node.card100
        if node.kind == "AGGREGATE" and node.bracket == "[STREAMING]" and node.group_by:
            self.groups[node.nid] = rows
            per, node.card100 = preagg_output(rows, node.children[0].card100, n_inst)
            node.groups100 = per
            leaf = fragment_leaf(node)
            pairs = measured_pairs(m, leaf, n_inst)
            if pairs is not None:
                a3 = node.card100
                node.card100 = min(float(pairs["rows"]), node.children[0].card100)
                node.groups100 = node.card100 / n_inst
                node.rule = "M2 measured groups %s (%s); M3 measured (instance, group) pairs of its %d instance(s), " \
                            "rows reaching an instance by its fragment's leaf %d: %s (A3 gave %s, the rules %s)" % (
                                fmt_rows(rows), how, n_inst, leaf.nid, fmt_rows(node.card100), fmt_rows(a3),
                                fmt_rows(was))
                return
            node.rule = "M2 measured groups %s (%s); A3 each of its %d instance(s) keeps the distinct keys of its " \
                        "share: %s (the rules gave %s)" % (fmt_rows(rows), how, n_inst, fmt_rows(node.card100),
                                                           fmt_rows(was))
            return
        node.rule = "M2 measured %s (%s; the rules gave %s)" % (fmt_rows(rows), how, fmt_rows(was))
        if node.kind == "SCAN HDFS":
            node.measured_scan = m
            # Impala's scanners drop a filter that rejects under 10% (filters.MIN_REJECT): its rows stay
            dropped = [f["keep"] for f in m.get("filters", []) if f["keep"] >= 1.0 - MIN_REJECT and f["keep"] > 0]
            if dropped:
                rows /= math.prod(dropped)
                node.rule += "; filters keeping 90%% or more are not applied: %s" % fmt_rows(rows)
        node.card100 = rows


def planner_estimates(plan, schema, instances, plan_stem):
    """Sets node.est100 on every node of `plan`: its rows as Impala's planner estimates them at the target,
    which rule J3 decides joins on. The planner sees its statistics, not the rows a run will have, so
    these are the plan's SF3000 estimates rescaled by the rules alone: no measured rows (M2) and none of
    the rules that correct the planner's own estimates (D1, J2's caps, the date-key joins)."""
    Scaler(schema, instances, plan_stem, estimates=False).scale(plan.root)
    for n in plan.nodes.values():
        n.est100 = n.card100


MEASURED_KINDS = ("SCAN HDFS", "HASH JOIN", "NESTED LOOP JOIN", "AGGREGATE", "UNION", "SELECT", "ANALYTIC")


def measured_how(m):
    how = {"exact": "counted on the SF100 dimensions",
           "base": "counted at the base scale factor and grown to SF100"}.get(m["how"])
    if m["how"] == "sample":
        how = "sample x%.0f, %d sampled rows" % (m["rows"] / m["sample_count"], m["sample_count"]) \
            if m.get("sample_count") else "sample: no sampled row"
    return how or m["how"]


JOIN_KEY_RE = re.compile(r"[a-z][a-z0-9_]*\.?[a-z0-9_]*")


def key_columns(exprs):
    return {t.split(".")[-1] for t in JOIN_KEY_RE.findall(exprs) if "_" in t}


def unique_on(node, keys):
    """True if the rows out of `node` are known to be unique on columns `keys`:
    an aggregation grouped by a subset of them, possibly below pass-through
    operators or on the preserved side of a semi/anti join."""
    n = node
    while True:
        if n.kind == "AGGREGATE" and n.group_by and n.classes == 0:
            cols = set()
            for g in n.group_by:
                cols |= key_columns(g)
            return bool(cols) and cols <= keys
        if n.kind in ("EXCHANGE", "MERGING-EXCHANGE", "SELECT", "SORT", "ANALYTIC",
                      "CARDINALITY CHECK", "TOP-N") and n.children:
            n = n.children[0]
            continue
        if n.kind == "HASH JOIN":
            jt = n.bracket.strip("[]").split(",")[0].strip()
            if jt in ("LEFT SEMI JOIN", "LEFT ANTI JOIN"):
                n = n.children[0]
                continue
            if jt in ("RIGHT SEMI JOIN", "RIGHT ANTI JOIN"):
                n = n.children[1]
                continue
        return False


def ratio(node):
    if node.card and node.card > 0:
        return node.card100 / node.card
    return 1.0


def fmt_ratio(r):
    if r == 1.0:
        return "1"
    if r <= 0.0:
        return "0"       # a measured count of 0 (rule M2): what is above it keeps no row
    if r < 1.0:
        return "1/%.4g" % (1.0 / r)
    return "%.4g" % r


def fmt_rows(v):
    for unit, div in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("K", 1e3)):
        if v >= div:
            return "%.2f%s" % (v / div, unit)
    return "%.0f" % v


def date_range_days(node):
    """Days a date_dim scan keeps when its predicates are exactly a two-sided range on d_month_seq
    or d_year (rule D1), else None."""
    if node.table != "date_dim":
        return None
    for det in node.details:
        t = det.lstrip("| ").strip()
        if t.startswith("predicates: "):
            m = DATE_RANGE_RE.match(t[len("predicates: "):])
            if m and m.group(1) == m.group(3):
                units = int(m.group(2)) - int(m.group(4)) + 1
                return int(round(units * DAYS_PER_UNIT[m.group(1)])) if units > 0 else None
    return None


SCALE_RULES = {
    "S1_scan": "a scan's rows x (table rows at SF100 / table rows at SF3000); filters keep their selectivity",
    "J1_join": "inner/outer join: x the ratio of the input whose size changes most with the scale factor (a fact "
               "joined to dimensions changes like the fact: from SF3000 the smaller ratio); left semi/anti: x the "
               "left input's ratio; right semi/anti: x the right input's; cross join: product",
    "J2_mn_join": "a join with 'fk/pk conjuncts: none' (or 'assumed fk/pk', the planner's guess when it cannot "
                  "tell, as in q04, q05, q11, q74, q75) whose SF3000 estimate exceeds both inputs is capped at "
                  "SF100: full outer <= left + right; if one input is an aggregation grouped by a subset of its "
                  "join keys (unique), <= the other input; both unique: <= the smaller; otherwise <= the larger "
                  "(assumption: no row multiplication); ten joins use a cap chosen from the SQL "
                  "(mn_join_overrides)",
    "A1_aggregate": "grouping aggregation whose SF3000 output is >= half its input: x its input's ratio; "
                    "otherwise x the ratio of its grouping columns' distinct values (key-like columns and foreign "
                    "keys scale with their table, bounded attributes stay, unknown columns x1), capped at input "
                    "x classes. A streaming pre-aggregation and the merge aggregation that finishes it (above "
                    "their exchange) share one number of groups at SF100, the merge aggregation's by the same "
                    "rule; the pre-aggregation emits its groups once per instance (`groups` in the scenario, so "
                    "that its rows follow the instance count), at most its input; the merge emits the groups",
    "A2_scalar": "aggregation without grouping: one row per instance of its fragment",
    "A3_preaggregation": "a streaming pre-aggregation emits, per instance, the expected distinct keys of its "
                         "share of the input, groups x (1 - (1 - 1/groups)^(rows / instances)), rounded up, at "
                         "most its input (Impala's planner estimate since 4.5, IMPALA-2945, "
                         "AggregationNode.estimatePreaggCardinality; the scenario's `groups` is that per-instance "
                         "count)",
    "A4_tuple_cap": "the groups of a pre-aggregation are at most, per table its columns come from, the product "
                    "of those columns' distinct values at SF100 capped at the rows that table's scan below it "
                    "outputs, multiplied over the tables (Impala's per-tuple cap, IMPALA-13405, with the SF100 "
                    "scan output as the bound); date_dim columns take the calendar's count for the days the scan "
                    "keeps (a column numbering units of u days takes at most ceil(days / u) + 1 values, a cyclic "
                    "one at most its cycle). The derived variants' groupings use the same per-table cap at "
                    "the tables' SF100 rows",
    "F1_runtime_filters": "a scan lists the runtime filters its plan applies to it (`runtime_filters`: the "
                          "producing join and the share of rows each keeps); its `rows` count them all "
                          "applied, as the plan's `cardinality=X(filtered from Y)` does; the planner's "
                          "reduction X / Y is split over the producing joins in proportion to what each join "
                          "keeps of its probe input, a share of 0.9 or more keeps every row (Impala's scanners "
                          "drop a filter that rejects under 10%), and a scan the plan does not reduce waits "
                          "for its filters but keeps every row (tools/tpcds/filters.py)",
    "J3_join_distribution": "every hash join's broadcast or partitioned distribution is re-decided for the "
                            "target (5 executors, the section's mt_dop, the planner's own estimates at SF100: "
                            "the plan's rescaled by the rules without measured rows or the corrections D1 "
                            "and J2, since the planner decides before any row is counted) by Impala's cost rule "
                            "(tools/tpcds/joins.py: broadcast 2 x build bytes x probe hosts, x (1 + "
                            "trunc(sqrt(instances per host))) / 2 at mt_dop > 1, against probe + 2 x build "
                            "bytes, 4 bytes per tuple added to each row); a join keeps its printed choice where "
                            "the rule does not reproduce it at the plan's own estimates, or where rebuilding it "
                            "would move a node that relies on its fragment's partitioning; q72 (profile) and the "
                            "derived variants keep their plans' choices",
    "U1_union": "union: x (sum of inputs at SF100 / sum at SF3000)",
    "P1_other": "select, sort, analytic, cardinality check: x the input's ratio; an exchange carries what its "
                "senders emit",
    "L1_limit": "a node with a limit (TOP-N, or `limit:` on another node): at most the limit per instance of its "
                "fragment (`limit` in the scenario), at most its input",
    "R1_round": "rows = the SF100 estimate rounded to an integer, at least 1 if positive",
    "D1_date_range": "a date_dim scan whose predicates are exactly a two-sided range on d_month_seq or d_year "
                     "(which the planner estimates at its default 10%, 7.30K rows) keeps the days of that range "
                     "(73,049 days = 2,400 months = 200 years); the FK/PK join of a fact table with it keeps "
                     "min(1, days / days the fact's date key covers: its NDV, x7 for inventory's weekly "
                     "inv_date_sk) of the probe rows instead of the planner's min(1, 7.30K / NDV) = all",
    "M1_measured": "q72, the one query with a real profile (SF1): its plan shape is the profile's and every "
                   "node's rows are the profile's measured rows, rescaled from SF1 to SF100 by the same rules "
                   "(S1, J1, A1, ...) with SF1 as the base",
    "M2_measured": "a node counted on TPC-DS data (scenarios/tpcds_sf100/measured_rows.json, written by "
                   "tools/tpcds_measure_rows.py from dsdgen output: exact on the SF100 dimensions, one channel's "
                   "facts from a 1% sample of SF100 x100, the rest counted on a whole smaller scale factor, its "
                   "base_scale_factor, and grown node by node) takes its count "
                   "instead of the rules above, which stay the fallback for the nodes it does not translate; a "
                   "streaming pre-aggregation takes its measured groups and A3 for each instance's share (M3 where "
                   "its pairs were counted), a node with a limit keeps L1 over its measured input, a scan's "
                   "runtime filters take their measured shares (F1's 0.9 rule kept); a derived rollup variant's "
                   "level takes the groups of its base plan's ROLLUP class with the same columns (`classes`)",
    "M3_preaggregation_pairs": "a streaming pre-aggregation whose fragment's leftmost leaf is a scan of a "
                               "date-partitioned table (a partition is one scan range, read whole by one "
                               "instance; partitions spread over the instances as a uniform hash) or a hash "
                               "exchange (the hash of its keys) emits the distinct (instance, group) pairs "
                               "counted on TPC-DS data for the instance count and leaf they were counted "
                               "with: the printed leaf (measured_rows.json `per_instance`) or one J3 gives "
                               "its fragment (`per_instance_alternatives`); an instance count or leaf not "
                               "counted keeps A3",
    "M4_self_join": "a range self-join a derived variant adds (q51a: t1.item = t2.item and t1.rk >= t2.rk, "
                    "n(n+1)/2 rows for an item's n rows) takes its count on TPC-DS data (measured_rows.json "
                    "`self_joins` of its base plan: counted on the base scale factor as a histogram over the "
                    "items, grown item by item, tools/rowcount/selfjoin.py); without it, n = rows / all items",
}
