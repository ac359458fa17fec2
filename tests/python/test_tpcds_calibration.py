"""Regression test of the TPC-DS SF100 calibration (calibration-data.md section A).

Simulates the committed scenarios/tpcds_sf100/workload.json at the measured baseline (K=1,
16 KiB, LZ4 on, mt_dop=0, 5 executors, 390 us) and at mt_dop=8, and checks each published figure
within its tolerance, printing target and simulated value. Two figures were fitted, one parameter each
(runtime_s_total: cpu_scale; the non-pushback hash exchanges' blocked time: cluster.rpc_dispatch_us; see
scenarios/tpcds_sf100/calibration.json; LZ4's cost per byte is its measured speed, the simulator's
default); every other figure is a check the fit did not see. The
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
# those of the committed calibration (calibration.json, docs/tpcds.md "Calibration").
XFAIL = {
    "hash_mean_rpc_bytes": None,
    "hash_rpcs": None,
    "nonpushback_hash_exchanges": (
        "12% low (554 of 630, 33 of the 587 push back): rule J3 decides each join on the planner's estimates "
        "rescaled from SF3000 to SF100, which make fewer joins partitioned than the measured plans, made with "
        "SF100 statistics, hold at least (630 + the ones that pushed back); decided on the counted rows instead, "
        "747 hash exchanges and 703 not pushing back, 12% high"),
    "q72": None,
    "q51": (
        "44% low (2.9 s): x25 carries 26.6 M counted rows in 136 K RPCs, rpc_window-bound; its slowest sender "
        "is blocked 21 us per RPC of the exchange where 37 us would meet the published 5.1 s. The one dispatch "
        "fitted over all 554 exchanges leaves it short"),
    "q67a": (
        "32% high (6.1 s): the example x109 (48 M rows, 359 K RPCs) is rpc_window-bound; its slowest sender is "
        "blocked 17 us per RPC of the exchange where 13 us would meet the published 4.6 s"),
    "q64": None,
    "runtime_s_total at mt_dop=8": (
        "15% low (160.0 s): the dispatch lengthens the mt_dop=0 critical paths' round trips, so the fit gives "
        "the operators less CPU (cpu_scale 0.423), which mt_dop=8's CPU-bound queries show: the model speeds "
        "up 2.34x from mt_dop=0, the measured run 2.0x. A hand-off that grows with the host's load (more "
        "threads at mt_dop=8) would move both the same way"),
}
# The fitted figures and the tolerance this test allows them (the fit itself stops within 0.5%).
FITTED = [(k, v, 0.03) for k, v in calibrate.TARGETS.items()]


def marks(name):
    return [pytest.mark.xfail(reason=XFAIL[name], strict=True)] if XFAIL[name] else []


def test_committed_calibration_describes_the_committed_workload(exsim, doc):
    # The generator copies calibration.json's costs into the workload (tools/tpcds_workload.py); the figures in
    # calibration.json are those of this workload (its hash without prose) with the same simulator. LZ4's cost
    # per byte is not fitted: the workload holds the simulator's default (LZ4's compression speed).
    sc = json.loads(WORKLOAD.read_text(encoding="utf-8"))
    assert {k: sc["costs"][k] for k in doc["costs"]} == doc["costs"]
    assert "exchange_defaults" not in doc
    assert sc["exchange_defaults"]["compress_ns_per_byte"] == exsim_runner.parameter_default(
        "exchange", "compress_ns_per_byte", exsim)
    assert sc["cluster"]["rpc_dispatch_us"] == doc["cluster"]["rpc_dispatch_us"]
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
    # The evidence of docs/tpcds.md for the checks that miss (calibration.json's miss_evidence) is what these runs say.
    figs = calibrate.figures(baseline, mt_dop8)
    ev = json.loads(json.dumps(calibrate.miss_evidence(baseline, mt_dop8, figs)))
    assert ev == doc["miss_evidence"]
    # Each check the committed calibration has outside its tolerance has a row of evidence.
    rows = {r[0] for r in calibrate.evidence_rows(ev, figs)}
    outside = {k for k, f in figs.items() if "tolerance" in f and abs(f["relative"]) > f["tolerance"]}
    assert rows == outside


def test_calibration_figures_never_print_in_scientific_notation():
    """The table's figures: 4 significant digits positional, thousands separated, and a leftover of
    subtracting sums (-1e-14) as 0, never '-1e-14' or '1.234e-05'."""
    assert [calibrate.fmtn(v) for v in (374.6, 10_200_000.0, 0.18, 1.2345e-5, -1e-14, 0.000999)] == \
        ["374.6", "10,200,000", "0.18", "0.00001234", "0", "0.000999"]
