"""Impala's printed expressions as DuckDB SQL, with every name resolved against a node's inputs.

A plan prints expressions in Impala's SQL: base columns by the name the query used (`d_year`,
`d1.d_week_seq`, fully qualified `db.table.column` on runtime filter targets), the results of
aggregations and analytic functions by their own text (`sum(ss_sales_price)`, `rank()`,
`avg(sum(ss_sales_price))`), an inline view's column by its alias (`ctr_total_return`). A
relation's columns (translate.Relation) carry those texts; `sql()` replaces every reference by
the column's SQL name and rewrites the few constructs DuckDB spells differently:
`CAST(x AS STRING)`, `INTERVAL CAST(n AS INT) days`, `valid_tid(..)` (the class of a row of a
multi-class aggregation), `aggif(c, e)` and `zeroifnull(x)` (macros, MACROS below). A benchmark
may read some expressions its own way (a Scope's Dialect: functions mapped to macros for Impala's
implicit casts, such as `year()` of a STRING date, which DuckDB does not make).
"""

import re

from tools.rowcount import TranslateError

# Defined once per DuckDB session before any count (engine.run's first statements).
MACROS = [
    ("macro zeroifnull", "CREATE OR REPLACE TEMP MACRO zeroifnull(x) AS coalesce(x, 0)"),
    ("macro aggif", "CREATE OR REPLACE TEMP MACRO aggif(c, e) AS max(CASE WHEN c THEN e END)"),
    # The instance (0..n-1) of a key below 2^32: bits 16-31 of Knuth's multiplicative hash, mod n
    # (the low bits of k x 2654435761 follow k's own low bits; the high ones mix consecutive keys).
    ("macro exsim_instance", "CREATE OR REPLACE TEMP MACRO exsim_instance(k, n) AS "
                             "((CAST(k AS UBIGINT) * 2654435761) % 4294967296 // 65536) % n"),
]
TYPE_MAP = {"STRING": "VARCHAR"}
KEYWORDS = {"AND", "OR", "NOT", "CASE", "WHEN", "THEN", "ELSE", "END", "AS", "IN", "IS", "NULL", "BETWEEN",
            "LIKE", "DISTINCT", "FROM", "CAST", "TRUE", "FALSE", "INTERVAL", "DATE", "ASC", "DESC", "NULLS",
            "FIRST", "LAST", "INT", "BIGINT", "SMALLINT", "TINYINT", "DECIMAL", "STRING", "VARCHAR", "CHAR",
            "DOUBLE", "FLOAT", "BOOLEAN", "TIMESTAMP", "ROWS", "RANGE", "UNBOUNDED", "PRECEDING", "FOLLOWING",
            "CURRENT", "ROW", "ILIKE", "RLIKE", "REGEXP"}
TOKEN_RE = re.compile(r"""
    (?P<ws>\s+)
  | (?P<str>'(?:[^'\\]|\\.|'')*')
  | (?P<ph>\x00\d+\x00)
  | (?P<num>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*(?::merge)?(?:\.[A-Za-z_][A-Za-z0-9_]*)*)
  | (?P<op><=>|<=|>=|!=|<>|\|\||[-+*/%(),<>=])
""", re.X)
INTERVAL_RE = re.compile(r"INTERVAL\s+(?:CAST\((-?\d+) AS [A-Z]+\)|(-?\d+))\s+(days?|months?|years?|weeks?)\b")
VALID_TID_RE = re.compile(r"valid_tid\([\d,]+\)")


class Column:
    """A column of a relation: its SQL name, the text a plan uses for it and, for a base column,
    the qualifier (alias or table) and column name."""

    def __init__(self, sql, text, qualifier=None, name=None):
        self.sql = sql
        self.text = text
        self.table = None       # the base table of a scan's column (and of a grouping key that keeps it)
        self.qualifier = qualifier
        self.name = name if name is not None else (text.split(".")[-1] if _is_ident(text) else None)
        if qualifier is None and name is None and _is_ident(text) and "." in text:
            self.qualifier = text.rsplit(".", 1)[0]

    def __repr__(self):
        return "Column(%s=%s)" % (self.sql, self.text)


