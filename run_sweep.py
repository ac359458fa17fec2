#!/usr/bin/python3
"""Run exsim over the cartesian product of parameter values, resumably.

Each point of the grid is one `exsim run SCENARIO --set NAME=VALUE ...`
process. Results land in a sweep directory (layout in analysis/results.py),
one file per point plus a manifest, each written atomically, so that a sweep
killed at any moment (even with SIGKILL) loses only the points in flight and
the same command resumes it.

Examples:
    ./run_sweep.py scenarios/examples/hash_5x5.json \\
        --grid rpcs_in_flight_per_channel=1,2,4 \\
        --grid data_stream_sender_buffer_size=16384,131072 --out sweeps/hash
    ./run_sweep.py SCENARIO --grid mt_dop=0,4 --dask tcp://scheduler:8786
"""

import argparse
import concurrent.futures
import fcntl
import hashlib
import itertools
import json
import math
import os
import shutil
import signal
import sys
import threading
import time
from pathlib import Path
from urllib.parse import quote

if not __package__:  # run as a script: the repository root on sys.path, as for every entry point
    sys.path.insert(0, str(Path(__file__).resolve().parents[0]))

from analysis import regress, results  # noqa: E402
from common import atomic, dask_client, exsim_runner  # noqa: E402

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(Exception):
    """Bad command-line input; reported as `run_sweep: <message>` with exit status 2."""


# The most points a sweep plans: its manifest holds each point, and a grid past this (a million points
# took a minute to end in a MemoryError) is refused before anything is created.
MAX_POINTS = 100_000


def parse_grid(specs):
    """Turn ['NAME=V1,V2', ...] into [(name, [values])], rejecting ambiguous grids and grids of more than
    MAX_POINTS points."""
    grid = []
    for spec in specs:
        name, sep, values_text = spec.partition("=")
        values = values_text.split(",")
        if not sep or not name or not all(values):
            raise UsageError(f"--grid {spec!r}: expected NAME=V1,V2,... with non-empty values")
        if name in (n for n, _ in grid):
            raise UsageError(f"--grid {name}: given twice; put all its values in one --grid")
        if len(set(values)) != len(values):
            raise UsageError(f"--grid {spec!r}: repeated value")
        grid.append((name, values))
    points = math.prod(len(values) for _, values in grid)
    if points > MAX_POINTS:
        raise UsageError(f"--grid: {points:,} points ({' x '.join(str(len(v)) for _, v in grid)} values): expected at "
                         f"most {MAX_POINTS:,}; sweep fewer values, or split the grid into several sweeps")
    return grid


def parse_sets(specs, grid):
    """--set NAME=VALUE arguments as {name: value}, none of them a grid name."""
    fixed = {}
    for spec in specs:
        name, sep, value = spec.partition("=")
        if not sep or not name:
            raise UsageError(f"--set {spec!r}: expected NAME=VALUE")
        if name in fixed:
            raise UsageError(f"--set {name}: given twice")
        if name in (n for n, _ in grid):
            raise UsageError(f"--set {name}: also a --grid name; give it one way")
        fixed[name] = value
    return fixed


def point_id(overrides):
    """A point's identity: its overrides sorted by name, so reordering --grid reuses results."""
    return ",".join(f"{name}={overrides[name]}" for name in sorted(overrides))


def point_file(pid):
    """Result file of a point; percent-encoding keeps distinct ids distinct and names portable."""
    name = quote(pid, safe="=,[]_.-+")
    if len(name) > 200:  # file names are limited to 255 bytes
        name = f"{name[:180]}-{hashlib.sha256(pid.encode()).hexdigest()[:16]}"
    return f"{results.POINTS_DIR}/{name}.json"


def run_exsim(exsim, scenario_label, scenario_name, scenario_text, overrides, on_start=None, command="run"):
    """Run one point (`exsim run`, or `exsim validate` with command="validate") and return
    (exit status, stdout, stderr).

    Runs in a pool thread or on a Dask worker, possibly on another machine,
    so it takes the scenario's text rather than a path (exsim_runner.run_text
    writes it under its original file name) and the run uses exactly the
    bytes whose hash the manifest records. on_start receives the child
    process so a local pool can kill it on Ctrl-C.
    """
    # Error messages should name the user's file, not the temporary copy.
    return exsim_runner.run_text(exsim, scenario_name, scenario_text, overrides, on_start=on_start,
                                 label=scenario_label, verb=command)


