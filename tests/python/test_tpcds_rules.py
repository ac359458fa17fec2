"""The planner rules the TPC-DS generator applies at SF100 on 5 executors, each against its
analytic expectation (tools/tpcds/joins.py rule J3, tools/tpcds/scaling.py rules A3 and A4), and
the join rule against the printed plans (skipped where ../shared is absent).

Run: /usr/bin/python3 -m pytest -s tests/python/test_tpcds_rules.py
"""

import math
import os
import sys

import pytest
from conftest import REPO

sys.path.insert(0, REPO)

from tools.tpcds import joins  # noqa: E402
from tools.tpcds.ddl import Schema  # noqa: E402
from tools.tpcds.filters import scan_filters  # noqa: E402
from tools.tpcds.fragments import Shape  # noqa: E402
from tools.tpcds.plans import Fragment, Node, Plan, parse_plan_file  # noqa: E402
from tools.tpcds.scaling import Scaler, date_groups, measured_pairs, preagg_output  # noqa: E402

PLANS = os.path.normpath(os.path.join(REPO, "..", "shared", "impala-plans"))
needs_plans = pytest.mark.skipif(not os.path.isdir(PLANS), reason="../shared/impala-plans is absent")


# -- rule A3: a pre-aggregation keeps the distinct keys of its share -------------------------

def test_preagg_output_many_rows_per_group_keeps_every_group_per_instance():
    # 10 M rows over 5 instances, 1,000 groups: each instance sees 2 M rows and all 1,000 keys.
    per, out = preagg_output(1000, 10e6, 5)
    print("expected 1,000 per instance, 5,000 in all; got %g, %g" % (per, out))
    assert per == 1000 and out == 5000


def test_preagg_output_few_rows_per_group_is_the_balls_in_bins_expectation():
    g, n, i = 8e5, 1e6, 5
    share = math.ceil(n / i)
    expected = math.ceil(g * (1 - (1 - 1 / g) ** share))   # about 176,940 of 200,000 rows
    per, out = preagg_output(g, n, i)
    print("expected %d per instance; got %g" % (expected, per))
    assert per == expected
    assert out == min(n, expected * i)
    assert expected < share   # some keys repeat within an instance


def test_measured_pairs_follow_the_leaf_the_workload_gives_the_pre_aggregation():
    """Rule M3 takes the (instance, group) pairs counted for the pre-aggregation's fragment leaf in the
    workload's plan and its instance count: the printed leaf's (`per_instance`), or those counted for a
    leaf J3 can give it (`per_instance_alternatives`), the hash exchange J3 puts on join 3's probe side
    found by `probe_of`; none for another leaf or instance count (A3 then)."""
    m = {"per_instance": {"instances": 5, "leaf": 0, "rows": 40.0},
         "per_instance_alternatives": [{"instances": 5, "probe_of": 3, "rows": 30.0},
                                       {"instances": 5, "leaf": 7, "rows": 20.0}]}
    printed, fed, merged, other = Node(0, "SCAN HDFS", "", 0), Node(12, "EXCHANGE", "", 0), \
        Node(7, "SCAN HDFS", "", 0), Node(8, "SCAN HDFS", "", 0)
    fed.probe_of = 3
    assert measured_pairs(m, printed, 5)["rows"] == 40.0
    assert measured_pairs(m, fed, 5)["rows"] == 30.0
    assert measured_pairs(m, merged, 5)["rows"] == 20.0
    assert measured_pairs(m, other, 5) is None and measured_pairs(m, printed, 40) is None
    fed.probe_of = 4
    assert measured_pairs(m, fed, 5) is None
    assert measured_pairs({"per_instance": None}, printed, 5) is None


def test_preagg_output_one_instance_or_fewer_rows_than_groups():
    assert preagg_output(50, 1000, 1) == (50, 50)
    assert preagg_output(5000, 1000, 4) == (250, 1000)
    assert preagg_output(10, 0, 4) == (0.0, 0.0)


# -- rule A4: the calendar bounds date_dim groupings ----------------------------------------

@pytest.mark.parametrize("cols,days,expected", [
    (["d_year", "d_moy"], 434, 16),   # 14 months and parts of two more
    (["d_moy"], 434, 12),             # a cyclic column: at most its cycle
    (["d_qoy"], 362, 4),
    (["d_year"], 108, 2),
    (["d_week_seq"], 70, 11),
    (["d_date"], 30, 30),
])
def test_date_groups(cols, days, expected):
    assert date_groups(cols, days) == expected


def test_date_groups_refuses_other_columns():
    assert date_groups(["d_year", "i_brand"], 100) is None


# -- rule J3: the join distribution ---------------------------------------------------------

def _node(nid, kind, frag, card, row_size=16, tuple_ids=("0",), bracket="", details=()):
    n = Node(nid, kind, bracket, 0)
    n.fragment = frag
    n.card = n.card100 = n.est100 = float(card)
    n.row_size = row_size
    n.tuple_ids = list(tuple_ids)
    n.details = list(details)
    return n


