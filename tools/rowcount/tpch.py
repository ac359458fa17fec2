"""Rows of every node of Impala's TPC-H plans at the target scale factors, counted on dbgen output.

Input: two folders of dbgen output (`TABLE.tbl`, '|'-separated with a trailing '|'), whole scale
factors A and B (SF1 and SF10 by default), made by the user with the TPC's kit: the project ships
neither the kit nor the data. The plans are Impala's tpch-all.test (../shared/impala-plans/tpch/):
the DISTRIBUTEDPLAN and PARALLELPLANS sections of the 22 queries, planned on the test data set's
SF1 tables. tools/rowcount/linear.py says how a node's rows at each target follow from its two
counts; the output also holds the checks that the translation is right:
  - the tables' rows at A and B against the TPC-H specification's sizes (lineitem is not exactly
    linear: dbgen draws 1 to 7 lines per order);
  - the root's rows at SF1 against the answer set sizes of the specification's validation queries
    (Impala's test queries use the validation parameters; a difference names the query);
  - every node's SF1 count over the planner's printed SF1 estimate (the ratio distribution).
Coverage: every plan node is counted or listed with the reason it is not; the output's `coverage`
counts the hash exchanges and the operators whose rows set the simulator's CPU costs.
"""

import argparse
import json
import math
import os
import sys
import time

from common import atomic
from tools.rowcount import TranslateError, engine
from tools.rowcount.benchmark import TPCH, TPCH_FILE
from tools.rowcount.linear import TOLERANCE, TwoScales
from tools.rowcount.measure import load_database
from tools.tpcds import DEFAULT_PLANS, REPO, PlanError
from tools.tpcds.plans import git_blob_sha1

SECTION_NAMES = ("DISTRIBUTEDPLAN", "PARALLELPLANS")
DEFAULT_OUT = os.path.join(REPO, "scenarios", "tpch_harness", "measured_rows.json")
# Rows per scale factor of each table (the TPC-H specification's table cardinalities, SF x base):
# None for lineitem, whose lines per order dbgen draws at random (about 6,000,000 per SF).
SPEC_ROWS_PER_SF = {"part": 200000, "supplier": 10000, "partsupp": 800000, "customer": 150000,
                    "orders": 1500000, "lineitem": None}
SPEC_FIXED_ROWS = {"nation": 25, "region": 5}
SPEC_LINEITEM_SF1 = 6001215
# The answer set sizes of the specification's validation queries at SF1 (its qualification
# answers; a limit where the query has one).
SPEC_ANSWER_ROWS_SF1 = {"q01": 4, "q02": 100, "q03": 10, "q04": 5, "q05": 5, "q06": 1, "q07": 4, "q08": 2,
                        "q09": 175, "q10": 20, "q11": 1048, "q12": 2, "q13": 42, "q14": 1, "q15": 1,
                        "q16": 18314, "q17": 1, "q18": 57, "q19": 1, "q20": 186, "q21": 100, "q22": 7}
# The nodes whose rows set CPU costs in a scenario (tools/tpcds/fragments.py's operators).
CPU_KINDS = ("SCAN HDFS", "HASH JOIN", "NESTED LOOP JOIN", "AGGREGATE", "TOP-N", "SORT", "ANALYTIC",
             "SELECT", "UNION", "EXCHANGE", "MERGING-EXCHANGE")


def check_tables(rows, scale):
    """[(table, counted, expected, ok)] for one scale factor."""
    out = []
    for t, n in sorted(rows.items()):
        if t in SPEC_FIXED_ROWS:
            want = SPEC_FIXED_ROWS[t]
        elif SPEC_ROWS_PER_SF.get(t):
            want = SPEC_ROWS_PER_SF[t] * scale
        elif t == "lineitem" and scale == 1:
            want = SPEC_LINEITEM_SF1
        else:
            want = None
        out.append({"table": t, "rows": n, "expected": want, "ok": None if want is None else n == want})
    return out


def check_roots(records, scale_a):
    """Each query's root rows at SF A (both sections) against the specification's answer size."""
    out = {}
    for key, rec in sorted(records.items()):
        q, section = key.split(" ")
        root = rec.get("root")
        node = rec["nodes"].get(str(root)) if root is not None else None
        got = node["counts"]["sf%g" % scale_a] if node else None
        r = out.setdefault(q, {"expected_sf1": SPEC_ANSWER_ROWS_SF1.get(q)})
        r[section] = got
    for q, r in out.items():
        got = {r.get(s) for s in SECTION_NAMES}
        r["ok"] = len(got) == 1 and r["expected_sf1"] in got if scale_a == 1 else None
    return out


