#!/usr/bin/python3
"""Predictions of the cold TPC-H Q1 remote scan for executorSplitPrefetchConcurrency (C) from 16 to 256.

Runs run_sweep.py on scenarios/velox_s3_q1/q1_cold.json three times, each over C and seeds 1-3
(the fit compares the median of three seeds with the median of three measured runs):
  - the scenario as committed (four hosts, one executor each);
  - the other topology: one host for the four executors, its NIC at 50 Gbit/s;
  - the other reading of the drivers: ready_first instead of planned_first.
Then it writes the table (median makespan over the seeds, its range, the bound of the median run,
bytes reserved peak) to docs/velox_q1_predictions.md, and into the pages that quote it between their markers
(docs/remote_scan.md the C table, docs/window_policies.md the adaptive C's).
A fourth sweep lets C adapt (split_prefetch_policy bdp and gradient, starting at C = 16 and 32,
capped by default where no more splits can be registered): its table says whether an adaptive C
finds what the C sweep finds.

    tools/velox_q1_predictions.py [--out sweeps/velox_q1] [--jobs 2]
"""

import argparse
import os
import subprocess
import sys
from pathlib import Path

if not __package__:  # run as a script: the repository root on sys.path, as for every entry point
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis import results  # noqa: E402
from common import atomic  # noqa: E402
from common.tables import markdown_table, replace_block_in_file  # noqa: E402

REPO = Path(__file__).resolve().parents[1]

SCENARIO = REPO / "scenarios" / "velox_s3_q1" / "q1_cold.json"
CS = [16, 32, 48, 64, 96, 128, 192, 256]
SEEDS = [1, 2, 3]
VARIANTS = [  # name, extra --grid arguments (single values), label
    ("four_hosts", [], "4 hosts x 25 Gbit/s (the scenario)"),
    ("one_host", ["cluster.hosts=1", "cluster.nic_bandwidth_gbps=50"], "1 host x 50 Gbit/s"),
    ("ready_first", ["scan.consumption=ready_first"], "4 hosts, ready_first drivers"),
]
MIB = 1 << 20
ADAPTIVE_STARTS = [16, 32]
POLICIES = ["bdp", "gradient"]


def sweep(out, name, extra, jobs, cs=CS):
    grid = ["--grid", "executorSplitPrefetchConcurrency=" + ",".join(map(str, cs)),
            "--grid", "seed=" + ",".join(map(str, SEEDS))]
    for g in extra:
        grid += ["--grid", g]
    subprocess.run([sys.executable, str(REPO / "run_sweep.py"), str(SCENARIO), *grid, "--jobs", str(jobs),
                    "--out", str(out / name)], check=True)
    return results.load_points(out / name)


