"""Plans printed at the standard explain level, completed with the fragments, senders, tuples and
exchange rows the verbose level prints (tools/tpcds/standard_plans.py): on the hand-made plans of
tests/python/data/rowcount_tpch/plans.test, worked out by hand, and on Impala's own tpch-all.test
(skipped when ../shared/impala-plans is absent)."""

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tools.rowcount.benchmark import TPCH_FILE  # noqa: E402
from tools.tpcds import DEFAULT_PLANS  # noqa: E402
from tools.tpcds import joins  # noqa: E402
from tools.tpcds.plans import EXCHANGE_KINDS, parse_plan_block, parse_query_blocks  # noqa: E402
from tools.tpcds.standard_plans import complete  # noqa: E402

HAND = REPO / "tests" / "python" / "data" / "rowcount_tpch" / "plans.test"
HEADER = r"^# TPCH-(Q\d+)"


def plan_of(path, query, section):
    for name, offset, text in parse_query_blocks(str(path), HEADER):
        if name == query:
            return complete(parse_plan_block(text, offset, section, name, fragment_headers=False))
    raise AssertionError("no %s in %s" % (query, path))


def layout(plan):
    """node id -> (fragment, tuple ids, row size, cardinality, sender fragment or None)."""
    return {n.nid: (n.fragment.fid, n.tuple_ids, n.row_size, n.card, n.sender.fid if n.sender else None)
            for n in plan.nodes.values()}


def test_fragments_and_tuples_of_a_broadcast_join_under_two_exchanges():
    # 08 MERGING-EXCHANGE <- 04 SORT <- 07 AGGREGATE FINALIZE <- 06 EXCHANGE HASH(year(o_orderdate))
    #   <- 03 AGGREGATE STREAMING <- 02 HASH JOIN BROADCAST (probe 00 lineitem, build 05 EXCHANGE
    #   BROADCAST <- 01 orders). The root's fragment reads the merging exchange; F01 reads the hash
    # exchange; the scans' fragments are RANDOM. Tuples: the scans 0 (lineitem) and 1 (orders), the
    # join both, the aggregations 2 and 3, the sort 4.
    p = plan_of(HAND, "Q1", "DISTRIBUTEDPLAN")
    assert {f.fid: f.part for f in p.frags.values()} == {
        "F00": "UNPARTITIONED", "F01": "HASH(year(o_orderdate))", "F02": "RANDOM", "F03": "RANDOM"}
    assert layout(p) == {
        8: ("F00", ["4"], 10.0, 2.0, "F01"),
        4: ("F01", ["4"], 10.0, 2.0, None),
        7: ("F01", ["3"], 10.0, 2.0, None),
        6: ("F01", ["2"], 10.0, 2.0, "F02"),
        3: ("F02", ["2"], 10.0, 2.0, None),
        2: ("F02", ["0", "1"], 60.0, 4.0, None),
        5: ("F02", ["1"], 30.0, 3.0, "F03"),
        1: ("F03", ["1"], 30.0, 3.0, None),
        0: ("F02", ["0"], 30.0, 6.0, None),
    }


def test_a_separate_join_build_keeps_its_fragment():
    # The parallel plan prints the broadcast's build as `|--JOIN BUILD`: the exchange feeding it is
    # in that join-build fragment, its sender still a RANDOM scan fragment.
    p = plan_of(HAND, "Q1", "PARALLELPLANS")
    assert p.nodes[5].fragment.join_build and p.nodes[5].fragment.fid == "B00"
    assert p.nodes[5].sender.part == "RANDOM" and p.nodes[1].fragment is p.nodes[5].sender
    assert p.nodes[2].fragment.fid == "F02" and p.nodes[2].tuple_ids == ["0", "1"]


