"""Row sizes of exchanges from the column types of their tuples (README "Row sizes").

Impala sizes a sender's per-channel batch by RowDescriptor::GetRowSize(): the sum of the fixed
byte sizes of ALL tuples of the row (descriptors.cc); a tuple's byte size is its slots' sizes
(INT 4, BIGINT 8, DATE 4, DECIMAL 4/8/16, STRING 12 for the pointer and length) plus one null
bit per nullable slot, rounded up to bytes (TupleDescriptor.computeMemLayout). String bytes go
on top of that on the wire. The plans do not list a tuple's slots, only each node's row-size:
the planner's average serialized size, the sum over slots of the slot size plus the column's
average length for strings with statistics (ColumnStats.avgSerializedSize). So each tuple's
slots are recovered from what creates it:

- a scan's tuple: the subset of its table's columns named in the query's SQL whose planner
  sizes add up to the printed row-size (columns qualified with the scan's alias first);
- an aggregation's tuple: its grouping expressions (typed when they are columns) and one slot
  per aggregate output, the slots of unknown size filling the rest of the printed size;
- a sort, top-n or union tuple: the subset of its input row's slots that adds up to its
  printed size, the rest as computed slots of unknown size (fixed);
- an analytic tuple: its functions' results (fixed).

The result per tuple: fixed bytes (slots + null bytes) and string bytes (average lengths).
"""

import math
import re

from tools.tpcds.ddl import slot_size

EXPR_SPLIT_RE = re.compile(r",\s*")


class Slot:
    """A tuple slot: fixed size, string bytes it carries on average, whether the planner's
    row-size counts those string bytes (columns with statistics do, computed strings do not)."""

    __slots__ = ("name", "size", "var", "counted")

    def __init__(self, name, size, var=0.0, counted=True):
        self.name = name
        self.size = size
        self.var = var
        self.counted = counted

    @property
    def planner(self):
        return self.size + (self.var if self.counted else 0.0)


class Layout:
    """A tuple's slots and how they were found."""

    def __init__(self, tid, slots, how, exact=True):
        self.tid = tid
        self.slots = slots
        self.how = how
        self.exact = exact

    @property
    def fixed(self):
        return sum(s.size for s in self.slots) + (len(self.slots) + 7) // 8

    @property
    def var(self):
        return sum(s.var for s in self.slots)

    @property
    def planner(self):
        return sum(s.planner for s in self.slots)


def tolerance(node):
    """How far the planner's unrounded row-size may be from the printed one."""
    return 0.5 if node.row_size_text.endswith("B") and not node.row_size_text.endswith("KB") else 6.0


def split_top(text):
    """Split a comma-separated expression list at top-level commas."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def column_slot(schema, col, types=None):
    t = (types or {}).get(col.name, col.type)
    return Slot(col.name, slot_size(t), col.avg if col.string and t.upper().startswith(("STRING", "VARCHAR"))
                else 0.0, True)


def expr_slot(schema, expr):
    """Slot of a grouping expression: (slot, known). A column reference is typed by the schema;
    substr(column, a, n) is a computed string of at most n of the column's characters; a string
    literal is its length; anything else is a computed slot of unknown fixed size."""
    e = expr.strip()
    m = re.match(r"^(?:[a-z_0-9]+\.)?([a-z]+_[a-z0-9_]+)$", e)
    if m and schema.column(m.group(1)) is not None:
        return column_slot(schema, schema.column(m.group(1))), True
    m = re.match(r"^(?:substr|substring)\((?:[a-z_0-9]+\.)?([a-z]+_[a-z0-9_]+), \d+, (\d+)\)$", e)
    if m and schema.column(m.group(1)) is not None:
        col = schema.column(m.group(1))
        return Slot(e, 12, min(float(m.group(2)), col.avg), False), True
    m = re.match(r"^'([^']*)'$", e)
    if m:
        return Slot(e, 12, float(len(m.group(1))), False), True
    if e.upper() == "NULL":
        return None, True
    return Slot(e, 0, 0.0, True), False


def best_subset(items, target, tol, prefer=()):
    """Subset of items (Slots) whose planner sizes add up to target within tol.

    Dynamic programming over the subsets' planner sizes (in half bytes): per size one best subset
    (most slots named in `prefer`, then most slots) and whether subsets of that size differ in their
    string bytes (an ambiguity that matters: the fixed/var split). Returns (slots, exact, ambiguous)."""
    if abs(sum(it.planner for it in items) - target) <= tol:
        return list(items), True, False
    limit = int(math.ceil((target + tol) * 2))
    # half-byte size -> (score, members, string bytes, ambiguous); score = (preferred slots, slots)
    states = {0: ((0, 0), (), 0.0, False)}
    for i, it in enumerate(items):
        add_pref = 1 if it.name in prefer else 0
        add_var = it.var if it.counted else 0.0
        step = it.planner * 2
        new = dict(states)
        for key, (score, members, var, amb) in states.items():
            nk = int(round(key + step))
            if nk > limit:
                continue
            cand = ((score[0] + add_pref, score[1] + 1), members + (i,), var + add_var, amb)
            old = new.get(nk)
            if old is None:
                new[nk] = cand
            else:
                differ = old[3] or amb or abs(old[2] - cand[2]) > 0.5
                best = cand if cand[0] > old[0] else old
                new[nk] = (best[0], best[1], best[2], differ)
        states = new
    matches = [(k, st) for k, st in states.items() if abs(k / 2.0 - target) <= tol]
    if matches:
        k, best = max(matches, key=lambda ks: (ks[1][0], -abs(ks[0] / 2.0 - target)))
        ambiguous = best[3] or len({round(st[2]) for _, st in matches}) > 1
        return [items[i] for i in best[1]], True, ambiguous
    # Nothing adds up: the largest subset below the target (the rest is filled by the caller).
    k, below = max(states.items(), key=lambda ks: (ks[0], ks[1][0]))
    return [items[i] for i in below[1]], False, False


def _fill(slots, planner_total, extra_count):
    """Computed slots of unknown size that make the slots add up to the planner's total."""
    rest = planner_total - sum(s.planner for s in slots)
    if rest <= 0.5 and extra_count == 0:
        return []
    n = max(1, extra_count)
    return [Slot("computed", max(0.0, rest) / n, 0.0, True) for _ in range(n)]