def exsim_version(exsim):
    """`exsim --version` without the program name; recorded so that results of another build are rerun."""
    try:
        return exsim_runner.version(exsim)
    except exsim_runner.ExsimError as e:
        raise UsageError(str(e)) from None


def outcome(returncode, stdout, stderr):
    """Status and error of a finished run: only an exit status 0 with a results object is a success."""
    if returncode != 0:
        return "failed", stderr.strip() or f"exsim exited with status {returncode} and no message"
    try:
        ok = isinstance(json.loads(stdout).get("summary"), dict)
    except (ValueError, AttributeError):
        ok = False
    return ("ok", "") if ok else ("failed", "exsim exited 0 but its output is not a results JSON object")


class LocalPool:
    """Runs points in child processes on this machine, at most `jobs` at a time."""

    def __init__(self, jobs):
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
        self._children = set()
        self._stopping = False
        self._lock = threading.Lock()

    def _track(self, proc):
        with self._lock:
            self._children.add(proc)
            if self._stopping:  # started just as stop() ran
                proc.kill()

    def submit(self, exsim, *args):
        return self._executor.submit(run_exsim, exsim, *args, on_start=self._track)

    def version(self, exsim):
        return exsim_version(exsim)

    def validate(self, exsim, *args):
        return run_exsim(exsim, *args, command="validate")

    as_completed = staticmethod(concurrent.futures.as_completed)

    def stop(self):
        """Kill running children and drop queued points (Ctrl-C); finished results are kept."""
        self._executor.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            self._stopping = True
            for proc in self._children:
                if proc.poll() is None:
                    proc.kill()

    def close(self):
        self._executor.shutdown(wait=True)


class DaskPool:
    """Runs points on a Dask cluster: an existing scheduler, or a LocalCluster for 'local'.

    Workers only run exsim and return its output; this process writes every
    file, so workers need the exsim binary but no access to the sweep directory.
    """

    def __init__(self, address, jobs):
        import distributed  # only needed, and only paid for, with --dask

        try:
            self._client, self._cluster = dask_client.connect(address, jobs)
        except dask_client.DaskUnavailable as e:
            raise UsageError(str(e)) from None
        self._futures = []
        self.as_completed = distributed.as_completed

    def submit(self, exsim, *args):
        future = self._client.submit(run_exsim, exsim, *args, pure=False)
        self._futures.append(future)
        return future

    def version(self, exsim):
        # Asked of a worker: the binary that matters is the one the workers run. Its
        # exception class comes back as a copy, hence the broad except.
        try:
            return self._client.submit(exsim_version, exsim, pure=False).result()
        except Exception as e:
            raise UsageError(f"on a Dask worker: {e}") from None

    def validate(self, exsim, *args):
        return self._client.submit(run_exsim, exsim, *args, command="validate", pure=False).result()

    def stop(self):
        """Cancel queued points; a point already running on a worker runs to its end."""
        self._client.cancel(self._futures)

    def close(self):
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


class Progress:
    """Progress with ETA: a tqdm bar on a terminal, one plain line per point otherwise (logs, CI)."""

    def __init__(self, total):
        self._total = total
        self._done = 0
        self._start = time.monotonic()
        self._bar = None
        if sys.stderr.isatty():
            from tqdm import tqdm  # only on a terminal
            self._bar = tqdm(total=total, unit="point", file=sys.stderr)

    def update(self, pid, status):
        self._done += 1
        if self._bar is not None:
            self._bar.set_postfix_str(f"{status}: {pid}", refresh=False)
            self._bar.update()
            return
        elapsed = time.monotonic() - self._start
        eta = elapsed / self._done * (self._total - self._done)
        print(f"[{self._done}/{self._total}] {status:6} {pid}  (elapsed {elapsed:.1f}s, eta {eta:.1f}s)",
              file=sys.stderr, flush=True)

    def close(self):
        if self._bar is not None:
            self._bar.close()