def test_a_semi_join_returns_its_probe_sides_tuples():
    tpch = os.path.join(DEFAULT_PLANS, TPCH_FILE)
    if not os.path.isfile(tpch):
        pytest.skip("needs ../shared/impala-plans")
    # TPC-H q18: 07 LEFT SEMI JOIN's row is its probe side's (customer, orders, lineitem), not the
    # build's aggregation over lineitem.
    p = plan_of(tpch, "Q18", "DISTRIBUTEDPLAN")
    assert p.nodes[7].join_type == "LEFT SEMI JOIN"
    assert p.nodes[7].tuple_ids == p.nodes[6].tuple_ids
    assert set(p.nodes[7].tuple_ids).isdisjoint(p.nodes[14].tuple_ids)


def test_every_node_of_impalas_tpch_plans_gets_a_fragment_tuples_and_rows():
    tpch = os.path.join(DEFAULT_PLANS, TPCH_FILE)
    if not os.path.isfile(tpch):
        pytest.skip("needs ../shared/impala-plans")
    blocks = parse_query_blocks(tpch, HEADER)
    assert len(blocks) == 22
    for name, offset, text in blocks:
        for section in ("DISTRIBUTEDPLAN", "PARALLELPLANS"):
            p = complete(parse_plan_block(text, offset, section, name, fragment_headers=False))
            where = "%s %s" % (name, section)
            assert p.root.fragment.part == "UNPARTITIONED", where
            for n in p.nodes.values():
                assert n.fragment is not None and n.tuple_ids and n.row_size and n.card is not None, (where, n.nid)
                if n.kind in EXCHANGE_KINDS:
                    assert n.sender is not None and n.children[0].fragment is n.sender, (where, n.nid)
                    assert n.sender is not n.fragment
            # A fragment that is not a join build reads, at its leftmost leaf, what its partition says.
            for f in p.frags.values():
                assert f.join_build or f.part == "RANDOM" or f.part == "UNPARTITIONED" or f.part.startswith("HASH("), where


def test_hosts_and_instances_for_the_cluster_the_plan_was_made_for():
    # Planned for 3 executors: the root's fragment 1 host; the hash exchange's reader every executor;
    # each scan's fragment as many hosts as its table's file has 128 MiB blocks (1 KB: one).
    p = complete(plan_of_raw(HAND, "Q1", "DISTRIBUTEDPLAN"), 3, 0)
    assert {f.fid: (f.hosts, f.instances) for f in p.frags.values()} == {
        "F00": (1, 1), "F01": (3, 3), "F02": (1, 1), "F03": (1, 1)}
    # At mt_dop 2 a fragment without a scan runs 2 instances a host; the join build, its join's.
    p = complete(plan_of_raw(HAND, "Q1", "PARALLELPLANS"), 3, 2)
    assert p.frags["F01"].instances == 6 and p.frags["F02"].instances == 1
    assert (p.frags["B00"].hosts, p.frags["B00"].instances) == (1, 1)


def test_impalas_join_rule_reproduces_every_printed_tpch_join_choice():
    tpch = os.path.join(DEFAULT_PLANS, TPCH_FILE)
    if not os.path.isfile(tpch):
        pytest.skip("needs ../shared/impala-plans")
    for name, offset, text in parse_query_blocks(tpch, HEADER):
        for section, mt_dop in (("DISTRIBUTEDPLAN", 0), ("PARALLELPLANS", 2)):
            p = complete(parse_plan_block(text, offset, section, name, fragment_headers=False), 3, mt_dop)
            for j in p.nodes.values():
                if j.kind != "HASH JOIN" or j.distribution not in ("BROADCAST", "PARTITIONED"):
                    continue
                probe = joins._source(j.children[0]).fragment
                cost = joins.costs(j, "card", probe.hosts, max(1, probe.instances // max(1, probe.hosts)), mt_dop)
                assert joins.choose(j, cost, "card") == j.distribution, (name, section, j.nid, cost)


def plan_of_raw(path, query, section):
    for name, offset, text in parse_query_blocks(str(path), HEADER):
        if name == query:
            return parse_plan_block(text, offset, section, name, fragment_headers=False)
    raise AssertionError("no %s in %s" % (query, path))
