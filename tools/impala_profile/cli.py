"""The `exsim profile import`, `exsim compare` and `exsim diff` commands (exsim execs
`/usr/bin/python3 -P -m tools.impala_profile ...` with the source directory on PYTHONPATH).

Exit status: 0 success, 2 bad input or a missing dependency (the message says which).
"""

import argparse
import math
import os
import sys

from analysis import results_diff
from common import atomic, exsim_runner
from common.tables import json_text

from . import compare
from .decode import read_profiles
from .model import build_query
from .scale import scale_data
from .to_scenario import build_scenario, narrow_scans, retarget, select_queries
from .tree import ProfileError

USAGE = """\
exsim profile import PROFILE... [--output SCENARIO] [--query ID] [--executors N]
                     [--scale-data F [--scale-table TABLE=F]...]
exsim compare RESULTS PROFILE... [--format text|json|csv] [--query ID] [--full | --changed [TOL] | --top N] [--output FILE]
exsim diff A.json B.json [--format text|json|csv] [--full | --changed [TOL] | --top N] [--output FILE]
exsim diff A.json B.json --rel-tol X [--ignore DOTTED.PATH]... (exit 0: identical or within X, 1: different)"""

EXIT_BAD_INPUT = 2


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse would print its own usage and exit 2
        raise UsageError(f"{self.prog}: {message} (see exsim --help)")


def _executors(text):
    """--executors: ASCII digits only (int() would read '٣' or ' 3'), within the simulator's range of
    cluster.executors (its parameter table says which)."""
    try:
        row = exsim_runner.parameter_rows()["cluster"]["executors"]
    except exsim_runner.ExsimError as e:
        raise UsageError(f"--executors: cannot read the simulator's range of cluster.executors: {e}") from None
    low, high = int(row["min"]), int(row["max"])
    if not (text.isascii() and text.isdigit()) or len(text) > 7 or not low <= int(text) <= high:
        raise UsageError(f"--executors {text[:40]!r}: expected a number of executors from {low} to {high}, in the "
                         "digits 0-9 (the simulator's limit of cluster.executors)")
    return int(text)


def _factor(text, option):
    try:
        f = float(text)
    except ValueError:
        f = None
    if f is None or not math.isfinite(f) or f <= 0 or f > 1e6:
        raise UsageError(f"{option} {text[:40]!r}: expected a factor > 0 and at most 1e6 (2 for twice the data)")
    return f


def _scale_factor(text):
    return _factor(text, "--scale-data")


def _table_factor(text):
    """--scale-table TABLE=F: a table whose data grows by F instead of --scale-data's factor."""
    name, eq, value = text.partition("=")
    if not eq or not name.strip():
        raise UsageError(f"--scale-table {text[:40]!r}: expected TABLE=FACTOR, e.g. tpcds.date_dim=1 for a table "
                         "that does not grow with the data")
    return name.strip(), _factor(value, f"--scale-table {name.strip()}=")


def _parsers():
    imp = Parser(prog="exsim profile import", add_help=False)
    imp.add_argument("profile", nargs="+")
    imp.add_argument("--output", "-o")
    imp.add_argument("--query")
    imp.add_argument("--executors", type=_executors)
    imp.add_argument("--scale-data", type=_scale_factor)
    imp.add_argument("--scale-table", action="append", default=[], type=_table_factor)
    cmp_ = Parser(prog="exsim compare", add_help=False)
    cmp_.add_argument("results")
    cmp_.add_argument("profile", nargs="+")
    cmp_.add_argument("--format", choices=["text", "json", "csv"], default="text")
    cmp_.add_argument("--query")
    cmp_.add_argument("--output", "-o")
    cmp_.add_argument("--changed", nargs="?", type=float, const=0.05, default=None)
    cmp_.add_argument("--top", type=int, default=None)
    cmp_.add_argument("--full", action="store_true")
    dif = Parser(prog="exsim diff", add_help=False)
    dif.add_argument("a")
    dif.add_argument("b")
    dif.add_argument("--format", choices=["text", "json", "csv"], default="text")
    dif.add_argument("--output", "-o")
    dif.add_argument("--rel-tol", type=float, default=None)
    dif.add_argument("--ignore", action="append", default=[])
    dif.add_argument("--changed", nargs="?", type=float, const=0.05, default=None)
    dif.add_argument("--top", type=int, default=None)
    dif.add_argument("--full", action="store_true")
    return imp, cmp_, dif


def _emit(text, output):
    if output:
        try:
            atomic.write_text(output, text)
        except OSError as e:
            raise UsageError(f"{output}: cannot write: {e.strerror}") from None
    else:
        sys.stdout.write(text)


# What a profile with the right shape but wrong contents (a string where a number belongs, a
# missing child) raises inside the model: reported as a malformed profile, not a traceback.
MALFORMED = (KeyError, TypeError, ValueError, AttributeError, IndexError, ZeroDivisionError, RecursionError,
             StopIteration, ArithmeticError)


