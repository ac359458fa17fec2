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

from common import exsim_runner
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
        "17% low (14.1 KB): with strings of at most 11 bytes inside their slots and each exchange's LZ4 ratio from "
        "its byte classes (fitted to the q72 profile's 11 measured exchanges) a full 16 KiB batch averages 14 KB on "
        "the wire; the class that compresses best, dimension tuples repeated in join rows (0.25), rests on q72's "
        "exchange 28 alone, whose inventory rows repeat unusually, so other joins' rows may compress worse than "
        "the model says; nothing published says by how much"),
    "hash_rpcs": (
        "1.67x the measured count (17.1 M): the examples within their tolerance (q72, q51, q67a), whose round trips "
        "the measurement confirms, send 7.6 M; the published 10.2 M leaves 2.6 M for the 95 other queries that hash, "
        "where the model sends 9.4 M from the planner's SF3000 estimates rescaled (README 'Where the checks that "
        "miss come from'); no per-query count is published to say which are too large"),
    "nonpushback_hash_exchanges": (
        "521: the 104 plans hold 591 hash exchanges in all (32 joins re-decided for 5 executors change a few), "
        "fewer than the 630 that did not push back in the measured run, and the simulation finds 70 of them "
        "pushing back (receivers deferring RPCs while the fragment above waits for a join build or another "
        "input)"),
    "q72": None,
    "q51": None,
    "q67a": None,
    "q64": (
        "60% low (1.46 s): the q64 hash exchanges blocked 3.1-3.2 s (x82, x138, x96, x137, x86) all push back, their "
        "receivers waiting for the builds of the 18-table join; the one that does not, x127, is round-trip-bound at "
        "1.46 s with 138 K RPCs. Had one of the others not pushed back, the example would be about 3.2 s"),
    "runtime_s_total at mt_dop=8": (
        "30% low (130.4 s against 187.0 s; never fitted): the model's total falls by 243.8 s from mt_dop=0, the "
        "measured by 187.6 s; q51a (117.8 -> 20.1 s: its derived 8.2 G-row self-joins, CPU-bound at mt_dop=0, spread "
        "over 8 instances) and q72 (50.2 -> 4.8 s: its round-trip-bound inventory exchange gets 64x the channels) "
        "make 59% of the modelled drop; what holds them back in the measured run, or whether their mt_dop=0 times "
        "are too long, the published figures do not say"),
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


def test_committed_evidence_is_the_simulations(baseline, mt_dop8, doc):
    # The README's evidence for the checks that miss (calibration.json's miss_evidence) is what these runs say.
    figs = calibrate.figures(baseline, mt_dop8)
    ev = json.loads(json.dumps(calibrate.miss_evidence(baseline, mt_dop8, figs)))
    assert ev == doc["miss_evidence"]
    # Each check the committed calibration has outside its tolerance has a row of evidence.
    rows = {r[0] for r in calibrate.evidence_rows(ev, figs)}
    outside = {k for k, f in figs.items() if "tolerance" in f and abs(f["relative"]) > f["tolerance"]}
    assert rows == outside
