"""Generate the TPC-H harness workload: Impala's 22 TPC-H plans on the single-node performance runs'
cluster (several daemons on one host), at a scale factor of those runs (42 or 300).

Reads Impala's tpch-all.test (../shared/impala-plans/tpch), the rows counted on dbgen data
(scenarios/tpch_harness/measured_rows.json), the tables' statistics (table_stats.json) and the
TPC-DS calibration's costs (scenarios/tpcds_sf100/calibration.json with the profiles it was made
from: nothing is fitted to TPC-H), and writes scenarios/tpch_harness/workload_sf<N>.json.

Usage:
    tools/tpch_workload.py [--scale 42] [--daemons 3] [--out FILE]

The output is a pure function of its inputs: the same inputs give byte-identical output.
"""

import argparse
import os
import sys
import time

from common import atomic, exsim_runner
from tools.rowcount.benchmark import TPCH_FILE
from tools.tpcds import CALIBRATION, DEFAULT_PLANS, DEFAULT_PROFILES, PlanError
from tools.tpcds import profiles as prof
from tools.tpcds.fragments import SECTIONS, Built
from tools.tpcds.plans import git_blob_sha1, parse_plan_block, parse_query_blocks, query_sql
from tools.tpcds.standard_plans import complete
from tools.tpcds.workload import (PLANNED_MT_DOP, build_plan, costs_section, counts, dump_json, join_decisions,
                                  lz4_ns_per_byte, load_costs)
from tools.tpch import DEFAULT_OUT, GENERATOR, MEASURED_ROWS, TABLE_STATS
from tools.tpch.schema import Schema

HEADER = r"^# TPCH-(Q\d+)"
SCALES = (42, 300)          # the scale factors of Impala's single-node performance runs ("TPCH(42)")
DAEMONS = 3                 # the daemons of the harness's one host (start-impala-cluster.py's default)
PLANNED_EXECUTORS = 3       # the cluster tpch-all.test was planned for (PlannerTest's setUpTestCluster(3, ...))
# The round trip of an RPC between daemons on one machine: the mean RpcNetworkTime of the bundled
# q72 profile, 3 daemons on one machine, 98,709 RPCs (scenarios/profiles/tpcds_q72.json).
LOOPBACK_RTT_US = 69.48


def stem_of(name):
    """Q3 -> q03 (measured_rows.json's keys)."""
    return "q%02d" % int(name[1:])


def build_query(name, offset, text, schema, executors):
    stem = stem_of(name)
    sql = query_sql(text)
    doc = {"name": stem}
    out = {}
    for key, (section, fold, mt_dop) in SECTIONS.items():
        plan = complete(parse_plan_block(text, offset, section, "tpch-all.test %s" % name, fragment_headers=False),
                        PLANNED_EXECUTORS, PLANNED_MT_DOP[section])
        for n in plan.nodes.values():
            if n.kind == "SCAN HDFS" and n.hdfs is not None:
                # The planner test planned the SF1 text tables; the performance runs read Parquet.
                n.hdfs = dict(n.hdfs, size_bytes=schema.table_bytes(n.table))
        out[key] = build_plan(plan, sql, stem, section, fold, mt_dop, schema, stem, executors)
    doc["source"] = ("tpch-all.test %s (line %d): `fragments`/`exchanges` from its DISTRIBUTEDPLAN (standard explain "
                     "level, completed: tools/tpcds/standard_plans.py) with the JOIN BUILD fragments folded into "
                     "their joins (mt_dop=0), `parallel` from its PARALLELPLANS; rows counted on dbgen data at SF1 "
                     "and SF10 and carried to SF%d (measured_rows.json)" % (name, offset + 1, schema.target))
    doc.update(out["mt_dop=0"][0])
    doc["parallel"] = out["parallel"][0]
    return Built(stem, doc, {"plans": out})


