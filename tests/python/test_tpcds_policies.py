"""tools/tpcds/policies.py: its figures and table against values computed here by hand; the
committed table, the block of docs/window_policies.md and plot against what --replot makes of the committed runs."""

import json
import os
import shutil
import subprocess
import sys

import matplotlib.pyplot as plt
import pytest
from conftest import REPO

from tools.tpcds import policies


def exchange(query, estimate, held, window=None):
    x = {"query": query, "memory_estimate_bytes": estimate, "peak_sender_bytes": held}
    if window:
        x["k_window"] = window
    return x


def test_figures_take_the_largest_query_and_the_mean_k_over_adaptive_exchanges():
    results = {"summary": {"runtime_s_total": 12.5, "queries": 2},
               "exchanges": [exchange("q1", 10, 4, {"k_mean": 2.0, "k_max": 4}), exchange("q1", 20, 5),
                             exchange("q2", 25, 8, {"k_mean": 5.0, "k_max": 8})]}
    f = policies.figures(results)
    # q1: 30 estimated, 9 held; q2: 25 and 8.
    assert f == {"runtime_s": 12.5, "memory_estimate_bytes": 30, "held_peak_bytes": 9, "k_mean": 3.5, "k_max": 8,
                 "queries": 2}
    assert policies.figures({"summary": {"runtime_s_total": 1.0, "queries": 1},
                             "exchanges": [exchange("q", 1, 1)]})["k_mean"] is None


def test_rows_compare_each_configuration_with_the_best_fixed_k_and_with_k2():
    def fig(runtime, k_mean=None):
        return {"runtime_s": runtime, "memory_estimate_bytes": 1 << 20, "held_peak_bytes": 1 << 20,
                "k_mean": k_mean, "k_max": 8 if k_mean else None}
    by = {"K=1": fig(200.0), "K=2": fig(150.0), "K=4": fig(120.0), "K=8": fig(120.0),
          "bdp": fig(126.0, 3.0), "gradient": fig(114.0, 4.5)}
    rows = policies.rows_of({(0, 390): by})
    cells = {r[2]: r for r in rows}
    assert cells["K=4"][-1] == "best fixed"  # a tie goes to the smaller K
    assert cells["K=8"][-1] == ""
    assert cells["bdp 1..8"][4:6] == ["+5.0%", "-16.0%"]
    assert cells["gradient 1..8"][4:6] == ["-5.0%", "-24.0%"]
    assert cells["gradient 1..8"][8] == "4.50 / 8"


DOCS = os.path.join(REPO, "docs")
COMMITTED_RUNS = os.path.join(DOCS, "tpcds_window_policies.csv")


def workload_queries():
    with open(os.path.join(REPO, "scenarios", "tpcds_sf100", "workload.json"), encoding="utf-8") as f:
        return len(json.load(f)["queries"])


def hand_points(queries=7):
    """Every configuration at every point, runtimes 100 + K (policies 101), the given query count."""
    def fig(runtime, k_mean=None):
        return {"runtime_s": runtime, "memory_estimate_bytes": 3 << 20, "held_peak_bytes": 1 << 20,
                "k_mean": k_mean, "k_max": 8 if k_mean else None, "queries": queries}
    return {(mt, rtt): dict([("K=%d" % k, fig(100.0 + k)) for k in policies.FIXED_KS]
                            + [(p, fig(101.0, 2.5)) for p in policies.POLICIES])
            for mt in policies.MT_DOPS for rtt in policies.RTTS_US}


def test_table_header_and_y_label_count_the_queries_of_the_runs():
    points = hand_points(queries=7)
    assert "| runtime s (7 queries) |" in policies.markdown(points).splitlines()[0]
    fig = policies.plot_figure(points)
    assert fig.axes[0].get_ylabel() == "runtime, sum of the 7 queries (s)"
    plt.close(fig)
    points[(0, 50)]["K=1"]["queries"] = 6   # runs of two workloads: no count to print
    with pytest.raises(ValueError, match="number of queries"):
        policies.markdown(points)