def planner_ratios(records, scale_a):
    """SF A count / the plan's printed SF1 estimate for every counted node that prints one; a scan's
    count before its runtime filters (the plans print the planner's estimate without them)."""
    ratios = []
    for key, rec in sorted(records.items()):
        for nid, n in rec["nodes"].items():
            est = n.get("planner_sf1")
            got = n.get("before_filters", n["counts"])["sf%g" % scale_a]
            if est and got:
                ratios.append((got / est, key, nid, n["kind"]))
    if not ratios:
        return {}
    rs = sorted(r for r, _, _, _ in ratios)

    def q(p):
        return rs[min(len(rs) - 1, int(p * (len(rs) - 1) + 0.5))]
    within = lambda f: sum(1 for r in rs if 1 / f <= r <= f)   # noqa: E731
    worst = sorted(ratios, key=lambda x: -abs(math.log(x[0])))[:15]
    return {"nodes": len(rs), "min": rs[0], "p10": q(0.1), "median": q(0.5), "p90": q(0.9), "max": rs[-1],
            "within_1.5x": within(1.5), "within_2x": within(2.0), "within_10x": within(10.0),
            "farthest": [{"plan": k, "node": int(nid), "kind": kind, "ratio": r} for r, k, nid, kind in worst]}


def coverage(plans, records):
    """Per section and in all: nodes, hash exchanges and CPU-costed nodes counted, and the reason of each left out."""
    total = {"nodes": 0, "counted": 0, "hash_exchanges": 0, "hash_exchanges_counted": 0, "cpu_nodes": 0,
             "cpu_nodes_counted": 0}
    left_out = {}
    for key, plan, _ in plans:
        rec = records[key]
        for n in plan.nodes.values():
            counted = str(n.nid) in rec["nodes"]
            total["nodes"] += 1
            total["counted"] += counted
            if n.kind == "EXCHANGE" and n.bracket.startswith("[HASH("):
                total["hash_exchanges"] += 1
                total["hash_exchanges_counted"] += counted
            if n.kind in CPU_KINDS:
                total["cpu_nodes"] += 1
                total["cpu_nodes_counted"] += counted
            if not counted:
                left_out.setdefault(key, {})[str(n.nid)] = rec["untranslated"].get(str(n.nid), "not translated")
    queries = {k.split(" ")[0] for k, _, _ in plans}
    full = {k.split(" ")[0] for k, _, _ in plans} - {k.split(" ")[0] for k in left_out}
    total["queries"] = len(queries)
    total["queries_every_node_counted"] = len(full)
    total["left_out"] = left_out
    return total


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Count the rows of every node of Impala's TPC-H plans (tpch-all.test: DISTRIBUTEDPLAN and "
                    "PARALLELPLANS) on two whole scale factors of TPC-H data and carry them to target scale "
                    "factors; writes scenarios/tpch_harness/measured_rows.json.",
        epilog="The data is yours to make with the TPC's kit: --sf-a and --sf-b are folders of dbgen output "
               "(`dbgen -s 1 -f`, `dbgen -s 10 -f`: TABLE.tbl files); this tool never builds or runs the kit. "
               "tools/rowcount/linear.py says how each node's target rows follow from its two counts.")
    ap.add_argument("--sf-a", required=True, help="folder of dbgen output at the smaller scale factor")
    ap.add_argument("--scale-a", type=float, default=1, help="its scale factor (default 1)")
    ap.add_argument("--sf-b", required=True, help="folder of dbgen output at the larger scale factor")
    ap.add_argument("--scale-b", type=float, default=10, help="its scale factor (default 10)")
    ap.add_argument("--targets", default="42,300", help="comma-separated target scale factors (default 42,300)")
    ap.add_argument("--plans", default=DEFAULT_PLANS,
                    help="Impala's planner tests (default ../shared/impala-plans; reads %s) or the file itself"
                    % TPCH_FILE)
    ap.add_argument("--queries", default="", help="comma-separated queries (q01,q13,...; default all 22)")
    ap.add_argument("--cache", default=os.path.join(REPO, "build", "rowcount"),
                    help="folder for the DuckDB databases loaded from the data (default build/rowcount)")
    ap.add_argument("--threads", type=int, default=0, help="DuckDB threads (default: all cores)")
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    say = lambda m: print("tpch_measure_rows: %s" % m, file=sys.stderr, flush=True)   # noqa: E731
    for opt, d in (("--sf-a", args.sf_a), ("--sf-b", args.sf_b)):
        if not os.path.isdir(d):
            ap.error("%s %s: no such folder" % (opt, d))
    plan_file = args.plans if os.path.isfile(args.plans) else os.path.join(args.plans, TPCH_FILE)
    if not os.path.isfile(plan_file):
        ap.error("--plans %s: no %s there" % (args.plans, TPCH_FILE))
    if not 0 < args.scale_a < args.scale_b:
        ap.error("--scale-a and --scale-b: expected 0 < A < B, got %g and %g" % (args.scale_a, args.scale_b))
    try:
        targets = [float(t) for t in args.targets.split(",") if t.strip()]
    except ValueError:
        ap.error("--targets: expected comma-separated scale factors, got %r" % args.targets)
    if not targets or any(t <= 0 for t in targets):
        ap.error("--targets: expected positive scale factors, got %r" % args.targets)
    if args.threads < 0:
        ap.error("--threads: expected 0 (all cores) or more, got %d" % args.threads)
    names = [q.strip() for q in args.queries.split(",") if q.strip()]
    unknown = [q for q in names if q not in SPEC_ANSWER_ROWS_SF1]
    if unknown:
        ap.error("--queries: no TPC-H query %s (expected q01 .. q22)" % ", ".join(unknown))
    t0 = time.monotonic()
    threads = args.threads or None
    try:
        schema = TPCH.columns(args.plans)
        plans = TPCH.read_plans(plan_file, names, SECTION_NAMES)
        os.makedirs(args.cache, exist_ok=True)
        db_a = os.path.join(args.cache, "tpch_sf%g.duckdb" % args.scale_a)
        db_b = os.path.join(args.cache, "tpch_sf%g.duckdb" % args.scale_b)
        f_a = load_database(args.sf_a, schema, db_a, threads, say, TPCH)
        f_b = load_database(args.sf_b, schema, db_b, threads, say, TPCH)
        ts = TwoScales(plans, schema, TPCH, set(f_a.files) & set(f_b.files))
        ts.run(db_a, db_b, threads, say)
        records = ts.records(args.scale_a, args.scale_b, targets)
    except (TranslateError, PlanError, engine.EngineError) as e:
        print("tpch_measure_rows: %s" % e, file=sys.stderr)
        return 2
    for key, plan, _ in plans:
        records[key] = dict([("root", plan.root.nid)] + list(records[key].items()))
    rows_a, rows_b = ts.table_rows(ts.A), ts.table_rows(ts.B)
    with open(plan_file, "rb") as f:
        blob = git_blob_sha1(f.read())
    queries = {}
    for key, rec in records.items():
        q, section = key.split(" ")
        queries.setdefault(q, {})[section] = rec
    doc = {
        "about": "Rows of every node of Impala's TPC-H plans (tpch-all.test) at SF%s, counted on TPC-H data "
                 "(dbgen) at SF%g and SF%g by tools/tpch_measure_rows.py (tools/rowcount/linear.py says how: "
                 "fixed, linear, constant, groups, follows, power)." % (
                     " and SF".join("%g" % t for t in targets), args.scale_a, args.scale_b),
        "benchmark": "tpch",
        "scale_factors": {"counted": [_num(args.scale_a), _num(args.scale_b)], "targets": [_num(t) for t in targets]},
        "tolerance": TOLERANCE,
        "plans": {"file": TPCH_FILE, "git_blob": blob, "sections": list(SECTION_NAMES)},
        "engine": "DuckDB %s (npm @duckdb/node-api)" % _engine_version(),
        "data": {"sf%g" % args.scale_a: rows_a, "sf%g" % args.scale_b: rows_b},
        # what a scan reads at each target: a fixed table's rows, a growing one's at B x T/B
        "tables_at_targets": {"sf%g" % t: {n: (v if n in TPCH.fixed_tables else v * t / args.scale_b)
                                           for n, v in rows_b.items() if isinstance(v, int)} for t in targets},
        "checks": {
            "tables": {"sf%g" % args.scale_a: check_tables(rows_a, args.scale_a),
                       "sf%g" % args.scale_b: check_tables(rows_b, args.scale_b)},
            "roots_against_the_specification": check_roots(records, args.scale_a),
            "counts_over_planner_estimates": planner_ratios(records, args.scale_a),
        },
        "coverage": coverage(plans, records),
        "queries": {k: queries[k] for k in sorted(queries)},
    }
    atomic.write_text(args.out, json.dumps(doc, indent=1) + "\n")
    cov = doc["coverage"]
    say("%d of %d plan nodes counted (%d of %d hash exchanges) -> %s in %.0f s" % (
        cov["counted"], cov["nodes"], cov["hash_exchanges_counted"], cov["hash_exchanges"], args.out,
        time.monotonic() - t0))
    return 0


def _num(x):
    return int(x) if float(x).is_integer() else x


def _engine_version():
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "package.json")) as f:
        return json.load(f)["dependencies"]["@duckdb/node-api"]