def _malformed(path, e):
    return ProfileError(f"{path}: malformed profile: {type(e).__name__}: {e}"[:500])


def _read_queries(path):
    try:
        return [build_query(d) for d in read_profiles(path)]
    except MALFORMED as e:
        raise _malformed(path, e) from None


def _files(paths):
    """(file, from_folder) for every PROFILE argument: a file as given, a folder as every file under it
    (sorted, hidden ones left out)."""
    out = []
    for path in paths:
        if not os.path.isdir(path):
            out.append((path, False))
            continue
        found = []
        for top, dirs, names in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            found += [os.path.join(top, n) for n in sorted(names) if not n.startswith(".")]
        if not found:
            raise ProfileError(f"{path}: an empty folder: no profile to import")
        out += [(f, True) for f in found]
    return out


class Inputs:
    """The queries of every PROFILE argument (a file, or a folder of them) as one workload: `label`
    names them in messages, `source` in the scenario; a query met again (the same profile in another
    form, or given twice) is read once; a file of a folder that is not a profile is listed in
    `unread`, while a file named on the command line must be one."""

    def __init__(self, paths):
        self.paths = list(paths)
        self.label = self.paths[0] if len(self.paths) == 1 else f"{self.paths[0]} (and {len(self.paths) - 1} more)"
        self.queries, self.unread, read = [], [], []
        seen = {}
        for path, from_folder in _files(self.paths):
            try:
                queries = _read_queries(path)
            except ProfileError as e:
                if not from_folder:
                    raise
                self.unread.append({"what": f"file {path}", "why": f"not read as an Impala profile: {e}"[:300]})
                continue
            read.append(path)
            for q in queries:
                if q.id in seen:
                    q.duplicate_of = seen[q.id]
                else:
                    seen[q.id] = q.where
                self.queries.append(q)
        if not read:
            raise ProfileError(f"{self.label}: no file there reads as an Impala profile "
                               f"({len(self.unread)} tried: {self.unread[0]['why'] if self.unread else ''})")
        self.source = read[0] if len(read) == 1 else read

    def select(self, query_id):
        unique = [q for q in self.queries if not q.duplicate_of]
        chosen, skipped = select_queries(unique, self.label, query_id)
        return chosen, skipped + [q for q in self.queries if q.duplicate_of]


def _check_with_exsim(text, profile):
    """What import writes must validate: a profile whose values exsim refuses (a negative time, a
    counter of 1e308) is an input error here, not a scenario that fails later. Uses $EXSIM (exsim
    sets it to itself when it runs this tool), else build/exsim; without either, nothing to check with."""
    exsim = exsim_runner.default_exsim()
    if not os.access(exsim, os.X_OK):
        return
    code, _, stderr = exsim_runner.run_text(exsim, "imported.json", text, verb="validate", label="(imported)")
    if code != 0:
        lines = [line.removeprefix("exsim: ") for line in stderr.strip().splitlines()]
        more = f" (and {len(lines) - 1} more)" if len(lines) > 1 else ""
        raise ProfileError(f"{profile}: the scenario made from this profile is not valid: "
                           f"{lines[0] if lines else f'exit status {code}'}{more}")


def cmd_import(args):
    inputs = Inputs(args.profile)
    chosen, skipped = inputs.select(args.query)
    try:
        scenario = build_scenario(chosen, inputs.source, skipped)
        scenario["provenance"]["ignored"] += inputs.unread
        if args.executors is not None and args.executors != scenario["cluster"]["executors"]:
            profiled = scenario["cluster"]["executors"]
            notes = retarget(scenario, args.executors)
            scenario["provenance"]["retargeted"] = {
                "profiled_daemons": profiled, "executors": args.executors,
                "how": "fragments pinned to executors of the profiled cluster re-placed as Impala's scheduler "
                       "places them (scan fragments on the executors that get their scan ranges, interior "
                       "fragments with their leftmost input, join builds with their join, the root on the "
                       "coordinator); fragments that scale with cluster.executors unchanged; the measured "
                       "'expected' values are the profiled cluster's",
                "fragments": notes}
        if args.scale_table and args.scale_data is None:
            raise UsageError("--scale-table: only with --scale-data (the factor of the other tables)")
        if args.scale_data is not None:
            tables = dict(args.scale_table)
            scenario["provenance"]["scaled_data"] = scale_data(scenario, {q.id: q for q in chosen},
                                                               args.scale_data, tables)
        # Only on a cluster larger than the one each query was profiled on.
        n = scenario["cluster"]["executors"]
        daemons = {q.id: len(q.hosts) for q in chosen}
        narrow = {name: scans for name, scans in narrow_scans(scenario).items()
                  if n > daemons.get(name, n) and args.scale_data is None}
        if narrow:
            scenario["provenance"]["narrow_scans"] = {
                name: "its scans run on fewer executors than the %d of the cluster: %s; the profile's data has no more "
                      "scan ranges, so a cluster larger than the profiled one speeds this query up little (its "
                      "data at a larger scale would have more)" % (
                          n, ", ".join(f"{fid} on {k} ({r} scan range{'s' if r != 1 else ''})" for fid, k, r in scans))
                for name, scans in narrow.items()}
    except MALFORMED as e:
        raise _malformed(inputs.label, e) from None
    _check_with_exsim(json_text(scenario), inputs.label)
    _emit(json_text(scenario), args.output)
    if args.output:
        q = scenario["queries"]
        n_x = sum(len((e.get("parallel") or e)["exchanges"]) for e in q)
        sys.stderr.write(f"exsim profile import: {args.output}: {len(q)} query(ies), {n_x} exchange(s), "
                         f"{scenario['cluster']['executors']} executor(s); "
                         f"{len(scenario['provenance']['ignored'])} item(s) in provenance.ignored"
                         + (f" ({len(inputs.unread)} file(s) not read as profiles)" if inputs.unread else "")
                         + (", the queries run one after another (query_order sequential)" if len(q) > 1 else "")
                         + "".join(f"\nexsim profile import: query {name}: {why}"
                                   for name, why in scenario["provenance"].get("narrow_scans", {}).items())
                         + (f"\nexsim profile import: at {args.scale_data:g}x the data (provenance.scaled_data): "
                            + scenario["provenance"]["scaled_data"]["summary"] if args.scale_data is not None else "")
                         + f"\nexsim profile import: next: exsim run {args.output} --output RESULTS.json, then "
                         f"exsim compare RESULTS.json {' '.join(args.profile)} (does the model reproduce the run?)\n")


