#!/usr/bin/python3
"""Predictions table and blocked-time CDF of a workload, from sweeps of it (scripts/predictions.sh
makes them; the TPC-DS predictions of docs/tpcds.md are one use).

Reads one or more sweep directories of one workload scenario (run_sweep.py), and writes, NAME
being --name (default: the scenario's name):

    OUT/NAME_predictions.md     the table (Markdown), one row per configuration, and the queries'
                                breakdowns summed per configuration (what the time went to)
    OUT/NAME_predictions.csv    the same figures for other tools
    OUT/NAME_predictions_per_query.csv
                                per query: its runtime at K=1 and K=2 (and at K=2 with 128 KiB and no
                                LZ4) at the baseline's mt_dop and 8, and the ratio to the baseline
    OUT/figures/NAME_blocked_cdf.png
                                CDF of the per-exchange slowest-sender blocked time of
                                the hash exchanges, K=1 against K=2 (baseline otherwise)
    OUT/figures/NAME_predictions.png
                                the summed runtime against the peak query's memory estimate of
                                the K, buffer size and compression configurations at each mt_dop,
                                with the intervals of tools/tpcds_uncertainty.py as bars where a
                                configuration has one (--intervals)

With --page FILE the two tables also replace the block between the lines
`<!-- NAME-predictions:begin -->` and `<!-- NAME-predictions:end -->` of FILE.

Usage:
    analysis/predictions.py SWEEP_DIR [SWEEP_DIR ...] [--out DIR] [--name NAME] [--title TEXT]
                            [--page FILE] [--intervals RUNS_CSV]

A configuration is the set of --set overrides of a point with the baseline's
values filled in; the baseline is the workload's own settings (K, buffer, LZ4,
mt_dop, end of stream, RTT as its file gives them, the simulator's defaults
where it does not), read from the settings the points' results echo. A
configuration found in several sweeps is shown once. "vs baseline" compares with
the baseline at the same mt_dop: the change of the summed runtime, and the
geometric mean over the queries of their runtime ratios (every query weighs the
same, whatever its length).
"""

import argparse
import math
import os
import sys
from pathlib import Path

if not __package__:  # run as a script: the repository root on sys.path, as for every entry point
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import matplotlib  # noqa: E402

matplotlib.use("Agg")  # no display needed; must precede pyplot
import matplotlib.lines  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

from analysis import results  # noqa: E402
from common import atomic, exsim_runner  # noqa: E402
from common import tables  # noqa: E402
from common.tables import csv_text, markdown_table  # noqa: E402
from common.figures import place_labels, png_bytes  # noqa: E402
from tools.tpcds import uncertainty  # noqa: E402  (the intervals, from its runs CSV)

REPO = Path(__file__).resolve().parents[1]
MIB = 1 << 20
# The settings a configuration of the table is made of, as a sweep's grid names them.
SETTINGS = ("rpcs_in_flight_per_channel", "data_stream_sender_buffer_size", "compression", "mt_dop", "eos_flush",
            "cluster.rtt_us")


def _setting_text(value):
    """A setting's value as config_of keys it: as a sweep writes it on the command line, lower case."""
    return str(value).lower()


def _where(name):
    """(section, key) of a setting: a flag, or a cluster key named `cluster.key`."""
    return tuple(name.split(".")) if "." in name else ("flags", name)


def _echoed(result, name):
    """A setting as a run's results echo it (settings.flags / settings.cluster), as config_of keys it."""
    section, key = _where(name)
    value = result["settings"][section][key]
    return _setting_text(int(value) if isinstance(value, float) and value.is_integer() else value)


# The workload's own settings, once main has read them from the sweeps (use_baseline_of); until
# then the simulator's defaults.
_baseline = None


def baseline():
    """The baseline configuration: the workload's settings (use_baseline_of), else every setting at
    the simulator's default (Impala's; the measured configuration of calibration-data.md section A)."""
    if _baseline is not None:
        return _baseline
    return {name: _setting_text(exsim_runner.parameter_default(*_where(name))) for name in SETTINGS}


