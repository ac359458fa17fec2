"""How sure the TPC-DS predictions are: intervals from the plausible ranges of the inputs, and a
tornado plot of which input moves each headline prediction most.

A prediction is the change of the summed runtime of the 104 queries from the K=1 baseline at the
same mt_dop (K=2; 64 KiB buffers; K=2 with 128 KiB and no LZ4; each at mt_dop 0 and 8). Each input
below is set to each end of its range with every other input at its nominal value (one at a time),
and the whole prediction (baseline and configuration) is simulated again, without refitting. An
input's swing is how far its ends move the prediction from the nominal one; the interval combines
the swings in quadrature (the inputs are taken as independent):

    low  = nominal - sqrt(sum over inputs of (nominal - lowest end)^2,  ends below nominal)
    high = nominal + sqrt(sum over inputs of (highest end - nominal)^2, ends above nominal)

The inputs and why each range (the block of docs/tpcds.md and docs/tpcds_uncertainty.md repeat it):
- LZ4 ratio of every exchange x (1 -/+ the relative RMS residual of the fitted evidence of
  compression.EVIDENCE, the derived ratio against the q72 profile's measured one), capped at 1.
- cpu_scale: the fit gives the runtime that the model cannot place elsewhere to the operators' CPU.
  The workload's hash RPCs are the largest residual of the checks (simulated / measured); at the
  measured count the round trips on the critical path (rtt_s) would shrink by that share and the fit
  would put the time on the operators' CPU: +/- rtt_s x (1 - measured / simulated RPCs) / operators'
  CPU, from the nominal baseline's breakdown.
- rpc_dispatch_us, fitted to the non-pushback exchanges' blocked time summed: the dispatch each of
  the four example exchanges would be fitted to alone. Two probe runs of the baseline at
  DISPATCH_PROBE x the fitted value and the nominal one give each example's blocked time against the
  dispatch; where its least-squares line meets the published figure is that example's own fit. The
  range spans those and the fitted value.
- second_thread_gain: 0 (a core's second thread adds nothing, as for memory-bound hash joins) to
  0.30 (the high end of the measured hyper-threading gains for database workloads; the simulator's
  default nominal).
- nic_bandwidth_gbps: 5 Gbit/s (an m6id.4xlarge's limit for a single flow outside a cluster
  placement group) to 12.5 (its burst, nominal); its sustained baseline, 6.25, lies between.
- runtime-filter selectivity: every filter's `keep` raised to the power 0.5 (removes half the
  log-share) and 1.5; the rows between the filtered scan and the filter's join change with it
  (a join drops what its filter would have, so its output does not).
- sampling error of the measured rows: every node counted on the 1% sample (measured_rows.json,
  `how` = sample) at its count -/+ 2 standard errors (its `sampling_error`, 1/sqrt(count)), all
  at the same end, and the workload generated again from them with the same fitted costs (needs
  Impala's plans and profiles, ../shared). All at one end bounds what independent errors do.

Any other workload (one imported from profiles, --workload W.json) is asked the same at its own
mt_dop and 8, with the inputs its own measurements leave open (workload_inputs): the runtime the
model does not reproduce (its queries' measured runtimes against the simulated ones at the
workload's settings, on the operators' CPU as cpu_scale's range above), a core's second thread,
and the runtime filters' selectivity where it has filters. Its outputs are NAME_uncertainty.{md,csv}
and figures/NAME_tornado.png; scripts/predictions.sh makes them and draws them as intervals.

Runs are cached by the hash of the scenario and the simulator (calibrate.Runner), so an
interrupted run resumes. Order: the nominal predictions, then the inputs in the order above.

    tools/tpcds_uncertainty.py            # all 106 runs (90 without ../shared; about 45 minutes here), then the outputs
    tools/tpcds_uncertainty.py --dry-run  # list the runs, simulate nothing
    tools/tpcds_uncertainty.py --replot   # redraw the tornado plot from docs/tpcds_uncertainty.csv, simulate nothing
    tools/tpcds_uncertainty.py --workload out/day.json --out out   # an imported workload: out/day_uncertainty.*
"""

import argparse
import copy
import csv
import json
import math
import os
import sys

from common import atomic, exsim_runner
from common.tables import csv_text, markdown_table, replace_block_in_file
from common.figures import png_bytes
from tools import tpcds as tp
from tools.scenario_ops import op_children, walk_ops
from tools.tpcds import calibrate, compression
from tools.tpcds import workload as wl   # the generator: the sampling error's ends are workloads made again

