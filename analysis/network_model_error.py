#!/usr/bin/python3
"""How far the approximate network model's run times are from the exact model's.

Runs each case twice, with cluster.network_model=exsim (exact max-min) and with the model under
test (default approx), and compares the results: the makespan, each query's runtime and each
exchange's slowest-sender blocked time. Prints the table and exits 1 when a case is outside the
tolerance (makespan and query runtimes within 1%, blocked times within 2%).

    analysis/network_model_error.py                         # every example and 5-40 executors
    analysis/network_model_error.py --cases examples scaling:5,10,20
    analysis/network_model_error.py --cases tpcds --markdown   # the TPC-DS baseline (--jobs 2)
    analysis/network_model_error.py --results exact.json approx.json   # two runs made elsewhere

A blocked time is compared relative to itself, with a floor: an exchange whose slowest sender
was blocked for less than 1% of the exchange's duration (on the exact model) is compared relative
to that 1%, so that a blocked time of microseconds moving by a microsecond does not count as a
large error in a figure nobody reads. The table says how many exchanges that floor applied to.
"""

import argparse
import json
import sys
import tempfile
from pathlib import Path

if not __package__:  # run as a script: the repository root on sys.path, as for every entry point
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import exsim_runner, tables  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
MAKESPAN_TOL = 0.01
BLOCKED_TOL = 0.02
BLOCKED_FLOOR = 0.01  # of the exchange's duration
SCALING_SIZES = (5, 10, 20, 40)


def relative(a, b):
    """|a - b| / |b| (0 when both are 0)."""
    if a == b:
        return 0.0
    return abs(a - b) / abs(b) if b != 0 else float("inf")


def compare(exact, approx):
    """Errors of `approx` against `exact` (two results documents of the same scenario): makespan,
    worst query runtime, worst exchange blocked time (and which exchange), how many exchanges
    were compared and how many against the floor."""
    out = {"makespan": relative(approx["summary"]["makespan_s"], exact["summary"]["makespan_s"])}
    runtimes = {q["query"]: q["runtime_s"] for q in approx.get("queries", [])}
    out["query"] = max((relative(runtimes[q["query"]], q["runtime_s"]) for q in exact.get("queries", [])),
                       default=0.0)
    blocked = {(x.get("query", ""), x["id"]): x for x in approx["exchanges"]}
    worst, which, floored = 0.0, "", 0
    for x in exact["exchanges"]:
        key = (x.get("query", ""), x["id"])
        b = x["slowest_sender_blocked_s"]
        a = blocked[key]["slowest_sender_blocked_s"]
        floor = BLOCKED_FLOOR * x["duration_s"]
        if abs(b) < floor:
            floored += 1
        err = abs(a - b) / max(abs(b), floor) if a != b else 0.0
        if err > worst:
            worst, which = err, "/".join(k for k in key if k)
    out.update(blocked=worst, blocked_exchange=which, exchanges=len(exact["exchanges"]), floored=floored)
    return out


def within(errors):
    return (errors["makespan"] <= MAKESPAN_TOL and errors["query"] <= MAKESPAN_TOL
            and errors["blocked"] <= BLOCKED_TOL)


def cases(names):
    """(label, scenario, --set overrides, jobs) for each named case: `examples` (the default
    and every example), `scaling:N,M` (one mt_dop=8 hash exchange, 4M rows per executor, as
    scripts/bench.sh) and `tpcds` (the TPC-DS baseline)."""
    out = []
    for name in names:
        if name == "examples":
            for f in [REPO / "scenarios" / "default.json", *sorted((REPO / "scenarios" / "examples").glob("*.json"))]:
                out.append((f.stem, f, [], None))
        elif name.startswith("scaling"):
            sizes = [int(n) for n in name.split(":", 1)[1].split(",")] if ":" in name else SCALING_SIZES
            for n in sizes:
                out.append((f"hash exchange, {n} executors, mt_dop=8", REPO / "scenarios" / "examples" / "hash_5x5.json",
                            ["mt_dop=8", f"cluster.executors={n}", f"exchanges[0].rows_total={4000000 * n}"], None))
        elif name == "tpcds":
            out.append(("TPC-DS SF100 baseline", REPO / "scenarios" / "tpcds_sf100" / "workload.json", [], 2))
        else:
            raise SystemExit(f"network_model_error: unknown case {name!r} (examples, scaling[:N,...], tpcds)")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", nargs="+", default=["examples", "scaling"])
    ap.add_argument("--model", default="approx", help="the network model compared with exsim's exact one")
    ap.add_argument("--exsim", default=exsim_runner.default_exsim())
    ap.add_argument("--markdown", action="store_true", help="a Markdown table (for docs/speed.md)")
    ap.add_argument("--results", nargs=2, metavar=("EXACT", "APPROX"),
                    help="compare two results files instead of running cases")
    args = ap.parse_args(argv)
    rows, bad = [], 0

    def add(label, exact, approx):
        nonlocal bad
        e = compare(exact, approx)
        ok = within(e)
        bad += not ok
        rows.append([label, f"{exact['summary']['makespan_s']:.4f}", f"{e['makespan']:.2e}", f"{e['query']:.2e}",
                     f"{e['blocked']:.2e}", e["blocked_exchange"] or "-", f"{e['exchanges']} ({e['floored']})",
                     "ok" if ok else "OUTSIDE"])

    if args.results:
        exact, approx = (json.loads(Path(f).read_text(encoding="utf-8")) for f in args.results)
        add(Path(args.results[1]).stem, exact, approx)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            for label, scenario, sets, jobs in cases(args.cases):
                results = {}
                for model in ("exsim", args.model):
                    results[model] = exsim_runner.simulate(args.exsim, scenario, Path(tmp) / f"{model}.json",
                                                           sets=[*sets, f"cluster.network_model={model}"], jobs=jobs)
                add(label, results["exsim"], results[args.model])
    header = ["case", "makespan s (exact)", "makespan error", "worst query runtime error",
              "worst blocked-time error", "at exchange", "exchanges (floored)", "verdict"]
    print(tables.markdown_table(header, rows) if args.markdown else tables.text_table(header, rows))
    print(f"{args.model} against exsim: tolerance {MAKESPAN_TOL:.0%} on makespan and query runtimes, "
          f"{BLOCKED_TOL:.0%} on each exchange's slowest-sender blocked time; {len(rows) - bad} of {len(rows)} within")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
