"""Checks of the TPC-DS uncertainty tool (tools/tpcds/uncertainty.py): the interval rule, the ranges
derived from the evidence, and the workload variants, on hand-made plans whose expected rows are
computed by hand; the run list of the committed workload with --dry-run (needs build/exsim).

Run: /usr/bin/python3 -m pytest tests/python/test_tpcds_uncertainty.py -q
"""

import copy
import math
import os
import shutil
import subprocess
import sys

import matplotlib.pyplot as plt
import pytest
from conftest import REPO

from tools.tpcds import calibrate, compression
from tools.tpcds import uncertainty as u

EXSIM = os.path.join(REPO, "build", "exsim")


def test_interval_combines_the_swings_in_quadrature():
    # nominal -10; one input moves it to -12 .. -9, another to -11 .. -6
    lo, hi = u.interval(-10.0, [(-12.0, -9.0), (-11.0, -6.0)])
    assert lo == pytest.approx(-10.0 - math.sqrt(2 ** 2 + 1 ** 2))
    assert hi == pytest.approx(-10.0 + math.sqrt(1 ** 2 + 4 ** 2))
    # an input whose ends both lie on one side widens that side only
    assert u.interval(5.0, [(5.0, 7.0)]) == (5.0, 7.0)
    assert u.interval(5.0, []) == (5.0, 5.0)


def test_lz4_range_is_the_rms_of_the_fitted_evidence_residuals():
    fitted = [r for r in compression.EVIDENCE.values() if r[7]]
    # the residual column is derived - measured; its relative RMS is well inside (0, 0.5)
    for r in fitted:
        assert r[6] == pytest.approx(r[5] - r[4], abs=2e-4)
    rel = u.lz4_relative_residual()
    assert 0.0 < rel < 0.5
    assert rel == pytest.approx(math.sqrt(sum((r[6] / r[4]) ** 2 for r in fitted) / len(fitted)))


def test_cpu_scale_range_moves_the_excess_round_trips_to_the_operators():
    measured = calibrate.CHECKS["hash_rpcs"][0]
    results = {"summary": {"hash_rpcs": 2 * measured, "breakdown_s_total": {
        "rtt_s": 10.0, "cpu_scan_s": 20.0, "cpu_join_probe_s": 30.0, "startup_s": 99.0}}}
    rel, how = u.cpu_scale_residual(results)
    assert rel == pytest.approx(10.0 * 0.5 / 50.0)   # half the 10 s of round trips over 50 s of operators
    assert "+/-10.0%" in how
    results["summary"]["hash_rpcs"] = measured / 2    # fewer RPCs than measured: nothing to move
    assert u.cpu_scale_residual(results)[0] == 0.0


def plan():
    """F1: scan s (rows 100, filter from join j keeps 0.25) -> select (50) -> exchange x1;
    F0: join j (probe: exchange x1, 30 rows) -> aggregate (groups 5)."""
    scan = {"op": "scan", "id": "s", "table": "t", "rows": 100, "rows_read": 400,
            "runtime_filters": [{"join": "j", "keep": 0.25}]}
    f1 = {"id": "F1", "root": {"op": "select", "id": "sel", "rows": 50, "input": scan}, "sink": {"exchange": "x1"}}
    build = {"op": "scan", "id": "b", "table": "d", "rows": 10, "rows_read": 10}
    join = {"op": "hash_join", "id": "j", "rows": 30, "probe": {"op": "exchange", "id": "e1", "exchange": "x1"},
            "build": build}
    f0 = {"id": "F0", "root": {"op": "aggregate", "id": "a", "rows": 5, "input": join}, "sink": {"result": True}}
    return {"fragments": [f0, f1],
            "exchanges": [{"id": "x1", "partitioning": "HASH_PARTITIONED", "compression_ratio": 0.9}]}