def use_baseline_of(points):
    """Sets the baseline to the workload's settings: for each setting, the value echoed by a point
    that does not override it (the file's value, or the default it did not set); the simulator's
    default where every point overrides it, said on stderr."""
    global _baseline
    base, guessed = {}, []
    for name in SETTINGS:
        kept = next((p for p in points if name not in p.overrides), None)
        if kept is not None:
            base[name] = _echoed(kept.result, name)
        else:
            base[name] = _setting_text(exsim_runner.parameter_default(*_where(name)))
            guessed.append(name)
    if guessed:
        print(f"predictions: every point sets {', '.join(guessed)}: the baseline takes the simulator's default "
              "for it", file=sys.stderr)
    _baseline = base
    return base

COLUMNS = ["mt_dop", "K", "buffer_kib", "lz4", "eos_flush", "rtt_us", "runtime_s", "runtime_vs_k1_pct",
           "runtime_vs_baseline_pct", "geomean_ratio_vs_baseline", "blocked_nonpushback_hash_s", "blocked_all_s",
           "hash_rpcs_m", "nonpushback_hash_exchanges", "memory_peak_query_mib"]


def breakdown_groups():
    """[(group, (part keys))] of the breakdown parts summed over the queries for the second table: the
    simulator's groups of the parts every query has (exsim fields), in its order."""
    groups = {}
    for key, row in exsim_runner.field_rows()["breakdown"].items():
        if not row["when"]:
            groups.setdefault(row["group"], []).append(key)
    return [(group, tuple(keys)) for group, keys in groups.items()]


# Per-query CSV: (column prefix, configuration changes from the baseline).
PER_QUERY = [("k1", {}), ("k2", {"rpcs_in_flight_per_channel": "2"}),
             ("k2_128k_nolz4", {"rpcs_in_flight_per_channel": "2", "data_stream_sender_buffer_size": "131072",
                                "compression": "false"})]


def mt_dops():
    """The mt_dop values of the per-query tables: the baseline's, and 8 (scripts/predictions.sh sweeps both)."""
    return sorted({baseline()["mt_dop"], "8"}, key=int)


def markers(name):
    """The lines around the block a page quotes of NAME's predictions (--page)."""
    return "<!-- %s-predictions:begin -->" % name, "<!-- %s-predictions:end -->" % name


def config_of(point):
    cfg = dict(baseline())
    for k, v in point.overrides.items():
        if k not in cfg:
            raise results.SweepError(f"point {point.id}: grid parameter {k!r} is not one this table knows "
                                     f"({', '.join(baseline())})")
        cfg[k] = str(v).lower()
    return tuple(sorted(cfg.items()))


def rows_of(configs):
    rows = []
    for cfg, result in configs.items():
        c = dict(cfg)
        s = result["summary"]
        rows.append({
            "cfg": c,
            "mt_dop": int(c["mt_dop"]),
            "K": int(c["rpcs_in_flight_per_channel"]),
            "buffer_kib": int(c["data_stream_sender_buffer_size"]) // 1024,
            "lz4": "on" if c["compression"] == "true" else "off",
            "eos_flush": c["eos_flush"],
            "rtt_us": float(c["cluster.rtt_us"]),
            "runtime_s": s["runtime_s_total"],
            "blocked_nonpushback_hash_s": s["nonpushback_slowest_sender_blocked_s_total"],
            "blocked_all_s": s["slowest_sender_blocked_s_total"],
            "hash_rpcs_m": s["hash_rpcs"] / 1e6,
            "nonpushback_hash_exchanges": s["nonpushback_hash_exchanges"],
            "memory_peak_query_mib": results.memory_peak_query(result) / MIB,
            "breakdown": s.get("breakdown_s_total", {}),
            "per_query": {q["query"]: q["runtime_s"] for q in result["queries"]},
        })
    by_cfg = {tuple(sorted(r["cfg"].items())): r for r in rows}
    for r in rows:
        k1 = dict(r["cfg"], rpcs_in_flight_per_channel="1")
        ref = by_cfg.get(tuple(sorted(k1.items())))
        r["runtime_vs_k1_pct"] = (100 * (r["runtime_s"] - ref["runtime_s"]) / ref["runtime_s"]) if ref else None
        base = by_cfg.get(tuple(sorted(dict(baseline(), mt_dop=r["cfg"]["mt_dop"]).items())))
        r["runtime_vs_baseline_pct"] = (100 * (r["runtime_s"] - base["runtime_s"]) / base["runtime_s"]
                                        if base else None)
        r["geomean_ratio_vs_baseline"] = geomean_ratio(r["per_query"], base["per_query"]) if base else None
    rows.sort(key=lambda r: (r["mt_dop"], r["eos_flush"] != "pipelined", -r["rtt_us"], r["lz4"] != "on",
                             r["buffer_kib"], r["K"]))
    return rows