def _link(parent, *children):
    parent.children = list(children)
    for c in children:
        c.parent = parent


def _broadcast_plan(probe_rows, build_rows, hosts, printed_hosts=None):
    """root(F0, unpartitioned) <- x9 <- join 3 (F1, RANDOM scan fragment) with a scan 1 probe and a
    broadcast exchange 4 from scan 2 (F2); a JOIN BUILD fragment holds the exchange."""
    f0 = Fragment("F00", "UNPARTITIONED", 1, 1, 0, "")
    f1 = Fragment("F01", "RANDOM", printed_hosts or hosts, printed_hosts or hosts, 0, "")
    f2 = Fragment("F02", "RANDOM", 1, 1, 0, "")
    fb = Fragment("F03", "RANDOM", hosts, hosts, 0, "")
    fb.join_build = True
    root = _node(10, "AGGREGATE", f0, 1)
    x9 = _node(9, "EXCHANGE", f0, probe_rows, bracket="[UNPARTITIONED]")
    j = _node(3, "HASH JOIN", f1, probe_rows, row_size=32, tuple_ids=("0", "1"),
              bracket="[INNER JOIN, BROADCAST]", details=["|  hash predicates: a_key = b_key"])
    scan_p = _node(1, "SCAN HDFS", f1, probe_rows)
    x4 = _node(4, "EXCHANGE", fb, build_rows, tuple_ids=("1",), bracket="[BROADCAST]")
    scan_b = _node(2, "SCAN HDFS", f2, build_rows, tuple_ids=("1",))
    _link(root, x9)
    _link(x9, j)
    _link(j, scan_p, x4)
    _link(x4, scan_b)
    x9.sender, x4.sender = f1, f2
    nodes = {n.nid: n for n in (root, x9, j, scan_p, x4, scan_b)}
    return Plan(root, nodes, {f.fid: f for f in (f0, f1, f2, fb)}, "test"), j


def test_costs_follow_the_planner_formula():
    plan, j = _broadcast_plan(probe_rows=1e6, build_rows=1e4, hosts=5)
    b = 1e4 * (16 + 4)      # build rows x (row size + 4 bytes per tuple)
    p = 1e6 * (16 + 4)
    broadcast, partitioned = joins.costs(j, "card100", 5, 1, 0)
    print("expected broadcast %g, partitioned %g; got %g, %g" % (2 * b * 5, p + 2 * b, broadcast, partitioned))
    assert broadcast == 2 * b * 5
    assert partitioned == p + b + b
    # at mt_dop > 1 the hash-table half is multiplied by trunc(sqrt(instances per host))
    assert joins.costs(j, "card100", 5, 8, 8)[0] == b * 5 + b * 5 * 2
    assert joins.costs(j, "card100", 5, 3, 8)[0] == b * 5 + b * 5 * 1


class _Shape:
    """The placement the Redistributor reads: every fragment on `hosts` executors."""

    def __init__(self, plan, hosts):
        self.frag_of = {n.nid: n.fragment for n in plan.nodes.values()}
        self.place = {f: (hosts, 0, "") for f in plan.frags}
        self.inst = {f: hosts for f in plan.frags}


def test_a_broadcast_that_costs_more_than_partitioning_is_rebuilt_partitioned():
    # build 1 M rows, probe 2 M rows: printed on 1 host, broadcast 2 x 20 MB x 1 < 40 + 2 x 20 MB;
    # on 5 hosts broadcast costs 2 x 20 MB x 5 = 200 MB > 80 MB
    plan, j = _broadcast_plan(probe_rows=2e6, build_rows=1e6, hosts=5, printed_hosts=1)
    d = joins.Redistributor(plan, _Shape(plan, 5), 0, 0).run()[0]
    print(d.as_text())
    assert (d.printed, d.at_plan, d.at_target, d.applied) == ("BROADCAST", "BROADCAST", "PARTITIONED", True)
    assert j.distribution == "PARTITIONED"
    probe_x, build_x = j.children
    assert probe_x.kind == "EXCHANGE" and probe_x.bracket == "[HASH(a_key)]"
    assert build_x.bracket == "[HASH(b_key)]"
    # the join and its parent's exchange sender moved to a new fragment partitioned on the probe key
    assert j.fragment.part == "HASH(a_key)" and j.fragment is probe_x.fragment
    assert plan.nodes[9].sender is j.fragment
    assert probe_x.sender.fid == "F01" and probe_x.children[0].fragment.fid == "F01"
    # the new exchange says whose probe side it is: rule M3 finds the pairs counted for it by that join
    assert probe_x.probe_of == j.nid and build_x.probe_of is None


