"""The TPC-DS workload against the published K=1 run (calibration-data.md section A).

What the calibration of the whole-query workload needs, shared by its fit and its checks:
- the published figures (TARGETS, fitted; CHECKS and the mt_dop=8 runtime, never fitted);
- `with_costs`: a workload with candidate values of the shared physical parameters (`costs`,
  `exchange_defaults.compress_ns_per_byte`), everything else untouched;
- `Runner`: simulations through the shared exsim runner, cached by the hash of the scenario
  without its prose and of the simulator binary, each run logged;
- `figures`: the simulated value of every published figure; `readme_block`: the table.

The fit of the costs (a few shared parameters against the mt_dop=0, K=1 figures) is written once
the simulator runs whole queries. Until then `main` evaluates a workload as it is, or with the
values of a costs file (the format `tools/tpcds_workload.py --costs` reads), and prints every
figure against its target:

    tools/tpcds_calibrate.py [--workload FILE] [--costs FILE] [--exsim build/exsim] [--jobs 2]
    python3 -m tools.tpcds.calibrate ...
"""

import argparse
import copy
import hashlib
import json
import os
import sys
import time
from pathlib import Path

if not __package__:  # run as a script: the repository root on sys.path, as for every entry point
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from analysis import exsim_runner  # noqa: E402
from analysis.atomic import write_text  # noqa: E402
from tools import tpcds as tp  # noqa: E402

REPO = tp.REPO
# calibration-data.md section A (K=1, 16 KiB, LZ4 on, mt_dop=0, 5 executors, 390 us): what a fit may use.
TARGETS = {
    "hash_mean_rpc_bytes": 17000.0,
    "nonpushback_slowest_sender_blocked_s_total": 150.0,
    "runtime_s_total": 374.6,
}
# Figures of section A that are checks: (target, tolerance). Per query: the blocked time of its example
# exchange (example_blocked).
CHECKS = {
    "nonpushback_hash_exchanges": (630, 0.10),
    "hash_rpcs": (10.2e6, 0.10),
    "q72": (34.5, 0.15), "q51": (5.1, 0.25), "q67a": (4.6, 0.25), "q64": (3.6, 0.25),
}
MT_DOP_8_RUNTIME = (187.0, 0.05)  # runtime_s_total at mt_dop=8, same parameters: a check, never fitted
README_BEGIN = "<!-- tpcds-calibration:begin -->"
README_END = "<!-- tpcds-calibration:end -->"
COST_KEYS = ("scan_ns_per_row", "join_build_ns_per_row", "join_probe_ns_per_row", "aggregate_ns_per_row",
             "sort_ns_per_row", "analytic_ns_per_row", "other_ns_per_row", "query_startup_s", "codegen_s_per_fragment")


def with_costs(scenario, costs=None, exchange_defaults=None):
    """A copy of a schema_version 2 workload with candidate parameter values."""
    out = copy.deepcopy(scenario)
    for k, v in (costs or {}).items():
        if k not in COST_KEYS:
            raise ValueError("costs.%s: not a cost of the format (%s)" % (k, ", ".join(COST_KEYS)))
        out["costs"][k] = v
    for k, v in (exchange_defaults or {}).items():
        if k not in ("compress_ns_per_byte", "compression_ratio"):
            raise ValueError("exchange_defaults.%s: only compress_ns_per_byte and compression_ratio are fitted" % k)
        out["exchange_defaults"][k] = v
    return out


def file_sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _bare(obj):
    """The scenario without its prose (provenance, `source` strings), which no simulation reads."""
    if isinstance(obj, dict):
        return {k: _bare(v) for k, v in obj.items() if k not in ("provenance", "source")}
    if isinstance(obj, list):
        return [_bare(v) for v in obj]
    return obj


def cache_key(scenario, sets, simulator_sha256):
    """Hash of what a run depends on: the scenario without its prose, the overrides and the simulator
    binary (a rebuilt simulator may model differently)."""
    text = json.dumps(_bare(scenario), sort_keys=True) + json.dumps(list(sets)) + simulator_sha256
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class Runner:
    """Simulations of candidate workloads, cached in `work` so that an interrupted fit resumes."""

    def __init__(self, exsim, jobs, work):
        self.exsim = exsim
        self.jobs = jobs
        self.work = work
        self.runs = []
        self.simulator_sha256 = file_sha256(exsim)
        os.makedirs(work, exist_ok=True)

    def run(self, scenario, label, sets=()):
        key = cache_key(scenario, sets, self.simulator_sha256)
        out = os.path.join(self.work, "run-%s.json" % key)
        if not os.path.isfile(out):
            path = os.path.join(self.work, "scenario-%s.json" % key)
            write_text(path, json.dumps(scenario, indent=1, ensure_ascii=False) + "\n")
            t0 = time.time()
            sys.stderr.write("tpcds_calibrate: simulating %s ... " % label)
            sys.stderr.flush()
            # exsim writes its results atomically: the cache never holds a torn file.
            res = exsim_runner.simulate(self.exsim, path, out, sets=sets, jobs=self.jobs)
            sys.stderr.write("%.0f s\n" % (time.time() - t0))
        else:
            with open(out, "r", encoding="utf-8") as f:
                res = json.load(f)
        self.runs.append({"label": label, "sets": list(sets), "summary": pick(res["summary"])})
        return res


