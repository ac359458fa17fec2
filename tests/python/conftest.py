"""Shared fixtures for the Python tooling tests.

The tests drive the real exsim binary ($EXSIM, else build/exsim) on the
committed example scenario and skip when either is missing, so the suite
can run before the simulator is built. The scripts are run as subprocesses,
the way a user runs them.
"""

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # the repository root on sys.path, as for every entry point

from common import exsim_runner  # noqa: E402

SCENARIO = REPO / "scenarios" / "examples" / "hash_5x5.json"
SMOKE_GRID = ["--grid", "rpcs_in_flight_per_channel=1,2", "--grid", "data_stream_sender_buffer_size=16384,131072"]


def run_script(script, *args, **kwargs):
    """Run one of the repository's scripts with this interpreter; output captured as text."""
    return subprocess.run([sys.executable, str(REPO / script), *map(str, args)],
                          capture_output=True, text=True, timeout=120, **kwargs)


def read_manifest(sweep_dir):
    return json.loads((Path(sweep_dir) / "manifest.json").read_text())


@pytest.fixture(scope="session")
def exsim():
    path = Path(exsim_runner.default_exsim())
    if not os.access(path, os.X_OK):
        pytest.skip(f"exsim not built ({path}); build it or set $EXSIM")
    return path


@pytest.fixture(scope="session")
def scenario():
    if not SCENARIO.exists():
        pytest.skip(f"{SCENARIO} not present")
    return SCENARIO


@pytest.fixture(scope="session")
def smoke_sweep(exsim, scenario, tmp_path_factory):
    """The 2x2 smoke grid, run once and shared; tests that modify it work on a copy."""
    out = tmp_path_factory.mktemp("smoke") / "sweep"
    proc = run_script("run_sweep.py", scenario, *SMOKE_GRID, "--exsim", exsim, "--out", out)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture
def smoke_copy(smoke_sweep, tmp_path):
    return Path(shutil.copytree(smoke_sweep, tmp_path / "sweep"))


@pytest.fixture
def counting_exsim(exsim, tmp_path):
    """A wrapper around exsim that logs each run's --set arguments, one line per run, to count reruns.

    $EXSIM_TEST_DELAY_S makes each run sleep first, so that a test can kill a sweep mid-way.
    Returns (wrapper path, function returning the logged lines).
    """
    log = tmp_path / "runs.log"
    wrapper = tmp_path / "exsim_wrapper"
    wrapper.write_text(f"""#!/bin/sh
if [ "$1" = run ]; then
    echo "$*" | sed 's/.*run [^ ]* //' >> '{log}'
    sleep "${{EXSIM_TEST_DELAY_S:-0}}"
fi
exec '{exsim}' "$@"
""")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return wrapper, lambda: log.read_text().splitlines() if log.exists() else []
