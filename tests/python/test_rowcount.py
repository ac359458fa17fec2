"""The row-counting translator (tools/rowcount) on a hand-made data set whose counts are worked out
by hand, its expression rewriting, and the occupancy model of measured groups.

The data (tests/python/data/rowcount, a few rows written by hand) is laid out the way dsdgen
writes its files ('|'-separated, a partitioned fact table's date key first; `.tbl`, not dsdgen's
`.dat`); plan.txt is a plan in Impala's text form over it.
The counts below are worked out from those few rows in the comments; DuckDB (npm) counts them.
"""

import math
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tools.rowcount import TranslateError, engine, tables  # noqa: E402
from tools.rowcount import expr as X  # noqa: E402
from tools.rowcount.measure import PlanMeasure, _growth_of_table, target_rows  # noqa: E402
from tools.rowcount.occupancy import occupancy_groups  # noqa: E402
from tools.rowcount.translate import sql_aliases  # noqa: E402
from tools.tpcds.plans import parse_lines  # noqa: E402

DATA = REPO / "tests" / "python" / "data" / "rowcount"
SCHEMA = {
    "item": [("i_item_sk", "INT"), ("i_category", "STRING"), ("i_price", "DECIMAL(7,2)")],
    # Impala's partitioned schema: the date key last (dsdgen writes it first)
    "store_sales": [("ss_item_sk", "INT"), ("ss_ticket_number", "BIGINT"), ("ss_quantity", "INT"),
                    ("ss_sold_date_sk", "INT")],
    "store_returns": [("sr_item_sk", "INT"), ("sr_ticket_number", "BIGINT"), ("sr_return_quantity", "INT"),
                      ("sr_returned_date_sk", "INT")],
}


def plan():
    return parse_lines((DATA / "plan.txt").read_text().split("\n"), 0, "plan.txt")


def counts(tr, statements):
    """Load the hand-made tables into an in-memory DuckDB, materialise the translator's relations and
    run `statements`; {id: int}."""
    folder = tables.Folder(str(DATA), SCHEMA, suffix=".tbl")
    res = engine.run(tables.load_statements(folder, SCHEMA) + list(X.MACROS) + tr.script(list(tr.rels), "make ") +
                     list(statements))
    out = {}
    for sid, _ in statements:
        assert "error" not in res[sid], "%s: %s" % (sid, res[sid].get("error"))
        out[sid] = int(res[sid]["rows"][0][0])
    return out


def test_every_node_counted_as_worked_out_by_hand():
    pm = PlanMeasure("t", plan(), SCHEMA, "")     # every node translated, not only the root's lineage
    assert pm.failed == {}
    tr = pm.tr
    stmts = [(str(nid), tr.count_sql(tr.node_rel[nid].name)) for nid in sorted(tr.node_rel)]
    stmts.append(("00 plain", tr.count_sql("n0_plain")))
    ((rfs, join, cond, _),) = tr.filters[0]
    assert rfs == ["RF000"] and join == 3
    stmts.append(("00 RF000", tr.count_sql("n0_plain", cond)))
    got = counts(tr, stmts)
    assert got == {
        "1": 2,          # items priced above 5: 1 (10.00) and 3 (7.00); 4 has no price, 2 costs 3.00
        "2": 2,          # both returns
        "00 plain": 7,   # every sale
        "00 RF000": 4,   # sales of items 1 and 3: tickets 1, 2, 3 and 6
        "0": 4,          # the scan after its runtime filter
        "12": 2,         # broadcast of the returns
        "11": 2,         # sales returned on the same item and ticket: (1, 1) and (3, 6)
        "7": 2,          # broadcast of the items
        "3": 2,          # those two sales joined with their items: one Books, one Music
        "4": 2,          # pre-aggregation by category: its global groups
        "5": 2,
        "6": 2,          # merge: Books and Music, both with count(*) >= 1
        "10": 1,         # top-n 1
        "9": 1,
    }


