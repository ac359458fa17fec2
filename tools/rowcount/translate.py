"""A plan node -> the SQL of the rows it outputs, and the statements that count them.

Each node of a parsed plan (tools/tpcds/plans.py) becomes a Relation: a SELECT over its inputs'
relations, named `n<id>` in a WITH clause, whose columns carry the texts the plan uses for them
(expr.Column). What each node kind is in SQL:

- SCAN HDFS: the table (every column) under its `predicates:`. Its runtime filters are semi-joins
  on the producing join's build side: `n<id>_plain` is the scan before them, `n<id>` after all of
  them (Impala applies every filter that arrives; a bloom filter without false positives), and
  each filter's keep share is counted alone.
- HASH JOIN / NESTED LOOP JOIN: the join of probe (first child) and build (second), `hash
  predicates:` as `probe expr = build expr`, `other join predicates:` in ON, `other predicates:`
  after; semi and anti joins keep one side's columns; a null-aware anti join is NOT IN.
- AGGREGATE: GROUP BY its `group by:` with its `output:` aggregates; a merge aggregation
  (`sum:merge(x)`) is the global aggregation of the pre-aggregation it finishes, its columns named
  by its own texts; a pre-aggregation counts its global groups (the per-instance rows follow from
  them in the workload's rule A3); `having:` filters the groups; several classes (ROLLUP, several
  DISTINCTs) are a UNION ALL of one GROUP BY per class with its class id (`valid_tid()`).
- ANALYTIC: its functions OVER its partition, order and window; SELECT: its predicates; TOP-N:
  ORDER BY .. LIMIT; SORT, EXCHANGE, CARDINALITY CHECK: their input; `limit:` anywhere: LIMIT.
- UNION: UNION ALL of its inputs, on the view columns the plan names above it (a UNION prints no
  result expressions: each input's expression for a view column comes from the query's SQL,
  `<expr> AS <alias>`, the one that resolves in that input).

A node that cannot be expressed (an expression that does not resolve, a construct not listed)
raises TranslateError with the reason; its ancestors are not translated either.
"""

import re

from tools.rowcount import TranslateError
from tools.rowcount import expr as X
from tools.rowcount.tables import PARTITION_KEY
from tools.tpcds.filters import RF_RE, producers_above, produced
from tools.join_distribution import hash_predicate_keys
from tools.tpcds.plans import FRAGMENT_LEAF_KINDS, fragment_leaf

COLS = "\x01columns\x01"
PASS_THROUGH = ("EXCHANGE", "MERGING-EXCHANGE", "SORT", "CARDINALITY CHECK")
JOIN_SQL = {"INNER JOIN": "JOIN", "LEFT OUTER JOIN": "LEFT JOIN", "RIGHT OUTER JOIN": "RIGHT JOIN",
            "FULL OUTER JOIN": "FULL JOIN", "CROSS JOIN": "CROSS JOIN",
            "LEFT SEMI JOIN": "SEMI JOIN", "LEFT ANTI JOIN": "ANTI JOIN",
            "RIGHT SEMI JOIN": "SEMI JOIN", "RIGHT ANTI JOIN": "ANTI JOIN"}
# The aggregate that merges partial results of each function (count's partial counts add up).
MERGE_OF = {"count": "sum", "sum": "sum", "min": "min", "max": "max", "avg": "avg", "ndv": "max"}
AS_RE = re.compile(r"\s+as\s+([A-Za-z_][A-Za-z0-9_]*)\b", re.I)
# `<expr> <alias>` without AS, ending a select-list item (before a comma or FROM).
BARE_RE = re.compile(r"(?<=[\w)'])\s+([A-Za-z_][A-Za-z0-9_]*)(?=\s*,|\s+from\b)", re.I)
NOT_ALIAS = {"asc", "desc", "end", "and", "or", "not", "null", "then", "else", "when", "case", "from", "as",
             "select", "distinct", "by", "on", "in", "is", "like", "between", "all", "union", "where", "first",
             "last", "nulls", "preceding", "following", "row", "rows", "current", "unbounded", "int", "string"}


