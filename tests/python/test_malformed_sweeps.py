"""report.py and regress.py on sweep folders that are not as run_sweep.py writes them: exit 2 with
one line naming the file and what was expected, never a traceback."""

import csv
import io
import json
import shutil

import pytest

from conftest import read_manifest, run_script

from analysis import results


def _manifest(sweep):
    return sweep / "manifest.json", read_manifest(sweep)


def _point(sweep):
    entry = read_manifest(sweep)["points"][0]
    return sweep / entry["file"], json.loads((sweep / entry["file"]).read_text())


# (what is broken, how, text the message must contain)
MANIFEST_CASES = [
    ("points as an object", lambda m: m.update(points={}), "manifest.json: $.points: {} is not of type 'array'"),
    ("a point without its status", lambda m: m["points"][0].pop("status"), "$.points[0]: 'status' is a required"),
    ("a point of null", lambda m: m["points"].__setitem__(0, None), "$.points[0]: None is not of type 'object'"),
    ("overrides as a string", lambda m: m["points"][0].update(overrides="x"), "$.points[0].overrides"),
    ("an override missing", lambda m: m["points"][0]["overrides"].popitem(), "$.points[0].overrides: expected a value"),
    ("grid of null", lambda m: m.update(grid=None), "$.grid: None is not of type 'array'"),
    ("a file outside the sweep", lambda m: m["points"][0].update(file="../x.json"), "$.points[0].file"),
    ("the manifest a list", lambda m: m.clear(), "manifest_version: expected 1"),
]
POINT_CASES = [
    ("summary of null", lambda r: r.update(summary=None), "results JSON has no 'summary' object"),
    ("exchanges as an object", lambda r: r.update(exchanges={}), "$.exchanges: {} is not of type 'array'"),
    ("a figure as a string", lambda r: r["summary"].update(makespan_s="fast"), "$.summary.makespan_s: 'fast'"),
    ("an exchange of null", lambda r: r["exchanges"].__setitem__(0, None), "$.exchanges[0]: None is not of type"),
    ("settings as a string", lambda r: r.update(settings="x"), "$.settings: 'x' is not of type 'object'"),
    ("nested too deep", None, "cannot read JSON"),
]


def _tools(sweep, tmp_path):
    baseline = tmp_path / "baseline.json"
    shutil.copy(tmp_path / "good_baseline.json", baseline)
    yield "report", run_script("analysis/report.py", sweep, "--output", tmp_path / "r.html")
    yield "regress", run_script("analysis/regress.py", sweep, "--baseline", baseline)


@pytest.fixture
def good_baseline(smoke_sweep, tmp_path):
    proc = run_script("analysis/regress.py", smoke_sweep, "--baseline", tmp_path / "good_baseline.json", "--update")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("name,change,expected", MANIFEST_CASES, ids=[c[0] for c in MANIFEST_CASES])
def test_malformed_manifest(smoke_copy, tmp_path, good_baseline, name, change, expected):
    path, manifest = _manifest(smoke_copy)
    change(manifest)
    path.write_text(json.dumps(manifest))
    for tool, proc in _tools(smoke_copy, tmp_path):
        assert proc.returncode == 2, (tool, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr and expected in proc.stderr, (tool, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1, (tool, proc.stderr)


@pytest.mark.parametrize("name,change,expected", POINT_CASES, ids=[c[0] for c in POINT_CASES])
def test_malformed_point_results(smoke_copy, tmp_path, good_baseline, name, change, expected):
    path, result = _point(smoke_copy)
    if change is None:
        path.write_text("[" * 100000 + "]" * 100000)
    else:
        change(result)
        path.write_text(json.dumps(result))
    for tool, proc in _tools(smoke_copy, tmp_path):
        assert proc.returncode == 2, (tool, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr and expected in proc.stderr, (tool, proc.stderr)
        assert path.name in proc.stderr, (tool, proc.stderr)


@pytest.mark.parametrize("budget", ["nan", "inf", "-1", "0"])
def test_memory_budget_must_be_a_positive_number(smoke_sweep, tmp_path, budget):
    proc = run_script("analysis/report.py", smoke_sweep, "--output", tmp_path / "r.html", "--memory-budget-mb", budget)
    assert proc.returncode == 2 and "--memory-budget-mb" in proc.stderr and "expected a positive number" in proc.stderr


def test_results_csv_cells_are_never_formulas():
    """A grid value starting with = + - @ lands in results.csv as text, not as a spreadsheet formula;
    a negative number stays a number."""

    manifest = {"grid": [{"name": "description", "values": []}, {"name": "cluster.rtt_us", "values": []}]}
    points = [results.Point(f"description={v},cluster.rtt_us=-1", {"description": v, "cluster.rtt_us": "-1"},
                            "failed", "", "p.json", None)
              for v in ("=HYPERLINK(\"http://x\")", "+1+2", "@SUM(A1)", "-2-3", "\tx", "plain")]
    rows = list(csv.reader(io.StringIO(results.results_csv(manifest, points))))[1:]
    assert [r[1] for r in rows] == ["'=HYPERLINK(\"http://x\")", "'+1+2", "'@SUM(A1)", "'-2-3", "'\tx", "plain"]
    assert all(r[2] == "-1" for r in rows)
    assert all(r[0].startswith("description=") for r in rows)
