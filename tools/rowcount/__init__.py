"""Rows measured on real data: Impala plan subtrees translated to SQL and counted by a SQL engine.

The TPC-DS workload's rows were the planner's SF3000 estimates rescaled by rules; this package
counts them on data made by the TPC's own generators (dsdgen or dbgen output, which the user
makes: the project ships neither the kits nor the data). One module per job:
    benchmark  what differs between benchmarks (TPC-DS, TPC-H): tables, types, files, plan files
    engine     DuckDB (npm's @duckdb/node-api on Debian's Node.js) behind run(statements)
    tables     the tables of a folder of generator output: columns in the generator's order, types
    expr       Impala's printed expressions -> DuckDB SQL, names resolved against a node's inputs
    translate  a plan node -> the SQL of the rows it outputs (a Relation), and its count statements
    measure    TPC-DS: plans + a sample and a base -> measured rows (tools/tpcds_measure_rows.py)
    linear     counts on two whole scale factors carried to targets (tools/tpch_measure_rows.py)
    tpch       the TPC-H command line and its checks against the TPC-H specification's answers
    colstats   a table's statistics as Impala's planner has them (distinct, nulls, string lengths),
               each column's growth between two scale factors, the plans' printed scan sizes
    tpch_stats the TPC-H statistics' command line (tools/tpch_table_stats.py): table_stats.json
"""


class TranslateError(Exception):
    """A plan node the translator cannot express in SQL; the message says why (kept in the output)."""
