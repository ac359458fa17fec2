#!/usr/bin/python3
"""Compare a sweep's summary figures with a committed baseline.

exsim is deterministic, so a change in a figure means the model changed. This
check makes every such change visible and fails on those beyond the
tolerance the baseline grants each figure, e.g. in CI after a smoke sweep:

    analysis/regress.py sweeps/hash_5x5 --baseline analysis/baselines/hash_5x5_smoke.json
    analysis/regress.py sweeps/hash_5x5 --baseline ... --update   # accept the new figures

Tolerances live in the baseline file, one per figure, so they can be tuned
there. --update writes the defaults below for new figures and keeps the
tolerances already present:
  - times (names ending in _s or _s_total): 1% relative, at least 1 us, since
    floating-point sums may differ in the last digits across compilers;
  - everything else (counts, bytes, means of counts): exact.
A figure may move by max(abs, rel * |baseline|).
"""

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path

if not __package__:  # run as a script: the repository root on sys.path, as for every entry point
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import jsonschema  # noqa: E402

from analysis import results  # noqa: E402
from common import atomic  # noqa: E402

BASELINE_VERSION = 1
TIME_TOLERANCE = {"rel": 0.01, "abs": 1e-6}
EXACT = {"rel": 0.0, "abs": 0.0}

_TOLERANCE_SCHEMA = {
    "type": "object",
    "properties": {"rel": {"type": "number", "minimum": 0}, "abs": {"type": "number", "minimum": 0}},
    "required": ["rel", "abs"],
    "additionalProperties": False,
}
BASELINE_SCHEMA = {
    "type": "object",
    "required": ["baseline_version", "tolerances", "points"],
    "properties": {
        "baseline_version": {"const": BASELINE_VERSION},
        "tolerances": {"type": "object", "additionalProperties": _TOLERANCE_SCHEMA},
        "points": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["overrides", "summary"],
                "properties": {
                    "overrides": {"type": "object", "additionalProperties": {"type": "string"}},
                    "summary": {"type": "object", "additionalProperties": {"type": "number"}},
                },
            },
        },
    },
}


class BaselineError(Exception):
    """The baseline file, or the sweep it is compared with, cannot be used; the message says why."""


@dataclass(frozen=True)
class Change:
    """One figure of one point that differs from the baseline (or is missing on one side)."""

    point: str
    figure: str
    baseline: float | None
    current: float | None
    allowed: float | None  # largest permitted absolute change; None when not comparable
    beyond: bool  # beyond tolerance: fails the check


def default_tolerance(figure):
    """Tolerance for a figure that the baseline does not list yet (rules in the module docstring)."""
    return dict(TIME_TOLERANCE if figure.endswith(("_s", "_s_total")) else EXACT)


def load_baseline(path):
    """Read and validate a baseline, naming the file and the JSON path of any problem."""
    try:
        baseline = results.read_json(path)
    except results.SweepError as e:
        raise BaselineError(str(e)) from None
    try:
        jsonschema.validate(baseline, BASELINE_SCHEMA)
    except jsonschema.ValidationError as e:
        raise BaselineError(f"{path}: {e.json_path}: {e.message}") from None
    return baseline


def compare(baseline, points):
    """Every difference between the baseline and the sweep's points, in a stable order.

    A baseline point missing from the sweep, or not finished there, fails; so does
    a figure the sweep no longer reports. A figure or point new in the sweep is
    shown but passes: later exsim versions add summary keys.
    """
    tolerances = baseline["tolerances"]
    by_id = {p.id: p for p in points}
    changes = []
    for pid in sorted(baseline["points"].keys() | by_id.keys()):
        expected = baseline["points"].get(pid)
        point = by_id.get(pid)
        if expected is None:
            changes.append(Change(pid, "(point not in baseline)", None, None, None, False))
            continue
        if point is None or point.status != "ok":
            state = "not in sweep" if point is None else point.status
            changes.append(Change(pid, f"(point {state})", None, None, None, True))
            continue
        current = results.numeric_figures(point.summary)
        for figure in sorted(expected["summary"].keys() | current.keys()):
            old, new = expected["summary"].get(figure), current.get(figure)
            if old is None or new is None:
                changes.append(Change(pid, figure, old, new, None, old is not None))
            elif new != old:
                tol = tolerances.get(figure) or default_tolerance(figure)
                allowed = max(tol["abs"], tol["rel"] * abs(old))
                # Written so that a NaN anywhere (figure, baseline, tolerance) fails: NaN compares false.
                within = all(map(math.isfinite, (old, new, allowed))) and abs(new - old) <= allowed
                changes.append(Change(pid, figure, old, new, allowed, not within))
    return changes


def _number(value):
    return "-" if value is None else f"{value:.10g}"


