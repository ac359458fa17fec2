#!/usr/bin/python3
"""Generate the TPC-DS SF100 exchange workload from Impala's own distributed plans.

Reads the planner test files that ../shared/impala-plans holds (Impala's
`tpcds_cpu_cost` PlannerTest expectations: SF3000 statistics, 10 executors),
takes every EXCHANGE of each DISTRIBUTEDPLAN, rescales its row count to TPC-DS
scale factor 100, maps its senders and receivers onto a 5-executor cluster,
derives start dependencies from the plan tree, and writes

    scenarios/tpcds_sf100/workload.json   (a scenario, schema_version 1)
    scenarios/tpcds_sf100/README.md       (how every number was derived)

Usage:
    tools/tpcds_workload.py [--plans DIR] [--out DIR]

The output is a pure function of the plan files: same input, byte-identical
output (sorted, no time stamps, no absolute paths). Standard library only.
"""

import argparse
import hashlib
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_PLANS = os.path.normpath(os.path.join(REPO, "..", "shared", "impala-plans"))
DEFAULT_OUT = os.path.join(REPO, "scenarios", "tpcds_sf100")
DEFAULT_PROFILES = os.path.normpath(os.path.join(REPO, "..", "shared", "impala-profiles"))
# Runtime profiles the measured inputs come from (impala-profiles/README.md).
PROFILE_Q72 = "tpcds_72_local_run_profile.json"
PROFILE_Q1 = "tpcds_1_local_run_mt_dop_0_profile.json"
GENERATOR = "tools/tpcds_workload.py"

# --------------------------------------------------------------------------
# Fixed inputs (each with its source)
# --------------------------------------------------------------------------

# TPC-DS row counts per table. SF100: TPC-DS specification, Table 3-2
# "Database Row Counts" (the same numbers are in shared/reference/
# calibration-data.md for the tables it lists, in the SF100 column of
# shared/impala-plans/README.md, and in the dsdgen row-count tables of public
# TPC-DS kits). SF1: Impala's own SF1 test load, the expected results of
# apache/impala testdata/workloads/tpcds/queries/count.test at the plans'
# commit (used only for the q72 profile check). SF3000: numRows of
# stats-3TB.json, checked against the last column by the generator.
TABLE_ROWS = {
    # table: (SF1, SF100, SF3000)
    "call_center": (6, 30, 48),
    "catalog_page": (11718, 20400, 36000),
    "catalog_returns": (144067, 14404374, 432018033),
    "catalog_sales": (1441548, 143997065, 4320078880),
    "customer": (100000, 2000000, 30000000),
    "customer_address": (50000, 1000000, 15000000),
    "customer_demographics": (1920800, 1920800, 1920800),
    "date_dim": (73049, 73049, 73049),
    "household_demographics": (7200, 7200, 7200),
    "income_band": (20, 20, 20),
    "inventory": (11745000, 399330000, 1033560000),
    "item": (18000, 204000, 360000),
    "promotion": (300, 1000, 1800),
    "reason": (35, 55, 67),
    "ship_mode": (20, 20, 20),
    "store": (12, 402, 1350),
    "store_returns": (287514, 28795080, 863989652),
    "store_sales": (2880404, 287997024, 8639936081),
    "time_dim": (86400, 86400, 86400),
    "warehouse": (5, 15, 22),
    "web_page": (60, 2040, 3600),
    "web_returns": (71763, 7197670, 216003761),
    "web_sales": (719384, 72001237, 2159968881),
    "web_site": (30, 24, 66),
}

# Column-name prefix -> table (TPC-DS naming convention, specification 2.2-2.4).
COLUMN_PREFIX = {
    "ss": "store_sales", "sr": "store_returns", "cs": "catalog_sales",
    "cr": "catalog_returns", "ws": "web_sales", "wr": "web_returns",
    "inv": "inventory", "c": "customer", "ca": "customer_address",
    "cd": "customer_demographics", "hd": "household_demographics", "i": "item",
    "d": "date_dim", "t": "time_dim", "s": "store", "w": "warehouse",
    "p": "promotion", "cp": "catalog_page", "wp": "web_page", "web": "web_site",
    "cc": "call_center", "r": "reason", "sm": "ship_mode", "ib": "income_band",
}
# Foreign-key column suffix -> referenced dimension (TPC-DS schema).
FK_SUFFIX = [
    ("item_sk", "item"), ("customer_sk", "customer"), ("date_sk", "date_dim"),
    ("time_sk", "time_dim"), ("addr_sk", "customer_address"),
    ("cdemo_sk", "customer_demographics"), ("hdemo_sk", "household_demographics"),
    ("store_sk", "store"), ("promo_sk", "promotion"), ("warehouse_sk", "warehouse"),
    ("ship_mode_sk", "ship_mode"), ("call_center_sk", "call_center"),
    ("catalog_page_sk", "catalog_page"), ("web_page_sk", "web_page"),
    ("site_sk", "web_site"), ("reason_sk", "reason"),
    ("income_band_sk", "income_band"),
]

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

# The 104 statements of the workload, in the benchmark's order
# (impala-plans/queries.txt), with the plan file each one uses.
# Rule (the measured list is not published, see README): all 111 TPC-DS
# statements of queries.txt except the seven ROLLUP queries whose rollup-free
# official variant is also in the list (q18, q22, q67, q70, q77, q80, q86 are
# replaced by q18a, q22a, q67a, q70a, q77a, q80a, q86a); q51 and q51a both stay
# (q51a is a rewrite of q51's window frame, not a rollup variant).
ROLLUP_BASES_REPLACED = ["q18", "q22", "q67", "q70", "q77", "q80", "q86"]
VARIANT_BASE = {"q18a": "q18", "q22a": "q22", "q51a": "q51", "q67a": "q67",
                "q70a": "q70", "q77a": "q77", "q80a": "q80", "q86a": "q86"}

# Settings of the scenario that are not derived from the plans.
SF_TARGET = 100
SF_PLAN = 3000
EXECUTORS = 5               # calibration-data.md section A
PLAN_EXECUTORS = 10         # tpcds_cpu_cost planner tests (impala-plans/README.md)

KIND_TO_PARTITIONING = {
    "HASH": "HASH_PARTITIONED",
    "BROADCAST": "UNPARTITIONED",
    "UNPARTITIONED": "UNPARTITIONED",
    "RANDOM": "RANDOM",
}


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


class PlanError(Exception):
    pass


# --------------------------------------------------------------------------
# Plan parsing
# --------------------------------------------------------------------------

NODE_RE = re.compile(r"^(?P<prefix>(?:\|  |\|--)*)(?P<id>\d+):(?P<kind>[A-Z][A-Z -]*[A-Z])(?P<rest>.*)$")
FRAG_RE = re.compile(r"^(?P<prefix>(?:\|  |\|--)*)F(?P<id>\d+):PLAN FRAGMENT \[(?P<part>.*)\] "
                     r"hosts=(?P<hosts>\d+) instances=(?P<inst>\d+)(?P<rest>.*)$")
CARD_RE = re.compile(r"tuple-ids=(?P<tids>\S+) row-size=(?P<rs>[\d.]+)(?P<rsu>B|KB|MB|GB) "
                     r"cardinality=(?P<card>[\d.]+)(?P<cu>[KMGT]?)"
                     r"(?:\(filtered from (?P<ff>[\d.]+)(?P<ffu>[KMGT]?)\))?")