def test_weaker_filter_passes_more_rows_up_to_its_join_only():
    sc = {"queries": [dict(plan(), name="q")], "exchange_defaults": {"compression_ratio": 0.5}}
    weak = u.scale_filters(sc, 0.5)
    q = weak["queries"][0]
    f0, f1 = q["fragments"]
    # keep 0.25 -> 0.5: the scan passes 2x (200), the select above it 2x (100); the join drops what
    # the filter would have, so its 30 rows and everything above stay; rows read stay 400
    assert f1["root"]["input"]["runtime_filters"][0]["keep"] == pytest.approx(0.5)
    assert f1["root"]["input"]["rows"] == 200 and f1["root"]["input"]["rows_read"] == 400
    assert f1["root"]["rows"] == 100
    assert f0["root"]["input"]["rows"] == 30 and f0["root"]["rows"] == 5
    assert f0["root"]["input"]["build"]["rows"] == 10
    strong = u.scale_filters(sc, 1.5)["queries"][0]["fragments"][1]["root"]
    assert strong["input"]["runtime_filters"][0]["keep"] == pytest.approx(0.125)
    assert strong["input"]["rows"] == 50 and strong["rows"] == 25
    assert sc["queries"][0]["fragments"][1]["root"]["rows"] == 50   # the input is never changed


def test_filter_walk_through_a_union_scales_by_the_input_share_and_stops_at_an_aggregate():
    p = plan()
    f1 = p["fragments"][1]
    other = {"op": "scan", "id": "o", "table": "u", "rows": 150, "rows_read": 150}
    f1["root"] = {"op": "union", "id": "un", "rows": 200, "inputs": [f1["root"], other]}
    parents, scans, senders = u._parents(p)
    scan = next(s for s in scans if s["id"] == "s")
    assert u.scale_filter_path(parents, senders, scan, "j", 2.0) is True
    # the select's 50 rows become 100; the union's 200 (of 50 + 150 in) become 250
    assert f1["root"]["inputs"][0]["rows"] == 100 and f1["root"]["rows"] == 250 and other["rows"] == 150
    p = plan()
    f1 = p["fragments"][1]
    f1["root"] = {"op": "aggregate", "id": "pre", "rows": 7, "input": f1["root"]}
    parents, scans, senders = u._parents(p)
    scan = next(s for s in scans if s["id"] == "s")
    assert u.scale_filter_path(parents, senders, scan, "j", 2.0) is False
    assert f1["root"]["rows"] == 7 and f1["root"]["input"]["rows"] == 100


def test_compression_and_cpu_variants():
    sc = {"queries": [dict(plan(), name="q", parallel=copy.deepcopy(plan()))],
          "exchange_defaults": {"compression_ratio": 0.5, "compress_ns_per_byte": 0.5},
          "costs": {"scan_ns_per_row": 10.0, "query_startup_s": 0.1, "codegen_s_per_fragment": 0.08}}
    more = u.scale_compression(sc, 1.2)
    assert more["queries"][0]["exchanges"][0]["compression_ratio"] == 1.0      # 0.9 x 1.2, capped at 1
    assert more["queries"][0]["parallel"]["exchanges"][0]["compression_ratio"] == 1.0
    assert more["exchange_defaults"]["compression_ratio"] == pytest.approx(0.6)
    cpu = u.scale_cpu(sc, 1.1)
    assert cpu["costs"]["scan_ns_per_row"] == pytest.approx(11.0)
    assert cpu["costs"]["query_startup_s"] == 0.1 and cpu["costs"]["codegen_s_per_fragment"] == 0.08
    assert sc["costs"]["scan_ns_per_row"] == 10.0
    # a query's own costs (an imported workload's) scale with them; its start-up does not
    sc["queries"][0]["costs"] = {"aggregate_ns_per_row": 20.0, "query_startup_s": 0.5}
    own = u.scale_cpu(sc, 1.1)["queries"][0]["costs"]
    assert own == {"aggregate_ns_per_row": pytest.approx(22.0), "query_startup_s": 0.5}
    assert sc["queries"][0]["costs"]["aggregate_ns_per_row"] == 20.0


def test_summarize_names_the_input_that_moves_a_prediction_most():
    nominal = {(c, m): (100.0, 80.0, -20.0) for c, _ in u.CONFIGS for m in u.MT_DOPS}
    wide = {(c, m): (100.0, 70.0, -30.0) for c, _ in u.CONFIGS for m in u.MT_DOPS}
    narrow = {(c, m): (100.0, 79.0, -21.0) for c, _ in u.CONFIGS for m in u.MT_DOPS}
    rows = u.summarize(nominal, {"a": [("lo", narrow)], "b": [("lo", wide)]})
    assert len(rows) == len(u.CONFIGS) * len(u.MT_DOPS)
    for r in rows:
        assert r["top"] == "b"
        assert r["low"] == pytest.approx(-20.0 - math.sqrt(1 + 100)) and r["high"] == -20.0
    md = u.markdown(rows, [])
    assert md.count("\n| K=2 |") == len(u.MT_DOPS)


