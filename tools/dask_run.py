#!/usr/bin/python3
"""`exsim run SCENARIO --dask ADDRESS`: a workload's queries simulated on a Dask cluster, with the
results of a local run, byte for byte.

A workload whose queries run one after another (query_order "sequential", as the TPC-DS workload
and every imported workload) simulates each query alone; `exsim run --jobs N` runs them in N child
processes here. With --dask the queries are dealt into shares, two for each worker thread of the
cluster (the largest first, round robin, as `--jobs` starts them), and each share is one task
(`exsim run --query-share K/N` on a worker, which simulates its queries one at a time and needs the
exsim binary at the same path but no files: the scenario travels as text, sent once). Loading a
large workload takes about half a second, so a task of several queries pays it once. This process
merges the parts as a local run does (`exsim run --from-parts DIR`), so the results, the summary
and the output file are the same. ADDRESS is a scheduler (tcp://host:8786) or
'local' (a LocalCluster here, mostly for trying it).

    exsim run scenarios/tpcds_sf100/workload.json --dask tcp://scheduler:8786 --output out/tpcds.json
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if not __package__:  # run as a script: the repository root on sys.path, as for every entry point
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import atomic, dask_client, exsim_runner  # noqa: E402

PROG = "exsim run --dask"
EXIT_BAD_INPUT = 2


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def parse(argv):
    ap = Parser(prog=PROG, add_help=False)
    ap.add_argument("command", choices=["run"])
    ap.add_argument("scenario")
    ap.add_argument("--dask", required=True)
    ap.add_argument("--set", action="append", default=[], dest="sets")
    ap.add_argument("--output", "-o")
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--format")
    ap.add_argument("--top")
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--no-progress", action="store_true")
    for taken in ("--jobs", "--timing", "--query-share", "--from-parts"):
        ap.add_argument(taken, nargs="?", dest=taken[2:].replace("-", "_"), default=None, const="")
    args = ap.parse_args(argv)
    for taken, why in (("jobs", "the cluster's workers run the queries"), ("timing", "the run is spread over "
                       "machines: time the local run instead"), ("query_share", "the workers run the shares"),
                       ("from_parts", "the workers make the parts")):
        if getattr(args, taken) is not None:
            raise UsageError(f"--{taken.replace('_', '-')}: not with --dask ({why})")
    return args


def query_names(exsim, scenario, sets):
    """The scenario's query names, in order, as the simulator reads them (validating it here first:
    a bad scenario fails before any worker is asked)."""
    argv = exsim_runner.command(exsim, scenario, sets, verb="explain", extra=("--format", "json"))
    status, out, err = exsim_runner.run(argv)
    if status != 0:
        raise UsageError(err.strip().removeprefix("exsim: ") or f"exsim explain exited with status {status}")
    return [q["query"] for q in json.loads(out)["queries"]]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = parse(argv)
        exsim = os.environ.get("EXSIM") or exsim_runner.default_exsim()
        path = Path(args.scenario)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise UsageError(f"{args.scenario}: cannot read the scenario: {e.strerror}") from None
        names = query_names(exsim, path, args.sets)
        try:
            client, cluster = dask_client.connect(args.dask, threads=os.cpu_count() or 1)
        except dask_client.DaskUnavailable as e:
            raise UsageError(str(e)) from None
    except UsageError as e:
        sys.stderr.write(f"{PROG}: {e}\n")
        return EXIT_BAD_INPUT
    import distributed
    progress = not args.no_progress   # a line a query: the parts finish minutes apart on a large workload
    start = time.monotonic()
    threads = sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values()) or 1
    shares = max(1, min(len(names), 2 * threads))
    try:
        with tempfile.TemporaryDirectory(prefix="exsim-parts.") as parts:
            sent = client.scatter(text, broadcast=True)
            futures = {client.submit(exsim_runner.run_text, exsim, path.name, sent, args.sets,
                                     extra=("--query-share", f"{k}/{shares}"), pure=False): k for k in range(shares)}
            done = 0
            for future in distributed.as_completed(futures):
                k = futures[future]
                status, out, err = future.result()
                if status != 0:
                    client.cancel(list(futures))
                    sys.stderr.write(f"{PROG}: share {k} of {shares}: {err.strip()}\n")
                    return status if status in (1, 2) else 1
                atomic.write_text(os.path.join(parts, f"share-{k}.json"), out)
                done += len(json.loads(out))
                if progress:
                    sys.stderr.write(f"{PROG}: {done}/{len(names)} queries simulated on {threads} worker "
                                     f"thread(s) ({time.monotonic() - start:.1f} s)\n")
            extra = [("--output", args.output), ("--format", args.format), ("--top", args.top)]
            argv = exsim_runner.command(exsim, path, args.sets, extra=["--from-parts", parts] + [
                x for flag, value in extra if value is not None for x in (flag, value)] + (
                ["--summary"] if args.summary else []))
            return _run_inherited(argv)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _run_inherited(argv):
    """The merge, its output and messages straight to this process's."""
    return subprocess.run(argv, stdin=subprocess.DEVNULL).returncode


if __name__ == "__main__":
    sys.exit(main())
