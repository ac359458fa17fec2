"""Bad command lines of the Python tools, each as its smallest case (issue 34, section 5): exit 2
with a message naming the option (or file) and what was expected, at once, never a traceback nor
an exit 0 that wrote something unusable; and `compare` and `diff` on results they cannot line up."""

import json
import stat
import subprocess
import sys
import time

import pytest

from conftest import REPO, SCENARIO, run_script

sys.path.insert(0, str(REPO))
from tools.impala_profile import cli  # noqa: E402

PLANS = REPO / ".." / "shared" / "impala-plans"
PROFILES = (REPO / ".." / "shared" / "impala-profiles").resolve()
TEXT = PROFILES / "impala_profile_log_tpcds_compute_stats.expected.txt"


def no_traceback(proc):
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr


def test_tpcds_workload_refuses_more_executors_than_exsim_takes(tmp_path):
    proc = run_script("tools/tpcds_workload.py", "--executors", "100000", "--out", tmp_path / "w")
    no_traceback(proc)
    assert "--executors 100000: expected 1 to 1000 (exsim's range of cluster.executors)" in proc.stderr
    assert not (tmp_path / "w").exists()


def test_tpcds_workload_out_naming_a_file_is_refused(tmp_path):
    target = tmp_path / "file.json"
    target.write_text("{}")
    proc = run_script("tools/tpcds_workload.py", "--out", target)
    no_traceback(proc)
    assert f"--out {target}: not a folder" in proc.stderr and target.read_text() == "{}"


@pytest.mark.parametrize("output", ["", "{\"properties\": 1, \"parameters\": 3}"])
def test_parameter_docs_with_something_else_than_exsim_is_refused(tmp_path, output):
    fake = tmp_path / "not-exsim"
    fake.write_text(f"#!/bin/sh\nprintf '%s' '{output}'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    proc = run_script("tools/parameter_docs.py", "--exsim", fake, "--check")
    no_traceback(proc)
    assert f"parameter_docs: {fake} " in proc.stderr and "expected exsim, the simulator (--exsim PATH" in proc.stderr


def test_run_sweep_refuses_a_grid_past_its_size_at_once(tmp_path):
    values = ",".join(str(k) for k in range(1, 1101))
    t0 = time.monotonic()
    proc = run_script("run_sweep.py", SCENARIO, "--grid", f"seed={values}", "--grid", f"batch_size={values}",
                      "--out", tmp_path / "sweep")
    no_traceback(proc)
    assert "--grid: 1,210,000 points (1100 x 1100 values): expected at most 100,000" in proc.stderr
    assert time.monotonic() - t0 < 30 and not (tmp_path / "sweep").exists()


def run_tool(args, capsys):
    code = cli.main([str(a) for a in args])
    return code, capsys.readouterr().err


@pytest.mark.skipif(not TEXT.exists(), reason="../shared/impala-profiles is absent")
def test_compare_of_an_exchange_only_result_with_a_profile_is_refused(exsim, tmp_path, capsys):
    results = tmp_path / "hash_5x5.json"
    subprocess.run([str(exsim), "run", SCENARIO, "--output", results], check=True, capture_output=True)
    code, err = run_tool(["compare", results, TEXT], capsys)
    assert code == 2 and f"{results} and {TEXT} do not belong together" in err
    assert "name no query (an exchange-only scenario)" in err


@pytest.fixture(scope="module")
def remote_scans(exsim, tmp_path_factory):
    out = tmp_path_factory.mktemp("rs")
    scan = REPO / "scenarios" / "velox_s3_q1" / "q1_cold.json"
    paths = []
    for k in (64, 8):
        p = out / f"c{k}.json"
        subprocess.run([str(exsim), "run", scan, "--set", f"executorSplitPrefetchConcurrency={k}", "--output", p],
                       check=True, capture_output=True)
        paths.append(p)
    return paths


def test_diff_of_two_remote_scans_lines_up_their_figures(remote_scans, capsys):
    a, b = remote_scans
    code, _ = run_tool(["diff", a, b, "--format", "json"], capsys)
    assert code == 0
    code, _ = run_tool(["diff", a, b, "--format", "json", "--output", a.with_name("d.json")], capsys)
    doc = json.loads(a.with_name("d.json").read_text())
    rows = {(r["level"], r["exchange"], r["figure"]): r for r in doc["rows"]}
    ra, rb = (json.loads(p.read_text()) for p in (a, b))
    assert rows[("scan", "", "makespan_s")]["A"] == ra["summary"]["makespan_s"]
    assert rows[("scan", "", "makespan_s")]["B"] == rb["summary"]["makespan_s"]
    assert rows[("executor", "0", "end_s")]["B"] == rb["executors"][0]["end_s"]
    assert doc["headline"].startswith("runtime A ") and "executorSplitPrefetchConcurrency=8" in doc["b"]["settings"]
    code, err = run_tool(["diff", a, a, "--rel-tol", "0"], capsys)
    assert code == 0, err


def test_diff_of_a_remote_scan_and_an_exchange_result_says_why_not(remote_scans, exsim, tmp_path, capsys):
    results = tmp_path / "x.json"
    subprocess.run([str(exsim), "run", SCENARIO, "--output", results], check=True, capture_output=True)
    code, err = run_tool(["diff", remote_scans[0], results], capsys)
    assert code == 2 and f"{remote_scans[0]} holds a remote scan's results and {results} exchanges'" in err
