#!/usr/bin/python3
"""Predictions table and blocked-time CDF of the TPC-DS workload, from sweeps of it.

Reads one or more sweep directories of scenarios/tpcds_sf100/workload.json
(run_sweep.py), and writes

    OUT/tpcds_predictions.md    the table (Markdown), one row per configuration, and the queries'
                                breakdowns summed per configuration (what the time went to)
    OUT/tpcds_predictions.csv   the same figures for other tools
    OUT/tpcds_predictions_per_query.csv
                                per query: its runtime at K=1 and K=2 (and at K=2 with 128 KiB and no
                                LZ4) at mt_dop 0 and 8, and the ratio to the baseline
    OUT/figures/tpcds_blocked_cdf.png
                                CDF of the per-exchange slowest-sender blocked time of
                                the hash exchanges, K=1 against K=2 (baseline otherwise)

With --readme FILE the two tables also replace the block between the lines
`<!-- tpcds-predictions:begin -->` and `<!-- tpcds-predictions:end -->` of FILE.

Usage:
    analysis/tpcds_predictions.py SWEEP_DIR [SWEEP_DIR ...] [--out docs] [--readme README.md]

A configuration is the set of --set overrides of a point with the baseline's
values filled in (K=1, 16 KiB, LZ4 on, mt_dop=0, pipelined end of stream, RTT
390 us); a configuration found in several sweeps is shown once. "vs baseline"
compares with the baseline at the same mt_dop: the change of the summed runtime,
and the geometric mean over the queries of their runtime ratios (every query
weighs the same, whatever its length).
"""

import argparse
import functools
import math
import sys
from pathlib import Path

if not __package__:  # run as a script: the repository root on sys.path, as for every entry point
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import matplotlib  # noqa: E402

matplotlib.use("Agg")  # no display needed; must precede pyplot
import matplotlib.pyplot as plt  # noqa: E402

from analysis import results  # noqa: E402
from common import atomic, exsim_runner  # noqa: E402
from common import tables  # noqa: E402
from common.tables import csv_text, markdown_table  # noqa: E402
from common.figures import png_bytes  # noqa: E402

MIB = 1 << 20
# The settings a configuration of the table is made of, as a sweep's grid names them.
SETTINGS = ("rpcs_in_flight_per_channel", "data_stream_sender_buffer_size", "compression", "mt_dop", "eos_flush",
            "cluster.rtt_us")


def _setting_text(value):
    """A setting's value as config_of keys it: as a sweep writes it on the command line, lower case."""
    return str(value).lower()


@functools.cache
def baseline():
    """The baseline configuration: every setting at the simulator's default (Impala's; the measured
    configuration of calibration-data.md section A), read from its parameter table."""
    return {name: _setting_text(exsim_runner.parameter_default(*(name.split(".") if "." in name else ("flags", name))))
            for name in SETTINGS}

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
BEGIN = "<!-- tpcds-predictions:begin -->"
END = "<!-- tpcds-predictions:end -->"


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
    head = SETTINGS_HEAD + ["runtime, sum of 104 queries (s)", "vs K=1", "vs baseline", "geomean of per-query "
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
    for mt in ("0", "8"):
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
    """Per query: runtime at the PER_QUERY configurations at mt_dop 0 and 8 (when swept) and the ratio to the
    baseline at the same mt_dop; a last row with the geometric mean of each ratio column."""
    cols, data = [], {}
    for mt in ("0", "8"):
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


def cdf_png(configs):
    """CDF of the hash exchanges' slowest-sender blocked time at K=1 and K=2, baseline otherwise."""
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
    ax.set_title("TPC-DS SF100, 5 executors, 16 KiB, LZ4, mt_dop=0 (prediction)")
    ax.legend(loc="upper left")
    ax.grid(alpha=0.3, which="both")
    return png_bytes(fig, dpi=100, tight=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sweeps", nargs="+", metavar="SWEEP_DIR", help="sweep directories of the TPC-DS workload")
    ap.add_argument("--out", default="docs", help="output folder (default: docs)")
    ap.add_argument("--readme", help="also replace the predictions block of this Markdown file")
    args = ap.parse_args(argv)
    try:
        configs = {}
        for d in args.sweeps:
            for p in results.finished(results.load_points(d)):
                configs.setdefault(config_of(p), p.result)
        if not configs:
            raise results.SweepError("no finished point in " + ", ".join(args.sweeps))
        rows = rows_of(configs)
        table = markdown(rows)
        out = Path(args.out)
        atomic.write_text(out / "tpcds_predictions.md", "# TPC-DS SF100 predictions\n\n"
                          "Generated by analysis/tpcds_predictions.py from sweeps of "
                          "scenarios/tpcds_sf100/workload.json. Predictions of the model, not measurements.\n\n"
                          + table + "\nWhere the time goes: each query's breakdown (seconds along its critical "
                          "path, results `queries[].breakdown`) summed over the queries:\n\n"
                          + breakdown_markdown(rows) + "\n" + top_changes_markdown(configs))
        atomic.write_text(out / "tpcds_predictions.csv", csv_text(COLUMNS, [[r[c] for c in COLUMNS] for r in rows]))
        per_query = per_query_csv(configs)
        if per_query:
            atomic.write_text(out / "tpcds_predictions_per_query.csv", per_query)
        atomic.write_bytes(out / "figures" / "tpcds_blocked_cdf.png", cdf_png(configs))
        if args.readme:
            block = table + "\nWhere the time goes (the queries' breakdowns summed, s):\n\n" + breakdown_markdown(rows)
            tables.replace_block_in_file(args.readme, BEGIN, END, block)
    except (results.SweepError, OSError, ValueError) as e:
        print(f"tpcds_predictions: {e}", file=sys.stderr)
        return 2
    print(table, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
