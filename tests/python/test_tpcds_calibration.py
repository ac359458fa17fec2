"""Regression test of the TPC-DS SF100 calibration (calibration-data.md section A).

Simulates the committed scenarios/tpcds_sf100/workload.json at the measured baseline (K=1,
16 KiB, LZ4 on, mt_dop=0, 5 executors, 390 us) and at mt_dop=8, and checks each published figure
within its tolerance, printing target and simulated value. Two figures were fitted, one parameter
each (runtime_s_total: cpu_scale; the non-pushback blocked time: compress_ns_per_byte; see
scenarios/tpcds_sf100/calibration.json); every other figure is a check the fit did not see. The
committed calibration.json must describe the committed workload (same costs, same figures). A
check that an honest derivation cannot reach is marked xfail with the reason (strict: if it
starts passing, the test says so and the mark must go).

Needs only the committed workload and calibration (not ../shared). Two workload runs: about 2.5
to 5 minutes each on 2 cores.
Run: /usr/bin/python3 -m pytest -s tests/python/test_tpcds_calibration.py
"""

import json

import pytest
from conftest import REPO

from analysis import exsim_runner
from tools.tpcds import calibrate  # the fit's definitions: targets, checks, the example exchange

WORKLOAD = REPO / "scenarios" / "tpcds_sf100" / "workload.json"
CALIBRATION = REPO / "scenarios" / "tpcds_sf100" / "calibration.json"
JOBS = "2"


@pytest.fixture(scope="module")
def baseline(exsim, tmp_path_factory):
    return exsim_runner.simulate(exsim, WORKLOAD, tmp_path_factory.mktemp("tpcds") / "k1.json", jobs=JOBS)


@pytest.fixture(scope="module")
def mt_dop8(exsim, tmp_path_factory):
    return exsim_runner.simulate(exsim, WORKLOAD, tmp_path_factory.mktemp("tpcds") / "k1_mt8.json",
                                 sets=["mt_dop=8"], jobs=JOBS)


@pytest.fixture(scope="module")
def doc():
    return json.loads(CALIBRATION.read_text(encoding="utf-8"))


def within(simulated, target, tolerance):
    print("target %.4g, simulated %.4g (%+.1f%%, tolerance %.0f%%)" % (
        target, simulated, 100 * (simulated - target) / target, 100 * tolerance))
    return abs(simulated - target) <= tolerance * target


# Reasons an honest derivation does not reach a check (an xfail each); None: expected to pass. Numbers are
# those of the committed calibration (calibration.json, README "Calibration").
XFAIL = {
    "hash_mean_rpc_bytes": (
        "about 30% low (11.9 KB): with the row sizes derived from the column types and string lengths, 17 KB would "
        "need an LZ4 ratio of about 0.54 on remote channels; the one measured ratio, 0.27 (tuple data), is the q72 "
        "profile's pooled traffic, dominated by exchange 28 whose rows repeat item descriptions, while that "
        "profile's other exchanges compress at 0.24-0.51; neither a per-exchange ratio nor wider rows can be "
        "derived from the inputs, and neither is fitted"),
    "hash_rpcs": (
        "about 2.1x the measured count: the plans' hash exchanges carry 7.9 G rows (the planner's SF3000 estimates "
        "rescaled; groupings estimated to pass most of their input, as Impala's planner assumes), where 10.2 M "
        "RPCs of these row sizes carry about 3.7 G; no per-query or per-exchange count is published to correct "
        "them (q67a alone sends 5.3 M: nine UNION branches each hashing 57.6 M pre-aggregated store_sales rows)"),
    "nonpushback_hash_exchanges": (
        "493: the 104 plans hold 585 hash exchanges in all, fewer than the 630 that did not push back in the "
        "measured run, and the simulation finds 92 of them pushing back (receivers deferring RPCs while the "
        "fragment above waits for a join build or another input)"),
    "q72": (
        "about 35% low (22.3 s): exchange 28's senders spend 22.9 s of CPU each (four probes, hashing, and mostly "
        "LZ4 at the fitted 0.97 ns per byte on 194-byte rows), which hides about half of the 41 s each channel "
        "spends in its 105 K sequential round trips (the exchange spans 45 s); 34.5 s blocked would leave at most "
        "about 11 s of CPU per sender. One LZ4 cost per byte for "
        "every exchange, fitted to the workload's total, cannot give both: LZ4's speed depends on the data "
        "(exchange 28 compresses to 0.27), which the model does not have"),
    "q51": None,
    "q67a": None,
    "q64": (
        "the model's q64 hash exchanges that block for seconds (x96, x113, x123: 2.0-2.5 s) all push back, their "
        "receivers waiting for join builds; the others carry at most 0.7 M rows by the rescaled planner estimates "
        "(8.9 K RPCs, 0.11 s blocked), where 3.6 s of blocking at 390 us a round trip needs at least 9.2 K waits "
        "on one sender, about 46 K RPCs in the exchange: q64's 18-table join is estimated at a few per cent of "
        "what the published blocked time implies, and nothing published says by how much"),
    "runtime_s_total at mt_dop=8": (
        "about 40% low (112.9 s against 187.0 s; never fitted): at mt_dop=0 the model spends 100 s in round trips "
        "and 165 s waiting for join builds, mostly builds fed by round-trip-bound hash exchanges (q72's x28 alone "
        "45 s); at mt_dop=8 each exchange has 64x the channels and those waits vanish (0.8 s of round trips, 48 s "
        "of build waits), and operators run on 8 instances (q51a 90 -> 15 s). The measured run only halves, so "
        "either the real mt_dop=0 run is less bound by round trips than the fitted model, or mt_dop=8 costs "
        "something the model lacks; the published figures do not say which"),
}
# The fitted figures and the tolerance this test allows them (the fit itself stops within 0.5%).
FITTED = [("runtime_s_total", calibrate.TARGETS["runtime_s_total"], 0.03),
          ("nonpushback_slowest_sender_blocked_s_total",
           calibrate.TARGETS["nonpushback_slowest_sender_blocked_s_total"], 0.10)]