REPO = tp.REPO
BEGIN = "<!-- tpcds-uncertainty:begin -->"
END = "<!-- tpcds-uncertainty:end -->"
# The headline predictions: (label, --set overrides), each at mt_dop 0 and 8 against K=1 there.
CONFIGS = (
    ("K=2", ("rpcs_in_flight_per_channel=2",)),
    ("64 KiB", ("data_stream_sender_buffer_size=65536",)),
    ("K=2 + 128 KiB, no LZ4", ("rpcs_in_flight_per_channel=2", "data_stream_sender_buffer_size=131072",
                               "compression=false")),
)
MT_DOPS = (0, 8)
FILTER_EXPONENTS = (1.5, 0.5)      # keep ** e: stronger, weaker
SECOND_THREAD_GAIN = (0.0, 0.30)   # nominal: the simulator's default (the workload sets none)
NIC_GBPS = (5.0, 12.5)             # nominal 12.5


# --------------------------------------------------------------------------
# The inputs' ranges
# --------------------------------------------------------------------------

def lz4_relative_residual():
    """RMS of (derived - measured) / measured over the fitted evidence rows of compression.EVIDENCE."""
    rel = [row[6] / row[4] for row in compression.EVIDENCE.values() if row[7]]
    return math.sqrt(sum(r * r for r in rel) / len(rel))


# The dispatch's probe runs, as factors of its fitted value (dispatch_input).
DISPATCH_PROBE = (0.75, 1.25)


def implied_dispatch(points, target):
    """The dispatch at which a line fitted (least squares) through `points` [(dispatch_us, blocked_s)]
    meets `target`; None when the blocked time does not grow with the dispatch."""
    n = len(points)
    mx = sum(d for d, _ in points) / n
    my = sum(b for _, b in points) / n
    sxx = sum((d - mx) ** 2 for d, _ in points)
    slope = sum((d - mx) * (b - my) for d, b in points) / sxx if sxx > 0 else 0.0
    if not slope > 0:
        return None
    return max(0.0, mx + (target - my) / slope)


def dispatch_input(run, scenario, nominal_results):
    """rpc_dispatch_us's range (module docstring): the fitted value and each example exchange's own fit."""
    key = "rpc_dispatch_us"
    fitted = scenario["cluster"][key]
    points = [(fitted, nominal_results)] + [
        (fitted * f, run(set_cluster(key)(scenario, fitted * f), "%s probe x%g, K=1 mt_dop=0" % (key, f),
                         ("mt_dop=0",))) for f in DISPATCH_PROBE]
    own = {}
    for q in calibrate.EXAMPLE_QUERIES:
        d = implied_dispatch([(v, calibrate.example_blocked(r, q)) for v, r in points], calibrate.CHECKS[q][0])
        if d is not None:
            own[q] = d
    values = [fitted] + list(own.values())
    lo, hi = min(values), max(values)
    why = ("the dispatch each example exchange alone would be fitted to (%s; probes at x%s the fitted %.1f us)" % (
        ", ".join("%s %.0f us" % (q, d) for q, d in own.items()) or "none grows with it",
        " and x".join("%g" % f for f in DISPATCH_PROBE), fitted))
    return Input("rpc_dispatch_us", "us", "%.0f" % fitted, [("%.0f" % lo, lo), ("%.0f" % hi, hi)], why,
                 set_cluster(key))


def cpu_scale_residual(results):
    """The relative range of cpu_scale from the fit's largest residual (module docstring), and how."""
    rpcs = results["summary"]["hash_rpcs"]
    measured = calibrate.CHECKS["hash_rpcs"][0]
    parts = results["summary"]["breakdown_s_total"]   # the queries' breakdowns, summed by the simulator
    rtt = parts.get("rtt_s", 0.0)
    cpu = sum(parts.get(k, 0.0) for k, row in exsim_runner.field_rows()["breakdown"].items()
              if row["group"] == "operators' CPU")
    moved = rtt * max(0.0, 1.0 - measured / rpcs)
    rel = moved / cpu if cpu > 0 else 0.0
    how = ("hash RPCs %.2f M simulated / %.1f M measured: %.1f s of the %.1f s of round trips on the critical "
           "paths would be operators' CPU (%.1f s): +/-%.1f%%" % (rpcs / 1e6, measured / 1e6, moved, rtt, cpu,
                                                                  100 * rel))
    return rel, how


