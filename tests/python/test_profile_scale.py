"""`exsim profile import --scale-data F`: the SF1 q72 profile at F times its data. Each expectation
is the rule of tools/impala_profile/scale.py worked by hand from the profile's own figures: a
scan's rows x F, its scan ranges one a 128 MiB block of F times the bytes it read, an operator's
rows x its input's factor, scans widened to the executors their ranges reach, and every hash join
re-decided with the planner's costs (tools/join_distribution.py) at the plan's estimates x F."""
import json
import math

import pytest

from test_impala_profile import Q72, needs_profiles, run_cli
from tools.impala_profile.decode import read_profiles
from tools.impala_profile.model import build_query

BLOCK = 128 * 2 ** 20


def import_scaled(tmp_path, *args):
    out = tmp_path / "scaled.json"
    proc = run_cli("profile", "import", Q72, "--output", out, *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text()), proc.stderr


def ops(root):
    yield root
    for key in ("input", "probe", "build"):
        if isinstance(root.get(key), dict) and "op" in root[key]:
            yield from ops(root[key])


def by_id(plan):
    return {o["id"]: o for f in plan["fragments"] for o in ops(f["root"])}


@pytest.fixture(scope="module")
def profile_query():
    return build_query(read_profiles(str(Q72))[0])


@needs_profiles
def test_rows_ranges_and_placement_grow_with_the_data(tmp_path, profile_query):
    base, _ = import_scaled(tmp_path)
    sc, err = import_scaled(tmp_path, "--scale-data", "100", "--scale-table", "tpcds.date_dim=1")
    q0, q = base["queries"][0], sc["queries"][0]
    before, after = by_id(q0), by_id(q)
    read = {str(oid): o.total("BytesRead") for f in profile_query.fragments.values()
            for oid, o in f.operators.items() if o.kind == "HDFS_SCAN_NODE"}
    for oid, o in before.items():
        if o["op"] != "scan":
            continue
        f = 1 if o["table"] == "tpcds.date_dim" else 100
        assert after[oid]["rows"] == round(o["rows"] * f)
        # The profiled run read one range a 128 MiB block (3 ranges of catalog_sales' 296 MB).
        assert o["scan_ranges"] == math.ceil(read[oid] / BLOCK)
        assert after[oid]["scan_ranges"] == max(1, math.ceil(read[oid] * f / BLOCK))
    # catalog_sales' 296 MB at 100x: 221 ranges, so its scan runs on all 3 executors as before, with
    # no per-instance weights (its instances are other ones now); inventory's scan on all 3, was 2.
    assert after["0"]["scan_ranges"] == 221 and "instance_weights" not in after["0"]
    f01 = next(f for f in q["fragments"] if f["id"] == "F01")
    assert f01["executors"] == 0 and q0["fragments"][1]["executors"] == 2
    # A join's rows x its probe side's factor: the inventory joins x100; the date_dim probe... none.
    assert after["11"]["rows"] == before["11"]["rows"] * 100
    # The top-n had reached its limit: it still outputs what it did.
    assert after["22"]["rows"] == before["22"]["rows"]
    # The measured values were the profiled run's.
    assert "expected" not in q and all("expected" not in x for x in q["exchanges"])
    prov = sc["provenance"]["scaled_data"]
    assert prov["factor"] == 100 and prov["tables"] == {"tpcds.date_dim": 1}
    assert "0 of 20 joins re-decided change" in err


@needs_profiles
def test_every_join_is_re_decided_at_the_plans_estimates(tmp_path, profile_query):
    sc, _ = import_scaled(tmp_path, "--scale-data", "100")
    joins = sc["provenance"]["scaled_data"]["joins"]
    assert len(joins) == 20   # 10 hash joins, in each of the two plans
    # The rule gives every printed choice at the plan's own estimates: none is kept for disagreeing.
    assert all(j["rule_at_plan_estimates"] == j["profiled"] for j in joins)
    # Join 17 (customer_demographics, broadcast) on F06's 3 hosts at mt_dop 0: broadcast = 2 x 3 x B,
    # B = the build's estimate x 100 x (row size + 4 bytes a tuple).
    ops_ = {o.id: o for f in profile_query.fragments.values() for o in f.operators.values()}
    build = ops_[30]
    b = build.cardinality * 100 * (build.row_size + 4 * build.tuples)
    j17 = next(j for j in joins if j["join"] == "17" and j["plan"] == "fragments")
    assert j17["broadcast_bytes"] == round(2 * 3 * b)
    assert j17["kept"] == "unchanged" and j17["rule_at_scaled_estimates"] == "BROADCAST"


@needs_profiles
def test_a_join_that_turns_partitioned_is_re_planned(tmp_path):
    # At 1000x on 40 executors broadcasting customer_demographics costs more than sending both sides.
    sc, err = import_scaled(tmp_path, "--scale-data", "1000", "--executors", "40")
    changed = [j for j in sc["provenance"]["scaled_data"]["joins"] if "changed" in j]
    assert [(j["join"], j["plan"]) for j in changed] == [("17", "fragments"), ("17", "parallel")]
    assert j_costs_favour_partitioned(changed[0])
    assert "2 of 20 joins re-decided change: join 17" in err
    for plan in (sc["queries"][0], sc["queries"][0]["parallel"]):
        xs = {x["id"]: x for x in plan["exchanges"]}
        frags = {f["id"]: f for f in plan["fragments"]}
        # The build's exchange is hash-partitioned; a new hash exchange carries the probe side.
        assert xs["x30"]["partitioning"] == "HASH_PARTITIONED"
        assert xs["x37"]["partitioning"] == "HASH_PARTITIONED"
        # The join and what was above it moved to a new fragment on every executor, fed by the old one.
        new = frags["F37"]
        assert new["executors"] == 0 and new["sink"] == {"exchange": "x34"}
        moved = {o["id"] for o in ops(new["root"])}
        assert {"17", "18", "19", "20", "21"} <= moved and "16" not in moved
        assert frags["F06"]["sink"] == {"exchange": "x37"}
        assert frags["F06"]["root"]["id"] == "16"


def j_costs_favour_partitioned(j):
    return j["partitioned_bytes"] < j["broadcast_bytes"]


@needs_profiles
@pytest.mark.parametrize("args,message", [
    (["--scale-data", "0"], "--scale-data '0': expected a factor > 0"),
    (["--scale-data", "lots"], "--scale-data 'lots': expected a factor > 0"),
    (["--scale-data", "10", "--scale-table", "date_dim"], "--scale-table 'date_dim': expected TABLE=FACTOR"),
    (["--scale-data", "10", "--scale-table", "tpcds.nosuch=1"], "--scale-table: no scan of the profile reads "
                                                                 "tpcds.nosuch"),
    (["--scale-table", "tpcds.item=1"], "--scale-table: only with --scale-data"),
])
def test_bad_scale_options_name_the_option(tmp_path, args, message):
    proc = run_cli("profile", "import", Q72, "--output", tmp_path / "x.json", *args)
    assert proc.returncode != 0 and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "x.json").exists()
