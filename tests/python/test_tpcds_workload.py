"""Checks of the TPC-DS SF100 workload generator (tools/tpcds_workload.py).

The committed scenarios/tpcds_sf100/workload.json must be exactly what the
generator writes from ../shared/impala-plans, ../shared/impala-profiles and the
committed calibration.json; the tests skip when the plans are absent. Run: /usr/bin/python3 -m pytest tests/python/test_tpcds_workload.py
"""

import json
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLANS = os.path.normpath(os.path.join(REPO, "..", "shared", "impala-plans"))
GENERATOR = os.path.join(REPO, "tools", "tpcds_workload.py")
COMMITTED = os.path.join(REPO, "scenarios", "tpcds_sf100")

needs_plans = pytest.mark.skipif(not os.path.isdir(PLANS),
                                 reason="../shared/impala-plans is absent (Impala's TPC-DS planner tests)")


def load_committed():
    with open(os.path.join(COMMITTED, "workload.json"), "r", encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    out = tmp_path_factory.mktemp("tpcds_sf100")
    proc = subprocess.run([sys.executable, GENERATOR, "--plans", PLANS, "--out", str(out),
                           "--calibration", os.path.join(COMMITTED, "calibration.json")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, "generator failed: %s%s" % (proc.stdout, proc.stderr)
    return out


@needs_plans
@pytest.mark.parametrize("name", ["workload.json", "README.md"])
def test_regenerated_output_is_byte_identical(generated, name):
    with open(os.path.join(generated, name), "rb") as f:
        fresh = f.read()
    with open(os.path.join(COMMITTED, name), "rb") as f:
        committed = f.read()
    assert fresh == committed, (f"scenarios/tpcds_sf100/{name} is stale: rerun "
                                "/usr/bin/python3 tools/tpcds_workload.py")


@needs_plans
def test_generator_fails_clearly_without_plans(tmp_path):
    proc = subprocess.run([sys.executable, GENERATOR, "--plans", str(tmp_path / "missing"),
                           "--out", str(tmp_path / "out")], capture_output=True, text=True)
    assert proc.returncode != 0
    assert "not found" in proc.stderr and "--plans" in proc.stderr
    assert not (tmp_path / "out").exists()


@needs_plans
def test_structure():
    sc = load_committed()
    assert sc["schema_version"] == 1
    xs = sc["exchanges"]
    queries = []
    for x in xs:
        if x["query"] not in queries:
            queries.append(x["query"])
    assert len(queries) == 104, "expected 104 queries, got %d" % len(queries)
    assert queries == sc["provenance"]["query_set"]["queries"]
    for q in ("q72", "q51", "q64", "q67a"):
        assert q in queries
    ids = [x["id"] for x in xs]
    assert len(ids) == len(set(ids)), "exchange ids are not unique"
    for x in xs:
        assert x.get("source", "").strip(), "%s has no source" % x["id"]
        assert x["partitioning"] in ("HASH_PARTITIONED", "UNPARTITIONED", "RANDOM")
        assert isinstance(x["rows_total"], int) and x["rows_total"] >= 0
        if x.get("merging"):
            assert x["receiver_executors"] == 1 and x["receiver_instances_per_executor"] == 1


@needs_plans
def test_after_references_exist_and_form_no_cycle():
    xs = load_committed()["exchanges"]
    by_id = {x["id"]: x for x in xs}
    for x in xs:
        for a in x.get("after", []):
            assert a in by_id, "%s waits for unknown exchange %s" % (x["id"], a)
            assert a != x["id"]
    state = {}

    def visit(i, path):
        if state.get(i) == "done":
            return
        assert state.get(i) != "active", "cycle: %s" % " -> ".join(path + [i])
        state[i] = "active"
        for a in by_id[i].get("after", []):
            visit(a, path + [i])
        state[i] = "done"

    sys.setrecursionlimit(max(10000, sys.getrecursionlimit()))
    for i in by_id:
        visit(i, [])


@needs_plans
def test_counts_match_the_plans():
    sc = load_committed()
    counts = sc["provenance"]["counts"]["by_plan_kind"]
    xs = sc["exchanges"]
    assert counts["HASH"] == sum(1 for x in xs if x["partitioning"] == "HASH_PARTITIONED")
    assert counts["MERGING"] == sum(1 for x in xs if x.get("merging"))
    assert sum(counts.values()) == len(xs)
    # q72's plan has 3 hash exchanges and 13 in all (impala-plans/README.md).
    q72 = [x for x in xs if x["query"] == "q72"]
    assert len(q72) == 13
    assert sum(1 for x in q72 if x["partitioning"] == "HASH_PARTITIONED") == 3