# --------------------------------------------------------------------------
# Workload variants (each a copy; the nominal workload is never changed)
# --------------------------------------------------------------------------

def scale_compression(scenario, factor):
    out = copy.deepcopy(scenario)
    for q in out["queries"]:
        for plan in (q, q.get("parallel") or {}):
            for x in plan.get("exchanges", []):
                if "compression_ratio" in x:
                    x["compression_ratio"] = round(min(1.0, x["compression_ratio"] * factor), 4)
    d = out.get("exchange_defaults", {})
    if "compression_ratio" in d:
        d["compression_ratio"] = round(min(1.0, d["compression_ratio"] * factor), 4)
    return out


def scale_cpu(scenario, factor):
    """Every operator class's CPU per row x factor: the scenario's, and a query's own (an imported
    workload keeps each query's measured costs)."""
    out = copy.deepcopy(scenario)
    for costs in [out["costs"]] + [q["costs"] for q in out.get("queries", []) if isinstance(q.get("costs"), dict)]:
        for k in exsim_runner.cost_keys(unit="ns"):   # the classes' CPU per row: what cpu_scale multiplies
            if k in costs:
                costs[k] = round(costs[k] * factor, 3)
    return out


def _parents(plan):
    """({id(op): (parent op, key)} over a plan's fragments, an exchange's sender root's parent being
    the exchange op that receives it; [scan ops]; {exchange id: its sender fragment's root})."""
    parents, scans, receiver, senders = {}, [], {}, {}

    def walk(op):
        if op["op"] == "scan":
            scans.append(op)
        if op["op"] == "exchange":
            receiver[op["exchange"]] = op
        for key, c in op_children(op):
            parents[id(c)] = (op, key)
            walk(c)
    for f in plan.get("fragments", []):
        walk(f["root"])
    for f in plan.get("fragments", []):
        x = f.get("sink", {}).get("exchange")
        if x is not None:
            senders[x] = f["root"]
        if x in receiver:
            parents[id(f["root"])] = (receiver[x], "input")
    return parents, scans, senders


def _expected(op, senders):
    """The rows an op passes on, as the engine expects them (an exchange: its sender's root's)."""
    if op["op"] == "exchange":
        root = senders.get(op["exchange"])
        return _expected(root, senders) if root is not None else 0
    return op.get("rows", 0)


STOPS = ("aggregate", "limit", "top_n")   # their output does not grow with their input


def scale_filter_path(parents, senders, scan, join_id, factor):
    """Multiply the rows from `scan` up to (not including) the join `join_id` by `factor`, as the
    engine passes them on (an op keeps its ratio of output to input rows): a union by its input's
    share; an aggregation, limit or top-n ends the walk (its output is its groups or limit)."""
    op, ratio = scan, factor
    old = op.get("rows", 0)
    if old:
        new = max(1, round(old * ratio))
        if op.get("rows_read"):
            new = min(new, int(op["rows_read"]))   # a scan passes at most what it reads
        ratio = new / old
        op["rows"] = new
    while id(op) in parents:
        parent, key = parents[id(op)]
        if parent["op"] == "exchange":
            op = parent
            continue
        if parent.get("id") == join_id and key == "probe":
            return True
        if parent["op"] in STOPS or not parent.get("rows"):
            return False
        if parent["op"] == "union":
            total = sum(_expected(c, senders) for c in parent["inputs"]) - _expected(op, senders) + old
            ratio = 1.0 + (ratio - 1.0) * old / (total or 1)
        op, old = parent, parent["rows"]
        op["rows"] = max(1, round(old * ratio))
    return False


def scale_filters(scenario, exponent):
    """Every runtime filter's keep -> keep ** exponent, and the rows it governs with it."""
    out = copy.deepcopy(scenario)
    for q in out["queries"]:
        for plan in (q, q.get("parallel") or {}):
            parents, scans, senders = _parents(plan)
            for s in scans:
                for rf in s.get("runtime_filters", []):
                    keep = rf["keep"]
                    new = keep ** exponent
                    if new == keep:
                        continue
                    rf["keep"] = float("%.6g" % new)   # significant digits: a small share stays above 0
                    scale_filter_path(parents, senders, s, rf["join"], rf["keep"] / keep)
    return out


SAMPLING_Z = 2.0   # standard errors


