"""analysis/window_series.py: each channel's K over time from results run with rpcs_in_flight_series."""

import json
import subprocess

import pytest

from conftest import REPO, run_script

from analysis import window_series


def simulate(exsim, tmp_path, policy, series=True):
    out = tmp_path / f"{policy}.json"
    argv = [exsim, "run", str(REPO / "scenarios" / "examples" / "backpressure.json"), "--no-progress",
            "--set", f"rpcs_in_flight_policy={policy}", "--output", str(out)]
    if series:
        argv += ["--set", "rpcs_in_flight_series=true"]
    subprocess.run(argv, check=True, capture_output=True)
    return out


def check_series_against_summary(x):
    """The change points of every channel give back the exchange's largest K and, integrated from
    each channel's first point to its sender's end, its time-weighted mean (k_window)."""
    w = x["k_window"]
    assert len(w["series"]) == x["channels"]
    assert max(k for s in w["series"] for k in s["k"]) == w["k_max"] >= w["k_start"]
    ends = {s["index"]: s["end_s"] for s in x["sender_instances"]}
    area = span = 0.0
    for s in w["series"]:
        end = ends[s["sender"]]
        times = s["t_s"] + [end]
        area += sum((times[i + 1] - times[i]) * k for i, k in enumerate(s["k"]))
        span += end - s["t_s"][0]
    assert area / span == pytest.approx(w["k_mean"], rel=1e-9)


def test_series_agree_with_the_summary_and_draw(exsim, tmp_path):
    path = simulate(exsim, tmp_path, "gradient")
    check_series_against_summary(next(x for x in json.loads(path.read_text())["exchanges"] if "k_window" in x))
    png = tmp_path / "k.png"
    proc = run_script("analysis/window_series.py", path, simulate(exsim, tmp_path, "bdp"), "--output", png)
    assert proc.returncode == 0, proc.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_what_k_did_survives_the_query_processes(exsim, tmp_path):
    """Queries run one after another are simulated in processes of their own, whose runs reach the
    results through JSON: what K did must come through too."""
    out = tmp_path / "stats.json"
    subprocess.run([exsim, "run", str(REPO / "scenarios" / "profiles" / "compute_stats_v2.json"), "--no-progress",
                    "--set", "rpcs_in_flight_policy=gradient", "--set", "rpcs_in_flight_series=true",
                    "--output", str(out)], check=True, capture_output=True)
    results = json.loads(out.read_text())
    assert results["settings"]["query_order"] == "sequential"
    adaptive = [x for x in results["exchanges"] if "k_window" in x]
    assert adaptive
    for x in adaptive:
        check_series_against_summary(x)


def test_results_without_series_are_refused_with_the_reason(exsim, tmp_path):
    proc = run_script("analysis/window_series.py", simulate(exsim, tmp_path, "bdp", series=False),
                      "--output", tmp_path / "k.png")
    assert proc.returncode == 2
    assert "rpcs_in_flight_series=true" in proc.stderr
    assert not (tmp_path / "k.png").exists()
    assert window_series.step_mean([{"t_s": [0.0, 1.0], "k": [1, 3]}, {"t_s": [0.5], "k": [2]}], 2.0) == \
        ([0.0, 0.5, 1.0, 2.0], [1.0, 1.5, 2.5, 2.5])
