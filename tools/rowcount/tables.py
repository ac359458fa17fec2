"""The tables of a folder of dsdgen (or dbgen) output, and the statements that load them into DuckDB.

Columns and types are those of Impala's schema the plans were made for (`stats-3TB.json`: INT
keys, BIGINT order numbers, DATE dates, DECIMAL amounts, STRING text), so that an expression
printed in a plan means in DuckDB what it meant in Impala. dsdgen writes the columns in the
TPC-DS specification's order, which is Impala's except for the date-partitioned fact tables:
Impala's partitioned schema moves the partition key, the specification's first column, to the
end (checked when loading: a DATE or DECIMAL column read from the wrong place fails the load).

A folder holds either whole tables (`store_sales.dat`) or children of a parallel generation
(`store_sales_<child>_<parallel>.dat`, `dsdgen -PARALLEL P -CHILD C`); `sample_fraction()` says
which, so that a count over sampled children can be scaled to the whole table. `.dat` is dsdgen's
suffix; another (dsdgen -SUFFIX, dbgen's `.tbl`) is the Folder's `suffix`. Another benchmark's
types and column order come from its description (tools/rowcount/benchmark.py).
"""

import glob
import json
import os
import re

from tools.rowcount import TranslateError

# Impala's date-partitioned tables and their partition key (the specification's first column).
PARTITION_KEY = {
    "store_sales": "ss_sold_date_sk", "store_returns": "sr_returned_date_sk",
    "catalog_sales": "cs_sold_date_sk", "catalog_returns": "cr_returned_date_sk",
    "web_sales": "ws_sold_date_sk", "web_returns": "wr_returned_date_sk",
    "inventory": "inv_date_sk",
}
# A parallel generation writes a sales table's returns with its children (the same tickets).
RETURNS_OF = {"store_sales": "store_returns", "catalog_sales": "catalog_returns", "web_sales": "web_returns"}
CHILD_RE = re.compile(r"^(?P<table>[a-z_]+?)_(?P<child>\d+)_(?P<parallel>\d+)$")
SUFFIX = ".dat"
DUCK_TYPE = {"STRING": "VARCHAR"}


def impala_columns(stats_path):
    """table -> [(column, Impala type)] in Impala's order, from a planner statistics file."""
    with open(stats_path, "r", encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or len(doc) != 1:
        raise TranslateError("%s: expected one database of tables" % stats_path)
    (db,) = doc.values()
    return {t: [(c, v["type"]) for c, v in d["columns"].items()] for t, d in db.items()}


def generator_columns(table, columns):
    """The columns in dsdgen's order: Impala's, with a partition key put back first."""
    key = PARTITION_KEY.get(table)
    if key is None:
        return list(columns)
    if not columns or columns[-1][0] != key:
        raise TranslateError("%s: expected the partition key %s last in Impala's schema" % (table, key))
    return [columns[-1]] + list(columns[:-1])


class Folder:
    """What a folder of dsdgen output holds: per table, its files and the children they are."""

    def __init__(self, path, tables, suffix=SUFFIX):
        self.path = os.path.abspath(path)
        self.suffix = suffix
        self.files = {}
        self.children = {}    # table -> (sorted child numbers, parallel) for a sampled table
        for t in tables:
            whole = os.path.join(self.path, t + suffix)
            parts = []
            for p in sorted(glob.glob(os.path.join(self.path, t + "_*" + suffix))):
                m = CHILD_RE.match(os.path.basename(p)[:-len(suffix)])
                if m and m.group("table") == t:
                    parts.append((int(m.group("child")), int(m.group("parallel")), p))
            if os.path.exists(whole) and parts:
                raise TranslateError("%s: both %s%s and children of it" % (self.path, t, suffix))
            if os.path.exists(whole):
                self.files[t] = [whole]
            elif parts:
                if len({p for _, p, _ in parts}) != 1:
                    raise TranslateError("%s: children of %s from different -PARALLEL counts" % (self.path, t))
                self.files[t] = [f for _, _, f in sorted(parts)]
                self.children[t] = (sorted(c for c, _, _ in parts), parts[0][1])

    def sample_fraction(self, table):
        """The share of the table the folder holds: 1, or children / parallel."""
        if table not in self.children:
            return 1.0
        kids, par = self.children[table]
        return len(kids) / float(par)


def load_statements(folder, schema, order=None):
    """[(id, sql)] creating and filling every table the folder has; `order(table, columns)` gives the
    columns in the generator's order (dsdgen's, generator_columns, by default)."""
    out = []
    for t in sorted(folder.files):
        cols = (order or generator_columns)(t, schema[t])
        decl = ", ".join("%s %s" % (c, DUCK_TYPE.get(ty, ty)) for c, ty in cols)
        spec = ", ".join("'%s': '%s'" % (c, DUCK_TYPE.get(ty, ty)) for c, ty in cols)
        files = ", ".join("'%s'" % f.replace("'", "''") for f in folder.files[t])
        out.append(("create %s" % t, "CREATE OR REPLACE TABLE %s (%s)" % (t, decl)))
        out.append(("load %s" % t,
                    "INSERT INTO %s SELECT * FROM read_csv([%s], delim='|', header=false, quote='', escape='', "
                    "nullstr='', columns={%s})" % (t, files, spec)))
    return out
