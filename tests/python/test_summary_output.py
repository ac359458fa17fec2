"""What `exsim run --summary` and `exsim summary` print: an adaptive K as such in every format (its
policy, start, cap and the mean K its channels were given, where a fixed K shows the number; `K=1`
was printed for rpcs_in_flight_policy=gradient, whose mean K was 6.15), and no "-0.000" for a
critical-path part left at -1e-14 s by subtracting sums.

Run: /usr/bin/python3 -m pytest tests/python/test_summary_output.py -q
"""

import csv
import io
import json
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

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


def test_a_part_that_rounds_to_zero_prints_without_a_sign(exsim, tmp_path):
    results = json.loads(run(exsim, REPO / "scenarios" / "examples" / "query_broadcast_join.json"))
    (q,) = results["queries"]
    part = next(k for k, v in q["breakdown"].items() if v > 1e-3)
    twin = json.loads(json.dumps(q))
    twin["query"] = "twin"                 # keeps the part's column in the table
    results["queries"].append(twin)
    q["breakdown"][part] = -1e-14          # what a subtraction of sums leaves
    path = tmp_path / "r.json"
    path.write_text(json.dumps(results), encoding="utf-8")
    proc = subprocess.run([str(exsim), "summary", str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "-0.000" not in proc.stdout and " 0.000" in proc.stdout


def test_whole_queries_end_with_a_lesson_on_their_critical_paths(exsim):
    """The lesson of whole queries: the breakdown's groups summed over the queries, and the share of
    the exchanges' parts (sender CPU, deserialization, round trips, bandwidth, backpressure), which is
    what K, the buffer size or compression can act on."""
    example = REPO / "scenarios" / "examples" / "query_broadcast_join.json"
    results = json.loads(run(exsim, example))
    b = results["summary"]["breakdown_s_total"]
    exchange = sum(b[k] for k in ("cpu_exchange_send_s", "cpu_deserialize_s", "rtt_s", "bandwidth_s",
                                  "backpressure_s"))
    share = 100 * exchange / sum(b.values())
    lesson = run(exsim, example, "--summary").strip().splitlines()[-1]
    assert lesson.startswith("Lesson: along the queries' critical paths"), lesson
    assert f"({share:.0f}%)" in lesson and "operators' CPU" in lesson
    # A single exchange keeps its own lesson (what bounds it).
    assert "critical paths" not in run(exsim, example.parent / "hash_5x5.json", "--summary")


def test_auto_runs_the_exact_network_model_up_to_32_executors_and_the_approximation_above(exsim):
    """The default network model: at 32 executors the exact solver's results, at 33 the
    approximation's (the same runs as choosing each by name, but for the echoed choice), and a run
    that large says in its summary which model ran."""
    small = ["--set", "exchanges[0].rows_total=20000"]
    scenario = REPO / "scenarios" / "examples" / "hash_5x5.json"

    def results(executors, *model):
        doc = json.loads(run(exsim, scenario, *small, "--set", f"cluster.executors={executors}", *model))
        chosen = doc["settings"]["cluster"].pop("network_model")
        return chosen, doc

    for executors, same_as in ((32, "exsim"), (33, "approx")):
        chosen, auto = results(executors)
        named, by_name = results(executors, "--set", f"cluster.network_model={same_as}")
        assert (chosen, named) == ("auto", same_as) and auto == by_name, executors
    assert "network model" not in run(exsim, scenario, *small, "--set", "cluster.executors=32", "--summary")
    out = run(exsim, scenario, *small, "--set", "cluster.executors=33", "--summary")
    assert "33 executors, network model auto: approx, as auto runs it above 32 executors" in out
    out = run(exsim, scenario, *small, "--set", "cluster.executors=33", "--set", "cluster.network_model=exsim",
              "--summary")
    assert "33 executors, network model exsim: the exact one, as the scenario chose" in out