@pytest.mark.skipif(not os.path.isfile(EXSIM), reason="build/exsim is not built")
def test_dry_run_lists_every_run_of_the_committed_workload(tmp_path):
    out = subprocess.run([sys.executable, os.path.join(REPO, "tools", "tpcds_uncertainty.py"), "--dry-run",
                          "--work", str(tmp_path)], capture_output=True, text=True, check=True).stdout
    # LZ4, second_thread_gain, the filters and the measured rows' sampling error have two ends, the NIC
    # one (nominal is its high end); cpu_scale's range comes from the nominal baseline's run and the
    # dispatch's from two probe runs of it, so with an empty cache both ends of each are one value, the
    # same runs
    scenarios = 1 + 2 + 1 + 1 + 2 + 1 + 2 + (2 if u.can_regenerate() else 0)
    n = len(u.MT_DOPS) * (1 + len(u.CONFIGS)) * scenarios + len(u.DISPATCH_PROBE)
    assert "%d runs, %d to run" % (n, n) in out
    assert "cpu_scale x1.00, K=2 mt_dop=8" in out
    assert "rpc_dispatch_us probe x1.25, K=1 mt_dop=0" in out


def test_an_example_exchanges_own_dispatch_is_where_its_line_meets_the_published_figure():
    # blocked = 0.01 s per us of dispatch: 2.5 s published is met at 250 us
    assert u.implied_dispatch([(100, 1.0), (200, 2.0), (300, 3.0)], 2.5) == pytest.approx(250.0)
    # least squares through noisy points: slope 0.01, mean (200, 2.0)
    assert u.implied_dispatch([(100, 1.1), (200, 1.8), (300, 3.1)], 2.0) == pytest.approx(200.0)
    assert u.implied_dispatch([(100, 1.0), (200, 1.0)], 2.0) is None    # does not grow with the dispatch
    assert u.implied_dispatch([(100, 1.0), (200, 2.0)], -5.0) == 0.0    # never below 0