def _is_ident(text):
    return re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*", text) is not None


def normal(text):
    """A text compared with another: lower case, no blanks, `:merge` dropped."""
    return re.sub(r"\s+", "", text.replace(":merge(", "(")).lower()


def split_top(text, sep=","):
    """Split at `sep` outside parentheses and quotes."""
    out, depth, cur, i, q = [], 0, [], 0, False
    while i < len(text):
        ch = text[i]
        if ch == "'":
            q = not q
        elif not q and ch == "(":
            depth += 1
        elif not q and ch == ")":
            depth -= 1
        if not q and depth == 0 and text.startswith(sep, i):
            out.append("".join(cur).strip())
            cur = []
            i += len(sep)
            continue
        cur.append(ch)
        i += 1
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def split_equality(text):
    """`a = b` or `a IS NOT DISTINCT FROM b` at the top level -> (a, op, b), else None."""
    for op in (" IS NOT DISTINCT FROM ", " = "):
        parts = split_top(text, op)
        if len(parts) == 2:
            return parts[0], op.strip(), parts[1]
    return None


class Dialect:
    """How a benchmark's expressions are read where benchmarks differ.
    functions: Impala function (lower case) -> the DuckDB macro that means it for the benchmark's types."""

    def __init__(self, functions=None):
        self.functions = functions or {}


DEFAULT = Dialect()


class Scope:
    """The columns an expression may name, in order of preference (a join's probe side first)."""

    def __init__(self, columns, aliases=None, dialect=None):
        self.columns = list(columns)
        self.aliases = aliases or {}     # view column alias -> [expression texts] (from the query's SQL)
        self.dialect = dialect or DEFAULT

    def resolve(self, ref):
        """The SQL name of the column `ref` names (qualified or not), or None."""
        parts = ref.split(".")
        name = parts[-1]
        qual = ".".join(parts[:-1]) if len(parts) > 1 else None
        for c in self.columns:
            if c.text == ref:
                return c.sql
        cands = [c for c in self.columns if c.name == name]
        if qual is not None:
            q_last = qual.split(".")[-1]
            exact = [c for c in cands if c.qualifier == qual or c.qualifier == q_last]
            if exact:
                return exact[0].sql
            # a fully qualified db.table.column names the table; any alias of it will do
            exact = [c for c in cands if c.table == q_last]
            if exact:
                return exact[0].sql
            return None
        return cands[0].sql if cands else None

    def by_text(self, text):
        n = normal(text)
        for c in self.columns:
            if not _is_ident(c.text) and normal(c.text) == n:
                return c.sql
        return None


