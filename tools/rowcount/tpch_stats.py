"""The command line of the TPC-H table statistics: scenarios/tpch_harness/table_stats.json.

tools/rowcount/colstats.py says what is measured and how; this module loads the two folders
(measure.load_database, the row counter's cached databases), runs the statements, writes the
Parquet files into a scratch folder it deletes afterwards, and assembles the document and its checks.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time

from common import atomic
from tools.rowcount import TranslateError, colstats, engine
from tools.rowcount.benchmark import TPCH, TPCH_FILE
from tools.rowcount.measure import load_database
from tools.rowcount.tpch import _engine_version, _num, check_tables
from tools.tpcds import DEFAULT_PLANS, REPO
from tools.tpcds.plans import git_blob_sha1

DEFAULT_OUT = os.path.join(REPO, "scenarios", "tpch_harness", "table_stats.json")
PARQUET_NOTE = (
    "Bytes of each table written by DuckDB's Parquet writer with Snappy (COPY ... (FORMAT parquet, COMPRESSION "
    "snappy), DuckDB's defaults otherwise: row groups of 122,880 rows, dictionary or plain encoding, DECIMAL as "
    "INT64), one file per table. Impala's writer is not DuckDB's: it writes files of up to 256 MB, each one row "
    "group, DECIMAL as FIXED_LEN_BYTE_ARRAY, its own dictionary limits; so these are an estimate of the files "
    "Impala would write: checks.against_impalas_sf1_tables.parquet_bytes compares them with the sizes Impala's "
    "planner tests print for the SF1 Parquet tables Impala wrote (tpch_parquet, its default codec Snappy), and "
    "`parquet_check` says how far the row group size alone moves them.")


def measure_scale(folder, scale, schema, cache, parquet_root, threads, say):
    """{table: stats} at one scale factor: colstats.read_results plus text and Parquet bytes."""
    os.makedirs(cache, exist_ok=True)
    db = os.path.join(cache, "tpch_sf%g.duckdb" % scale)
    f = load_database(folder, schema, db, threads, say, TPCH)
    tables = sorted(f.files)
    pdir = os.path.join(parquet_root, "sf%g" % scale)
    os.makedirs(pdir, exist_ok=True)
    t0 = time.monotonic()
    res = engine.run(colstats.statements(schema, tables, pdir), db, threads, read_only=True,
                     on_result=lambda i, r: say("  SF%g %s %s" % (scale, i, r.get("error", "%.1f s" % r.get(
                         "seconds", 0)))) if not i.startswith("column") else None)
    try:
        out = colstats.read_results(schema, tables, res)
    except ValueError as e:
        raise TranslateError("%s: %s" % (db, e))
    for t in tables:
        out[t]["text_bytes"] = sum(os.path.getsize(p) for p in f.files[t])
        out[t]["parquet_bytes"] = os.path.getsize(os.path.join(pdir, t + ".parquet"))
    say("SF%g measured in %.0f s" % (scale, time.monotonic() - t0))
    return out


def parquet_check(db, table, parquet_root, row_group_rows, threads):
    """The table's Parquet bytes with `row_group_rows` rows per row group (DuckDB's default is 122,880)."""
    pdir = os.path.join(parquet_root, "check")
    os.makedirs(pdir, exist_ok=True)
    big = os.path.join(pdir, "%s_%s.parquet" % (table, os.path.basename(db)))
    sql = "COPY (SELECT * FROM %s) TO '%s' (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE %d)" % (
        table, big.replace("'", "''"), row_group_rows)
    res = engine.run([("big", sql)], db, threads, read_only=True)
    if "error" in res["big"]:
        raise TranslateError("%s: %s" % (db, res["big"]["error"]))
    size = os.path.getsize(big)
    os.remove(big)     # one at a time: the scratch folder holds the tables and at most one of these
    return size


def assemble(schema, stats, scale_a, scale_b, printed_sizes):
    """The document's `tables` and `checks` from {scale: {table: stats}}."""
    ka, kb = "sf%g" % scale_a, "sf%g" % scale_b
    tables = {}
    for t in sorted(set(stats[scale_a]) & set(stats[scale_b])):
        a, b = stats[scale_a][t], stats[scale_b][t]
        cols = {}
        for c, ty in schema[t]:
            ca, cb = a["columns"][c], b["columns"][c]
            col = {"type": ty, "slot_bytes": colstats.slot_size(ty),
                   "distinct": {ka: ca["distinct"], kb: cb["distinct"]},
                   "nulls": {ka: ca["nulls"], kb: cb["nulls"]}}
            if colstats.is_string(ty):
                col["avg_len"] = {ka: round(ca["avg_len"], 4), kb: round(cb["avg_len"], 4)}
                col["max_len"] = {ka: ca["max_len"], kb: cb["max_len"]}
            col["growth"] = colstats.growth(ca["distinct"], cb["distinct"], a["rows"] - ca["nulls"],
                                            b["rows"] - cb["nulls"], scale_a, scale_b, t in TPCH.fixed_tables)
            cols[c] = col
        rb = {k: colstats.row_bytes(schema[t], s["columns"]) for k, s in ((ka, a), (kb, b))}
        tables[t] = {
            "grows_with_scale": t not in TPCH.fixed_tables,
            "rows": {ka: a["rows"], kb: b["rows"]},
            "row_bytes": {"fixed": rb[kb]["fixed"],
                          "variable": {ka: round(rb[ka]["variable"], 4), kb: round(rb[kb]["variable"], 4)},
                          "planner_row_size": {ka: round(rb[ka]["planner_row_size"], 4),
                                               kb: round(rb[kb]["planner_row_size"], 4)}},
            "text_bytes": {ka: a["text_bytes"], kb: b["text_bytes"]},
            "text_bytes_per_row": {k: round(s["text_bytes"] / s["rows"], 4) for k, s in ((ka, a), (kb, b))},
            "parquet_snappy_bytes": {ka: a["parquet_bytes"], kb: b["parquet_bytes"]},
            "parquet_snappy_bytes_per_row": {k: round(s["parquet_bytes"] / s["rows"], 4)
                                             for k, s in ((ka, a), (kb, b))},
            "columns": cols,
            "impala_stats": {k: {"numRows": s["rows"], "totalSize": s["parquet_bytes"],
                                 "columns": {c: colstats.impala_column(ty, s["columns"][c]) for c, ty in schema[t]}}
                             for k, s in ((ka, a), (kb, b))},
        }
    checks = {"tables": {ka: check_tables({t: s["rows"] for t, s in stats[scale_a].items()}, scale_a),
                         kb: check_tables({t: s["rows"] for t, s in stats[scale_b].items()}, scale_b)}}
    if scale_a == 1 and printed_sizes:
        checks["text_bytes_against_plan_sizes"] = colstats.check_plan_sizes(
            {t: s["text_bytes"] for t, s in stats[scale_a].items()},
            {t: s["rows"] for t, s in stats[scale_a].items()}, printed_sizes)
    if scale_a == 1:
        checks["against_impalas_sf1_tables"] = colstats.check_impala_sf1(
            {t: {"parquet_bytes": v["parquet_snappy_bytes"][ka], "planner_row_size": v["row_bytes"][
                "planner_row_size"][ka]} for t, v in tables.items()})
    return tables, checks


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Measure the statistics Impala's planner would have for the TPC-H tables (rows, per column "
                    "distinct values, nulls, string lengths, growth between two scale factors; text and "
                    "Parquet+Snappy bytes per row) on two whole scale factors of TPC-H data; writes "
                    "scenarios/tpch_harness/table_stats.json.",
        epilog="The data is yours to make with the TPC's kit: --sf-a and --sf-b are folders of dbgen output "
               "(`dbgen -s 1 -f`, `dbgen -s 10 -f`: TABLE.tbl files); this tool never builds or runs the kit. "
               "The Parquet files go to a scratch folder (--parquet-dir) that is deleted afterwards; SF10 needs "
               "about 3.5 GB there, and 2 GB more for a --check-row-group-rows file. tools/rowcount/colstats.py "
               "says what each field means.")
    ap.add_argument("--sf-a", required=True, help="folder of dbgen output at the smaller scale factor")
    ap.add_argument("--scale-a", type=float, default=1, help="its scale factor (default 1)")
    ap.add_argument("--sf-b", required=True, help="folder of dbgen output at the larger scale factor")
    ap.add_argument("--scale-b", type=float, default=10, help="its scale factor (default 10)")
    ap.add_argument("--plans", default=DEFAULT_PLANS,
                    help="Impala's planner tests (default ../shared/impala-plans; reads %s) or the file itself; "
                         "its scans' printed sizes check the SF1 text (skipped when absent)" % TPCH_FILE)
    ap.add_argument("--cache", default=os.path.join(REPO, "build", "rowcount"),
                    help="folder for the DuckDB databases loaded from the data (default build/rowcount, shared "
                         "with tools/tpch_measure_rows.py)")
    ap.add_argument("--parquet-dir", default=None,
                    help="scratch folder for the Parquet files, outside the repository (default: a new folder "
                         "in the system's temporary folder); the tool's subfolders there (sfA, sfB, check) are "
                         "deleted afterwards, and the folder too if the tool made it")
    ap.add_argument("--check-row-group-rows", default="",
                    help="comma-separated row group sizes (e.g. 2000000,7000000: about the rows of one of Impala's "
                         "SF1 lineitem files, and of one 256 MB file) to write lineitem with at both scale factors "
                         "too, showing how much the row group size moves its bytes")
    ap.add_argument("--threads", type=int, default=0, help="DuckDB threads (default: all cores)")
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    say = lambda m: print("tpch_table_stats: %s" % m, file=sys.stderr, flush=True)   # noqa: E731
    for opt, d in (("--sf-a", args.sf_a), ("--sf-b", args.sf_b)):
        if not os.path.isdir(d):
            ap.error("%s %s: no such folder" % (opt, d))
    if not 0 < args.scale_a < args.scale_b:
        ap.error("--scale-a and --scale-b: expected 0 < A < B, got %g and %g" % (args.scale_a, args.scale_b))
    if args.threads < 0:
        ap.error("--threads: expected 0 (all cores) or more, got %d" % args.threads)
    try:
        group_rows = [int(x) for x in args.check_row_group_rows.split(",") if x.strip()]
    except ValueError:
        group_rows = [0]
    if any(g <= 0 for g in group_rows):
        ap.error("--check-row-group-rows: expected comma-separated positive row counts, got %r"
                 % args.check_row_group_rows)
    plan_file = args.plans if os.path.isfile(args.plans) else os.path.join(args.plans, TPCH_FILE)
    t0 = time.monotonic()
    threads = args.threads or None
    parquet_root = args.parquet_dir or tempfile.mkdtemp(prefix="exsim-tpch-parquet-")
    made_root = not os.path.exists(parquet_root) or args.parquet_dir is None
    try:
        schema = TPCH.columns(args.plans)
        printed = colstats.plan_scan_sizes(plan_file) if os.path.isfile(plan_file) else {}
        stats = {s: measure_scale(d, s, schema, args.cache, parquet_root, threads, say)
                 for d, s in ((args.sf_a, args.scale_a), (args.sf_b, args.scale_b))}
        check = None
        if group_rows:
            check = {"table": "lineitem", "default_row_group_rows": 122880}
            for s in (args.scale_a, args.scale_b):
                db = os.path.join(args.cache, "tpch_sf%g.duckdb" % s)
                small = stats[s]["lineitem"]["parquet_bytes"]
                check["sf%g" % s] = {"default_bytes": small}
                for g in group_rows:
                    big = parquet_check(db, "lineitem", parquet_root, g, threads)
                    check["sf%g" % s]["row_groups_of_%d" % g] = {"bytes": big, "ratio": round(big / small, 4)}
    except (TranslateError, engine.EngineError, ValueError, OSError) as e:
        print("tpch_table_stats: %s" % e, file=sys.stderr)
        return 2
    finally:
        for s in (args.scale_a, args.scale_b):
            shutil.rmtree(os.path.join(parquet_root, "sf%g" % s), ignore_errors=True)
        shutil.rmtree(os.path.join(parquet_root, "check"), ignore_errors=True)
        if made_root:
            shutil.rmtree(parquet_root, ignore_errors=True)
    tables, checks = assemble(schema, stats, args.scale_a, args.scale_b, printed)
    doc = {
        "about": "Statistics of the TPC-H tables as Impala's planner would have them (COMPUTE STATS), measured "
                 "on TPC-H data (dbgen) at SF%g and SF%g by tools/tpch_table_stats.py "
                 "(tools/rowcount/colstats.py says how)." % (args.scale_a, args.scale_b),
        "benchmark": "tpch",
        "scale_factors": [_num(args.scale_a), _num(args.scale_b)],
        "engine": "DuckDB %s (npm @duckdb/node-api)" % _engine_version(),
        "types": "Impala's TPC-H test schema (tools/rowcount/benchmark.py TPCH_COLUMNS): dates are STRING",
        "fields": {
            "distinct": "exact count(DISTINCT) (Impala's numDVs is a HyperLogLog estimate of it)",
            "avg_len, max_len": "bytes of a STRING column's non-null values",
            "row_bytes": "fixed: the tuple's slots (STRING 12, DECIMAL(12,2) 8, BIGINT 8, INT 4, SMALLINT 2) and a "
                         "null bit per slot; variable: the strings' average lengths; planner_row_size: slots + "
                         "average lengths, the row-size Impala's planner prints for a scan of every column",
            "growth": colstats.GROWTH_CLASSES,
            "parquet_snappy_bytes": PARQUET_NOTE,
            "impala_stats": "per scale factor, the table as stats-3TB.json holds TPC-DS's (numRows, totalSize: the "
                            "Parquet bytes, per column numDVs, numNulls, maxColLen, avgColLen)",
        },
        "plans": ({"file": TPCH_FILE, "git_blob": git_blob_sha1(open(plan_file, "rb").read())}
                  if os.path.isfile(plan_file) else None),
        "tables": tables,
        "checks": checks,
    }
    if check:
        doc["parquet_check"] = check
    atomic.write_text(args.out, json.dumps(doc, indent=1) + "\n")
    say("%d tables -> %s in %.0f s" % (len(tables), args.out, time.monotonic() - t0))
    return 0