def test_bad_arguments_are_named():
    r = subprocess.run([sys.executable, os.path.join(REPO, "tools", "tpcds_uncertainty.py"), "--jobs", "0"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "--jobs" in r.stderr
    r = subprocess.run([sys.executable, os.path.join(REPO, "tools", "tpcds_uncertainty.py"), "--exsim",
                        "/nonexistent/exsim"], capture_output=True, text=True)
    assert r.returncode == 2 and "/nonexistent/exsim" in r.stderr


def test_readme_block_is_replaced_between_its_markers_only(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("intro\n%s\nold\n%s\ntail\n" % (u.BEGIN, u.END))
    u.update_readme(readme, "| new |\n")
    assert readme.read_text() == "intro\n%s\n| new |\n%s\ntail\n" % (u.BEGIN, u.END)
    readme.write_text("no markers\n")
    with pytest.raises(ValueError, match="tpcds-uncertainty:begin"):
        u.update_readme(readme, "x\n")
    assert readme.read_text() == "no markers\n"


def test_union_counts_an_exchange_input_at_its_senders_rows():
    # F1's union reads the filtered select (50 rows) and exchange x2, whose sender F2 emits 150:
    # doubling the select's rows takes the union from 200 to 250, as with a local input of 150
    p = plan()
    f1 = p["fragments"][1]
    f1["root"] = {"op": "union", "id": "un", "rows": 200,
                  "inputs": [f1["root"], {"op": "exchange", "id": "e2", "exchange": "x2"}]}
    p["fragments"].append({"id": "F2", "root": {"op": "scan", "id": "o", "table": "u", "rows": 150},
                           "sink": {"exchange": "x2"}})
    parents, scans, senders = u._parents(p)
    scan = next(s for s in scans if s["id"] == "s")
    assert u.scale_filter_path(parents, senders, scan, "j", 2.0) is True
    assert f1["root"]["rows"] == 250


# --------------------------------------------------------------------------
# The tornado plot, drawn from the committed runs (docs/tpcds_uncertainty.csv)
# --------------------------------------------------------------------------

COMMITTED_RUNS = os.path.join(REPO, "docs", "tpcds_uncertainty.csv")


def committed_rows():
    return u.summarize(*u.runs_from_csv(COMMITTED_RUNS))


def test_tornado_panels_share_one_x_scale_that_holds_every_swing():
    rows = committed_rows()
    fig = u.tornado_figure(rows)
    axes = [ax for ax in fig.axes]
    assert len(axes) == len(u.CONFIGS) * len(u.MT_DOPS)
    lims = {ax.get_xlim() for ax in axes}
    assert len(lims) == 1, lims   # one scale: a 0.2-point swing never looks like a 3-point one
    lo, hi = lims.pop()
    for r in rows:
        assert lo < r["low"] <= r["high"] < hi
        for a, b in r["swings"].values():
            assert lo < a <= b < hi
    assert lo < 0.0 < hi   # "as fast as K=1" is on the scale
    # the same input on the same row of every panel
    assert all(axes[0].get_shared_y_axes().joined(axes[0], ax) for ax in axes)
    labels = {tuple(t.get_text() for t in ax.get_yticklabels()) for ax in axes[::len(u.CONFIGS)]}
    assert len(labels) == 1 and set(labels.pop()) == set(rows[0]["swings"])


def test_tornado_key_is_a_legend_and_no_title_is_clipped():
    fig = u.tornado_figure(committed_rows())
    assert len(fig._suptitle.get_text()) <= 100
    assert "blue" not in fig._suptitle.get_text() and "orange" not in fig._suptitle.get_text()
    assert len(fig.legends) == 1
    keys = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any("lowers" in k for k in keys) and any("raises" in k for k in keys) and "nominal" in keys
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    page = fig.bbox
    texts = [fig._suptitle, fig.legends[0]] + [ax.title for ax in fig.axes]
    for t in texts:
        box = t.get_window_extent(renderer)
        assert page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0 and box.y1 <= page.y1, t
    # the titles of neighbouring panels do not run into each other
    titles = sorted((ax.title.get_window_extent(renderer) for ax in fig.axes), key=lambda b: (round(b.y0), b.x0))
    for a, b in zip(titles, titles[1:]):
        if round(a.y0) == round(b.y0):
            assert a.x1 < b.x0
    plt.close(fig)


def test_runs_csv_read_back_gives_the_committed_nominal_predictions():
    nominal, by_input = u.runs_from_csv(COMMITTED_RUNS)
    with open(os.path.join(REPO, "docs", "tpcds_uncertainty.md"), encoding="utf-8") as f:
        table = [cells for cells in (line.split(" | ") for line in f)
                 if cells[0][2:] in [c for c, _ in u.CONFIGS] and cells[1] in [str(m) for m in u.MT_DOPS]]
    assert len(table) == len(u.CONFIGS) * len(u.MT_DOPS)
    for cells in table:
        name, mt, nom = cells[0][2:], int(cells[1]), float(cells[2].rstrip("%"))
        assert nominal[(name, mt)][2] == pytest.approx(nom, abs=0.05)
    assert len(by_input) == 7 and all(len(ends) in (1, 2) for ends in by_input.values())


def test_signed_change_has_no_negative_zero():
    assert [u.signed(v) for v in (-0.03, 0.04, -6.05, 21.397, 0.0)] == ["0.0", "0.0", "-6.0", "+21.4", "0.0"]


def test_replot_redraws_the_committed_figure_without_a_simulator(tmp_path):
    shutil.copy(COMMITTED_RUNS, tmp_path / "tpcds_uncertainty.csv")
    r = subprocess.run([sys.executable, os.path.join(REPO, "tools", "tpcds_uncertainty.py"), "--replot",
                        "--out", str(tmp_path), "--exsim", "/nonexistent/exsim"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    png = (tmp_path / "figures" / "tpcds_tornado.png").read_bytes()
    with open(os.path.join(REPO, "docs", "figures", "tpcds_tornado.png"), "rb") as f:
        assert png == f.read()   # the committed figure is what --replot draws from the committed runs
    assert sorted(p.name for p in tmp_path.iterdir()) == ["figures", "tpcds_uncertainty.csv"]
    r = subprocess.run([sys.executable, os.path.join(REPO, "tools", "tpcds_uncertainty.py"), "--replot",
                        "--out", str(tmp_path / "none")], capture_output=True, text=True)
    assert r.returncode == 2 and "tpcds_uncertainty.csv" in r.stderr
    h = subprocess.run([sys.executable, os.path.join(REPO, "tools", "tpcds_uncertainty.py"), "--help"],
                       capture_output=True, text=True).stdout
    assert "--replot" in h


# --------------------------------------------------------------------------
# Any workload (one imported from profiles)
# --------------------------------------------------------------------------

def imported(runtimes, **provenance):
    """A workload as profile import writes it: queries with their measured runtimes kept as `expected`."""
    return {"provenance": dict({"profile": "day/"}, **provenance), "flags": {"mt_dop": 4},
            "queries": [dict(plan(), name=n, expected={"runtime_s": t}) for n, t in runtimes.items()]}


def test_an_imported_workloads_cpu_range_is_the_runtime_the_model_does_not_reproduce():
    sc = imported({"a": 2.0, "b": 6.0})
    results = {"queries": [{"query": "a", "runtime_s": 4.0}, {"query": "b", "runtime_s": 6.0}]}
    r, how = u.runtime_residual(sc, results)
    assert r == pytest.approx(1 - 8.0 / 10.0)   # measured 8 s, simulated 10 s: +/-20%
    assert "measured 8.00 s, simulated 10.00 s" in how and "+/-20%" in how
    # a query the results do not have is left out of both sums
    r, _ = u.runtime_residual(sc, {"queries": [{"query": "a", "runtime_s": 1.5}]})
    assert r == pytest.approx(2.0 / 1.5 - 1)
    # a simulation that far off gives a CPU end no lower than a tenth of the measured costs
    r, how = u.runtime_residual(sc, {"queries": [{"query": "a", "runtime_s": 0.5}]})
    assert r == u.RESIDUAL_CAP and "(capped)" in how
    # a query profiled on another number of daemons is left out, as `exsim compare` leaves it out
    other = imported({"a": 2.0, "b": 6.0}, queries={"b": {"executors": {"0": "h0"}}})
    other["cluster"] = {"executors": 3}
    r, how = u.runtime_residual(other, results)
    assert r == pytest.approx(1 - 2.0 / 4.0) and "runtime of 1 queries" in how
    # re-placed or scaled, the measured runtimes were another setup's: no range
    for key in ("retargeted", "scaled_data"):
        r, how = u.runtime_residual(imported({"a": 2.0}, **{key: {}}), results)
        assert r is None and "another setup's" in how


def test_an_imported_workload_is_asked_its_own_inputs_at_its_own_mt_dop():
    sc = imported({"a": 2.0})
    assert not u.is_tpcds(sc) and u.is_tpcds({"provenance": {"generator": "tools/tpcds_workload.py (regenerate)"}})
    assert u.workload_mt_dops(sc) == (4, 8) and u.workload_mt_dops({"flags": {"mt_dop": 8}}) == (8,)
    names = [i.name for i in u.inputs({"queries": [{"query": "a", "runtime_s": 4.0}]}, sc)]
    # plan()'s scan has a runtime filter: its selectivity is an input; no TPC-DS evidence is
    assert names == ["operators' CPU per row", "second_thread_gain", "runtime-filter selectivity"]
    cpu = u.inputs({"queries": [{"query": "a", "runtime_s": 4.0}]}, sc)[0]
    assert [v for _, v in cpu.ends] == [pytest.approx(0.5), pytest.approx(1.5)]


def test_summaries_follow_the_mt_dops_of_the_runs():
    nominal = {(c, m): (100.0, 90.0, -10.0) for c, _ in u.CONFIGS for m in (4, 8)}
    rows = u.summarize(nominal, {})
    assert sorted({r["mt_dop"] for r in rows}) == [4, 8] and len(rows) == 2 * len(u.CONFIGS)
    fig = u.tornado_figure(rows, "day")
    assert fig._suptitle.get_text().startswith("day: ")
    assert sorted({ax.get_title().split("mt_dop=")[1].split("\n")[0] for ax in fig.axes if ax.get_title()}) == ["4",
                                                                                                                "8"]
    plt.close(fig)
