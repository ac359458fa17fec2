"""Profile import refuses, before building anything, a profile that asks for more than a real
query's: decompressed bytes, instances per fragment, nodes built for them; and a counter beyond
an integer's range is an input error. Exit 2 with the file named, never a traceback or MemoryError."""

import base64
import json
import os
import subprocess
import sys
import zlib

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO))
from tools.impala_profile import decode  # noqa: E402


def run_import(path, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-P", "-m", "tools.impala_profile", "profile", "import", str(path),
                           "--output", str(tmp_path / "out.json")], capture_output=True, text=True, env=env,
                          timeout=120)


def aggregated_json(count):
    fragment = {"profile_name": "Fragment F00",
                "counters": [{"counter_name": "RowsReturned", "unit": "UNIT", "count": count, "min": 1, "max": 1,
                              "mean": 1}]}
    return {"contents": {"profile_name": "Query (id=1:2)",
                         "child_profiles": [{"profile_name": "Execution Profile 1:2", "child_profiles": [fragment]}]}}


def test_an_aggregated_count_beyond_any_query_is_refused(tmp_path):
    path = tmp_path / "agg.json"
    path.write_text(json.dumps(aggregated_json(100_000_000)))  # 368 bytes asked for 10^8 instance nodes
    proc = run_import(path, tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and str(path) in proc.stderr
    assert "a counter's count of 100000000: expected the number of instances, at most 100,000" in proc.stderr
    assert not (tmp_path / "out.json").exists()


def test_decompression_stops_at_its_limit(monkeypatch):
    monkeypatch.setattr(decode, "MAX_DECOMPRESSED_BYTES", 1 << 20)
    line = base64.b64encode(zlib.compress(b"\0" * (2 << 20))).decode()
    with pytest.raises(decode.ProfileError, match=r"^f:1: the zlib stream decompresses to more than 1 MiB"):
        decode.decode_archive(line, "f:1")


def test_aggregated_thrift_nodes_are_counted_before_they_are_built():
    nodes = [{decode.F_NODE_NAME: "Coordinator Fragment F00", decode.F_NODE_NUM_CHILDREN: 200,
              decode.F_NODE_AGGREGATED: {decode.F_AGG_INPUT_PROFILES: [f"Instance {k}" for k in range(20_000)]}}]
    nodes += [{decode.F_NODE_NAME: f"node {k}", decode.F_NODE_NUM_CHILDREN: 0} for k in range(200)]
    with pytest.raises(decode.ProfileError, match="20,000 instances of 201 node"):
        decode._build_thrift_tree(nodes, 0)


PROFILE = (REPO / ".." / "shared" / "impala-profiles" / "tpcds_72_local_run_profile.json").resolve()
needs_profile = pytest.mark.skipif(not PROFILE.exists(), reason="../shared/impala-profiles is absent")


def with_counter(name, value):
    doc = json.loads(PROFILE.read_text())
    stack = [doc["contents"]]
    while stack:
        node = stack.pop()
        for c in node.get("counters") or []:
            if c["counter_name"] == name:
                c["value"] = value
        stack.extend(node.get("child_profiles") or [])
    return doc


@needs_profile
@pytest.mark.parametrize("name,value,expected", [
    ("RowsReturned", 1e308, "malformed profile: OverflowError"),
    ("TotalTime", 1e308, "the scenario made from this profile is not valid: (imported): costs."),
    ("TotalTime", -5e9, "the scenario made from this profile is not valid: (imported): costs."),
    ("RowsReturned", 1e18, "the scenario made from this profile is not valid: (imported): queries[0]"),
])
def test_values_beyond_the_model_are_input_errors(exsim, tmp_path, name, value, expected):
    """A counter exsim cannot use ends in exit 2 naming the profile, and nothing is written."""
    path = tmp_path / "profile.json"
    path.write_text(json.dumps(with_counter(name, value)))
    proc = subprocess.run([str(exsim), "profile", "import", str(path), "--output", str(tmp_path / "out.json")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert f"{path}: " in proc.stderr and expected in proc.stderr, proc.stderr
    assert not (tmp_path / "out.json").exists()