def geomean_ratio(runtimes, reference):
    """Geometric mean over the queries of runtime / reference runtime (queries in both, positive)."""
    logs = [math.log(runtimes[q] / reference[q]) for q in runtimes
            if q in reference and runtimes[q] > 0 and reference[q] > 0]
    return math.exp(sum(logs) / len(logs)) if logs else None


def fmt(v, digits=1):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{round(v, digits) + 0.0:,.{digits}f}"  # + 0.0: no "-0.0" for a tiny negative sum
    return str(v)


def _settings(r):
    return [str(r["mt_dop"]), str(r["K"]), str(r["buffer_kib"]), r["lz4"], r["eos_flush"], fmt(r["rtt_us"], 0)]


SETTINGS_HEAD = ["mt_dop", "K (HASH, RANDOM)", "buffer (KiB)", "LZ4", "end of stream", "RTT (us)"]


def markdown(rows):
    head = SETTINGS_HEAD + ["runtime, sum of %d queries (s)" % query_count_of(rows), "vs K=1", "vs baseline", "geomean of per-query "
                            "ratios vs baseline", "blocked, non-pushback hash (s)", "blocked, all exchanges (s)",
                            "hash RPCs (M)", "non-pushback hash exchanges", "memory estimate, peak query (MiB)"]
    out = []
    for r in rows:
        vs = "-" if r["runtime_vs_k1_pct"] is None or r["K"] == 1 else f"{r['runtime_vs_k1_pct']:+.1f}%"
        vb = "-" if r["runtime_vs_baseline_pct"] is None else f"{r['runtime_vs_baseline_pct']:+.1f}%"
        gm = "-" if r["geomean_ratio_vs_baseline"] is None else f"{r['geomean_ratio_vs_baseline']:.3f}"
        out.append(_settings(r) + [
            fmt(r["runtime_s"]), vs, vb, gm, fmt(r["blocked_nonpushback_hash_s"]), fmt(r["blocked_all_s"]),
            fmt(r["hash_rpcs_m"], 2), r["nonpushback_hash_exchanges"], fmt(r["memory_peak_query_mib"], 0)])
    return markdown_table(head, out) + "\n"


def breakdown_markdown(rows):
    """The queries' breakdowns (seconds along each query's critical path) summed per configuration."""
    head = SETTINGS_HEAD + ["runtime (s)"] + [name + " (s)" for name, _ in breakdown_groups()]
    out = [_settings(r) + [fmt(r["runtime_s"])] + [fmt(v) for v in _grouped(r["breakdown"])] for r in rows]
    return markdown_table(head, out) + "\n"


def _grouped(breakdown):
    return [sum(breakdown.get(k, 0.0) for k in keys) for _, keys in breakdown_groups()]


def top_changes_markdown(configs, n=8):
    """Per mt_dop, the n queries whose runtime changes most from the baseline to each PER_QUERY
    configuration, with their breakdowns (grouped as in the breakdown table) at both."""
    out = []
    for mt in mt_dops():
        base_cfg = tuple(sorted(dict(baseline(), mt_dop=mt).items()))
        if base_cfg not in configs:
            continue
        base = {q["query"]: q for q in configs[base_cfg]["queries"]}
        for name, change in PER_QUERY[1:]:
            cfg = tuple(sorted(dict(baseline(), mt_dop=mt, **change).items()))
            if cfg not in configs:
                continue
            other = {q["query"]: q for q in configs[cfg]["queries"]}
            top = sorted(base, key=lambda q: (-abs(base[q]["runtime_s"] - other[q]["runtime_s"]), q))[:n]
            label = ", ".join("%s=%s" % kv for kv in sorted(change.items()))
            out.append("mt_dop=%s, baseline -> %s: the %d queries that change most (runtime, then the breakdown's "
                       "parts as in the table above, s):\n" % (mt, label, len(top)))
            head = ["query", "runtime (s)"] + [p for p, _ in breakdown_groups()]
            table = []
            for q in top:
                a, b = _grouped(base[q]["breakdown"]), _grouped(other[q]["breakdown"])
                table.append([q, "%s -> %s" % (fmt(base[q]["runtime_s"], 2), fmt(other[q]["runtime_s"], 2))]
                             + ["%s -> %s" % (fmt(x, 2), fmt(y, 2)) for x, y in zip(a, b)])
            out += [markdown_table(head, table), ""]
    return "\n".join(out)


