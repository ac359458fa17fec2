"""Loading a sweep directory: the one place that knows its layout.

run_sweep.py writes a sweep directory; report.py and regress.py read it. All
of them go through this module so the layout is defined once:

    SWEEP_DIR/manifest.json    grid, scenario hash, exsim version, and per point
                               its overrides, status, error and result file
    SWEEP_DIR/points/*.json    exsim's results JSON, one file per point
    SWEEP_DIR/results.csv      one row per point (see results_csv)
"""

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path

from common import exsim_runner
from common.tables import csv_text

MANIFEST_NAME = "manifest.json"
POINTS_DIR = "points"
CSV_NAME = "results.csv"
MANIFEST_VERSION = 1


# What run_sweep.py writes; report.py and regress.py read nothing else from the manifest.
MANIFEST_SCHEMA = {
    "type": "object",
    "required": ["manifest_version", "grid", "points", "scenario_sha256", "exsim_version"],
    "properties": {
        "grid": {"type": "array", "items": {
            "type": "object", "required": ["name", "values"],
            "properties": {"name": {"type": "string"}, "values": {"type": "array", "items": {"type": "string"}}}}},
        "points": {"type": "array", "items": {
            "type": "object", "required": ["id", "overrides", "status", "file"],
            "properties": {
                "id": {"type": "string"},
                "overrides": {"type": "object", "additionalProperties": {"type": "string"}},
                "status": {"enum": ["ok", "failed", "pending"]},
                "error": {"type": "string"},
                "file": {"type": "string", "pattern": r"^[^/\\]+(/[^/\\]+)*$", "not": {"pattern": r"(^|/)\.\.(/|$)"}},
            }}},
        "scenario_sha256": {"type": "string"},
        "exsim_version": {"type": "string"},
    },
}


def _typed(section, names):
    """{name: {"type": ...}} of fields of a results section ("exchange", "summary"), typed as the
    simulator's results field table types them (exsim fields)."""
    rows = exsim_runner.field_rows()[section]
    return {name: {"type": rows[name]["type"]} for name in names}


EXCHANGE_FIGURES = ["id", "query", "partitioning", "status", "k", "buffer_bytes", "bytes_sent", "duration_s",
                    "memory_estimate_bytes", "slowest_sender_blocked_s", "bound"]
SUMMARY_FIGURES = ["makespan_s", "memory_estimate_bytes_total", "slowest_sender_blocked_s_total"]
@functools.cache
def point_schema():
    """What report.py and regress.py read from a point's results (the whole format:
    docs/results.schema.json), the figures typed by the simulator's field table."""
    return {
        "type": "object",
        "required": ["summary"],
        "properties": {"summary": {"type": "object"}},
        "if": {"not": {"properties": {"kind": {"const": "remote_scan"}}, "required": ["kind"]}},
        "then": {
            "required": ["settings", "exchanges", "summary"],
            "properties": {
                "settings": {"type": "object", "properties": {
                    "query_order": {"type": "string"},
                    "flags": {"type": "object", "properties": {
                        "rpcs_in_flight_per_channel": {"type": "integer"},
                        "data_stream_sender_buffer_size": {"type": "integer"}}}}},
                "exchanges": {"type": "array", "items": {
                    "type": "object", "required": EXCHANGE_FIGURES,
                    "properties": _typed("exchange", EXCHANGE_FIGURES)}},
                "summary": {
                    "type": "object", "required": SUMMARY_FIGURES,
                    "properties": _typed("summary", SUMMARY_FIGURES + ["runtime_s_total"])},
            },
        },
    }


class SweepError(Exception):
    """A sweep directory or a file in it is missing or malformed; the message says which."""


@dataclass(frozen=True)
class Point:
    """One configuration of a sweep: its overrides and, once run, its results."""

    id: str
    overrides: dict  # grid parameter -> value as passed to `exsim --set`, in grid order
    status: str  # "ok", "failed" or "pending" (not run yet, or killed while running)
    error: str
    file: str  # result file, relative to the sweep directory
    result: dict | None  # parsed results JSON when status is "ok"

    @property
    def summary(self):
        return self.result["summary"]


def _no_constant(name):
    raise ValueError(f"{name} is not a number JSON allows")


def _finite_float(text):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is beyond a double's range")
    return value


def read_json(path):
    """Parse a JSON file, turning the usual failures into a SweepError naming the file.

    NaN, Infinity and numbers beyond a double's range are refused: exsim never writes them, and a
    NaN compares as neither larger nor smaller, so a figure or tolerance of NaN would pass any check.
    """
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f, parse_constant=_no_constant, parse_float=_finite_float)
    except FileNotFoundError:
        raise SweepError(f"{path}: no such file") from None
    except (OSError, ValueError, RecursionError) as e:
        raise SweepError(f"{path}: cannot read JSON: {e}") from None