def example_blocked(results, query):
    """calibration-data.md's per-exchange figure for a query: the slowest sender's blocked time of
    the query's non-pushback hash exchange that blocks most."""
    def pushed(x):
        return x.get("pushed_back", x.get("pushes_back", False))
    return max((x["slowest_sender_blocked_s"] for x in results["exchanges"] if x["query"] == query
                and x["partitioning"] == "HASH_PARTITIONED" and not pushed(x)), default=0.0)


def figures(results, results_mt8):
    """Every published figure: {key: {target, tolerance (checks), simulated, relative, label, role}}."""
    s = results["summary"]
    out = {}
    for k, target in TARGETS.items():
        out[k] = {"target": target, "simulated": s[k], "label": k, "role": "fit target"}
    for k, (target, tol) in CHECKS.items():
        sim = s[k] if k in s else example_blocked(results, k)
        out[k] = {"target": target, "tolerance": tol, "simulated": sim, "role": "check",
                  "label": k if k in s else "%s: blocked time of its example exchange (s)" % k}
    key = "runtime_s_total at mt_dop=8"
    out[key] = {"target": MT_DOP_8_RUNTIME[0], "tolerance": MT_DOP_8_RUNTIME[1],
                "simulated": results_mt8["summary"]["runtime_s_total"], "label": key, "role": "check"}
    for v in out.values():
        v["relative"] = (v["simulated"] - v["target"]) / v["target"]
    return out


def readme_block(doc):
    """Markdown for the project README: parameters, then every published figure against the model."""
    lines = ["| parameter | value | status |", "|---|---|---|"]
    for k, p in doc["parameters"].items():
        lines.append("| `%s` | %s | %s |" % (k, p["value"], p["status"]))
    lines += ["", "| figure (K=1; mt_dop=0 unless named) | measured | simulated | difference | role |",
              "|---|---|---|---|---|"]
    for r in doc["figures"].values():
        role = r["role"]
        if "tolerance" in r:
            role += ", tolerance %d%%: %s" % (100 * r["tolerance"],
                                               "within" if abs(r["relative"]) <= r["tolerance"] else "outside")
        lines.append("| %s | %s | %s | %+.1f%% | %s |" % (r["label"], fmtn(r["target"]), fmtn(r["simulated"]),
                                                          100 * r["relative"], role))
    return "\n".join(lines) + "\n"


def fmtn(v):
    return "{:,.0f}".format(v) if abs(v) >= 1000 else "{:.4g}".format(v) if isinstance(v, float) else str(v)


def update_readme(path, block):
    with open(path, "r", encoding="utf-8") as f:
        text = f.read()
    if README_BEGIN not in text or README_END not in text:
        raise ValueError("%s has no %s ... %s block" % (path, README_BEGIN, README_END))
    head, rest = text.split(README_BEGIN, 1)
    _, tail = rest.split(README_END, 1)
    write_text(path, head + README_BEGIN + "\n" + block + README_END + tail)


def pick(summary):
    keys = ("runtime_s_total", "hash_rpcs", "hash_mean_rpc_bytes", "nonpushback_hash_exchanges",
            "nonpushback_slowest_sender_blocked_s_total", "rpcs", "makespan_s")
    return {k: summary[k] for k in keys if k in summary}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workload", default=os.path.join(tp.DEFAULT_OUT, "workload.json"),
                    help="the workload to evaluate (default: scenarios/tpcds_sf100/workload.json)")
    ap.add_argument("--costs", default=None, help="candidate values: a costs file as tools/tpcds_workload.py "
                    "--costs reads it ({\"costs\": {...}, \"exchange_defaults\": {...}})")
    ap.add_argument("--exsim", default=exsim_runner.default_exsim(), help="simulator binary (default: $EXSIM, "
                    "else build/exsim)")
    ap.add_argument("--jobs", type=int, default=2, help="queries simulated at once (default 2)")
    ap.add_argument("--work", default=os.path.join(REPO, "build", "calibration"),
                    help="cache of simulation runs (default build/calibration)")
    args = ap.parse_args(argv)
    if not os.path.isfile(args.exsim):
        sys.stderr.write("tpcds_calibrate: %s not found; build first (scripts/setup.sh)\n" % args.exsim)
        return 2
    try:
        with open(args.workload, "r", encoding="utf-8") as f:
            scenario = json.load(f)
        if scenario.get("schema_version") != 2:
            raise ValueError("expected a schema_version 2 workload (tools/tpcds_workload.py writes one)")
        values = {}
        if args.costs:
            with open(args.costs, "r", encoding="utf-8") as f:
                values = json.load(f)
        scenario = with_costs(scenario, values.get("costs"), values.get("exchange_defaults"))
    except (OSError, ValueError) as e:
        sys.stderr.write("tpcds_calibrate: %s: %s\n" % (args.costs if args.costs and "costs" in str(e)
                                                        else args.workload, e))
        return 2
    runner = Runner(args.exsim, args.jobs, args.work)
    try:
        base = runner.run(scenario, "baseline")
        mt8 = runner.run(scenario, "baseline, mt_dop=8 (check)", ("mt_dop=8",))
    except exsim_runner.ExsimError as e:
        sys.stderr.write("tpcds_calibrate: exsim: %s\n" % e)
        return 1
    for k, r in figures(base, mt8).items():
        print("%-45s target %12.4g simulated %12.4g (%+.1f%%) %s" % (
            r["label"], r["target"], r["simulated"], 100 * r["relative"], r["role"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
