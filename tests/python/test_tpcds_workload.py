"""Checks of the TPC-DS SF100 workload and its generator (tools/tpcds, tools/tpcds_workload.py).

- The committed scenarios/tpcds_sf100/workload.json and README.md are exactly what the generator
  writes from ../shared/impala-plans and ../shared/impala-profiles (skipped when they are absent, or
  when exsim is not built: the generator asks it the rows of a batch).
- A sanity check of the committed workload that needs no simulator and no validator: every
  exchange is sent by exactly one fragment and received by exactly one leaf, every sink and build
  reference resolves, the fragments form a tree; totals are printed.
- The instances the generator plans with (Impala's planner's count) are those the simulator places
  (its scheduler's rule), on every fragment at mt_dop 0 and 8.
- The profile facts the calibration reads (start-up, codegen, LZ4 ratio) and the row-size rule,
  against numbers read by hand off the profiles.

Run: /usr/bin/python3 -m pytest -s tests/python/test_tpcds_workload.py   (-s shows the totals)
"""

import json
import os
import subprocess
import sys

import pytest
from conftest import REPO

from tools.tpcds import profiles
from tools.tpcds.ddl import Schema, slot_size
from tools.tpcds.rowsize import Slot, best_subset
from tools.tpcds.fragments import SECTIONS, PARALLEL_MT_DOP
from tools.tpcds import MEASURED_ROWS
from tools.tpcds.workload import build_workload, load_measured_rows, q72_row_size_check

PLANS = os.path.normpath(os.path.join(REPO, "..", "shared", "impala-plans"))
PROFILES = os.path.normpath(os.path.join(REPO, "..", "shared", "impala-profiles"))
GENERATOR = os.path.join(REPO, "tools", "tpcds_workload.py")
COMMITTED = os.path.join(REPO, "scenarios", "tpcds_sf100")

needs_inputs = pytest.mark.skipif(not (os.path.isdir(PLANS) and os.path.isdir(PROFILES)),
                                  reason="../shared/impala-plans or ../shared/impala-profiles is absent")
# A hash sender's rows of a batch are the simulator's rule, asked of it (exsim_runner.collector_rows):
# generating is skipped until exsim is built.
needs_exsim = pytest.mark.usefixtures("exsim")
OPS = {"scan", "exchange", "hash_join", "nested_loop_join", "aggregate", "sort", "top_n", "analytic", "select",
       "limit", "union"}


