"""Adaptive in-flight windows on the TPC-DS workload: each policy against the best fixed K.

At mt_dop 0 and 8 and round trips of 50, 390 and 1,000 us, the workload runs with fixed K = 1, 2,
4 and 8 and with the adaptive policies (bdp and gradient, starting at K=1, capped at K_max = 8).
For each point the table gives each policy's total runtime against the best fixed K there and
against K=2 (what a user would pick without sweeping), the largest per-query sender memory estimate
(K_max + 1 batches per channel under an adaptive policy) and the largest per-query sum of the
bytes the senders actually held at their peaks. Runs are cached by scenario, overrides and binary
(build/policies), so an interrupted run resumes. Predictions of the model, not measurements.

    tools/tpcds_policies.py                 # 36 workload runs (about 25 min here), then the outputs
    tools/tpcds_policies.py --dry-run       # what would run, and what is cached
    tools/tpcds_policies.py --replot        # the table, page block and plot again from
                                            # docs/tpcds_window_policies.csv; simulates nothing
"""

import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.lines  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

from common import atomic, exsim_runner  # noqa: E402
from common.figures import png_bytes  # noqa: E402
from common.tables import csv_text, markdown_table, replace_block_in_file  # noqa: E402
from tools.tpcds import calibrate  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MT_DOPS = (0, 8)
RTTS_US = (50, 390, 1000)
FIXED_KS = (1, 2, 4, 8)
POLICIES = ("bdp", "gradient")
K_MAX = 8
USER_K = 2  # the K a user would pick without sweeping
BLOCK = "tpcds-window-policies"
MIB = 1 << 20


def configurations():
    """(name, overrides) of every configuration at one point."""
    out = [("K=%d" % k, ("rpcs_in_flight_per_channel=%d" % k,)) for k in FIXED_KS]
    out += [(p, ("rpcs_in_flight_policy=%s" % p, "rpcs_in_flight_max=%d" % K_MAX)) for p in POLICIES]
    return out


def figures(results):
    """Runtime, the largest per-query sender memory estimate and held peak, and K kept under a policy."""
    est, held = {}, {}
    k_means, k_max = [], 0
    for x in results["exchanges"]:
        est[x["query"]] = est.get(x["query"], 0) + x["memory_estimate_bytes"]
        held[x["query"]] = held.get(x["query"], 0) + x["peak_sender_bytes"]
        if "k_window" in x:
            k_means.append(x["k_window"]["k_mean"])
            k_max = max(k_max, x["k_window"]["k_max"])
    return {"runtime_s": results["summary"]["runtime_s_total"], "memory_estimate_bytes": max(est.values()),
            "held_peak_bytes": max(held.values()), "k_mean": sum(k_means) / len(k_means) if k_means else None,
            "k_max": k_max or None, "queries": results["summary"]["queries"]}


def query_count(points):
    """The number of queries whose runtimes every configuration sums; ValueError when the runs
    disagree (runs of different workloads) or say nothing."""
    counts = {f.get("queries") for by_config in points.values() for f in by_config.values()}
    if len(counts) != 1 or None in counts:
        raise ValueError("the runs do not agree on the number of queries they sum: %s" % sorted(
            counts, key=lambda c: (c is None, c)))
    return counts.pop()


def pct(a, b):
    return "%+.1f%%" % (100.0 * (a / b - 1)) if b else ""


def rows_of(points):
    """One row per (mt_dop, rtt, policy): against the best fixed K and against K=2."""
    rows = []
    for (mt, rtt), by_config in points.items():
        fixed = {k: by_config["K=%d" % k] for k in FIXED_KS}
        best_k = min(FIXED_KS, key=lambda k: (fixed[k]["runtime_s"], k))
        best, user = fixed[best_k], fixed[USER_K]
        for name in ("K=%d" % k for k in FIXED_KS):
            f = by_config[name]
            rows.append([str(mt), str(rtt), name, "%.1f" % f["runtime_s"], pct(f["runtime_s"], best["runtime_s"]),
                         pct(f["runtime_s"], user["runtime_s"]), "%.0f" % (f["memory_estimate_bytes"] / MIB),
                         "%.1f" % (f["held_peak_bytes"] / MIB), "", "best fixed" if name == "K=%d" % best_k else ""])
        for p in POLICIES:
            f = by_config[p]
            rows.append([str(mt), str(rtt), "%s 1..%d" % (p, K_MAX), "%.1f" % f["runtime_s"],
                         pct(f["runtime_s"], best["runtime_s"]), pct(f["runtime_s"], user["runtime_s"]),
                         "%.0f" % (f["memory_estimate_bytes"] / MIB), "%.1f" % (f["held_peak_bytes"] / MIB),
                         "%.2f / %d" % (f["k_mean"], f["k_max"]) if f["k_mean"] is not None else "", ""])
    return rows


