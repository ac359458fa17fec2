"""The one place that runs the exsim binary: which binary, its command line, its version, its
tables and its rules.

Every Python entry point that simulates (run_sweep.py, tools/tpcds/calibrate.py, the tests)
goes through here, so that the binary is found the same way ($EXSIM, else build/exsim) and a
failed run is reported the same way (ExsimError with exsim's own message).

    from common import exsim_runner
    results = exsim_runner.simulate(exsim_runner.default_exsim(), "scenarios/default.json",
                                    "out/r.json", sets=["rpcs_in_flight_per_channel=2"])
"""

import atexit
import functools
import json
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


class ExsimError(Exception):
    """exsim could not be run, or exited with a non-zero status (the message is its stderr)."""


def default_exsim():
    """The binary to run: $EXSIM if set, else build/exsim of this repository."""
    return os.environ.get("EXSIM") or str(REPO / "build" / "exsim")


def command(exsim, scenario, sets=(), output=None, jobs=None, extra=(), verb="run"):
    """argv of `exsim run SCENARIO [--set NAME=VALUE ...] [--output FILE] [--jobs N] [extra ...]`
    (verb="validate": `exsim validate SCENARIO [--set ...]`).

    sets: iterable of "NAME=VALUE" strings, or a mapping NAME -> VALUE."""
    if hasattr(sets, "items"):
        sets = [f"{name}={value}" for name, value in sets.items()]
    argv = [str(exsim), verb, str(scenario)]
    for s in sets:
        argv += ["--set", str(s)]
    if output is not None:
        argv += ["--output", str(output)]
    if jobs is not None:
        argv += ["--jobs", str(jobs)]
    return argv + [str(e) for e in extra]


def run(argv, on_start=None):
    """Run an exsim command line; return (exit status, stdout, stderr) as text.

    on_start receives the child process as soon as it exists, so that a pool can kill it."""
    try:
        with subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) as proc:
            if on_start:
                on_start(proc)
            stdout, stderr = proc.communicate()
    except OSError as e:
        raise ExsimError(f"cannot run {argv[0]} ({e}); build exsim or set $EXSIM") from None
    return proc.returncode, stdout, stderr


_COPY_PREFIX = "exsim_runner."


def remove_orphaned_copies():
    """Delete the scenario copies of processes that no longer run: a sweep killed with SIGKILL
    cannot remove its own, so the next run does (each copy's folder is named after its owner's pid)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{_COPY_PREFIX}*.*"):
        pid = folder.name[len(_COPY_PREFIX):].split(".", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except OSError:  # alive, under another user
            pass


def run_text(exsim, scenario_name, scenario_text, sets=(), on_start=None, label=None, verb="run", extra=()):
    """Run a scenario given as text: written under its own file name (exsim names the scenario
    after its file) in a temporary directory, so that a remote worker needs no shared files.
    Returns (exit status, stdout, stderr); in stderr the temporary path is replaced by label
    (default: the file name), so that messages name the user's file."""
    remove_orphaned_copies()
    with tempfile.TemporaryDirectory(prefix=f"{_COPY_PREFIX}{os.getpid()}.") as tmp:
        path = Path(tmp) / scenario_name
        path.write_text(scenario_text, encoding="utf-8")
        returncode, stdout, stderr = run(command(exsim, path, sets, verb=verb, extra=extra), on_start=on_start)
    return returncode, stdout, stderr.replace(str(path), label or scenario_name)


def simulate(exsim, scenario, output, sets=(), jobs=None, extra=("--no-progress",)):
    """Run a scenario file to a results file and return the parsed results; ExsimError on failure."""
    returncode, _, stderr = run(command(exsim, scenario, sets, output=output, jobs=jobs, extra=extra))
    if returncode != 0:
        raise ExsimError(stderr.strip() or f"{exsim} exited with status {returncode} and no message")
    with open(output, "r", encoding="utf-8") as f:
        return json.load(f)


# The parameter table as `exsim params --format json` gives it, committed beside the JSON Schema and
# regenerated with it (tools/parameter_docs.py), so that Python which runs without a built simulator
# reads the same defaults; a test checks that it equals the simulator's.
PARAMETERS_JSON = REPO / "scenarios" / "parameters.json"


def table_text(exsim, command):
    """The text of `exsim COMMAND --format json` (params, fields: the simulator's tables); ExsimError
    if exsim cannot run or fails."""
    argv = [str(exsim), command, "--format", "json"]
    status, out, err = run(argv)
    if status != 0:
        raise ExsimError(f"{' '.join(argv)}: {err.strip() or f'exit status {status}'}")
    return out