PREAGG_PLAN = """F02:PLAN FRAGMENT [UNPARTITIONED] hosts=1 instances=1
PLAN-ROOT SINK
|
03:AGGREGATE [FINALIZE]
|  output: count:merge(*)
|  group by: GROUPS
|  tuple-ids=1 row-size=12B cardinality=4
|
02:EXCHANGE [HASH(ss_item_sk)]
|  tuple-ids=1 row-size=12B cardinality=4
|
F01:PLAN FRAGMENT [RANDOM] hosts=1 instances=1
01:AGGREGATE [STREAMING]
|  output: count(*)
|  group by: GROUPS
|  tuple-ids=1 row-size=12B cardinality=4
|
00:SCAN HDFS [db.store_sales, RANDOM]
   tuple-ids=0 row-size=8B cardinality=7"""


# The pre-aggregation in the fragment an exchange hash-partitions on the item.
FED_PLAN = """F02:PLAN FRAGMENT [HASH(ss_item_sk)] hosts=1 instances=1
PLAN-ROOT SINK
|
03:AGGREGATE [STREAMING]
|  output: count(*)
|  group by: GROUPS
|  tuple-ids=1 row-size=12B cardinality=4
|
02:EXCHANGE [HASH(ss_item_sk)]
|  tuple-ids=0 row-size=8B cardinality=7
|
F01:PLAN FRAGMENT [RANDOM] hosts=1 instances=1
00:SCAN HDFS [db.store_sales, RANDOM]
   tuple-ids=0 row-size=8B cardinality=7"""


def pairs(groups, instances, text=PREAGG_PLAN, node=1):
    """The distinct (instance, group) pairs the streaming pre-aggregation `node` emits over `instances`."""
    p = parse_lines(text.replace("GROUPS", groups).split("\n"), 0, "preagg.txt")
    pm = PlanMeasure("t", p, SCHEMA, "", instances=instances)
    leaf, rel = pm.tr.node_rel[node].per_instance
    return leaf, counts(pm.tr, [("pairs", pm.tr.count_sql(rel))])["pairs"]


def test_a_pre_aggregation_emits_its_groups_once_per_instance_that_holds_them():
    """A scan's rows reach instances by date partition: instance = bits 16-31 of (date key x 2654435761 mod
    2^32), mod n. For the four dates of the sales (store_sales.tbl):
      2451000 x 2654435761 = 6506022050211000, mod 2^32 = 1295262904, / 65536 = 19764
      2451001 -> 3949698665 -> 60267;  2451002 -> 2309167130 -> 35235;  2451003 -> 668635595 -> 10202
    so over 2 instances the dates go to 0, 1, 1, 0 and over 3 to 0, 0, 0, 2.
    Sales by (date, item): (..000, 1) twice, (..001, 1), (..001, 2), (..002, 2), (..002, 3), (..003, 5).
    Grouped by item (4 groups): over 2 instances item 1 is on 0 and 1, items 2 and 3 on 1, item 5 on 0:
    5 pairs; over 3 instances items 1, 2, 3 on 0 and 5 on 2: 4 pairs; one instance: the 4 groups.
    Grouped by (date, item), a group lies in one partition: its 6 groups whatever the instances.
    Fed by the hash exchange on the item and grouped by the item: the 4 groups."""
    assert pairs("ss_item_sk", 2) == (0, 5)
    assert pairs("ss_item_sk", 3) == (0, 4)
    assert pairs("ss_item_sk", 1) == (0, 4)
    assert pairs("ss_sold_date_sk, ss_item_sk", 2) == (0, 6)
    assert pairs("ss_sold_date_sk, ss_item_sk", 5) == (0, 6)
    assert pairs("ss_item_sk", 2, FED_PLAN, node=3) == (2, 4)
    # no instances given (the TPC-H counter), or a leaf that is no partitioned scan: no pairs counted
    p = parse_lines(PREAGG_PLAN.replace("GROUPS", "ss_item_sk").split("\n"), 0, "preagg.txt")
    assert PlanMeasure("t", p, SCHEMA, "").tr.node_rel[1].per_instance is None