def by_c(points, key=lambda p: int(p.overrides["executorSplitPrefetchConcurrency"])):
    """{C (or key(point)): (median point, [makespans])} over the seeds."""
    groups = {}
    for p in results.finished(points):
        groups.setdefault(key(p), []).append(p)
    out = {}
    for c, ps in groups.items():
        ps.sort(key=lambda p: p.summary["makespan_s"])
        out[c] = (ps[len(ps) // 2], [p.summary["makespan_s"] for p in ps])
    return out


def why(s):
    return s["bound"] + (f" ({s['window_limit']})" if s["bound"] == "window" else "")


def table(variants):
    base = variants["four_hosts"]
    ref = base[64][0].summary["makespan_s"]
    header = ["C", "4 hosts: makespan s (median, range over seeds)", "vs C=64", "bound (window)",
              "bytes reserved peak MiB", "first split s / planned then",
              "1 host x 50 Gbit/s: makespan s", "bound (window)", "ready_first drivers: makespan s", "bound (window)"]
    rows = []
    for c in CS:
        p, spans = base[c]
        s = p.summary
        one, _ = variants["one_host"][c]
        rf, _ = variants["ready_first"][c]
        rows.append([str(c), f"{s['makespan_s']:.2f} ({min(spans):.2f}-{max(spans):.2f})",
                     f"{(s['makespan_s'] / ref - 1) * 100:+.0f}%", why(s), f"{s['bytes_reserved_peak'] / MIB:,.0f}",
                     f"{s['first_split_s']:.3f} / {s['planned_at_first_split']}",
                     f"{one.summary['makespan_s']:.2f}", why(one.summary), f"{rf.summary['makespan_s']:.2f}",
                     why(rf.summary)])
    return markdown_table(header, rows)


def adaptive_table(fixed, adaptive):
    """Each policy from each start against the fixed C the sweep finds best (the fastest median; a C
    within 2% of it and smaller counts as found)."""
    best_c = min(CS, key=lambda c: (fixed[c][0].summary["makespan_s"], c))
    best = fixed[best_c][0].summary["makespan_s"]
    found = min(c for c in CS if fixed[c][0].summary["makespan_s"] <= best * 1.02)
    header = ["policy", "C starts at", "makespan s (median, range over seeds)", "vs best fixed C",
              "vs fixed C at its start", "C kept: mean / max (median run)", "bytes reserved peak MiB", "bound (window)"]
    rows = []
    for policy in POLICIES:
        for start in ADAPTIVE_STARTS:
            p, spans = adaptive[(policy, start)]
            s = p.summary
            w = s["c_window"]
            at_start = fixed[start][0].summary["makespan_s"]
            rows.append([policy, str(start), f"{s['makespan_s']:.2f} ({min(spans):.2f}-{max(spans):.2f})",
                         f"{(s['makespan_s'] / best - 1) * 100:+.1f}%", f"{(s['makespan_s'] / at_start - 1) * 100:+.0f}%",
                         f"{w['c_mean']:.1f} / {w['c_max']}", f"{s['bytes_reserved_peak'] / MIB:,.0f}", why(s)])
    cap = next(iter(adaptive.values()))[0].summary["c_window"]["c_cap"]
    note = (f"The C sweep's fastest median is C = {best_c} ({best:.2f} s); the smallest C within 2% of it is "
            f"C = {found}. Adaptive runs are capped at C_max = {cap} (split_prefetch_max's default: the plan-ahead "
            "window plus one split per driver, the most that can be registered at once).")
    return note + "\n\n" + markdown_table(header, rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(REPO / "sweeps" / "velox_q1"), help="directory of the three sweeps")
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    args = parser.parse_args(argv)
    out = Path(args.out)
    variants = {name: by_c(sweep(out, name, extra, args.jobs)) for name, extra, _ in VARIANTS}
    adaptive = by_c(sweep(out, "adaptive", ["split_prefetch_policy=" + ",".join(POLICIES)], args.jobs,
                          ADAPTIVE_STARTS),
                    key=lambda p: (p.overrides["split_prefetch_policy"],
                                   int(p.overrides["executorSplitPrefetchConcurrency"])))
    text = table(variants)
    adaptive_text = adaptive_table(variants["four_hosts"], adaptive)
    note = ("**Predictions of the model, not measurements.** Generated by `tools/velox_q1_predictions.py` "
            "from three `run_sweep.py` sweeps of `scenarios/velox_s3_q1/q1_cold.json` (C x seeds 1-3); "
            "the median run's bound is shown.")
    atomic.write_text(REPO / "docs" / "velox_q1_predictions.md",
                      f"# Cold TPC-H Q1 from S3: predictions vs executorSplitPrefetchConcurrency\n\n{note}\n\n{text}\n"
                      f"\n## An adaptive C\n\n{adaptive_text}\n")
    for page, name, block in (("remote_scan.md", "velox-q1-predictions", text),
                              ("window_policies.md", "velox-q1-adaptive", adaptive_text)):
        replace_block_in_file(REPO / "docs" / page, f"<!-- {name}:begin -->", f"<!-- {name}:end -->", block + "\n")
    print(text + "\n\n" + adaptive_text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