def parameters_text(exsim):
    """The text of `exsim params --format json`."""
    return table_text(exsim, "params")


@functools.cache
def parameter_rows(exsim=None):
    """{section: {name: row}} of the simulator's parameter table (`exsim params --format json` of
    `exsim`, else default_exsim(); when that binary is not built, the committed copy of its output,
    PARAMETERS_JSON), read once per binary: each row's type, unit, default, check, scope ("daemon",
    "exchange", "cluster", ...) and the struct it sets ("binds"). Python reads a parameter's default
    from here, never from a constant of its own. ExsimError if a given exsim cannot run."""
    return _table_rows(exsim, "params", PARAMETERS_JSON, "parameters")


def parameter_default(section, name, exsim=None):
    """The table's default of `name` in `section` ("flags", "cluster", "exchange", ...)."""
    return parameter_rows(exsim)[section][name]["default"]


# The results field table as `exsim fields --format json` gives it, committed beside the results'
# JSON Schema and regenerated with it (tools/parameter_docs.py), for Python without a built simulator.
FIELDS_JSON = REPO / "docs" / "fields.json"


def fields_text(exsim):
    """The text of `exsim fields --format json`."""
    return table_text(exsim, "fields")


@functools.cache
def field_rows(exsim=None):
    """{section: {name: row}} of the simulator's results field table (`exsim fields --format json` of
    `exsim`, else default_exsim(); when that binary is not built, the committed copy FIELDS_JSON),
    sections and rows in the table's order: each field's path in the results ("exchanges[]",
    "queries[].breakdown", ...), type, unit, meaning, the counters it reads, and for a part of the
    critical path its label. Python reads results' names, units and labels from here, never from a
    list of its own. ExsimError if a given exsim cannot run."""
    return _table_rows(exsim, "fields", FIELDS_JSON, "fields")


@functools.cache
def _table_doc(exsim, command, committed):
    """The document of `exsim COMMAND --format json` (exsim, else default_exsim(); the committed copy
    when that binary is not built), read once per binary."""
    if exsim is None and shutil.which(default_exsim()) is None:
        text = committed.read_text(encoding="utf-8")
    else:
        text = table_text(exsim or default_exsim(), command)
    return json.loads(text)


def _table_rows(exsim, command, committed, key):
    """{section: {name: row}} of the rows under `key` of `exsim COMMAND --format json`."""
    rows = {}
    for row in _table_doc(exsim, command, committed)[key]:
        rows.setdefault(row["section"], {})[row["name"]] = row
    return rows


# --------------------------------------------------------------------------
# The simulator's rules (`exsim params --format json`, "rules"): Python asks, never restates
# --------------------------------------------------------------------------

def rules(exsim=None):
    """The "rules" object of `exsim params --format json` (input/rules.hpp): each sender kind's
    traits and send modes, and the byte layout of a batch."""
    return _table_doc(exsim, "params", PARAMETERS_JSON)["rules"]


def partitioning(name, exsim=None):
    """The simulator's row of a sender kind (its scenario and plan name, e.g. "HASH_PARTITIONED"):
    {"name", "routes_rows", "every_receiver", "configured_k", "send_mode": {"one_channel",
    "several_channels"}}. KeyError for a name the simulator does not have."""
    for row in rules(exsim)["partitionings"]:
        if row["name"] == name:
            return row
    raise KeyError(f"{name}: not a sender kind of the simulator "
                   f"({', '.join(r['name'] for r in rules(exsim)['partitionings'])})")


def partitioning_names(exsim=None):
    """Every sender kind's name, in the simulator's order."""
    return [row["name"] for row in rules(exsim)["partitionings"]]


def send_mode(name, channels, exsim=None):
    """How a sender of kind `name` with `channels` channels turns input batches into RPCs:
    "collectors" (per-channel collectors of routed rows), "whole_batch" or "broadcast"."""
    modes = partitioning(name, exsim)["send_mode"]
    return modes["one_channel" if channels == 1 else "several_channels"]


def batch_bytes(name, exsim=None):
    """A constant of a batch's byte layout: "tuple_offset_bytes" (sent per tuple of each row),
    "tuple_pointer_bytes" (a receiver's accounting per tuple), "collector_max_tuple_bytes"."""
    return rules(exsim)["batch"][name]


