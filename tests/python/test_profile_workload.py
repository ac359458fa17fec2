"""A workload from profiles: `exsim profile import` of several files or a folder gives one scenario
whose queries are each file's, imported as each file alone would give them, run one after another;
the same query met twice is imported once, a failed query is left out and listed, a file of a
folder that is not a profile is listed; `exsim compare` with several profiles puts a line for the
workload before each query's."""
import csv
import json
import os
import shutil
import subprocess

import pytest

from conftest import REPO
from test_impala_profile import LOG_V1, PROFILES, Q72, TEXT_V1, import_file, needs_profiles, run_cli, exsim_path

FAILED_LOG = PROFILES / "impala_profile_log_failed_query"


def import_cli(tmp_path, *profiles):
    out = tmp_path / "workload.json"
    proc = run_cli("profile", "import", *profiles, "--output", out)
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text()), proc.stderr


def ignored(sc, text):
    return [i for i in sc["provenance"]["ignored"] if text in i["what"] + " " + i["why"]]


@needs_profiles
def test_several_files_are_one_workload_of_their_queries(tmp_path):
    alone = [import_file(LOG_V1), import_file(Q72)]
    sc, err = import_cli(tmp_path, LOG_V1, Q72)
    want = [q["name"] for one in alone for q in one["queries"]]
    assert [q["name"] for q in sc["queries"]] == want and len(want) == 3
    # Each query's measurements are its file's, whatever else is imported beside it.
    by_name = {q["name"]: q for q in sc["queries"]}
    for one in alone:
        for q in one["queries"]:
            assert by_name[q["name"]]["expected"] == q["expected"]
    assert sc["query_order"] == "sequential" and "one after another" in err
    assert sc["provenance"]["profile"] == [str(LOG_V1), str(Q72)]
    assert sc["name"] == "impala-profiles_workload"
    assert sc["cluster"]["executors"] == max(one["cluster"]["executors"] for one in alone)


@needs_profiles
def test_the_same_query_in_two_forms_is_imported_once(tmp_path):
    sc, _ = import_cli(tmp_path, LOG_V1, TEXT_V1)
    assert [q["name"] for q in sc["queries"]] == [q["name"] for q in import_file(LOG_V1)["queries"]]
    assert len(ignored(sc, "the same query as in " + str(LOG_V1))) == 4  # the text renders the log's 4 queries


@needs_profiles
def test_a_folder_is_every_profile_under_it_and_lists_the_other_files(tmp_path):
    folder = tmp_path / "day"
    (folder / "more").mkdir(parents=True)
    shutil.copy(LOG_V1, folder / "log_1")
    shutil.copy(Q72, folder / "more" / "q72.json")
    (folder / "notes.txt").write_text("queries of Monday\n")
    sc, err = import_cli(tmp_path, folder)
    assert len(sc["queries"]) == 3 and sc["name"] == "day_workload"
    assert len(ignored(sc, "notes.txt")) == 1 and "1 file(s) not read as profiles" in err
    # A file named on the command line must be a profile.
    proc = run_cli("profile", "import", folder / "notes.txt", "--output", tmp_path / "x.json")
    assert proc.returncode == 2 and "notes.txt" in proc.stderr and not (tmp_path / "x.json").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = run_cli("profile", "import", empty)
    assert proc.returncode == 2 and "empty folder" in proc.stderr


@needs_profiles
def test_a_failed_query_is_left_out_of_a_workload_and_listed(tmp_path):
    sc, _ = import_cli(tmp_path, FAILED_LOG, LOG_V1)
    assert [q["name"] for q in sc["queries"]] == [q["name"] for q in import_file(LOG_V1)["queries"]]
    assert len(ignored(sc, "did not finish")) == 1
    # Alone, it is still refused: nothing would be left to simulate.
    proc = run_cli("profile", "import", FAILED_LOG)
    assert proc.returncode == 2 and "did not finish" in proc.stderr


@needs_profiles
def test_compare_puts_the_workload_first(tmp_path):
    if exsim_path() is None:
        pytest.skip("exsim is not built")
    sc, _ = import_cli(tmp_path, LOG_V1, Q72)
    results = tmp_path / "results.json"
    proc = run_cli("run", tmp_path / "workload.json", "--output", results)
    assert proc.returncode == 0, proc.stderr
    proc = run_cli("compare", results, LOG_V1, Q72)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("workload of 3 queries: runtime summed over the 3 compared")
    assert [ln.split(": runtime")[0] for ln in lines[1:4]] == ["query " + q["name"] for q in sc["queries"]]
    doc = json.loads(run_cli("compare", results, LOG_V1, Q72, "--format", "json").stdout)
    w = doc["workload"]
    # The workload's figures are its queries' sums; the furthest off lead by seconds.
    assert w["runtime_s"]["measured"] == pytest.approx(sum(q["runtime_s"]["measured"] for q in doc["queries"]))
    assert w["runtime_s"]["simulated"] == pytest.approx(sum(q["runtime_s"]["simulated"] for q in doc["queries"]))
    offs = [abs(q["simulated"] - q["measured"]) for q in w["furthest_off"]]
    assert offs == sorted(offs, reverse=True) and len(offs) == 3
    # One query compared: no workload line.
    one = json.loads(run_cli("compare", results, Q72, "--format", "json").stdout)
    assert "workload" not in one