METRIC = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
BYTES = {"B": 1, "KB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3}


class Fragment:
    def __init__(self, fid, part, hosts, instances, line, rest):
        self.fid = fid
        self.part = part
        self.hosts = hosts
        self.instances = instances
        self.line = line
        self.adjusted = rest.strip()
        self.join_build = False


class Node:
    def __init__(self, nid, kind, bracket, line):
        self.nid = nid
        self.kind = kind
        self.bracket = bracket
        self.line = line
        self.details = []
        self.children = []
        self.parent = None
        self.fragment = None
        self.sender = None     # for exchanges: the fragment below
        # filled from details
        self.card = None
        self.card_text = ""
        self.filtered_from = None
        self.row_size = None
        self.row_size_text = ""
        self.tuple_ids = []
        self.limit = None
        self.group_by = []
        self.classes = 0
        self.fkpk = None
        self.table = None
        # computed
        self.card100 = None
        self.rule = ""
        self.mn_capped = False


def depth_of(prefix):
    return len(prefix) // 3


def parse_details(node):
    for d in node.details:
        s = d.lstrip("| ")
        m = CARD_RE.search(d)
        if m and node.card is None:
            node.tuple_ids = m.group("tids").split(",")
            node.row_size = float(m.group("rs")) * BYTES[m.group("rsu")]
            node.row_size_text = m.group("rs") + m.group("rsu")
            node.card = float(m.group("card")) * METRIC[m.group("cu")]
            node.card_text = m.group("card") + m.group("cu")
            if m.group("ff"):
                node.filtered_from = float(m.group("ff")) * METRIC[m.group("ffu")]
                node.card_text += "(filtered from %s%s)" % (m.group("ff"), m.group("ffu"))
        elif s.startswith("limit: ") or s.startswith("limit with ties: "):
            node.limit = int(s.split(":", 1)[1].strip())
        elif s.startswith("group by: "):
            node.group_by.append(s[len("group by: "):])
        elif re.match(r"Class \d+$", s):
            node.classes += 1
        elif s.startswith("fk/pk conjuncts: "):
            node.fkpk = s[len("fk/pk conjuncts: "):]
    m = re.match(r"\[LIMIT=(\d+)\]", node.bracket)
    if m:
        node.limit = int(m.group(1))
    if node.kind == "SCAN HDFS":
        m = re.match(r"\[[a-z_]+\.([a-z_]+)", node.bracket)
        if not m:
            raise PlanError("cannot read the table of scan %d: %s" % (node.nid, node.bracket))
        node.table = m.group(1)
    if node.card is None:
        raise PlanError("node %d:%s has no cardinality line" % (node.nid, node.kind))


def distributed_section(text, fname):
    lines = text.split("\n")
    start = end = None
    for i, ln in enumerate(lines):
        if ln.startswith("---- DISTRIBUTEDPLAN"):
            start = i + 1
        elif start is not None and end is None and (ln.startswith("---- ") or ln.startswith("====")):
            end = i
            break
    if start is None or end is None:
        raise PlanError("%s: no ---- DISTRIBUTEDPLAN section" % fname)
    return start, lines[start:end]


def parse_plan(path):
    """Parse the DISTRIBUTEDPLAN section into a tree; returns (root, nodes, fragments)."""
    with open(path, "r", encoding="utf-8") as f:
        text = f.read()
    fname = os.path.basename(path)
    offset, lines = distributed_section(text, fname)
    nodes = {}
    frags = {}
    last_node = {}   # content depth -> node that the next unmarked header at that depth attaches to
    cur_frag = {}    # content depth -> fragment of nodes at that depth
    root = None
    current = None
    pending_frag = None
    for i, ln in enumerate(lines):
        lineno = offset + i + 1
        fm = FRAG_RE.match(ln)
        nm = None if fm else NODE_RE.match(ln)
        if fm:
            current = None
            prefix = fm.group("prefix")
            marked = prefix.endswith("|--")
            d = depth_of(prefix)
            fr = Fragment("F" + fm.group("id"), fm.group("part"), int(fm.group("hosts")),
                          int(fm.group("inst")), lineno, fm.group("rest"))
            frags[fr.fid] = fr
            for k in [k for k in last_node if k > d]:
                del last_node[k]
            for k in [k for k in cur_frag if k > d]:
                del cur_frag[k]
            if marked:
                # a build branch: the next node at depth d is a child of the join at depth d-1
                last_node[d] = last_node.get(d - 1)
            elif d in last_node and last_node[d] is not None and last_node[d].kind in ("EXCHANGE", "MERGING-EXCHANGE"):
                last_node[d].sender = fr
            cur_frag[d] = fr
            pending_frag = fr
            continue
        if nm:
            prefix = nm.group("prefix")
            marked = prefix.endswith("|--")
            d = depth_of(prefix)
            rest = nm.group("rest").strip()
            bracket = rest if rest.startswith("[") else ""
            node = Node(int(nm.group("id")), nm.group("kind"), bracket, lineno)
            if node.nid in nodes:
                raise PlanError("%s: node id %d appears twice" % (fname, node.nid))
            nodes[node.nid] = node
            if marked:
                parent = last_node.get(d - 1)
                cur_frag[d] = cur_frag.get(d - 1)
            else:
                parent = last_node.get(d)
            for k in [k for k in last_node if k > d]:
                del last_node[k]
            for k in [k for k in cur_frag if k > d]:
                del cur_frag[k]
            if parent is None:
                if root is not None:
                    raise PlanError("%s:%d: second root node %d" % (fname, lineno, node.nid))
                root = node
            else:
                parent.children.append(node)
                node.parent = parent
            node.fragment = cur_frag.get(d)
            last_node[d] = node
            current = node
            pending_frag = None
            continue
        s = ln.lstrip("| ")
        if pending_frag is not None and s == "JOIN BUILD":
            pending_frag.join_build = True
        if current is not None:
            if s == "":
                current = None
            else:
                current.details.append(ln)
    if root is None:
        raise PlanError("%s: empty DISTRIBUTEDPLAN" % fname)
    for n in nodes.values():
        parse_details(n)
        if n.kind in ("EXCHANGE", "MERGING-EXCHANGE"):
            if n.sender is None:
                raise PlanError("%s: exchange %d has no sending fragment" % (fname, n.nid))
            if len(n.children) != 1:
                raise PlanError("%s: exchange %d has %d children" % (fname, n.nid, len(n.children)))
        if n.fragment is None:
            raise PlanError("%s: node %d is in no fragment" % (fname, n.nid))
    # Build children: Impala prints the branches (|--) before the first child;
    # the parser appended them in print order, so put the first child first.
    for n in nodes.values():
        if len(n.children) > 1:
            n.children = [n.children[-1]] + n.children[:-1]
    return root, nodes, frags, text


# --------------------------------------------------------------------------
# Row-count scaling from SF3000 to SF100
# --------------------------------------------------------------------------

class Scaler:
    """Re-estimates every plan node's cardinality at the target scale factor.

    Works bottom-up on the plan tree; each node's rule is recorded in node.rule.
    """

    def __init__(self, stats, target_col, plan_stem="", instances=EXECUTORS):
        self.plan_stem = plan_stem
        self.instances = instances
        self.stats = stats          # table -> {"numRows", "columns": {...}}
        self.col = target_col       # index into TABLE_ROWS tuples (0: SF1, 1: SF100)

    def table_ratio(self, table):
        rows = TABLE_ROWS[table]
        return rows[self.col] / rows[2]

    def column_ratio(self, col):
        """Ratio of a grouping column's distinct values, target / SF3000 (1 if unknown)."""
        col = col.split(".")[-1]
        m = re.match(r"^([a-z]+)_([a-z0-9_]+)$", col)
        if not m or m.group(1) not in COLUMN_PREFIX:
            return 1.0, "unknown column %s: ratio 1" % col
        table = COLUMN_PREFIX[m.group(1)]
        cstats = self.stats[table]["columns"].get(col)
        if cstats is None:
            return 1.0, "no statistics for %s: ratio 1" % col
        ndv = max(1, cstats["numDVs"])
        rows3000 = TABLE_ROWS[table][2]
        rest = m.group(2)
        if ndv >= 0.5 * rows3000:
            return self.table_ratio(table), "%s key-like (NDV %d of %d rows): x%s" % (
                col, ndv, rows3000, fmt_ratio(self.table_ratio(table)))
        for suffix, ref in FK_SUFFIX:
            if rest.endswith(suffix) and ref != table:
                r = min(1.0, self.table_ratio(ref))
                return r, "%s references %s: x%s" % (col, ref, fmt_ratio(r))
        target_rows = TABLE_ROWS[table][self.col]
        r = min(ndv, target_rows) / ndv
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
        preds = ""
        for d in node.details:
            s = d.lstrip("| ")
            if s.startswith("hash predicates: "):
                preds = s[len("hash predicates: "):]
        lkeys, rkeys = set(), set()
        for conj in preds.split(", "):
            if " = " in conj:
                a, b = conj.split(" = ", 1)
                lkeys |= key_columns(a)
                rkeys |= key_columns(b)
        lu = unique_on(left, lkeys) if lkeys else False
        ru = unique_on(right, rkeys) if rkeys else False
        override = MN_OVERRIDES.get((self.plan_stem, node.nid))
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
        if jt not in ("INNER JOIN", "LEFT SEMI JOIN") or len(node.children) != 2:
            return None
        d = node.children[1]
        while d.kind in ("EXCHANGE",) and d.children:
            d = d.children[0]
        if d.kind != "SCAN HDFS" or getattr(d, "date_days", None) is None:
            return None
        preds = ""
        for det in node.details:
            t = det.lstrip("| ")
            if t.startswith("hash predicates: "):
                preds = t[len("hash predicates: "):]
        for conj in preds.split(", "):
            m = re.match(r"^(?:\w+\.)?([a-z]+_[a-z_]*date_sk) = (?:\w+\.)?d_date_sk$", conj)
            if not m:
                continue
            key = m.group(1)
            table = COLUMN_PREFIX.get(key.split("_")[0])
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

    def scale(self, node):
        for c in node.children:
            self.scale(c)
        k = node.kind
        ch = node.children
        c3000 = node.card
        if k == "SCAN HDFS":
            r = self.table_ratio(node.table)
            node.card100 = c3000 * r
            node.rule = "scan of %s: x%s (table rows)" % (node.table, fmt_ratio(r))
            days = date_range_days(node)
            if days is not None:
                node.date_days = days
                node.card100 = days
                node.rule = "D1 date range: %d days (the plan's %s is the planner's default selectivity)" % (
                    days, node.card_text)
        elif k in ("HASH JOIN", "NESTED LOOP JOIN"):
            jt = node.bracket.strip("[]").split(",")[0].strip()
            rl = ratio(ch[0])
            rr = ratio(ch[1]) if len(ch) > 1 else 1.0
            fix = self.date_join_fix(node, jt)
            if fix is not None:
                factor, fix_why = fix
                r, why = rl * factor, "D1 date-range join: left-input ratio x %s (%s)" % (fmt_ratio(factor), fix_why)
            elif jt in ("LEFT SEMI JOIN", "LEFT ANTI JOIN"):
                r, why = rl, "left-input ratio (semi/anti join)"
            elif jt in ("RIGHT SEMI JOIN", "RIGHT ANTI JOIN"):
                r, why = rr, "right-input ratio (semi/anti join)"
            elif jt == "CROSS JOIN":
                r, why = rl * rr, "product of the input ratios (cross join)"
            else:
                r, why = min(rl, rr), "smaller input ratio (%s)" % jt.lower()
            node.card100 = c3000 * r
            node.rule = "%s: x%s" % (why, fmt_ratio(r))
            if (node.fkpk == "none" and len(ch) == 2 and jt != "CROSS JOIN"
                    and c3000 > max(ch[0].card, ch[1].card)):
                cap, capwhy = self.mn_cap(node, jt)
                node.mn_capped = True
                if node.card100 > cap:
                    node.card100 = cap
                    node.rule += "; M:N cap: %s" % capwhy
                else:
                    node.rule += "; M:N cap: %s, not binding" % capwhy
        elif k == "AGGREGATE":
            rin = ratio(ch[0])
            k_cls = max(1, node.classes)
            if not node.group_by:
                node.card100 = c3000
                node.rule = "aggregate without grouping: unchanged"
            elif c3000 >= 0.5 * ch[0].card:
                node.card100 = c3000 * rin
                node.rule = "aggregate driven by its input (%s of %s rows): x%s (input ratio)" % (
                    fmt_rows(c3000), fmt_rows(ch[0].card), fmt_ratio(rin))
            else:
                gr, cols, notes = self.group_ratio(node)
                inst = 1.0
                if node.bracket == "[STREAMING]" and node.fragment.instances > 0:
                    # a pre-aggregation emits each group once per instance
                    inst = min(1.0, self.instances / node.fragment.instances)
                node.card100 = min(c3000 * gr * inst, ch[0].card100 * k_cls)
                node.rule = "aggregate driven by its groups (%s of %s rows): x%s (group columns%s)" % (
                    fmt_rows(c3000), fmt_rows(ch[0].card), fmt_ratio(gr),
                    ": " + "; ".join(notes) if notes else ": none shrink")
                if inst != 1.0:
                    node.rule += "; pre-aggregation in %d instead of %d instances: x%s" % (
                        self.instances, node.fragment.instances, fmt_ratio(inst))
                if node.card100 < c3000 * gr * inst:
                    node.rule += ", capped at input x %d class(es)" % k_cls
        elif k == "UNION":
            s3000 = sum(c.card for c in ch)
            s100 = sum(c.card100 for c in ch)
            r = s100 / s3000 if s3000 > 0 else 1.0
            node.card100 = c3000 * r
            node.rule = "union: x%s (sum of inputs)" % fmt_ratio(r)
        elif ch:
            r = ratio(ch[0])
            node.card100 = c3000 * r
            node.rule = "%s: x%s (input ratio)" % (k.lower(), fmt_ratio(r))
        else:
            node.card100 = c3000
            node.rule = "%s leaf: unchanged" % k.lower()
        if k in ("EXCHANGE", "MERGING-EXCHANGE"):
            # Rows crossing an exchange are what all sender instances emit; a
            # per-instance limit or a scalar aggregate emits that much per instance.
            c = ch[0]
            n = self.sender_instances(c.fragment)
            if c.limit is not None and c.fragment.instances > 1:
                node.card100 = min(c.limit * n, c.card100_nolimit)
                node.rule = "rows out of %d sender instances (mt_dop=0) with a per-instance limit of %d" % (
                    n, c.limit)
            elif c.kind == "AGGREGATE" and not c.group_by and c.fragment.instances > 1:
                node.card100 = float(n)
                node.rule = "one row from each of %d sender instances (mt_dop=0; aggregate without grouping)" % n
            else:
                node.card100 = c.card100
                node.rule = "exchange: x%s (input)" % fmt_ratio(ratio(c))
        node.card100_nolimit = node.card100
        if node.limit is not None and k not in ("EXCHANGE", "MERGING-EXCHANGE"):
            base = ch[0].card100 if ch and k == "TOP-N" else node.card100
            node.card100_nolimit = base
            node.card100 = min(node.limit, base)
            node.rule += "; limit %d" % node.limit

    def sender_instances(self, frag):
        if frag.hosts == 1 and frag.instances == 1:
            return 1
        if frag.hosts < PLAN_EXECUTORS and frag.instances == frag.hosts:
            return min(frag.hosts, self.instances)
        return self.instances


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
    if r < 1.0:
        return "1/%.4g" % (1.0 / r)
    return "%.4g" % r


def fmt_rows(v):
    for unit, div in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("K", 1e3)):
        if v >= div:
            return "%.2f%s" % (v / div, unit)
    return "%.0f" % v


