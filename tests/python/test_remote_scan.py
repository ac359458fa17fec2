"""The remote-scan kind as a user meets it: docs/remote_scan.md's cold Q1 run, --set of C, a small sweep
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
    page = (tmp_path / "b.html").read_text()
    assert "<img" in page
    assert "`" not in page  # the intro's code spans became <code> (they showed as backticks)
    assert 'id="recommendation"' in page  # where tools/render_report.py looks for the recommendation
    assert "img{display:block;width:100%" in page  # the plot at the page's width, as in the exchange report


def test_fit_record_matches_the_scenario():
    scenario = json.loads(Q1.read_text())
    fit = json.loads(FIT.read_text())
    assert fit["target"]["value_s"] == 8.343
    assert scenario["s3"]["data_ttfb_p50_ms"] == fit["result"]["data_ttfb_p50_ms"]
    # S3's spread is the published table moved to the median: no p99 is fitted or tied to it.
    assert scenario["s3"]["ttfb_distribution"] == "quantiles"
    assert "data_ttfb_p99_ms" not in scenario["s3"] and "data_ttfb_p99_ms" not in fit["result"]
    assert abs(fit["result"]["residual_relative"]) < 0.01
    assert len(fit["evaluations"]) >= 3 and all(len(e["runs"]) == 3 for e in fit["evaluations"])


CALIBRATION = (REPO / ".." / "shared" / "reference" / "calibration-data.md").resolve()
MEASURED_CV = 0.014757764043766127  # population CV of 8.105, 8.343, 8.381 s (calibration-data.md C)


def population_cv(xs):
    mean = sum(xs) / len(xs)
    return (sum((x - mean) ** 2 for x in xs) / len(xs)) ** 0.5 / mean


def test_spread_over_seeds_is_of_the_measured_size(exsim):
    """The three measured cold runs at C=64 spread by a population CV of 1.48%, a figure the fit
    does not see. Expected of the model, with S3's first-byte spread taken from s3-benchmark and
    only the median fitted: a CV over at least 10 seeds within twice the measured one, and at least
    a quarter of the three-seed triples as tight as the measured three (the lognormal with its p99
    tied at 4x the median gave 5.1% and 15%). Seeds 1-10 are rerun: fit.json records what the
    simulator gives."""
    spread = json.loads(FIT.read_text())["spread"]
    spans = spread["makespan_s"]
    assert len(spans) == len(spread["seeds"]) >= 10
    assert spread["measured_population_cv"] == pytest.approx(MEASURED_CV)
    assert spread["population_cv"] == pytest.approx(population_cv(spans))
    assert spread["population_cv"] <= 2 * MEASURED_CV
    assert spread["triples_at_most_measured_cv"] >= spread["triples"] / 4
    rerun = [json.loads(run(exsim, Q1, "--set", f"seed={seed}"))["summary"]["makespan_s"]
             for seed in spread["seeds"][:10]]
    assert rerun == spans[:10]
    assert population_cv(rerun) <= 2 * MEASURED_CV


@pytest.mark.skipif(not CALIBRATION.exists(), reason="../shared/reference/calibration-data.md is absent")
def test_measured_spread_is_the_reference_one():
    """The three measured runs the spread is compared with are those of calibration-data.md C."""
    section = CALIBRATION.read_text().split("## C.")[1].split("\n## ")[0]
    assert "Cold Q1: 8.105, 8.343, 8.381 s" in section
    assert json.loads(FIT.read_text())["spread"]["measured_s"] == [8.105, 8.343, 8.381]
    assert population_cv([8.105, 8.343, 8.381]) == pytest.approx(MEASURED_CV)


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