def marks(name):
    return [pytest.mark.xfail(reason=XFAIL[name], strict=True)] if XFAIL[name] else []


def test_committed_calibration_describes_the_committed_workload(doc):
    # The generator copies calibration.json's costs into the workload (tools/tpcds_workload.py); the figures in
    # calibration.json are those of this workload (its hash without prose) with the same simulator.
    sc = json.loads(WORKLOAD.read_text(encoding="utf-8"))
    assert {k: sc["costs"][k] for k in doc["costs"]} == doc["costs"]
    assert sc["exchange_defaults"]["compress_ns_per_byte"] == doc["exchange_defaults"]["compress_ns_per_byte"]
    assert calibrate.scenario_sha256(sc) == doc["workload_sha256"]
    assert set(doc["parameters"]) == {p[0] for p in calibrate.PARAMETERS}
    # Fewer fitted parameters than figures of the baseline (the mt_dop=8 runtime is not one of them).
    assert len(doc["parameters"]) < len([k for k in doc["figures"] if "mt_dop=8" not in k])


@pytest.mark.parametrize("name,target,tolerance", FITTED, ids=[f[0] for f in FITTED])
def test_fitted_figure(baseline, doc, name, target, tolerance):
    sim = baseline["summary"][name]
    # The simulator is deterministic: the fit's recorded value is this run's.
    assert abs(sim - doc["figures"][name]["simulated"]) <= 1e-9 * max(1.0, abs(sim))
    assert within(sim, target, tolerance), name


@pytest.mark.parametrize("name", [pytest.param(k, marks=marks(k), id=k) for k in calibrate.CHECKS
                                  if not k.startswith("q")])
def test_summary_check(baseline, name):
    target, tolerance = calibrate.CHECKS[name]
    assert within(baseline["summary"][name], target, tolerance), name


@pytest.mark.parametrize("query", [pytest.param(q, marks=marks(q), id=q) for q in calibrate.EXAMPLE_QUERIES])
def test_example_exchange_blocked(baseline, query):
    target, tolerance = calibrate.CHECKS[query]
    x = calibrate.example_exchange(baseline, query)
    print("%s example exchange: %s" % (query, x and {k: x[k] for k in ("id", "rpcs", "bound", "rows_sent")}))
    assert within(calibrate.example_blocked(baseline, query), target, tolerance)


@pytest.mark.parametrize("name", [pytest.param("runtime_s_total at mt_dop=8",
                                               marks=marks("runtime_s_total at mt_dop=8"), id="mt_dop_8")])
def test_runtime_at_mt_dop_8(mt_dop8, name):
    # Not fitted: the same workload and parameters, the `parallel` plans with Impala's instance rules for 8.
    assert within(mt_dop8["summary"]["runtime_s_total"], *calibrate.MT_DOP_8_RUNTIME)


def test_breakdowns_sum_to_runtimes(baseline):
    # Each query's breakdown follows its critical path and sums to its runtime (within 1%).
    for q in baseline["queries"]:
        total = sum(q["breakdown"].values())
        assert abs(total - q["runtime_s"]) <= 0.01 * q["runtime_s"] + 1e-9, (q["query"], total, q["runtime_s"])
