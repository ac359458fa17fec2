"""The statistics Impala's planner would have for the TPC-H tables, measured on dbgen output.

Input: two folders of dbgen output at whole scale factors A and B (SF1 and SF10 by default), made by
the user with the TPC's kit (the project ships neither the kit nor the data), loaded into DuckDB by
the row counter's loader (tools/rowcount/measure.load_database, the same cached databases). Output
(scenarios/tpch_harness/table_stats.json), per table and scale factor:
  - rows; bytes of the dbgen text files; bytes of the table written by DuckDB as Parquet with
    Snappy (Impala's performance runs read Parquet+Snappy), and both per row;
  - per column, in COMPUTE STATS's terms (numDVs, numNulls, maxColLen, avgColLen; fixed-width
    types report their slot size): distinct values (exact count(DISTINCT), where Impala's NDV is a
    HyperLogLog estimate), nulls, and for STRING the average and maximum length in bytes;
  - the row's fixed bytes (tuple slots and null bytes, tools/tpcds/ddl.slot_size) and variable
    bytes (the strings' average lengths), and the planner's row-size of the whole row;
  - each column's growth from A to B (`growth`, GROWTH_CLASSES), so that its distinct values can be
    carried to any scale factor (distinct_at).
The checks: rows against the TPC-H specification's sizes, and the text bytes at SF1 against the
`size=` Impala's tpch-all.test prints on each scan (planned on its SF1 text tables).
"""

import math
import os
import re

from tools.rowcount.linear import TOLERANCE
from tools.rowcount.occupancy import solve_domain
from tools.tpcds.ddl import slot_size