# A rule that computes has no committed copy: it is asked of a running `exsim rules RULE`, one per
# process, binary and rule, started at the first question and kept for the next (starting exsim
# costs about 20 ms, a question some microseconds): a JSON array of inputs a line, answered a line.
# The processes and their lock are made at the first question, so that until then this module's
# state pickles: common/dask_client.py sends the module by value to Dask workers, where nothing asks.
_RULES = {}


def _rule_state():
    """(lock, {(pid, exsim, rule): (process, its messages file)}), made at the first call."""
    return _RULES.setdefault("lock", threading.Lock()), _RULES.setdefault("processes", {})


def ask_rule(rule, inputs, exsim=None):
    """The simulator's answers of `rule` ("collector-rows") to `inputs` (a list of its JSON inputs),
    in order, from `exsim rules RULE` of `exsim` (else default_exsim()). ExsimError when that binary
    is not built, or it refuses an input (its message names the input)."""
    exsim = str(exsim or default_exsim())
    key = (os.getpid(), exsim, rule)  # a forked child starts its own: the pipes are its parent's
    lock, processes = _rule_state()
    with lock:
        if key not in processes:
            if shutil.which(exsim) is None:
                raise ExsimError(f"{exsim}: not built; the simulator computes its rule {rule}, which has no "
                                 f"committed copy: build exsim (cmake --preset default && cmake --build build) "
                                 f"or set $EXSIM")
            messages = tempfile.TemporaryFile()  # not a pipe: a long message nobody reads yet would stop it
            try:
                proc = subprocess.Popen([exsim, "rules", rule], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=messages, text=True)
            except OSError as e:
                messages.close()
                raise ExsimError(f"cannot run {exsim} ({e}); build exsim or set $EXSIM") from None
            processes[key] = (proc, messages)
        proc, messages = processes[key]
        try:
            proc.stdin.write(json.dumps(list(inputs)) + "\n")
            proc.stdin.flush()
            answer = proc.stdout.readline()
        except BrokenPipeError:
            answer = ""
        if not answer:  # it stopped: a refused input, or killed
            _stop(processes.pop(key))
            messages.seek(0)
            err = messages.read().decode("utf-8", "replace").strip()
            messages.close()
            raise ExsimError(f"{exsim} rules {rule}: {err or f'exit status {proc.returncode}'}")
    return json.loads(answer)


def _stop(running):
    """End a `exsim rules` (its end of input) and wait for it."""
    proc, _ = running
    try:
        proc.stdin.close()
    except BrokenPipeError:
        pass
    proc.wait()
    proc.stdout.close()


@atexit.register
def _stop_rule_processes():
    """End this process's `exsim rules`."""
    if "processes" not in _RULES:
        return
    lock, processes = _rule_state()
    with lock:
        for key in [k for k in processes if k[0] == os.getpid()]:
            running = processes.pop(key)
            _stop(running)
            running[1].close()


@functools.cache
def _collector_rows(buffer_bytes, fixed_row_bytes, row_bytes, exsim):
    return ask_rule("collector-rows", [[buffer_bytes, fixed_row_bytes, row_bytes]], exsim)[0]


def collector_rows(buffer_bytes, fixed_row_bytes, row_bytes=None, exsim=None):
    """Rows a hash sender's collector holds before it is sent, as the simulator computes them
    (`exsim rules collector-rows`: models/exchange/batch.cpp collector_capacity_rows) for a buffer of
    `buffer_bytes` and rows of `fixed_row_bytes` fixed bytes and `row_bytes` bytes in all (default: the
    fixed bytes), each asked once per binary. ExsimError when no simulator is built."""
    return _collector_rows(buffer_bytes, fixed_row_bytes, fixed_row_bytes if row_bytes is None else row_bytes,
                           str(exsim or default_exsim()))


def cost_keys(unit=None, exsim=None):
    """The keys of a scenario's `costs` (the parameter table's section), in the table's order; with
    `unit`, those in that unit ("ns": the operator classes' CPU per row; "s": per query or fragment)."""
    return [name for name, row in parameter_rows(exsim)["costs"].items() if unit is None or row["unit"] == unit]


def breakdown_parts(exsim=None):
    """The critical path's parts as the results' `breakdown` names them, in the simulator's order:
    {key: label}."""
    return {name: row["label"] for name, row in field_rows(exsim)["breakdown"].items()}


def version(exsim):
    """`exsim --version` without the program name; ExsimError if it cannot be run."""
    try:
        out = subprocess.run([str(exsim), "--version"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise ExsimError(f"cannot run {exsim} --version ({e}); build exsim or pass --exsim / set $EXSIM") from None
    return out.strip().removeprefix("exsim ").strip()
