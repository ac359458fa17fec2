"""The TPC-H row counter (tools/rowcount: the TPCH description, linear.py, tpch.py) on a hand-made data
set whose counts are worked out by hand, its rules for carrying counts to a target scale factor, and
its reading of Impala's own tpch-all.test (skipped when ../shared/impala-plans is absent).

The data (tests/python/data/rowcount_tpch) is laid out the way dbgen writes it ('|'-separated with a
trailing '|', Impala's TPC-H columns in order, dates as text); plans.test holds two queries in
tpch-all.test's form (no fragment headers, a bare JOIN BUILD in the parallel plan, untyped runtime
filters, year() of a STRING date). The larger scale factor B is the same tables with every order
and line written twice (the copy's order keys + 100): linear nodes double, groups over the dates
and statuses stay.
"""

import json
import math
import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tools.rowcount import expr as X  # noqa: E402
from tools.rowcount import linear  # noqa: E402
from tools.rowcount.benchmark import TPCH, TPCH_FILE  # noqa: E402
from tools.rowcount.measure import PlanMeasure, load_database  # noqa: E402
from tools.rowcount.tpch import check_roots, main  # noqa: E402
from tools.tpcds.plans import git_blob_sha1  # noqa: E402
from tools.tpcds import DEFAULT_PLANS  # noqa: E402
from tools.tpcds.plans import parse_query_blocks  # noqa: E402

DATA = REPO / "tests" / "python" / "data" / "rowcount_tpch"
SECTIONS = ("DISTRIBUTEDPLAN", "PARALLELPLANS")


def doubled(tmp_path):
    """Scale factor B: every order and line twice, the copy's order keys + 100."""
    b = tmp_path / "sf2"
    b.mkdir()
    for t in ("orders", "lineitem"):
        rows = (DATA / ("%s.tbl" % t)).read_text().splitlines()
        copy = ["%d|%s" % (int(r.split("|", 1)[0]) + 100, r.split("|", 1)[1]) for r in rows]
        (b / ("%s.tbl" % t)).write_text("\n".join(rows + copy) + "\n")
    return b


def test_plans_in_tpch_all_form_are_read_with_their_filters():
    plans = TPCH.read_plans(str(DATA / "plans.test"), [], SECTIONS)
    assert [k for k, _, _ in plans] == ["q01 DISTRIBUTEDPLAN", "q01 PARALLELPLANS", "q02 DISTRIBUTEDPLAN",
                                        "q02 PARALLELPLANS"]
    for key, plan, text in plans[:2]:
        pm = PlanMeasure(key, plan, TPCH.columns(None), text, TPCH)
        assert pm.failed == {}
        # the lineitem scan's filter comes from join 2, on its own lines or its JOIN BUILD's
        ((rfs, join, cond, _),) = pm.tr.filters[0]
        assert rfs == ["RF000"] and join == 2, key
        assert "impala_year(" in pm.tr.rels["n3"].sql      # year() of a STRING date through the macro
    # the parallel plan's JOIN BUILD is a join-build fragment above the build's exchange
    par = plans[1][1]
    assert par.nodes[5].fragment.join_build and par.nodes[5].parent.nid == 2


def test_q11s_two_sums_of_the_same_text_name_their_own_inputs():
    """q11 keeps the parts whose sum exceeds 0.0001 of the total: both print as the same text, the
    groups' column on the probe side, the total's on the build side. Every benchmark reads them so
    (TPC-DS's q31 and q75 compare two channels' growth the same way)."""
    cols = [X.Column("c1", "sum(ps_supplycost * ps_availqty)"), X.Column("c2", "sum(ps_supplycost * ps_availqty)")]
    text = "sum(ps_supplycost * ps_availqty) > sum(ps_supplycost * ps_availqty) * 0.0001"
    assert X.sql(text, X.Scope(cols, {}, TPCH.dialect)) == "c1 > c2 * 0.0001"
    assert X.sql(text, X.Scope(cols, {})) == "c1 > c2 * 0.0001"


