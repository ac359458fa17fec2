"""analysis/regress.py and run_sweep.py --check against baselines."""

import json
import re

from conftest import REPO, SMOKE_GRID, read_manifest, run_script

from analysis import regress, results

COMMITTED = REPO / "analysis" / "baselines" / "hash_5x5_smoke.json"


def make_baseline(sweep_dir, tmp_path):
    baseline = tmp_path / "baseline.json"
    proc = run_script("analysis/regress.py", sweep_dir, "--baseline", baseline, "--update")
    assert proc.returncode == 0, proc.stderr
    return baseline


def perturb(sweep_dir, **factors):
    """Scale summary figures of the sweep's first point; returns that point's id."""
    entry = read_manifest(sweep_dir)["points"][0]
    path = sweep_dir / entry["file"]
    result = json.loads(path.read_text())
    for figure, factor in factors.items():
        result["summary"][figure] *= factor
    path.write_text(json.dumps(result))
    return entry["id"]


def test_unchanged_sweep_passes(smoke_sweep, tmp_path):
    baseline = make_baseline(smoke_sweep, tmp_path)
    data = json.loads(baseline.read_text())
    assert data["tolerances"]["makespan_s"] == {"rel": 0.01, "abs": 1e-6}
    assert data["tolerances"]["rpcs"] == {"rel": 0.0, "abs": 0.0}
    proc = run_script("analysis/regress.py", smoke_sweep, "--baseline", baseline)
    assert proc.returncode == 0, proc.stdout
    assert "0 figure(s) beyond tolerance" in proc.stdout


def test_perturbed_result_fails_naming_the_figure(smoke_copy, tmp_path):
    baseline = make_baseline(smoke_copy, tmp_path)
    pid = perturb(smoke_copy, makespan_s=1.05, slowest_sender_blocked_s_total=1.001)
    proc = run_script("analysis/regress.py", smoke_copy, "--baseline", baseline)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    moved = [line for line in lines if line.endswith("MOVED")]
    assert len(moved) == 1 and moved[0].split()[:2] == [pid, "makespan_s"] and "+5.000%" in moved[0]
    within = next(line for line in lines if "slowest_sender_blocked_s_total" in line)
    assert within.endswith("within tolerance")


def test_a_count_must_match_exactly(smoke_copy, tmp_path):
    baseline = make_baseline(smoke_copy, tmp_path)
    perturb(smoke_copy, rpcs=2)
    proc = run_script("analysis/regress.py", smoke_copy, "--baseline", baseline)
    assert proc.returncode == 1 and any(" rpcs " in line and line.endswith("MOVED") for line in proc.stdout.splitlines())


def test_committed_baseline_holds(smoke_sweep):
    proc = run_script("analysis/regress.py", smoke_sweep, "--baseline", COMMITTED)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_run_sweep_check_uses_the_same_comparison(smoke_copy, tmp_path, exsim, scenario):
    baseline = make_baseline(smoke_copy, tmp_path)
    sweep = ["run_sweep.py", scenario, *SMOKE_GRID, "--exsim", exsim, "--out", smoke_copy, "--check", baseline]
    passed = run_script(*sweep)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "0 figure(s) beyond tolerance" in passed.stdout

    data = json.loads(baseline.read_text())
    first = next(iter(data["points"].values()))
    first["summary"]["makespan_s"] *= 2
    baseline.write_text(json.dumps(data))
    failed = run_script(*sweep)
    assert failed.returncode == 1 and "makespan_s" in failed.stdout


def test_malformed_baseline_is_an_input_error(smoke_sweep, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"baseline_version": 1, "tolerances": {"rpcs": {"rel": -1, "abs": 0}}, "points": {}}))
    proc = run_script("analysis/regress.py", smoke_sweep, "--baseline", bad)
    assert proc.returncode == 2 and "bad.json: $.tolerances.rpcs.rel" in proc.stderr


