"""analysis/predictions.py: table, CSV, CDF plot and a page's block from sweep directories of one workload
(the TPC-DS predictions of docs/tpcds.md are one use: --name tpcds).

Runs on the shared 2x2 smoke sweep of the example scenario (K 1,2 x buffer 16, 128 KiB): the
script only needs finished points whose overrides are among the table's configuration keys.
"""

import csv
import subprocess
import json
import math

import matplotlib.pyplot as plt
from matplotlib.text import Text
from conftest import REPO, read_manifest, run_script

from analysis import predictions as tp
from tools.tpcds import uncertainty as u


def summaries(sweep_dir):
    out = {}
    for entry in read_manifest(sweep_dir)["points"]:
        doc = json.loads((sweep_dir / entry["file"]).read_text())
        out[(entry["overrides"]["rpcs_in_flight_per_channel"],
             entry["overrides"]["data_stream_sender_buffer_size"])] = doc
    return out


def test_table_csv_and_plot_match_the_sweep(smoke_sweep, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("intro\n<!-- tpcds-predictions:begin -->\nold\n<!-- tpcds-predictions:end -->\nrest\n")
    proc = run_script("analysis/predictions.py", smoke_sweep, "--out", tmp_path / "docs", "--name", "tpcds",
                      "--page", readme)
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "docs" / "tpcds_predictions.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    docs = summaries(smoke_sweep)
    assert len(rows) == len(docs) == 4
    for r in rows:
        s = docs[(r["K"], str(int(r["buffer_kib"]) * 1024))]["summary"]
        assert float(r["runtime_s"]) == s["runtime_s_total"]
        assert float(r["blocked_nonpushback_hash_s"]) == s["nonpushback_slowest_sender_blocked_s_total"]
        # The change against K=1 at the same buffer: (K runtime - K=1 runtime) / K=1 runtime.
        k1 = docs[("1", str(int(r["buffer_kib"]) * 1024))]["summary"]["runtime_s_total"]
        assert abs(float(r["runtime_vs_k1_pct"]) - 100 * (s["runtime_s_total"] - k1) / k1) < 1e-9
    png = (tmp_path / "docs" / "figures" / "tpcds_blocked_cdf.png").read_bytes()
    assert png.startswith(b"\x89PNG")
    text = readme.read_text()
    assert "old" not in text and text.startswith("intro\n") and text.endswith("rest\n")
    # Each configuration once in the table and once in the breakdown table below it.
    table, breakdown = text.split("Where the time goes")
    assert table.count("| 0 | 2 | 128 | on | pipelined | 390 |") == 1
    assert breakdown.count("| 0 | 2 | 128 | on | pipelined | 390 |") == 1


def test_missing_readme_block_fails_clearly_and_leaves_the_file(smoke_sweep, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("no block here\n")
    proc = run_script("analysis/predictions.py", smoke_sweep, "--out", tmp_path, "--name", "tpcds", "--readme", readme)
    assert proc.returncode == 2 and "no <!-- tpcds-predictions:begin -->" in proc.stderr
    assert readme.read_text() == "no block here\n"


def test_a_grid_key_the_table_has_no_column_for_is_an_error(exsim, scenario, tmp_path):
    sweep = tmp_path / "sweep"
    proc = run_script("run_sweep.py", scenario, "--grid", "batch_size=512", "--exsim", exsim, "--out", sweep)
    assert proc.returncode == 0, proc.stderr
    proc = run_script("analysis/predictions.py", sweep, "--out", tmp_path / "docs", "--name", "tpcds")
    assert proc.returncode == 2 and "'batch_size' is not one this table knows" in proc.stderr
    assert not (tmp_path / "docs").exists()


def test_empty_sweep_dir_is_an_error(tmp_path):
    empty = tmp_path / "sweep"
    empty.mkdir()
    proc = run_script("analysis/predictions.py", empty, "--out", tmp_path)
    assert proc.returncode == 2 and "predictions: " in proc.stderr and "not a sweep directory" in proc.stderr


def k_sweep(exsim, tmp_path, doc, name):
    """The sweep of scenario `doc` (written as NAME.json) over K=1,2, in tmp_path/NAME_k."""
    scenario = tmp_path / (name + ".json")
    scenario.write_text(json.dumps(doc))
    sweep = tmp_path / (name + "_k")
    proc = run_script("run_sweep.py", scenario, "--grid", "rpcs_in_flight_per_channel=1,2", "--exsim", exsim,
                      "--out", sweep)
    assert proc.returncode == 0, proc.stderr
    return sweep


def test_per_query_runtimes_and_their_geometric_mean(exsim, tmp_path):
    # Three whole-query examples in one scenario, swept at K=1 and K=2.
    ex = REPO / "scenarios" / "examples"
    doc = json.loads((ex / "query_partitioned_join.json").read_text())
    for name in ("query_aggregation.json", "query_broadcast_join.json"):
        doc["queries"] += json.loads((ex / name).read_text())["queries"]
    doc["query_order"] = "sequential"
    sweep = k_sweep(exsim, tmp_path, doc, "three_queries")
    proc = run_script("analysis/predictions.py", sweep, "--out", tmp_path / "docs", "--name", "tpcds")
    assert proc.returncode == 0, proc.stderr
    runs = {}
    for entry in read_manifest(sweep)["points"]:
        result = json.loads((sweep / entry["file"]).read_text())
        runs[entry["overrides"]["rpcs_in_flight_per_channel"]] = {q["query"]: q["runtime_s"] for q in result["queries"]}
    k1, k2 = runs["1"], runs["2"]
    assert len(k1) == 3
    # Per query: runtime at K=1 and K=2 and their ratio; the last row the geometric mean of the ratios, which the
    # table's K=2 row repeats (every query weighs the same).
    with open(tmp_path / "docs" / "tpcds_predictions_per_query.csv", newline="") as f:
        per_query = list(csv.DictReader(f))
    assert [r["query"] for r in per_query[:-1]] == list(k1) and per_query[-1]["query"] == "geomean"
    for r in per_query[:-1]:
        assert float(r["mt0_k1_s"]) == k1[r["query"]] and float(r["mt0_k2_s"]) == k2[r["query"]]
        assert abs(float(r["mt0_k2_ratio"]) - k2[r["query"]] / k1[r["query"]]) < 1e-12
    expected = math.exp(sum(math.log(k2[q] / k1[q]) for q in k1) / len(k1))
    print("geomean K=2/K=1: expected %.6f, table %s" % (expected, per_query[-1]["mt0_k2_ratio"]))
    assert abs(float(per_query[-1]["mt0_k2_ratio"]) - expected) < 1e-12
    with open(tmp_path / "docs" / "tpcds_predictions.csv", newline="") as f:
        row = next(r for r in csv.DictReader(f) if r["K"] == "2")
    assert abs(float(row["geomean_ratio_vs_baseline"]) - expected) < 1e-12


def test_the_baseline_is_the_workloads_own_settings(exsim, tmp_path):
    """A workload whose file sets a 64 KiB buffer and a 200 us round trip: its K=1 point is the baseline
    (0% against itself), K=2's change is against it, and the files take the scenario's name."""
    doc = json.loads((REPO / "scenarios" / "examples" / "query_partitioned_join.json").read_text())
    doc["name"] = "our_day"
    doc.setdefault("flags", {})["data_stream_sender_buffer_size"] = 65536
    doc.setdefault("cluster", {})["rtt_us"] = 200
    sweep = k_sweep(exsim, tmp_path, doc, "our_day")
    proc = run_script("analysis/predictions.py", sweep, "--out", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "out" / "our_day_predictions.csv", newline="") as f:
        rows = {r["K"]: r for r in csv.DictReader(f)}
    assert {r["buffer_kib"] for r in rows.values()} == {"64"} and {r["rtt_us"] for r in rows.values()} == {"200.0"}
    assert float(rows["1"]["runtime_vs_baseline_pct"]) == 0.0
    k1, k2 = float(rows["1"]["runtime_s"]), float(rows["2"]["runtime_s"])
    assert abs(float(rows["2"]["runtime_vs_baseline_pct"]) - 100 * (k2 - k1) / k1) < 1e-9
    assert (tmp_path / "out" / "figures" / "our_day_predictions.png").read_bytes().startswith(b"\x89PNG")
    assert "# our_day predictions" in (tmp_path / "out" / "our_day_predictions.md").read_text()


# --------------------------------------------------------------------------
# The predictions plot (runtime against memory, the intervals as bars), on configurations made from
# the committed table (docs/tpcds_predictions.csv) and the committed intervals
# --------------------------------------------------------------------------

MIB = 1 << 20
QUERIES = 104


def committed_configs():
    """{configuration: result} with the committed table's runtime and peak-query memory estimate
    per configuration, the runtime spread evenly over QUERIES queries."""
    configs = {}
    with open(REPO / "docs" / "tpcds_predictions.csv", newline="") as f:
        for r in csv.DictReader(f):
            cfg = dict(tp.baseline(), mt_dop=r["mt_dop"], rpcs_in_flight_per_channel=r["K"],
                       data_stream_sender_buffer_size=str(int(r["buffer_kib"]) * 1024),
                       compression="true" if r["lz4"] == "on" else "false", eos_flush=r["eos_flush"],
                       **{"cluster.rtt_us": "%g" % float(r["rtt_us"])})
            t = float(r["runtime_s"])
            configs[tuple(sorted(cfg.items()))] = {
                "summary": {"runtime_s_total": t, "nonpushback_slowest_sender_blocked_s_total": 0.0,
                            "slowest_sender_blocked_s_total": 0.0, "hash_rpcs": 0, "nonpushback_hash_exchanges": 0},
                "exchanges": [{"query": "q0", "memory_estimate_bytes": float(r["memory_peak_query_mib"]) * MIB}],
                "queries": [{"query": "q%d" % i, "runtime_s": t / QUERIES} for i in range(QUERIES)]}
    return configs


def committed_figure():
    configs = committed_configs()
    rows = tp.rows_of(configs)
    intervals, left = tp.intervals_of(REPO / "docs" / "tpcds_uncertainty.csv", configs)
    return rows, intervals, tp.predictions_figure(rows, intervals)


def panel_base(rows, mt):
    return next(r["runtime_s"] for r in rows if r["mt_dop"] == mt and not tp._differs(r))


def test_intervals_are_the_uncertainty_tools_applied_to_the_sweeps_k1_runtime(exsim, tmp_path):
    configs = committed_configs()
    intervals, left = tp.intervals_of(REPO / "docs" / "tpcds_uncertainty.csv", configs)
    assert left == []
    rows = {(r["prediction"], r["mt_dop"]): r for r in u.summarize(*u.runs_from_csv(REPO / "docs" /
                                                                                    "tpcds_uncertainty.csv"))}
    k2 = tuple(sorted(dict(tp.baseline(), rpcs_in_flight_per_channel="2").items()))
    base = configs[tuple(sorted(tp.baseline().items()))]["summary"]["runtime_s_total"]
    lo, hi, name = intervals[k2]
    assert name == "K=2" and lo == base * (1 + rows[("K=2", 0)]["low"] / 100) and hi > configs[k2]["summary"][
        "runtime_s_total"] > lo
    # 64 KiB at mt_dop=8 was not swept: no bar; the two configurations with an interval at both mt_dop have two
    assert sum(1 for v in intervals.values() if v[2] == "64 KiB") == 1 and len(intervals) == 5
    # intervals whose K=1 run is not the sweeps' (another workload or simulator) are left out, said why
    text = (REPO / "docs" / "tpcds_uncertainty.csv").read_text()
    assert "%.3f," % base in text
    text = text.replace("%.3f," % base, "370.000,")
    other = tmp_path / "runs.csv"
    other.write_text(text)
    intervals, left = tp.intervals_of(other, configs)
    assert all(not cfg_has_mt(k, "0") for k in intervals) and len(left) == len(u.CONFIGS)
    assert "370.000 s, the sweeps' %.3f s" % base in left[0]


def cfg_has_mt(key, mt):
    return dict(key)["mt_dop"] == mt


def test_predictions_plot_panels_show_the_same_span_of_change_from_above_zero(exsim):
    rows, intervals, fig = committed_figure()
    panels = [ax for ax in fig.axes if ax.get_title().startswith("mt_dop=")]
    assert [ax.get_title() for ax in panels] == ["mt_dop=0", "mt_dop=8"]
    spans = []
    for ax, mt in zip(panels, (0, 8)):
        b = panel_base(rows, mt)
        y0, y1 = ax.get_ylim()
        assert y0 >= 0
        spans.append((round(100 * (y0 / b - 1), 6), round(100 * (y1 / b - 1), 6)))
        assert ax.get_ylabel() == "runtime, sum of the %d queries (s)" % QUERIES
    assert spans[0] == spans[1]   # a 1% change is as tall in both panels
    # every bar inside its panel: the +21% of no LZ4 at mt_dop=8 is not cut off
    for (key, (lo, hi, _)) in intervals.items():
        ax = panels[int(dict(key)["mt_dop"]) // 8]
        assert ax.get_ylim()[0] < lo < hi < ax.get_ylim()[1]
    plt.close(fig)


def test_predictions_plot_labels_every_configuration_once_without_overlap(exsim):
    rows, intervals, fig = committed_figure()
    panels = [ax for ax in fig.axes if ax.get_title().startswith("mt_dop=")]
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax, mt in zip(panels, (0, 8)):
        wanted = sorted(tp._label(r) for r in rows if r["mt_dop"] == mt
                        and r["eos_flush"] == "pipelined" and r["rtt_us"] == 390)
        notes = [t for t in ax.texts]
        assert sorted(t.get_text() for t in notes) == wanted   # the serial end of stream and 50 us are not drawn
        # what the eye sees: each label's text, and the leader line of one drawn away from its point
        boxes = [Text.get_window_extent(t, renderer) for t in notes]
        leaders = [t.arrow_patch.get_window_extent(renderer) if t.arrow_patch is not None else None for t in notes]
        for i, a in enumerate(boxes):
            assert ax.bbox.x0 <= a.x0 and a.x1 <= ax.bbox.x1, notes[i].get_text()   # inside its panel
            for j, b in enumerate(boxes):
                if j != i:
                    assert not (j < i and a.overlaps(b)), (notes[i].get_text(), notes[j].get_text())
                    assert leaders[j] is None or not a.overlaps(leaders[j]), (notes[i].get_text(), "leader of",
                                                                              notes[j].get_text())
        # the bars: one per configuration with an interval at this mt_dop
        bars = [c for c in ax.collections if c.__class__.__name__ == "LineCollection"]
        assert len(bars) == sum(1 for k in intervals if cfg_has_mt(k, str(mt)))
    assert "K=2, 128 KiB, no LZ4" in [t.get_text() for t in panels[1].texts]
    plt.close(fig)


def test_a_workload_nothing_moves_is_drawn_flat_with_one_label_a_point(exsim):
    """Every configuration at the same runtime and memory (a workload K does not touch): each series'
    points, drawn on one another, carry one label that names them all, and the runtime axis spans at
    least MIN_SPAN_PCT around the baseline instead of magnifying nothing."""
    rows = tp.rows_of(committed_configs())
    for r in rows:
        r["runtime_s"], r["memory_peak_query_mib"] = 100.0, 384.0
    fig = tp.predictions_figure(rows, {})
    panels = [ax for ax in fig.axes if ax.get_title().startswith("mt_dop=")]
    for ax in panels:
        texts = [t.get_text() for t in ax.texts]
        assert "K=1; K=2; K=3; K=4" in texts
        assert len(texts) == len(set(texts)) <= len(tp.SERIES)
        lo, hi = ax.get_ylim()
        assert 100 * (hi - lo) / 100.0 >= tp.MIN_SPAN_PCT - 1e-9
    plt.close(fig)


def test_table_header_counts_the_queries_of_the_sweeps(exsim):
    configs = committed_configs()
    for result in configs.values():
        del result["queries"][3:]   # three queries: the header says so, not a fixed 104
    head = tp.markdown(tp.rows_of(configs)).splitlines()[0]
    assert "| runtime, sum of 3 queries (s) |" in head
    del next(iter(configs.values()))["queries"][2:]   # sweeps of different workloads: no count
    try:
        tp.markdown(tp.rows_of(configs))
    except ValueError as e:
        assert "different numbers of queries" in str(e)
    else:
        raise AssertionError("a table of sweeps with different query counts was written")


def test_the_predictions_script_names_what_it_expects(tmp_path):
    script = str(REPO / "scripts" / "predictions.sh")
    proc = subprocess.run([script], capture_output=True, text=True)
    assert proc.returncode == 2 and "usage: scripts/predictions.sh WORKLOAD [NAME]" in proc.stderr
    proc = subprocess.run([script, str(tmp_path / "none.json")], capture_output=True, text=True)
    assert proc.returncode == 2 and "none.json: no such file" in proc.stderr


def test_a_crowd_of_nearly_equal_points_is_labelled_without_overlap(exsim):
    """A workload K and the buffer move by hundredths of a percent: the points lie within a marker of
    one another on the 2% span, so each series' crowd carries one joined label, and every label is
    placed where it covers no other (common.figures.place_labels)."""
    rows = tp.rows_of(committed_configs())
    for i, r in enumerate(rows):
        r["runtime_s"], r["memory_peak_query_mib"] = 100.0 + 0.01 * (i % 5), 384.0
    fig = tp.predictions_figure(rows, {})
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in [ax for ax in fig.axes if ax.get_title().startswith("mt_dop=")]:
        texts = [t.get_text() for t in ax.texts]
        assert "K=1; K=2; K=3; K=4" in texts and len(texts) <= 5
        boxes = [t.get_window_extent(renderer) for t in ax.texts]
        assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[:i]), texts
    plt.close(fig)
