#!/usr/bin/python3
"""Benchmark (scripts/bench.sh part 5, not a test): the TPC-DS workload on a local Dask cluster of two
worker processes (`exsim run --dask`) against `--jobs 2`, in one run: both wall times, their ratio,
and whether the results are the same bytes.
    bench/dask_workload.py EXSIM TMPDIR"""
import logging
import subprocess
import sys
import time

import distributed

WORKLOAD = "scenarios/tpcds_sf100/workload.json"


def main(exsim, tmp):
    w = WORKLOAD
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=logging.ERROR) as c:
        t = time.monotonic()
        a = subprocess.run([exsim, "run", w, "--dask", c.scheduler_address, "--no-progress", "--output",
                            tmp + "/dask.json"], capture_output=True, text=True)
        dask_s = time.monotonic() - t
    t = time.monotonic()
    b = subprocess.run([exsim, "run", w, "--jobs", "2", "--no-progress", "--output", tmp + "/jobs.json"],
                       capture_output=True, text=True)
    jobs_s = time.monotonic() - t
    if a.returncode or b.returncode:
        print("tpcds on dask: failed:", (a.stderr or b.stderr).strip()[-500:])
        return 1
    same = open(tmp + "/dask.json", "rb").read() == open(tmp + "/jobs.json", "rb").read()
    print("tpcds workload, one configuration: a local Dask cluster of 2 worker processes %.1f s, --jobs 2 %.1f s "
          "(%.2fx); results %s" % (dask_s, jobs_s, dask_s / jobs_s, "the same bytes" if same else "DIFFERENT"))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
