"""analysis/bench_scaling.py: the scaling CSV becomes a plot; bad input is an error."""

import matplotlib.pyplot as plt
import pytest
from matplotlib.text import Text

from analysis import bench_scaling
from common.figures import crossing_leaders, overlapping_labels


def test_plot_and_bad_input(tmp_path, capsys):
    csv = tmp_path / "s.csv"
    csv.write_text("executors,network_model,rpcs,wall_s,rpcs_per_wall_s,peak_rss_mib\n"
                   "5,exsim,60995,0.22,276600,34\n10,exsim,127505,0.73,174821,36\n"
                   "5,simgrid,60995,0.36,168816,34\n")
    png = tmp_path / "s.png"
    assert bench_scaling.main([str(csv), str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    series = bench_scaling.read(csv)
    assert [p[0] for p in series["exsim"]] == [5, 10]
    bad = tmp_path / "bad.csv"
    bad.write_text("executors,model\n5,exsim\n")
    assert bench_scaling.main([str(bad), str(png)]) == 2
    assert "bad.csv" in capsys.readouterr().err


def test_committed_figure_labels_every_point_without_overlaps():
    """The figure of docs/speed.md, from its committed data: the exact model and its approximation nearly
    coincide at 5 and 40 executors, where the wall-time labels used to be drawn over each other."""
    series = bench_scaling.read(bench_scaling.COMMITTED_CSV)
    fig = bench_scaling.figure(series)
    ax = fig.axes[0]
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    expected = sorted(bench_scaling.wall_text(w) for points in series.values() for _, _, w in points)
    assert sorted(t.get_text() for t in ax.texts) == expected  # every point has its label
    assert overlapping_labels(ax) == []
    assert crossing_leaders(ax) == []
    frame = ax.get_window_extent(renderer)
    legend = ax.get_legend().get_window_extent(renderer)
    for t in ax.texts:
        box = Text.get_window_extent(t, renderer)
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1, t.get_text()
        assert not box.overlaps(legend), t.get_text()
    plt.close(fig)


def test_wall_times_keep_two_significant_digits():
    assert [bench_scaling.wall_text(s) for s in (0.25, 0.26, 1.92, 7.31, 44.8, 385)] == \
        ["0.25 s", "0.26 s", "1.9 s", "7.3 s", "45 s", "385 s"]


def test_replot_takes_no_paths(capsys):
    with pytest.raises(SystemExit):
        bench_scaling.main(["--replot", "x.csv", "x.png"])
    with pytest.raises(SystemExit):
        bench_scaling.main(["x.csv"])
    assert "expected CSV and PNG" in capsys.readouterr().err
