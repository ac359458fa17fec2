"""TPC-DS tables: row counts per scale factor, column types and sizes, the naming convention.

The generator reads a benchmark's tables through `Schema.tables` (a `Tables`: rows at a scale
factor, the table of a column, the table a foreign key references, the facts) and its scale
factors through `Schema.stats_scale` (the statistics' and the plans' estimates') and
`Schema.target` (the workload's), not through this module's TPC-DS constants, so that another
benchmark is another description.

Column types are those of Impala's `tpcds_partitioned_parquet_snap` schema, the one the plans
were made for: the `type` of every column in impala-plans/stats-3TB.json (the same types as
apache/impala testdata/datasets/tpcds_partitioned/tpcds_partitioned_schema_template.sql at the
plans' commit: INT keys, BIGINT order/ticket numbers, DATE dates, DECIMAL(7,2) amounts, STRING
text). Average string lengths are the statistics' avgColLen (SF3000; string lengths do not
depend on the scale factor).
"""

import json
import math
import os
import re

from tools.tpcds import PlanError
from tools.tpcds.scaling import MN_OVERRIDES

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


SCALE_INDEX = {1: 0, 100: 1, 3000: 2}   # column of TABLE_ROWS per scale factor
STRING_TYPES = ("STRING", "VARCHAR")

# TPC-DS fact tables (specification 2.2 and 2.3; inventory is a fact table of its snowflake): every
# other table is a dimension.
FACT_TABLES = ("store_sales", "store_returns", "catalog_sales", "catalog_returns", "web_sales", "web_returns",
               "inventory")


class Tables:
    """A benchmark's tables as the workload generator sees them: a table's rows at a scale factor,
    the table a column belongs to (the benchmark's naming convention, a prefix per table), the
    table a foreign-key column references (its suffix), and which tables are facts.

        TPCDS_TABLES.rows("item", 100)               # 204000
        TPCDS_TABLES.table_of("ss_item_sk")          # "store_sales"
        TPCDS_TABLES.referenced("ss_item_sk")        # "item"
    """

    def __init__(self, rows, prefixes, fk_suffixes, facts):
        self._rows = rows                  # (table, scale factor) -> rows
        self.prefixes = dict(prefixes)     # column-name prefix -> table
        self.fk_suffixes = list(fk_suffixes)  # [(column-name suffix, referenced table)], first match wins
        self.facts = frozenset(facts)

    def rows(self, table, scale):
        return self._rows(table, scale)

    def table_of(self, column):
        """The table whose prefix the column's name carries, or None."""
        m = re.match(r"^([a-z]+)_[a-z0-9_]+$", column)
        return self.prefixes.get(m.group(1)) if m else None

    def referenced(self, column, table=None):
        """The table a foreign-key column references (not its own `table`), or None."""
        for suffix, ref in self.fk_suffixes:
            if column.endswith(suffix) and ref != table:
                return ref
        return None


TPCDS_TABLES = Tables(lambda table, scale: TABLE_ROWS[table][SCALE_INDEX[scale]], COLUMN_PREFIX, FK_SUFFIX,
                      FACT_TABLES)

# Types of the SF1 text schema Impala's q72 profile ran on (database `tpcds`, apache/impala
# testdata/datasets/tpcds/tpcds_schema_template.sql at the plans' commit), for the columns of the
# profile's exchange 28 (the row-size check of README "Row sizes"). They differ from the
# workload's schema: BIGINT item keys, STRING dates.
SF1_TEXT_TYPES = {
    "inv_date_sk": "INT", "inv_item_sk": "BIGINT", "inv_warehouse_sk": "INT", "inv_quantity_on_hand": "INT",
    "w_warehouse_sk": "INT", "w_warehouse_name": "STRING", "i_item_sk": "BIGINT", "i_item_desc": "STRING",
    "d_date_sk": "INT", "d_date": "STRING", "d_week_seq": "INT", "d_year": "INT",
}


def slot_size(type_name):
    """Bytes of a tuple slot of this type (Impala's PrimitiveType/ScalarType.getSlotSize: STRING 12,
    DECIMAL 4/8/16 by precision, DATE 4, TIMESTAMP 16)."""
    t = type_name.upper()
    m = re.match(r"DECIMAL\((\d+),\s*\d+\)", t)
    if m:
        p = int(m.group(1))
        return 4 if p <= 9 else 8 if p <= 18 else 16
    m = re.match(r"CHAR\((\d+)\)", t)
    if m:
        return int(m.group(1))
    sizes = {"BOOLEAN": 1, "TINYINT": 1, "SMALLINT": 2, "INT": 4, "BIGINT": 8, "FLOAT": 4, "DOUBLE": 8,
             "TIMESTAMP": 16, "DATE": 4, "STRING": 12, "VARCHAR": 12, "DECIMAL": 16}
    base = t.split("(")[0]
    if base not in sizes:
        raise PlanError("unknown column type %s" % type_name)
    return sizes[base]