# A column's growth from A to B, rows growing by r = rows_B / rows_A and distinct values by g:
GROWTH_CLASSES = {
    "key-like": "distinct values grow with the rows (g within 2% of r): distinct_B x T/B",
    "bounded": "the same distinct values at A and B (g within 2% of 1): a fixed domain, distinct_B",
    "fixed-table": "a table whose rows do not grow with the scale factor (nation, region): distinct_B",
    "other": "neither: `domain` when g is that of a fixed domain D filling by occupancy (D (1 - exp(-n/D)) "
             "distinct among n rows, D the same at A and B within 10%), else `power`: distinct_B x (T/B)^e, "
             "e = log g / log(SF_B / SF_A)",
}
DOMAIN_TOLERANCE = 0.10
# Impala prints a scan's size in 1024-based units with two decimals (PrintUtils.printBytes).
UNITS = {"B": 1, "KB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3, "TB": 1024 ** 4}
SIZE_RE = re.compile(r"^([0-9.]+)(B|KB|MB|GB|TB)$")
PLAN_SCAN_RE = re.compile(r"SCAN HDFS \[([a-z_]+)\.([a-z_]+)[ \]]")
PLAN_SIZE_RE = re.compile(r"\bsize=([0-9.]+(?:B|KB|MB|GB|TB))\b")
PLAN_SIZE_TOLERANCE = 0.03   # the text against the plans' sizes: a few % (dbgen's trailing '|' is 1%)

# What Impala's own planner tests print of its SF1 TPC-H tables (apache/impala at the snapshot
# ../shared/impala-plans/README.md names, b21595276c, testdata/workloads/functional-planner/queries/
# PlannerTest/): the `size=` of the Parquet tables Impala wrote (database tpch_parquet, Snappy), and the
# row-size of a scan of every column (`select *`), which is Impala's avgSerializedSize summed over them.
IMPALA_PARQUET_SF1 = {   # table: (printed size, files, the file it is printed in)
    "lineitem": ("193.99MB", 3, "resource-requirements.test"),
    "orders": ("54.21MB", 2, "aggregation.test"),
    "customer": ("12.34MB", 1, "aggregation.test"),
    "part": ("6.24MB", 1, "runtime-filter-propagation.test"),
    "supplier": ("883.03KB", 1, "resource-requirements-parquet.test"),
}
IMPALA_ROW_SIZE_SF1 = {  # table: (row-size of `select *`, the file it is printed in)
    "lineitem": (231, "resource-requirements.test"),
    "customer": (218, "card-scan.test"),
    "part": (188, "runtime-filter-propagation.test"),
}


def is_string(impala_type):
    return impala_type.upper() == "STRING"


def table_statement(table):
    return ("rows %s" % table, "SELECT count(*) FROM %s" % table)


def column_statement(table, column, impala_type):
    """(id, SQL) of one column's statistics: distinct, nulls[, summed and maximum length in bytes]."""
    sql = "SELECT count(DISTINCT %s), count(*) - count(%s)" % (column, column)
    if is_string(impala_type):
        sql += ", coalesce(sum(strlen(%s)), 0), coalesce(max(strlen(%s)), 0)" % (column, column)
    return ("column %s.%s" % (table, column), sql + " FROM %s" % table)


def parquet_statement(table, path):
    """(id, SQL) writing the whole table as Parquet with Snappy into `path`."""
    return ("parquet %s" % table, "COPY (SELECT * FROM %s) TO '%s' (FORMAT parquet, COMPRESSION snappy)" % (
        table, path.replace("'", "''")))


def statements(schema, tables, parquet_dir=None):
    out = []
    for t in tables:
        out.append(table_statement(t))
        for c, ty in schema[t]:
            out.append(column_statement(t, c, ty))
        if parquet_dir:
            out.append(parquet_statement(t, os.path.join(parquet_dir, t + ".parquet")))
    return out


def read_results(schema, tables, results):
    """{table: {"rows", "columns": {column: {distinct, nulls[, avg_len, max_len]}}}} from engine.run's results
    (an error raises ValueError naming the statement)."""
    bad = {k: v["error"] for k, v in results.items() if "error" in v}
    if bad:
        raise ValueError("; ".join("%s: %s" % kv for kv in sorted(bad.items())))
    out = {}
    for t in tables:
        rows = int(results["rows %s" % t]["rows"][0][0])
        cols = {}
        for c, ty in schema[t]:
            r = results["column %s.%s" % (t, c)]["rows"][0]
            col = {"distinct": int(r[0]), "nulls": int(r[1])}
            if is_string(ty):
                present = rows - col["nulls"]
                col["avg_len"] = int(r[2]) / present if present else 0.0
                col["max_len"] = int(r[3])
            cols[c] = col
        out[t] = {"rows": rows, "columns": cols}
    return out


def impala_column(impala_type, col):
    """A column's statistics as COMPUTE STATS stores them (stats-3TB.json's fields)."""
    if is_string(impala_type):
        size, avg = col["max_len"], col["avg_len"]
    else:
        size = avg = slot_size(impala_type)
    return {"type": impala_type, "numDVs": col["distinct"], "numNulls": col["nulls"], "maxColLen": size,
            "avgColLen": avg}


def row_bytes(columns, stats):
    """Fixed bytes of the table's tuple (slots, one null bit per slot), its variable bytes (strings'
    average lengths) and the planner's row-size (slots + average lengths: ColumnStats.avgSerializedSize)."""
    slots = sum(slot_size(ty) for _, ty in columns)
    var = sum(stats[c]["avg_len"] for c, ty in columns if is_string(ty))
    return {"fixed": slots + (len(columns) + 7) // 8, "variable": var, "planner_row_size": slots + var}


def growth(d_a, d_b, n_a, n_b, scale_a, scale_b, fixed_table):
    """A column's growth class from its distinct values d among n non-null rows at A and B."""
    if fixed_table:
        return {"class": "fixed-table"}
    r, scale_r = n_b / float(n_a), scale_b / float(scale_a)
    if d_a <= 0 or d_b <= 0:
        return {"class": "bounded", "why": "no values"}
    g = d_b / float(d_a)
    out = {"distinct_growth": g, "rows_growth": r}
    if abs(g / r - 1.0) <= TOLERANCE:
        out["class"] = "key-like"
        out["distinct_per_row"] = d_b / float(n_b)
        return out
    if abs(g - 1.0) <= TOLERANCE:
        out["class"] = "bounded"
        return out
    out["class"] = "other"
    dom_a, dom_b = solve_domain(n_a, d_a), solve_domain(n_b, d_b)
    if dom_a and dom_b and abs(dom_b / dom_a - 1.0) <= DOMAIN_TOLERANCE:
        out["how"] = "domain"
        out["domain"] = dom_b
        out["rule"] = "a fixed domain of %.4g values (%.4g solved at A) filling by occupancy: %d distinct of " \
                      "%d rows at B" % (dom_b, dom_a, d_b, n_b)
    else:
        e = math.log(g) / math.log(scale_r)
        out["how"] = "power"
        out["exponent"] = e
        out["rule"] = "distinct grew %.3fx while rows grew %.3fx: distinct_B x (T/B)^%.3f" % (g, r, e)
    return out


def distinct_at(col, scale, scale_b, rows_at_target=None):
    """A column's distinct values at scale factor `scale` from its record (distinct at B and growth);
    rows_at_target (the column's non-null rows there) caps the result and feeds a domain's occupancy."""
    d_b = col["distinct"]["sf%g" % scale_b]
    gr = col["growth"]
    cls = gr["class"]
    if cls in ("bounded", "fixed-table"):
        d = float(d_b)
    elif cls == "key-like":
        d = d_b * scale / float(scale_b)
    elif gr.get("how") == "domain":
        n = rows_at_target if rows_at_target is not None else d_b * scale / float(scale_b)
        d = gr["domain"] * -math.expm1(-n / gr["domain"])
    else:
        d = d_b * (scale / float(scale_b)) ** gr["exponent"]
    return min(d, rows_at_target) if rows_at_target is not None else d


def plan_scan_sizes(path, database="tpch"):
    """{table: bytes} from the `size=` of each `SCAN HDFS [database.table]` of a planner test file,
    with the half-unit of the printed rounding: {table: (bytes, plus_minus)}; a table printed with two
    different sizes raises ValueError."""
    with open(path, "r", encoding="utf-8") as f:
        lines = f.read().splitlines()
    out = {}
    for i, line in enumerate(lines):
        m = PLAN_SCAN_RE.search(line)
        if not m or m.group(1) != database:
            continue
        size = None
        for nxt in lines[i + 1:i + 4]:
            s = PLAN_SIZE_RE.search(nxt)
            if s:
                size = s.group(1)
                break
        if size is None:
            continue
        v = parse_size(size)
        if out.setdefault(m.group(2), v) != v:
            raise ValueError("%s: %s printed with sizes %r and %r" % (path, m.group(2), out[m.group(2)], v))
    return out


def parse_size(text):
    """'718.94MB' -> (bytes, half a unit of the last printed digit)."""
    m = SIZE_RE.match(text)
    if not m:
        raise ValueError("unreadable size %r" % text)
    num, unit = m.group(1), UNITS[m.group(2)]
    decimals = len(num.split(".")[1]) if "." in num else 0
    return float(num) * unit, 0.5 * 10 ** -decimals * unit


def check_plan_sizes(text_bytes, rows, printed):
    """[{table, text_bytes, plan_bytes, ratio, ok, ...}] for each table both know: the dbgen text at SF1
    against the size the plans print (within PLAN_SIZE_TOLERANCE, beyond the printed rounding). dbgen
    ends each row with a '|' that Impala's test tables do not have: without it (one byte a row) the text
    is also compared within the rounding alone (`without_trailing_delimiter`)."""
    out = []
    for t in sorted(set(text_bytes) & set(printed)):
        plan, half = printed[t]
        ratio = text_bytes[t] / plan
        off = max(0.0, abs(text_bytes[t] - plan) - half) / plan
        bare = text_bytes[t] - rows[t]
        out.append({"table": t, "text_bytes": text_bytes[t], "plan_bytes": round(plan), "plan_rounding": round(half),
                    "ratio": ratio, "ok": off <= PLAN_SIZE_TOLERANCE,
                    "without_trailing_delimiter": {"text_bytes": bare, "ratio": bare / plan,
                                                   "within_rounding": abs(bare - plan) <= half + 1}})
    return out


def check_impala_sf1(tables_sf1):
    """DuckDB's Parquet bytes and the planner row-size measured at SF1 against what Impala's planner tests
    print for its own SF1 tables (IMPALA_PARQUET_SF1, IMPALA_ROW_SIZE_SF1); tables_sf1: {table: {
    "parquet_bytes", "planner_row_size"}}."""
    parquet, row_size = [], []
    for t, (size, files, where) in sorted(IMPALA_PARQUET_SF1.items()):
        if t in tables_sf1:
            b, _ = parse_size(size)
            got = tables_sf1[t]["parquet_bytes"]
            parquet.append({"table": t, "duckdb_bytes": got, "impala_printed": size, "impala_files": files,
                            "impala_bytes": round(b), "ratio": round(got / b, 4), "printed_in": where})
    for t, (size, where) in sorted(IMPALA_ROW_SIZE_SF1.items()):
        if t in tables_sf1:
            got = tables_sf1[t]["planner_row_size"]
            row_size.append({"table": t, "measured": round(got, 2), "impala_printed": size, "printed_in": where,
                             "ok": abs(got - size) <= 0.5})
    return {"parquet_bytes": parquet, "planner_row_size_of_every_column": row_size}