def sample_rows_at(z):
    """The workload generated again from measured_rows.json with every sampled node's rows (and the
    keep shares measured with them) at `z` standard errors from its count, with the fitted costs."""
    def apply(scenario, value):
        path, doc = wl.load_measured_rows(tp.MEASURED_ROWS)
        for q in doc["queries"].values():
            for section in q.values():
                for rec in section.get("nodes", {}).values():
                    if rec.get("how") != "sample" or not rec.get("sampling_error"):
                        continue
                    f = max(0.0, 1.0 + value * rec["sampling_error"])
                    rec["rows"] = rec["rows"] * f
                    for flt in rec.get("filters", []):
                        flt["keep"] = min(1.0, flt["keep"] * f)
        try:
            out, _ = wl.build_workload(tp.DEFAULT_PLANS, tp.DEFAULT_PROFILES, wl.load_costs(tp.CALIBRATION),
                                       measured_rows=(path, doc))
        except tp.PlanError as e:
            raise exsim_runner.ExsimError("sampling error of the measured rows: %s" % e)
        return out
    return apply


def set_cluster(key):
    def apply(scenario, value):
        out = copy.deepcopy(scenario)
        out["cluster"][key] = value
        return out
    return apply


class Input:
    """One input: its name, unit, nominal label, its ends [(label, value)], why that range, and
    apply(scenario, value) -> variant."""

    def __init__(self, name, unit, nominal, ends, why, apply):
        self.name, self.unit, self.nominal, self.ends, self.why, self.apply = name, unit, nominal, ends, why, apply


def is_tpcds(scenario):
    """Whether `scenario` is the TPC-DS workload (its generator's), whose calibration gives the inputs
    above; any other workload (one imported from profiles) gets workload_inputs'."""
    return str(scenario.get("provenance", {}).get("generator", "")).startswith("tools/tpcds_workload.py")


def runtime_residual(scenario, results):
    """(r, how): the relative gap between the workload's measured runtime (its queries' `expected`
    runtime_s, kept by profile import) and the simulated one at the workload's own settings, or
    (None, why not)."""
    prov = scenario.get("provenance", {})
    for key, what in (("retargeted", "re-placed for another cluster"), ("scaled_data", "scaled to other data")):
        if key in prov:
            return None, "the workload was %s: its measured runtimes were another setup's" % what
    # As `exsim compare` counts them: the queries that ran on a cluster of the simulated size.
    executors = scenario.get("cluster", {}).get("executors")
    profiled = {n: len(p.get("executors", {})) for n, p in prov.get("queries", {}).items()}
    measured = {q["name"]: q["expected"]["runtime_s"] for q in scenario.get("queries", [])
                if isinstance(q.get("expected"), dict) and q["expected"].get("runtime_s")
                and profiled.get(q["name"], executors) == executors}
    simulated = {q["query"]: q["runtime_s"] for q in results.get("queries", []) if q.get("runtime_s")}
    both = sorted(set(measured) & set(simulated))
    if not both:
        return None, "no query has a measured runtime on a cluster of the simulated size to compare with"
    m, t = sum(measured[n] for n in both), sum(simulated[n] for n in both)
    r = min(RESIDUAL_CAP, abs(1.0 - m / t))
    return r, ("runtime of %d queries measured %.2f s, simulated %.2f s at the workload's own settings: the time "
               "the model does not reproduce, taken as operators' CPU it would have to lose or gain: +/-%.0f%%%s"
               % (len(both), m, t, 100 * r, " (capped)" if r == RESIDUAL_CAP else ""))


RESIDUAL_CAP = 0.9   # a CPU end stays above a tenth of the measured costs


def has_filters(scenario):
    return any(op.get("runtime_filters") for q in scenario.get("queries", []) for plan in (q, q.get("parallel") or {})
               for f in plan.get("fragments", []) for op in walk_ops(f["root"]))


def second_thread_gain_input():
    return Input("second_thread_gain", "fraction", "%g" % exsim_runner.parameter_default("cluster", "second_thread_gain"),
                 [("%.2f" % v, v) for v in SECOND_THREAD_GAIN],
                 "0: no gain from a core's second thread (memory-bound hash joins); 0.30: the high end of measured "
                 "hyper-threading gains on database workloads", set_cluster("second_thread_gain"))


def filters_input():
    return Input("runtime-filter selectivity", "keep^e", "e=1", [("e=%g" % e, e) for e in FILTER_EXPONENTS],
                 "each filter's share of rows kept raised to 1.5 (stronger) and 0.5 (weaker), with the rows between "
                 "its scan and its join", scale_filters)