def sql_mentions(sql):
    """Column names the SQL mentions, and (alias, column) pairs it qualifies."""
    words = set(re.findall(r"\b[a-z][a-z0-9]*_[a-z0-9_]+\b", sql.lower()))
    qualified = set(re.findall(r"\b([a-z][a-z0-9_]*)\.([a-z][a-z0-9]*_[a-z0-9_]+)\b", sql.lower()))
    return words, qualified


class RowSizes:
    """Slot layouts of every tuple of one plan (see the module docstring)."""

    def __init__(self, plan, schema, sql, scan_columns=None):
        self.plan = plan
        self.schema = schema
        self.words, self.qualified = sql_mentions(sql)
        self.scan_columns = scan_columns   # optional: (table, alias) -> column names (taken as given)
        self.layouts = {}
        self.notes = {"ambiguous": [], "inexact": []}
        self._visit(plan.root)

    @staticmethod
    def tid(t):
        return t.rstrip("N")

    def row(self, node):
        return [self.layouts[self.tid(t)] for t in node.tuple_ids if self.tid(t) in self.layouts]

    def _visit(self, node):
        for c in node.children:
            self._visit(c)
        below = set()
        for c in node.children:
            below |= {self.tid(t) for t in c.tuple_ids}
        new = [self.tid(t) for t in node.tuple_ids if self.tid(t) not in below and self.tid(t) not in self.layouts]
        if not new:
            return
        known = sum(self.layouts[self.tid(t)].planner for t in node.tuple_ids if self.tid(t) in self.layouts)
        printed = max(0.0, node.row_size - known)
        if node.kind == "SCAN HDFS":
            self.layouts[new[0]] = self._scan(node, new[0], printed)
        elif node.kind == "AGGREGATE":
            for tid, lay in zip(new, self._aggregate(node, new, printed)):
                self.layouts[tid] = lay
        elif node.kind == "ANALYTIC":
            n = max(1, len(split_top(node.detail("functions: ") or "x")))
            self.layouts[new[0]] = Layout(new[0], _fill([], printed, n), "analytic results (fixed)")
        elif node.kind in ("SORT", "TOP-N", "UNION") and node.children:
            src = node.children[0]
            items = [s for lay in self.row(src) for s in lay.slots]
            slots, exact, amb = best_subset(items, printed, tolerance(node))
            slots = [Slot(s.name, s.size, s.var, s.counted) for s in slots]
            if amb:
                self.notes["ambiguous"].append("%s node %d" % (self.plan.where, node.nid))
            slots += _fill(slots, printed, 0)
            self.layouts[new[0]] = Layout(new[0], slots, "%s tuple: slots of its input row" % node.kind.lower(),
                                          exact)
        else:
            for tid in new:
                self.layouts[tid] = Layout(tid, _fill([], printed / len(new), 1), "%s tuple (fixed)" %
                                           node.kind.lower(), False)

    def _scan(self, node, tid, printed):
        cols = [c for c in self.schema.by_table.get(node.table, [])]
        if self.scan_columns is not None and (node.table, node.alias) in self.scan_columns:
            names = self.scan_columns[(node.table, node.alias)]
            slots = [column_slot(self.schema, self.schema.column(n)) for n in names]
            return Layout(tid, slots, "scan of %s: the columns of the same scan in the planner test" % node.table)
        items = [column_slot(self.schema, c) for c in cols if c.name in self.words]
        prefer = {c for a, c in self.qualified if a == node.alias} if node.alias else set()
        slots, exact, amb = best_subset(items, printed, tolerance(node), prefer)
        if amb:
            self.notes["ambiguous"].append("%s node %d" % (self.plan.where, node.nid))
        if not exact:
            self.notes["inexact"].append("%s node %d" % (self.plan.where, node.nid))
            slots = slots + _fill(slots, printed, 0)
        return Layout(tid, slots, "scan of %s: %d of its columns named in the SQL" % (node.table, len(slots)), exact)

    def _aggregate(self, node, new, printed):
        groups = node.group_by or [""]
        outputs = node.outputs or [""]
        per_class = []
        unknown = 0
        for i, tid in enumerate(new):
            g = groups[i] if i < len(groups) else groups[-1]
            o = outputs[i] if i < len(outputs) else outputs[-1]
            slots = []
            for e in split_top(g):
                s, known = expr_slot(self.schema, e)
                if s is not None:
                    slots.append(s)
                    unknown += 0 if known else 1
            n_out = len(split_top(o)) if o else 0
            slots += [Slot("aggregate", 0, 0.0, True) for _ in range(n_out)]
            unknown += n_out
            per_class.append(slots)
        rest = printed - sum(s.planner for slots in per_class for s in slots)
        each = max(0.0, rest) / unknown if unknown else 0.0
        out = []
        for tid, slots in zip(new, per_class):
            for s in slots:
                if s.size == 0 and s.var == 0:
                    s.size = each
            out.append(Layout(tid, slots, "aggregation output: grouping expressions and aggregates",
                              exact=unknown > 0 or abs(rest) < 1))
        return out


