"""A seeded fuzz of exsim's inputs: the example scenarios of both schemas and a remote scan, with
one value replaced by a hostile one (in the file, or with --set), and results files for diff.
Whatever the input, exsim answers with exit 0 or exit 2 and a message naming the file or option;
never a signal, an "internal error" or a traceback. The seed is fixed: the same cases every run."""

import json
import random
import subprocess

import pytest

from conftest import REPO

SEED = 22
SCENARIOS = [REPO / "scenarios" / "examples" / name for name in (
    "hash_5x5.json", "query_with_faults.json", "query_mt_dop_4.json", "kudu_and_directed.json",
    "eos_serial_vs_pipelined.json")] + [REPO / "scenarios" / "velox_s3_q1" / "q1_cold.json",
                                        REPO / "tests" / "data" / "bad" / "valid.json"]
# Written as JSON text: some are not values Python can hold (1e999) or write (a deep nesting).
HOSTILE = ["1e999", "-1e999", "1e308", "-1", "0", "4294967296", "4294967297", "9223372036854775807",
           "18446744073709551616", "5e-324", "1e-300", "2.5", "\"x\"", "\"\"", "null", "true", "[]", "{}",
           "[1e308, 1e308, 1e308, 1e308, 1e308]", "[5e-324]", "[" * 300 + "]" * 300, "{\"a\": 1, \"a\": 2}"]


def paths(doc, prefix=""):
    """Every JSON path of a document, in --set syntax."""
    out = []
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else []
    for key, value in items:
        path = f"{prefix}[{key}]" if isinstance(doc, list) else (f"{prefix}.{key}" if prefix else key)
        out.append(path)
        out.extend(paths(value, path))
    return out


def set_text(doc_text, path, value_text):
    """The document's text with the value at `path` replaced by `value_text` (JSON text)."""
    marker = "\"__FUZZ__\""
    doc = json.loads(doc_text)
    node, keys = doc, []
    for part in path.replace("[", ".[").split("."):
        if part:
            keys.append(int(part[1:-1]) if part.startswith("[") else part)
    for key in keys[:-1]:
        node = node[key]
    node[keys[-1]] = "__FUZZ__"
    return json.dumps(doc).replace(marker, value_text)


def cases():
    rng = random.Random(SEED)
    out = []
    for scenario in SCENARIOS:
        text = scenario.read_text()
        all_paths = paths(json.loads(text))
        for _ in range(16):
            path, value = rng.choice(all_paths), rng.choice(HOSTILE)
            out.append((scenario, "file", path, value))
            out.append((scenario, "set", rng.choice(all_paths + ["mt_dop", "rpcs_in_flight_per_channel", "seed",
                                                                  "series_step_s", "exchanges[99999999999999999999].x",
                                                                  "queries[0].fragments[0].root.rows"]),
                        rng.choice(HOSTILE)))
    return out


def check(proc, label):
    assert proc.returncode in (0, 2), f"{label}: exit {proc.returncode}: {proc.stderr[-400:]}"
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr, f"{label}: {proc.stderr[-400:]}"
    if proc.returncode == 2:
        assert proc.stderr.startswith("exsim: "), f"{label}: {proc.stderr[:200]}"


def test_hostile_scenarios_are_refused_cleanly(exsim, tmp_path):
    for i, (scenario, how, path, value) in enumerate(cases()):
        label = f"case {i}: {scenario.name} {how} {path}={value[:40]}"
        if how == "file":
            target = tmp_path / scenario.name
            target.write_text(set_text(scenario.read_text(), path, value))
            args = [target]
        else:
            args = [scenario, "--set", f"{path}={value}"]
        for command in ("validate", "explain"):
            proc = subprocess.run([str(exsim), command, *map(str, args)], capture_output=True, text=True, timeout=60)
            check(proc, f"{label} ({command})")
            if proc.returncode == 2:
                assert (how == "file" and target.name in proc.stderr) or (how == "set" and "--set" in proc.stderr) \
                    or scenario.name in proc.stderr, f"{label}: names neither the file nor the option: {proc.stderr}"


@pytest.fixture(scope="module")
def results_text(exsim, tmp_path_factory):
    out = tmp_path_factory.mktemp("fuzz") / "r.json"
    subprocess.run([str(exsim), "run", REPO / "scenarios" / "examples" / "hash_5x5.json", "--output", out],
                   check=True, capture_output=True)
    return out.read_text()


def test_hostile_results_files_are_refused_cleanly(exsim, results_text, tmp_path):
    rng = random.Random(SEED)
    good = tmp_path / "good.json"
    good.write_text(results_text)
    all_paths = paths(json.loads(results_text))
    bad = tmp_path / "bad.json"
    for i in range(60):
        path, value = rng.choice(all_paths), rng.choice(HOSTILE)
        bad.write_text(set_text(results_text, path, value))
        for args in (["diff", good, bad], ["diff", bad, good, "--rel-tol", "0.01"], ["summary", bad]):
            proc = subprocess.run([str(exsim), *map(str, args)], capture_output=True, text=True, timeout=60)
            label = f"case {i}: {' '.join(map(str, args[:1]))} {path}={value[:40]}"
            assert proc.returncode in (0, 1, 2), f"{label}: exit {proc.returncode}: {proc.stderr[-400:]}"
            assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, f"{label}: {proc.stderr[-400:]}"