def format_table(changes):
    """A plain-text table, one line per change, columns aligned for reading in a CI log."""
    header = ("point", "figure", "baseline", "current", "change", "change %", "allowed", "verdict")
    rows = [header]
    for c in changes:
        delta = pct = allowed = ""
        if c.baseline is not None and c.current is not None:
            delta = f"{c.current - c.baseline:+.6g}"
            pct = f"{(c.current - c.baseline) / abs(c.baseline) * 100:+.3f}%" if c.baseline else "inf"
            allowed = f"{c.allowed:.6g}"
        if allowed:
            verdict = "MOVED" if c.beyond else "within tolerance"
        else:
            verdict = "MISSING" if c.beyond else "new"
        rows.append((c.point, c.figure, _number(c.baseline), _number(c.current), delta, pct, allowed, verdict))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows)


def _names(items, limit=8):
    items = sorted(set(items))
    shown = ", ".join(items[:limit])
    return shown + (f", ... ({len(items)} in all)" if len(items) > limit else "")


def describe(changes):
    """The differences by kind and by name, one line each: what failed, what moved within tolerance,
    what is new in the sweep and what it no longer has, so that no difference is just a count."""
    kinds = [
        ("beyond tolerance", lambda c: c.beyond and c.allowed is not None),
        ("figures gone from the sweep (fail)", lambda c: c.beyond and c.allowed is None and not c.figure.startswith("(")),
        ("baseline points not finished in the sweep (fail)", lambda c: c.beyond and c.figure.startswith("(")),
        ("moved within tolerance", lambda c: not c.beyond and c.allowed is not None),
        ("new figures, not in the baseline", lambda c: not c.beyond and c.allowed is None
         and not c.figure.startswith("(")),
        ("new points, not in the baseline", lambda c: not c.beyond and c.figure.startswith("(")),
    ]
    lines = []
    for kind, test in kinds:
        selected = [c for c in changes if test(c)]
        if not selected:
            continue
        points = {c.point for c in selected}
        if selected[0].figure.startswith("("):
            lines.append(f"  {kind}: {len(points)} point(s): {_names(points)}")
        else:
            lines.append(f"  {kind}: {len(selected)} figure(s) in {len(points)} point(s): "
                         f"{_names(c.figure for c in selected)}")
    return lines


def check(sweep_dir, baseline_path, out=sys.stdout):
    """Print what moved between the baseline and the sweep; True when nothing moved beyond tolerance."""
    baseline = load_baseline(baseline_path)
    try:
        manifest = results.load_manifest(sweep_dir)
        points = results.load_points(sweep_dir, manifest)
    except results.SweepError as e:
        raise BaselineError(str(e)) from None
    if baseline.get("scenario_sha256") not in (None, manifest["scenario_sha256"]):
        print("note: the sweep's scenario differs from the one the baseline was made from", file=out)
    changes = compare(baseline, points)
    compared = sum(len(p["summary"]) for p in baseline["points"].values())
    moved = [c for c in changes if c.beyond]
    if changes:
        print(format_table(changes), file=out)
    print(f"regress: {len(moved)} figure(s) beyond tolerance, {len(changes) - len(moved)} other "
          f"difference(s), {compared} baseline figure(s) in {len(baseline['points'])} point(s)"
          + (":" if changes else ""), file=out)
    for line in describe(changes):
        print(line, file=out)
    return not moved


def update(sweep_dir, baseline_path):
    """Rewrite the baseline from the sweep, keeping tolerances already tuned in the old one."""
    manifest = results.load_manifest(sweep_dir)
    points = results.load_points(sweep_dir, manifest)
    unfinished = [p.id for p in points if p.status != "ok"]
    if unfinished:
        raise BaselineError(f"{sweep_dir}: points not finished, refusing to bake them in: {', '.join(unfinished)}")
    old_tolerances = load_baseline(baseline_path)["tolerances"] if Path(baseline_path).exists() else {}
    figures = sorted({f for p in points for f in results.numeric_figures(p.summary)})
    atomic.write_json(baseline_path, {
        "baseline_version": BASELINE_VERSION,
        "scenario": manifest["scenario"],
        "scenario_sha256": manifest["scenario_sha256"],
        "exsim_version": manifest["exsim_version"],
        "grid": manifest["grid"],
        "tolerances": {f: old_tolerances.get(f) or default_tolerance(f) for f in figures},
        "points": {p.id: {"overrides": p.overrides, "summary": results.numeric_figures(p.summary)}
                   for p in points},
    })


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Compare a sweep's summary figures with a baseline; exit 1 if any moved beyond "
                    "its tolerance, 0 otherwise, 2 on bad input.",
        epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sweep_dir", metavar="SWEEP_DIR", help="directory written by run_sweep.py")
    parser.add_argument("--baseline", required=True, metavar="FILE", help="baseline JSON (analysis/baselines/NAME.json)")
    parser.add_argument("--update", action="store_true", help="rewrite the baseline from this sweep (atomically)")
    args = parser.parse_args(argv)
    try:
        if args.update:
            update(args.sweep_dir, args.baseline)
            print(f"regress: wrote {args.baseline}")
            return 0
        return 0 if check(args.sweep_dir, args.baseline) else 1
    except (BaselineError, results.SweepError) as e:
        print(f"regress: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