# --------------------------------------------------------------------------
# Query set
# --------------------------------------------------------------------------

def read_query_list(plans):
    path = os.path.join(plans, "queries.txt")
    names = []
    with open(path, "r", encoding="utf-8") as f:
        for ln in f:
            ln = ln.strip()
            if ln and not ln.startswith("#"):
                names.append(ln)
    return names


def plan_stem_for(qname):
    """Benchmark name (q14-1, q72, q67a) -> planner file stem (q14a, q72, q67)."""
    m = re.match(r"^q(\d+)([a-z]?)(?:-(\d))?$", qname)
    num, letter, part = int(m.group(1)), m.group(2), m.group(3)
    if part:
        return "q%02d%s" % (num, "ab"[int(part) - 1])
    if qname in VARIANT_BASE:
        return "q%02d" % int(VARIANT_BASE[qname][1:])
    return "q%02d%s" % (num, letter)


def select_queries(plans):
    """The 104 statements (benchmark order) and the plan file each uses."""
    names = read_query_list(plans)
    tpcds = []
    for n in names:
        m = re.match(r"^TPCDS-Q(\d+[A-Z]?(?:-\d)?)$", n)
        if m:
            tpcds.append("q" + m.group(1).lower())
    if len(tpcds) != 111:
        raise PlanError("queries.txt: expected 111 TPC-DS statements, found %d" % len(tpcds))
    chosen = [q for q in tpcds if q not in ROLLUP_BASES_REPLACED]
    for q in ROLLUP_BASES_REPLACED:
        if q not in tpcds or q + "a" not in tpcds:
            raise PlanError("queries.txt: %s and %sa should both be listed" % (q, q))
    out = []
    for q in chosen:
        stem = plan_stem_for(q)
        path = os.path.join(plans, "tpcds-%s.test" % stem)
        if not os.path.isfile(path):
            raise PlanError("no plan file %s for %s" % (path, q))
        out.append((q, stem))
    return tpcds, out


# --------------------------------------------------------------------------
# Placement on the 5-executor cluster
# --------------------------------------------------------------------------

def placement(frag, broadcast_receiver=False):
    """(executors, instances_per_executor, why) for a fragment; 0 = the scenario default."""
    scan = frag.part == "RANDOM"
    if frag.hosts == 1 and frag.instances == 1:
        if frag.part == "UNPARTITIONED":
            return 1, 1, "single-instance UNPARTITIONED fragment: 1 instance on executor 0"
        if scan:
            return 1, 1, "one instance on one host in the plan (scan of a one-file table): 1 instance on executor 0"
        return 1, 1, "one instance on one host in the plan: 1 instance on executor 0"
    if broadcast_receiver and frag.join_build and frag.instances == frag.hosts:
        return 0, 1, ("broadcast join build planned with one instance per host (one build shared by the "
                      "probe instances): 1 instance on each executor")
    if frag.instances == frag.hosts and frag.hosts < PLAN_EXECUTORS:
        n = min(frag.hosts, EXECUTORS)
        if scan:
            why = "scan of a table with %d scan range(s)" % frag.hosts
        else:
            why = "its input comes from that many instances"
        return n, 1, ("plan has %d instance(s) on %d of %d hosts (%s): 1 instance on executors 0..%d" % (
            frag.instances, frag.hosts, PLAN_EXECUTORS, why, n - 1))
    return 0, 0, "all executors, max(1, mt_dop) instances each (derived default)"


# --------------------------------------------------------------------------
# Start dependencies (overlap model, see README)
# --------------------------------------------------------------------------

def is_exchange(n):
    return n.kind in ("EXCHANGE", "MERGING-EXCHANGE")


def is_blocking(n):
    if n.kind == "AGGREGATE":
        return n.bracket != "[STREAMING]"
    return n.kind in ("SORT", "TOP-N")


def is_join(n):
    return n.kind in ("HASH JOIN", "NESTED LOOP JOIN")


class Deps:
    def __init__(self):
        self.memo = {}

    def first_exchanges(self, node, out):
        if is_exchange(node):
            out.add(node)
            return
        for c in node.children:
            self.first_exchanges(c, out)

    def sender_side(self, node, blocked, acc):
        """Exchanges that the sending pipeline rooted at `node` must wait for."""
        if is_exchange(node):
            if blocked:
                acc.add(node)
            else:
                acc |= self.start_deps(node)
            return
        if is_join(node):
            if len(node.children) > 1:
                builds = set()
                self.first_exchanges(node.children[1], builds)
                acc |= builds
            self.sender_side(node.children[0], blocked, acc)
            return
        below = blocked or is_blocking(node)
        for c in node.children:
            self.sender_side(c, below, acc)

    def receiver_side(self, x):
        """Build-side exchanges of the joins that x's rows are probed into,
        up to the first blocking operator above x's receiver."""
        acc = set()
        child, p = x, x.parent
        while p is not None and not is_exchange(p):
            if is_join(p):
                if p.children[0] is not child:
                    break           # x feeds a join build: the build pipeline ends here
                if len(p.children) > 1:
                    self.first_exchanges(p.children[1], acc)
            if is_blocking(p):
                break
            child, p = p, p.parent
        return acc

    def start_deps(self, x):
        if x.nid in self.memo:
            return self.memo[x.nid]
        acc = set()
        self.sender_side(x.children[0], False, acc)
        acc |= self.receiver_side(x)
        acc.discard(x)
        self.memo[x.nid] = acc
        return acc


def transitive_reduction(direct):
    """direct: id -> set(ids). Drops deps implied by other deps."""
    closure = {}

    def clos(i, stack=()):
        if i in closure:
            return closure[i]
        if i in stack:
            raise PlanError("dependency cycle through %s" % i)
        c = set()
        for d in direct[i]:
            c.add(d)
            c |= clos(d, stack + (i,))
        closure[i] = c
        return c

    out = {}
    for i in direct:
        ds = direct[i]
        keep = set(ds)
        for d in ds:
            keep -= clos(d)
        out[i] = keep
        clos(i)
    return out


# --------------------------------------------------------------------------
# Exchanges
# --------------------------------------------------------------------------

