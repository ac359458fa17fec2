"""What the row counter needs to know about a benchmark, in one description per benchmark.

A Benchmark says: where its tables' columns and Impala types come from (so that a plan's
expressions mean in DuckDB what they meant in Impala), in what order its generator writes a
table's columns and with what file suffix, how its planner tests are read into plans, which
Impala functions need a DuckDB macro for its types (and other ways its expressions are read:
expr.Dialect), and, for a measurement on a sample, which fact
tables a parallel generation splits and on which key (tools/rowcount/measure.py). The translator,
the loader and the counting are the same for every benchmark.

    TPCDS  Impala's TPC-DS plans (one file per query, fragment headers), stats-3TB.json's types,
           dsdgen's `.dat` files (the partition key first), the sales channels sampled by ticket.
    TPCH   Impala's tpch-all.test (22 queries in one file, the standard explain level), the types
           of Impala's TPC-H test schema, dbgen's `.tbl` files in schema order; no sampling: it is
           counted on whole scale factors (tools/rowcount/linear.py).
"""

import os

from tools.rowcount import tables
from tools.rowcount.expr import Dialect
from tools.tpcds.plans import parse_plan_block, parse_plan_file, parse_query_blocks, query_sql


class Benchmark:
    def __init__(self, name, generator, suffix, columns, generator_columns, read_plans, channels=None, tickets=(),
                 base_only=(), dialect=None, macros=(), fixed_tables=()):
        self.name = name
        self.generator = generator                  # the TPC kit's data generator
        self.suffix = suffix                        # its file suffix
        self.columns = columns                      # plans folder -> {table: [(column, Impala type)]}
        self.generator_columns = generator_columns  # (table, columns) -> the columns in file order
        self.read_plans = read_plans                # (plans folder, names, sections) -> [(key, Plan, SQL)]
        self.channels = channels or {}              # sampled fact table -> the group sampled together
        self.tickets = frozenset(tickets)           # the keys a sample's child keeps whole
        self.base_only = frozenset(base_only)       # tables whose sample is no unbiased share
        self.dialect = dialect or Dialect()         # how its expressions are read (expr.Dialect)
        self.macros = list(macros)                  # [(id, CREATE MACRO ...)] its dialect's functions need
        self.fixed_tables = frozenset(fixed_tables)  # tables whose rows do not grow with the scale


# --------------------------------------------------------------------------
# TPC-DS
# --------------------------------------------------------------------------

def _tpcds_columns(plans):
    return tables.impala_columns(os.path.join(plans, "stats-3TB.json"))


def _tpcds_plans(plans, stems, sections):
    out = []
    for stem in stems:
        path = os.path.join(plans, "tpcds-%s.test" % stem)
        for section in sections:
            plan, data = parse_plan_file(path, section)
            out.append(("%s %s" % (stem, section), plan, query_sql(data.decode("utf-8"))))
    return out


TPCDS = Benchmark(
    "tpcds", "dsdgen", tables.SUFFIX, _tpcds_columns, tables.generator_columns, _tpcds_plans,
    channels={"store_sales": "store", "store_returns": "store", "catalog_sales": "catalog",
              "catalog_returns": "catalog", "web_sales": "web", "web_returns": "web"},
    tickets={"ss_ticket_number", "sr_ticket_number", "cs_order_number", "cr_order_number", "ws_order_number",
             "wr_order_number"},
    base_only={"inventory"})


# --------------------------------------------------------------------------
# TPC-H
# --------------------------------------------------------------------------