# The pre-aggregation by item above a broadcast join on the item, in the fragment of the store_sales scan.
JOINED_PREAGG_PLAN = PREAGG_PLAN.replace("GROUPS", "ss_item_sk").replace("""|
00:SCAN HDFS [db.store_sales, RANDOM]""", """|
04:HASH JOIN [INNER JOIN, BROADCAST]
|  hash predicates: ss_item_sk = i_item_sk
|  tuple-ids=0,2 row-size=20B cardinality=7
|
|--05:EXCHANGE [BROADCAST]
|  |  tuple-ids=2 row-size=12B cardinality=4
|  |
|  F03:PLAN FRAGMENT [RANDOM] hosts=1 instances=1
|  06:SCAN HDFS [db.item, RANDOM]
|     tuple-ids=2 row-size=12B cardinality=4
|
00:SCAN HDFS [db.store_sales, RANDOM]""")


def test_pre_aggregation_pairs_are_also_counted_for_the_leaf_j3_can_give_it():
    """Rule J3 may make join 4 partitioned: then a hash exchange on its probe key, ss_item_sk, feeds the
    pre-aggregation instead of the date-partitioned scan. The join keeps the sales of items 1, 1, 1, 2, 2
    and 3 (item 5 is not in the item table), on dates 2451000 (twice), 2451001 (items 1 and 2) and
    2451002 (items 2 and 3). Over 2 instances the dates go to 0, 1, 1 (above): item 1 reaches instances 0
    and 1, items 2 and 3 instance 1, so 4 pairs from the printed leaf; hashed on the item, each of the 3
    items reaches one instance: 3 pairs, whatever the hash."""
    p = parse_lines(JOINED_PREAGG_PLAN.split("\n"), 0, "joined.txt")
    pm = PlanMeasure("t", p, SCHEMA, "", instances=2)
    rel = pm.tr.node_rel[1]
    (where, alt), = rel.per_instance_alternatives
    assert rel.per_instance[0] == 0 and where == {"probe_of": 4}
    got = counts(pm.tr, [("printed", pm.tr.count_sql(rel.per_instance[1])), ("probe", pm.tr.count_sql(alt))])
    assert got == {"printed": 4, "probe": 3}


def measured(tmp_path, plan_text, **kw):
    """The whole counter on a sample and a base: the base is the hand-made data (7 sales), the sample the
    same sales as child 1 of 2 of a parallel generation, so the target has 14 sales, twice the base."""
    from tools.rowcount.benchmark import TPCDS
    from tools.rowcount.measure import load_database, measure
    base, sample = tmp_path / "base", tmp_path / "sample"
    base.mkdir()
    sample.mkdir()
    for t in SCHEMA:
        shutil.copy(DATA / (t + ".tbl"), base / (t + ".dat"))
        shutil.copy(DATA / (t + ".tbl"), sample / ((t + "_1_2.dat") if t in TPCDS.channels else (t + ".dat")))
    quiet = lambda m: None   # noqa: E731
    sf = load_database(str(sample), SCHEMA, str(tmp_path / "s.duckdb"), 1, quiet)
    bf = load_database(str(base), SCHEMA, str(tmp_path / "b.duckdb"), 1, quiet)
    p = parse_lines(plan_text.split("\n"), 0, "plan.txt")
    out, _ = measure([("t DISTRIBUTEDPLAN", p, "")], SCHEMA, str(tmp_path / "s.duckdb"), sf, str(tmp_path / "b.duckdb"),
                     bf, 1, quiet, **kw)
    return out["t DISTRIBUTEDPLAN"]


