"""The TPC-H table statistics (tools/tpch_table_stats.py: tools/rowcount/colstats.py, tpch_stats.py) on a
hand-made data set whose statistics are worked out by hand, the growth classes that carry a column's
distinct values to any scale factor, and the check of the text sizes against the sizes Impala's
tpch-all.test prints (skipped when ../shared/impala-plans is absent).

Scale factor A is tests/python/data/rowcount_tpch's orders and lineitem plus a region table written
here (one empty comment: the loader reads an empty field as NULL); B is the same with every order and
line written twice (the copy's order keys + 100), as test_rowcount_tpch.py makes it: order keys double,
customers, statuses, prices and comments stay. The tests that run DuckDB skip when it cannot be installed
(no Node.js or npm, or no registry).
"""

import json
import math
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tools.rowcount import colstats, engine  # noqa: E402
from tools.rowcount.benchmark import TPCH_COLUMNS, TPCH_FILE  # noqa: E402
from tools.rowcount.tpch_stats import main  # noqa: E402
from tools.tpcds import DEFAULT_PLANS  # noqa: E402

DATA = REPO / "tests" / "python" / "data" / "rowcount_tpch"
REGION = ("0|AFRICA|lar deposits|\n1|AMERICA|hs use ironic|\n2|ASIA||\n3|EUROPE|ly final courts|\n"
          "4|MIDDLE EAST|uickly special|\n")


def folders(tmp_path):
    a, b = tmp_path / "sf1", tmp_path / "sf2"
    a.mkdir()
    b.mkdir()
    for t in ("orders", "lineitem"):
        rows = (DATA / ("%s.tbl" % t)).read_text().splitlines()
        (a / ("%s.tbl" % t)).write_text("\n".join(rows) + "\n")
        copy = ["%d|%s" % (int(r.split("|", 1)[0]) + 100, r.split("|", 1)[1]) for r in rows]
        (b / ("%s.tbl" % t)).write_text("\n".join(rows + copy) + "\n")
    (a / "region.tbl").write_text(REGION)
    (b / "region.tbl").write_text(REGION)
    return a, b


@pytest.fixture(scope="module")
def stats(tmp_path_factory):
    try:
        engine.ensure_installed()
    except engine.EngineError as e:
        pytest.skip("no DuckDB: %s" % e)
    tmp = tmp_path_factory.mktemp("stats")
    a, b = folders(tmp)
    out = tmp / "table_stats.json"
    assert main(["--sf-a", str(a), "--scale-a", "1", "--sf-b", str(b), "--scale-b", "2",
                 "--plans", str(DATA / "plans.test"), "--cache", str(tmp / "db"), "--parquet-dir",
                 str(tmp / "parquet"), "--threads", "1", "--check-row-group-rows", "4", "--out", str(out)]) == 0
    return json.loads(out.read_text()), a, b, tmp


def test_orders_statistics_as_worked_out_by_hand(stats):
    doc, a, b, _ = stats
    o = doc["tables"]["orders"]
    assert o["rows"] == {"sf1": 4, "sf2": 8}
    c = o["columns"]
    assert c["o_orderkey"]["distinct"] == {"sf1": 4, "sf2": 8}              # 1-4, then 101-104
    assert c["o_custkey"]["distinct"] == {"sf1": 3, "sf2": 3}               # customers 1, 2, 3
    # priorities 1-URGENT, 2-HIGH, 3-MEDIUM, 5-LOW: 8 + 6 + 8 + 5 = 27 bytes over 4 rows
    assert c["o_orderpriority"]["avg_len"] == {"sf1": 6.75, "sf2": 6.75}
    assert c["o_orderpriority"]["max_len"] == {"sf1": 8, "sf2": 8}
    # comments "first order" 11, "open order" 10, "third order" 11, "last day of 1993" 16: 48 / 4
    assert c["o_comment"]["avg_len"]["sf1"] == 12 and c["o_comment"]["max_len"]["sf1"] == 16
    assert c["o_clerk"]["distinct"]["sf1"] == 2 and c["o_clerk"]["avg_len"]["sf1"] == 15
    assert all(col["nulls"] == {"sf1": 0, "sf2": 0} for col in c.values())
    assert "avg_len" not in c["o_totalprice"] and c["o_totalprice"]["slot_bytes"] == 8
    # slots: 2 BIGINT 16 + 5 STRING 60 + DECIMAL(12,2) 8 + INT 4 = 88, 9 null bits in 2 bytes;
    # strings on average 1 + 10 + 6.75 + 15 + 12 = 44.75 bytes
    assert o["row_bytes"] == {"fixed": 90, "variable": {"sf1": 44.75, "sf2": 44.75},
                              "planner_row_size": {"sf1": 132.75, "sf2": 132.75}}
    assert o["text_bytes"] == {"sf1": (a / "orders.tbl").stat().st_size, "sf2": (b / "orders.tbl").stat().st_size}
    assert o["text_bytes_per_row"]["sf1"] == pytest.approx(o["text_bytes"]["sf1"] / 4, abs=1e-4)
    assert 0 < o["parquet_snappy_bytes"]["sf1"] < o["parquet_snappy_bytes"]["sf2"]
    # COMPUTE STATS's form: a STRING's lengths, a fixed type's slot size
    imp = o["impala_stats"]["sf1"]
    assert imp["numRows"] == 4 and imp["totalSize"] == o["parquet_snappy_bytes"]["sf1"]
    assert imp["columns"]["o_comment"] == {"type": "STRING", "numDVs": 4, "numNulls": 0, "maxColLen": 16,
                                           "avgColLen": 12}
    assert imp["columns"]["o_orderkey"]["avgColLen"] == imp["columns"]["o_orderkey"]["maxColLen"] == 8