def workload_inputs(scenario, nominal_results):
    """The inputs of a workload that is not TPC-DS's (one imported from profiles): what its own
    measurements leave open. Its costs, widths, ratios and network were measured, so the ranges are
    the runtime the model does not reproduce (on the operators' CPU, as cpu_scale's range for
    TPC-DS), a core's second thread, and the runtime filters' selectivity where it has filters."""
    r, how = runtime_residual(scenario, nominal_results)
    out = []
    if r:
        out.append(Input("operators' CPU per row", "x measured", "x1", [("x%.2f" % (1 - r), 1 - r),
                                                                       ("x%.2f" % (1 + r), 1 + r)], how, scale_cpu))
    else:
        sys.stderr.write("tpcds_uncertainty: operators' CPU left out: %s\n" % how)
    out.append(second_thread_gain_input())
    if has_filters(scenario):
        out.append(filters_input())
    return out


def inputs(nominal_results, scenario=None, run=None):
    """The inputs and their ranges. `run(scenario, label, sets)` simulates (through the cache): the
    TPC-DS dispatch's range needs two probe runs; without `run` it is left out."""
    if scenario is not None and not is_tpcds(scenario):
        return workload_inputs(scenario, nominal_results)
    lz4 = lz4_relative_residual()
    cpu, cpu_how = cpu_scale_residual(nominal_results)
    return [
        Input("LZ4 ratio per exchange", "x derived ratio", "x1",
              [("x%.2f" % (1 - lz4), 1 - lz4), ("x%.2f" % (1 + lz4), 1 + lz4)],
              "RMS of the relative residuals of the derived ratios against the q72 profile's measured ones "
              "(%d fitted exchanges): +/-%.1f%%" % (sum(1 for r in compression.EVIDENCE.values() if r[7]), 100 * lz4),
              scale_compression),
        Input("cpu_scale", "x fitted", "x1", [("x%.2f" % (1 - cpu), 1 - cpu), ("x%.2f" % (1 + cpu), 1 + cpu)],
              cpu_how, scale_cpu),
    ] + ([dispatch_input(run, scenario, nominal_results)] if run is not None and scenario is not None else []) + [
        second_thread_gain_input(),
        Input("NIC bandwidth", "Gbit/s", "12.5", [("%g" % NIC_GBPS[0], NIC_GBPS[0])],
              "m6id.4xlarge: up to 12.5 Gbit/s burst (nominal), 6.25 sustained baseline, 5 per flow outside a "
              "cluster placement group (the low end; 6.25 lies between)", set_cluster("nic_bandwidth_gbps")),
        filters_input(),
    ] + ([Input("sampling error of measured rows", "standard errors", "0",
                [("%+g" % z, z) for z in (-SAMPLING_Z, SAMPLING_Z)],
                "every node counted on the 1%% sample at its count -/+ %g standard errors (Poisson), all at once; "
                "the workload generated again from them" % SAMPLING_Z, sample_rows_at(SAMPLING_Z))]
         if can_regenerate() else [])


def can_regenerate():
    """Whether the generator's inputs are here (Impala's plans and profiles, ../shared): the sampling
    error's ends are workloads generated again; without them that input is left out, and said so."""
    if os.path.isdir(tp.DEFAULT_PLANS) and os.path.isdir(tp.DEFAULT_PROFILES):
        return True
    sys.stderr.write("tpcds_uncertainty: %s or %s is absent: the measured rows' sampling error is left out\n" % (
        tp.DEFAULT_PLANS, tp.DEFAULT_PROFILES))
    return False


# --------------------------------------------------------------------------
# Runs and figures
# --------------------------------------------------------------------------

def workload_mt_dops(scenario):
    """The mt_dops a workload's predictions are made at: its own and 8 (TPC-DS's: 0 and 8), as
    scripts/predictions.sh sweeps them."""
    own = int(scenario.get("flags", {}).get("mt_dop", exsim_runner.parameter_default("flags", "mt_dop")))
    return tuple(sorted({own, 8}))


def mt_dops_of(nominal):
    """The mt_dops of a set of predictions ({(config, mt_dop): ...})."""
    return tuple(sorted({mt for _, mt in nominal}))