def exchange_row(sizes, node):
    """(fixed_row_bytes, var_row_bytes, tuples_per_row, how) of the rows an exchange node carries.

    fixed: every tuple of the row (the sender's batch capacity is buffer / this); var: the string
    bytes of a row; for a multi-class aggregation's row (one class's tuple per row) the mean over
    the classes."""
    lays = [sizes.layouts[RowSizes.tid(t)] for t in node.tuple_ids if RowSizes.tid(t) in sizes.layouts]
    fixed = sum(l.fixed for l in lays)
    classes = node.children[0].classes if node.children else 0
    if classes > 1:
        var = sum(l.var for l in lays) / len(lays)
        how = "%d class tuples (fixed: all, Impala's row descriptor; strings: one class per row)" % len(lays)
    else:
        var = sum(l.var for l in lays)
        how = "tuples " + ", ".join("%s (%s)" % (l.tid, l.how) for l in lays)
    return max(1, int(math.ceil(fixed - 1e-9))), int(round(var)), len(node.tuple_ids), how


# --------------------------------------------------------------------------
# Short strings on the wire (rule S2)
# --------------------------------------------------------------------------

# Impala's small-string optimisation (IMPALA-12373, in Impala 4.4.0 and later): a STRING/VARCHAR
# slot is 12 bytes (a SmallableString: an 8-byte pointer and a 4-byte length), and a string of at
# most SMALL_LIMIT = 11 bytes can be stored inside those 12 bytes (11 characters and a length byte
# whose top bit marks the small form; be/src/runtime/smallable-string.h). When a tuple is copied
# into an outbound row batch, Tuple::TryDeepCopyStringSlot calls Smallify() on every string slot
# first and copies the characters out of the slot only when that fails (be/src/runtime/tuple-ir.cc),
# so a serialized row batch carries no var-len bytes for strings of 11 bytes or less.
SMALL_STRING_LIMIT = 11
# Effect on the workload when the rule was introduced (mt_dop=0, before rule J3): 241 of the 585 hash
# exchanges carry fewer string bytes per row (1 to 52 B, median 10 B, 2,476 B summed over them), hash bytes
# 511.7 GB -> 485.9 GB (-5.0%); broadcasts 220 of 737, -13.7%; merging 49 of 89, -3.0%. Most of it is
# i_category, i_class, c_first_name, c_last_name, i_brand, s_store_name (strings of 4 to 16 characters).


