"""run_sweep.py: grid, CSV, resume, kill -9, failures, interrupt, Dask."""

import contextlib
import csv
import hashlib
import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import REPO, SMOKE_GRID, read_manifest, run_script

from common import exsim_runner


def csv_rows(sweep_dir):
    with open(Path(sweep_dir) / "results.csv", newline="") as f:
        return list(csv.DictReader(f))


def mtimes(sweep_dir):
    return {p.name: p.stat().st_mtime_ns for p in (Path(sweep_dir) / "points").iterdir()}


def test_grid_writes_one_csv_row_per_point(smoke_sweep):
    rows = csv_rows(smoke_sweep)
    assert [(r["rpcs_in_flight_per_channel"], r["data_stream_sender_buffer_size"]) for r in rows] == \
        list(itertools.product(["1", "2"], ["16384", "131072"]))
    manifest = read_manifest(smoke_sweep)
    for row, entry in zip(rows, manifest["points"]):
        assert row["status"] == "ok"
        summary = json.loads((smoke_sweep / entry["file"]).read_text())["summary"]
        numeric = {k: v for k, v in summary.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        assert {"makespan_s", "memory_estimate_bytes_total", "rpcs"} <= numeric.keys()
        assert list(rows[0]) == ["point", "rpcs_in_flight_per_channel", "data_stream_sender_buffer_size",
                                 "status", *sorted(numeric)]
        assert {k: float(row[k]) for k in numeric} == {k: float(v) for k, v in numeric.items()}


def test_manifest_records_scenario_hash_grid_and_version(smoke_sweep, scenario, exsim):
    manifest = read_manifest(smoke_sweep)
    assert manifest["scenario_sha256"] == hashlib.sha256(scenario.read_bytes()).hexdigest()
    assert manifest["grid"] == [{"name": "rpcs_in_flight_per_channel", "values": ["1", "2"]},
                                {"name": "data_stream_sender_buffer_size", "values": ["16384", "131072"]}]
    assert manifest["exsim_version"] == exsim_runner.version(exsim)
    assert all(p["status"] == "ok" and p["error"] == "" for p in manifest["points"])


def test_resume_skips_finished_points_and_reruns_changed_ones(counting_exsim, scenario, tmp_path):
    wrapper, runs = counting_exsim
    out = tmp_path / "sweep"
    own_scenario = tmp_path / scenario.name
    own_scenario.write_bytes(scenario.read_bytes())

    def sweep(*grid):
        proc = run_script("run_sweep.py", own_scenario, *grid, "--exsim", wrapper, "--out", out)
        assert proc.returncode == 0, proc.stderr

    sweep("--grid", "rpcs_in_flight_per_channel=1,2")
    assert len(runs()) == 2
    before = mtimes(out)

    sweep("--grid", "rpcs_in_flight_per_channel=1,2")
    assert len(runs()) == 2, "finished points must not be rerun"
    assert mtimes(out) == before

    sweep("--grid", "rpcs_in_flight_per_channel=1,3")  # K=2 replaced by K=3
    assert runs()[2:] == ["--set rpcs_in_flight_per_channel=3"]
    assert sorted(p.stem for p in (out / "points").iterdir()) == \
        ["rpcs_in_flight_per_channel=1", "rpcs_in_flight_per_channel=3"]
    assert [r["rpcs_in_flight_per_channel"] for r in csv_rows(out)] == ["1", "3"]

    own_scenario.write_bytes(scenario.read_bytes() + b"\n")  # same meaning, other bytes: rerun all
    sweep("--grid", "rpcs_in_flight_per_channel=1,3")
    assert len(runs()) == 5


def test_killed_sweep_loses_only_in_flight_points(counting_exsim, scenario, tmp_path):
    wrapper, runs = counting_exsim
    out = tmp_path / "sweep"
    args = [sys.executable, str(REPO / "run_sweep.py"), str(scenario), "--grid", "rpcs_in_flight_per_channel=1,2,3",
            "--jobs", "1", "--exsim", str(wrapper), "--out", str(out)]
    copies = tmp_path / "tmp"  # where the scenario copies of the points in flight go
    copies.mkdir()
    env = {**os.environ, "TMPDIR": str(copies)}
    proc = subprocess.Popen(args, env={**env, "EXSIM_TEST_DELAY_S": "1"}, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not (out / "manifest.json").exists() or \
                not any(p["status"] == "ok" for p in read_manifest(out)["points"]):
            assert time.monotonic() < deadline, "first point never finished"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # the orphaned exsim of the point in flight
    finished = {p["id"] for p in read_manifest(out)["points"] if p["status"] == "ok"}
    assert 1 <= len(finished) < 3

    assert list(copies.iterdir()), "the point in flight had no scenario copy: this test checks nothing"
    rerun = run_script("run_sweep.py", *args[2:], env=env)
    assert rerun.returncode == 0, rerun.stderr
    assert not list(copies.iterdir()), "the killed sweep's scenario copies were left behind"
    assert [p["status"] for p in read_manifest(out)["points"]] == ["ok"] * 3
    for pid in finished:
        assert runs().count(f"--set {pid}") == 1, f"{pid} finished before the kill but was rerun"
    assert not list(out.rglob("*.tmp"))


def test_failing_point_is_recorded_and_the_others_still_run(exsim, scenario, tmp_path):
    # A point that passes validation and fails when run (here: an exsim that fails one run).
    failing = tmp_path / "exsim_failing"
    failing.write_text(f"""#!/bin/sh
if [ "$1" = run ]; then
  case "$*" in *rpcs_in_flight_per_channel=3*) echo "exsim: simulated failure" >&2; exit 1 ;; esac
fi
exec '{exsim}' "$@"
""")
    failing.chmod(0o755)
    out = tmp_path / "sweep"
    proc = run_script("run_sweep.py", scenario, "--grid", "rpcs_in_flight_per_channel=3,1",
                      "--exsim", failing, "--out", out)
    assert proc.returncode == 1
    bad, good = read_manifest(out)["points"]
    assert bad["status"] == "failed" and "simulated failure" in bad["error"]
    assert not (out / bad["file"]).exists()
    assert good["status"] == "ok" and (out / good["file"]).exists()
    assert [r["status"] for r in csv_rows(out)] == ["failed", "ok"]
    assert "rpcs_in_flight_per_channel=3 failed" in proc.stderr


def test_refused_values_stop_the_sweep_before_any_point_runs(counting_exsim, scenario, tmp_path):
    """Every value is checked, not only the first: one exsim refuses is named and nothing runs,
    and no empty sweep folder is left behind."""
    wrapper, runs = counting_exsim
    for grid in ("rpcs_in_flight_per_channel=0,1", "rpcs_in_flight_per_channel=1,2,99"):
        out = tmp_path / "sweep"
        proc = run_script("run_sweep.py", scenario, "--grid", grid, "--grid", "mt_dop=0,4", "--exsim", wrapper,
                          "--out", out)
        bad = grid.split("=")[0] + "=" + ("0" if grid.endswith("0,1") else "99")
        assert proc.returncode == 2, proc.stderr
        assert f"{bad}: " in proc.stderr and "expected an integer in [1, 64]" in proc.stderr, proc.stderr
        assert "mt_dop=4:" not in proc.stderr
        assert runs() == [] and not out.exists()


def test_misspelt_grid_names_stop_the_sweep_before_any_point_runs(counting_exsim, scenario, tmp_path):
    wrapper, runs = counting_exsim
    proc = run_script("run_sweep.py", scenario, "--grid", "rpcs_in_flight_per_chanel=1,2",
                      "--grid", "cluster.rtt=50,390", "--grid", "mt_dop=0,4", "--exsim", wrapper,
                      "--out", tmp_path / "sweep")
    assert proc.returncode == 2, proc.stderr
    # Each bad name is reported once, from the command line, with the nearest known name.
    assert proc.stderr.count("rpcs_in_flight_per_chanel=1:") == 1
    assert "unknown flag or scenario key; did you mean rpcs_in_flight_per_channel?" in proc.stderr
    assert "--set cluster.rtt=50: cluster.rtt: unknown key; did you mean rtt_us?" in proc.stderr
    assert "--set mt_dop" not in proc.stderr  # a good name is not reported
    assert runs() == []  # not one `exsim run`
    assert not (tmp_path / "sweep").exists()  # nor an empty sweep folder


def test_interrupt_kills_children_and_keeps_finished_points(counting_exsim, scenario, tmp_path):
    wrapper, runs = counting_exsim
    out = tmp_path / "sweep"
    proc = subprocess.Popen(
        [sys.executable, str(REPO / "run_sweep.py"), str(scenario), "--grid", "rpcs_in_flight_per_channel=1,2,3",
         "--jobs", "1", "--exsim", str(wrapper), "--out", str(out)],
        env={**os.environ, "EXSIM_TEST_DELAY_S": "1"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # A shell without job control starts its background jobs with SIGINT ignored, and Python keeps
        # an ignored SIGINT so: the sweep gets the default back, as from a terminal.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while len(runs()) < 2:  # the second point is in flight
        assert time.monotonic() < deadline
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr
    statuses = [p["status"] for p in read_manifest(out)["points"]]
    assert statuses == ["ok", "pending", "pending"]
    assert [r["status"] for r in csv_rows(out)] == statuses
    assert len(runs()) == 2, "no point may start after the interrupt"


def test_dask_local_cluster_gives_identical_result_files(smoke_sweep, exsim, scenario, tmp_path):
    out = tmp_path / "dask"
    proc = run_script("run_sweep.py", scenario, *SMOKE_GRID, "--exsim", exsim, "--out", out,
                      "--dask", "local", "--jobs", "2")
    assert proc.returncode == 0, proc.stderr
    local = sorted(p.name for p in (smoke_sweep / "points").iterdir())
    assert sorted(p.name for p in (out / "points").iterdir()) == local
    for name in local:
        assert (out / "points" / name).read_bytes() == (smoke_sweep / "points" / name).read_bytes()
    assert (out / "results.csv").read_text() == (smoke_sweep / "results.csv").read_text()


def test_bad_input_is_reported_with_exit_status_2(tmp_path):
    missing = run_script("run_sweep.py", tmp_path / "nope.json", "--grid", "mt_dop=0,4", "--out", tmp_path / "s")
    assert missing.returncode == 2 and "nope.json" in missing.stderr
    scenario = tmp_path / "s.json"
    scenario.write_text("{}")
    for grid, message in [("mt_dop", "expected NAME=V1,V2"), ("mt_dop=0,,4", "non-empty"),
                          ("mt_dop=4,4", "repeated value")]:
        proc = run_script("run_sweep.py", scenario, "--grid", grid, "--out", tmp_path / "s")
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    no_exsim = run_script("run_sweep.py", scenario, "--grid", "mt_dop=0", "--exsim", tmp_path / "no-exsim",
                          "--out", tmp_path / "s")
    assert no_exsim.returncode == 2 and "no-exsim" in no_exsim.stderr


def test_places_that_cannot_be_read_or_written_are_input_errors(exsim, scenario, tmp_path):
    """A device as the scenario (read for ever), --out under a file or in a read-only folder: exit 2
    with one line naming the path, and no traceback."""
    proc = run_script("run_sweep.py", "/dev/urandom", "--grid", "mt_dop=0", "--exsim", exsim, "--out", tmp_path / "s")
    assert proc.returncode == 2 and "/dev/urandom: cannot read scenario: not a regular file" in proc.stderr
    (tmp_path / "file").write_text("")
    proc = run_script("run_sweep.py", scenario, "--grid", "mt_dop=0", "--exsim", exsim, "--out", tmp_path / "file" / "s")
    assert proc.returncode == 2 and "file/s: cannot write the sweep there: Not a directory" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    if os.geteuid() != 0:  # root writes anyway
        (tmp_path / "ro").mkdir(mode=0o555)
        proc = run_script("run_sweep.py", scenario, "--grid", "mt_dop=0", "--exsim", exsim, "--out", tmp_path / "ro" / "s")
        assert proc.returncode == 2 and "cannot write the sweep there: Permission denied" in proc.stderr, proc.stderr


def test_fixed_settings_apply_to_every_point_and_are_part_of_its_identity(counting_exsim, scenario, tmp_path):
    """--set gives every point a fixed setting (not a grid axis); changing it reruns the points."""
    wrapper, runs = counting_exsim
    out = tmp_path / "sweep"
    sweep = ["run_sweep.py", scenario, "--grid", "rpcs_in_flight_per_channel=1,2", "--exsim", wrapper, "--out", out]
    proc = run_script(*sweep, "--set", "cluster.rtt_us=100")
    assert proc.returncode == 0, proc.stderr
    assert len(runs()) == 2 and all("--set cluster.rtt_us=100 --set rpcs_in_flight_per_channel=" in r for r in runs())
    for entry in read_manifest(out)["points"]:
        result = json.loads((out / entry["file"]).read_text())
        assert result["settings"]["cluster"]["rtt_us"] == 100
    assert run_script(*sweep, "--set", "cluster.rtt_us=100").returncode == 0 and len(runs()) == 2  # reused
    assert run_script(*sweep, "--set", "cluster.rtt_us=200").returncode == 0 and len(runs()) == 4  # rerun
    bad = run_script(*sweep, "--set", "rpcs_in_flight_per_channel=4")
    assert bad.returncode == 2 and "--set rpcs_in_flight_per_channel: also a --grid name" in bad.stderr
    bad = run_script(*sweep, "--set", "cluster.rtt=5")
    assert bad.returncode == 2 and "did you mean rtt_us?" in bad.stderr