def per_query_csv(configs):
    """Per query: runtime at the PER_QUERY configurations at the baseline's mt_dop and 8 (when swept) and the ratio to the
    baseline at the same mt_dop; a last row with the geometric mean of each ratio column."""
    cols, data = [], {}
    for mt in mt_dops():
        for name, change in PER_QUERY:
            cfg = tuple(sorted(dict(baseline(), mt_dop=mt, **change).items()))
            if cfg in configs:
                data["mt%s_%s" % (mt, name)] = {q["query"]: q["runtime_s"] for q in configs[cfg]["queries"]}
                cols.append("mt%s_%s" % (mt, name))
    if not cols:
        return None
    queries = [q["query"] for q in next(iter(configs.values()))["queries"]]
    if not queries:
        return None
    head, ratio_cols = ["query"], []
    for c in cols:
        head.append(c + "_s")
        if not c.endswith("_k1") and c.split("_")[0] + "_k1" in data:
            head.append(c + "_ratio")
            ratio_cols.append(c)
    table = []
    for q in queries:
        row = [q]
        for c in cols:
            row.append(data[c].get(q, ""))
            if c in ratio_cols:
                ref = data[c.split("_")[0] + "_k1"].get(q)
                row.append(data[c][q] / ref if ref else "")
        table.append(row)
    gm = ["geomean"]
    for c in cols:
        gm.append("")
        if c in ratio_cols:
            gm.append(geomean_ratio(data[c], data[c.split("_")[0] + "_k1"]))
    table.append(gm)
    return csv_text(head, table)


def baseline_label(k=True):
    """The baseline's K, buffer and compression as the plots' titles say them ("K=1, 16 KiB, LZ4")."""
    b = baseline()
    text = "%d KiB, %s" % (int(b["data_stream_sender_buffer_size"]) // 1024,
                           "LZ4" if b["compression"] == "true" else "no LZ4")
    return ("K=%s, " % b["rpcs_in_flight_per_channel"] if k else "") + text


def cdf_png(configs, title):
    """CDF of the hash exchanges' slowest-sender blocked time at K=1 and K=2, baseline otherwise;
    `title` names the workload and its cluster."""
    fig, ax = plt.subplots(figsize=(8.5, 4.8))
    drawn = 0
    for k in ("1", "2"):
        cfg = tuple(sorted(dict(baseline(), rpcs_in_flight_per_channel=k).items()))
        result = configs.get(cfg)
        if result is None:
            continue
        values = sorted(max(x["slowest_sender_blocked_s"], 1e-5) for x in result["exchanges"]
                        if x["partitioning"] == "HASH_PARTITIONED")
        fractions = [(i + 1) / len(values) for i in range(len(values))]
        total = sum(x["slowest_sender_blocked_s"] for x in result["exchanges"]
                    if x["partitioning"] == "HASH_PARTITIONED")
        ax.step(values, fractions, where="post", label=f"K={k}: {len(values)} hash exchanges, {total:.0f} s in all")
        drawn += 1
    if drawn == 0:
        raise results.SweepError("no baseline point with K=1 or K=2 to draw the CDF from")
    ax.set_xscale("log")
    ax.set_xlabel("slowest-sender blocked time per hash exchange (s; below 10 us drawn at 10 us)")
    ax.set_ylabel("fraction of hash exchanges")
    ax.set_title("%s, %s, mt_dop=%s (prediction)" % (title, baseline_label(k=False), baseline()["mt_dop"]))
    ax.legend(loc="upper left")
    ax.grid(alpha=0.3, which="both")
    return png_bytes(fig, dpi=100, tight=True)


def _key(cfg):
    return tuple(sorted(cfg.items()))