# Impala's TPC-H test schema (apache/impala testdata/datasets/tpch/tpch_schema_template.sql,
# `---- COLUMNS` of each table, at the snapshot ../shared/impala-plans/README.md names): the database
# `tpch` that tpch-all.test was planned on. Dates are STRING there, compared as text
# (`l_shipdate <= '1998-09-02'`); the columns are in dbgen's order.
TPCH_COLUMNS = {
    "lineitem": [("l_orderkey", "BIGINT"), ("l_partkey", "BIGINT"), ("l_suppkey", "BIGINT"),
                 ("l_linenumber", "INT"), ("l_quantity", "DECIMAL(12,2)"), ("l_extendedprice", "DECIMAL(12,2)"),
                 ("l_discount", "DECIMAL(12,2)"), ("l_tax", "DECIMAL(12,2)"), ("l_returnflag", "STRING"),
                 ("l_linestatus", "STRING"), ("l_shipdate", "STRING"), ("l_commitdate", "STRING"),
                 ("l_receiptdate", "STRING"), ("l_shipinstruct", "STRING"), ("l_shipmode", "STRING"),
                 ("l_comment", "STRING")],
    "part": [("p_partkey", "BIGINT"), ("p_name", "STRING"), ("p_mfgr", "STRING"), ("p_brand", "STRING"),
             ("p_type", "STRING"), ("p_size", "INT"), ("p_container", "STRING"), ("p_retailprice", "DECIMAL(12,2)"),
             ("p_comment", "STRING")],
    "partsupp": [("ps_partkey", "BIGINT"), ("ps_suppkey", "BIGINT"), ("ps_availqty", "INT"),
                 ("ps_supplycost", "DECIMAL(12,2)"), ("ps_comment", "STRING")],
    "supplier": [("s_suppkey", "BIGINT"), ("s_name", "STRING"), ("s_address", "STRING"), ("s_nationkey", "SMALLINT"),
                 ("s_phone", "STRING"), ("s_acctbal", "DECIMAL(12,2)"), ("s_comment", "STRING")],
    "nation": [("n_nationkey", "SMALLINT"), ("n_name", "STRING"), ("n_regionkey", "SMALLINT"),
               ("n_comment", "STRING")],
    "region": [("r_regionkey", "SMALLINT"), ("r_name", "STRING"), ("r_comment", "STRING")],
    "orders": [("o_orderkey", "BIGINT"), ("o_custkey", "BIGINT"), ("o_orderstatus", "STRING"),
               ("o_totalprice", "DECIMAL(12,2)"), ("o_orderdate", "STRING"), ("o_orderpriority", "STRING"),
               ("o_clerk", "STRING"), ("o_shippriority", "INT"), ("o_comment", "STRING")],
    "customer": [("c_custkey", "BIGINT"), ("c_name", "STRING"), ("c_address", "STRING"), ("c_nationkey", "SMALLINT"),
                 ("c_phone", "STRING"), ("c_acctbal", "DECIMAL(12,2)"), ("c_mktsegment", "STRING"),
                 ("c_comment", "STRING")],
}
TPCH_FILE = os.path.join("tpch", "tpch-all.test")
TPCH_HEADER = r"^# TPCH-Q(\d+)\s*$"


def tpch_query_key(number):
    """The name of TPC-H query `number` in the output (q01 .. q22)."""
    return "q%02d" % int(number)


def _tpch_plans(plans, names, sections):
    """names: query keys (q01 ..), or empty for all 22."""
    path = plans if os.path.isfile(plans) else os.path.join(plans, TPCH_FILE)
    out = []
    for number, offset, block in parse_query_blocks(path, TPCH_HEADER):
        key = tpch_query_key(number)
        if names and key not in names:
            continue
        for section in sections:
            plan = parse_plan_block(block, offset, section, key, fragment_headers=False)
            out.append(("%s %s" % (key, section), plan, query_sql(block)))
    return out


TPCH = Benchmark(
    "tpch", "dbgen", ".tbl", lambda plans: {t: list(c) for t, c in TPCH_COLUMNS.items()},
    lambda table, columns: list(columns),     # dbgen writes Impala's order
    _tpch_plans,
    # Impala casts a STRING argument of year() to TIMESTAMP; DuckDB casts no column implicitly.
    dialect=Dialect(functions={"year": "impala_year"}),
    macros=[("macro impala_year", "CREATE OR REPLACE TEMP MACRO impala_year(x) AS year(CAST(x AS TIMESTAMP))")],
    # nation and region have 25 and 5 rows at every scale factor (the TPC-H specification's table sizes)
    fixed_tables={"nation", "region"})
