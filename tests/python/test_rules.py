"""The simulator's rules as Python asks for them (common/exsim_runner.py: rules, partitioning,
send_mode, batch_bytes, collector_rows and ask_rule, cost_keys), checked against what the simulator runs with
(`exsim explain --format json`), and a scan that fails when a Python file restates one of the
simulator's tables (its sender kinds, cost keys or critical-path parts) instead of asking for it.

Run: /usr/bin/python3 -m pytest tests/python/test_rules.py -q
"""

import ast
import json
import os
import subprocess
from pathlib import Path

import pytest

from common import exsim_runner

REPO = Path(__file__).resolve().parents[2]

# Python that reads Impala's own text (plans, profiles) and so writes Impala's names for what it
# reads, each with why; everywhere else a list of the simulator's names is a copy of its table.
IMPALA_TEXT_READERS = {
    "tools/impala_profile/model.py": "maps the words of a profile's ExecSummary and sender to partitioning names",
    "tools/tpcds/fragments.py": "maps the distribution words of Impala's plan text to partitioning names",
    "tools/tpcds/plans.py": "parses Impala's plan text",
    "tools/tpcds/readme.py": "the workload README's columns: the kinds Impala's TPC-DS plans use, not a rule",
}


def explain(exsim, tmp_path, exchanges, flags=None):
    """{id: exchange} of `exsim explain --format json` on an exchange-only scenario of 5 executors."""
    sc = {"schema_version": 2, "name": "rules", "seed": 1,
          "cluster": {"executors": 5, "cores_per_executor": 8},
          "flags": flags or {}, "exchanges": exchanges}
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(sc), encoding="utf-8")
    r = subprocess.run([str(exsim), "explain", str(path), "--format", "json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return {x["id"]: x for q in json.loads(r.stdout)["queries"] for x in q["exchanges"]}


def test_send_modes_are_the_ones_the_simulator_runs(exsim, tmp_path):
    """For every kind the simulator has, with one channel and with five, the mode Python reads from
    `exsim params` is the mode `explain` reports for a sender of that kind and channels."""
    exchanges = []
    for name in exsim_runner.partitioning_names(exsim):
        for receivers in (1, 5):
            x = {"id": f"{name}.{receivers}", "partitioning": name, "rows_total": 1000, "fixed_row_bytes": 16,
                 "receiver_executors": receivers}
            if name == "DIRECTED":
                x["directed_fanout"] = 1
            exchanges.append(x)
    got = explain(exsim, tmp_path, exchanges)
    assert len(got) == 2 * len(exsim_runner.partitioning_names(exsim)) >= 10
    for x in exchanges:
        expected = exsim_runner.send_mode(x["partitioning"], x["receiver_executors"], exsim)
        assert got[x["id"]]["sender"]["send_mode"] == expected, x["id"]
    # what the table says of the kinds Impala has documented behaviour for
    assert exsim_runner.send_mode("HASH_PARTITIONED", 5, exsim) == "collectors"
    assert exsim_runner.send_mode("UNPARTITIONED", 5, exsim) == "broadcast"
    assert exsim_runner.send_mode("RANDOM", 5, exsim) == "whole_batch"
    assert exsim_runner.partitioning("UNPARTITIONED", exsim)["every_receiver"]
    with pytest.raises(KeyError, match="not a sender kind"):
        exsim_runner.partitioning("HASH", exsim)


@pytest.mark.parametrize("buffer, fixed, var", [
    (16384, 64, 16),          # 16384 // 64 = 256 rows: the buffer binds
    (16384, 93, 0),           # 176: the q72 profile's exchange 28
    (16384, 100000, 0),       # a row wider than the buffer: at least one
    (1 << 20, 8, 200000),     # 8 MiB // 200008 = 41 rows, where the buffer alone allows 131072
    (1 << 26, 1, 0),          # 8 MiB // 1: the flush binds a narrow row too
])
def test_collector_rows_are_the_ones_the_simulator_runs(exsim, tmp_path, buffer, fixed, var):
    """The collector capacity Python asks for (`exsim rules collector-rows`, for the TPC-DS generator)
    is the collector rows the simulator's sender runs with (`exsim explain`), where the buffer binds
    and where the 8 MiB tuple-data flush does."""
    got = explain(exsim, tmp_path, [{"id": "h", "partitioning": "HASH_PARTITIONED", "rows_total": 1000,
                                     "fixed_row_bytes": fixed, "var_row_bytes": var}],
                  flags={"data_stream_sender_buffer_size": buffer})["h"]["sender"]
    assert got["send_mode"] == "collectors"
    by_hand = min(max(1, buffer // fixed), max(1, (8 << 20) // (fixed + var)))
    assert exsim_runner.collector_rows(buffer, fixed, fixed + var, exsim) == got["collector_rows"] == by_hand


def test_a_rule_is_asked_of_one_running_simulator(exsim):
    """Many questions, one exsim process: each answered in order; a refused input is ExsimError with
    exsim's message (naming the input), and the next question starts a new process."""
    def running():
        return exsim_runner._rule_state()[1][(os.getpid(), str(exsim), "collector-rows")][0]

    asked = [[16384, 64, 80], [16384, 93, 93], [1 << 20, 8, 200008]]
    assert exsim_runner.ask_rule("collector-rows", asked, exsim) == [256, 176, 41]
    first = running()
    assert exsim_runner.ask_rule("collector-rows", [(16384, 100000, 100000)], exsim) == [1]
    assert running() is first and first.poll() is None
    with pytest.raises(exsim_runner.ExsimError, match=r"stdin:\d+: \[0\]\[1\]: expected an integer in \[1, "):
        exsim_runner.ask_rule("collector-rows", [[16384, 0, 9]], exsim)
    assert first.poll() == 2
    assert exsim_runner.ask_rule("collector-rows", [[16384, 93, 93]], exsim) == [176]
    assert running() is not first


def test_a_rule_without_a_built_simulator_says_to_build_it(tmp_path):
    """A rule that computes has no committed copy to fall back on: the error says to build exsim."""
    missing = tmp_path / "build" / "exsim"
    with pytest.raises(exsim_runner.ExsimError, match="not built.*build exsim"):
        exsim_runner.collector_rows(16384, 93, exsim=missing)


def test_batch_layout_and_cost_keys_come_from_the_simulator(exsim):
    assert exsim_runner.batch_bytes("tuple_offset_bytes", exsim) == 4      # OutboundRowBatch: an int32 per tuple
    assert exsim_runner.batch_bytes("tuple_pointer_bytes", exsim) == 8     # RowBatch: a pointer per tuple
    per_row = exsim_runner.cost_keys(unit="ns", exsim=exsim)
    assert "scan_ns_per_row" in per_row and "query_startup_s" not in per_row
    assert set(exsim_runner.cost_keys(exsim=exsim)) - set(per_row) == {"query_startup_s", "codegen_s_per_fragment"}


def test_committed_rules_equal_the_simulators(exsim):
    """Python without a built simulator reads the committed copy: it must be the simulator's."""
    committed = json.loads(exsim_runner.PARAMETERS_JSON.read_text(encoding="utf-8"))["rules"]
    assert committed == exsim_runner.rules(exsim)


# --------------------------------------------------------------------------
# No Python file restates a table of the simulator's
# --------------------------------------------------------------------------

def simulator_tables():
    """{table: set of names} of the simulator's tables that Python must ask for."""
    return {"sender kinds": set(exsim_runner.partitioning_names()),
            "cost keys": set(exsim_runner.cost_keys()),
            "critical-path parts": set(exsim_runner.breakdown_parts())}


def restated(source, tables):
    """[(line, table, names)] of the literal lists, tuples, sets and dicts in Python `source` that
    name two or more names of one table: a copy of (part of) the table."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = node.elts
        elif isinstance(node, ast.Dict):
            items = [k for k in node.keys if k is not None] + node.values
        else:
            continue
        strings = {e.value for e in items if isinstance(e, ast.Constant) and isinstance(e.value, str)}
        for table, names in tables.items():
            hit = sorted(strings & names)
            if len(hit) >= 2:
                out.append((node.lineno, table, hit))
    return sorted(out)


def test_the_scan_finds_a_restated_table():
    """The scan catches the copies this project had: the routing kinds of the profile importer, the
    calibration's cost keys; and lets a single name (a lookup) pass."""
    tables = {"sender kinds": {"HASH_PARTITIONED", "KUDU", "DIRECTED", "RANDOM"},
              "cost keys": {"scan_ns_per_row", "sort_ns_per_row"}}
    copies = restated('if x.partitioning in ("HASH_PARTITIONED", "KUDU", "DIRECTED"):\n    pass\n'
                      'COST_KEYS = ["scan_ns_per_row", "sort_ns_per_row"]\n'
                      'D = {"scan_ns_per_row": "what it is", "sort_ns_per_row": "what"}\n', tables)
    assert [(line, table) for line, table, _ in copies] == [(1, "sender kinds"), (3, "cost keys"), (4, "cost keys")]
    assert restated('hash = [x for x in xs if x["partitioning"] == "HASH_PARTITIONED"]\n', tables) == []


def test_no_python_file_restates_a_simulator_table():
    tables = simulator_tables()
    assert all(len(names) >= 5 for names in tables.values())
    files = [p for d in ("common", "tools", "analysis") for p in sorted((REPO / d).rglob("*.py"))]
    files += sorted(REPO.glob("*.py"))
    assert len(files) > 30
    found = []
    for path in files:
        rel = path.relative_to(REPO).as_posix()
        if rel in IMPALA_TEXT_READERS:
            continue
        for line, table, names in restated(path.read_text(encoding="utf-8"), tables):
            found.append(f"{rel}:{line}: {table} {', '.join(names)}")
    assert not found, ("these restate a table of the simulator's; ask common/exsim_runner.py for it:\n"
                       + "\n".join(found))


def test_the_runner_module_pickles_by_value_until_it_asks():
    """common/dask_client.py sends exsim_runner to Dask workers by value, its state included: a
    lock made at import would not pickle (run_sweep.py --dask failed so)."""
    import sys
    code = ("import cloudpickle, sys; sys.path.insert(0, %r); from common import exsim_runner; "
            "cloudpickle.register_pickle_by_value(exsim_runner); cloudpickle.dumps(exsim_runner)" % str(REPO))
    subprocess.run([sys.executable, "-c", code], check=True)  # a fresh process: this one may have asked