@needs_profiles
def test_a_larger_cluster_says_which_scans_stay_narrow(tmp_path):
    """q72 at SF1 scans catalog_sales in 3 scan ranges: on 20 executors that scan still runs on 3, so
    the import says the query gains little; on the profiled 3 it says nothing."""
    out = tmp_path / "q72_20.json"
    proc = run_cli("profile", "import", Q72, "--executors", "20", "--output", out)
    assert proc.returncode == 0, proc.stderr
    sc = json.loads(out.read_text())
    (name, why), = sc["provenance"]["narrow_scans"].items()
    assert name == sc["queries"][0]["name"] and "F00 on 3 (3 scan ranges)" in why
    assert "F00 on 3 (3 scan ranges)" in proc.stderr
    sc3, err = import_cli(tmp_path, Q72)
    assert "narrow_scans" not in sc3["provenance"] and "scan range" not in err


@needs_profiles
def test_a_twenty_query_log_runs_as_one_workload(tmp_path):
    """A day's log, made of the compute-stats text's two queries with an exchange, each repeated ten
    times under new query ids: one workload of 20 queries, each measured as its original, run, and
    compared with a workload line that sums them."""
    text = TEXT_V1.read_text()
    starts = [i for i, line in enumerate(text.splitlines(keepends=True)) if line.startswith("Query (id=")]
    lines = text.splitlines(keepends=True)
    blocks = ["".join(lines[a:b]) for a, b in zip(starts, starts[1:] + [len(lines)])]
    original = {q["name"]: q for q in import_file(TEXT_V1)["queries"]}
    wanted = [b for b in blocks if b[len("Query (id="):].split(")")[0] in original]
    assert len(wanted) == 2
    day, renamed = [], {}
    for copy in range(10):
        for k, block in enumerate(wanted):
            old = block[len("Query (id="):].split(")")[0]
            prefix = "%016x:%08x" % (0xda7 + copy, k)
            renamed[prefix + old[25:]] = old
            day.append(block.replace(old[:25], prefix))
    log = tmp_path / "day.txt"
    log.write_text("".join(day))
    sc, _ = import_cli(tmp_path, log)
    assert sorted(q["name"] for q in sc["queries"]) == sorted(renamed) and sc["query_order"] == "sequential"
    for q in sc["queries"]:
        assert q["expected"]["runtime_s"] == original[renamed[q["name"]]]["expected"]["runtime_s"]
    if exsim_path() is None:
        pytest.skip("exsim is not built")
    results = tmp_path / "day_results.json"
    proc = run_cli("run", tmp_path / "workload.json", "--output", results, "--jobs", "2")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(run_cli("compare", results, log, "--format", "json").stdout)
    assert doc["workload"]["queries"] == doc["workload"]["compared"] == 20
    measured = sum(original[renamed[q["name"]]]["expected"]["runtime_s"] for q in sc["queries"])
    assert doc["workload"]["runtime_s"]["measured"] == pytest.approx(measured)


@needs_profiles
def test_predictions_of_an_imported_workload_come_with_intervals(tmp_path):
    """scripts/predictions.sh on the compute-stats log imported as a workload: the 20 sweep points at
    its own mt_dop and 8, then the intervals of tools/tpcds_uncertainty.py for that workload (its
    own inputs, at its mt_dop), drawn on the predictions plot."""
    if exsim_path() is None:
        pytest.skip("exsim is not built")
    sc, _ = import_cli(tmp_path, LOG_V1)
    mt = sc["flags"]["mt_dop"]
    env = dict(os.environ, SWEEPS=str(tmp_path / "sweeps"), OUT=str(tmp_path / "out"), JOBS="2",
               EXSIM=str(exsim_path()))
    proc = subprocess.run([str(REPO / "scripts" / "predictions.sh"), str(tmp_path / "workload.json"), "day"],
                          capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = tmp_path / "out"
    runs = list(csv.DictReader((out / "day_uncertainty.csv").open()))
    assert {int(r["mt_dop"]) for r in runs} == {mt, 8}
    # this workload's own inputs: its runtime residual and the second thread, each at two ends
    assert [r["input"] for r in runs if r["input"] != "nominal"][::6] == [
        "operators' CPU per row", "operators' CPU per row", "second_thread_gain", "second_thread_gain"]
    assert "intervals from the inputs' ranges" in proc.stderr
    assert (out / "figures" / "day_tornado.png").stat().st_size > 0
    assert "| %d |" % mt in (out / "day_predictions.md").read_text()