def test_other_differences_are_named(smoke_copy, tmp_path):
    baseline = make_baseline(smoke_copy, tmp_path)
    data = json.loads(baseline.read_text())
    first, second = list(data["points"])[:2]
    del data["points"][second]  # a point the sweep has and the baseline lacks
    summary = data["points"][first]["summary"]
    del summary["eos_rpcs"]  # a figure the sweep has and the baseline lacks
    summary["makespan_s"] *= 1.001  # moved, within its 1% tolerance
    baseline.write_text(json.dumps(data))
    proc = run_script("analysis/regress.py", smoke_copy, "--baseline", baseline)
    assert proc.returncode == 0, proc.stdout
    assert "0 figure(s) beyond tolerance, 3 other difference(s)" in proc.stdout
    assert "  moved within tolerance: 1 figure(s) in 1 point(s): makespan_s\n" in proc.stdout
    assert "  new figures, not in the baseline: 1 figure(s) in 1 point(s): eos_rpcs\n" in proc.stdout
    assert f"  new points, not in the baseline: 1 point(s): {second}\n" in proc.stdout

    summary["gone_figure"] = 1  # a figure the sweep no longer reports fails, by name
    baseline.write_text(json.dumps(data))
    proc = run_script("analysis/regress.py", smoke_copy, "--baseline", baseline)
    assert proc.returncode == 1, proc.stdout
    assert "  figures gone from the sweep (fail): 1 figure(s) in 1 point(s): gone_figure\n" in proc.stdout


def test_nan_anywhere_fails(smoke_copy, tmp_path):
    """A NaN compares neither larger nor smaller: as a figure, a baseline figure or a tolerance it
    must fail the check, not pass it."""
    baseline = make_baseline(smoke_copy, tmp_path)
    good = baseline.read_text()
    data = json.loads(good)
    first = next(iter(data["points"]))
    for where in ("tolerance", "baseline"):
        if where == "tolerance":
            data["tolerances"]["makespan_s"]["rel"] = float("nan")
        else:
            data["points"][first]["summary"]["makespan_s"] = float("nan")
        baseline.write_text(json.dumps(data))  # Python writes NaN as the bare word NaN
        proc = run_script("analysis/regress.py", smoke_copy, "--baseline", baseline)
        assert proc.returncode == 2 and "NaN is not a number JSON allows" in proc.stderr, (where, proc.stdout)
        data = json.loads(good)
    baseline.write_text(good)
    entry = read_manifest(smoke_copy)["points"][0]
    path = smoke_copy / entry["file"]
    for text in ("NaN", "1e999"):
        path.write_text(path.read_text().replace('"makespan_s": ', f'"makespan_s": {text}, "was": ', 1))
        proc = run_script("analysis/regress.py", smoke_copy, "--baseline", baseline)
        assert proc.returncode == 2 and entry["file"] in proc.stderr, (text, proc.stdout)
        path.write_text(path.read_text().replace(f'"makespan_s": {text}, "was": ', '"makespan_s": ', 1))


def test_a_nan_reaching_the_comparison_fails():
    point = results.Point("p", {}, "ok", "", "p.json", {"summary": {"makespan_s": float("nan"), "rpcs": 1}})
    baseline = {"tolerances": {"rpcs": {"rel": float("nan"), "abs": 0}},
                "points": {"p": {"summary": {"makespan_s": 1.0, "rpcs": 2}}}}
    changes = regress.compare(baseline, [point])
    assert [c.figure for c in changes if c.beyond] == ["makespan_s", "rpcs"]


def test_readme_regression_example_sweeps_the_baselines_grid():
    """The README's regression example runs the grid its baseline was made from: a different grid
    would print every other point as new."""
    readme = (REPO / "README.md").read_text()
    command = re.search(r"\./run_sweep\.py (\S+)((?: *\\?\n? *--grid \S+)+) --out (\S+)\n"
                        r"\s*analysis/regress\.py (\S+) --baseline (\S+)\n", readme)
    assert command, "no run_sweep.py command followed by its regress.py check in README.md"
    scenario, grids, out, checked, baseline = command.groups()
    assert out == checked
    grid = [g.split("=", 1) for g in re.findall(r"--grid (\S+)", grids)]
    data = json.loads((REPO / baseline).read_text())
    assert [[name, ",".join(values)] for name, values in ((a["name"], a["values"]) for a in data["grid"])] == grid
    assert data["scenario"].endswith(scenario)
