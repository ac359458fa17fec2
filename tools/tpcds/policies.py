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
"""

import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

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
            "k_max": k_max or None}


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


HEADER = ["mt_dop", "round trip us", "K", "runtime s (99 queries)", "vs best fixed K", "vs K=2",
          "memory estimate MiB (largest query)", "held at peak MiB (largest query)",
          "K kept: mean over exchanges / max", "note"]


def markdown(points):
    return markdown_table(HEADER, rows_of(points))


def runs_csv(points):
    rows = [[mt, rtt, name, "%.6f" % f["runtime_s"], f["memory_estimate_bytes"], f["held_peak_bytes"],
             None if f["k_mean"] is None else "%.4f" % f["k_mean"], f["k_max"]]
            for (mt, rtt), by_config in points.items() for name, f in by_config.items()]
    return csv_text(["mt_dop", "rtt_us", "config", "runtime_s", "memory_estimate_bytes", "held_peak_bytes",
                     "k_mean", "k_max"], rows)


def plot(points):
    """Per mt_dop: runtime against the largest query's sender memory estimate, fixed K as a line per
    round trip, the policies as their own markers."""
    fig, axes = plt.subplots(1, len(MT_DOPS), figsize=(11, 4.2))
    colors = dict(zip(RTTS_US, ("tab:green", "tab:blue", "tab:red")))
    markers = dict(zip(POLICIES, ("s", "^")))
    for ax, mt in zip(axes, MT_DOPS):
        for rtt in RTTS_US:
            by = points[(mt, rtt)]
            xs = [by["K=%d" % k]["memory_estimate_bytes"] / MIB for k in FIXED_KS]
            ys = [by["K=%d" % k]["runtime_s"] for k in FIXED_KS]
            ax.plot(xs, ys, "o-", color=colors[rtt], label="fixed K=1,2,4,8, %d us" % rtt)
            for k, x, y in zip(FIXED_KS, xs, ys):
                ax.annotate("K=%d" % k, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7)
            for p in POLICIES:
                f = by[p]
                ax.plot([f["memory_estimate_bytes"] / MIB], [f["runtime_s"]], markers[p], color=colors[rtt],
                        markerfacecolor="none", markersize=10, label="%s, %d us" % (p, rtt))
        ax.set_xscale("log")
        ax.set_xlabel("sender memory estimate of the largest query (MiB)")
        ax.set_ylabel("runtime of the 99 queries (s)")
        ax.set_title("mt_dop=%d" % mt)
        ax.grid(alpha=0.3, which="both")
    axes[0].legend(fontsize=7, loc="upper right")
    fig.suptitle("TPC-DS SF100: adaptive K (from 1, K_max = 8) against fixed K (predictions)", fontsize=10)
    fig.tight_layout()
    return png_bytes(fig, dpi=100)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    calibrate.study_arguments(ap, "policies", "tpcds_window_policies.{md,csv} and figures/tpcds_window_policies.png",
                              "window-policies")
    args = ap.parse_args(argv)
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
    md = markdown(points)
    os.makedirs(args.out, exist_ok=True)
    atomic.write_text(os.path.join(args.out, "tpcds_window_policies.md"),
                      "# Adaptive in-flight windows on TPC-DS\n\nGenerated by tools/tpcds_policies.py. Predictions "
                      "of the model, not measurements.\n\n" + md)
    atomic.write_text(os.path.join(args.out, "tpcds_window_policies.csv"), runs_csv(points))
    os.makedirs(os.path.join(args.out, "figures"), exist_ok=True)
    atomic.write_bytes(os.path.join(args.out, "figures", "tpcds_window_policies.png"), plot(points))
    if args.readme:
        replace_block_in_file(args.readme, "<!-- %s:begin -->" % BLOCK, "<!-- %s:end -->" % BLOCK, md + "\n")
    print(md)
    return 0