def predictions_of(run, scenario, label, mt_dops=MT_DOPS):
    """{(config label, mt_dop): (baseline runtime, runtime, change %)} of one scenario; `run` is
    Runner.run-like: run(scenario, label, sets) -> results."""
    out = {}
    for mt in mt_dops:
        base = run(scenario, "%s, K=1 mt_dop=%d" % (label, mt), ("mt_dop=%d" % mt,))["summary"]["runtime_s_total"]
        for name, sets in CONFIGS:
            t = run(scenario, "%s, %s mt_dop=%d" % (label, name, mt), ("mt_dop=%d" % mt,) + sets)
            t = t["summary"]["runtime_s_total"]
            out[(name, mt)] = (base, t, 100.0 * (t / base - 1.0))
    return out


def interval(nominal, swings):
    """(low, high) from the nominal value and per input (lowest, highest) end values (module doc)."""
    down = math.sqrt(sum(max(0.0, nominal - lo) ** 2 for lo, _ in swings))
    up = math.sqrt(sum(max(0.0, hi - nominal) ** 2 for _, hi in swings))
    return nominal - down, nominal + up


def summarize(nominal, by_input):
    """[{prediction, mt_dop, nominal, low, high, swings: {input: (lo, hi)}, top}] from the nominal
    predictions and {input name: [(end label, predictions)]}."""
    rows = []
    for name, _ in CONFIGS:
        for mt in mt_dops_of(nominal):
            key = (name, mt)
            nom = nominal[key][2]
            swings = {}
            for inp, ends in by_input.items():
                vals = [p[key][2] for _, p in ends] + [nom]
                swings[inp] = (min(vals), max(vals))
            lo, hi = interval(nom, swings.values())
            top = max(swings, key=lambda k: (swings[k][1] - swings[k][0], k)) if swings else None
            rows.append({"prediction": name, "mt_dop": mt, "nominal": nom, "low": lo, "high": hi,
                         "swings": swings, "top": top})
    return rows


def markdown(rows, ins):
    inputs_table = markdown_table(["input", "nominal", "range", "why"],
                                  [[i.name, i.nominal, " .. ".join(e for e, _ in i.ends), i.why] for i in ins])
    predictions = []
    for r in rows:
        sw = "; ".join("%s %+.1f .. %+.1f" % (k, v[0] - r["nominal"], v[1] - r["nominal"])
                       for k, v in sorted(r["swings"].items(), key=lambda kv: kv[1][0] - kv[1][1]))
        predictions.append([r["prediction"], "%d" % r["mt_dop"], "%+.1f%%" % r["nominal"],
                            "%+.1f%% .. %+.1f%%" % (r["low"], r["high"]), r["top"] or "-", sw or "-"])
    predictions_table = markdown_table(["prediction (runtime vs K=1)", "mt_dop", "nominal", "interval", "moved most by",
                                        "swings (pp, low end .. high end)"], predictions)
    return inputs_table + "\n\n" + predictions_table + "\n"


def runs_csv(nominal, by_input):
    """Every run's figures: the nominal one, then each input at each end."""
    rows = [[name, mt, "nominal", "", "%.3f" % b, "%.3f" % t, "%.2f" % c] for (name, mt), (b, t, c) in nominal.items()]
    for inp, ends in by_input.items():
        for end, preds in ends:
            rows += [[name, mt, inp, end, "%.3f" % b, "%.3f" % t, "%.2f" % c] for (name, mt), (b, t, c) in preds.items()]
    return csv_text(["prediction", "mt_dop", "input", "end", "baseline_runtime_s", "runtime_s", "change_pct"], rows)


def runs_from_csv(path):
    """(nominal, by_input) as summarize takes them, from a runs CSV that runs_csv wrote (the tool's
    committed output): each change recomputed from its baseline and runtime, the inputs in the
    order the CSV lists them."""
    nominal, by_input = {}, {}
    with open(path, "r", encoding="utf-8", newline="") as f:
        for rec in csv.DictReader(f):
            b, t = float(rec["baseline_runtime_s"]), float(rec["runtime_s"])
            value = (b, t, 100.0 * (t / b - 1.0))
            key = (rec["prediction"], int(rec["mt_dop"]))
            if rec["input"] == "nominal":
                nominal[key] = value
                continue
            ends = by_input.setdefault(rec["input"], [])
            if not ends or ends[-1][0] != rec["end"]:
                ends.append((rec["end"], {}))
            ends[-1][1][key] = value
    missing = [(n, m) for n, _ in CONFIGS for m in mt_dops_of(nominal) or MT_DOPS if (n, m) not in nominal]
    if missing:
        raise ValueError("%s: no nominal run of %s" % (path, ", ".join("%s mt_dop=%d" % k for k in missing)))
    return nominal, by_input