def test_every_node_counted_as_worked_out_by_hand(tmp_path):
    out = tmp_path / "rows.json"
    assert main(["--sf-a", str(DATA), "--scale-a", "1", "--sf-b", str(doubled(tmp_path)), "--scale-b", "2",
                 "--targets", "4", "--plans", str(DATA / "plans.test"), "--cache", str(tmp_path / "db"),
                 "--out", str(out), "--threads", "1"]) == 0
    doc = json.loads(out.read_text())
    assert doc["data"] == {"sf1": {"lineitem": 7, "orders": 4}, "sf2": {"lineitem": 14, "orders": 8}}
    expected = {          # node: (count at SF1, rule)
        "1": (3, "linear"),     # finished orders: 1, 3 and 4
        "5": (3, "linear"),     # their broadcast
        "0": (4, "linear"),     # lines shipped by 1998-09-02 (6 of 7) of those orders: 1, 1, 3, 4
        "2": (4, "linear"),     # each joined with its order
        "3": (2, "constant"),   # order years 1993 (orders 1 and 4) and 1994 (order 3): global groups
        "6": (2, "constant"),
        "7": (2, "constant"),
        "4": (2, "constant"),
        "8": (2, "constant"),
    }
    for section in SECTIONS:
        nodes = doc["queries"]["q01"][section]["nodes"]
        got = {k: (v["counts"]["sf1"], v["how"]) for k, v in nodes.items()}
        assert got == expected, section
        # linear: SF2 count x 4/2; constant: the SF2 count
        assert nodes["0"]["counts"]["sf2"] == 8 and nodes["0"]["rows"]["sf4"] == 16
        assert nodes["7"]["rows"]["sf4"] == 2
        assert nodes["0"]["before_filters"] == {"sf1": 6, "sf2": 12}
        ((f,),) = [nodes["0"]["filters"]]
        assert f["join"] == 2 and f["keep"] == {"sf1": 4 / 6, "sf2": 8 / 12}
        assert nodes["7"]["rule"].endswith("(groups of a bounded domain)")
    q2 = doc["queries"]["q02"]["DISTRIBUTEDPLAN"]["nodes"]
    assert {k: v["counts"]["sf1"] for k, v in q2.items()} == {"0": 2, "1": 2, "2": 2, "3": 2, "4": 4}
    assert doc["coverage"]["nodes"] == doc["coverage"]["counted"] == 2 * (9 + 5)
    assert doc["coverage"]["hash_exchanges"] == 4 and doc["coverage"]["left_out"] == {}
    # the specification's answer sizes are those of the real queries: these hand-made ones differ
    roots = doc["checks"]["roots_against_the_specification"]
    assert roots["q01"] == {"expected_sf1": 4, "DISTRIBUTEDPLAN": 2, "PARALLELPLANS": 2, "ok": False}


def test_a_reload_of_the_same_folder_keeps_its_database(tmp_path):
    db = str(tmp_path / "a.duckdb")
    schema = TPCH.columns(None)
    load_database(str(DATA), schema, db, 1, lambda m: None, TPCH)
    stamp = os.stat(db).st_mtime_ns
    load_database(str(DATA), schema, db, 1, lambda m: None, TPCH)
    assert os.stat(db).st_mtime_ns == stamp


def node(kind="HASH JOIN", limit=None):
    return SimpleNamespace(kind=kind, limit=limit)


def rel(kind=None, group_columns=None):
    return SimpleNamespace(kind=kind, group_columns=group_columns)


def test_rules_that_carry_two_counts_to_a_target():
    # SF1 -> SF10 growth 10 (within 2%): linear, 1000 x 42/10 = 4200
    assert linear.target_rule(node(), rel(), 100, 1000, [], False, 10.0, 4.2)[:2] == (4200, "linear")
    assert linear.target_rule(node(), rel(), 100, 1019, [], False, 10.0, 4.2)[1] == "linear"
    assert linear.target_rule(node(), rel(), 100, 1030, [], False, 10.0, 4.2)[1] == "power"
    # a limit reached at both: its limit
    rows, how, why = linear.target_rule(node("TOP-N", 100), rel("limit"), 100, 100, [], False, 10.0, 4.2)
    assert (rows, how) == (100, "constant") and "limit 100 reached" in why
    # only nation and region below: the count at B whatever it is
    assert linear.target_rule(node(), rel(), 25, 25, [], True, 10.0, 30.0)[:2] == (25, "fixed")
    # a sort whose rows grew 1.4x while its input grows 1000 -> 4200 at the target: 70 x 4.2
    rows, how, _ = linear.target_rule(node("SORT"), rel(), 50, 70, [(1000, 4200.0)], False, 10.0, 4.2)
    assert how == "follows" and rows == pytest.approx(294)
    # a join whose rows grew 5x: 500 x 30^(log 5 / log 10) = 500 x 30^0.69897 = 5388
    rows, how, _ = linear.target_rule(node(), rel(), 100, 500, [], False, 10.0, 30.0)
    assert how == "power" and rows == pytest.approx(5388, rel=1e-3)


def test_counts_off_linear_by_their_sampling_noise_are_linear():
    # a scan without runtime filters: 747 rows at SF1 (noise 1/sqrt(747) = 3.7%), 7854 at SF10 (10.51x):
    # its predicates keep a fixed share of the table, 7854 x 42/10 = 32986.8
    assert linear.target_rule(node("SCAN HDFS"), rel("scan part"), 747, 7854, [], False, 10.0, 4.2)[:2] == (
        pytest.approx(32986.8), "near-linear")
    # q18's 57 orders over 300 units at SF1, 624 at SF10 (10.95x): within 3/sqrt(57) = 0.397 of 10
    assert linear.target_rule(node(), rel(), 57, 624, [], False, 10.0, 30.0, None, 57)[:2] == (
        pytest.approx(18720), "near-linear")
    # from fewer than 36 rows the band (3/sqrt(30) = 0.548) says nothing: the trend is carried on
    assert linear.target_rule(node(), rel(), 57, 624, [], False, 10.0, 30.0, None, 30)[1] == "power"
    # an aggregation's groups go to the occupancy model however near linear they are
    assert linear.target_rule(node("AGGREGATE"), rel("aggregate", [None]), 57, 624, [], False, 10.0, 30.0,
                              (399, 4368, 131040), 57)[1] == "groups"