def test_growth_classes_between_the_two_scales(stats):
    doc = stats[0]
    c = doc["tables"]["orders"]["columns"]
    assert c["o_orderkey"]["growth"]["class"] == "key-like"      # 4 -> 8 as the rows
    assert c["o_custkey"]["growth"]["class"] == "bounded"     # 3 -> 3
    assert c["o_orderstatus"]["growth"]["class"] == "bounded"
    assert doc["tables"]["region"]["columns"]["r_name"]["growth"] == {"class": "fixed-table"}
    # carried to SF10: order keys 8 x 10/2, customers stay 3
    assert colstats.distinct_at(c["o_orderkey"], 10, 2) == 40
    assert colstats.distinct_at(c["o_custkey"], 10, 2) == 3


def test_nulls_and_lengths_of_a_string_with_an_empty_field(stats):
    r = stats[0]["tables"]["region"]
    assert r["rows"] == {"sf1": 5, "sf2": 5}
    com = r["columns"]["r_comment"]
    # ASIA's empty comment is NULL; the others are 12 + 13 + 15 + 14 = 54 bytes over 4 values
    assert com["nulls"]["sf1"] == 1 and com["distinct"]["sf1"] == 4
    assert com["avg_len"]["sf1"] == 13.5 and com["max_len"]["sf1"] == 15
    # names 6 + 7 + 4 + 6 + 11 = 34 bytes over 5
    assert r["columns"]["r_name"]["avg_len"]["sf1"] == 6.8 and r["columns"]["r_name"]["max_len"]["sf1"] == 11


def test_checks_against_the_specification_and_the_plans_sizes(stats):
    doc = stats[0]
    rows = {c["table"]: c for c in doc["checks"]["tables"]["sf1"]}
    assert rows["region"]["ok"] is True                # 5 at every scale
    assert rows["orders"] == {"table": "orders", "rows": 4, "expected": 1500000, "ok": False}
    # plans.test prints size=1KB (1024 +- 512 B): lineitem's 606 B are within it, orders' are not
    sizes = {c["table"]: c for c in doc["checks"]["text_bytes_against_plan_sizes"]}
    assert set(sizes) == {"lineitem", "orders"}
    assert sizes["lineitem"]["ok"] is True and sizes["lineitem"]["plan_bytes"] == 1024
    assert sizes["orders"]["ok"] is False
    # dbgen ends each of the 7 lines with a '|' Impala's tables do not have
    assert sizes["lineitem"]["without_trailing_delimiter"]["text_bytes"] == 606 - 7
    # orders has no table of Impala's SF1 to compare with (no lineitem, customer, part at SF1 here)
    imp = doc["checks"]["against_impalas_sf1_tables"]
    assert [c["table"] for c in imp["parquet_bytes"]] == ["lineitem", "orders"]


def test_parquet_and_row_size_against_impalas_sf1_tables():
    """Impala's tpch_parquet.lineitem prints size=193.99MB (203,413,258 B) and row-size=231B for every column."""
    got = colstats.check_impala_sf1({"lineitem": {"parquet_bytes": 213583921, "planner_row_size": 230.78}})
    (p,) = got["parquet_bytes"]
    assert p["impala_bytes"] == 203413258 and p["ratio"] == pytest.approx(1.05, abs=1e-4)
    (r,) = got["planner_row_size_of_every_column"]
    assert r == {"table": "lineitem", "measured": 230.78, "impala_printed": 231,
                 "printed_in": "resource-requirements.test", "ok": True}


def test_the_parquet_scratch_folder_is_deleted(stats):
    assert not (stats[3] / "parquet").exists()


