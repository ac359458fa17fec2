"""The long-running scripts say they are alive, and do not wait for nothing (issue 34, section 4):
scripts/test.sh and scripts/run-tpcds.sh print a line at least every 30 s when stderr is not a
terminal (scripts/heartbeat.sh, every 20 s), which stops with the script; scripts/setup.sh does not
wait on another build's lock when what it was asked for is already built."""

import fcntl
import os
import pty
import subprocess
import time

import pytest

from conftest import REPO

BEAT = REPO / "scripts" / "heartbeat.sh"


def beat(stderr, seconds=3.5):
    env = {**os.environ, "EXSIM_HEARTBEAT_S": "1"}
    return subprocess.run(["sh", "-c", f". {BEAT}; heartbeat job 'what it does'; sleep {seconds}; echo ended >&2"],
                          stdout=subprocess.PIPE, stderr=stderr, text=True, env=env, timeout=30)


def test_a_heartbeat_line_comes_every_period_when_stderr_is_not_a_terminal():
    t0 = time.monotonic()
    proc = beat(subprocess.PIPE)
    lines = proc.stderr.splitlines()
    assert lines[:3] == [f"job: still running, {k} s so far (what it does)" for k in (1, 2, 3)], lines
    assert lines[-1] == "ended"
    assert time.monotonic() - t0 < 6  # the pipe closed with the script: the loop did not outlive it


def test_no_heartbeat_on_a_terminal():
    main, sub = pty.openpty()
    try:
        beat(sub, seconds=2.5)
        os.close(sub)
        out = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(main)
    assert b"still running" not in out and b"ended" in out


@pytest.mark.parametrize("script,name", [("scripts/test.sh", "test"), ("scripts/run-tpcds.sh", "run-tpcds")])
def test_the_long_scripts_start_a_heartbeat_before_their_first_step(script, name):
    lines = (REPO / script).read_text().splitlines()
    at = lines.index(". scripts/heartbeat.sh")
    assert lines[at + 1].startswith(f"heartbeat {name} ")
    assert lines.index(next(l for l in lines if l.startswith("scripts/setup.sh"))) > at


def built():
    """True when build/exsim exists and no C++ source or CMake file is newer (what setup.sh checks)."""
    exe = REPO / "build" / "exsim"
    if not exe.exists():
        return False
    sources = [REPO / "CMakeLists.txt", REPO / "CMakePresets.json"]
    sources += [p for d in ("cli", "sim", "models", "input", "output", "bench", "tests") for p in (REPO / d).rglob("*")
                if p.suffix in (".cpp", ".hpp") or p.name == "CMakeLists.txt"]
    newest = max(p.stat().st_mtime for p in sources)
    return newest <= exe.stat().st_mtime


def test_setup_does_not_wait_on_another_build_when_the_simulator_is_built():
    if not built():
        pytest.skip("build/exsim is not up to date with the sources")
    with open(REPO / "build" / ".setup.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another setup.sh building, as far as this one can tell
        t0 = time.monotonic()
        proc = subprocess.run([str(REPO / "scripts" / "setup.sh"), "exsim"], capture_output=True, text=True,
                              timeout=30)
        assert proc.returncode == 0, proc.stderr
        assert "exsim is up to date, not waiting for it" in proc.stderr
        assert time.monotonic() - t0 < 10