def build_workload(plans_file, profiles, fitted, scale, daemons, stats_path=TABLE_STATS, rows_path=MEASURED_ROWS):
    schema = Schema(stats_path, rows_path, scale)
    with open(plans_file, "rb") as f:
        blob = git_blob_sha1(f.read())
    blocks = parse_query_blocks(plans_file, HEADER)
    built = [build_query(name, offset, text, schema, daemons) for name, offset, text in blocks]
    measured = prof.measured_inputs(profiles)
    costs, cost_prov = costs_section(measured, fitted)
    exchange_defaults = {"compression_ratio": round(measured["lz4_ratio"], 4), "compress_ns_per_byte": lz4_ns_per_byte()}
    if fitted:
        exchange_defaults.update(fitted.get("exchange_defaults", {}))
    scenario = {
        "schema_version": 2,
        "name": "tpch_harness_sf%d" % scale,
        "description": "Impala's 22 TPC-H queries at SF%d as its single-node performance runs execute them: %d daemons "
                       "on one host, mt_dop=0, one query at a time; plans from Impala's planner test, rows counted "
                       "on dbgen data, costs from the TPC-DS calibration (nothing fitted to TPC-H)" % (scale, daemons),
        "seed": 1,
        "query_order": "sequential",
        "provenance": {
            "generator": GENERATOR + " (regenerate: /usr/bin/python3 %s --scale %d)" % (GENERATOR, scale),
            "readme": "scenarios/tpch_harness/README.md",
            "plans": {"file": "../shared/impala-plans/" + TPCH_FILE.replace(os.sep, "/"), "git_blob_sha1": blob,
                      "planned": "PlannerTest.testTpch: database tpch (SF1 text tables), 3 executors; DISTRIBUTEDPLAN "
                                 "at mt_dop 0, PARALLELPLANS at MT_DOP=2"},
            "rows": "measured_rows.json (tools/tpch_measure_rows.py): every node counted at SF1 and SF10, carried "
                    "to SF%d by the rule in its `how`" % scale,
            "statistics": "table_stats.json (tools/tpch_table_stats.py): column types, distinct values and string "
                          "lengths at SF1 (the plans' statistics), Parquet bytes per table",
            "cluster": "%d executor daemons on one host (cluster.daemons_per_host), as start-impala-cluster.py "
                       "starts them for bin/single_node_perf_run.py; every RPC crosses the host's loopback path; "
                       "round trip %.2f us: the mean RpcNetworkTime of the bundled q72 profile (3 daemons on one "
                       "machine, 98,709 RPCs, a DEBUG build). The host's cores are not published: the TPC-DS "
                       "calibration's 8 cores x 2 threads (an assumption)" % (daemons, LOOPBACK_RTT_US),
            "costs": cost_prov,
            "join_distribution": join_decisions(built),
            "counts": counts(built),
        },
        "cluster": {"executors": daemons, "daemons_per_host": daemons, "cores_per_executor": 8, "threads_per_core": 2,
                    "rtt_us": LOOPBACK_RTT_US, "loopback_rtt_us": LOOPBACK_RTT_US},
        "flags": {"mt_dop": 0, "data_stream_sender_buffer_size": 16384, "rpcs_in_flight_per_channel": 1,
                  "compression": True},
        "costs": costs,
        "exchange_defaults": exchange_defaults,
        "queries": [b.doc for b in built],
    }
    return scenario


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=SCALES[0], choices=SCALES,
                    help="TPC-H scale factor (default %d; measured_rows.json carries rows to %s)" % (
                        SCALES[0], " and ".join(str(s) for s in SCALES)))
    ap.add_argument("--daemons", type=int, default=DAEMONS,
                    help="executor daemons on the one host (default %d)" % DAEMONS)
    ap.add_argument("--plans", default=DEFAULT_PLANS,
                    help="folder of Impala's planner tests, with tpch/tpch-all.test (default ../shared/impala-plans)")
    ap.add_argument("--profiles", default=DEFAULT_PROFILES,
                    help="Impala's runtime profiles the TPC-DS costs come from (default ../shared/impala-profiles)")
    ap.add_argument("--costs", default=CALIBRATION,
                    help="the TPC-DS calibration (default scenarios/tpcds_sf100/calibration.json)")
    ap.add_argument("--out", help="output file (default scenarios/tpch_harness/workload_sf<scale>.json)")
    args = ap.parse_args(argv)
    if args.daemons < 1:
        ap.error("--daemons %d: expected at least 1" % args.daemons)
    plans_file = os.path.join(args.plans, TPCH_FILE)
    if not os.path.isfile(plans_file):
        sys.stderr.write("tpch_workload: %s not found; pass --plans DIR (../shared/impala-plans/README.md)\n" %
                         plans_file)
        return 2
    out = args.out or os.path.join(DEFAULT_OUT, "workload_sf%d.json" % args.scale)
    t0 = time.monotonic()
    try:
        scenario = build_workload(plans_file, args.profiles, load_costs(args.costs), args.scale, args.daemons)
    except (PlanError, exsim_runner.ExsimError) as e:
        sys.stderr.write("tpch_workload: %s\n" % e)
        return 2
    atomic.write_text(out, dump_json(scenario))
    c = scenario["provenance"]["counts"]["mt_dop=0"]
    sys.stderr.write("tpch_workload: %d queries, %d fragments, %d exchanges (%d hash) at SF%d on %d daemons -> %s in "
                     "%.1f s\n" % (c["queries"], c["fragments"], c["exchanges"], c["hash_exchanges"], args.scale,
                                   args.daemons, out, time.monotonic() - t0))
    return 0