def test_measured_pairs_grow_to_the_target_with_the_groups(tmp_path):
    """Pre-aggregation 1 groups by item over 2 instances: 4 groups and 5 pairs at the base (above). The
    item is key-like (4 distinct of 7 rows, at least half), so its key domain grows with the sales, x2,
    and the occupancy model with twice the rows and twice the domain gives twice the groups: 8 groups
    and 10 pairs at the target (`measured`: twice the base's sales)."""
    rec = measured(tmp_path, PREAGG_PLAN.replace("GROUPS", "ss_item_sk"), instances=lambda key: 2)["nodes"]["1"]
    assert rec["how"] == "base" and rec["base_count"] == 4 and rec["rows"] == pytest.approx(8.0, rel=1e-9)
    pairs = rec["per_instance"]
    assert (pairs["instances"], pairs["leaf"], pairs["base_count"]) == (2, 0, 5)
    assert pairs["rows"] == pytest.approx(10.0, rel=1e-9)


def test_pairs_for_a_leaf_j3_can_give_grow_like_the_printed_ones(tmp_path):
    """The joined pre-aggregation (above): at the base 4 pairs from the printed leaf and 3 hashed on the
    item (its 3 groups). The target doubles the sales and, the item being key-like, its domain: the
    occupancy model D (1 - exp(-n/D)) with both n and D doubled gives exactly twice, 8 and 6 pairs."""
    rec = measured(tmp_path, JOINED_PREAGG_PLAN, instances=lambda key: 2)["nodes"]["1"]
    printed = rec["per_instance"]
    (alt,) = rec["per_instance_alternatives"]
    assert (printed["leaf"], printed["base_count"]) == (0, 4) and printed["rows"] == pytest.approx(8.0, rel=1e-9)
    assert (alt["probe_of"], alt["instances"], alt["base_count"]) == (4, 2, 3)
    assert alt["rows"] == pytest.approx(6.0, rel=1e-9) and rec["rows"] == pytest.approx(6.0, rel=1e-9)


def test_a_merge_aggregation_has_its_pre_aggregations_groups(tmp_path):
    """Both phases group the same input rows by the same keys, so the merge aggregation ends with the
    groups the pre-aggregation's input makes. By ss_quantity % 5 the 7 sales (quantities 1..7) make 5
    groups; a computed key's domain does not grow, so D solves D (1 - exp(-7/D)) = 5, D = 9.793
    (9.75 gives 4.994, 9.8 gives 5.002), and twice the sales make 9.793 (1 - exp(-14/9.793)) = 7.449
    groups, in both phases (taking the merge's input from the pre-aggregation's groups, 7.449 x 7 / 5
    rows, would give 6.4)."""
    nodes = measured(tmp_path, PREAGG_PLAN.replace("GROUPS", "ss_quantity % 5"))["nodes"]
    assert nodes["1"]["base_count"] == 5 and nodes["3"]["base_count"] == 5
    assert nodes["1"]["rows"] == pytest.approx(7.449, rel=1e-3)
    assert nodes["3"]["rows"] == pytest.approx(nodes["1"]["rows"], rel=1e-12)


# A ROLLUP(ss_item_sk) as Impala plans it: two classes (by item; the total) in both phases, and the
# aggregation that turns each class's rows into rows of one tuple (valid_tid()).
ROLLUP_PLAN = """F02:PLAN FRAGMENT [UNPARTITIONED] hosts=1 instances=1
PLAN-ROOT SINK
|
04:AGGREGATE [FINALIZE]
|  output: aggif(valid_tid(2,3) IN (CAST(2 AS INT), CAST(3 AS INT)), CASE valid_tid(2,3) WHEN CAST(2 AS INT) THEN count(*) WHEN CAST(3 AS INT) THEN count(*) END)
|  group by: CASE valid_tid(2,3) WHEN CAST(2 AS INT) THEN ss_item_sk WHEN CAST(3 AS INT) THEN NULL END
|  tuple-ids=4 row-size=12B cardinality=5
|
03:AGGREGATE [FINALIZE]
|  Class 0
|    output: count:merge(*)
|    group by: ss_item_sk
|  Class 1
|    output: count:merge(*)
|    group by: NULL
|  tuple-ids=2N,3N row-size=12B cardinality=5
|
02:EXCHANGE [HASH(CASE valid_tid(2,3) WHEN 2 THEN murmur_hash(ss_item_sk) WHEN 3 THEN murmur_hash(NULL) END)]
|  tuple-ids=2N,3N row-size=12B cardinality=5
|
F01:PLAN FRAGMENT [RANDOM] hosts=1 instances=1
01:AGGREGATE [STREAMING]
|  Class 0
|    output: count(*)
|    group by: ss_item_sk
|  Class 1
|    output: count(*)
|    group by: NULL
|  tuple-ids=2N,3N row-size=12B cardinality=5
|
00:SCAN HDFS [db.store_sales, RANDOM]
   tuple-ids=0 row-size=8B cardinality=7"""


