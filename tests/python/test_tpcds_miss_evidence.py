"""Checks of the calibration's evidence for the checks it misses (tools/tpcds/calibrate.py
miss_evidence, evidence_rows) on hand-made results whose figures are computed by hand; no simulation.

Run: /usr/bin/python3 -m pytest tests/python/test_tpcds_miss_evidence.py -q
"""

import pytest

from tools.tpcds import calibrate


def hx(query, xid, rpcs, bytes_sent, blocked, pushed_back, partitioning="HASH_PARTITIONED"):
    return {"query": query, "id": xid, "partitioning": partitioning, "rpcs": rpcs, "bytes_sent": bytes_sent,
            "slowest_sender_blocked_s": blocked, "pushed_back": pushed_back}


def results():
    """q72 and q51 examples within their tolerance (34.5 s, 5.1 s), q67a's 2x too long, q64's example 1 s
    (published 3.6 s) beside two exchanges that push back; two other queries, qa and qb."""
    ex = [hx("q72", "x1", 3_000_000, 3_000_000 * 20_000, 34.0, False),
          hx("q51", "x2", 700_000, 700_000 * 10_000, 5.0, False),
          hx("q67a", "x3", 1_000_000, 1_000_000 * 10_000, 9.2, False),
          hx("q64", "x4", 100_000, 100_000 * 10_000, 1.0, False),
          hx("q64", "x5", 50_000, 50_000 * 10_000, 3.0, True),
          hx("q64", "x6", 60_000, 60_000 * 10_000, 3.5, True),
          hx("qa", "x7", 4_000_000, 4_000_000 * 12_000, 0.5, False),
          hx("qb", "x8", 2_000_000, 2_000_000 * 12_000, 0.5, True),
          hx("qb", "x9", 9_999_999, 1, 9.0, False, partitioning="UNPARTITIONED")]
    queries = [{"query": q, "runtime_s": t} for q, t in (("q72", 50.0), ("q51", 8.0), ("q67a", 10.0), ("q64", 6.0),
                                                          ("qa", 20.0), ("qb", 6.0))]
    return {"exchanges": ex, "queries": queries,
            "summary": {"runtime_s_total": 100.0, "hash_rpcs": 10_910_000, "hash_mean_rpc_bytes": 14_000.0,
                        "nonpushback_hash_exchanges": 6, "nonpushback_slowest_sender_blocked_s_total": 40.0}}


def results_mt8():
    queries = [{"query": q, "runtime_s": t} for q, t in (("q72", 10.0), ("q51", 8.0), ("q67a", 10.0), ("q64", 6.0),
                                                          ("qa", 5.0), ("qb", 1.0))]
    return {"queries": queries, "summary": {"runtime_s_total": 40.0}}


def test_evidence_splits_the_rpcs_at_the_examples_the_measurement_confirms():
    res, mt8 = results(), results_mt8()
    figs = calibrate.figures(res, mt8)
    ev = calibrate.miss_evidence(res, mt8, figs)
    h = ev["hash_rpcs"]
    # q72 (34.0 vs 34.5) and q51 (5.0 vs 5.1) are within 25%; q67a (9.2 vs 4.6) and q64 (1.0 vs 3.6) are not
    assert h["anchored_queries"] == ["q72", "q51"]
    assert h["anchored_rpcs"] == 3_700_000
    # the others: q67a 1.0 M, q64 0.21 M, qa 4.0 M, qb 2.0 M (the UNPARTITIONED exchange does not count)
    assert h["other_rpcs"] == 7_210_000 and h["other_queries"] == 4
    assert h["published_other_rpcs"] == pytest.approx(10.2e6 - 3.7e6)
    assert h["other_ratio"] == pytest.approx(7.21e6 / 6.5e6)
    assert h["largest_other"][:2] == [["qa", 4_000_000], ["qb", 2_000_000]]
    assert h["anchored_mean_rpc_bytes"] == pytest.approx((3e6 * 20_000 + 0.7e6 * 10_000) / 3.7e6)
    assert ev["nonpushback_hash_exchanges"] == {"hash_exchanges": 8, "pushed_back": 3}
    # q64 is outside: its exchanges that push back, longest blocked first; q67a has none
    assert ev["examples_outside"]["q64"] == [["x6", 3.5, 60_000], ["x5", 3.0, 50_000]]
    assert ev["examples_outside"]["q67a"] == []
    m = ev["mt_dop_8"]
    assert m["drop_s"] == pytest.approx(60.0)
    assert m["measured_drop_s"] == pytest.approx(374.6 - 187.0)
    # qa falls by 15 s, q72 by 40 s, qb by 5 s of the 60 s
    assert [r[0] for r in m["largest"][:3]] == ["q72", "qa", "qb"]
    assert m["largest"][0][3] == pytest.approx(40.0 / 60.0)


def test_evidence_rows_name_only_the_checks_outside_their_tolerance():
    res, mt8 = results(), results_mt8()
    figs = calibrate.figures(res, mt8)
    rows = dict((r[0], r[1]) for r in calibrate.evidence_rows(calibrate.miss_evidence(res, mt8, figs), figs))
    # hash_rpcs 10.91 M is within 15% of 10.2 M; 14,000 bytes is outside 15% of 17,000; 6 exchanges of 630 outside
    assert "hash_rpcs" not in rows
    assert rows["hash_mean_rpc_bytes"].startswith("18,108 bytes per RPC")
    assert rows["nonpushback_hash_exchanges"] == "the plans hold 8 hash exchanges in all, 3 of which push back"
    assert "x6 3.50 s (60,000 RPCs)" in rows["q64"]
    assert rows["q67a"].endswith("none")
    assert "falls by 60.0 s from mt_dop=0, the measured by 187.6 s" in rows["runtime_s_total at mt_dop=8"]
    assert "q72 50.0 -> 10.0 s (67% of the drop)" in rows["runtime_s_total at mt_dop=8"]