def test_a_node_empty_at_the_larger_scale_is_empty_at_the_targets():
    # q11 at SF10: no part is worth more than 0.0001 of the total any more
    assert linear.target_rule(node("NESTED LOOP JOIN"), rel(), 1048, 0, [], False, 10.0, 30.0)[:2] == (0, "constant")
    assert linear.target_rule(node(), rel(), 0, 0, [], False, 10.0, 30.0)[2] == "no rows at A or B: none at the target"


def test_groups_of_a_fixed_domain_fill_it():
    """1000 keys: 2000 rows give 1000 (1 - e^-2) = 864.66 groups, 20000 rows 1000 (1 - e^-20) groups; both
    solve to a domain of 1000 that does not grow, so 84000 rows at the target give 1000 groups."""
    g_a, g_b = 1000 * (1 - math.exp(-2)), 1000 * (1 - math.exp(-20))
    assert linear.solve_domain(2000, g_a) == pytest.approx(1000, rel=1e-6)
    rows, how, why = linear.target_rule(node("AGGREGATE"), rel("aggregate", [None]), g_a, g_b, [], False, 10.0,
                                        4.2, (2000, 20000, 84000))
    assert how == "groups" and rows == pytest.approx(1000, rel=1e-4) and "SF^0.000" in why
    # a domain that grows with the data: 1000 keys for 1000 rows at A (632.12 groups), 10000 keys for
    # 20000 rows at B (8646.65 groups): it grows as SF^1, so 300000 keys for 600000 rows at 30x B give
    # 300000 (1 - e^-2) = 259399.5 groups
    g_a, g_b = 1000 * (1 - math.exp(-1)), 10000 * (1 - math.exp(-2))
    rows, how, why = linear.target_rule(node("AGGREGATE"), rel("aggregate", [None]), g_a, g_b, [], False, 10.0,
                                        30.0, (1000, 20000, 600000))
    assert how == "groups" and rows == pytest.approx(259399.5, rel=1e-4) and "SF^1.000" in why


def test_root_rows_checked_against_the_specification():
    recs = {"q01 DISTRIBUTEDPLAN": {"root": 5, "nodes": {"5": {"counts": {"sf1": 4}}}},
            "q01 PARALLELPLANS": {"root": 5, "nodes": {"5": {"counts": {"sf1": 4}}}},
            "q13 DISTRIBUTEDPLAN": {"root": 9, "nodes": {"9": {"counts": {"sf1": 41}}}}}
    got = check_roots(recs, 1)
    assert got["q01"]["ok"] is True and got["q13"]["ok"] is False


def test_bad_arguments_are_messages(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["--sf-a", str(tmp_path / "nope"), "--sf-b", str(DATA)])
    assert e.value.code == 2 and "--sf-a" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--sf-a", str(DATA), "--sf-b", str(DATA), "--queries", "q23", "--plans", str(DATA / "plans.test")])
    assert "no TPC-H query q23" in capsys.readouterr().err


PLAN_FILE = Path(DEFAULT_PLANS) / TPCH_FILE
needs_plans = pytest.mark.skipif(not PLAN_FILE.is_file(), reason="%s is absent (../shared)" % PLAN_FILE)


@needs_plans
def test_impalas_22_plans_translate_every_node():
    """Both plan forms of each query: every node has SQL (the exchanges their input's), every scan with
    runtime filters finds each filter's producing join."""
    assert git_blob_sha1(PLAN_FILE.read_bytes()).startswith("5652d2fa")
    blocks = parse_query_blocks(str(PLAN_FILE), r"^# TPCH-Q(\d+)\s*$")
    assert [int(n) for n, _, _ in blocks] == list(range(1, 23))
    plans = TPCH.read_plans(DEFAULT_PLANS, [], SECTIONS)
    assert len(plans) == 44
    filters = {}
    for key, plan, text in plans:
        pm = PlanMeasure(key, plan, TPCH.columns(None), text, TPCH)
        assert pm.failed == {}, key
        assert set(pm.rel) == set(plan.nodes), key
        filters[key] = {nid: sorted((rf, j) for rfs, j, _, _ in fs for rf in rfs) for nid, fs in pm.tr.filters.items()}
    # the parallel plans print filters under JOIN BUILD, the distributed ones on the join: the same filters
    for q in sorted({k.split()[0] for k in filters}):
        assert filters[q + " DISTRIBUTEDPLAN"] == filters[q + " PARALLELPLANS"], q