def is_string(type_name):
    return type_name.upper().split("(")[0] in STRING_TYPES


class Column:
    """One column: its table, type, slot size and (strings) average length."""

    def __init__(self, table, name, type_name, avg_len, ndv):
        self.table = table
        self.name = name
        self.type = type_name
        self.slot = slot_size(type_name)
        self.string = is_string(type_name)
        self.avg = float(avg_len) if self.string else 0.0
        self.ndv = ndv


class BenchmarkSchema:
    """What the workload generator asks of a benchmark: its tables (Tables), the statistics its plans
    were made with (`stats`: table -> {"numRows", "totalSize", "columns": {name: {"type", "numDVs",
    "avgColLen", "maxColLen"}}}, Impala's COMPUTE STATS form) at scale factor `stats_scale`, the scale
    factor to build for (`target`) and the rows counted on its data (`measured`, rule M2)."""

    def __init__(self, tables, stats, stats_scale, target, measured=None, join_caps=None):
        self.tables = tables
        # (plan stem, join node id) -> (cap, why): rule J2's caps chosen from a query's SQL for the
        # joins of its planner estimates the planner could not match to a key
        self.join_caps = join_caps or {}
        self.stats = stats
        self.stats_scale = stats_scale   # the scale factor of the statistics and of the plans' estimates
        self.target = target             # the scale factor the workload is built for
        self.measured = measured or {}   # {"queries": {stem: {section: {"nodes": {id: record}}}}}
        self.columns = {}
        self.by_table = {}
        for t, v in sorted(self.stats.items()):
            cols = []
            for name, c in v["columns"].items():
                col = Column(t, name, c["type"], c.get("avgColLen", 0), c.get("numDVs", -1))
                self.columns[name] = col
                cols.append(col)
            self.by_table[t] = cols

    def measured_nodes(self, stem, section):
        """Node id (str) -> the measured rows of plan `stem`'s `section`, or {} (rule M2)."""
        return self.measured.get("queries", {}).get(stem, {}).get(section, {}).get("nodes", {})

    def measured_self_joins(self, stem, section):
        """Label -> the measured range self-join a statement derived from plan `stem`'s `section` adds
        (tools/rowcount/selfjoin.py; rule M4), or {}."""
        return self.measured.get("queries", {}).get(stem, {}).get(section, {}).get("self_joins", {})

    def column(self, name):
        """The column of a (possibly alias-qualified) name, or None."""
        return self.columns.get(name.split(".")[-1].lower())

    def table_bytes(self, table):
        return self.stats[table]["totalSize"]


class Schema(BenchmarkSchema):
    """The TPC-DS schema of the plans and its SF3000 statistics (impala-plans/stats-3TB.json); the
    workload is built for SF100. The generator sets `measured` when it reads measured_rows.json
    (tools/tpcds_measure_rows.py)."""

    def __init__(self, plans_dir):
        path = os.path.join(plans_dir, "stats-3TB.json")
        try:
            with open(path, "r", encoding="utf-8") as f:
                stats = json.load(f)["tpcds_partitioned_parquet_snap"]
        except (OSError, ValueError, KeyError) as e:
            raise PlanError("%s: cannot read the SF3000 statistics (%s)" % (path, e))
        for t, (sf1, sf100, sf3000) in TABLE_ROWS.items():
            if stats[t]["numRows"] != sf3000:
                raise PlanError("stats-3TB.json: %s numRows %d, expected SF3000 %d" % (
                    t, stats[t]["numRows"], sf3000))
        super().__init__(TPCDS_TABLES, stats, 3000, 100, join_caps=MN_OVERRIDES)


# HDFS block size: scan ranges are at most one block (Hadoop's dfs.blocksize default, 128 MiB;
# the measured cluster's storage is not published: an assumption).
BLOCK_BYTES = 128 * 1024 * 1024


def scan_ranges(table, hdfs, schema):
    """Scan ranges of a scan at the target scale factor: one file per selected partition (the date
    partitions are the same at every scale factor), each split into blocks of BLOCK_BYTES; an
    unpartitioned table is one file. Returns (ranges, why)."""
    sel = hdfs["sel"] if hdfs else 1
    ratio = schema.tables.rows(table, schema.target) / schema.tables.rows(table, schema.stats_scale)
    size = (hdfs["size_bytes"] if hdfs else schema.table_bytes(table)) * ratio
    per_file = size / max(1, sel)
    ranges = sel * max(1, math.ceil(per_file / BLOCK_BYTES))
    return ranges, "%d file(s) (one per selected partition) of %.1f MB at SF%d, %d MiB blocks: %d range(s)" % (
        sel, per_file / 1e6, schema.target, BLOCK_BYTES >> 20, ranges)