def test_a_rollup_counts_each_class_and_grows_it_by_its_own_columns(tmp_path):
    """The 7 sales by item make 4 groups (items 1, 2, 3, 5) and the total 1: 5 rows in both phases and
    through the valid_tid() aggregation, which keeps its input's rows. With twice the sales (`measured`)
    the item class grows as the item's key domain does (key-like, x2): 8 groups; the total stays 1;
    9 rows in all. Before the classes were grown apart, their sum grew as one grouping of computed keys."""
    nodes = measured(tmp_path, ROLLUP_PLAN)["nodes"]
    for nid in ("1", "3"):
        rec = nodes[nid]
        assert [(k["base_count"], k["group_columns"]) for k in rec["classes"]] == [
            (4, [["store_sales", "ss_item_sk"]]), (1, [])]
        assert [k["rows"] for k in rec["classes"]] == [pytest.approx(8.0, rel=1e-9), 1.0]
        assert rec["base_count"] == 5 and rec["rows"] == pytest.approx(9.0, rel=1e-9)
    assert nodes["4"]["base_count"] == 5 and nodes["4"]["rows"] == pytest.approx(9.0, rel=1e-9)


def test_a_range_self_join_counted_per_key_and_grown_key_by_key():
    """The sales grouped by (item, date) and joined with themselves on the item (rk >= rk): per item
    (source rows r, groups n): item 1 (3, 2), item 2 (2, 2), items 3 and 5 (1, 1): the histogram
    [(1, 1) x2, (2, 2), (3, 2)] and n(n+1)/2 = 3 + 3 + 1 + 1 = 8 rows at the base.
    Grown with 4x the source rows and 2x the items: each item's rows x2. Items whose rows are all
    distinct days keep them so: n' = 2r (2 for r = 1, 4 for r = 2). Item 1's domain solves
    D (1 - exp(-3/D)) = 2, D = 3.433 (3.4 gives 1.992, 3.5 gives 2.015), so n' = 3.433 (1 - exp(-6/3.433))
    = 2.835. Twice the items: 2 (2 x 3 + 10 + 2.835 x 3.835 / 2) = 42.87."""
    from tools.rowcount import selfjoin
    folder = tables.Folder(str(DATA), SCHEMA, suffix=".tbl")
    tv = ("tv", "CREATE TEMP TABLE tv AS SELECT ss_item_sk, ss_sold_date_sk FROM store_sales GROUP BY 1, 2")
    q = ("h", selfjoin.histogram_sql("tv", "ss_item_sk", [("store_sales", "ss_item_sk")]))
    res = engine.run(tables.load_statements(folder, SCHEMA) + [tv, q])
    hist = [[int(v) for v in row] for row in res["h"]["rows"]]
    assert hist == [[1, 1, 2], [2, 2, 1], [3, 2, 1]]
    assert selfjoin.base_rows(hist) == 8
    assert selfjoin.grow(hist, [4.0], 2.0) == pytest.approx(42.87, rel=2e-3)
    # the source rows as they were and the items as many: the base again
    assert selfjoin.grow(hist, [1.0], 1.0) == pytest.approx(8.0, rel=1e-9)