def load_manifest(sweep_dir):
    """Read and sanity-check SWEEP_DIR/manifest.json."""
    path = Path(sweep_dir) / MANIFEST_NAME
    if not path.exists():
        raise SweepError(f"{sweep_dir}: not a sweep directory (no {MANIFEST_NAME}; run run_sweep.py first)")
    manifest = read_json(path)
    version = manifest.get("manifest_version") if isinstance(manifest, dict) else None
    if version != MANIFEST_VERSION:
        raise SweepError(f"{path}: manifest_version: expected {MANIFEST_VERSION}, got {version!r}")
    for key in ("grid", "points", "scenario_sha256", "exsim_version"):
        if key not in manifest:
            raise SweepError(f"{path}: missing key {key!r}")
    _validate(manifest, MANIFEST_SCHEMA, path)
    names = grid_names(manifest)
    for i, entry in enumerate(manifest["points"]):
        missing = [name for name in names if name not in entry["overrides"]]
        if missing:
            raise SweepError(f"{path}: $.points[{i}].overrides: expected a value for every grid name, "
                             f"missing {', '.join(missing)}")
    return manifest


def _validate(document, schema, path):
    """A SweepError naming the file and the JSON path where `document` breaks `schema`."""
    import jsonschema  # Debian's python3-jsonschema; imported here so that the module loads without it

    try:
        jsonschema.validate(document, schema)
    except jsonschema.ValidationError as e:
        raise SweepError(f"{path}: {e.json_path}: {e.message[:200]}") from None


def check_results(result, path):
    """The parts of a results file that the sweep tools read, as exsim writes them, or a SweepError
    naming the file and the JSON path."""
    _validate(result, point_schema(), path)


def grid_names(manifest):
    """Grid parameter names in the order they were given on the command line."""
    return [axis["name"] for axis in manifest["grid"]]


def load_points(sweep_dir, manifest=None):
    """Every point of the sweep in manifest order, with results parsed for finished ones."""
    sweep_dir = Path(sweep_dir)
    manifest = manifest or load_manifest(sweep_dir)
    names = grid_names(manifest)
    points = []
    for entry in manifest["points"]:
        result = None
        if entry["status"] == "ok":
            result = read_json(sweep_dir / entry["file"])
            if not isinstance(result, dict) or not isinstance(result.get("summary"), dict):
                raise SweepError(f"{sweep_dir / entry['file']}: results JSON has no 'summary' object")
            check_results(result, sweep_dir / entry["file"])
        points.append(Point(
            id=entry["id"],
            overrides={name: entry["overrides"][name] for name in names},
            status=entry["status"],
            error=entry.get("error", ""),
            file=entry["file"],
            result=result,
        ))
    return points


def finished(points):
    """The points that ran successfully; the others have no figures to show."""
    return [p for p in points if p.status == "ok"]


def numeric_figures(summary):
    """The numeric entries of a summary object.

    Taken generically rather than from a fixed list so that figures a later
    exsim adds (runtime_s_total, ...) flow into the CSV and the regression
    check without touching this code. Booleans are not figures.
    """
    return {k: v for k, v in summary.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def runtime_s(summary):
    """The workload's runtime: runtime_s_total where exsim reports it, else the makespan."""
    return summary["runtime_s_total"] if "runtime_s_total" in summary else summary["makespan_s"]


def memory_peak_query(result):
    """Largest sum of the memory estimates of one query's exchanges (exchanges naming no query count
    as one query)."""
    per_query = {}
    for x in result["exchanges"]:
        per_query[x["query"]] = per_query.get(x["query"], 0) + x["memory_estimate_bytes"]
    return max(per_query.values()) if per_query else 0


def memory_estimate_bytes(result):
    """The memory a configuration needs at once: with query_order "sequential" the queries run one
    after another, so the peak query's estimate; otherwise every exchange's, summed."""
    if result.get("settings", {}).get("query_order") == "sequential":
        return memory_peak_query(result)
    return result["summary"]["memory_estimate_bytes_total"]


def results_csv(manifest, points):
    """results.csv as text: one row per point, one column per grid parameter and figure.

    Plain RFC 4180 CSV with a header row, so pandas.read_csv and spreadsheets
    read it as is. Points that did not finish have empty figure cells.
    """
    figures = sorted({name for p in finished(points) for name in numeric_figures(p.summary)})
    rows = []
    for p in points:
        values = numeric_figures(p.summary) if p.result else {}
        rows.append([csv_cell(p.id), *map(csv_cell, p.overrides.values()), p.status,
                     *(values.get(f, "") for f in figures)])
    return csv_text(["point", *grid_names(manifest), "status", *figures], rows)


def csv_cell(text):
    """A text cell a spreadsheet shows as text: one starting with = + - @ (or a tab or carriage return)
    would be read as a formula, so it gets a leading apostrophe, unless it is a plain number (-1)."""
    if isinstance(text, str) and text[:1] in ("=", "+", "-", "@", "\t", "\r"):
        try:
            float(text)
            return text
        except ValueError:
            return "'" + text
    return text