def header(queries):
    return ["mt_dop", "round trip us", "K", "runtime s (%d queries)" % queries, "vs best fixed K", "vs K=2",
            "memory estimate MiB (largest query)", "held at peak MiB (largest query)",
            "K kept: mean over exchanges / max", "note"]


def markdown(points):
    return markdown_table(header(query_count(points)), rows_of(points))


CSV_COLUMNS = ["mt_dop", "rtt_us", "config", "runtime_s", "memory_estimate_bytes", "held_peak_bytes", "k_mean",
               "k_max", "queries"]


def runs_csv(points):
    rows = [[mt, rtt, name, "%.6f" % f["runtime_s"], f["memory_estimate_bytes"], f["held_peak_bytes"],
             None if f["k_mean"] is None else "%.4f" % f["k_mean"], f["k_max"], f["queries"]]
            for (mt, rtt), by_config in points.items() for name, f in by_config.items()]
    return csv_text(CSV_COLUMNS, rows)


def points_from_csv(path, queries=None):
    """{(mt_dop, rtt): {config: figures}} from a CSV that runs_csv wrote (the tool's committed
    output). A CSV written before it had a queries column takes `queries` (the number of queries of
    the workload it was run on); ValueError when neither says it, or a point lacks a configuration."""
    points = {}
    with open(path, "r", encoding="utf-8", newline="") as f:
        for rec in csv.DictReader(f):
            n = rec.get("queries") or queries
            if not n:
                raise ValueError("%s has no queries column: the number of queries summed is not known" % path)
            points.setdefault((int(rec["mt_dop"]), int(rec["rtt_us"])), {})[rec["config"]] = {
                "runtime_s": float(rec["runtime_s"]), "memory_estimate_bytes": int(rec["memory_estimate_bytes"]),
                "held_peak_bytes": int(rec["held_peak_bytes"]),
                "k_mean": float(rec["k_mean"]) if rec["k_mean"] else None,
                "k_max": int(rec["k_max"]) if rec["k_max"] else None, "queries": int(n)}
    names = [n for n, _ in configurations()]
    for (mt, rtt), by_config in points.items():
        missing = [n for n in names if n not in by_config]
        if missing:
            raise ValueError("%s: mt_dop=%d rtt=%d us has no %s" % (path, mt, rtt, ", ".join(missing)))
    if not points:
        raise ValueError("%s has no runs" % path)
    return points


def memory_ticks(points, mt):
    """(x positions in MiB, labels) of one mt_dop's panel: each fixed K's sender memory estimate,
    labelled with its K (the estimate does not depend on the round trip)."""
    xs, labels = [], []
    for k in FIXED_KS:
        at = sorted({round(points[(mt, rtt)]["K=%d" % k]["memory_estimate_bytes"] / MIB) for rtt in RTTS_US})
        for x in at:
            xs.append(x)
            labels.append("%s\nK=%d" % (format(x, ","), k))
    return xs, labels


def plot_figure(points):
    """Per mt_dop: the summed runtime against the largest query's sender memory estimate, fixed K
    as a line per round trip, the policies as hollow markers (their estimate is K_max's); both
    panels on one runtime scale from 0, the spread of each panel's runtimes written in it."""
    queries = query_count(points)
    fig, axes = plt.subplots(1, len(MT_DOPS), figsize=(12, 4.8), sharey=True)
    colors = dict(zip(RTTS_US, ("tab:green", "tab:blue", "tab:red")))
    markers = dict(zip(POLICIES, (("s", 9), ("^", 13))))
    for ax, mt in zip(axes, MT_DOPS):
        for rtt in RTTS_US:
            by = points[(mt, rtt)]
            xs = [by["K=%d" % k]["memory_estimate_bytes"] / MIB for k in FIXED_KS]
            ys = [by["K=%d" % k]["runtime_s"] for k in FIXED_KS]
            ax.plot(xs, ys, "o-", color=colors[rtt], markersize=5)
            for p in POLICIES:
                f = by[p]
                ax.plot([f["memory_estimate_bytes"] / MIB], [f["runtime_s"]], markers[p][0], color=colors[rtt],
                        markerfacecolor="none", markersize=markers[p][1])
        ax.set_xscale("log")
        ticks, labels = memory_ticks(points, mt)
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        ax.set_xticks(ticks, labels, fontsize=8)
        lo, hi = min(ticks), max(ticks)
        ax.set_xlim(lo / 1.25, hi * 1.25)
        ax.set_xlabel("sender memory estimate of the largest query (MiB, log scale)", fontsize=9)
        runtimes = [f["runtime_s"] for rtt in RTTS_US for f in points[(mt, rtt)].values()]
        ax.text(0.03, 0.05, "its %d runs between %s and %s s" % (
                    len(runtimes), format(round(min(runtimes)), ","), format(round(max(runtimes)), ",")),
                transform=ax.transAxes, fontsize=8, va="bottom")
        ax.set_title("mt_dop=%d" % mt, fontsize=10)
        ax.tick_params(axis="y", labelsize=8)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("runtime, sum of the %d queries (s)" % queries, fontsize=9)
    axes[0].set_ylim(bottom=0)   # one scale from 0 in both panels: a 3% spread looks like one
    handles = [matplotlib.lines.Line2D([], [], color=colors[rtt], marker="o", markersize=5,
                                       label="fixed K, round trip %s us" % format(rtt, ",")) for rtt in RTTS_US]
    handles += [matplotlib.lines.Line2D([], [], ls="", marker=markers[p][0], markersize=markers[p][1] * 0.8,
                                        markerfacecolor="none", color="black", label="%s, K from 1 to %d" % (p, K_MAX))
                for p in POLICIES]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=8, frameon=False)
    fig.suptitle("TPC-DS SF100: adaptive K (from 1, K_max = %d) against fixed K (predictions of the model)" % K_MAX,
                 fontsize=11)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig


