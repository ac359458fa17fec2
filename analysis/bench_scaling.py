#!/usr/bin/python3
"""Plot simulated RPCs per wall second against executors, one line per network model.

Reads the CSV scripts/bench.sh writes (executors, network_model, rpcs, wall_s,
rpcs_per_wall_s, peak_rss_mib) and writes a PNG:

    analysis/bench_scaling.py out/bench_scaling.csv docs/figures/bench_scaling.png
"""

import argparse
import csv
import sys
from pathlib import Path

if not __package__:  # run as a script: the repository root on sys.path, as for every entry point
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import atomic  # noqa: E402
from common.figures import png_bytes  # noqa: E402


def read(path):
    series = {}
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            series.setdefault(row["network_model"], []).append(
                (int(row["executors"]), float(row["rpcs_per_wall_s"]), float(row["wall_s"])))
    for points in series.values():
        points.sort()
    return series


def plot(series, out):
    import matplotlib  # here, not at the top: reading the CSV needs no matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    labels = {"exsim": "exsim's network model (exact)", "approx": "exsim's approximation (approx)",
              "simgrid": "SimGrid CM02 (reference)"}
    for model, points in sorted(series.items()):
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        ax.plot(xs, ys, marker="o", label=labels.get(model, model))
        for x, y, wall in points:
            ax.annotate(f"{wall:.0f} s" if wall >= 10 else f"{wall:.1f} s", (x, y), textcoords="offset points",
                        xytext=(4, 4), fontsize=7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("executors (one hash exchange, mt_dop=8, 4M rows per executor)")
    ax.set_ylabel("simulated RPCs per wall second")
    ticks = sorted({p[0] for points in series.values() for p in points})
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(t) for t in ticks])
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    ax.set_title("Simulation speed against cluster size (labels: wall time)", fontsize=9)
    fig.tight_layout()
    atomic.write_bytes(out, png_bytes(fig, dpi=120))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("png")
    args = ap.parse_args(argv)
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
