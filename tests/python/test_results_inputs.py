"""exsim diff and compare on results files that are not as exsim writes them: exit 2 with one line
naming the file, the JSON path and what was expected; never a traceback, never a read for ever."""

import json
import os
import stat
import subprocess

import pytest

from conftest import REPO


@pytest.fixture(scope="module")
def results_file(exsim, tmp_path_factory):
    path = tmp_path_factory.mktemp("results") / "a.json"
    subprocess.run([exsim, "run", REPO / "scenarios" / "examples" / "hash_5x5.json", "--output", path], check=True,
                   capture_output=True)
    return path


CASES = [
    ("summary null", lambda d: d.update(summary=None), "expected 'exchanges' (an array) and 'summary' (an object)"),
    ("query of an exchange null", lambda d: d["exchanges"][0].update(query=None),
     "exchanges[0].query: expected a string, found null"),
    ("query a list", lambda d: d["exchanges"][0].update(query=[1]), "exchanges[0].query: expected a string"),
    ("flags null", lambda d: d["settings"].update(flags=None), "settings.flags: expected an object, found null"),
    ("makespan a string", lambda d: d["summary"].update(makespan_s="x"),
     "summary.makespan_s: expected a number, found \"x\""),
    ("runtime a string", lambda d: d.update(queries=[{"query": "", "runtime_s": "x"}]),
     "queries[0].runtime_s: expected a number"),
    ("queries an object", lambda d: d.update(queries={}), "queries: expected an array of objects"),
    ("deep nesting", lambda d: d.update(provenance="DEEP"), "nested"),
]


@pytest.mark.parametrize("name,change,expected", CASES, ids=[c[0] for c in CASES])
def test_malformed_results(exsim, results_file, tmp_path, name, change, expected):
    doc = json.loads(results_file.read_text())
    change(doc)
    bad = tmp_path / "b.json"
    bad.write_text(json.dumps(doc).replace('"DEEP"', "[" * 5000 + "]" * 5000))
    for args in (["diff", results_file, bad], ["diff", bad, results_file, "--rel-tol", "0.01"],
                 ["diff", results_file, bad, "--format", "csv"]):
        proc = subprocess.run([exsim, *args], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr and f"{bad}: " in proc.stderr and expected in proc.stderr, proc.stderr


def test_a_device_is_not_read(exsim, results_file):
    proc = subprocess.run([exsim, "diff", "/dev/zero", results_file], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "/dev/zero: cannot read: not a regular file" in proc.stderr


def test_output_is_never_replaced_by_a_regular_file(exsim, results_file, tmp_path):
    """The atomic write goes through a link to its target and writes through a device: a full one
    is an error, and stays a device."""
    proc = subprocess.run([exsim, "diff", results_file, results_file, "--output", "/dev/full"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and "/dev/full: cannot write: No space left on device" in proc.stderr, proc.stderr
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
    link = tmp_path / "link.txt"
    link.symlink_to("target.txt")
    proc = subprocess.run([exsim, "diff", results_file, results_file, "--output", link], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and "runtime_s" in (tmp_path / "target.txt").read_text()
