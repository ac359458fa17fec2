"""TPC-DS tables: row counts at SF1, SF100 and SF3000, and the column naming convention."""

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