def signed(v):
    """A change in percent to one decimal, signed, without a -0.0 or +0.0."""
    s = "%+.1f" % v
    return "0.0" if s in ("+0.0", "-0.0") else s


TORNADO_LOWER, TORNADO_RAISE = "#4c72b0", "#dd8452"


def tornado_order(rows):
    """The inputs from the widest swing over all predictions (drawn at the top) to the narrowest,
    one order for every panel so that a row of bars is the same input everywhere."""
    width = {}
    for r in rows:
        for name, (lo, hi) in r["swings"].items():
            width[name] = max(width.get(name, 0.0), hi - lo)
    return sorted(width, key=lambda k: (width[k], k))   # barh draws y=0 at the bottom


def tornado_limits(rows):
    """The one x range of every panel: every swing, interval and 0 (no change), padded."""
    vals = [0.0]
    for r in rows:
        vals += [r["low"], r["high"], r["nominal"]] + [v for sw in r["swings"].values() for v in sw]
    lo, hi = min(vals), max(vals)
    pad = 0.04 * (hi - lo or 1.0)
    return lo - pad, hi + pad


def tornado_figure(rows, title="TPC-DS SF100"):
    """The tornado plot: a panel per prediction (columns) and mt_dop (rows), all on one x scale."""
    import matplotlib  # here, not at the top: the runs and the table need no matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    names = [c[0] for c in CONFIGS]
    order = tornado_order(rows)
    mt_dops = sorted({r["mt_dop"] for r in rows})
    fig, axes = plt.subplots(len(mt_dops), len(CONFIGS), figsize=(4.6 * len(CONFIGS), 2.9 * len(mt_dops) + 1.0),
                             sharex=True, sharey=True, squeeze=False)
    for r in rows:
        ax = axes[mt_dops.index(r["mt_dop"])][names.index(r["prediction"])]
        nom = r["nominal"]
        ax.axvspan(r["low"], r["high"], color="grey", alpha=0.18, lw=0)
        ax.axvline(0.0, color="grey", lw=0.8, ls=":")
        for y, name in enumerate(order):
            if name not in r["swings"]:
                continue
            lo, hi = r["swings"][name]
            ax.barh(y, lo - nom, left=nom, color=TORNADO_LOWER, height=0.7)
            ax.barh(y, hi - nom, left=nom, color=TORNADO_RAISE, height=0.7)
        ax.axvline(nom, color="black", lw=1.0)
        ax.set_title("%s, mt_dop=%d\n%s%% (interval %s .. %s)" % (r["prediction"], r["mt_dop"], signed(nom),
                                                                  signed(r["low"]), signed(r["high"])), fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    axes[0][0].set_xlim(*tornado_limits(rows))
    axes[0][0].set_yticks(range(len(order)), order)
    for row in axes:
        row[0].tick_params(axis="y", labelsize=8)
    for ax in axes[-1]:
        ax.set_xlabel("runtime vs K=1 at the same mt_dop (%)", fontsize=8)
        ax.tick_params(axis="x", labelsize=8)
    handles = [Patch(color=TORNADO_LOWER, label="the end of an input's range that lowers the prediction"),
               Patch(color=TORNADO_RAISE, label="the end that raises it"),
               Line2D([], [], color="black", lw=1.0, label="nominal"),
               Patch(color="grey", alpha=0.18, label="interval (swings in quadrature)"),
               Line2D([], [], color="grey", lw=0.8, ls=":", label="0: as fast as K=1")]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=8, frameon=False)
    fig.suptitle("%s: how far each input's range moves a prediction (one scale in every panel)" % title,
                 fontsize=11)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig


def tornado(rows, path, title="TPC-DS SF100"):
    atomic.write_bytes(path, png_bytes(tornado_figure(rows, title), dpi=110))


def update_readme(path, block, name="tpcds"):
    """Rewrite the NAME-uncertainty block of the page at `path`."""
    replace_block_in_file(path, BEGIN.replace("tpcds", name, 1), END.replace("tpcds", name, 1), block)