def test_runs_csv_reads_back_as_the_points_it_was_written_from(tmp_path):
    points = hand_points()
    path = tmp_path / "runs.csv"
    path.write_text(policies.runs_csv(points))
    assert policies.points_from_csv(str(path)) == points
    # a CSV from before the queries column takes the count it is given, and refuses without one
    lines = path.read_text().splitlines()
    path.write_text("\n".join(line.rsplit(",", 1)[0] for line in lines) + "\n")
    assert policies.query_count(policies.points_from_csv(str(path), 104)) == 104
    with pytest.raises(ValueError, match="no queries column"):
        policies.points_from_csv(str(path))
    path.write_text("\n".join(lines[:-1]) + "\n")   # the last point lacks its last configuration
    with pytest.raises(ValueError, match="has no gradient"):
        policies.points_from_csv(str(path))


def test_plot_panels_share_one_runtime_scale_from_zero_and_name_k_on_the_memory_axis():
    points = policies.points_from_csv(COMMITTED_RUNS, workload_queries())
    fig = policies.plot_figure(points)
    a, b = fig.axes[:len(policies.MT_DOPS)]
    assert a.get_ylim() == b.get_ylim() and a.get_ylim()[0] == 0
    for ax in (a, b):
        labels = [t.get_text() for t in ax.get_xticklabels()]
        assert [lab.split("\n")[1] for lab in labels] == ["K=%d" % k for k in policies.FIXED_KS]
        assert not ax.get_xticklabels(minor=True)   # no 2x10^2 between them
    fig.canvas.draw()
    page, renderer = fig.bbox, fig.canvas.get_renderer()
    for t in [fig._suptitle, fig.legends[0]] + [ax.title for ax in fig.axes]:
        box = t.get_window_extent(renderer)
        assert page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0 and box.y1 <= page.y1
    plt.close(fig)


def test_committed_table_and_readme_count_the_workload_queries():
    n = workload_queries()
    with open(os.path.join(DOCS, "tpcds_window_policies.md"), encoding="utf-8") as f:
        md = f.read()
    with open(os.path.join(DOCS, "window_policies.md"), encoding="utf-8") as f:
        readme = f.read()
    block = readme.split("<!-- %s:begin -->" % policies.BLOCK)[1].split("<!-- %s:end -->" % policies.BLOCK)[0]
    for text in (md, block):
        assert "| runtime s (%d queries) |" % n in text
        assert "99 queries" not in text


def test_replot_writes_the_committed_table_block_and_plot_from_the_committed_runs(tmp_path):
    shutil.copy(COMMITTED_RUNS, tmp_path / "tpcds_window_policies.csv")
    readme = tmp_path / "README.md"
    readme.write_text("intro\n<!-- %s:begin -->\nold\n<!-- %s:end -->\nrest\n" % (policies.BLOCK, policies.BLOCK))
    tool = os.path.join(REPO, "tools", "tpcds_policies.py")
    r = subprocess.run([sys.executable, tool, "--replot", "--out", str(tmp_path), "--readme", str(readme),
                        "--exsim", "/nonexistent/exsim"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for name in ("tpcds_window_policies.md", os.path.join("figures", "tpcds_window_policies.png"),
                 "tpcds_window_policies.csv"):
        with open(os.path.join(DOCS, name), "rb") as f:
            assert (tmp_path / name).read_bytes() == f.read(), name
    table = (tmp_path / "tpcds_window_policies.md").read_text().split("\n\n", 2)[2]
    assert readme.read_text() == "intro\n<!-- %s:begin -->\n%s\n<!-- %s:end -->\nrest\n" % (
        policies.BLOCK, table, policies.BLOCK)
    r = subprocess.run([sys.executable, tool, "--replot", "--out", str(tmp_path / "none"), "--readme", ""],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "tpcds_window_policies.csv" in r.stderr
    assert "--replot" in subprocess.run([sys.executable, tool, "--help"], capture_output=True, text=True).stdout