def test_a_full_outer_join_grows_its_matches_only():
    """A full outer join emits every row of both inputs once, the matched pairs joined: 100 + 60 - 40
    matches = 120 rows at the base. A key value matches when both inputs hold it, so the matches grow
    as the product of the inputs' growths over the growth of the key domain they share, the larger of
    the two sides' (the item's distinct values, 10 at the base and 40 at the target: x4):
    - inputs at 200 (x2) and 180 (x3): 40 x 2 x 3 / 4 = 60 matches, 200 + 180 - 60 = 320 rows (grown
      by the input that grows most, x3, the matches would be 120 and the rows 260);
    - the same with the probe side's key computed (x1): the build side's item still gives x4, 320;
    - inputs at 1,000 (x10) and 240 (x4): 40 x 10 x 4 / 4 = 400 matches, at most the smaller
      input, 240: 1,000 + 240 - 240 = 1,000 rows."""
    from types import SimpleNamespace as NS
    from tools.rowcount.measure import _base_rule
    left, right = NS(nid=1, kind="AGGREGATE"), NS(nid=2, kind="AGGREGATE")
    node = NS(nid=3, kind="HASH JOIN", join_type="FULL OUTER JOIN", children=[left, right])
    item = ("item", "i_item_sk")
    base = {"l": 100, "r": 60}
    B = NS(get=lambda pm, name: base[name], get_table=lambda sql: 10)
    S = NS(get_table=lambda sql: 40)
    for probe_key, target, want in (
            (item, {1: 200.0, 2: 180.0}, 320.0),
            (None, {1: 200.0, 2: 180.0}, 320.0),
            (item, {1: 1000.0, 2: 240.0}, 1000.0)):
        rels = {1: NS(name="l"), 2: NS(name="r"),
                3: NS(name="j", join={"key_columns": ([probe_key], [item])})}
        pm = NS(inputs=lambda n: n.children, rel=rels, bench=NS(channels=(), base_only=()))
        rows, _ = _base_rule(pm, node, rels[3], 120, lambda n: {"rows": target[n.nid]}, B, S, {}, {}, {})
        assert rows == pytest.approx(want, rel=1e-12)


def test_a_tickets_lines_are_one_draw_of_the_groups_its_keys_share():
    """Ten input rows in five tickets of two lines, grouped by keys a ticket's lines share (a customer, a
    date): 4 groups at the base, 5 distinct (ticket, group) pairs. The occupancy model's draws are those 5
    pairs, not the 10 rows: D (1 - exp(-5/D)) = 4 gives D = 10.78 (10.7 gives 3.997, 10.9 gives 4.008), and
    twice the rows at the target are 10 draws: 10.78 (1 - exp(-10/10.78)) = 6.52 groups (a computed key:
    the domain does not grow). Taking the rows as draws, D (1 - exp(-10/D)) = 4 gives D = 4.48 and the
    target's 20 rows 4.48 (1 - exp(-20/4.48)) = 4.43: the domain looks full where five tickets made four
    groups. Without a ticket column (or as many pairs as rows) the rows stay the draws."""
    from types import SimpleNamespace as NS
    from tools.rowcount.measure import _draws, _groups_at_target
    B = NS(get=lambda pm, name: {"pairs": 5}[name])
    d_b, d_t, why = _draws(None, NS(per_ticket="pairs"), 10, 20.0, B)
    assert (d_b, d_t) == (5, 10.0) and "5 distinct (ticket, group) pairs" in why
    assert _groups_at_target(None, [None], 4, d_b, d_t, None, B, {}, {})[0] == pytest.approx(6.52, rel=2e-3)
    assert _groups_at_target(None, [None], 4, 10, 20.0, None, B, {}, {})[0] == pytest.approx(4.43, rel=2e-3)
    assert _draws(None, NS(per_ticket=None), 10, 20.0, B)[:2] == (10, 20.0)
    assert _draws(None, NS(per_ticket="pairs"), 5, 10.0, B)[:2] == (5, 10.0)