def intervals_of(path, configs):
    """({configuration: (low s, high s, prediction)}, [why an interval was left out]): each interval
    of tools/tpcds_uncertainty.py's runs (its CSV at `path`), a change against K=1 at the same
    mt_dop, applied to that K=1 runtime of the sweeps. An interval is used only where the sweeps'
    K=1 runtime is the one its runs were made against (the same workload and simulator)."""
    nominal, by_input = uncertainty.runs_from_csv(path)
    sets = dict(uncertainty.CONFIGS)
    out, left = {}, []
    for r in uncertainty.summarize(nominal, by_input):
        change = dict(s.split("=", 1) for s in sets[r["prediction"]])
        unknown = sorted(set(change) - set(baseline()))
        if unknown:
            left.append("%s: %s is not a setting of the table" % (r["prediction"], ", ".join(unknown)))
            continue
        mt = str(r["mt_dop"])
        base = configs.get(_key(dict(baseline(), mt_dop=mt)))
        cfg = _key(dict(baseline(), mt_dop=mt, **{k: _setting_text(v) for k, v in change.items()}))
        if base is None or cfg not in configs:
            continue
        t = base["summary"]["runtime_s_total"]
        ref = nominal[(r["prediction"], r["mt_dop"])][0]
        if abs(t - ref) > 1e-3:
            left.append("%s at mt_dop=%s: its K=1 run took %.3f s, the sweeps' %.3f s" % (r["prediction"], mt, ref, t))
            continue
        out[cfg] = (t * (1 + r["low"] / 100), t * (1 + r["high"] / 100), r["prediction"])
    return out, left


def _differs(r):
    """The settings of a row other than the baseline's, mt_dop aside: {setting: value}."""
    return {k: v for k, v in r["cfg"].items() if k != "mt_dop" and v != baseline()[k]}


def _label(r):
    parts = []
    d = _differs(r)
    if "rpcs_in_flight_per_channel" in d or "compression" in d or not d:
        parts.append("K=%d" % r["K"])
    if "data_stream_sender_buffer_size" in d:
        parts.append("%d KiB" % r["buffer_kib"])
    if "compression" in d:
        parts.append("no LZ4" if r["lz4"] == "off" else "LZ4")
    return ", ".join(parts)


# The series of the plot: (key, the settings its rows may differ from the baseline in, style); the
# last is the rows with the other compression than the baseline's.
SERIES = (
    ("K", {"rpcs_in_flight_per_channel"}, dict(color="tab:blue", marker="o", ls="-")),
    ("buffer", {"data_stream_sender_buffer_size"}, dict(color="tab:orange", marker="s", ls="-")),
    ("compression", {"compression", "rpcs_in_flight_per_channel", "data_stream_sender_buffer_size"},
     dict(color="tab:green", marker="^", ls="")),
)
# A span of change (percent) the runtime axes show at least, so that a workload K does not move is
# drawn flat, not magnified to the last digit.
MIN_SPAN_PCT = 2.0


def series_name(key):
    """A series as the legend names it, with what it keeps at the baseline ("K (16 KiB, LZ4)")."""
    b = baseline()
    lz4 = "LZ4" if b["compression"] == "true" else "no LZ4"
    if key == "K":
        return "K (%s)" % baseline_label(k=False)
    if key == "buffer":
        return "buffer size (K=%s, %s)" % (b["rpcs_in_flight_per_channel"], lz4)
    return "LZ4 off" if b["compression"] == "true" else "LZ4 on"


def _coinciding(members, runtime_tol=1e-4):
    """The members as [(row, label)], a point drawn on top of the one before it (memory within 0.1%,
    runtime within `runtime_tol` relative: 0.01%, or what a panel's scale makes as close) labelled
    with it, its label joined to that one's."""
    out = []
    for r in members:
        if out:
            prev = out[-1][0]
            if (abs(r["memory_peak_query_mib"] / prev["memory_peak_query_mib"] - 1) < 1e-3
                    and abs(r["runtime_s"] / prev["runtime_s"] - 1) < runtime_tol):
                out[-1] = (prev, out[-1][1] + "; " + _label(r))
                continue
        out.append((r, _label(r)))
    return out


