"""analysis/network_model_error.py: the errors it reports, on hand-made results."""

import json

from analysis import network_model_error as nme


def _results(makespan, queries, exchanges):
    return {"summary": {"makespan_s": makespan},
            "queries": [{"query": q, "runtime_s": r} for q, r in queries.items()],
            "exchanges": [{"query": q, "id": i, "slowest_sender_blocked_s": b, "duration_s": d}
                          for (q, i), (b, d) in exchanges.items()]}


def test_errors_are_relative_to_the_exact_run_with_a_floor_for_tiny_blocked_times():
    exact = _results(10.0, {"q1": 4.0, "q2": 6.0},
                     {("q1", "x1"): (2.0, 4.0), ("q2", "x1"): (0.001, 5.0)})
    approx = _results(10.05, {"q1": 4.0, "q2": 6.12},
                      {("q1", "x1"): (2.03, 4.0), ("q2", "x1"): (0.002, 5.0)})
    e = nme.compare(exact, approx)
    assert abs(e["makespan"] - 0.005) < 1e-12
    assert abs(e["query"] - 0.02) < 1e-12          # q2: 6.12 against 6
    # x1 of q2 was blocked 1 ms of a 5 s exchange: compared with 1% of 5 s, 1 ms off is 2%.
    assert abs(e["blocked"] - 0.02) < 1e-12 and e["blocked_exchange"] == "q2/x1"
    assert e["exchanges"] == 2 and e["floored"] == 1
    assert not nme.within(e)                       # the query runtime is 2% off
    assert nme.within(nme.compare(exact, exact))


def test_cases_name_the_scaling_runs_as_the_benchmark_does():
    (label, scenario, sets, jobs), = nme.cases(["scaling:40"])
    assert scenario.name == "hash_5x5.json" and jobs is None
    assert sets == ["mt_dop=8", "cluster.executors=40", "exchanges[0].rows_total=160000000"]


def test_two_results_files_compared_exit_1_outside_the_tolerance(tmp_path, capsys):
    exact = _results(10.0, {}, {("", "x1"): (2.0, 4.0)})
    close = _results(10.01, {}, {("", "x1"): (2.02, 4.0)})     # 0.1% and 1%: within
    far = _results(10.2, {}, {("", "x1"): (2.0, 4.0)})         # makespan 2% off
    for name, doc in (("exact", exact), ("close", close), ("far", far)):
        (tmp_path / f"{name}.json").write_text(json.dumps(doc))
    assert nme.main(["--results", str(tmp_path / "exact.json"), str(tmp_path / "close.json")]) == 0
    assert nme.main(["--results", str(tmp_path / "exact.json"), str(tmp_path / "far.json")]) == 1
    assert "OUTSIDE" in capsys.readouterr().out