def git_blob_sha1(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def feeding_tables(node, acc):
    if node.kind == "SCAN HDFS":
        acc.add(node.table)
    for c in node.children:
        feeding_tables(c, acc)


def mn_caps_below(node, acc):
    if node.mn_capped:
        acc.append(node)
    for c in node.children:
        mn_caps_below(c, acc)


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


def exchange_kind(node):
    b = node.bracket.strip("[]")
    if node.kind == "MERGING-EXCHANGE":
        return "MERGING"
    if b.startswith("HASH("):
        return "HASH"
    return b


def build_query(qname, stem, plans, stats):
    path = os.path.join(plans, "tpcds-%s.test" % stem)
    root, nodes, frags, text = parse_plan(path)
    scaler = Scaler(stats, 1, stem)
    scaler.scale(root)
    deps = Deps()
    fname = os.path.basename(path)
    xs = sorted((n for n in nodes.values() if is_exchange(n)), key=lambda n: n.nid)
    result = []
    for x in xs:
        kind = exchange_kind(x)
        if kind not in ("HASH", "BROADCAST", "UNPARTITIONED", "MERGING", "RANDOM"):
            raise PlanError("%s: exchange %d has unknown partitioning %s" % (fname, x.nid, x.bracket))
        child = x.children[0]
        classes = max(1, child.classes)
        width = max(1, int(round(x.row_size / classes)))
        rows = x.card100
        rows_int = int(round(rows))
        if rows > 0 and rows_int == 0:
            rows_int = 1
        measured = profile_override(qname, x.nid)
        if measured is not None:
            rows_int, width, measured_why = measured
        s_exec, s_inst, s_why = placement(x.sender)
        if kind in ("UNPARTITIONED", "MERGING"):
            r_exec, r_inst, r_why = 1, 1, "single receiver instance (%s fragment %s, hosts=%d instances=%d)" % (
                x.fragment.part, x.fragment.fid, x.fragment.hosts, x.fragment.instances)
        else:
            r_exec, r_inst, r_why = placement(x.fragment, broadcast_receiver=(kind == "BROADCAST"))
        tables = set()
        feeding_tables(child, tables)
        caps = []
        mn_caps_below(child, caps)
        e = {
            "id": "%s.x%02d" % (qname, x.nid),
            "query": qname,
            "partitioning": KIND_TO_PARTITIONING["UNPARTITIONED" if kind == "MERGING" else kind],
        }
        if kind == "MERGING":
            e["merging"] = True
        if s_exec:
            e["sender_executors"] = s_exec
        if s_inst:
            e["sender_instances_per_executor"] = s_inst
        if r_exec:
            e["receiver_executors"] = r_exec
        if r_inst:
            e["receiver_instances_per_executor"] = r_inst
        e["rows_total"] = rows_int
        e["fixed_row_bytes"] = width
        e["var_row_bytes"] = 0
        e["tuples_per_row"] = min(64, len(x.tuple_ids))
        src = []
        src.append("%s line %d, DISTRIBUTEDPLAN node %d:%s %s%s" % (
            fname, x.line, x.nid, x.kind, x.bracket[:80], "..." if len(x.bracket) > 80 else ""))
        if qname in VARIANT_BASE:
            src.append("%s has no plan file: the plan of its base query %s is used (assumption)" % (
                qname, VARIANT_BASE[qname]))
        src.append("SF3000 plan: cardinality=%s row-size=%s tuple-ids=%s" % (
            x.card_text, x.row_size_text, ",".join(x.tuple_ids)))
        src.append("rows_total: %s x%s = %s at SF100 (%s; below it, node %d: %s)" % (
            x.card_text.split("(")[0], fmt_ratio(ratio(x)), fmt_rows(rows), x.rule, child.nid, child.rule))
        if tables:
            src.append("fed by: " + ", ".join(
                "%s x%s" % (t, fmt_ratio(TABLE_ROWS[t][1] / TABLE_ROWS[t][2])) for t in sorted(tables)))
        for c in caps:
            src.append("M:N join cap at node %d: %s" % (c.nid, c.rule.split("; M:N cap: ")[-1]))
        if measured is not None:
            src.append(measured_why)
        if measured is None and classes > 1:
            src.append("row width: row-size %s / %d aggregation classes (each row carries one class; "
                       "assumption)" % (x.row_size_text, classes))
        elif measured is None:
            src.append("row width: the plan's row-size")
        src.append("tuples_per_row: number of tuple ids")
        src.append("senders: %s %s hosts=%d instances=%d%s -> %s" % (
            x.sender.fid, "[" + x.sender.part[:60] + ("...]" if len(x.sender.part) > 60 else "]"),
            x.sender.hosts, x.sender.instances,
            (" " + x.sender.adjusted) if x.sender.adjusted else "", s_why))
        src.append("receivers: %s hosts=%d instances=%d%s -> %s" % (
            x.fragment.fid, x.fragment.hosts, x.fragment.instances,
            " JOIN BUILD" if x.fragment.join_build else "", r_why))
        e["source"] = "; ".join(src)
        dep_nodes = deps.start_deps(x)
        e["_deps"] = sorted("%s.x%02d" % (qname, d.nid) for d in dep_nodes)
        e["_kind"] = kind
        e["_bytes"] = rows_int * width
        e["_width"] = width
        result.append(e)
    data = open(path, "rb").read()
    scans = sum(n.card100 for n in nodes.values() if n.kind == "SCAN HDFS")
    return result, {"file": fname, "git_blob_sha1": git_blob_sha1(data), "scan_rows": scans}


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


CALIBRATION_KEYS = {
    "var_fraction": "share of the plan's row-size that is variable-length data (strings): the collector "
                    "sizes batches by the fixed part only",
    "compress_ns_per_byte": "sender CPU per uncompressed byte to LZ4-compress a batch, on the sender's "
                            "thread between batches (compress_ns_per_byte of every exchange)",
    "query_work_ns_per_row": "CPU per row outside the exchanges (scan decoding, joins, aggregation, "
                             "sorting): scan rows are spread over executors x 16 scanner threads at mt_dop=0 "
                             "(Impala's default, one per core) and executors x mt_dop otherwise, work rows "
                             "over executors x max(1, mt_dop) fragment threads (query_work_ns_per_row)",
}


def load_calibration(path):
    """The fitted values of a calibration.json: {key: value} for CALIBRATION_KEYS."""
    with open(path, "r", encoding="utf-8") as f:
        doc = json.load(f)
    params = doc["parameters"]
    out = {}
    for k in CALIBRATION_KEYS:
        v = params[k]["value"]
        if not isinstance(v, (int, float)) or v < 0:
            raise ValueError("parameters.%s.value: expected a number >= 0" % k)
        out[k] = float(v)
    if out["var_fraction"] >= 1:
        raise ValueError("parameters.var_fraction.value: expected a number below 1")
    return out


def calibration_provenance(c):
    if not c["values"]:
        how = "uncalibrated: no calibration.json (run tools/tpcds_calibrate.py)"
    else:
        how = "fitted by tools/tpcds_calibrate.py, values in %s" % c["file"]
    return {
        "compression_ratio": "%.4f: measured, pooled LZ4 ratio of the remote traffic in "
                             "impala-profiles/tpcds_72_local_run_profile.json (receivers on daemons where no "
                             "instance of the exchange sent rows: TotalBytesReceived / TotalBytesDequeued, "
                             "summed over exchanges %s)" % (c["lz4_ratio"], ", ".join(str(x) for x in c["lz4_detail"])),
        "query_overhead_s": "%.4f: measured, mean over the q72 and q1 (mt_dop=0) profiles of the query "
                            "timeline's 'Query submitted' to 'All execution backends started' plus 'Last row "
                            "fetched' to 'Unregister query' (%s)" % (
                                c["overhead_s"], ", ".join("%s %.4f s" % kv for kv in c["overhead_detail"].items())),
        "fitted": how,
        "parameters": {k: {"value": c["values"].get(k, 0.0), "meaning": v} for k, v in CALIBRATION_KEYS.items()},
    }


def apply_calibration(scenario, summary, cal, lz4_ratio, overhead_s):
    """Return a copy of scenario with the calibrated costs and widths set."""
    import copy
    out = copy.deepcopy(scenario)
    f = float(cal.get("var_fraction", 0.0))
    out["query_overhead_s"] = round(overhead_s, 4)
    out["query_work_ns_per_row"] = round(float(cal.get("query_work_ns_per_row", 0.0)), 4)
    out["queries"] = {q: {"work_rows": w, "scan_rows": summary["query_scan_rows"][q]}
                      for q, w in summary["query_work_rows"].items()}
    out["exchange_defaults"] = {"compression_ratio": round(lz4_ratio, 4)}
    if "compress_ns_per_byte" in cal:
        out["exchange_defaults"]["compress_ns_per_byte"] = round(float(cal["compress_ns_per_byte"]), 4)
    for e in out["exchanges"]:
        width = summary["widths"][e["id"]]
        fixed = max(1, int(round(width * (1.0 - f))))
        e["fixed_row_bytes"] = fixed
        e["var_row_bytes"] = width - fixed
        e["source"] += "; fixed/var %d/%d: row width %d split by var_fraction %.4g" % (
            fixed, width - fixed, width, f)
    # Keep the keys in the order of the format's documentation.
    order = ["schema_version", "query_order", "name", "description", "seed", "provenance", "query_overhead_s",
             "query_work_ns_per_row", "queries", "cluster", "flags", "exchange_defaults", "exchanges"]
    return {k: out[k] for k in order if k in out}


# --------------------------------------------------------------------------
# The workload
# --------------------------------------------------------------------------

def build_workload(plans):
    stats_path = os.path.join(plans, "stats-3TB.json")
    with open(stats_path, "r", encoding="utf-8") as f:
        stats = json.load(f)["tpcds_partitioned_parquet_snap"]
    for t, (sf1, sf100, sf3000) in TABLE_ROWS.items():
        if stats[t]["numRows"] != sf3000:
            raise PlanError("stats-3TB.json: %s numRows %d, expected SF3000 %d" % (t, stats[t]["numRows"], sf3000))
    readme = open(os.path.join(plans, "README.md"), "r", encoding="utf-8").read()
    m = re.search(r"Snapshot used: commit `([0-9a-f]{40})`", readme)
    commit = m.group(1) if m else "unknown"
    tpcds, selected = select_queries(plans)

    all_x = []
    scan_rows_by_query = {}
    files = {}
    per_query = []
    for q, stem in selected:
        xs, meta = build_query(q, stem, plans, stats)
        scan_rows_by_query[q] = meta.pop("scan_rows")
        files[meta["file"]] = meta["git_blob_sha1"]
        all_x.extend(xs)
        per_query.append((q, stem, xs))

    # Dependencies: transitive reduction inside each query. Queries run one
    # after another (the benchmark runs them serially): the scenario says so
    # with query_order "sequential" rather than with `after` across queries.
    direct = {e["id"]: set(e["_deps"]) for e in all_x}
    reduced = transitive_reduction(direct)
    for q, stem, xs in per_query:
        for e in xs:
            e["after"] = sorted(reduced[e["id"]])

    # Per query: scan rows (decoded by scanner threads at mt_dop=0) and work rows, every row an
    # exchange delivers to the operators above it (a broadcast delivers each row to each receiving
    # executor), run on fragment threads.
    query_work, query_scan = {}, {}
    for q, stem, xs in per_query:
        delivered = sum(e["rows_total"] * ((e.get("receiver_executors") or EXECUTORS) if e["_kind"] == "BROADCAST"
                                           else 1) for e in xs)
        query_work[q] = int(round(delivered))
        query_scan[q] = int(round(scan_rows_by_query[q]))

    # Summary counts.
    kinds = ["HASH", "BROADCAST", "UNPARTITIONED", "MERGING", "RANDOM"]
    counts = {k: 0 for k in kinds}
    rows_by = {k: 0 for k in kinds}
    bytes_by = {k: 0 for k in kinds}
    for e in all_x:
        counts[e["_kind"]] += 1
        rows_by[e["_kind"]] += e["rows_total"]
        bytes_by[e["_kind"]] += e["_bytes"]
    q_rows = []
    for q, stem, xs in per_query:
        c = {k: sum(1 for e in xs if e["_kind"] == k) for k in kinds}
        hb = sum(e["_bytes"] for e in xs if e["_kind"] == "HASH")
        hr = sum(e["rows_total"] for e in xs if e["_kind"] == "HASH")
        q_rows.append((q, stem, c, hr, hb))
    biggest = sorted((e for e in all_x if e["_kind"] == "HASH"),
                     key=lambda e: (-e["_bytes"], e["id"]))[:15]
    summary = {
        "commit": commit, "tpcds": tpcds, "selected": selected, "files": files,
        "counts": counts, "rows_by": rows_by, "bytes_by": bytes_by, "per_query": q_rows,
        "exchanges": len(all_x), "biggest": [(e["id"], e["rows_total"], e["fixed_row_bytes"], e["_bytes"])
                                             for e in biggest],
        "q72": q72_check(plans, stats),
        "no_after": sum(1 for e in all_x if not e["after"]),
        "hash_batches": sum(e["rows_total"] / max(1, 16384 // e["fixed_row_bytes"])
                            for e in all_x if e["_kind"] == "HASH"),
        "widths": {e["id"]: e["_width"] for e in all_x},
        "query_work_rows": query_work,
        "query_scan_rows": query_scan,
    }

    exchanges = []
    for e in all_x:
        out = {}
        for k in ("id", "query", "partitioning", "merging", "sender_executors", "sender_instances_per_executor",
                  "receiver_executors", "receiver_instances_per_executor", "rows_total", "fixed_row_bytes",
                  "var_row_bytes", "tuples_per_row", "after", "source"):
            if k in e:
                out[k] = e[k]
        exchanges.append(out)

    provenance = {
        "generator": GENERATOR + " (regenerate: /usr/bin/python3 tools/tpcds_workload.py)",
        "readme": "scenarios/tpcds_sf100/README.md explains every rule below",
        "plans": {
            "where": "../shared/impala-plans: Apache Impala planner test expectations, "
                     "testdata/workloads/functional-planner/queries/PlannerTest/tpcds_cpu_cost/",
            "apache_impala_commit": commit,
            "section": "DISTRIBUTEDPLAN (NUM_NODES=0, MT_DOP unset)",
            "statistics": "stats-3TB.json: TPC-DS scale factor 3000, planned for 10 executors "
                          "(TpcdsCpuCostPlannerTest)",
            "files_git_blob_sha1": dict(sorted(files.items())),
        },
        "query_set": {
            "count": len(selected),
            "rule": "the 111 TPC-DS statements of impala-plans/queries.txt (Impala's tpcds benchmark workload) "
                    "minus the 7 ROLLUP queries whose rollup-free official variant is also listed "
                    "(q18, q22, q67, q70, q77, q80, q86, replaced by their 'a' variants); q51 and q51a both kept. "
                    "The measured run's own list is not published (calibration-data.md gives only the count 104).",
            "queries": [q for q, _ in selected],
            "excluded": list(ROLLUP_BASES_REPLACED),
            "variants_using_base_plan": dict(sorted(VARIANT_BASE.items())),
            "plan_files": {q: "tpcds-%s.test" % stem for q, stem in selected},
        },
        "scale": {
            "from_scale_factor": SF_PLAN,
            "to_scale_factor": SF_TARGET,
            "table_rows": {t: {"sf1": v[0], "sf100": v[1], "sf3000": v[2]} for t, v in sorted(TABLE_ROWS.items())},
            "table_rows_source": "SF100: TPC-DS specification, Table 3-2 'Database Row Counts' (they agree with "
                                 "shared/reference/calibration-data.md and the table in impala-plans/README.md); "
                                 "SF3000: numRows of impala-plans/stats-3TB.json (checked by the generator); SF1: "
                                 "expected results of apache/impala testdata/workloads/tpcds/queries/count.test "
                                 "at the same commit (Impala's SF1 test load, the data of the q72 profile; used "
                                 "only for the q72 check)",
            "rules": SCALE_RULES,
            "mn_join_overrides": {"%s node %d" % k: "%s: %s" % v for k, v in sorted(MN_OVERRIDES.items())},
        },
        "cluster": {
            "executors": "5: calibration-data.md section A (5 executors, AWS m6id.4xlarge)",
            "cores_per_executor": "16: m6id.4xlarge has 16 vCPU (calibration-data.md section A)",
            "nic_bandwidth_gbps": "12.5: m6id.4xlarge network 'up to 12.5 Gbit/s' (calibration-data.md section A)",
            "rtt_us": "390: network time per RPC, calibration-data.md section A",
        },
        "seed": "1: the simulator's default seed (no number here is drawn at random)",
        "flags": "the measured baseline of calibration-data.md section A: mt_dop=0, "
                 "data_stream_sender_buffer_size 16 KiB, LZ4 compression on, K=1",
        "placement": PLACEMENT_RULES,
        "dependencies": DEPENDENCY_RULES,
        "row_width": WIDTH_RULES,
        "costs": "producer_ns_per_row, consumer_ns_per_row, compression_ratio and the fixed/var split come "
                 "from the calibration (provenance.calibration); hash/copy/compress/serialize/deserialize "
                 "costs keep the simulator defaults (the plans' cost= fields are planner units, not time)",
        "counts": {
            "queries": len(selected),
            "exchanges": len(all_x),
            "by_plan_kind": {k: counts[k] for k in kinds},
            "hash_rows_total": rows_by["HASH"],
            "hash_bytes_total": bytes_by["HASH"],
            "bytes_note": "bytes = rows_total x fixed_row_bytes (uncompressed tuple data)",
        },
        "calibration_comparison": "calibration-data.md counts 630 hash exchanges whose receivers are not pushing "
                                  "back; these plans give %d hash exchanges for the 104 statements (see README)"
                                  % counts["HASH"],
    }
    scenario = {
        "schema_version": 1,
        "query_order": "sequential",
        "name": "tpcds_sf100",
        "description": "Impala TPC-DS benchmark (104 statements) at SF100 on 5 executors: every exchange of "
                       "Impala's own distributed plans, rows rescaled from SF3000, queries run one after another",
        "seed": 1,
        "provenance": provenance,
        "cluster": {"executors": EXECUTORS, "cores_per_executor": 16, "nic_bandwidth_gbps": 12.5, "rtt_us": 390},
        "flags": {"mt_dop": 0, "data_stream_sender_buffer_size": 16384, "rpcs_in_flight_per_channel": 1,
                  "compression": True},
        "exchanges": exchanges,
    }
    return scenario, summary


SCALE_RULES = {
    "S1_scan": "a scan's rows x (table rows at SF100 / table rows at SF3000); filters keep their selectivity",
    "J1_join": "inner/outer join: x the smaller of its two inputs' ratios (a fact joined to dimensions shrinks "
               "like the fact); left semi/anti: x the left input's ratio; right semi/anti: x the right input's; "
               "cross join: product",
    "J2_mn_join": "a join with 'fk/pk conjuncts: none' whose SF3000 estimate exceeds both inputs is capped at "
                  "SF100: full outer <= left + right; if one input is an aggregation grouped by a subset of its "
                  "join keys (unique), <= the other input; both unique: <= the smaller; otherwise <= the larger "
                  "(assumption: no row multiplication); ten joins use a cap chosen from the SQL "
                  "(mn_join_overrides)",
    "A1_aggregate": "grouping aggregation whose SF3000 output is >= half its input: x its input's ratio; "
                    "otherwise x the ratio of its grouping columns' distinct values (key-like columns and foreign "
                    "keys scale with their table, bounded attributes stay, unknown columns x1), capped at input "
                    "x classes; a streaming pre-aggregation that is group-bound also x (5 / plan instances), "
                    "because each instance emits its groups once (computed for mt_dop=0)",
    "A2_scalar": "aggregation without grouping: unchanged",
    "U1_union": "union: x (sum of inputs at SF100 / sum at SF3000)",
    "P1_other": "exchange, select, sort, analytic, cardinality check: x the input's ratio",
    "L1_limit": "a node with a limit: at most the limit; an exchange fed by a per-instance limit (TOP-N) "
                "carries limit x sender instances, one fed by an aggregation without grouping one row per "
                "sender instance (5 sender instances: mt_dop=0), at most the input",
    "R1_round": "rows_total = the SF100 estimate rounded to an integer, at least 1 if positive",
    "D1_date_range": "a date_dim scan whose predicates are exactly a two-sided range on d_month_seq or d_year "
                     "(which the planner estimates at its default 10%, 7.30K rows) keeps the days of that range "
                     "(73,049 days = 2,400 months = 200 years); the FK/PK join of a fact table with it keeps "
                     "min(1, days / days the fact's date key covers: its NDV, x7 for inventory's weekly "
                     "inv_date_sk) of the probe rows instead of the planner's min(1, 7.30K / NDV) = all",
    "M1_measured": "where a real profile of the same query measured the exchange (q72 only), its rows and bytes "
                   "per row replace the estimate, scaled from SF1 to SF100 by the tables that drive them",
}

PLACEMENT_RULES = {
    "default": "all 5 executors, sender/receiver_instances_per_executor 0 (= max(1, mt_dop)), so the same file "
               "works for mt_dop=0 and mt_dop=8",
    "single_instance": "a fragment planned as hosts=1 instances=1 (the coordinator's UNPARTITIONED fragment, a "
                       "scan of a one-file table, or a fragment fed only by one) -> executors 1, instances 1",
    "few_hosts": "a fragment planned with one instance on each of n<10 hosts (a scan of item, split into 4 "
                 "scan ranges by the planner test, or a fragment fed only by such a scan) -> executors min(n, 5), "
                 "instances 1",
    "shared_join_build": "a broadcast exchange into a JOIN BUILD fragment planned with one instance per host "
                         "(one build shared by the probe instances) -> receivers on all executors, instances 1; "
                         "a hash exchange into a partitioned join build keeps the default (one build per probe "
                         "instance)",
    "gather": "UNPARTITIONED and MERGING-EXCHANGE receivers -> receiver_executors 1, "
              "receiver_instances_per_executor 1",
}

DEPENDENCY_RULES = {
    "after": "an exchange starts when every exchange in its `after` list has finished",
    "build_before_probe": "an exchange whose rows go through a join's probe side (on the sending or the "
                          "receiving side, up to the next blocking operator) waits for every exchange that "
                          "feeds that join's build side",
    "blocking": "an exchange whose sending pipeline reaches another exchange through a blocking operator "
                "(non-streaming aggregation, sort, top-n, or a join build) waits for it",
    "streaming": "an exchange that streams rows received from another exchange (through streaming operators "
                 "only) is given that exchange's own start condition, so both start together",
    "reduction": "`after` lists are transitively reduced",
    "serial_queries": "queries run one after another in the benchmark order, each alone on the cluster: "
                      "query_order \"sequential\" (each query starts when every exchange of the previous one "
                      "has ended)",
}

WIDTH_RULES = {
    "fixed_row_bytes": "the row width (the plan's row-size: fixed slots plus average string lengths; after a "
                       "multi-class aggregation (ROLLUP, several DISTINCTs) row-size / number of classes, since "
                       "each row carries one class's tuple (assumption)) x (1 - var_fraction), rounded, at least 1",
    "var_row_bytes": "the rest of the row width: the plans give no fixed/var split, so one shared fraction "
                     "(var_fraction, fitted) stands for the strings' share",
    "tuples_per_row": "number of tuple ids of the exchange in the plan",
}


# --------------------------------------------------------------------------
# README
# --------------------------------------------------------------------------

def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out)


def gb(b):
    return "%.1f GB" % (b / 1e9)


def render_readme(scenario, sm):
    c = sm["counts"]
    sel = [q for q, _ in sm["selected"]]
    lines = []
    add = lines.append
    add("# `tpcds_sf100`: Impala's TPC-DS benchmark at SF100 on 5 executors")
    add("")
    add("<!-- Generated by tools/tpcds_workload.py from ../shared/impala-plans; do not edit by hand. -->")
    add("")
    add("`workload.json` holds every exchange of the %d TPC-DS statements of Impala's benchmark workload, "
        "taken from Impala's own distributed plans and rescaled to scale factor 100 on a 5-executor cluster. "
        "It is the workload of the headline calibration (`shared/reference/calibration-data.md`, section A)." % len(sel))
    add("")
    add("Regenerate (byte-identical for the same input; no time stamps, stable order):")
    add("")
    add("```")
    add("/usr/bin/python3 tools/tpcds_workload.py            # --plans ../shared/impala-plans --out scenarios/tpcds_sf100")
    add("/usr/bin/python3 -m pytest tests/python/test_tpcds_workload.py")
    add("```")
    add("")
    add("Each exchange's `source` says the plan file, line and node, the SF3000 numbers, the scaling rule that "
        "gave `rows_total`, the tables feeding it, and how senders and receivers were placed. Run-wide "
        "provenance (plan snapshot, row counts, rules) is under the top-level `provenance` key.")
    add("")
    add("## Inputs")
    add("")
    add("- Plans: `../shared/impala-plans/tpcds-q*.test`, Apache Impala commit `%s`, folder "
        "`testdata/workloads/functional-planner/queries/PlannerTest/tpcds_cpu_cost/` (git blob ids of the "
        "files used are in `provenance.plans`). Section `DISTRIBUTEDPLAN` (NUM_NODES=0, MT_DOP unset), planned "
        "with `stats-3TB.json` (TPC-DS scale factor 3000) for 10 executors." % sm["commit"])
    add("- Query list: `../shared/impala-plans/queries.txt` (the names `load_tpc_queries(\"tpcds\")` returns).")
    add("- TPC-DS row counts per table at SF1, SF100 and SF3000 (below).")
    add("- Cluster and flags: `shared/reference/calibration-data.md` section A (5 executors with 16 vCPU and "
        "12.5 Gbit/s, RPC network time 390 us, mt_dop=0, 16 KiB buffer, LZ4 on, K=1).")
    add("")
    add("## Which 104 statements")
    add("")
    add("calibration-data.md says only \"104 queries\". Impala's `tpcds` benchmark workload has 111 TPC-DS "
        "statements (queries.txt: the 99 templates, q14/q23/q24/q39 in two parts, q10a and q35a instead of "
        "q10 and q35, plus eight variants q18a, q22a, q51a, q67a, q70a, q77a, q80a, q86a) and 3 row-count "
        "checks. No public file names the 104, so this rule is a choice:")
    add("")
    add("- The three `TPCDS-Q_COUNT_*` checks are not TPC-DS queries: left out.")
    add("- q18a, q22a, q67a, q70a, q77a, q80a and q86a are rollup-free forms of the ROLLUP queries q18, q22, "
        "q67, q70, q77, q80 and q86 (they spell the rollup out as UNION branches). Taking the variant instead "
        "of its base gives exactly 111 - 7 = 104. It agrees with the one per-query hint in calibration-data.md, "
        "which names q67a (not q67) next to q72, q51 and q64, and with Impala's older functional test list "
        "(`TestTpcdsQuery` in `tests/query_test/test_tpcds_queries.py` at the same commit runs q18a, q51, q51a, "
        "q67a, q70a, q77a, q80a and q86a, and none of the seven bases).")
    add("- q51a is not a rollup form (it rewrites q51's cumulative window), so q51 and q51a both stay.")
    add("")
    add("The 104, in benchmark order: " + ", ".join(sel) + ".")
    add("")
    add("Names follow the benchmark (`TPCDS-Q14-1` is `q14-1`, plan file `tpcds-q14a.test`). **The eight "
        "variants have no plan file: each uses its base query's plan** (q67a uses `tpcds-q67.test`, and so on; "
        "q51 and q51a therefore carry identical exchanges). This is an assumption; the variants' real plans "
        "differ (see \"Hash exchanges versus the measured 630\").")
    add("")
    add("## What is taken from each plan")
    add("")
    add("Every `EXCHANGE` and `MERGING-EXCHANGE` node of the DISTRIBUTEDPLAN section, one scenario exchange each "
        "(id `<query>.x<node id>`, e.g. `q72.x34`, the same id as `EXCHANGE_NODE (id=34)` in a profile):")
    add("")
    add(md_table(["plan", "scenario"], [
        ["`EXCHANGE [HASH(...)]`", "`HASH_PARTITIONED`"],
        ["`EXCHANGE [BROADCAST]`", "`UNPARTITIONED` (every row to every receiver instance)"],
        ["`EXCHANGE [UNPARTITIONED]`", "`UNPARTITIONED`, receiver_executors 1, receiver_instances_per_executor 1"],
        ["`MERGING-EXCHANGE [UNPARTITIONED]`", "`UNPARTITIONED`, `merging: true`, receiver 1 x 1"],
        ["`EXCHANGE [RANDOM]`", "`RANDOM` (occurs in none of the 104 statements)"],
    ]))
    add("")
    add("The plan tree is rebuilt from the indentation (`|--` starts a branch, a fragment header after an "
        "exchange is its sender). The parser checks that every exchange has exactly one sending fragment and "
        "that node ids are unique.")
    add("")
    add("## Rows at SF100")
    add("")
    add("The plans' cardinalities are planner estimates at SF3000. Fact and returns tables are exactly 30 "
        "times larger there than at SF100, dimensions are not (customer 15x, item 1.8x, inventory 2.6x, "
        "date_dim 1x), so no single factor works. Every plan node is re-estimated bottom-up at SF100 with the "
        "ratio SF100/SF3000 of what drives it:")
    add("")
    add(md_table(["rule", "what"], sorted(SCALE_RULES.items())))
    add("")
    add("Rule J2 exists because some planner estimates are impossible (q51's full outer join at 51.81T rows, "
        "q47/q57 self-joins in the 10^16 range). These joins get a cap chosen from the SQL:")
    add("")
    add(md_table(["plan", "join node", "cap", "reason"],
                 [["tpcds-%s.test" % k[0], k[1], v[0], v[1]] for k, v in sorted(MN_OVERRIDES.items())]))
    add("")
    add("(`keep` = the planner's multiplication is real; `min` = at most the smaller input; `left` = at most the "
        "left input.)")
    add("")
    add("TPC-DS row counts used. SF100: TPC-DS specification Table 3-2 (agrees with calibration-data.md and "
        "impala-plans/README.md). SF3000: `numRows` of `stats-3TB.json`, checked by the generator. SF1: Impala's "
        "SF1 test load, the expected results of `testdata/workloads/tpcds/queries/count.test` in apache/impala "
        "at the same commit (only used for the q72 check).")
    add("")
    add(md_table(["table", "SF1", "SF100", "SF3000", "SF100/SF3000"],
                 [[t, "{:,}".format(v[0]), "{:,}".format(v[1]), "{:,}".format(v[2]), fmt_ratio(v[1] / v[2])]
                  for t, v in sorted(TABLE_ROWS.items())]))
    add("")
    add("### Known biases (not corrected)")
    add("")
    add("- Apart from rules D1 and M1 the rules rescale the planner's estimates; they do not fix them. D1 fixes "
        "the one systematic error found: a range on d_month_seq or d_year is estimated at 10% of date_dim and "
        "its fact-to-date join then keeps every fact row (q67 `05:HASH JOIN` stays at 8.64G), while a year out "
        "of the five in the fact tables keeps a fifth. Other predicates keep the planner's selectivity.")
    add("- Pre-aggregation outputs depend on the instance count; they are computed for mt_dop=0 (5 instances). "
        "At mt_dop=8 group-bound pre-aggregations would send up to 8x more rows; `rows_total` does not change "
        "with mt_dop.")
    add("- Rows crossing an exchange fed by a per-instance TOP-N or a scalar aggregate are counted for 5 sender "
        "instances (mt_dop=0).")
    add("- Plan shape: the SF3000 plans on 10 hosts may choose other join orders and broadcast/partitioned "
        "joins than Impala would at SF100 on 5 hosts (the q72 check below shows one such difference).")
    add("")
    add("## Row widths")
    add("")
    for k, v in sorted(WIDTH_RULES.items()):
        add("- `%s`: %s." % (k, v))
    add("")
    add("The q72 check below compares these widths with measured bytes per row.")
    add("")
    add("## Senders and receivers on 5 executors")
    add("")
    for k, v in sorted(PLACEMENT_RULES.items()):
        add("- %s: %s." % (k.replace("_", " "), v))
    add("")
    add("With mt_dop=0 Impala runs join builds inside the probe fragment (one per executor); with mt_dop>0 "
        "broadcast builds are separate fragments with one instance per executor. Both give one broadcast "
        "receiver per executor, so `receiver_instances_per_executor: 1` is right for both.")
    add("")
    add("## Start order (`after`): the overlap model")
    add("")
    for k, v in sorted(DEPENDENCY_RULES.items()):
        add("- %s: %s." % (k.replace("_", " "), v))
    add("")
    add("So in q72 the broadcasts and the inventory exchange (x30) start first; x29 (catalog side, probe of "
        "the partitioned join 17 whose build is x30) and x34 (which streams x29's rows through the probe "
        "pipeline and the streaming pre-aggregation) start when x23-x28 and x30-x33 are done; x36 waits for "
        "x34. The model cannot say \"finishes after\": an exchange that streams another one's rows is only "
        "started with it. %d exchange(s) have no `after` (the sources of each query, which starts when the previous query ended)." % sm["no_after"])
    add("")
    add("## Counts")
    add("")
    rows_by, bytes_by = sm["rows_by"], sm["bytes_by"]
    add(md_table(["plan kind", "scenario partitioning", "exchanges", "rows_total (sum)", "rows x fixed_row_bytes"], [
        ["HASH", "HASH_PARTITIONED", c["HASH"], "{:,}".format(rows_by["HASH"]), gb(bytes_by["HASH"])],
        ["BROADCAST", "UNPARTITIONED", c["BROADCAST"], "{:,}".format(rows_by["BROADCAST"]),
         gb(bytes_by["BROADCAST"]) + " (once, before the copies)"],
        ["UNPARTITIONED", "UNPARTITIONED (1 receiver)", c["UNPARTITIONED"], "{:,}".format(rows_by["UNPARTITIONED"]),
         gb(bytes_by["UNPARTITIONED"])],
        ["MERGING-EXCHANGE", "UNPARTITIONED, merging", c["MERGING"], "{:,}".format(rows_by["MERGING"]),
         gb(bytes_by["MERGING"])],
        ["RANDOM", "RANDOM", c["RANDOM"], "0", "0"],
        ["all", "", sm["exchanges"], "{:,}".format(sum(rows_by.values())), gb(sum(bytes_by.values()))],
    ]))
    add("")
    est_rpcs = sm["hash_batches"]
    add("Cross-check, not used to tune anything: cutting each hash exchange's rows into batches of "
        "max(1, 16384 / fixed_row_bytes) rows gives about %.1f million batches (TransmitData RPCs, before the "
        "per-channel tails), against the 10.2 million hash TransmitData RPCs measured in the SF100 run "
        "(calibration-data.md section A). The plan-derived hash volume is therefore about %.1fx the measured "
        "one; the known biases above push it up, and counting string bytes as fixed (no var split) makes "
        "batches hold fewer rows than Impala's." % (est_rpcs / 1e6, est_rpcs / 10.2e6))
    add("")
    add("Largest hash exchanges (rows x fixed_row_bytes):")
    add("")
    add(md_table(["exchange", "rows_total", "fixed_row_bytes", "bytes"],
                 [[i, "{:,}".format(r), w, gb(b)] for i, r, w, b in sm["biggest"]]))
    add("")
    add("Per statement (H = HASH, B = BROADCAST, U = UNPARTITIONED, M = MERGING-EXCHANGE):")
    add("")
    add(md_table(["query", "plan file", "H", "B", "U", "M", "hash rows", "hash bytes"],
                 [[q, "tpcds-%s.test" % stem, cc["HASH"], cc["BROADCAST"], cc["UNPARTITIONED"], cc["MERGING"],
                   "{:,}".format(hr), gb(hb)] for q, stem, cc, hr, hb in sm["per_query"]]))
    add("")
    add("## Hash exchanges versus the measured 630")
    add("")
    add("calibration-data.md counts **630 hash exchanges whose receivers are not pushing back** in the measured "
        "run. The plans give **%d hash exchanges** for these 104 statements (502 in the 103 plan files; minus "
        "26 for the seven ROLLUP bases, plus the same 26 for their variants, plus 5 for q51a). Since 630 counts "
        "only a subset, the measured run had at least %d more hash exchanges than this workload. This "
        "workload does not invent them. Likely reasons, none of them fixable from the plans here:" % (
            c["HASH"], 630 - c["HASH"]))
    add("")
    add("1. The variants' real plans are larger than their bases' plans. q18a, q22a, q67a, q70a, q77a, q80a and "
        "q86a spell the ROLLUP out as UNION (ALL) branches that each read a WITH view (`results`, "
        "`results_rollup`). Impala inlines a WITH view wherever it is referenced, so each branch repeats the "
        "view's scans, joins and exchanges. In the benchmark SQL (apache/impala "
        "`testdata/workloads/tpcds/queries/tpcds-decimal_v2-q*.test` at the same commit) `from results` "
        "appears 5 times in q18a, 6 in q22a, 10 in q67a, 3 in q70a, 3 in q77a, 3 in q80a and 3 in q86a, "
        "while the base plans have 1, 1, 2, 3, 7, 10 and 2 hash exchanges. Repeating each base's hash "
        "exchanges once per reference gives roughly 70 more (a rough count, not used anywhere). q51a is also "
        "a different statement from q51 (more self-joins).")
    add("2. Join strategy depends on scale and cluster size: the same plan files' PARALLELPLANS section "
        "(MT_DOP=2) already has 540 hash exchanges against 502 in DISTRIBUTEDPLAN, mostly broadcast versus "
        "partitioned joins in 13 queries. At SF100 on 5 hosts the planner weighs build sizes (dimensions "
        "shrink less than facts) and host count differently from SF3000 on 10 hosts.")
    add("3. The measured run used a later master and its own query parameters (dsqgen substitutions), and the "
        "benchmark statements are those of queries.txt, whose plans here come from the planner tests' own "
        "parameter values.")
    add("")
    add("## Check against the real q72 profile")
    add("")
    add("`../shared/impala-profiles/tpcds_72_local_run_profile.json` is a q72 run at SF1 on 3 daemons "
        "(MT_DOP=12, text tables, DEBUG build; plan shape of `impala-plans/tpcds/tpcds-q72.test`). Its senders' "
        "`RowsSent` and `UncompressedRowBatchSize` (per receiver for broadcasts) are compared with the same "
        "rules applied to the SF3000 plan with SF1 row counts and 3 instances:")
    add("")
    add(md_table(["our node", "profile exch.", "rows crossing", "SF3000 plan", "rules at SF1", "profile rows",
                  "plan row-size", "profile bytes/row", "same place in the plan?"],
                 [[r["node"], r["profile_exchange"], r["what"], r["sf3000"], "{:,}".format(r["model_sf1_rows"]),
                   "{:,}".format(r["profile_rows"]), r["row_size"], r["profile_bytes_per_row"],
                   "yes" if r["comparable"] else "no (other join order)"] for r in sm["q72"]]))
    add("")
    add("What it shows:")
    add("")
    add("- Scan-fed exchanges of dimension and returns tables get the measured rows exactly (the table "
        "rules are right), and the filtered date_dim (d_year=2002) is within 3% (373 estimated, 365 measured).")
    add("- The MERGING-EXCHANGE carries limit x senders (300), as the per-instance rule says.")
    add("- The final hash exchange (34) is where the estimates fail: the rules give %s rows at SF1 against "
        "2,123 measured (about %dx too many), although the M:N join below it is already capped at one "
        "inventory row per catalog row (the profile shows 0.05). The planner's catalog-side estimate "
        "(194.06M at SF3000, 4.5%% of catalog_sales) is far above what its filters keep (about 0.7%%: one "
        "year of five, one hd_buy_potential value of six, one cd_marital_status of five)." % (
            "{:,}".format(next(r["model_sf1_rows"] for r in sm["q72"] if r["node"] == 34)),
            round(next(r["model_sf1_rows"] for r in sm["q72"] if r["node"] == 34) / 2123.0)))
    add("- The SF1 plan hashes raw catalog_sales (1.44M rows, 49 B/row) and inventory already joined with "
        "warehouse, item and two date_dims (16.38M rows, 245.5 B/row); the SF3000 plan hashes catalog_sales "
        "after its dimension joins and raw inventory (16 B/row).")
    add("- So rule M1 takes q72's three hash exchanges from the profile, not from the plan: x29 = exchange 27, "
        "x30 = exchange 28, x34 = exchange 34, with their measured bytes per row, rows x SF100/SF1 of the "
        "driving tables (their `source` says which). This is the real planner's choice on a small cluster; "
        "the measured SF100 run on 5 hosts is assumed to make the same one (assumption).")
    add("- Widths: the plan's row-size is close to the measured bytes per row for wide rows (item 117 vs "
        "128.8, exchange 34 169 vs 173.6, root 169 vs 177.6) but below it for narrow rows (8 B date keys vs "
        "17-25 B): the SF1 text tables use BIGINT keys and the serialized batch adds per-row overhead.")
    add("")
    cal = sm["calibration"]
    add("## Measured, fitted and default costs")
    add("")
    add("Measured in the real profiles (`../shared/impala-profiles`), not fitted:")
    add("")
    add("- `compression_ratio` %.4f (every exchange, `exchange_defaults`): the pooled LZ4 ratio of the q72 "
        "profile's remote traffic. A channel to the sender's own daemon is not compressed, so only receivers on "
        "daemons where no instance of the exchange sent rows count: their TotalBytesReceived (on the wire) over "
        "TotalBytesDequeued (deserialized), summed over exchanges %s. Per exchange it ranges from %.2f to %.2f; "
        "the pooled figure is dominated by exchange 28's wide rows." % (
            cal["lz4_ratio"], ", ".join(str(x) for x in cal["lz4_detail"]),
            min(d["ratio"] for d in cal["lz4_detail"].values()), max(d["ratio"] for d in cal["lz4_detail"].values())))
    add("- `query_overhead_s` %.4f: mean over the q72 and q1 (mt_dop=0) profiles of the query timeline's "
        "'Query submitted' to 'All execution backends started' plus 'Last row fetched' to 'Unregister query' "
        "(%s)." % (cal["overhead_s"], ", ".join("%s %.4f s" % kv for kv in cal["overhead_detail"].items())))
    add("- `queries.<q>.scan_rows`: every scan's rows at SF100, from the plan (sum %s); decoded by the scan "
        "node's scanner threads at mt_dop=0 (Impala's num_scanner_threads, one per core by default: "
        "`query_scanner_threads` 0), by each fragment instance's own thread with mt_dop > 0." % fmt_rows(
            sum(scenario["queries"][q]["scan_rows"] for q in scenario["queries"])))
    add("- `queries.<q>.work_rows`: every row an exchange delivers to the operators above it (a broadcast once "
        "per receiving executor), from the plan (sum %s); processed on the fragment instance's thread, one per "
        "executor at mt_dop=0 and mt_dop of them otherwise." % fmt_rows(
            sum(scenario["queries"][q]["work_rows"] for q in scenario["queries"])))
    add("")
    if cal["values"]:
        add("Fitted by `tools/tpcds_calibrate.py` to the K=1 figures of calibration-data.md section A, one "
            "figure each (values and residuals in `calibration.json`, shown in the project README):")
    else:
        add("Not calibrated yet (no `calibration.json`): the three fitted parameters are at their neutral values.")
    add("")
    for k, v in CALIBRATION_KEYS.items():
        add("- `%s` = %s: %s." % (k, cal["values"].get(k, "unset"), v))
    add("")
    add("Simulator defaults (`exsim params`): `hash_ns_per_row`, `copy_ns_per_row`, `serialize_ns_per_byte`, "
        "`deserialize_ns_per_byte`; `producer_ns_per_row` and `consumer_ns_per_row` are 0 (the operators' work "
        "is the query work above, outside the exchanges; receivers drain as fast as batches arrive, so which "
        "exchanges push back is decided by buffer sizes and deserialization alone). The plans' `cost=` fields "
        "are planner units, not time.")
    add("")
    add("## Assumptions, in one list")
    add("")
    add("1. The 104 statements (rule above); the eight variants use their base query's plan.")
    add("2. Rows: planner estimates at SF3000 rescaled by rules S1-R1 and D1; the ten M:N join caps; q72's hash "
        "exchanges from its SF1 profile (M1); the biases listed.")
    add("3. Widths: the plan's row-size (or the profile's bytes per row), split into fixed and variable bytes by "
        "one shared fraction; multi-class aggregation rows = row-size / classes.")
    add("4. Placement: rules above; the measured cluster is 5 executors.")
    add("5. Overlap: build before probe, blocking operators, streaming exchanges start together, queries serial.")
    add("6. Time: a query's runtime = measured overhead + (scan rows / scan threads + work rows / max(1, mt_dop)) "
        "x one fitted cost per row / executors + the span of its exchanges, scan threads being 16 (one per core) "
        "at mt_dop=0 and mt_dop otherwise; one cost for scan and operator rows; the work does not overlap the "
        "exchanges.")
    add("")
    return "\n".join(lines)


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------

def dump_json(obj):
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plans", default=DEFAULT_PLANS,
                    help="folder with Impala's TPC-DS planner tests (default: ../shared/impala-plans)")
    ap.add_argument("--out", default=DEFAULT_OUT,
                    help="output folder for workload.json and README.md (default: scenarios/tpcds_sf100)")
    ap.add_argument("--profiles", default=DEFAULT_PROFILES,
                    help="folder of the real runtime profiles the LZ4 ratio and the per-query overhead are "
                         "read from (default: ../shared/impala-profiles)")
    ap.add_argument("--calibration", default=None,
                    help="fitted parameters (default: OUT/calibration.json if it exists, else uncalibrated)")
    args = ap.parse_args(argv)
    for name in (PROFILE_Q72, PROFILE_Q1):
        if not os.path.isfile(os.path.join(args.profiles, name)):
            sys.stderr.write("tpcds_workload: profile %s not found in %s; pass --profiles DIR\n" % (
                name, args.profiles))
            return 2
    for need in ("queries.txt", "stats-3TB.json", "README.md", "tpcds-q72.test"):
        if not os.path.isfile(os.path.join(args.plans, need)):
            sys.stderr.write("tpcds_workload: plan folder %s not found or incomplete (missing %s); "
                             "pass --plans DIR (Impala's tpcds_cpu_cost planner tests, see "
                             "../shared/impala-plans/README.md)\n" % (args.plans, need))
            return 2
    cal_path = args.calibration or os.path.join(args.out, "calibration.json")
    cal = {}
    if args.calibration or os.path.isfile(cal_path):
        try:
            cal = load_calibration(cal_path)
        except (OSError, ValueError, KeyError) as e:
            sys.stderr.write("tpcds_workload: %s: %s\n" % (cal_path, e))
            return 2
    try:
        base, summary = build_workload(args.plans)
        measured = measured_inputs(args.profiles)
    except PlanError as e:
        sys.stderr.write("tpcds_workload: %s\n" % e)
        return 1
    scenario = apply_calibration(base, summary, cal, measured["lz4_ratio"], measured["overhead_s"])
    summary["calibration"] = dict(measured, values=cal, file=os.path.relpath(cal_path, REPO) if cal else None)
    scenario["provenance"]["calibration"] = calibration_provenance(summary["calibration"])
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "workload.json"), "w", encoding="utf-8", newline="\n") as f:
        f.write(dump_json(scenario))
    with open(os.path.join(args.out, "README.md"), "w", encoding="utf-8", newline="\n") as f:
        f.write(render_readme(scenario, summary))
    c = summary["counts"]
    print("tpcds_workload: %d queries, %d exchanges (HASH %d, BROADCAST %d, UNPARTITIONED %d, MERGING %d, "
          "RANDOM %d) -> %s" % (len(summary["selected"]), summary["exchanges"], c["HASH"], c["BROADCAST"],
                                c["UNPARTITIONED"], c["MERGING"], c["RANDOM"], args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