def load_committed():
    with open(os.path.join(COMMITTED, "workload.json"), "r", encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def generated(tmp_path_factory, exsim):
    out = tmp_path_factory.mktemp("tpcds_sf100")
    proc = subprocess.run([sys.executable, GENERATOR, "--plans", PLANS, "--profiles", PROFILES, "--out", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, "generator failed: %s%s" % (proc.stdout, proc.stderr)
    return out


@needs_inputs
@pytest.mark.parametrize("name", ["workload.json", "README.md"])
def test_regenerated_output_is_byte_identical(generated, name):
    with open(os.path.join(generated, name), "rb") as f:
        fresh = f.read()
    with open(os.path.join(COMMITTED, name), "rb") as f:
        committed = f.read()
    assert fresh == committed, (f"scenarios/tpcds_sf100/{name} is stale: rerun "
                                "/usr/bin/python3 tools/tpcds_workload.py")


@needs_inputs
@needs_inputs
def test_planned_instances_are_the_simulators(exsim):
    # Impala's planner counts a fragment's instances to cost its joins and to size per-instance rows
    # (the generator's Shape: re-decided joins, pre-aggregation output); its scheduler then places
    # them (the simulator's rule, models/query/plan.cpp). Two rules, as in Impala, so one is checked
    # against the other: every fragment of every query, at mt_dop 0 and at the parallel plans'
    # nominal mt_dop, runs as many instances in the simulator as the generator planned for.
    _, summary = build_workload(PLANS, PROFILES, measured_rows=load_measured_rows(MEASURED_ROWS))
    checked = 0
    for key, (_, _, mt_dop) in SECTIONS.items():
        out = subprocess.run([str(exsim), "explain", os.path.join(COMMITTED, "workload.json"), "--set",
                              "mt_dop=%d" % (mt_dop or 0), "--format", "json"],
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        placed = {q["query"]: {f["id"]: f["instances"] for f in q["fragments"]}
                  for q in json.loads(out.stdout)["queries"]}
        for b in summary["built"]:
            built = b.stats["plans"][key]
            shape = built[2] if len(built) > 2 else built[1].shape
            for fid, planned in shape.inst.items():
                if fid in placed[b.name]:  # a join build folded into its join at mt_dop 0 is not a fragment
                    assert placed[b.name][fid] == planned, (b.name, key, fid, planned, placed[b.name][fid])
                    checked += 1
    print("instances planned = placed on %d fragments (mt_dop 0 and %d)" % (checked, PARALLEL_MT_DOP))
    assert checked > 3000


def test_generator_fails_clearly_without_plans(tmp_path):
    proc = subprocess.run([sys.executable, GENERATOR, "--plans", str(tmp_path / "missing"),
                           "--out", str(tmp_path / "out")], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "not found" in proc.stderr and "--plans" in proc.stderr
    assert not (tmp_path / "out").exists()


def changed_joins(workload):
    """query:join -> its distribution after rule J3, for the joins J3 changed in the mt_dop=0 plans."""
    changes = workload["provenance"]["join_distribution"]["mt_dop=0"]["changed_joins"]
    return dict((c.split(" ")[0], c.split(" ")[1].split("->")[1]) for c in changes)


@needs_inputs
@needs_exsim
def test_retargeted_workload_re_decides_joins_for_its_executors(tmp_path):
    # Rule J3 broadcasts a join when 2 x build bytes x probe hosts <= probe bytes + 2 x build bytes: with more
    # hosts a broadcast costs more and the partitioned cost stays, so every join J3 broadcasts on 10 executors
    # it broadcasts on 5, and every join it partitions on 5 it partitions on 10.
    proc = subprocess.run([sys.executable, GENERATOR, "--plans", PLANS, "--profiles", PROFILES, "--executors", "10",
                           "--out", str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "no README.md for 10 executors" in proc.stderr
    assert not (tmp_path / "README.md").exists()
    w10 = json.loads((tmp_path / "workload.json").read_text(encoding="utf-8"))
    w5 = load_committed()
    assert w10["cluster"]["executors"] == 10 and "retargeted to 10 executors" in w10["description"]
    assert "10 executors instead of the measured 5" in w10["provenance"]["retargeted"]
    c5, c10 = changed_joins(w5), changed_joins(w10)
    assert {j for j, d in c10.items() if d == "broadcast"} <= {j for j, d in c5.items() if d == "broadcast"}
    assert {j for j, d in c5.items() if d == "partitioned"} <= {j for j, d in c10.items() if d == "partitioned"}
    assert len(c10) > len(c5)
    # a scan fragment runs on min(10, its scan ranges) executors: store_sales' 1,824 ranges reach all 10
    hash5 = sum(x["partitioning"] == "HASH_PARTITIONED" for q in w5["queries"] for x in q["exchanges"])
    hash10 = sum(x["partitioning"] == "HASH_PARTITIONED" for q in w10["queries"] for x in q["exchanges"])
    assert hash10 > hash5
    for q in w10["queries"]:
        for f in q["fragments"]:
            assert 0 <= f["executors"] <= 10 and f["first_executor"] + max(1, f["executors"]) <= 10


def test_retargeting_refuses_to_overwrite_the_measured_workload():
    proc = subprocess.run([sys.executable, GENERATOR, "--executors", "10"], capture_output=True, text=True)
    assert proc.returncode == 2 and "--executors 10: pass --out DIR" in proc.stderr


@needs_inputs
def test_generator_rejects_a_bad_costs_file(tmp_path):
    bad = tmp_path / "costs.json"
    bad.write_text(json.dumps({"costs": {"scan_ns_per_row": -1}}))
    proc = subprocess.run([sys.executable, GENERATOR, "--costs", str(bad), "--out", str(tmp_path / "out")],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert str(bad) in proc.stderr and "costs.scan_ns_per_row" in proc.stderr
    assert not (tmp_path / "out").exists()


def walk(op, path):
    """(operator, JSON path) of every operator of a tree."""
    yield op, path
    for k in ("input", "probe", "build"):
        if isinstance(op.get(k), dict) and "op" in op[k]:
            yield from walk(op[k], path + "." + k)
    for i, c in enumerate(op.get("inputs", [])):
        yield from walk(c, "%s.inputs[%d]" % (path, i))


def check_plan(where, plan, parallel):
    """Structural checks of one plan; returns its totals."""
    frags = {f["id"]: f for f in plan["fragments"]}
    assert len(frags) == len(plan["fragments"]), "%s: fragment ids repeat" % where
    xs = {x["id"]: x for x in plan["exchanges"]}
    assert len(xs) == len(plan["exchanges"]), "%s: exchange ids repeat" % where
    senders = {x: [] for x in xs}
    receivers = {x: [] for x in xs}
    receiver_frag = {}
    builds = {}      # build fragment -> (probe fragment, join id)
    joins = {}       # (fragment, join id) -> build fragment
    results = 0
    totals = {"scan_rows": {}, "hash": 0, "exchanges": len(xs)}
    for f in plan["fragments"]:
        fw = "%s fragment %s" % (where, f["id"])
        assert f.get("source", "").strip(), "%s has no source" % fw
        sink = f["sink"]
        assert len(sink) == 1 and next(iter(sink)) in ("result", "exchange", "join_build"), "%s: sink %s" % (fw, sink)
        if "result" in sink:
            assert sink["result"] is True
            results += 1
        elif "exchange" in sink:
            assert sink["exchange"] in xs, "%s sends to unknown exchange %s" % (fw, sink["exchange"])
            senders[sink["exchange"]].append(f["id"])
        else:
            assert parallel, "%s: a join build fragment in the mt_dop=0 plan" % fw
        ids = set()
        for op, path in walk(f["root"], "root"):
            ow = "%s %s (%s)" % (fw, path, op.get("op"))
            assert op["op"] in OPS, ow
            assert op["id"] not in ids, "%s: operator id %s repeats" % (fw, op["id"])
            ids.add(op["id"])
            if op["op"] == "exchange":
                assert "rows" not in op, ow
                assert op["exchange"] in xs, "%s: unknown exchange %s" % (ow, op["exchange"])
                receivers[op["exchange"]].append(f["id"])
                receiver_frag[op["exchange"]] = f["id"]
                continue
            assert isinstance(op["rows"], int) and op["rows"] >= 0, ow
            if op["op"] == "scan":
                assert op["table"] and op["rows"] <= op["rows_read"] and op["scan_ranges"] >= 1, ow
                totals["scan_rows"][op["table"]] = totals["scan_rows"].get(op["table"], 0) + op["rows"]
                if "instance_weights" in op:
                    assert not parallel and all(w > 0 for w in op["instance_weights"]), ow
                    assert len(op["instance_weights"]) == (f["executors"] or 5), ow
            if op["op"] in ("top_n", "limit"):
                assert op["limit"] >= 1 if "limit" in op else op["partitioned"], ow
            if op["op"] == "aggregate":
                assert op["phase"] in ("streaming", "finalize"), ow
                assert "groups" not in op or op["phase"] == "streaming", ow
            if op["op"] in ("hash_join", "nested_loop_join"):
                if "fragment" in op["build"]:
                    assert parallel, "%s: a build fragment in the mt_dop=0 plan" % ow
                    assert isinstance(op["shared"], bool), ow
                    joins[(f["id"], op["id"])] = op["build"]["fragment"]
        if "join_build" in sink:
            builds[f["id"]] = sink["join_build"]
    assert results == 1 and "result" in plan["fragments"][0]["sink"], "%s: the first fragment is the root" % where
    for x in xs:
        assert len(senders[x]) == 1, "%s exchange %s has senders %s" % (where, x, senders[x])
        assert len(receivers[x]) == 1, "%s exchange %s has receivers %s" % (where, x, receivers[x])
        assert senders[x] != receivers[x], "%s exchange %s sends to its own fragment" % (where, x)
        assert xs[x].get("source", "").strip(), "%s exchange %s has no source" % (where, x)
        assert xs[x]["fixed_row_bytes"] >= 1 and xs[x]["var_row_bytes"] >= 0 and xs[x]["tuples_per_row"] >= 1
        totals["hash"] += xs[x]["partitioning"] == "HASH_PARTITIONED"
    # Every join build fragment serves exactly one join naming it, in another fragment.
    served = {}
    for (fid, jid), bf in joins.items():
        assert bf in builds, "%s: join %s in %s builds in %s, which is not a join build fragment" % (
            where, jid, fid, bf)
        assert builds[bf] == jid and fid != bf, "%s: %s builds for join %s, not %s" % (where, bf, builds[bf], jid)
        served[bf] = served.get(bf, 0) + 1
    assert set(served) == set(builds) and all(v == 1 for v in served.values()), "%s: unused or shared builds" % where
    # The fragments form one tree: every fragment's output reaches the root.
    parent = {f: receiver_frag[frags[f]["sink"]["exchange"]] for f in frags if "exchange" in frags[f]["sink"]}
    parent.update({f: next(p for (p, j), b in joins.items() if b == f) for f in builds})
    for f in frags:
        seen, g = set(), f
        while g in parent:
            assert g not in seen, "%s: fragments form a cycle through %s" % (where, g)
            seen.add(g)
            g = parent[g]
        assert "result" in frags[g]["sink"], "%s: fragment %s does not reach the root" % (where, f)
    return totals


@needs_inputs
def test_structure_and_totals():
    sc = load_committed()
    assert sc["schema_version"] == 2 and sc["query_order"] == "sequential"
    assert sc["cluster"]["executors"] == 5 and sc["cluster"]["cores_per_executor"] == 8
    assert sc["cluster"]["threads_per_core"] == 2
    assert sc["flags"] == {"mt_dop": 0, "data_stream_sender_buffer_size": 16384, "rpcs_in_flight_per_channel": 1,
                           "compression": True}
    names = [q["name"] for q in sc["queries"]]
    assert names == sc["provenance"]["query_set"]["queries"] and len(names) == 104 and len(set(names)) == 104
    for k in sc["costs"]:
        assert "status" in sc["provenance"]["costs"][k], "costs.%s has no provenance" % k
    assert all(p["status"].startswith(("placeholder", "measured", "fitted"))
               for p in sc["provenance"]["costs"].values())
    grand = {}
    for key in ("mt_dop=0", "parallel"):
        scan, hash_x, xs, per_query = {}, 0, 0, []
        for q in sc["queries"]:
            assert q.get("source", "").strip(), "%s has no source" % q["name"]
            plan = q if key == "mt_dop=0" else q["parallel"]
            t = check_plan("%s %s" % (q["name"], key), plan, key == "parallel")
            for table, r in t["scan_rows"].items():
                scan[table] = scan.get(table, 0) + r
            hash_x += t["hash"]
            xs += t["exchanges"]
            per_query.append("%s %d/%d" % (q["name"], t["exchanges"], t["hash"]))
        counts = sc["provenance"]["counts"][key]
        assert counts["hash_exchanges"] == hash_x and counts["exchanges"] == xs
        assert counts["scan_rows_by_table"] == dict(sorted(scan.items()))
        grand[key] = (xs, hash_x)
        print("\n%s: %d exchanges, %d hash exchanges" % (key, xs, hash_x))
        print("  exchanges/hash per query: " + ", ".join(per_query))
        print("  rows scanned per table: " + ", ".join("%s %s" % (t, "{:,}".format(r)) for t, r in sorted(scan.items())))
    # The plan files hold 502 hash exchanges (impala-plans/README.md); the eight variants' own plans
    # replace their bases' 26 and add more, so the workload holds more than 502 - 26.
    assert grand["mt_dop=0"][1] > 476


@needs_inputs
def test_q72_is_the_profile_shape_with_its_skew():
    q72 = next(q for q in load_committed()["queries"] if q["name"] == "q72")
    xs = {x["id"]: x for x in q72["exchanges"]}
    # The profile's exchanges: 3 hash (27 catalog_sales, 28 inventory side, 34 groups), a merge, 9 broadcasts.
    assert sorted(x for x in xs if xs[x]["partitioning"] == "HASH_PARTITIONED") == ["x27", "x28", "x34"]
    assert len(xs) == 13
    # The profile's skew (one sender instance sent every row of exchange 28) has a cause that does not hold at
    # SF100 (README "Skew"): no instance weights are carried, and the exchange says why.
    sender = next(f for f in q72["fragments"] if f["sink"] == {"exchange": "x28"})
    weights = [op["instance_weights"] for op, _ in walk(sender["root"], "root") if "instance_weights" in op]
    assert weights == [] and "not carried to SF100" in xs["x28"]["source"]


@needs_inputs
def test_profile_facts():
    q72 = os.path.join(PROFILES, "tpcds_72_local_run_profile.json")
    s = profiles.query_startup(q72)
    # By hand from the q72 timeline: submitted 0, planning finished 34.4 ms, completed admission 35.4 ms,
    # all backends started 38.0 ms; last row fetched 8.8422 s, unregister 8.8615 s.
    print("\nq72 start-up: expected 0.0380 + 0.0193 = 0.0573 s, read %.4f s (%s)" % (s["total_s"], s))
    assert abs(s["planning_s"] - 0.0344) < 1e-4 and abs(s["backend_start_s"] + s["admission_s"] - 0.0036) < 2e-4
    assert abs(s["total_s"] - 0.0573) < 2e-4
    cg = profiles.codegen_per_fragment(os.path.join(PROFILES, "tpcds_1_local_run_mt_dop_0_profile.json"))
    # q1 at mt_dop=0 on one daemon: 10 fragments, each codegened once on that daemon.
    print("q1 codegen per fragment: %s" % [round(x[2], 3) for x in cg])
    assert len(cg) == 10 and len({f for _, f, _ in cg}) == 10 and all(0.01 < x[2] < 1.0 for x in cg)
    ratio, detail = profiles.profile_lz4_ratio(q72)
    # Exchange 28's remote receivers: 412,014,755 + 412,510,487 bytes on the wire (compressed tuple data plus 4
    # offset bytes per tuple) for 2,679,981,329 dequeued (tuple data plus an 8-byte pointer per tuple), 10,914,605
    # rows of 5 tuples: tuple data (824,525,242 - 4 x 5 x 10,914,605) / (2,679,981,329 - 8 x 5 x 10,914,605)
    # = 606,233,142 / 2,243,397,129 = 0.2702; it dominates the pooled ratio (impala-profiles/README.md).
    print("LZ4 ratio %.4f; exchange 28: expected 0.2702, read %.4f" % (ratio, detail[28]["ratio"]))
    assert detail[28]["bytes_received"] == 412014755 + 412510487 and detail[28]["rows"] == 10914605
    assert detail[28]["tuples_per_row"] == 5 and abs(detail[28]["ratio"] - 0.2702) < 1e-4
    assert 0.26 < ratio < 0.28


@needs_inputs
def test_operator_costs_from_the_profiles():
    c = profiles.operator_costs(PROFILES)
    q1 = "tpcds_1_local_run_mt_dop_0_profile.json"
    # By hand, q1 at mt_dop=0: joins 11, 12, 13, 2, 8 probe 100,000 + 50,434 + 49,933 + 287,514 + 287,514 rows in
    # ProbeTime 5,538,281 + 1,919,863 + 5,873,504 + 11,633,072 + 11,205,127 ns: 46.65 ns/row.
    probe = c["join_probe"]["per_profile"][q1]
    print("\nq1 probe: expected 775,395 rows, 46.6 ns/row; read %s rows, %s ns/row" % (probe["rows"],
                                                                                       probe["ns_per_row"]))
    assert probe["rows"] == 775395 and abs(probe["ns_per_row"] - 46.6) < 0.1
    # q72's inventory scan, instance on 27000: MaterializeTupleTime 651,203,462 ns for 6,667,781 rows read (97.7
    # ns/row); its DelimiterParseTime (253 ms, text only) is not counted.
    scan = c["scan"]["per_profile"]["tpcds_72_local_run_profile.json"]
    assert 95 < scan["ns_per_row"] < 110 and c["scan"]["measured"]
    # Measured: scan, build, probe, aggregation; sort has one top-n of 18,976 rows (two runs), analytic and
    # select/union nothing: they take their stand-ins' values.
    print({k: (v["ns_per_row"], v["debug_ns_per_row"], v["measured"]) for k, v in c.items()})
    assert [k for k, v in c.items() if v["measured"]] == ["scan", "join_build", "join_probe", "aggregate"]
    assert c["sort"]["rows"] == 2 * 18976 and c["analytic"]["rows"] == 0 and c["other"]["rows"] == 0
    assert c["sort"]["debug_ns_per_row"] == c["analytic"]["debug_ns_per_row"] == c["aggregate"]["ns_per_row"]
    assert c["other"]["debug_ns_per_row"] == c["join_probe"]["ns_per_row"]


@needs_inputs
def test_row_size_rule_against_the_q72_profile():
    c = q72_row_size_check(PLANS, PROFILES, Schema(PLANS))
    # Exchange 28: 16,380,000 rows in 93,070 data RPCs to 3 receivers, about 176 rows per 16 KiB batch,
    # so a fixed row size of 16384 / 176 = 93.1 B (floor(16384 / 93) = 176; 92 B would give 178).
    print("\nexpected 93 B and 93,070 RPCs, rule %d B and %d RPCs" % (c["rule_fixed_row_bytes_run_schema"],
                                                                  c["rule_data_rpcs"]))
    assert c["rows_sent"] == 16380000 and c["data_rpcs"] == 93070
    assert c["rule_fixed_row_bytes_run_schema"] == 93
    assert abs(c["rule_data_rpcs"] - c["data_rpcs"]) <= 3


def test_best_subset_finds_the_columns_of_a_printed_size():
    # i_item_sk INT (4) + i_item_desc STRING (12 + 100.6) = 116.6, printed 117B; i_brand (12 + 16.2) is not read.
    items = [Slot("i_item_sk", 4), Slot("i_item_desc", 12, 100.6), Slot("i_brand", 12, 16.2)]
    slots, exact, ambiguous = best_subset(items, 117, 0.5)
    assert exact and not ambiguous and [s.name for s in slots] == ["i_item_sk", "i_item_desc"]
    # Two INTs or one DATE and one INT: same size, no strings either way: not an ambiguity that matters.
    slots, exact, ambiguous = best_subset([Slot("a", 4), Slot("b", 4), Slot("c", 4)], 8, 0.5)
    assert exact and not ambiguous and len(slots) == 2


def test_slot_sizes_follow_impala():
    assert [slot_size(t) for t in ("INT", "BIGINT", "DATE", "STRING", "DECIMAL(7,2)", "DECIMAL(15,2)",
                                   "DECIMAL(38,6)", "TIMESTAMP")] == [4, 8, 4, 12, 4, 8, 16, 16]


def _ops(op, out):
    """Every operator of a plan JSON, by id."""
    if isinstance(op, dict):
        if "op" in op and "id" in op:
            out[op["id"]] = op
        for v in op.values():
            _ops(v, out)
    elif isinstance(op, list):
        for v in op:
            _ops(v, out)
    return out


@needs_inputs
@needs_exsim
def test_a_measured_count_replaces_the_rules_and_a_changed_one_changes_the_workload():
    """Rule M2 on q93's mt_dop=0 plan: the left outer join 3 and the merge aggregation 11 take the
    measured rows, the streaming pre-aggregation 5 its measured groups (A3 then gives each of its 5
    instances at most its input's share), the store_returns scan 1 its rows and its filters' measured shares; changing a count
    changes the workload's operator."""
    from tools.tpcds.workload import build_section
    schema = Schema(PLANS)
    path = os.path.join(PLANS, "tpcds-q93.test")

    def build(rows3):
        schema.measured = {"queries": {"q93": {"DISTRIBUTEDPLAN": {"nodes": {
            "3": {"kind": "HASH JOIN", "how": "sample", "rows": rows3, "sample_count": rows3 // 100},
            "5": {"kind": "AGGREGATE", "how": "base", "rows": 1000.0},
            "11": {"kind": "AGGREGATE", "how": "base", "rows": 1000.0},
            "1": {"kind": "SCAN HDFS", "how": "sample", "rows": 2.16e6, "sample_count": 21600,
                  "filters": [{"join": 4, "filters": ["RF000", "RF001"], "keep": 0.25}]},
        }}}}}
        doc, plan, shape, sizes = build_section("q93", path, "DISTRIBUTEDPLAN", True, 0, schema, "q93")
        return _ops(doc, {}), plan

    ops, plan = build(123400)
    assert ops["3"]["rows"] == 123400 and plan.nodes[3].rule.startswith("M2 measured")
    assert ops["11"]["rows"] == 1000
    assert plan.nodes[5].rule.startswith("M2 measured groups")
    assert ops["1"]["runtime_filters"] == [{"join": "4", "keep": 0.25}] and ops["1"]["rows"] == 2160000
    ops2, _ = build(567800)
    assert ops2["3"]["rows"] == 567800


@needs_inputs
def test_a_pre_aggregation_takes_its_measured_pairs_where_its_leaf_and_instances_are_those_counted():
    """Rule M3 on q93's pre-aggregation 5 (mt_dop=0, 5 instances): its measured (instance, group) pairs
    replace A3 when they were counted for 5 instances and the leaf its fragment has in the workload's
    plan. In the printed plan that leaf is the hash exchange 7, but J3 makes join 3 broadcast
    (README: q93:3 partitioned->broadcast), so the workload's leaf is the store_sales scan: pairs counted
    behind exchange 7, or for 40 instances, leave A3 in place."""
    from tools.tpcds.plans import fragment_leaf
    from tools.tpcds.workload import build_section
    schema = Schema(PLANS)
    path = os.path.join(PLANS, "tpcds-q93.test")

    def build(per_instance):
        schema.measured = {"queries": {"q93": {"DISTRIBUTEDPLAN": {"nodes": {
            "5": {"kind": "AGGREGATE", "how": "base", "rows": 1000.0, "per_instance": per_instance}}}}}}
        doc, plan, shape, sizes = build_section("q93", path, "DISTRIBUTEDPLAN", True, 0, schema, "q93")
        return _ops(doc, {})["5"], plan

    _, plan = build(None)
    leaf = fragment_leaf(plan.nodes[5])
    assert leaf.kind == "SCAN HDFS" and leaf.table == "store_sales"
    a3 = plan.nodes[5].card100
    op, plan = build({"rows": 3210.0, "instances": 5, "leaf": leaf.nid})
    assert plan.nodes[5].rule.startswith("M2 measured groups") and "M3" in plan.nodes[5].rule
    assert plan.nodes[5].card100 == 3210.0 and op["groups"] == pytest.approx(3210.0 / 5)
    for other in ({"rows": 3210.0, "instances": 40, "leaf": leaf.nid}, {"rows": 3210.0, "instances": 5, "leaf": 7}):
        _, plan = build(other)
        assert "M3" not in plan.nodes[5].rule and plan.nodes[5].card100 == a3


@needs_inputs
def test_committed_measured_rows_cover_the_hash_exchanges():
    """scenarios/tpcds_sf100/measured_rows.json (tools/tpcds_measure_rows.py) holds both plans of every
    plan file the workload reads, and a measured count for at least 95% of their hash exchanges; every
    count says how it was obtained, and a sampled one its sample."""
    from tools.tpcds.plans import exchange_kind, parse_plan_file, select_queries
    with open(os.path.join(COMMITTED, "measured_rows.json"), "r", encoding="utf-8") as f:
        doc = json.load(f)
    _, selected = select_queries(PLANS)
    total = measured = 0
    for stem in sorted({s for _, s in selected}):
        for section in ("DISTRIBUTEDPLAN", "PARALLELPLANS"):
            rec = doc["queries"][stem][section]
            plan, _ = parse_plan_file(os.path.join(PLANS, "tpcds-%s.test" % stem), section)
            for x in plan.exchanges():
                if exchange_kind(x) == "HASH":
                    total += 1
                    measured += str(x.nid) in rec["nodes"]
            for r in rec["nodes"].values():
                assert r["how"] in ("exact", "sample", "base") and r["rows"] >= 0
                assert r["how"] != "sample" or r["sample_count"] >= 0
    print("hash exchanges measured: %d of %d" % (measured, total))
    assert measured >= 0.95 * total


@needs_inputs
def test_q51a_range_self_joins_take_their_measured_rows():
    """Rule M4: q51a's range self-joins take the rows measured over q51's relations
    (measured_rows.json `self_joins`); a changed count changes the workload's join, and without one
    the join keeps the uniform estimate, n(n+1)/2 rows per item for n = rows / all items. The store
    channel's self-join appears twice (view v is read twice), the web one twice, v's once."""
    from tools.tpcds import EXECUTORS, variants

    schema = Schema(PLANS)

    def joins(self_joins):
        schema.measured = {"queries": {"q51": {"DISTRIBUTEDPLAN": {"nodes": {}, "self_joins": self_joins}}}}
        _, b = variants.q51a(PLANS, schema, "DISTRIBUTEDPLAN", True, 0, EXECUTORS)
        return [n for n in b.nodes if n.kind == "HASH JOIN" and "range self-join" in n.rule]

    plain = joins({})
    assert len(plain) == 5 and not any(n.rule.startswith("M4") for n in plain)
    for rows in (1234567.0, 7654321.0):
        got = joins({"q51a store_v1": {"rows": rows, "rule": "counted"}, "q51a v": {"rows": 2 * rows, "rule": "counted"}})
        measured = sorted(n.card100 for n in got if n.rule.startswith("M4"))
        assert measured == [rows, rows, 2 * rows]
        # the web channel's self-joins, not measured here, keep the estimate
        web = [n.card100 for n in got if not n.rule.startswith("M4")]
        assert len(web) == 2 and web[0] == web[1] and web[0] in [n.card100 for n in plain]


@needs_inputs
def test_a_rollup_variants_levels_take_their_base_plans_measured_classes():
    """q67a's UNION branch for the level (i_category) groups q67's input by i_category: the groups of q67's
    ROLLUP class by i_category, where it was counted (measured_rows.json `classes` of the
    pre-aggregation, rule M2); without a count, the planner's estimate (A1). A changed count changes
    the branch's merge aggregation."""
    from tools.tpcds import EXECUTORS, variants

    schema = Schema(PLANS)

    def merges(classes):
        schema.measured = {"queries": {"q67": {"DISTRIBUTEDPLAN": {"nodes": {
            "7": {"kind": "AGGREGATE", "how": "base", "rows": 1.0, "classes": classes}}}}}}
        _, b = variants.rollup_variant("q67a", "q67", PLANS, schema, "DISTRIBUTEDPLAN", True, 0, EXECUTORS)
        return [n for n in b.nodes if n.kind == "AGGREGATE" and n.bracket == "[FINALIZE]"
                and "level (i_category)" in n.rule]

    plain = merges([])
    assert len(plain) == 1 and "M2" not in plain[0].rule
    for groups in (11.0, 17.0):
        got = merges([{"group_columns": [["item", "i_category"]], "rows": groups},
                      {"group_columns": [], "rows": 1.0}])
        assert len(got) == 1 and "M2: %d groups" % groups in got[0].rule and got[0].card100 == groups