def sql_aliases(query_text):
    """alias (lower case) -> [expression texts] for every `<expr> [AS] <alias>` of a select list."""
    out = {}
    text = re.sub(r"--[^\n]*", " ", query_text)
    hits = [(m.start(), m.group(1)) for m in AS_RE.finditer(text)]
    hits += [(m.start(), m.group(1)) for m in BARE_RE.finditer(text) if m.group(1).lower() not in NOT_ALIAS]
    for i, alias in sorted(hits):
        alias = alias.lower()
        depth = 0
        j = i - 1
        while j >= 0:
            ch = text[j]
            if ch == ")":
                depth += 1
            elif ch == "(":
                if depth == 0:
                    break
                depth -= 1
            elif ch == "," and depth == 0:
                break
            elif depth == 0 and re.match(r"(?i)select\s", text[j:j + 7]) and (j == 0 or not text[j - 1].isalnum()):
                j += 6
                break
            j -= 1
        e = text[j + 1:i].strip()
        if re.match(r"(?i)^distinct\s", e):
            e = e[9:].strip()
        if re.search(r"(?i)\sas$", e):
            continue
        if e and not re.match(r"(?i)^(select|from|with)\b", e) and not re.search(r"(?i)\b(from|where|join)\b", e):
            exprs = out.setdefault(alias, [])
            e = " ".join(e.split())
            if e not in exprs:
                exprs.append(e)
    return out


def _mixed(node):
    """An aggregation with both new aggregates and merges of partial ones (a DISTINCT's second phase)."""
    outs = [o for line in node.outputs for o in X.split_top(line)]
    return any(":merge(" in o for o in outs) and not all(":merge(" in o for o in outs)


def details(node, prefix):
    """Every detail line of `node` that starts with `prefix` (text after it)."""
    out = []
    for d in node.details:
        s = d.lstrip("| ").strip()
        if s.startswith(prefix):
            out.append(s[len(prefix):])
    return out


def conjuncts(node, prefix):
    """The conjuncts of a node's predicate lines (Impala prints a list of conjuncts joined by ', ')."""
    return [c for line in details(node, prefix) for c in X.split_top(line)]


def one(node, prefix):
    v = details(node, prefix)
    return v[0] if v else None


class Relation:
    def __init__(self, name, sql, columns, deps, kind=None):
        self.name = name
        self.sql = sql
        self.columns = columns
        self.deps = deps        # names of the relations this one reads
        self.kind = kind        # "scan <table>", or what makes it no linear function of its rows:
                                # "aggregate", "limit", "analytic"; None otherwise
        self.join = None        # a join: its type, probe and build relations, key pairs (texts), and
                                # each side's keys as (table, column) or None (`key_columns`)
        self.filter_links = None  # a filtered scan: [(target text, source text, build relation)]
        self.group_columns = None  # an aggregation: (table, column) of each base grouping key, or None
        self.input = None       # an aggregation: the relation it groups
        self.per_instance = None  # a pre-aggregation: (leaf node id, relation of its (instance, group) pairs)
        self.per_instance_alternatives = None  # the same for the leaves J3 can give it: [(where, relation)]
        self.per_ticket = None  # an aggregation over one channel's facts: relation of its distinct (ticket,
                                # group) pairs, the independent draws of its groups
        self.classes = None     # a multi-class aggregation: [(class tuple id, condition selecting its rows,
                                # its group_columns)]


def _group_columns(sc, groups):
    """(table, column) of each grouping expression that is a base table's column in scope `sc`, else None."""
    out = []
    for e in groups:
        hit = sc.resolve(e) if X._is_ident(e) else None
        base = [c for c in sc.columns if c.sql == hit and c.table]
        out.append((base[0].table, base[0].name) if base else None)
    return out