def test_the_target_decision_reads_the_planners_estimate_not_the_counted_rows():
    """The broadcast above (build 1 M rows, probe 2 M, 20 bytes each) costs 200 MB against 80 MB partitioned
    on 5 hosts. If the rows the run will have are 50 times fewer on the build side (20 K: broadcast 4 MB,
    partitioned 40.8 MB) but the planner still estimates 1 M, Impala partitions the join: the decision
    follows node.est100, and the counted rows (card100) do not enter it."""
    plan, j = _broadcast_plan(probe_rows=2e6, build_rows=1e6, hosts=5, printed_hosts=1)
    build_scan = j.children[1].children[0]
    build_scan.card100 = 2e4
    d = joins.Redistributor(plan, _Shape(plan, 5), 0, 0).run()[0]
    assert d.costs == (2 * 20e6 * 5, 40e6 + 2 * 20e6) and d.at_target == "PARTITIONED" and d.applied
    # and the other way: the planner's estimate of 20 K build rows keeps it broadcast whatever was counted
    plan, j = _broadcast_plan(probe_rows=2e6, build_rows=1e6, hosts=5, printed_hosts=1)
    j.children[1].children[0].est100 = 2e4
    d = joins.Redistributor(plan, _Shape(plan, 5), 0, 0).run()[0]
    assert d.at_target == "BROADCAST" and not d.applied and j.distribution == "BROADCAST"


def test_a_join_the_rule_does_not_reproduce_keeps_its_printed_choice():
    plan, j = _broadcast_plan(probe_rows=2e6, build_rows=1e6, hosts=5)   # the printed BROADCAST costs more
    d = joins.Redistributor(plan, _Shape(plan, 5), 0, 0).run()[0]
    assert d.at_plan == "PARTITIONED" and not d.applied and j.distribution == "BROADCAST"
    assert "does not reproduce" in d.why


@needs_plans
def test_the_rule_reproduces_the_printed_plans():
    """At each plan's own SF3000 estimates and host counts the rule must give the printed choice for
    nearly every join (the rest keep their printed choice, README rule J3)."""
    schema = Schema(PLANS)
    agree = total = 0
    for name in sorted(os.listdir(PLANS)):
        if not (name.startswith("tpcds-q") and name.endswith(".test")) or "mem_limit" in name or "verbose" in name:
            continue
        plan, _ = parse_plan_file(os.path.join(PLANS, name), "DISTRIBUTEDPLAN")
        shape = Shape(plan.root, True, schema, 0)
        Scaler(schema, shape.instances, name[6:-5]).scale(plan.root)
        for d in joins.Redistributor(plan, shape, 0, 0).run():
            total += 1
            agree += d.at_plan == d.printed
    print("the rule gives the printed choice for %d of %d joins" % (agree, total))
    assert total > 700 and agree >= 0.98 * total


# -- rule F1: runtime filters and the share of rows each keeps -------------------------------

def _filter_chain(scan_card, filtered_from, joins):
    """A probe chain scan 1 <- join 10 <- join 11 ...; joins: [(output rows, produced RF ids)]; the
    scan applies every RF."""
    f = Fragment("F01", "RANDOM", 5, 5, 0, "")
    rfs = [rf for _, ids in joins for rf in ids]
    scan = _node(1, "SCAN HDFS", f, scan_card, details=[
        "|     runtime filters: " + ", ".join("%s[bloom] -> k%d" % (rf, i) for i, rf in enumerate(rfs))])
    scan.filtered_from = filtered_from
    child = scan
    for i, (out, ids) in enumerate(joins):
        j = _node(10 + i, "HASH JOIN", f, out, bracket="[INNER JOIN, BROADCAST]")
        fb = Fragment("F%02d" % (2 + i), "RANDOM", 5, 5, 0, "")
        fb.join_build = True
        build = _node(20 + i, "EXCHANGE", fb, 100, bracket="[BROADCAST]")
        fb.details.append("runtime filters: " + ", ".join("%s[bloom] <- b%d" % (rf, i) for rf in ids))
        _link(j, child, build)
        child = j
    return scan


def test_filters_split_the_planners_reduction_over_their_joins():
    # unfiltered 1,000 rows; join 10 keeps 100 of them, join 11 keeps half of those; the plan says 50
    scan = _filter_chain(50, 1000, [(100, ["RF000"]), (50, ["RF001"])])
    out, note = scan_filters(scan)
    keeps = {j.nid: k for j, k, _ in out}
    print(note)
    # shares in proportion to log(100/1000) and log(50/100), their product the plan's 0.05
    assert abs(keeps[10] * keeps[11] - 0.05) < 1e-9
    assert abs(math.log(keeps[10]) / math.log(keeps[11]) - math.log(0.1) / math.log(0.5)) < 1e-9


def test_a_filter_rejecting_under_ten_percent_keeps_every_row():
    scan = _filter_chain(950, 1000, [(950, ["RF000"])])
    out, _ = scan_filters(scan)
    assert [k for _, k, _ in out] == [1.0]


def test_a_scan_the_plan_does_not_reduce_waits_but_keeps_its_rows():
    scan = _filter_chain(1000, None, [(10, ["RF000", "RF002"])])
    out, note = scan_filters(scan)
    assert [(j.nid, k, rfs) for j, k, rfs in out] == [(10, 1.0, ["RF000", "RF002"])]
    assert "keeps every row" in note
