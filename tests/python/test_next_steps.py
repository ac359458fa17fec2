"""After a command that writes a file, one line on stderr says what it wrote and the command that
reads it next: `exsim run --output`, `exsim profile import`, `run_sweep.py`.

Run: /usr/bin/python3 -m pytest tests/python/test_next_steps.py -q
"""

import subprocess
from pathlib import Path

import pytest

from conftest import SMOKE_GRID, run_script

REPO = Path(__file__).resolve().parents[2]
PROFILE = REPO.parent / "shared" / "impala-profiles" / "tpcds_1_local_run_mt_dop_0_profile.json"


def test_run_output_names_the_file_and_the_summary_command(exsim, scenario, tmp_path):
    out = tmp_path / "r.json"
    proc = subprocess.run([str(exsim), "run", str(scenario), "--output", str(out), "--no-progress"],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and out.exists() and proc.stdout == ""
    (line,) = proc.stderr.strip().splitlines()
    assert line == f"exsim run: results in {out}; `exsim summary {out}` says what they show"
    # With --summary the summary is what it says; without --output the results go to stdout.
    proc = subprocess.run([str(exsim), "run", str(scenario), "--output", str(out), "--summary", "--no-progress"],
                          capture_output=True, text=True)
    assert "results in" not in proc.stderr and proc.stdout


@pytest.mark.skipif(not PROFILE.exists(), reason="../shared/impala-profiles is absent")
def test_profile_import_names_the_next_commands(exsim, tmp_path):
    out = tmp_path / "q1.json"
    proc = subprocess.run([str(exsim), "profile", "import", str(PROFILE), "--output", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith(f"exsim profile import: next: exsim run {out} --output RESULTS.json")
    assert f"exsim compare RESULTS.json {PROFILE}" in last


def test_a_finished_sweep_names_its_report_command(exsim, scenario, tmp_path):
    out = tmp_path / "sweep"
    proc = run_script("run_sweep.py", scenario, *SMOKE_GRID[:2], "--exsim", exsim, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert f"run_sweep: next: analysis/report.py {out} --output {out / 'report.html'}" in proc.stderr