def predictions_figure(rows, intervals, title="", intervals_page=""):
    """Per mt_dop: the summed runtime against the peak query's memory estimate of the configurations
    that differ from the baseline in K, buffer size or compression only. Both panels show the same
    span of change against their baseline (right axis), so a 1% change is as tall in each."""
    rows = [r for r in rows if not set(_differs(r)) - SERIES[-1][1]]
    mts = sorted({r["mt_dop"] for r in rows})
    if not rows:
        raise results.SweepError("no configuration of K, buffer size or compression to plot")
    base = {}
    for r in rows:
        if not _differs(r):
            base[r["mt_dop"]] = r["runtime_s"]
    pct = []   # every drawn value as a change against its panel's baseline
    for r in rows:
        if r["mt_dop"] in base:
            iv = intervals.get(_key(r["cfg"]))
            for y in (r["runtime_s"],) + (iv[:2] if iv else ()):
                pct.append(100.0 * (y / base[r["mt_dop"]] - 1))
    lo, hi = (min(pct), max(pct)) if pct else (0.0, 0.0)
    pad = 0.08 * (hi - lo or 1.0)
    lo, hi = lo - pad, hi + pad
    if hi - lo < MIN_SPAN_PCT:
        mid = (hi + lo) / 2
        lo, hi = mid - MIN_SPAN_PCT / 2, mid + MIN_SPAN_PCT / 2
    fig, axes = plt.subplots(1, len(mts), figsize=(6.2 * len(mts), 5.0), squeeze=False)
    axes = axes[0]
    panels = []
    for ax, mt in zip(axes, mts):
        here = [r for r in rows if r["mt_dop"] == mt]
        xs = [r["memory_peak_query_mib"] for r in here]
        x0, x1 = min(xs) / 1.3, max(xs) * 1.6
        labels = []   # (point, text, color) of the panel, placed once its limits are set
        lines = []
        for key, allowed, style in SERIES:
            members = [r for r in here if set(_differs(r)) <= allowed
                       and (key == SERIES[-1][0]) == ("compression" in _differs(r))]
            members.sort(key=lambda r: r["memory_peak_query_mib"])
            if not any(_differs(r) for r in members) and key != SERIES[0][0]:
                continue   # the baseline alone: drawn on the K line
            xy = [(r["memory_peak_query_mib"], r["runtime_s"]) for r in members]
            ax.plot([x for x, _ in xy], [y for _, y in xy], label=series_name(key), markersize=6, zorder=3, **style)
            lines.append(xy)
            # the baseline is labelled once, on the K line
            # points closer than 5% of the panel's height (a marker's size) are drawn on one another
            for r, label in _coinciding([r for r in members if _differs(r) or key == SERIES[0][0]],
                                        max(1e-4, 0.05 * (hi - lo) / 100)):
                labels.append(((r["memory_peak_query_mib"], r["runtime_s"]), label, style["color"]))
        for r in here:
            iv = intervals.get(_key(r["cfg"]))
            if iv:
                # an interval is made from runs whose runtimes the CSV keeps to the millisecond: a
                # point by a rounding outside it sits on its end
                ax.errorbar([r["memory_peak_query_mib"]], [r["runtime_s"]], fmt="none", color="black", lw=1,
                            capsize=4, zorder=2, yerr=[[max(0.0, r["runtime_s"] - iv[0])],
                                                       [max(0.0, iv[1] - r["runtime_s"])]])
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1, 2, 5)))
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: format(v, ",.0f")))
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xlim(x0, x1)
        ax.set_xlabel("sender memory estimate of the peak query (MiB, log scale)", fontsize=9)
        ax.set_ylabel("runtime, sum of the %d queries (s)" % query_count_of(here), fontsize=9)
        ax.set_title("mt_dop=%d" % mt, fontsize=10)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=8)
        b = base.get(mt)
        if b is not None:
            ax.set_ylim(max(0.0, b * (1 + lo / 100)), b * (1 + hi / 100))
            right = ax.secondary_yaxis("right", functions=(lambda y, b=b: 100.0 * (y / b - 1),
                                                            lambda p, b=b: b * (1 + p / 100.0)))
            right.set_ylabel("change vs %s at mt_dop=%d (%%)" % (baseline_label(), mt), fontsize=9)
            right.tick_params(labelsize=8)
        else:
            ax.set_ylim(bottom=0)
        panels.append((ax, labels, lines))
    handles, labels = axes[0].get_legend_handles_labels()
    if intervals:
        handles.append(matplotlib.lines.Line2D([], [], color="black", lw=1, marker="_", markersize=8))
        labels.append("interval from the inputs' ranges (%s)" % intervals_page)
    fig.legend(handles, labels, loc="lower center", ncol=len(handles), fontsize=8, frameon=False)
    fig.suptitle("%s: runtime against sender memory, K, buffer size and LZ4 (predictions of the model)" % title,
                 fontsize=11)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    # Labels last, where the laid-out panels show them: each where it covers no other label, point or
    # line (common.figures.place_labels).
    for ax, labels, lines in panels:
        place_labels(ax, [p for p, _, _ in labels], [t for _, t, _ in labels], lines=lines,
                     colors=[c for _, _, c in labels], fontsize=7.5)
    return fig