class Translator:
    """Translates one parsed plan. `tables`: table -> [(column, type)] (Impala's order); `dialect`:
    how the benchmark's expressions are read where benchmarks differ (expr.Dialect)."""

    def __init__(self, plan, tables, query_text="", runtime_filters=True, dialect=None, instances=None,
                 tickets=()):
        self.plan = plan
        self.tickets = frozenset(tickets)  # the columns whose value a sales channel's rows share per ticket
        self.instances = instances   # instances of a fragment fed by a fact scan or a hash exchange, or None
        self.dialect = dialect or X.DEFAULT
        self.runtime_filters = runtime_filters
        self.tables = tables
        self.aliases = sql_aliases(query_text)
        self.rels = {}           # name -> Relation, in creation order (a valid WITH order)
        self.node_rel = {}       # node id -> Relation (or TranslateError)
        self.filters = {}        # scan id -> [(rf ids, join id, condition sql)]
        self._n = 0
        self.view_names = self._view_names()

    # -- helpers ---------------------------------------------------------------------------------

    def fresh(self):
        self._n += 1
        return "c%d" % self._n

    def add(self, name, sql, columns, deps, kind=None):
        r = Relation(name, sql, columns, deps, kind)
        self.rels[name] = r
        return r

    def scope(self, *rels):
        cols = []
        for r in rels:
            cols.extend(r.columns)
        return X.Scope(cols, self.aliases, self.dialect)

    def _view_names(self):
        """The names the plan's expressions use (view columns and base columns): the columns a
        union may have to carry for the nodes above it."""
        names = set()
        for n in self.plan.nodes.values():
            for d in n.details:
                for tok in re.findall(r"(?<![\w.'])([A-Za-z_][A-Za-z0-9_]*)(?![\w(.])", d.lstrip("| ")):
                    if tok.upper() != tok and tok not in ("days", "day", "months", "years"):
                        names.add(tok.lower())
        return sorted(names)

    # -- the tree --------------------------------------------------------------------------------

    def relation(self, node):
        """The Relation of `node` (translating its inputs first), or raise TranslateError."""
        got = self.node_rel.get(node.nid)
        if isinstance(got, Relation):
            return got
        if isinstance(got, TranslateError):
            raise got
        try:
            rel = self._translate(node)
            if node.limit is not None and node.kind not in ("TOP-N",):
                rel = self.add("n%d_limit" % node.nid, "SELECT * FROM %s LIMIT %d" % (rel.name, node.limit),
                               rel.columns, [rel.name], "limit")
        except TranslateError as e:
            self.node_rel[node.nid] = e
            raise
        self.node_rel[node.nid] = rel
        return rel

    def _translate(self, node):
        k = node.kind
        if k == "SCAN HDFS":
            return self._scan(node)
        if k in ("HASH JOIN", "NESTED LOOP JOIN"):
            return self._join(node)
        if k == "AGGREGATE":
            return self._aggregate(node)
        if k == "ANALYTIC":
            return self._analytic(node)
        if k == "UNION":
            return self._union(node)
        if k == "SELECT":
            child = self.relation(node.children[0])
            preds = conjuncts(node, "predicates: ")
            where = " AND ".join("(%s)" % X.sql(p, self.scope(child)) for p in preds) or "TRUE"
            return self.add("n%d" % node.nid, "SELECT * FROM %s WHERE %s" % (child.name, where),
                            child.columns, [child.name])
        if k == "TOP-N":
            child = self.relation(node.children[0])
            order = one(node, "order by: ")
            if node.partition_limit is not None:
                return self._partitioned_top_n(node, child)
            ob = " ORDER BY %s" % self._order(order, self.scope(child)) if order else ""
            lim = " LIMIT %d" % node.limit if node.limit is not None else ""
            return self.add("n%d" % node.nid, "SELECT * FROM %s%s%s" % (child.name, ob, lim), child.columns,
                            [child.name], "limit" if lim else None)
        if k in PASS_THROUGH:
            return self.relation(node.children[0])
        raise TranslateError("%s nodes are not translated" % k)

    def _partitioned_top_n(self, node, child):
        """At most `partition limit` rows per partition, ties included when the plan says so (rank)."""
        sc = self.scope(child)
        pb = one(node, "partition by: ")
        ob = one(node, "order by: ")
        lim = one(node, "partition limit: ") or ""
        fn = "rank()" if "include ties" in lim else "row_number()"
        over = ("PARTITION BY %s " % ", ".join(X.sql(e, sc) for e in X.split_top(pb)) if pb else "") + \
            ("ORDER BY %s" % self._order(ob, sc) if ob else "")
        return self.add("n%d" % node.nid, "SELECT * FROM %s QUALIFY %s OVER (%s) <= %d" % (
            child.name, fn, over, node.partition_limit), child.columns, [child.name], "limit")

    def _order(self, text, scope):
        items = []
        for it in X.split_top(text):
            m = re.match(r"^(.*?)((?:\s+(?:ASC|DESC))?(?:\s+NULLS (?:FIRST|LAST))?)$", it)
            items.append("%s%s" % (X.sql(m.group(1), scope), m.group(2)))
        return ", ".join(items)

    # -- scans and runtime filters ---------------------------------------------------------------

    def _scan(self, node):
        table = node.table
        if table not in self.tables:
            raise TranslateError("table %s is not in the data" % table)
        qual = node.alias or table
        cols = []
        for c, _ in self.tables[table]:
            col = X.Column(self.fresh(), c, qual, c)
            col.table = table
            cols.append(col)
        sc = X.Scope(cols, {}, self.dialect)
        preds = conjuncts(node, "predicates: ")
        where = " AND ".join("(%s)" % X.sql(p, sc) for p in preds) or "TRUE"
        # the select list is the columns some relation reads (filled in by finish())
        plain = self.add("n%d_plain" % node.nid, "SELECT %s FROM %s WHERE %s" % (COLS, table, where), cols, [],
                         "scan %s" % table)
        conds, deps, links = [], [plain.name], []
        for rfs, join, cond, dep, link in self._scan_filters(node, sc):
            conds.append(cond)
            deps.append(dep)
            links.append(link)
            self.filters.setdefault(node.nid, []).append((rfs, join.nid, cond, dep))
        if not conds:
            return plain
        rel = self.add("n%d" % node.nid, "SELECT * FROM %s WHERE %s" % (
            plain.name, " AND ".join("(%s)" % c for c in conds)), cols, deps)
        rel.filter_links = links      # [(target text, source text, build relation)]
        return rel

    def _scan_filters(self, scan, scan_scope):
        """[(rf ids, producing join, condition on the scan's columns, the build relation's name,
        (target text, source text, build relation's name))]."""
        targets = {}
        for line in details(scan, "runtime filters: "):
            for part in X.split_top(line):
                m = RF_RE.match(part)
                if m and " -> " in part:
                    # untyped (the standard explain level): a bloom filter, the only kind Impala
                    # makes for a text table (min-max filters need Parquet or Kudu)
                    targets.setdefault(m.group(1), (m.group(2) or "bloom", part.split(" -> ", 1)[1].strip()))
        if not targets or not self.runtime_filters:
            return []
        by_join = producers_above(scan)
        out = {}
        for rf, (kind, target) in sorted(targets.items()):
            join = by_join.get(rf)
            if join is None:
                continue
            src = self._filter_source(join, rf)
            if src is None:
                continue
            build = self.relation(join.children[1])
            t_sql = X.sql(target, scan_scope)
            s_sql = X.sql(src, self.scope(build))
            if kind == "bloom" or kind == "in_list":
                cond = "%s IN (SELECT %s FROM %s)" % (t_sql, s_sql, build.name)
            else:
                cond = "%s BETWEEN (SELECT min(%s) FROM %s) AND (SELECT max(%s) FROM %s)" % (
                    t_sql, s_sql, build.name, s_sql, build.name)
            key = (join.nid, t_sql)
            # a bloom filter on a key implies the min-max filter on it: keep the stronger
            if key in out and out[key][3] == "bloom":
                out[key][0].append(rf)
                continue
            rfs = out[key][0] + [rf] if key in out else [rf]
            out[key] = (rfs, join, cond, kind, build.name, (target, src, build.name))
        return [(rfs, j, c, b, link) for rfs, j, c, _, b, link in out.values()]

    @staticmethod
    def _filter_source(join, rf):
        lines = list(join.details)
        if len(join.children) > 1 and join.children[1].fragment is not None and join.children[1].fragment.join_build:
            lines += join.children[1].fragment.details
        for d in lines:
            s = d.lstrip("| ").strip()
            if s.startswith("runtime filters: "):
                for part in X.split_top(s[len("runtime filters: "):]):
                    m = RF_RE.match(part)
                    if m and m.group(1) == rf and " <- " in part:
                        return part.split(" <- ", 1)[1].strip()
        return None

    # -- joins -----------------------------------------------------------------------------------

    def _join(self, node):
        jt = node.join_type
        if len(node.children) != 2:
            raise TranslateError("join with %d inputs" % len(node.children))
        build = self.relation(node.children[1])      # first: the probe side's scans filter on it
        probe = self.relation(node.children[0])
        p_sc, b_sc, both = self.scope(probe), self.scope(build), self.scope(probe, build)
        on = []
        for c in X.split_top(one(node, "hash predicates: ") or ""):
            eq = X.split_equality(c)
            if eq is None:
                raise TranslateError("hash predicate %r is no equality" % c)
            left, op, right = eq
            try:
                l_sql, r_sql = X.sql(left, p_sc), X.sql(right, b_sc)
            except TranslateError:
                l_sql, r_sql = X.sql(right, p_sc), X.sql(left, b_sc)
            on.append("%s %s %s" % (l_sql, "IS NOT DISTINCT FROM" if op != "=" else "=", r_sql))
        for key in ("other join predicates: ", "join predicates: "):
            for p in conjuncts(node, key):
                on.append("(%s)" % X.sql(p, both))
        post = ["(%s)" % X.sql(p, both) for key in ("other predicates: ", "predicates: ")
                for p in conjuncts(node, key)]
        where = " WHERE %s" % " AND ".join(post) if post else ""
        cond = " AND ".join(on)
        deps = [probe.name, build.name]
        name = "n%d" % node.nid
        keys = [X.split_equality(c)[::2] for c in X.split_top(one(node, "hash predicates: ") or "")]
        sql, cols = self._join_sql(jt, probe, build, p_sc, b_sc, on, post, where, cond, node)
        rel = self.add(name, sql, cols, deps)
        sides = [(a, b) if _group_columns(p_sc, [a])[0] or not _group_columns(p_sc, [b])[0] else (b, a)
                 for a, b in keys]
        rel.join = {"type": jt, "probe": probe.name, "build": build.name, "keys": keys,
                    "key_columns": (_group_columns(p_sc, [a for a, _ in sides]),
                                    _group_columns(b_sc, [b for _, b in sides]))}
        return rel

    def _join_sql(self, jt, probe, build, p_sc, b_sc, on, post, where, cond, node):
        """(the join's SQL, its columns)."""
        if jt == "NULL AWARE LEFT ANTI JOIN":
            eqs = X.split_top(one(node, "hash predicates: ") or "")
            if len(eqs) != 1 or len(on) != 1:
                raise TranslateError("null-aware anti join on %d keys" % len(eqs))
            left, _, right = X.split_equality(eqs[0])
            sql = "SELECT * FROM %s WHERE %s NOT IN (SELECT %s FROM %s)%s" % (
                probe.name, X.sql(left, p_sc), X.sql(right, b_sc), build.name,
                (" AND " + " AND ".join(post)) if post else "")
            return sql, probe.columns
        kw = JOIN_SQL.get(jt)
        if kw is None:
            raise TranslateError("join type %s" % jt)
        if jt == "CROSS JOIN" or (not cond and jt == "INNER JOIN"):
            sql = "SELECT * FROM %s CROSS JOIN %s%s" % (probe.name, build.name,
                                                        where if not cond else " WHERE " + " AND ".join(on + post))
            return sql, probe.columns + build.columns
        if not cond:
            cond = "TRUE"
        if jt.startswith("RIGHT") and ("SEMI" in jt or "ANTI" in jt):
            sql = "SELECT * FROM %s %s %s ON %s%s" % (build.name, kw, probe.name, cond, where)
            return sql, build.columns
        sql = "SELECT * FROM %s %s %s ON %s%s" % (probe.name, kw, build.name, cond, where)
        cols = probe.columns if ("SEMI" in jt or "ANTI" in jt) else probe.columns + build.columns
        return sql, cols

    # -- aggregations ----------------------------------------------------------------------------

    def _pre_aggregation(self, node):
        """The pre-aggregation a merge aggregation finishes (through its exchange), or None."""
        c = node.children[0]
        while c.kind in PASS_THROUGH:
            c = c.children[0]
        return c if c.kind == "AGGREGATE" else None

    def _aggregate(self, node):
        if node.group_by and len(node.group_by) == 1 and "valid_tid(" in node.group_by[0]:
            return self._transposition(node)
        if _mixed(node):
            return self._second_phase(node)
        merge = any(":merge(" in o for o in node.outputs) or (
            node.children and node.children[0].kind in ("EXCHANGE",) and self._pre_aggregation(node) is not None
            and node.group_by and not node.outputs)
        pre = self._pre_aggregation(node) if merge else None
        if merge and pre is None:
            raise TranslateError("a merge aggregation without its pre-aggregation")
        src = pre if pre is not None else node
        if pre is not None and _mixed(pre):
            return self._second_phase(node)      # merges the outputs of a second-phase pre-aggregation
        if len(src.group_by) > 1 or len(src.outputs) > 1:
            return self._multi_class(node, src)
        child = self.relation(src.children[0])
        sc = self.scope(child)
        groups = X.split_top(src.group_by[0]) if src.group_by else []
        outs = X.split_top(src.outputs[0]) if src.outputs else []
        names_g = X.split_top(node.group_by[0]) if node.group_by else []
        names_o = X.split_top(node.outputs[0]) if node.outputs else []
        if len(names_g) != len(groups) or len(names_o) != len(outs):
            return self._second_phase(node)
        cols, sel = [], []
        group_columns = _group_columns(sc, groups)
        for i, (e, t) in enumerate(zip(groups + outs, names_g + names_o)):
            c = X.Column(self.fresh(), t.replace(":merge(", "("))
            if i < len(groups) and group_columns[i] is not None:
                c.table, c.name = group_columns[i]   # a grouping key keeps its base column's values
            cols.append(c)
            sel.append("%s AS %s" % (X.sql(e, sc), c.sql))
        gb = " GROUP BY %s" % ", ".join(str(i + 1) for i in range(len(groups))) if groups else ""
        sql = "SELECT %s FROM %s%s" % (", ".join(sel) or "1 AS %s" % self.fresh(), child.name, gb)
        having = conjuncts(node, "having: ")
        rel = self.add("n%d" % node.nid, sql, cols, [child.name], "aggregate")
        rel.group_columns = group_columns
        rel.input = child.name
        if groups:
            group_sql = [X.sql(e, sc) for e in groups]
            if node.bracket == "[STREAMING]" and pre is None:
                self._per_instance(node, rel, child, group_sql)
            self._per_ticket(node, rel, child, group_sql)
        if having:
            h = " AND ".join("(%s)" % X.sql(p, self.scope(rel)) for p in having)
            rel = self.add("n%d_having" % node.nid, "SELECT * FROM %s WHERE %s" % (rel.name, h), cols, [rel.name])
        return rel

    def _per_ticket(self, node, rel, child, group_sql):
        """A sales channel writes its rows by ticket (or order): the lines of one ticket share its customer,
        date, store and address, so a grouping by those takes a ticket's lines as one draw, not one each.
        Sets rel.per_ticket to the relation of the input's distinct (ticket, group) pairs, the draws the
        occupancy model counts (tools/rowcount/measure.py), where the input holds a ticket column; the
        first one, since a join of a channel's sales and returns equates theirs."""
        ticket = [c.sql for c in child.columns if c.table and c.name in self.tickets]
        if not ticket:
            return
        rel.per_ticket = self._pairs("n%d_tickets" % node.nid, ticket[0], "t", group_sql, child)

    def _pairs(self, name, first, alias, group_sql, child):
        """The relation `name` of the distinct (`first`, group) pairs among `child`'s rows; its name."""
        return self.add(name, "SELECT DISTINCT %s AS %s, %s FROM %s" % (first, alias, ", ".join(group_sql), child.name),
                        [], [child.name], "aggregate").name

    def _per_instance(self, node, rel, child, group_sql):
        """A streaming pre-aggregation aggregates each instance's rows alone, so it emits the distinct
        (instance, group) pairs. Which instance a row reaches is decided at its fragment's leftmost leaf:
        - a scan of a date-partitioned table: each partition is one file, one scan range, read whole by
          one instance (Impala's scheduler gives a range to one executor, balancing bytes, in the
          planner's order of partitions, a hash-set order; an executor's instances take ranges from a
          shared queue), modelled as a uniform hash of the partition key over the instances;
        - a hash exchange: the hash of its partition keys;
        - anything else (an unpartitioned table: one range, one instance; a union; a random exchange):
          none, and the workload keeps its rule A3.
        Sets rel.per_instance to (leaf node id, the relation of the pairs), counted like any relation.
        The workload re-decides joins for its cluster (rule J3, tools/tpcds/joins.py), which can give the
        pre-aggregation another leaf: so the pairs are also counted for every leaf J3 could give it
        (_leaves_after_j3), in rel.per_instance_alternatives as [(where, relation of the pairs)], `where`
        {"leaf": node id} or {"probe_of": join node id}."""
        if not self.instances:
            return
        have = {c.sql for c in child.columns}

        def pairs(suffix, key):
            return self._pairs("n%d_instances%s" % (node.nid, suffix), "exsim_instance(%s, %d)" % (key, self.instances),
                               "i", group_sql, child)

        leaf = fragment_leaf(node)
        key = self._instance_key(leaf, have)
        if key is not None:
            rel.per_instance = (leaf.nid, pairs("", key))
        alternatives = []
        for kind, n in self._leaves_after_j3(node):
            key = self._instance_key(n, have) if kind == "leaf" else self._probe_key(n, have)
            if key is not None:
                alternatives.append(({kind: n.nid}, pairs("_%s%d" % (kind, n.nid), key)))
        rel.per_instance_alternatives = alternatives or None

    @staticmethod
    def _leaves_after_j3(node):
        """The leaves other than its printed one that J3 can give a pre-aggregation's fragment, in the order
        down its probe spine: ("probe_of", join) for a broadcast hash join (made partitioned, it gets a hash
        exchange on its probe keys that becomes the leaf of the fragment above it), and ("leaf", node) for
        the leaf of the fragment below a hash exchange that feeds a partitioned join (made broadcast, the
        exchange goes and the two fragments are one)."""
        out = []
        n, printed = node.children[0], True
        while True:
            if n.kind in FRAGMENT_LEAF_KINDS:
                if not printed:
                    out.append(("leaf", n))
                printed = False
                p = n.parent
                if not (n.kind == "EXCHANGE" and n.children and p is not None and p.kind == "HASH JOIN"
                        and p.distribution == "PARTITIONED" and p.children[0] is n):
                    return out
            elif n.kind == "HASH JOIN" and n.distribution == "BROADCAST":
                out.append(("probe_of", n))
            if not n.children:
                return out
            n = n.children[0]

    def _instance_key(self, leaf, have):
        """The expression (over columns in `have`) that decides which instance a row reaches at a fragment
        leaf (_per_instance), or None."""
        try:
            if leaf.kind == "SCAN HDFS" and leaf.table in PARTITION_KEY:
                scan = self.relation(leaf)
                cols = [c for c in scan.columns if c.table == leaf.table and c.name == PARTITION_KEY[leaf.table]]
                if cols and cols[0].sql in have:
                    return "coalesce(%s, 0)" % cols[0].sql
            elif leaf.kind == "EXCHANGE" and (leaf.bracket or "").startswith("[HASH("):
                return self._hash_key(X.split_top(leaf.bracket[len("[HASH("):-2]), self.relation(leaf), have)
        except TranslateError:
            pass
        return None

    def _probe_key(self, join, have):
        """The instance key of the hash exchange J3 puts on a join's probe side: the hash of its probe keys."""
        probe, _ = hash_predicate_keys(join.detail("hash predicates: "))
        if not probe:
            return None
        try:
            return self._hash_key(probe, self.relation(join.children[0]), have)
        except TranslateError:
            return None

    def _hash_key(self, keys, rel, have):
        sc = self.scope(rel)
        keys = [X.sql(k, sc) for k in keys]
        return "hash(%s) %% 4294967296" % ", ".join(keys) if all(k in have for k in keys) else None

    def _second_phase(self, node):
        """The second phase of a DISTINCT aggregation: new aggregates (count(x)) over the first phase's
        groups next to merges of its partial ones (sum:merge(y) is the sum of the partial sum(y))."""
        if len(node.group_by) > 1 or len(node.outputs) > 1:
            raise TranslateError("a multi-class second-phase aggregation")
        child = self.relation(node.children[0])
        sc = self.scope(child)
        groups = X.split_top(node.group_by[0]) if node.group_by else []
        cols, sel = [], []
        for i, t in enumerate(groups + X.split_top(node.outputs[0])):
            m = re.match(r"^(\w+):merge\((.*)\)$", t)
            c = X.Column(self.fresh(), t.replace(":merge(", "("))
            cols.append(c)
            if m:
                e = "%s(%s(%s))" % (MERGE_OF.get(m.group(1), m.group(1)), m.group(1), m.group(2))
                sel.append("%s AS %s" % (X.sql(e, sc), c.sql))
            else:
                # a new aggregate over the first phase's groups: its argument is a grouping key, not the
                # first phase's partial aggregate of the same text
                keys = X.Scope([k for k in sc.columns if X._is_ident(k.text)], sc.aliases, self.dialect)
                sel.append("%s AS %s" % (X.sql(t, keys), c.sql))
        gb = " GROUP BY %s" % ", ".join(str(i + 1) for i in range(len(groups))) if groups else ""
        rel = self.add("n%d" % node.nid, "SELECT %s FROM %s%s" % (", ".join(sel), child.name, gb), cols,
                       [child.name], "aggregate")
        rel.group_columns = [None] * len(groups)
        rel.input = child.name
        return rel

    def _transposition(self, node):
        """The aggregation above a multi-class merge that groups by CASE valid_tid(...) WHEN class THEN its
        columns: it turns each class's rows into rows of one tuple, a row per (class, group), so it has
        its input's rows (and columns)."""
        child = self.relation(node.children[0])
        if child.classes is None:
            raise TranslateError("a valid_tid() aggregation over no multi-class aggregation")
        return self.add("n%d" % node.nid, "SELECT * FROM %s" % child.name, child.columns, [child.name])

    def _multi_class(self, node, src):
        """Several aggregation classes: one GROUP BY per class, UNION ALL, with the class's tuple id."""
        if len(src.group_by) != len(src.outputs) and src.outputs:
            raise TranslateError("aggregation %d: %d group by lines, %d output lines" % (
                src.nid, len(src.group_by), len(src.outputs)))
        child = self.relation(src.children[0])
        sc = self.scope(child)
        n_cls = max(len(src.group_by), len(src.outputs))
        tids = [t.rstrip("N") for t in src.tuple_ids]
        texts, per_class = [], []
        for i in range(n_cls):
            g = X.split_top(src.group_by[i]) if i < len(src.group_by) else []
            o = X.split_top(src.outputs[i]) if i < len(src.outputs) else []
            items = [(t.replace(":merge(", "("), e) for t, e in zip(g + o, g + o)]
            per_class.append(items)
            for t, _ in items:
                if t not in texts:
                    texts.append(t)
        cols = [X.Column(self.fresh(), t) for t in texts] + [X.Column(self.fresh(), "valid_tid()")]
        parts, classes = [], []
        for i, items in enumerate(per_class):
            have = dict(items)
            sel = []
            for t, c in zip(texts, cols):
                sel.append("%s AS %s" % (X.sql(have[t], sc) if t in have else "NULL", c.sql))
            tid = tids[i] if i < len(tids) else str(i)
            sel.append("%s AS %s" % (tid, cols[-1].sql))
            ng = len(X.split_top(src.group_by[i])) if i < len(src.group_by) else 0
            gb = " GROUP BY %s" % ", ".join("%s" % X.sql(e, sc) for e in X.split_top(src.group_by[i])) if ng else ""
            parts.append("SELECT %s FROM %s%s" % (", ".join(sel), child.name, gb))
            keys = [e for e in X.split_top(src.group_by[i]) if e.strip().upper() != "NULL"] if ng else []
            classes.append((tid, "%s = %s" % (cols[-1].sql, tid), _group_columns(sc, keys)))
        rel = self.add("n%d" % node.nid, " UNION ALL ".join(parts), cols, [child.name], "aggregate")
        rel.group_columns = [None]
        rel.classes = classes
        rel.input = child.name
        having = conjuncts(node, "having: ")
        if having:
            h = " AND ".join("(%s)" % X.sql(p, self.scope(rel)) for p in having)
            rel = self.add("n%d_having" % node.nid, "SELECT * FROM %s WHERE %s" % (rel.name, h), cols, [rel.name])
        return rel

    # -- analytic, union -------------------------------------------------------------------------

    def _analytic(self, node):
        child = self.relation(node.children[0])
        sc = self.scope(child)
        over = []
        pb = one(node, "partition by: ")
        if pb:
            over.append("PARTITION BY %s" % ", ".join(X.sql(e, sc) for e in X.split_top(pb)))
        ob = one(node, "order by: ")
        if ob:
            over.append("ORDER BY %s" % self._order(ob, sc))
        win = one(node, "window: ")
        if win:
            over.append(win)
        cols, sel = [], []
        for f in X.split_top(one(node, "functions: ") or ""):
            c = X.Column(self.fresh(), f)
            cols.append(c)
            sel.append("%s OVER (%s) AS %s" % (X.sql(f, X.Scope(sc.columns, {}, self.dialect)), " ".join(over), c.sql))
        if not sel:
            raise TranslateError("analytic node without functions")
        return self.add("n%d" % node.nid, "SELECT *, %s FROM %s" % (", ".join(sel), child.name),
                        child.columns + cols, [child.name], "analytic")

    def _union(self, node):
        if not node.children:
            raise TranslateError("a union of constants only")
        rels = [self.relation(c) for c in node.children]
        keep = []
        for v in self.view_names:
            exprs = []
            for r in rels:
                e = self._view_expr(v, r)
                if e is None:
                    break
                exprs.append(e)
            else:
                keep.append((v, exprs))
        if not keep:
            raise TranslateError("no view column of the union resolves in all its inputs")
        cols = [X.Column(self.fresh(), v) for v, _ in keep]
        parts = []
        for i, r in enumerate(rels):
            parts.append("SELECT %s FROM %s" % (", ".join("%s AS %s" % (exprs[i], c.sql)
                                                          for (v, exprs), c in zip(keep, cols)), r.name))
        return self.add("n%d" % node.nid, " UNION ALL ".join(parts), cols, [r.name for r in rels])

    def _view_expr(self, view, rel):
        sc = self.scope(rel)
        hit = sc.resolve(view)
        if hit is not None:
            return hit
        best = None
        for e in self.aliases.get(view, []):
            try:
                s = X.sql(e, X.Scope(sc.columns, {}, self.dialect))
            except TranslateError:
                continue
            uses = any(c.sql in re.findall(r"\bc\d+\b", s) for c in sc.columns)
            if uses:
                return s
            if best is None:
                best = s
        return best

    # -- statements ------------------------------------------------------------------------------

    def closure(self, names):
        """The relations `names` read, themselves included."""
        need = set()
        stack = list(names)
        while stack:
            n = stack.pop()
            if n in need:
                continue
            need.add(n)
            stack.extend(self.rels[n].deps)
        return need

    def finish(self):
        """Fill in each scan's select list with the columns any relation or filter reads (at least one),
        so that a relation carries only what the nodes above it use."""
        text = " ".join(r.sql for r in self.rels.values()) + " " + " ".join(
            f[2] for fs in self.filters.values() for f in fs)
        used = set(re.findall(r"\bc\d+\b", text))
        for r in self.rels.values():
            if COLS in r.sql:
                cols = [c for c in r.columns if c.sql in used] or r.columns[:1]
                r.sql = r.sql.replace(COLS, ", ".join("%s AS %s" % (c.name, c.sql) for c in cols))

    def script(self, names, prefix):
        """Statements that materialise the relations `names` need as temporary tables, in creation order:
        [(id, sql)], ids `prefix` + the relation's name; drop() removes them."""
        need = self.closure(names)
        return [(prefix + n, "CREATE OR REPLACE TEMP TABLE %s AS %s" % (n, self.rels[n].sql))
                for n in self.rels if n in need]

    def drop(self, names, prefix):
        need = self.closure(names)
        return [(prefix + "drop " + n, "DROP TABLE IF EXISTS %s" % n) for n in self.rels if n in need]

    def count_sql(self, rel_name, where=None):
        """SELECT count(*) of a materialised relation, under an extra condition (which may read others)."""
        return "SELECT count(*) FROM %s%s" % (rel_name, " WHERE %s" % where if where else "")

    def rels_read(self, rel_name, where=None):
        """The relations a count reads: its own and those its condition names."""
        return [rel_name] + ([n for n in re.findall(r"\bn\d+\w*", where) if n in self.rels] if where else [])
