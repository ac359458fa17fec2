"""A query's own flags (its query options) and costs (its operators' measured CPU per row) over the
scenario's: each query of a sequential workload is simulated alone, so giving one query its own
value moves that query only and leaves every other query's results as they were; `--set` of a flag
or a cost is a what-if for the whole run and reaches the queries that set it themselves; a
daemon-wide flag is refused in a query, named."""
import json
import subprocess

import pytest
from conftest import REPO

WORKLOAD = REPO / "scenarios" / "profiles" / "compute_stats_v2.json"   # 2 queries, mt_dop 4, sequential


def run(exsim, path, *args):
    out = path.with_suffix(".results.json")
    proc = subprocess.run([str(exsim), "run", str(path), "--output", str(out), *args], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text())


def explain(exsim, path, *args):
    proc = subprocess.run([str(exsim), "explain", str(path), "--format", "json", *args], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return {q["query"]: q for q in json.loads(proc.stdout)["queries"]}


def variant(tmp_path, edit, name="variant"):
    doc = json.loads(WORKLOAD.read_text())
    for q in doc["queries"]:
        q.pop("costs", None)   # the queries' own measured costs: none, so that only the edit differs
        q.pop("flags", None)
    edit(doc)
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(doc))
    return path


def runtimes(results):
    return {q["query"]: q["runtime_s"] for q in results["queries"]}


def test_a_querys_own_costs_move_that_query_only(exsim, tmp_path):
    base = variant(tmp_path, lambda d: None, "base")
    first = json.loads(base.read_text())["queries"][0]["name"]
    plain = run(exsim, base)
    agg = json.loads(base.read_text())["costs"]["aggregate_ns_per_row"]
    slower = variant(tmp_path, lambda d: d["queries"][0].update(costs={"aggregate_ns_per_row": 4 * agg}))
    moved = run(exsim, slower)
    a, b = runtimes(plain), runtimes(moved)
    assert b[first] > a[first]
    assert all(b[n] == a[n] for n in a if n != first)   # simulated alone: not a bit different
    assert moved["settings"]["queries"][0]["costs"] == {"aggregate_ns_per_row": 4 * agg}
    # --set of a cost is for every query: the query's own value gives way to it
    both = run(exsim, slower, "--set", "costs.aggregate_ns_per_row=%r" % agg)
    assert runtimes(both) == a


def test_a_querys_own_mt_dop_places_that_query_only(exsim, tmp_path):
    def own(d):
        d["queries"][0]["flags"] = {"mt_dop": 0}
    path = variant(tmp_path, own)
    names = [q["name"] for q in json.loads(path.read_text())["queries"]]
    at4, mixed = explain(exsim, variant(tmp_path, lambda d: None, "base")), explain(exsim, path)
    inst = lambda q: [f["instances"] for f in q["fragments"]]   # noqa: E731
    # mt_dop 0 runs the plan of one instance per executor where mt_dop 4 ran four; the other query as before
    assert sum(inst(mixed[names[0]])) < sum(inst(at4[names[0]]))
    assert inst(mixed[names[1]]) == inst(at4[names[1]])
    results = run(exsim, path)
    assert results["settings"]["queries"][0]["flags"] == {"mt_dop": 0}
    assert "flags" not in results["settings"]["queries"][1]
    # --set mt_dop=4 is every query at 4 again
    assert inst(explain(exsim, path, "--set", "mt_dop=4")[names[0]]) == inst(at4[names[0]])


@pytest.mark.parametrize("flags,message", [
    ({"datastream_service_num_svc_threads": 4}, "queries[0].flags.datastream_service_num_svc_threads: a daemon-wide"),
    ({"mt_dopp": 4}, "queries[0].flags.mt_dopp"),
])
def test_what_a_query_cannot_set_is_named(exsim, tmp_path, flags, message):
    path = variant(tmp_path, lambda d: d["queries"][0].update(flags=flags))
    proc = subprocess.run([str(exsim), "validate", str(path)], capture_output=True, text=True)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
