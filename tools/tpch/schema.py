"""TPC-H's tables, statistics and measured rows, in the form the workload generator reads.

The generator (tools/tpcds) asks a schema for: its tables (ddl.Tables: rows at a scale factor, the
table of a column, the table a foreign key references, the facts), the statistics the plans were
made with (`stats`, at `stats_scale`: Impala's planner test planned TPC-H at SF1), the scale factor
to build for (`target`), each column's type, distinct values and string lengths (`column`), each
table's bytes (`table_bytes`: the Parquet files the performance runs read), and the rows counted
on TPC-H data (`measured_nodes`, rule M2).

Every number here is measured on dbgen output: the statistics by tools/tpch_table_stats.py
(table_stats.json), the rows by tools/tpch_measure_rows.py (measured_rows.json).
"""

import json

from tools.rowcount.benchmark import TPCH_COLUMNS
from tools.tpcds import PlanError
from tools.tpcds.ddl import BenchmarkSchema, Tables

# Column-name prefixes of TPC-H's tables (the specification's column names).
PREFIXES = {"l": "lineitem", "o": "orders", "c": "customer", "p": "part", "ps": "partsupp",
            "s": "supplier", "n": "nation", "r": "region"}
# Foreign keys by their name's suffix: the table whose key they hold (the specification's schema).
FK_SUFFIXES = [("partkey", "part"), ("suppkey", "supplier"), ("custkey", "customer"),
               ("nationkey", "nation"), ("regionkey", "region"), ("orderkey", "orders")]
# The tables whose rows are events or relations, not entities another row refers to: a row of
# them in a batch does not repeat, where a customer's or a part's may (compression classes).
FACTS = ("lineitem", "orders", "partsupp")


def _load(path, what):
    try:
        with open(path, "r", encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise PlanError("%s: cannot read %s (%s)" % (path, what, e))


class Schema(BenchmarkSchema):
    """TPC-H at scale factor `target`, with the statistics of `stats_path` and the measured rows of
    `rows_path`."""

    def __init__(self, stats_path, rows_path, target):
        stats = _load(stats_path, "the TPC-H table statistics (tools/tpch_table_stats.py)")
        self.measured_doc = _load(rows_path, "the TPC-H measured rows (tools/tpch_measure_rows.py)")
        counted = self.measured_doc.get("data", {})
        at_targets = self.measured_doc.get("tables_at_targets", {})
        key = "sf%d" % target
        if key not in at_targets:
            raise PlanError("%s: no rows at SF%d (it has %s)" % (rows_path, target, ", ".join(sorted(at_targets))))
        rows = {}
        for sf_key, tables in list(counted.items()) + list(at_targets.items()):
            sf = int(sf_key[2:])
            for t, n in tables.items():
                rows[(t, sf)] = round(n)   # carried to a target: a whole number of rows

        def rows_at(table, scale):
            if (table, scale) not in rows:
                raise PlanError("TPC-H: no row count of %s at SF%s" % (table, scale))
            return rows[(table, scale)]

        measured = {"queries": {
            stem: {sec: {"nodes": {nid: _at_target(rec, key) for nid, rec in doc.get("nodes", {}).items()}}
                   for sec, doc in sections.items()}
            for stem, sections in self.measured_doc.get("queries", {}).items()}}
        # Impala's planner test planned TPC-H at SF1.
        super().__init__(Tables(rows_at, PREFIXES, FK_SUFFIXES, FACTS), stats_at(stats, 1, stats_path), 1, target,
                         measured)


def _at_target(rec, key):
    """A measured node as rule M2 reads it: its rows at the target, its filters' keep at the larger
    counted scale factor."""
    out = {"kind": rec.get("kind"), "how": rec.get("how"), "rows": (rec.get("rows") or {}).get(key)}
    if rec.get("filters"):
        out["filters"] = [{"join": f["join"], "keep": max(f["keep"].items(), key=lambda kv: int(kv[0][2:]))[1]}
                          for f in rec["filters"]]
    return out


def stats_at(doc, scale, where):
    """table -> {"numRows", "totalSize", "columns": {name: {"type", "numDVs", "numNulls", "avgColLen",
    "maxColLen"}}} at scale factor `scale`: table_stats.json's `impala_stats`, the form of Impala's
    COMPUTE STATS (totalSize: the Parquet+Snappy bytes), checked against Impala's TPC-H types."""
    key = "sf%d" % scale
    tables = doc.get("tables")
    if not isinstance(tables, dict):
        raise PlanError("%s: expected an object `tables`" % where)
    out = {}
    for t, cols in TPCH_COLUMNS.items():
        try:
            st = tables[t]["impala_stats"][key]
            for name, typ in cols:
                if st["columns"][name]["type"] != typ:
                    raise PlanError("%s: tables.%s.impala_stats.%s.columns.%s.type: %s, Impala's schema has %s" % (
                        where, t, key, name, st["columns"][name]["type"], typ))
        except (KeyError, TypeError) as e:
            raise PlanError("%s: tables.%s.impala_stats.%s: %s missing" % (where, t, key, e))
        out[t] = st
    return out
