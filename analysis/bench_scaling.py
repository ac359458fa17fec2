#!/usr/bin/python3
"""Plot simulated RPCs per wall second against executors, one line per network model.

Reads the CSV scripts/bench.sh writes (executors, network_model, rpcs, wall_s,
rpcs_per_wall_s, peak_rss_mib) and writes a PNG:

    analysis/bench_scaling.py out/bench_scaling.csv out/bench_scaling.png
    analysis/bench_scaling.py --replot    # docs/speed.md's figure again, from its committed data

The figure of docs/speed.md is drawn from docs/figures/bench_scaling.csv: the run of its scaling
table (its wall times and rates; peak RSS was not kept per model), so that it can be redrawn
without running the benchmark again.
"""

import argparse
import csv
import sys
from pathlib import Path

if not __package__:  # run as a script: the repository root on sys.path, as for every entry point
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import atomic  # noqa: E402
from common.figures import place_labels, png_bytes  # noqa: E402

FIGURES = Path(__file__).resolve().parents[1] / "docs" / "figures"
COMMITTED_CSV = FIGURES / "bench_scaling.csv"
COMMITTED_PNG = FIGURES / "bench_scaling.png"
MODEL_LABELS = {"exsim": "exsim's network model (exact)", "approx": "exsim's approximation (approx)",
                "simgrid": "SimGrid CM02 (reference)"}  # legend order, then any other model by name


def read(path):
    series = {}
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            series.setdefault(row["network_model"], []).append(
                (int(row["executors"]), float(row["rpcs_per_wall_s"]), float(row["wall_s"])))
    for points in series.values():
        points.sort()
    return series


def wall_text(seconds):
    """Two significant digits below 10 s, whole seconds above: 0.25 s, 7.3 s, 385 s."""
    return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s" if seconds >= 1 else f"{seconds:.2f} s"


def figure(series):
    """The plot as a matplotlib figure: one line per model, every point labelled with its wall time
    in the line's colour, the labels placed where they overlap nothing."""
    import matplotlib  # here, not at the top: reading the CSV needs no matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    fig, ax = plt.subplots(figsize=(8.0, 5.0))
    order = [m for m in MODEL_LABELS if m in series] + sorted(m for m in series if m not in MODEL_LABELS)
    drawn = []
    for model in order:
        points = series[model]
        (line,) = ax.plot([p[0] for p in points], [p[1] for p in points], marker="o",
                          label=MODEL_LABELS.get(model, model))
        drawn.append((points, line.get_color()))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("executors (one hash exchange, mt_dop=8, 4M rows per executor)")
    ax.set_ylabel("simulated RPCs per wall second")
    ticks = sorted({p[0] for points in series.values() for p in points})
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(t) for t in ticks])
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.margins(x=0.08, y=0.15)  # room for the labels inside the axes
    ax.grid(True, which="both", alpha=0.3)
    legend = ax.legend(loc="lower left", fontsize="small")
    ax.set_title("Simulation speed against cluster size (labels: wall time of the run)", fontsize=10)
    fig.tight_layout()
    fig.canvas.draw()
    xy = [(x, y) for points, _ in drawn for x, y, _ in points]
    place_labels(ax, xy, [wall_text(w) for points, _ in drawn for _, _, w in points],
                 colors=[color for points, color in drawn for _ in points],
                 lines=[[(x, y) for x, y, _ in points] for points, _ in drawn],
                 avoid=[legend.get_window_extent()], fontsize=8)
    return fig


def plot(series, out):
    atomic.write_bytes(out, png_bytes(figure(series), dpi=120))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="?", help="the CSV scripts/bench.sh wrote")
    ap.add_argument("png", nargs="?", help="the PNG to write")
    ap.add_argument("--replot", action="store_true",
                    help=f"redraw {COMMITTED_PNG.relative_to(FIGURES.parents[1])} from "
                         f"{COMMITTED_CSV.relative_to(FIGURES.parents[1])}")
    args = ap.parse_args(argv)
    if args.replot:
        if args.csv or args.png:
            ap.error("--replot reads and writes the committed files: no CSV or PNG argument")
        args.csv, args.png = COMMITTED_CSV, COMMITTED_PNG
    elif not (args.csv and args.png):
        ap.error("expected CSV and PNG (or --replot)")
    try:
        series = read(args.csv)
    except (OSError, KeyError, ValueError) as e:
        print(f"bench_scaling: {args.csv}: {e}", file=sys.stderr)
        return 2
    if not series:
        print(f"bench_scaling: {args.csv}: no rows", file=sys.stderr)
        return 2
    plot(series, args.png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
