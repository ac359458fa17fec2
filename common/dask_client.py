"""A Dask client for running exsim on workers: an existing scheduler (tcp://host:8786), or a
LocalCluster for 'local'. Workers need the exsim binary at the same path but neither this
repository nor a shared file system: the runner's code (common.exsim_runner) is sent with each
task and the scenario travels as text. run_sweep.py sends sweep points this way, tools/dask_run.py
a workload's queries."""

import logging

from common import exsim_runner


class DaskUnavailable(Exception):
    """The scheduler cannot be reached (the message says which and why)."""


def connect(address, threads=1):
    """(client, cluster or None): `address` 'local' starts a LocalCluster of one worker process with
    `threads` threads (exsim runs in child processes, so threads suffice); else the scheduler there."""
    import cloudpickle
    import distributed  # only needed, and only paid for, with --dask

    cloudpickle.register_pickle_by_value(exsim_runner)
    cluster = None
    if address == "local":
        cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=threads, processes=False,
                                           dashboard_address=None, silence_logs=logging.ERROR)
        address = cluster
    try:
        return distributed.Client(address, timeout="30s"), cluster
    except OSError as e:
        raise DaskUnavailable(f"--dask {address}: cannot reach the scheduler ({e})") from None