def plan(grid, old_manifest, sweep_dir, scenario_sha, version, fixed=None):
    """Manifest entries for this run: finished points reused, the others pending.

    A point is reused only if it succeeded on the same scenario bytes with the
    same exsim version (its overrides are its identity). Result files of points
    to rerun or no longer in the grid are deleted so none can be mistaken for current.
    """
    names = [name for name, _ in grid]
    old = {p["id"]: p for p in (old_manifest or {}).get("points", [])}
    entries = []
    for values in itertools.product(*(values for _, values in grid)):
        overrides = dict(zip(names, values))
        pid = point_id(overrides)
        prev = old.pop(pid, None)
        if (prev and prev["status"] == "ok" and prev["scenario_sha256"] == scenario_sha
                and prev["exsim_version"] == version and prev.get("sets", {}) == (fixed or {})
                and (sweep_dir / prev["file"]).exists()):
            entries.append(prev)
            continue
        if prev:
            (sweep_dir / prev["file"]).unlink(missing_ok=True)
        entries.append({"id": pid, "overrides": overrides, "file": point_file(pid), "status": "pending",
                        "error": "", "scenario_sha256": scenario_sha, "exsim_version": version, "sets": fixed or {}})
    for stale in old.values():
        (sweep_dir / stale["file"]).unlink(missing_ok=True)
    return entries


def check_grid_names(pool, exsim, scenario_path, scenario_text, grid, fixed=None):
    """Check every grid name and value before any point runs, with `exsim validate`.

    A name exsim does not know (a misspelt flag, a path outside the scenario) would fail every
    point the same way, so it stops the sweep here with exsim's message (exit status 2). Then
    each value, the other names at their first value: one that exsim refuses would fail its
    points only after the others ran, so it stops the sweep too, each such value named.
    """
    fixed = fixed or {}
    first = {name: values[0] for name, values in grid}
    returncode, _, stderr = pool.validate(exsim, str(scenario_path), scenario_path.name, scenario_text,
                                          {**fixed, **first})
    lines = [line.removeprefix("exsim: ") for line in stderr.splitlines()]
    bad = [line for line in lines if line.startswith("--set ")]
    if returncode != 0 and bad:
        raise UsageError("--grid: no point was run, as every one would fail the same way "
                         "(exsim validate with each name's first value):\n  " + "\n  ".join(bad))
    check_grid_values(pool, exsim, scenario_path, scenario_text, grid, first, first_ok=returncode == 0, fixed=fixed)


def check_grid_values(pool, exsim, scenario_path, scenario_text, grid, first, first_ok, fixed):
    """Every value of each name, the others at their first value (those already checked together)."""
    bad = []
    for name, values in grid:
        for value in values[0 if not first_ok else 1:]:
            # When the first values fail together, each value alone (on the scenario's own others).
            sets = {**fixed, **first, name: value} if first_ok else {**fixed, name: value}
            returncode, _, stderr = pool.validate(exsim, str(scenario_path), scenario_path.name, scenario_text, sets)
            if returncode != 0:
                message = stderr.strip().splitlines()[0].removeprefix("exsim: ") if stderr.strip() else \
                    f"exit status {returncode}"
                bad.append(f"{name}={value}: {message}")
    if bad:
        raise UsageError("--grid: no point was run: these values are refused (exsim validate, the other names at "
                         "their first value):\n  " + "\n  ".join(bad))


def lock_sweep_dir(sweep_dir):
    """Refuse to share a sweep directory between two running sweeps (their manifests would race).

    The lock dies with the process, so a sweep killed with SIGKILL does not block its rerun.
    """
    handle = open(sweep_dir / ".lock", "w")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise UsageError(f"{sweep_dir}: another run_sweep.py is running in this directory") from None
    return handle