def test_lineitem_written_with_other_row_groups(stats):
    check = stats[0]["parquet_check"]
    for sf in ("sf1", "sf2"):
        assert check[sf]["default_bytes"] == stats[0]["tables"]["lineitem"]["parquet_snappy_bytes"][sf]
        assert check[sf]["row_groups_of_4"]["bytes"] > 0


def test_a_fixed_domain_and_a_power_law():
    # 1000 values: 1000 rows hold 1000 (1 - e^-1) = 632.12 of them, 10000 rows 999.95
    g_a, g_b = 1000 * -math.expm1(-1), 1000 * -math.expm1(-10)
    gr = colstats.growth(g_a, g_b, 1000, 10000, 1, 10, False)
    assert gr["class"] == "other" and gr["how"] == "domain" and gr["domain"] == pytest.approx(1000, rel=1e-3)
    col = {"distinct": {"sf10": g_b}, "growth": gr}
    # 100000 rows at SF100 fill the domain; 500 rows hold 1000 (1 - e^-0.5) = 393.5
    assert colstats.distinct_at(col, 100, 10, 100000) == pytest.approx(1000, rel=1e-3)
    assert colstats.distinct_at(col, 100, 10, 500) == pytest.approx(393.47, rel=1e-3)
    # 100 of 1000 rows, then 316.2 of 10000: sqrt growth, SF^0.5
    gr = colstats.growth(100, 316.23, 1000, 10000, 1, 10, False)
    assert gr["how"] == "power" and gr["exponent"] == pytest.approx(0.5, abs=1e-4)
    assert colstats.distinct_at({"distinct": {"sf10": 316.23}, "growth": gr}, 1000, 10) == pytest.approx(3162.3,
                                                                                                          rel=1e-3)


def test_printed_sizes_are_read_with_their_rounding():
    assert colstats.parse_size("718.94MB") == (718.94 * 1024 ** 2, 0.005 * 1024 ** 2)
    assert colstats.parse_size("384B") == (384, 0.5)
    with pytest.raises(ValueError):
        colstats.parse_size("12 MB")


def test_bad_arguments_are_messages(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["--sf-a", str(tmp_path / "nope"), "--sf-b", str(DATA)])
    assert e.value.code == 2 and "--sf-a" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--sf-a", str(DATA), "--sf-b", str(DATA), "--scale-a", "10", "--scale-b", "1"])
    assert "expected 0 < A < B" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--sf-a", str(DATA), "--sf-b", str(DATA), "--scale-b", "2", "--check-row-group-rows", "7M"])
    assert "--check-row-group-rows: expected comma-separated positive row counts" in capsys.readouterr().err


PLAN_FILE = Path(DEFAULT_PLANS) / TPCH_FILE


@pytest.mark.skipif(not PLAN_FILE.is_file(), reason="%s is absent (../shared)" % PLAN_FILE)
def test_the_sizes_impalas_tpch_plans_print():
    """Every scan of tpch-all.test prints its table's SF1 text size, the same for every scan of a table."""
    sizes = colstats.plan_scan_sizes(str(PLAN_FILE))
    assert sorted(sizes) == ["customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier"]
    assert sizes["lineitem"][0] == pytest.approx(718.94 * 1024 ** 2)
    assert sizes["region"] == (384, 0.5)


def test_the_committed_statistics_hold_every_column_and_pass_their_checks():
    """scenarios/tpch_harness/table_stats.json (SF1 and SF10): every column of Impala's TPC-H schema with its
    type, rows as the specification says, the text as tpch-all.test prints it without dbgen's trailing '|'."""
    doc = json.loads((REPO / "scenarios" / "tpch_harness" / "table_stats.json").read_text())
    assert doc["scale_factors"] == [1, 10]
    for t, cols in TPCH_COLUMNS.items():
        assert [(c, v["type"]) for c, v in doc["tables"][t]["columns"].items()] == cols, t
    for sf, checks in doc["checks"]["tables"].items():
        assert all(c["ok"] is not False for c in checks), sf
    text = doc["checks"]["text_bytes_against_plan_sizes"]
    assert len(text) == 8 and all(c["ok"] and c["without_trailing_delimiter"]["within_rounding"] for c in text)
    assert all(c["ok"] for c in doc["checks"]["against_impalas_sf1_tables"]["planner_row_size_of_every_column"])
    li = doc["tables"]["lineitem"]["columns"]
    assert li["l_returnflag"]["distinct"] == {"sf1": 3, "sf10": 3}
    assert li["l_returnflag"]["growth"]["class"] == "bounded"
    assert li["l_shipmode"]["distinct"]["sf10"] == 7 and li["l_orderkey"]["growth"]["class"] == "key-like"
