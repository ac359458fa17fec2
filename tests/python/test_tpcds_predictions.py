"""analysis/tpcds_predictions.py: table, CSV, CDF plot and README block from sweep directories.

Runs on the shared 2x2 smoke sweep of the example scenario (K 1,2 x buffer 16, 128 KiB): the
script only needs finished points whose overrides are among the table's configuration keys.
"""

import csv
import json
import math

from conftest import REPO, read_manifest, run_script


def summaries(sweep_dir):
    out = {}
    for entry in read_manifest(sweep_dir)["points"]:
        doc = json.loads((sweep_dir / entry["file"]).read_text())
        out[(entry["overrides"]["rpcs_in_flight_per_channel"],
             entry["overrides"]["data_stream_sender_buffer_size"])] = doc
    return out


def test_table_csv_and_plot_match_the_sweep(smoke_sweep, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("intro\n<!-- tpcds-predictions:begin -->\nold\n<!-- tpcds-predictions:end -->\nrest\n")
    proc = run_script("analysis/tpcds_predictions.py", smoke_sweep, "--out", tmp_path / "docs",
                      "--readme", readme)
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "docs" / "tpcds_predictions.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    docs = summaries(smoke_sweep)
    assert len(rows) == len(docs) == 4
    for r in rows:
        s = docs[(r["K"], str(int(r["buffer_kib"]) * 1024))]["summary"]
        assert float(r["runtime_s"]) == s["runtime_s_total"]
        assert float(r["blocked_nonpushback_hash_s"]) == s["nonpushback_slowest_sender_blocked_s_total"]
        # The change against K=1 at the same buffer: (K runtime - K=1 runtime) / K=1 runtime.
        k1 = docs[("1", str(int(r["buffer_kib"]) * 1024))]["summary"]["runtime_s_total"]
        assert abs(float(r["runtime_vs_k1_pct"]) - 100 * (s["runtime_s_total"] - k1) / k1) < 1e-9
    png = (tmp_path / "docs" / "figures" / "tpcds_blocked_cdf.png").read_bytes()
    assert png.startswith(b"\x89PNG")
    text = readme.read_text()
    assert "old" not in text and text.startswith("intro\n") and text.endswith("rest\n")
    # Each configuration once in the table and once in the breakdown table below it.
    table, breakdown = text.split("Where the time goes")
    assert table.count("| 0 | 2 | 128 | on | pipelined | 390 |") == 1
    assert breakdown.count("| 0 | 2 | 128 | on | pipelined | 390 |") == 1


def test_missing_readme_block_fails_clearly_and_leaves_the_file(smoke_sweep, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("no block here\n")
    proc = run_script("analysis/tpcds_predictions.py", smoke_sweep, "--out", tmp_path, "--readme", readme)
    assert proc.returncode == 2 and "no <!-- tpcds-predictions:begin -->" in proc.stderr
    assert readme.read_text() == "no block here\n"


def test_a_grid_key_the_table_has_no_column_for_is_an_error(exsim, scenario, tmp_path):
    sweep = tmp_path / "sweep"
    proc = run_script("run_sweep.py", scenario, "--grid", "batch_size=512", "--exsim", exsim, "--out", sweep)
    assert proc.returncode == 0, proc.stderr
    proc = run_script("analysis/tpcds_predictions.py", sweep, "--out", tmp_path / "docs")
    assert proc.returncode == 2 and "'batch_size' is not one this table knows" in proc.stderr
    assert not (tmp_path / "docs").exists()


def test_empty_sweep_dir_is_an_error(tmp_path):
    empty = tmp_path / "sweep"
    empty.mkdir()
    proc = run_script("analysis/tpcds_predictions.py", empty, "--out", tmp_path)
    assert proc.returncode == 2 and "tpcds_predictions:" in proc.stderr


def test_per_query_runtimes_and_their_geometric_mean(exsim, tmp_path):
    # Three whole-query examples in one scenario, swept at K=1 and K=2.
    ex = REPO / "scenarios" / "examples"
    doc = json.loads((ex / "query_partitioned_join.json").read_text())
    for name in ("query_aggregation.json", "query_broadcast_join.json"):
        doc["queries"] += json.loads((ex / name).read_text())["queries"]
    doc["query_order"] = "sequential"
    scenario = tmp_path / "three_queries.json"
    scenario.write_text(json.dumps(doc))
    sweep = tmp_path / "sweep"
    proc = run_script("run_sweep.py", scenario, "--grid", "rpcs_in_flight_per_channel=1,2", "--exsim", exsim,
                      "--out", sweep)
    assert proc.returncode == 0, proc.stderr
    proc = run_script("analysis/tpcds_predictions.py", sweep, "--out", tmp_path / "docs")
    assert proc.returncode == 0, proc.stderr
    runs = {}
    for entry in read_manifest(sweep)["points"]:
        result = json.loads((sweep / entry["file"]).read_text())
        runs[entry["overrides"]["rpcs_in_flight_per_channel"]] = {q["query"]: q["runtime_s"] for q in result["queries"]}
    k1, k2 = runs["1"], runs["2"]
    assert len(k1) == 3
    # Per query: runtime at K=1 and K=2 and their ratio; the last row the geometric mean of the ratios, which the
    # table's K=2 row repeats (every query weighs the same).
    with open(tmp_path / "docs" / "tpcds_predictions_per_query.csv", newline="") as f:
        per_query = list(csv.DictReader(f))
    assert [r["query"] for r in per_query[:-1]] == list(k1) and per_query[-1]["query"] == "geomean"
    for r in per_query[:-1]:
        assert float(r["mt0_k1_s"]) == k1[r["query"]] and float(r["mt0_k2_s"]) == k2[r["query"]]
        assert abs(float(r["mt0_k2_ratio"]) - k2[r["query"]] / k1[r["query"]]) < 1e-12
    expected = math.exp(sum(math.log(k2[q] / k1[q]) for q in k1) / len(k1))
    print("geomean K=2/K=1: expected %.6f, table %s" % (expected, per_query[-1]["mt0_k2_ratio"]))
    assert abs(float(per_query[-1]["mt0_k2_ratio"]) - expected) < 1e-12
    with open(tmp_path / "docs" / "tpcds_predictions.csv", newline="") as f:
        row = next(r for r in csv.DictReader(f) if r["K"] == "2")
    assert abs(float(row["geomean_ratio_vs_baseline"]) - expected) < 1e-12
