"""`exsim run --dask ADDRESS` (tools/dask_run.py): a workload's queries simulated as tasks on a Dask
cluster of several worker processes give the local run's results byte for byte; what it cannot
take is bad input, named."""
import subprocess

import pytest
from conftest import REPO

WORKLOAD = REPO / "scenarios" / "profiles" / "compute_stats_v2.json"   # 2 queries, run one after another


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    import logging
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=logging.ERROR) as c:
        yield c.scheduler_address


def run(exsim, *args):
    return subprocess.run([str(exsim), "run", *map(str, args)], capture_output=True, text=True, timeout=300)


def test_queries_on_worker_processes_give_the_local_results(exsim, cluster, tmp_path):
    local = run(exsim, WORKLOAD, "--set", "mt_dop=2", "--output", tmp_path / "local.json")
    assert local.returncode == 0, local.stderr
    spread = run(exsim, WORKLOAD, "--set", "mt_dop=2", "--dask", cluster, "--output", tmp_path / "dask.json")
    assert spread.returncode == 0, spread.stderr
    assert (tmp_path / "dask.json").read_bytes() == (tmp_path / "local.json").read_bytes()
    # two worker threads: four shares of the two queries (two of them empty), progress as they come
    assert "2/2 queries simulated on 2 worker thread(s)" in spread.stderr
    # the summary is the merged run's, as a local run prints it
    summary = run(exsim, WORKLOAD, "--set", "mt_dop=2", "--dask", cluster, "--summary")
    assert summary.returncode == 0 and summary.stdout == run(exsim, WORKLOAD, "--set", "mt_dop=2", "--summary").stdout


@pytest.mark.parametrize("args,message", [
    (["--jobs", "2"], "--jobs: not with --dask (the cluster's workers run the queries)"),
    (["--query-share", "0/2"], "--query-share: not with --dask"),
    (["--set", "mt_dop=-1"], "mt_dop"),
])
def test_what_it_cannot_take_is_named(exsim, args, message):
    proc = run(exsim, WORKLOAD, "--dask", "tcp://127.0.0.1:9", *args)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_an_unreachable_scheduler_is_named(exsim):
    proc = run(exsim, WORKLOAD, "--dask", "tcp://127.0.0.1:9")
    assert proc.returncode == 2 and "--dask tcp://127.0.0.1:9: cannot reach the scheduler" in proc.stderr, proc.stderr
