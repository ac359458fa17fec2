"""The remote-scan kind as a user meets it: the README's cold Q1 run, --set of C, a small sweep
and its report, determinism, the documented results schema, and the fit record."""

import json
import subprocess

import jsonschema
import pytest

from conftest import REPO, run_script

Q1 = REPO / "scenarios" / "velox_s3_q1" / "q1_cold.json"
FIT = REPO / "scenarios" / "velox_s3_q1" / "fit.json"
SCHEMA = json.loads((REPO / "docs" / "results.schema.json").read_text())
# A tenth of Q1 (198 splits, the same bytes per split) keeps sweeps quick.
SMALL = ["splits.count=198", "splits.data_bytes_total=4592925969"]


def run(exsim, *args):
    return subprocess.run([str(exsim), "run", *map(str, args)], check=True, capture_output=True, text=True).stdout


def test_readme_q1_run(exsim, tmp_path):
    out = tmp_path / "q1.json"
    summary = run(exsim, Q1, "--output", out, "--summary")
    assert "scenario q1_cold (remote_scan): 4 executor(s) on 4 host(s), C=64" in summary
    # `exsim summary` of the results file prints the same summary as the run did.
    again = subprocess.run([str(exsim), "summary", str(out)], check=True, capture_output=True, text=True).stdout
    assert again == summary
    r = json.loads(out.read_text())
    jsonschema.validate(r, SCHEMA)
    s = r["summary"]
    # Derived from calibration-data.md C: every split and every byte read from storage.
    assert s["splits"] == 1982
    assert s["bytes"] == 46_105_545_240
    assert s["footer_gets"] == 1982
    assert len(r["executors"]) == 4
    # The fit matched the median of three seeds; seed 1 alone is within the model's seed spread.
    fit = json.loads(FIT.read_text())["result"]
    assert fit["makespan_s_min"] <= s["makespan_s"] <= fit["makespan_s_max"]
    assert s["bound"] in ("window", "nic", "s3_stream", "consumer")
    for x in r["executors"]:
        assert len(x["series"]["t_s"]) == len(x["series"]["bytes_reserved"]) > 10
        assert x["peak_bytes_reserved"] <= r["settings"]["prefetch"]["prefetchMaxInFlightBytes"]


def test_set_changes_c(exsim, tmp_path):
    base = json.loads(run(exsim, Q1, *sum((["--set", s] for s in SMALL), [])))
    c16 = json.loads(run(exsim, Q1, *sum((["--set", s] for s in SMALL), []),
                         "--set", "executorSplitPrefetchConcurrency=16"))
    assert base["summary"]["split_concurrency"] == 64
    assert c16["summary"]["split_concurrency"] == 16
    assert c16["settings"]["prefetch"]["executorSplitPrefetchConcurrency"] == 16
    assert all(x["peak_splits_in_flight"] <= 16 for x in c16["executors"])
    assert c16["summary"]["makespan_s"] > base["summary"]["makespan_s"]


def test_same_seed_byte_identical(exsim, tmp_path):
    args = [Q1, *sum((["--set", s] for s in SMALL), [])]
    run(exsim, *args, "--output", tmp_path / "a.json")
    run(exsim, *args, "--output", tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_small_sweep_and_report(exsim, tmp_path):
    out = tmp_path / "sweep"
    grid = ["--grid", "executorSplitPrefetchConcurrency=8,64"]
    for s in SMALL:
        grid += ["--grid", s]
    proc = run_script("run_sweep.py", Q1, *grid, "--exsim", exsim, "--out", out, "--jobs", "2")
    assert proc.returncode == 0, proc.stderr
    csv = (out / "results.csv").read_text()
    assert "makespan_s" in csv.splitlines()[0] and "bytes_reserved_peak" in csv.splitlines()[0]
    # Without a budget the faster C wins; a budget below its bytes reserved peak picks the other.
    points = {json.loads(p.read_text())["summary"]["split_concurrency"]: json.loads(p.read_text())["summary"]
              for p in (out / "points").glob("*.json")}
    assert points[64]["makespan_s"] < points[8]["makespan_s"]
    assert points[8]["bytes_reserved_peak"] < points[64]["bytes_reserved_peak"]
    proc = run_script("analysis/report.py", out, "--output", tmp_path / "r.html")
    assert proc.returncode == 0, proc.stderr
    md = (tmp_path / "r.md").read_text()
    assert "remote scan" in md and "(C=64)" in md
    budget_mb = (points[8]["bytes_reserved_peak"] + points[64]["bytes_reserved_peak"]) / 2 / 2**20
    proc = run_script("analysis/report.py", out, "--memory-budget-mb", f"{budget_mb}", "--output",
                      tmp_path / "b.html")
    assert proc.returncode == 0, proc.stderr
    md = (tmp_path / "b.md").read_text()
    assert "(C=8)" in md.split("## Configurations")[0]
    assert "window (" in md  # each configuration names its bound, and which window for a window bound
    assert "<img" in (tmp_path / "b.html").read_text()


def test_fit_record_matches_the_scenario():
    scenario = json.loads(Q1.read_text())
    fit = json.loads(FIT.read_text())
    assert fit["target"]["value_s"] == 8.343
    assert scenario["s3"]["data_ttfb_p50_ms"] == fit["result"]["data_ttfb_p50_ms"]
    assert scenario["s3"]["data_ttfb_p99_ms"] == fit["result"]["data_ttfb_p99_ms"]
    assert abs(fit["result"]["residual_relative"]) < 0.01
    assert len(fit["evaluations"]) >= 3 and all(len(e["runs"]) == 3 for e in fit["evaluations"])


@pytest.mark.parametrize("doc, message", [
    ({"schema_version": 1, "kind": "remote_scan", "splits": {"count": 2, "data_bytes_total": 10},
      "exchanges": []}, "exchanges: unknown key for a remote_scan scenario"),
    ({"schema_version": 1, "kind": "remote_scan", "splits": {"count": 2, "data_bytes_total": 10},
      "prefetch": {"executorSplitPrefetchConcurrency": 0}}, "prefetch.executorSplitPrefetchConcurrency"),
])
def test_bad_remote_scan_exits_2(exsim, tmp_path, doc, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    proc = subprocess.run([str(exsim), "validate", str(path)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert message in proc.stderr