def test_a_key_holding_the_ticket_grows_with_the_sales():
    """A grouping key with the ticket (q79's ticket, customer and address) is no key-like column (3 distinct
    of 10 rows: a ticket has several lines), and a ticket sample holds its share of the tickets, so the
    sample's distinct count says nothing of their growth: the key grows like the sales, 100 / 10 = x10."""
    from types import SimpleNamespace as NS
    from tools.rowcount.measure import _domain_growth
    from tools.rowcount.benchmark import TPCDS
    pm = NS(bench=TPCDS)
    S, B = NS(get_table=lambda sql: 3), NS(get_table=lambda sql: 3)
    growth, parts = _domain_growth(pm, [("store_sales", "ss_ticket_number"), ("store_sales", "ss_customer_sk")],
                                   S, B, {"store_sales": 100}, {"store_sales": 10})
    assert growth == pytest.approx(10.0) and "with the ticket" in parts[0]
    # without the ticket the sample's own distinct values decide (3 / 3: at least 1)
    assert _domain_growth(pm, [("store_sales", "ss_customer_sk")], S, B, {"store_sales": 100},
                          {"store_sales": 10})[0] == 1.0


def test_the_draws_relation_pairs_each_ticket_with_its_groups():
    """The sales (store_sales.tbl) are seven tickets of one line each on four dates: grouped by the date,
    7 distinct (ticket, date) pairs."""
    p = parse_lines(PREAGG_PLAN.replace("GROUPS", "ss_sold_date_sk").split("\n"), 0, "preagg.txt")
    pm = PlanMeasure("t", p, SCHEMA, "")
    rel = pm.tr.node_rel[1]
    assert counts(pm.tr, [("pairs", pm.tr.count_sql(rel.per_ticket))]) == {"pairs": 7}


def test_dsdgen_order_puts_the_partition_key_first():
    cols = tables.generator_columns("store_sales", SCHEMA["store_sales"])
    assert [c for c, _ in cols] == ["ss_sold_date_sk", "ss_item_sk", "ss_ticket_number", "ss_quantity"]
    with pytest.raises(TranslateError):
        tables.generator_columns("store_sales", SCHEMA["store_sales"][:-1])


def test_a_sampled_folder_says_its_share(tmp_path):
    for name in ("store_sales_1_200.tbl", "store_sales_101_200.tbl", "item.tbl"):
        shutil.copy(DATA / ("item.tbl" if name == "item.tbl" else "store_sales.tbl"), tmp_path / name)
    f = tables.Folder(str(tmp_path), SCHEMA, suffix=".tbl")
    assert f.sample_fraction("store_sales") == pytest.approx(2 / 200)
    assert f.sample_fraction("item") == 1.0


def test_a_table_counted_on_the_base_grows_to_its_whole_target_rows():
    # Inventory's nodes are counted on the base scale factor, but the sample folder holds only its
    # share (20 of 2,000 children): the target is that share's rows over it, 3,993,300 / 0.01 =
    # 399,330,000 (SF100), which is 34x the SF1 table's 11,745,000 rows. An unsampled table is as is.
    full = target_rows({"inventory": 3993300, "item": 204000}, {"inventory": 0.01})
    assert full == {"inventory": pytest.approx(399330000), "item": 204000}
    assert _growth_of_table("inventory", full, {"inventory": 11745000}) == pytest.approx(34.0)


def test_classes_of_nodes_in_a_sample():
    """store_sales sampled: its scan and joins are 'sample'; above the aggregation it is 'base';
    the item scan is 'exact'."""
    p = plan()
    pm = PlanMeasure("t", p, SCHEMA, "")
    frac = {"store_sales": 0.01, "store_returns": 0.01}
    assert pm.classify(1, frac) == "exact"
    assert pm.classify(0, frac) == "sample"
    assert pm.classify(11, frac) == "sample"     # returns of the same tickets: one channel
    assert pm.classify(3, frac) == "sample"
    assert pm.classify(6, frac) == "base"        # an aggregation over sampled facts
    assert pm.classify(10, frac) == "base"