def query_count_of(rows):
    """The number of queries the rows' runtimes sum; ValueError when the rows disagree."""
    counts = {len(r["per_query"]) for r in rows}
    if len(counts) != 1:
        raise ValueError("the configurations sum different numbers of queries: %s" % sorted(counts))
    return counts.pop()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sweeps", nargs="+", metavar="SWEEP_DIR", help="sweep directories of one workload")
    ap.add_argument("--out", default="out", help="output folder (default: out)")
    ap.add_argument("--name", help="prefix of the files written and name of the page's block (default: the "
                    "scenario's name)")
    ap.add_argument("--title", help="the workload as the tables and plots name it (default: the scenario's name)")
    ap.add_argument("--page", "--readme", dest="readme",
                    help="also replace the NAME-predictions block of this Markdown file")
    ap.add_argument("--intervals", default="",
                    help="runs CSV of tools/tpcds_uncertainty.py whose intervals the predictions plot draws as bars "
                    "(docs/tpcds_uncertainty.csv for the TPC-DS workload); an interval is drawn only where its K=1 "
                    "run is the sweeps' one")
    args = ap.parse_args(argv)
    try:
        configs, points = {}, []
        for d in args.sweeps:
            points += results.finished(results.load_points(d))
        if not points:
            raise results.SweepError("no finished point in " + ", ".join(args.sweeps))
        scenarios = sorted({p.result["scenario"]["name"] for p in points})
        if len(scenarios) > 1:
            raise results.SweepError("the sweeps are of several scenarios (%s): one workload at a time"
                                     % ", ".join(scenarios))
        name, title = args.name or scenarios[0], args.title or scenarios[0]
        use_baseline_of(points)
        for p in points:
            configs.setdefault(config_of(p), p.result)
        rows = rows_of(configs)
        table = markdown(rows)
        out = Path(args.out)
        executors = points[0].result["settings"]["cluster"]["executors"]
        atomic.write_text(out / f"{name}_predictions.md", f"# {title} predictions\n\n"
                          "Generated by analysis/predictions.py from sweeps of the scenario "
                          f"`{scenarios[0]}`. Predictions of the model, not measurements.\n\n"
                          + table + "\nWhere the time goes: each query's breakdown (seconds along its critical "
                          "path, results `queries[].breakdown`) summed over the queries:\n\n"
                          + breakdown_markdown(rows) + "\n" + top_changes_markdown(configs))
        atomic.write_text(out / f"{name}_predictions.csv", csv_text(COLUMNS, [[r[c] for c in COLUMNS] for r in rows]))
        per_query = per_query_csv(configs)
        if per_query:
            atomic.write_text(out / f"{name}_predictions_per_query.csv", per_query)
        atomic.write_bytes(out / "figures" / f"{name}_blocked_cdf.png",
                           cdf_png(configs, f"{title}, {executors} executors"))
        intervals = {}
        if args.intervals:
            intervals, left = intervals_of(args.intervals, configs)
            for why in left:
                print(f"predictions: interval left out of the plot: {why}", file=sys.stderr)
        inside = os.path.abspath(args.intervals).startswith(str(REPO) + os.sep)
        page = os.path.splitext(os.path.relpath(args.intervals, REPO) if inside else args.intervals)[0] + ".md" \
            if args.intervals else ""
        atomic.write_bytes(out / "figures" / f"{name}_predictions.png",
                           png_bytes(predictions_figure(rows, intervals, title, page), dpi=100, tight=True))
        if args.readme:
            block = table + "\nWhere the time goes (the queries' breakdowns summed, s):\n\n" + breakdown_markdown(rows)
            tables.replace_block_in_file(args.readme, *markers(name), block)
    except (results.SweepError, OSError, ValueError, KeyError) as e:
        print(f"predictions: {e}", file=sys.stderr)
        return 2
    print(table, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
