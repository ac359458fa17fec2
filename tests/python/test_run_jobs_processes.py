"""`exsim run --jobs N` simulates queries in child processes: killing exsim (kill -9, which it
cannot catch) ends them too, instead of leaving them running on (issue 34, section 4)."""

import os
import signal
import subprocess
import time
from pathlib import Path

from conftest import REPO

WORKLOAD = REPO / "scenarios" / "tpcds_sf100" / "workload.json"  # sequential, 104 queries: seconds of work


def children(pid):
    out = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(proc.name))
    return out


def alive(pid):
    """Running, not gone nor a zombie waiting to be reaped."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_query_processes_die_with_exsim(exsim, tmp_path):
    proc = subprocess.Popen([str(exsim), "run", str(WORKLOAD), "--jobs", "2", "--no-progress",
                             "--output", str(tmp_path / "r.json")], stderr=subprocess.DEVNULL)
    kids = []
    try:
        deadline = time.monotonic() + 60
        while not kids and time.monotonic() < deadline and proc.poll() is None:
            kids = children(proc.pid)
            time.sleep(0.05)
        assert kids, "exsim started no query process"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 10
        while any(alive(k) for k in kids) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = [k for k in kids if alive(k)]
        assert not left, f"query processes {left} outlived exsim"
    finally:
        for k in kids:  # whatever a failure left running
            try:
                os.kill(k, signal.SIGKILL)
            except OSError:
                pass