def plot(points):
    return png_bytes(plot_figure(points), dpi=100)


def write_outputs(points, out, readme):
    """The table (OUT/tpcds_window_policies.md), the plot and the block of docs/window_policies.md from the points."""
    md = markdown(points)
    os.makedirs(os.path.join(out, "figures"), exist_ok=True)
    atomic.write_text(os.path.join(out, "tpcds_window_policies.md"),
                      "# Adaptive in-flight windows on TPC-DS\n\nGenerated by tools/tpcds_policies.py. Predictions "
                      "of the model, not measurements.\n\n" + md)
    atomic.write_bytes(os.path.join(out, "figures", "tpcds_window_policies.png"), plot(points))
    if readme:
        replace_block_in_file(readme, "<!-- %s:begin -->" % BLOCK, "<!-- %s:end -->" % BLOCK, md + "\n")
    return md


def replot(args):
    """Table, plot and page block again from OUT/tpcds_window_policies.csv, simulating nothing."""
    path = os.path.join(args.out, "tpcds_window_policies.csv")
    try:
        with open(path, "r", encoding="utf-8", newline="") as f:
            has_count = "queries" in (next(csv.reader(f), None) or [])
        queries = None
        if not has_count:   # written before the column: the runs were of this workload
            queries = len(calibrate.load_workload(args.workload)["queries"])
            sys.stderr.write("tpcds_policies: %s has no queries column; the count, %d, is that of %s\n" % (
                path, queries, args.workload))
        points = points_from_csv(path, queries)
        write_outputs(points, args.out, args.readme)
    except (OSError, KeyError, ValueError) as e:
        sys.stderr.write("tpcds_policies: --replot: %s\n" % e)
        return 2
    page = " and the block of %s" % os.path.relpath(args.readme, calibrate.REPO) if args.readme else ""
    print("tpcds_policies: wrote the table, the plot%s from %s" % (page, path))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    calibrate.study_arguments(ap, "policies", "tpcds_window_policies.{md,csv} and figures/tpcds_window_policies.png",
                              "window-policies", "window_policies.md")
    ap.add_argument("--replot", action="store_true",
                    help="write the table, the page's block and the plot again from the runs in "
                    "OUT/tpcds_window_policies.csv (what a full run wrote); simulate nothing and need no simulator")
    args = ap.parse_args(argv)
    if args.replot:
        return replot(args)
    scenario, runner = calibrate.open_study(ap, args, "tpcds_policies")
    points, to_run = {}, 0
    for mt in MT_DOPS:
        for rtt in RTTS_US:
            for name, sets in configurations():
                sets = ("mt_dop=%d" % mt, "cluster.rtt_us=%d" % rtt) + sets
                label = "mt_dop=%d rtt=%d us %s" % (mt, rtt, name)
                if args.dry_run:
                    cached = runner.cached(scenario, sets)
                    to_run += 0 if cached else 1
                    print("%-7s %s" % ("cached" if cached else "to run", label))
                    continue
                try:
                    res = runner.run(scenario, label, sets)
                except exsim_runner.ExsimError as e:
                    sys.stderr.write("tpcds_policies: %s\n" % e)
                    return 1
                points.setdefault((mt, rtt), {})[name] = figures(res)
    if args.dry_run:
        print("%d runs, %d to run" % (len(MT_DOPS) * len(RTTS_US) * len(configurations()), to_run))
        return 0
    os.makedirs(args.out, exist_ok=True)
    atomic.write_text(os.path.join(args.out, "tpcds_window_policies.csv"), runs_csv(points))
    print(write_outputs(points, args.out, args.readme))
    return 0