def cmd_compare(args):
    results = results_diff.load_results(args.results)
    inputs = Inputs(args.profile)
    chosen, _ = inputs.select(args.query)
    if args.top is not None and args.top < 1:
        raise UsageError(f"--top {args.top}: expected a number of counters >= 1")
    if args.changed is not None and not args.changed >= 0:
        raise UsageError(f"--changed {args.changed}: expected a relative tolerance >= 0")
    try:
        compare.check_related(results, chosen, args.results, inputs.label)
    except compare.Mismatch as e:
        raise UsageError(str(e)) from None
    try:
        profiled = build_scenario(chosen, inputs.source)["cluster"]
    except Exception:  # noqa: BLE001 - without it, compare still runs; only the cluster check is lost
        profiled = None
    try:
        doc = compare.compare(results, chosen, profiled)
        doc = compare.select(doc, args.changed, args.top)
    except MALFORMED as e:
        raise _malformed(f"{args.results} or {inputs.label}", e) from None
    full = args.full or args.changed is not None or args.top is not None
    _emit(compare.render(doc, args.format, args.results, inputs.label, full=full), args.output)


def cmd_diff(args):
    a = results_diff.load_results(args.a)
    b = results_diff.load_results(args.b)
    results_diff.check_same_kind(a, b, args.a, args.b)
    if args.rel_tol is not None:
        if not args.rel_tol >= 0:
            raise UsageError(f"--rel-tol {args.rel_tol}: expected a relative tolerance >= 0")
        same, text = results_diff.agreement(a, b, args.rel_tol, args.ignore)
        _emit(text + "\n", args.output)
        return 0 if same else 1
    if args.ignore:
        raise UsageError("--ignore: only with --rel-tol (the verdict mode)")
    if args.top is not None and args.top < 1:
        raise UsageError(f"--top {args.top}: expected a number of figures >= 1")
    if args.changed is not None and not args.changed >= 0:
        raise UsageError(f"--changed {args.changed}: expected a relative tolerance >= 0")
    rows = results_diff.diff(a, b)
    head = results_diff.headline(rows)
    rows = results_diff.select(rows, args.changed, args.top)
    full = args.full or args.changed is not None or args.top is not None
    _emit(results_diff.render(rows, args.a, args.b, a, b, args.format, head, full=full), args.output)
    return 0


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    imp, cmp_, dif = _parsers()
    try:
        if argv[:2] == ["profile", "import"]:
            cmd_import(imp.parse_args(argv[2:]))
        elif argv[:1] == ["compare"]:
            cmd_compare(cmp_.parse_args(argv[1:]))
        elif argv[:1] == ["diff"]:
            return cmd_diff(dif.parse_args(argv[1:]))
        else:
            raise UsageError(f"{' '.join(argv[:2]) or '(nothing)'}: unknown command; expected one of:\n{USAGE}")
    except UsageError as e:
        sys.stderr.write(f"exsim: {e}\n")
        return EXIT_BAD_INPUT
    except ImportError as e:  # python3-thrift (the only dependency outside the standard library)
        sys.stderr.write(f"exsim: {e}\n")
        return EXIT_BAD_INPUT
    except Exception as e:  # noqa: BLE001 - every input error class of the package, named below
        if isinstance(e, (ProfileError, results_diff.ResultsError)):
            sys.stderr.write(f"exsim: {e}\n")
            return EXIT_BAD_INPUT
        raise
    return 0