def sql(text, scope, _depth=0):
    """DuckDB SQL for the Impala expression `text`, its names resolved in `scope`."""
    if _depth > 4:
        raise TranslateError("view aliases nest too deep in %r" % text)
    s = INTERVAL_RE.sub(lambda m: "INTERVAL '%s %s'" % (m.group(1) or m.group(2), m.group(3)), text)
    placeholders = []

    def hold(col_sql):
        placeholders.append(col_sql)
        return "\x00%d\x00" % (len(placeholders) - 1)
    # Results of aggregations and analytic functions, longest text first (avg(sum(x)) before sum(x)).
    computed = sorted((c for c in scope.columns if not _is_ident(c.text)), key=lambda c: -len(c.text))
    for c in computed:
        if c.text in s:
            # When two columns carry the same text (a join's two inputs: TPC-H q11's
            # `sum(x) > sum(x) * 0.0001` compares the groups' sums, probe, with the total, build), the
            # i-th mention names the i-th of them in scope order, the probe side's first.
            same = iter([d for d in computed if d.text == c.text])
            s = re.sub(r"(?<![\w.:])" + re.escape(c.text), lambda m, c=c, same=same: hold(next(same, c).sql), s)
    s = _calls_via_aliases(s, scope, computed, hold)
    s = VALID_TID_RE.sub(lambda m: hold(_valid_tid(scope)), s)
    out = []
    pos = 0
    prev_as = False
    toks = []
    while pos < len(s):
        m = TOKEN_RE.match(s, pos)
        if not m:
            raise TranslateError("cannot read %r at %r" % (text, s[pos:pos + 20]))
        pos = m.end()
        if m.lastgroup != "ws":
            toks.append((m.lastgroup, m.group(0)))
    for i, (kind, tok) in enumerate(toks):
        nxt = toks[i + 1][1] if i + 1 < len(toks) else None
        if kind == "ph":
            out.append(placeholders[int(tok.strip("\x00"))])
        elif kind == "name":
            if prev_as and tok.upper() in TYPE_MAP:
                out.append(TYPE_MAP[tok.upper()])
            elif tok.upper() == tok and tok.upper() in KEYWORDS:
                out.append(tok)
            elif nxt == "(":
                fn = tok.replace(":merge", "")
                if fn.lower() == "ndv":
                    fn = "approx_count_distinct"
                fn = scope.dialect.functions.get(fn.lower(), fn)
                out.append(fn)
            else:
                col = scope.resolve(tok) or scope.resolve(tok.lower())
                if col is None:
                    col = _via_alias(tok, scope, _depth)
                if col is None:
                    raise TranslateError("%s: no such column among %s" % (
                        tok, ", ".join(c.text for c in scope.columns[:40])))
                out.append(col)
            prev_as = tok.upper() == "AS"
            continue
        else:
            out.append(tok)
        prev_as = False
    return _join(out)


def _calls_via_aliases(s, scope, computed, hold):
    """A call the plan prints through a view's alias (`avg(ctr_total_return)` for the column
    `avg(sum(sr_return_amt))`): the alias replaced by its expression, the texts compared."""
    if not scope.aliases or not computed:
        return s
    wanted = {normal(c.text): c for c in computed}
    out, i = [], 0
    for m in re.finditer(r"(?<![\w.:])[a-z_]+\(", s):
        if m.start() < i:
            continue
        depth, j = 0, m.end() - 1
        while j < len(s):
            depth += {"(": 1, ")": -1}.get(s[j], 0)
            if depth == 0:
                break
            j += 1
        call = s[m.start():j + 1]
        expanded = re.sub(r"\b([a-z_][a-z0-9_]*)\b(?!\()",
                          lambda a: scope.aliases[a.group(1)][0] if a.group(1) in scope.aliases
                          and scope.resolve(a.group(1)) is None else a.group(1), call)
        hit = wanted.get(normal(expanded))
        if hit is not None:
            out.append(s[i:m.start()])
            out.append(hold(hit.sql))
            i = j + 1
    out.append(s[i:])
    return "".join(out)


def _valid_tid(scope):
    for c in scope.columns:
        if c.text == "valid_tid()":
            return c.sql
    raise TranslateError("valid_tid() outside a multi-class aggregation's output")


def _via_alias(ref, scope, depth):
    """A view's column alias (`ctr_total_return`): the expression the query's SQL gives it, when that
    expression resolves in the scope (several candidates: the first that does)."""
    name = ref.split(".")[-1].lower()
    for expr in scope.aliases.get(name, []):
        hit = scope.by_text(expr)
        if hit is not None:
            return hit
        try:
            return "(%s)" % sql(expr, Scope(scope.columns, {}, scope.dialect), depth + 1)
        except TranslateError:
            continue
    return None


def _join(tokens):
    out = ""
    for t in tokens:
        if out and not (t in (")", ",") or out.endswith("(") or (t == "(" and re.search(r"[\w]$", out))):
            out += " "
        out += t
    return out