def replot(out, name="tpcds", title="TPC-DS SF100"):
    """The tornado plot again from the committed runs (OUT/NAME_uncertainty.csv)."""
    path = os.path.join(out, "%s_uncertainty.csv" % name)
    try:
        nominal, by_input = runs_from_csv(path)
    except (OSError, KeyError, ValueError) as e:
        sys.stderr.write("tpcds_uncertainty: --replot: %s\n" % e)
        return 2
    figure = os.path.join(out, "figures", "%s_tornado.png" % name)
    os.makedirs(os.path.dirname(figure), exist_ok=True)
    tornado(summarize(nominal, by_input), figure, title)
    print("tpcds_uncertainty: wrote %s from %s" % (figure, path))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    calibrate.study_arguments(ap, "uncertainty", "NAME_uncertainty.{md,csv} and figures/NAME_tornado.png",
                              "uncertainty", "tpcds.md")
    ap.add_argument("--name", default="",
                    help="prefix of the outputs (default: tpcds for the TPC-DS workload, else the workload file's "
                    "name without .json)")
    ap.add_argument("--title", default="", help="the workload's name in the outputs (default: TPC-DS SF100, else NAME)")
    ap.add_argument("--replot", action="store_true",
                    help="redraw OUT/figures/NAME_tornado.png from the runs in OUT/NAME_uncertainty.csv (what a "
                    "full run wrote); simulate nothing and need no simulator; the tables are left as they are")
    args = ap.parse_args(argv)
    default_workload = os.path.abspath(args.workload) == os.path.abspath(calibrate.WORKLOAD)
    if args.replot:
        name = args.name or ("tpcds" if default_workload else os.path.splitext(os.path.basename(args.workload))[0])
        return replot(args.out, name, args.title or ("TPC-DS SF100" if name == "tpcds" else name))
    scenario, runner = calibrate.open_study(ap, args, "tpcds_uncertainty")
    tpcds = is_tpcds(scenario)
    name = args.name or ("tpcds" if tpcds else os.path.splitext(os.path.basename(args.workload))[0])
    title = args.title or ("TPC-DS SF100" if tpcds else name)
    page = args.readme
    if not tpcds and page == os.path.join(REPO, "docs", "tpcds.md"):
        page = ""   # the TPC-DS page's block is TPC-DS's
    mt_dops = MT_DOPS if tpcds else workload_mt_dops(scenario)
    listed = []

    def run(sc, label, sets):
        """A simulation through the cache; with --dry-run, only noted (a run not yet made stands in
        as an empty result)."""
        if not args.dry_run:
            return runner.run(sc, label, sets)
        path = runner.cached(sc, sets)
        listed.append(("cached" if path else "to run", label))
        if path:
            with open(path, "r", encoding="utf-8") as f:
                return json.load(f)
        return {"summary": {"runtime_s_total": 1.0, "hash_rpcs": 1.0, "breakdown_s_total": {}}, "queries": [],
                "exchanges": []}

    try:
        nominal = predictions_of(run, scenario, "nominal", mt_dops)
        own = mt_dops[0] if tpcds else int(scenario.get("flags", {}).get("mt_dop", 0))
        ins = inputs(run(scenario, "nominal, K=1 mt_dop=%d" % own, ("mt_dop=%d" % own,)), scenario, run)
        by_input = {i.name: [(end, predictions_of(run, i.apply(scenario, value), "%s %s" % (i.name, end), mt_dops))
                             for end, value in i.ends] for i in ins}
    except exsim_runner.ExsimError as e:
        sys.stderr.write("tpcds_uncertainty: %s\n" % e)
        return 1
    if args.dry_run:
        seen = set()
        for state, label in listed:
            if label not in seen:
                seen.add(label)
                print("%-7s %s" % (state, label))
        print("%d runs, %d to run" % (len(seen), len({l for s, l in listed if s == "to run"})))
        return 0
    rows = summarize(nominal, by_input)
    md = markdown(rows, ins)
    os.makedirs(os.path.join(args.out, "figures"), exist_ok=True)
    atomic.write_text(os.path.join(args.out, "%s_uncertainty.md" % name),
                      "# How sure the %s predictions are\n\nGenerated by tools/tpcds_uncertainty.py: each input "
                      "at each end of its range, the others nominal, every prediction simulated again; "
                      "intervals combine the swings in quadrature. Predictions of the model, not measurements.\n\n"
                      % title + md)
    atomic.write_text(os.path.join(args.out, "%s_uncertainty.csv" % name), runs_csv(nominal, by_input))
    tornado(rows, os.path.join(args.out, "figures", "%s_tornado.png" % name), title)
    if page:
        update_readme(page, md, name)
    print(md)
    return 0