def external_string_bytes(avg_len, max_len=None, limit=SMALL_STRING_LIMIT):
    """Expected bytes a string slot adds outside its 12 bytes on the wire: the mean over the column's
    lengths of the length where it exceeds `limit`, 0 where it fits in the slot.

    The statistics give only the average and the maximum length (stats-3TB.json avgColLen, maxColLen),
    so the lengths are taken as uniform over the integers lo..hi that have that mean: hi = max_len and
    lo = 2 x avg - max_len; when that would be negative (a mean below half the maximum: a long tail),
    lo = 0 and hi = 2 x avg (the mean kept, the rare maximum dropped). Without a maximum every string
    has the average length. Examples: maxColLen <= 11 (d_date as text, cd_marital_status,
    hd_buy_potential): 0; i_item_desc (avg 100.6, max 200: lengths 1..200): 100.3; w_warehouse_name
    (avg 16.0, max 20: 12..20): 16.0, all out of line."""
    avg = float(avg_len or 0.0)
    if avg <= 0:
        return 0.0
    if max_len is None or max_len <= 0:
        return avg if avg > limit else 0.0
    if max_len <= limit:
        return 0.0
    hi = float(max_len)
    lo = 2.0 * avg - hi
    if lo < 0:
        lo, hi = 0.0, 2.0 * avg
    lo_i, hi_i = int(round(lo)), int(round(hi))
    if hi_i <= lo_i:
        return avg if avg > limit else 0.0
    n = hi_i - lo_i + 1
    first = max(lo_i, limit + 1)
    if first > hi_i:
        return 0.0
    # sum of the integers first..hi_i over the n equally likely lengths, scaled so that the lengths'
    # mean is the average again (rounding lo and hi to integers moves it by up to half a byte)
    return (first + hi_i) * (hi_i - first + 1) / 2.0 / n * avg / ((lo_i + hi_i) / 2.0)


SUBSTR_RE = re.compile(r"^(?:substr|substring)\((?:[a-z_0-9]+\.)?([a-z]+_[a-z0-9_]+), \d+, (\d+)\)$")


def slot_external_bytes(schema, slot):
    """(external bytes, how) of one slot on the wire under the small-string rule.

    A column slot takes its column's avgColLen and maxColLen (stats-3TB.json); a computed
    substr(column, a, n) at most n of the column's characters (its average as the Slot has it, its
    maximum n); any other string (a literal, a computed string) has one length, its average. Slots
    without string bytes (fixed-size types, aggregates) add nothing."""
    if slot.var <= 0:
        return 0.0, "no string bytes"
    col = schema.column(slot.name) if re.match(r"^[a-z0-9_.]+$", slot.name) else None
    if col is not None and col.string:
        mx = schema.stats.get(col.table, {}).get("columns", {}).get(col.name, {}).get("maxColLen")
        return external_string_bytes(slot.var, mx), "column %s avg %.1f max %s" % (col.name, slot.var, mx)
    m = SUBSTR_RE.match(slot.name)
    if m:
        return external_string_bytes(slot.var, int(m.group(2))), "substr avg %.1f max %s" % (slot.var, m.group(2))
    return (slot.var if slot.var > SMALL_STRING_LIMIT else 0.0), "one length %.1f" % slot.var


def layout_external_bytes(schema, layout):
    """String bytes a tuple carries outside its slots on the wire (small strings inside them)."""
    return sum(slot_external_bytes(schema, s)[0] for s in layout.slots)


def exchange_row_small_strings(sizes, node, schema=None):
    """(fixed_row_bytes, var_row_bytes, tuples_per_row, how): exchange_row with the string bytes
    counted as Impala serializes them since IMPALA-12373 (Impala 4.4): a string of at most 11 bytes
    lives inside its 12-byte slot and adds nothing; a longer one adds its length (the expected bytes
    over the column's length range, external_string_bytes). fixed_row_bytes and tuples_per_row are
    exchange_row's (the slots are 12 bytes either way, and batch capacity does not count strings).
    `schema`: the ddl.Schema when `sizes` has none (the derived variants' layouts)."""
    schema = schema or sizes.schema
    fixed, _, tuples, _ = exchange_row(sizes, node)
    lays = [sizes.layouts[RowSizes.tid(t)] for t in node.tuple_ids if RowSizes.tid(t) in sizes.layouts]
    per = [layout_external_bytes(schema, l) for l in lays]
    classes = node.children[0].classes if node.children else 0
    if classes > 1 and lays:
        var = sum(per) / len(lays)
        how = "%d class tuples, strings of one class per row, small strings inside their slots" % len(lays)
    else:
        var = sum(per)
        how = "strings over %d bytes out of line: %s" % (SMALL_STRING_LIMIT, ", ".join(
            "%s %.1f B" % (l.tid, p) for l, p in zip(lays, per)))
    return fixed, int(round(var)), tuples, how
