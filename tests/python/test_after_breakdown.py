"""A query chained by `after` in the exchange-only form: the later exchange continues the critical
path of the one it waited for, so its breakdown names what the earlier exchange's time went to
(here round trips), not "startup" (issue 34, section 4: it reported startup 100%)."""

import json
import subprocess

SCENARIO = {
    "schema_version": 2,
    "description": "two small exchanges of one query, the second after the first: round trips dominate",
    "cluster": {"executors": 10, "cores_per_executor": 16, "threads_per_core": 1},
    "exchange_defaults": {"partitioning": "HASH_PARTITIONED", "rows_total": 20000, "fixed_row_bytes": 32},
    "exchanges": [{"id": "first", "query": "q"}, {"id": "second", "query": "q", "after": ["first"]}],
}


def test_a_chained_exchange_continues_the_path_it_waited_for(exsim, tmp_path):
    path = tmp_path / "chained.json"
    path.write_text(json.dumps(SCENARIO))
    out = tmp_path / "r.json"
    subprocess.run([str(exsim), "run", str(path), "--output", str(out)], check=True, capture_output=True)
    (q,) = json.loads(out.read_text())["queries"]
    parts = q["breakdown"]
    assert abs(sum(parts.values()) - q["runtime_s"]) <= 1e-9 * q["runtime_s"]
    assert parts["startup_s"] <= 1e-3 * q["runtime_s"], parts
    assert max(parts, key=parts.get) == "rtt_s", parts
