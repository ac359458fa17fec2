"""analysis/report.py: its recommendation and tables against an independent computation.

The expected values are computed here straight from the result files, not
through analysis/, so a bug there cannot hide in both places.
"""

import json
import re
from pathlib import Path

from conftest import REPO, SMOKE_GRID, read_manifest, run_script

MIB = 2 ** 20


def load(sweep_dir):
    """[(point id, results JSON)] in sweep order."""
    return [(p["id"], json.loads((Path(sweep_dir) / p["file"]).read_text())) for p in read_manifest(sweep_dir)["points"]]


def runtime(result):
    summary = result["summary"]
    return summary.get("runtime_s_total", summary["makespan_s"])


def markdown_table(markdown, first_header):
    """Rows of the Markdown table whose header starts with first_header, as lists of cells."""
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header} |"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def report(sweep_dir, tmp_path, budget_mib):
    output = tmp_path / "report.html"
    proc = run_script("analysis/report.py", sweep_dir, "--memory-budget-mb", budget_mib, "--output", output)
    assert proc.returncode == 0, proc.stderr
    return output.read_text(), output.with_suffix(".md").read_text()


def size_class(bytes_sent):
    return "small" if bytes_sent < 16 * MIB else "medium" if bytes_sent < 1024 * MIB else "large"


def test_recommendation_and_tables_match_the_results(smoke_sweep, tmp_path):
    check_report(smoke_sweep, tmp_path)


def test_exchanges_hit_by_faults_are_left_out_of_the_classes(exsim, tmp_path):
    sweep_dir = tmp_path / "sweep"
    proc = run_script("run_sweep.py", REPO / "scenarios" / "examples" / "query_with_faults.json", *SMOKE_GRID,
                      "--exsim", exsim, "--out", sweep_dir)
    assert proc.returncode == 0, proc.stderr
    faulty = check_report(sweep_dir, tmp_path)
    assert faulty, "the scenario is meant to make some exchange fail"


def check_report(sweep_dir, tmp_path):
    """Check report.md against the results; returns the exchanges left out of the classes."""
    points = load(sweep_dir)
    memories = sorted(r["summary"]["memory_estimate_bytes_total"] for _, r in points)
    budget = (memories[1] + memories[2]) / 2  # leaves out at least the hungriest configurations
    page, markdown = report(sweep_dir, tmp_path, budget / MIB)

    fitting = [(runtime(r), r["summary"]["memory_estimate_bytes_total"], pid) for pid, r in points
               if r["summary"]["memory_estimate_bytes_total"] <= budget]
    best = min(fitting)[2]
    assert f"Recommended for the whole workload: `{best}`" in markdown

    rows = markdown_table(markdown, "rpcs_in_flight_per_channel")
    assert len(rows) == len(points)
    for row, (pid, result) in zip(rows, points):
        k, buffer, k_eff, buffer_eff, run_s, blocked_s, memory_mib, fits, _pareto, status = row
        assert pid == f"data_stream_sender_buffer_size={buffer},rpcs_in_flight_per_channel={k}"
        assert (k_eff, buffer_eff, status) == (k, buffer, "ok")
        summary = result["summary"]
        assert float(run_s) == _approx(runtime(result))
        assert float(blocked_s) == _approx(summary["slowest_sender_blocked_s_total"])
        assert float(memory_mib) == _approx(summary["memory_estimate_bytes_total"] / MIB)
        assert fits == ("yes" if summary["memory_estimate_bytes_total"] <= budget else "no")

    faulty = {x["id"] for _, r in points for x in r["exchanges"] if x["status"] != "ok"}
    for xid in faulty:
        assert f"`{xid}` (" in markdown
    largest = {}
    for _, r in points:
        for x in r["exchanges"]:
            largest[x["id"]] = max(largest.get(x["id"], 0), x["bytes_sent"])
    classes = {}
    for _, r in points:
        for x in r["exchanges"]:
            if x["id"] not in faulty:
                classes.setdefault((x["partitioning"], size_class(largest[x["id"]])), set()).add(x["id"])
    class_rows = {(row[0], row[1]): row for row in markdown_table(markdown, "partitioning")}
    assert class_rows.keys() == classes.keys()
    for key, ids in classes.items():
        candidates = []
        for pid, r in points:
            xs = [x for x in r["exchanges"] if x["id"] in ids]
            memory = sum(x["memory_estimate_bytes"] for x in xs)
            if memory <= budget:
                candidates.append((sum(x["duration_s"] for x in xs), memory, pid, xs))
        row = class_rows[key]
        if not candidates:
            assert row[3] == "nothing fits the budget"
            continue
        _, _, pid, xs = min(candidates, key=lambda c: c[:2])
        assert row[3] == pid
        assert row[4] == "/".join(sorted({str(x["k"]) for x in xs}, key=int))
        bounds = sorted({x["bound"] for x in xs})
        assert all(b in row[8] for b in bounds), row

    images = re.findall(r'<img [^>]*src="([^"]*)"', page)
    assert len(images) == 3 and all(src.startswith("data:image/png;base64,") for src in images)
    assert "http" not in page.replace("http-equiv", "")  # self-contained: nothing fetched
    return faulty


def test_budget_that_nothing_fits_says_so(smoke_sweep, tmp_path):
    _, markdown = report(smoke_sweep, tmp_path, 1e-6)
    assert "No configuration fits the memory budget" in markdown


def test_not_a_sweep_directory_is_an_error(tmp_path):
    proc = run_script("analysis/report.py", tmp_path, "--output", tmp_path / "r.html")
    assert proc.returncode == 2 and "not a sweep directory" in proc.stderr


def _approx(value):
    import pytest
    return pytest.approx(value, rel=1e-5, abs=1e-12)
