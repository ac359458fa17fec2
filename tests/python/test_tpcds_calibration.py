"""Regression test of the TPC-DS SF100 calibration (calibration-data.md section A).

Simulates the committed scenarios/tpcds_sf100/workload.json at the measured
baseline (K=1, 16 KiB, LZ4 on, mt_dop=0, 5 executors, 390 us) and at mt_dop=8,
and checks each published figure within its tolerance. Three figures were
fitted (mean RPC bytes, blocked time, runtime at mt_dop=0: see
scenarios/tpcds_sf100/calibration.json); the others are checks the fit did not
see. A check that an honest derivation cannot reach is marked xfail with the
reason (strict: if it starts passing, the test says so and the mark must go).

Needs only the committed workload (not ../shared). About 1.2 + 1.8 minutes on 2 cores.
Run: /usr/bin/python3 -m pytest tests/python/test_tpcds_calibration.py
"""

import pytest
from conftest import REPO

from analysis import exsim_runner
from tools.tpcds.calibrate import example_blocked  # the fit's definition of the example figure

WORKLOAD = REPO / "scenarios" / "tpcds_sf100" / "workload.json"
JOBS = "2"


def simulate(exsim, out, *sets):
    try:
        return exsim_runner.simulate(exsim, WORKLOAD, out, sets=sets, jobs=JOBS)
    except exsim_runner.ExsimError as e:
        # The workload is schema_version 2 (whole queries); a simulator that only reads version 1 says
        # so. That is a missing capability of this build, not a calibration result.
        if "schema_version: expected an integer in [1, 1]" in str(e):
            pytest.skip("this exsim reads schema_version 1 only; the workload is schema_version 2")
        raise


@pytest.fixture(scope="module")
def baseline(exsim, tmp_path_factory):
    return simulate(exsim, tmp_path_factory.mktemp("tpcds") / "k1.json")


@pytest.fixture(scope="module")
def mt_dop8(exsim, tmp_path_factory):
    return simulate(exsim, tmp_path_factory.mktemp("tpcds") / "k1_mt8.json", "mt_dop=8")


def within(simulated, target, tolerance):
    print("target %.4g, simulated %.4g (%+.1f%%, tolerance %.0f%%)" % (
        target, simulated, 100 * (simulated - target) / target, 100 * tolerance))
    return abs(simulated - target) <= tolerance * target


# (name, target, tolerance, how the figure enters the model, xfail reason or None)
SUMMARY_CHECKS = [
    ("hash_mean_rpc_bytes", 17000, 0.10, "fitted (var_fraction)", None),
    ("nonpushback_slowest_sender_blocked_s_total", 150.0, 0.10, "fitted (compress_ns_per_byte)", None),
    ("runtime_s_total", 374.6, 0.03, "fitted (query_work_ns_per_row)", None),
    ("nonpushback_hash_exchanges", 630, 0.10, "check",
     "the 104 statements' plans hold 507 hash exchanges in all (502 in the 103 plan files; the eight variants "
     "reuse their base plans): 630 non-pushback ones cannot be reached without inventing exchanges "
     "(scenarios/tpcds_sf100/README.md)"),
    ("hash_rpcs", 10.2e6, 0.10, "check",
     "the plan-derived hash volume is about a third above the measured one (with q72 taken from its profile, "
     "rule M1): the planner's estimates other than the date ranges (rule D1) are not corrected"),
]

QUERY_CHECKS = [
    ("q72", 34.5, 0.15,
     "about 40% high: x30 (inventory side of the partitioned join, 4.1 M RPCs, round-trip bound) takes its rows "
     "from the SF1 profile scaled by inventory's SF100/SF1 growth (rule M1, an assumption: no SF100 profile of "
     "q72 says how the join's output grows)"),
    ("q51", 5.1, 0.25,
     "about 60% low: q51's exchanges carry the planner's group estimates of its (item, date) aggregates and "
     "the rule-J2 cap on its full outer join; nothing in the plans or profiles says how far off they are"),
    ("q67a", 4.6, 0.25,
     "about 85% high: q67a has no plan and uses q67's, whose one ROLLUP exchange (x16, 202 M rows) carries "
     "every rollup level; the real q67a spells the levels out as UNION branches with smaller exchanges each"),
    ("q64", 3.6, 0.25,
     "about 90% low: q64's largest hash exchange (x100/x127, 65 K RPCs) follows the planner's estimates of "
     "the store_sales, store_returns and cs_ui joins, which no rule corrects"),
]


@pytest.mark.parametrize("name,target,tolerance,role,reason", [
    pytest.param(*c, marks=[pytest.mark.xfail(reason=c[4], strict=True)] if c[4] else [], id=c[0])
    for c in SUMMARY_CHECKS])
def test_summary_figure(baseline, name, target, tolerance, role, reason):
    assert within(baseline["summary"][name], target, tolerance), "%s (%s)" % (name, role)


@pytest.mark.parametrize("query,target,tolerance,reason", [
    pytest.param(*c, marks=[pytest.mark.xfail(reason=c[3], strict=True)] if c[3] else [], id=c[0])
    for c in QUERY_CHECKS])
def test_example_exchange_blocked(baseline, query, target, tolerance, reason):
    assert within(example_blocked(baseline, query), target, tolerance)


MT_DOP_8_REASON = (
    "about 45% low (104 s): the round-trip-bound hash exchanges get 64x the channels at mt_dop=8 (their spans "
    "fall from about 172 to 21 s) and operator work runs on 8 threads instead of 1 (scans already ran on 16 "
    "scanner threads); the measured run only halves. Not modelled and likely part of the gap: m6id.4xlarge's 16 "
    "vCPUs are 8 cores with two hyperthreads each; per-instance costs (partitioned join builds, start-up, "
    "memory) grow with mt_dop. Fitting one of them to 187 s would turn this check into a fit.")


@pytest.mark.xfail(reason=MT_DOP_8_REASON, strict=True)
def test_runtime_at_mt_dop_8(mt_dop8):
    # Not fitted: the same workload and parameters with 8 instances per executor.
    assert within(mt_dop8["summary"]["runtime_s_total"], 187.0, 0.05)