def read_old_manifest(sweep_dir):
    """The previous run's manifest, if any; one we cannot read is an error, not a silent restart."""
    if not (sweep_dir / results.MANIFEST_NAME).exists():
        return None
    try:
        return results.load_manifest(sweep_dir)
    except results.SweepError as e:
        raise UsageError(f"{e}; delete the directory or choose another --out") from None


def sweep(args, grid, scenario_path, scenario_bytes, sweep_dir):
    """Run the points not yet finished; return the final manifest and whether it was interrupted."""
    scenario_sha = hashlib.sha256(scenario_bytes).hexdigest()
    scenario_text = scenario_bytes.decode("utf-8")
    pool = DaskPool(args.dask, args.jobs) if args.dask else LocalPool(args.jobs)
    interrupted = False
    try:
        version = pool.version(args.exsim)
        check_grid_names(pool, args.exsim, scenario_path, scenario_text, grid, args.fixed)
        manifest = {
            "manifest_version": results.MANIFEST_VERSION,
            "scenario": str(scenario_path),
            "scenario_sha256": scenario_sha,
            "exsim": args.exsim,
            "exsim_version": version,
            "grid": [{"name": name, "values": values} for name, values in grid],
            "sets": args.fixed,
            "points": plan(grid, read_old_manifest(sweep_dir), sweep_dir, scenario_sha, version, args.fixed),
        }
        atomic.write_json(sweep_dir / results.MANIFEST_NAME, manifest)
        pending = [p for p in manifest["points"] if p["status"] != "ok"]
        reused = len(manifest["points"]) - len(pending)
        if reused:
            print(f"run_sweep: {reused} finished point(s) reused, {len(pending)} to run", file=sys.stderr)
        progress = Progress(len(pending))
        try:
            futures = {pool.submit(args.exsim, str(scenario_path), scenario_path.name, scenario_text,
                                   {**args.fixed, **entry["overrides"]}): entry for entry in pending}
            for future in pool.as_completed(futures):
                entry = futures[future]
                try:
                    returncode, stdout, stderr = future.result()
                    status, error = outcome(returncode, stdout, stderr)
                except Exception as e:  # the run could not even start (no exsim on a worker, worker lost)
                    status, error = "failed", f"{type(e).__name__}: {e}"
                if status == "ok":
                    # Result file first, manifest second: a kill in between only costs a rerun.
                    atomic.write_text(sweep_dir / entry["file"], stdout)
                entry.update(status=status, error=error)
                atomic.write_json(sweep_dir / results.MANIFEST_NAME, manifest)
                progress.update(entry["id"], status)
        except KeyboardInterrupt:
            interrupted = True
            pool.stop()
            atomic.write_json(sweep_dir / results.MANIFEST_NAME, manifest)
        except OSError:  # a result or the manifest could not be written: the other points would fare no better
            pool.stop()
            raise
        finally:
            progress.close()
    finally:
        pool.close()
    return manifest, interrupted


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1] + """
Rerunning the same command resumes: points that succeeded with the same
scenario bytes and exsim version are kept; failed, unfinished and changed
points are run. Ctrl-C kills the running exsim processes and keeps finished
results. Exit status: 0 all points succeeded (and --check passed); 1 a point
failed or --check found a figure beyond tolerance; 2 bad input; 130 interrupted.
See analysis/README.md.""",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", metavar="SCENARIO", help="scenario JSON file")
    parser.add_argument("--grid", action="append", required=True, metavar="NAME=V1,V2,...",
                        help="values of one `exsim run --set` parameter: a flag name "
                             "(rpcs_in_flight_per_channel, data_stream_sender_buffer_size, ...) or a "
                             "JSON path into the scenario (cluster.rtt_us, exchanges[0].rows_total); "
                             "repeat for more parameters, the sweep runs their cartesian product")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="sets",
                        help="a fixed setting for every point, as `exsim run --set` (not a grid axis, so not on "
                             "the report's labels); changing it reruns every point; repeat for more")
    parser.add_argument("--jobs", type=int, default=os.cpu_count(),
                        help="points run at once (with --dask local: worker threads); default: number of CPUs")
    parser.add_argument("--out", metavar="DIR", help="sweep directory (default: sweeps/SCENARIO_STEM)")
    parser.add_argument("--exsim", metavar="PATH",
                        default=exsim_runner.default_exsim(),
                        help="exsim binary (default: $EXSIM, else build/exsim in the repository); "
                             "with --dask it must exist at this path on every worker")
    parser.add_argument("--dask", metavar="ADDRESS|local",
                        help="run points on the Dask scheduler at ADDRESS (e.g. tcp://host:8786), "
                             "or on a LocalCluster started here with 'local'")
    parser.add_argument("--check", metavar="BASELINE",
                        help="after the sweep, compare it with this baseline as analysis/regress.py does")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs: must be at least 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    # `kill PID` stops as cleanly as Ctrl-C does.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        grid = parse_grid(args.grid)
        args.fixed = parse_sets(args.sets, grid)
        scenario_path = Path(args.scenario)
        try:
            if scenario_path.exists() and not scenario_path.is_file():  # /dev/urandom is read for ever
                raise UsageError(f"{scenario_path}: cannot read scenario: not a regular file")
            scenario_bytes = scenario_path.read_bytes()
            scenario_bytes.decode("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise UsageError(f"{scenario_path}: cannot read scenario ({e})") from None
        sweep_dir = Path(args.out or Path("sweeps") / scenario_path.stem)
        created = not sweep_dir.exists()
        try:
            (sweep_dir / results.POINTS_DIR).mkdir(parents=True, exist_ok=True)
            lock = lock_sweep_dir(sweep_dir)
            atomic.remove_stale_temporaries(sweep_dir)
            atomic.remove_stale_temporaries(sweep_dir / results.POINTS_DIR)
        except OSError as e:
            raise UsageError(f"{sweep_dir}: cannot write the sweep there: {e.strerror or e}") from None
        try:
            manifest, interrupted = sweep(args, grid, scenario_path, scenario_bytes, sweep_dir)
        except UsageError:
            if created and not (sweep_dir / results.MANIFEST_NAME).exists():
                shutil.rmtree(sweep_dir, ignore_errors=True)  # refused before any point: leave no empty folder
            raise
        except OSError as e:  # a full disk, a folder made read-only meanwhile
            raise UsageError(f"{e.filename or sweep_dir}: cannot write the sweep: {e.strerror or e}; finished "
                             "points are kept, rerun the same command to resume") from None
    except UsageError as e:
        print(f"run_sweep: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # before any point was started: nothing to keep
        print("run_sweep: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED

    points = results.load_points(sweep_dir, manifest)
    try:
        atomic.write_text(sweep_dir / results.CSV_NAME, results.results_csv(manifest, points))
    except OSError as e:
        print(f"run_sweep: {sweep_dir / results.CSV_NAME}: cannot write: {e.strerror or e}; the points are kept, "
              "rerun the same command to write it", file=sys.stderr)
        return EXIT_USAGE
    lock.close()

    counts = {s: sum(p.status == s for p in points) for s in ("ok", "failed", "pending")}
    for p in points:
        if p.status == "failed":
            print(f"run_sweep: point {p.id} failed: {p.error}", file=sys.stderr)
    print(f"{sweep_dir}: {len(points)} points: {counts['ok']} ok, {counts['failed']} failed, "
          f"{counts['pending']} not run")
    if counts["ok"] and not interrupted:
        print(f"run_sweep: next: analysis/report.py {sweep_dir} --output {sweep_dir / 'report.html'} "
              f"(runtime against memory, what is bound where; --memory-budget-mb N to mark a budget)",
              file=sys.stderr)
    if interrupted:
        print("run_sweep: interrupted; finished points are kept, rerun the same command to resume",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    status = EXIT_OK if counts["ok"] == len(points) else EXIT_FAILED
    if args.check:
        try:
            passed = regress.check(sweep_dir, args.check)
        except regress.BaselineError as e:
            print(f"run_sweep: --check: {e}", file=sys.stderr)
            return EXIT_USAGE
        status = status if passed else EXIT_FAILED
    return status


if __name__ == "__main__":
    sys.exit(main())
