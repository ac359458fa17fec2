"""tools/tpcds/policies.py: its figures and table against values computed here by hand."""

from tools.tpcds import policies


def exchange(query, estimate, held, window=None):
    x = {"query": query, "memory_estimate_bytes": estimate, "peak_sender_bytes": held}
    if window:
        x["k_window"] = window
    return x


def test_figures_take_the_largest_query_and_the_mean_k_over_adaptive_exchanges():
    results = {"summary": {"runtime_s_total": 12.5},
               "exchanges": [exchange("q1", 10, 4, {"k_mean": 2.0, "k_max": 4}), exchange("q1", 20, 5),
                             exchange("q2", 25, 8, {"k_mean": 5.0, "k_max": 8})]}
    f = policies.figures(results)
    # q1: 30 estimated, 9 held; q2: 25 and 8.
    assert f == {"runtime_s": 12.5, "memory_estimate_bytes": 30, "held_peak_bytes": 9, "k_mean": 3.5, "k_max": 8}
    assert policies.figures({"summary": {"runtime_s_total": 1.0}, "exchanges": [exchange("q", 1, 1)]})["k_mean"] is None


def test_rows_compare_each_configuration_with_the_best_fixed_k_and_with_k2():
    def fig(runtime, k_mean=None):
        return {"runtime_s": runtime, "memory_estimate_bytes": 1 << 20, "held_peak_bytes": 1 << 20,
                "k_mean": k_mean, "k_max": 8 if k_mean else None}
    by = {"K=1": fig(200.0), "K=2": fig(150.0), "K=4": fig(120.0), "K=8": fig(120.0),
          "bdp": fig(126.0, 3.0), "gradient": fig(114.0, 4.5)}
    rows = policies.rows_of({(0, 390): by})
    cells = {r[2]: r for r in rows}
    assert cells["K=4"][-1] == "best fixed"  # a tie goes to the smaller K
    assert cells["K=8"][-1] == ""
    assert cells["bdp 1..8"][4:6] == ["+5.0%", "-16.0%"]
    assert cells["gradient 1..8"][4:6] == ["-5.0%", "-24.0%"]
    assert cells["gradient 1..8"][8] == "4.50 / 8"
