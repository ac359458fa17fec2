"""`exsim run --summary` shows an adaptive K as such in every format: its policy, start, cap and the
mean K its channels were given, where a fixed K shows the number (issue: `K=1` was printed for
rpcs_in_flight_policy=gradient, whose mean K was 6.15).

Run: /usr/bin/python3 -m pytest tests/python/test_summary_policy.py -q
"""

import csv
import io
import json
import subprocess

ADAPTIVE = ["--set", "rpcs_in_flight_policy=gradient", "--set", "rpcs_in_flight_max=8"]


def run(exsim, scenario, *args):
    proc = subprocess.run([str(exsim), "run", str(scenario), "--no-progress", *args], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_an_adaptive_k_is_shown_with_its_policy_in_every_format(exsim, scenario):
    (x,) = json.loads(run(exsim, scenario, *ADAPTIVE))["exchanges"]
    w = x["k_window"]
    label = f"gradient 1..8, mean {w['k_mean']:.2f}"
    assert w["k_mean"] > 1 and x["k"] == 1   # the start K, which alone would read as "K=1"
    for fmt in ("text", "md"):
        out = run(exsim, scenario, *ADAPTIVE, "--summary", "--format", fmt)
        assert label in out, (fmt, out)
    (row,) = csv.DictReader(io.StringIO(run(exsim, scenario, *ADAPTIVE, "--summary", "--format", "csv")))
    assert row["k_policy"] == "gradient" and float(row["k_mean"]) == w["k_mean"]
    (fixed,) = csv.DictReader(io.StringIO(run(exsim, scenario, "--summary", "--format", "csv")))
    assert fixed["k_policy"] == "fixed" and fixed["k_mean"] == fixed["k"] == "1"
    assert "gradient 1..8" not in run(exsim, scenario, "--summary")