def test_a_dependence_on_sampled_rows_off_the_ticket_is_no_sample():
    """The semi join 11 keeps the sales returned on the same item and ticket: a sample's child holds a
    ticket's sales and returns, so its count scales. On the item alone, a 1% sample of returns would
    find a match for far fewer sales than the whole table does: counted at the base."""
    text = (DATA / "plan.txt").read_text().replace(", ss_ticket_number = sr_ticket_number", "")
    pm = PlanMeasure("t", parse_lines(text.split("\n"), 0, "plan.txt"), SCHEMA, "")
    frac = {"store_sales": 0.01, "store_returns": 0.01}
    assert pm.classify(0, frac) == "sample"
    assert pm.classify(11, frac) == "base"
    assert pm.classify(3, frac) == "base"


def test_expressions_rewritten_for_duckdb():
    sc = X.Scope([X.Column("c1", "d_year", "date_dim", "d_year"), X.Column("c2", "d_week_seq", "d1", "d_week_seq"),
                  X.Column("c3", "sum(ss_sales_price)"), X.Column("c4", "avg(sum(ss_sales_price))")])
    assert X.sql("d1.d_week_seq = CAST(2002 AS INT)", sc) == "c2 = CAST(2002 AS INT)"
    # the longest computed text first: avg(sum(x)) is not avg(<sum(x)>)
    assert X.sql("avg(sum(ss_sales_price)) > sum(ss_sales_price)", sc) == "c4 > c3"
    assert X.sql("d_year + INTERVAL CAST(5 AS INT) days", sc) == "c1 + INTERVAL '5 days'"
    assert X.sql("CAST(d_year AS STRING)", sc) == "CAST(c1 AS VARCHAR)"
    with pytest.raises(TranslateError):
        X.sql("no_such_column > 1", sc)


def test_view_aliases_from_the_query_text():
    got = sql_aliases("select c_customer_id customer_id, sum(ss_ext_sales_price) as total_sales, "
                      "ss_quantity quantity from x where a in (select d_date_sk from date_dim)")
    assert got == {"customer_id": ["c_customer_id"], "total_sales": ["sum(ss_ext_sales_price)"],
                   "quantity": ["ss_quantity"]}
    sc = X.Scope([X.Column("c7", "sum(ss_ext_sales_price)")], got)
    assert X.sql("total_sales > 0", sc) == "c7 > 0"
    # a call printed through a view's alias names the column of the expanded call (q1's single-node plan)
    sc = X.Scope([X.Column("c9", "avg(sum(sr_return_amt))")], {"ctr_total_return": ["sum(SR_RETURN_AMT)"]})
    assert X.sql("avg(ctr_total_return) * CAST(1.2 AS DECIMAL(2,1))", sc) == "c9 * CAST(1.2 AS DECIMAL(2, 1))"


def test_occupancy_model():
    """g = D (1 - exp(-n/D)): from a base with D = 1000 keys and n = 2000 rows (g = 864.66), a
    target with 10x the rows and 4x the keys has 4000 (1 - exp(-20000/4000)) = 3973.05 groups."""
    n, d = 2000, 1000.0
    g = d * (1 - math.exp(-n / d))
    got, _ = occupancy_groups(n, g, 20000, 4.0)
    assert got == pytest.approx(4000 * (1 - math.exp(-5.0)), rel=1e-6)
    # every row its own group: the groups follow the rows
    assert occupancy_groups(100, 100, 1000, 4.0)[0] == 1000
    # no input at the base but some at the target: each target row its own group, at most; none: none
    assert occupancy_groups(0, 0, 2000, 4.0)[0] == 2000
    assert occupancy_groups(0, 0, 0, 4.0)[0] == 0
