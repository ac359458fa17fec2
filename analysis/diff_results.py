#!/usr/bin/python3
"""Compare two results documents figure by figure, with a relative tolerance.

Says whether they are identical (apart from keys named with --ignore), equal
within the tolerance (and how far apart the worst figure is), or different,
listing the figures that differ most. Exit status: 0 identical or within the
tolerance, 1 different, 2 bad input.

    analysis/diff_results.py a.json b.json --rel-tol 1e-9 \\
        --ignore settings.cluster.network_model
"""

import argparse
import json
import math
import sys


def differences(a, b, path, ignore, out):
    """Appends (path, a, b, relative difference or None) for every leaf that differs."""
    if path in ignore:
        return
    numbers = (int, float)
    if isinstance(a, bool) or isinstance(b, bool) or not (isinstance(a, numbers) and isinstance(b, numbers)):
        if type(a) is not type(b):
            out.append((path, a, b, None))
            return
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            sub = f"{path}.{key}" if path else key
            if key not in a or key not in b:
                if sub not in ignore:
                    out.append((sub, a.get(key, "<absent>"), b.get(key, "<absent>"), None))
            else:
                differences(a[key], b[key], sub, ignore, out)
    elif isinstance(a, list):
        if len(a) != len(b):
            out.append((path, f"{len(a)} items", f"{len(b)} items", None))
            return
        for i, (x, y) in enumerate(zip(a, b)):
            differences(x, y, f"{path}[{i}]", ignore, out)
    elif isinstance(a, (int, float)) and not isinstance(a, bool):
        if a != b:
            scale = max(abs(a), abs(b))
            out.append((path, a, b, abs(a - b) / scale if scale > 0 and math.isfinite(scale) else math.inf))
    elif a != b:
        out.append((path, a, b, None))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rel-tol", type=float, default=0.0, help="largest relative difference of a number")
    ap.add_argument("--ignore", action="append", default=[], help="dotted path of a key to leave out")
    ap.add_argument("--show", type=int, default=5, help="differences to list")
    args = ap.parse_args(argv)
    docs = []
    for path in (args.a, args.b):
        try:
            with open(path, encoding="utf-8") as f:
                docs.append(json.load(f))
        except (OSError, json.JSONDecodeError) as e:
            print(f"diff_results: {path}: {e}", file=sys.stderr)
            return 2
    out = []
    differences(docs[0], docs[1], "", set(args.ignore), out)
    if not out:
        print("identical")
        return 0
    beyond = [d for d in out if d[3] is None or d[3] > args.rel_tol]
    worst = max((d[3] for d in out if d[3] is not None), default=0.0)
    if not beyond:
        print(f"within {args.rel_tol:g}: {len(out)} numbers differ, worst relative difference {worst:.3g}")
        return 0
    print(f"different: {len(beyond)} figures beyond {args.rel_tol:g} (worst relative difference {worst:.3g})")
    beyond.sort(key=lambda d: -(d[3] if d[3] is not None else math.inf))
    for path, x, y, rel in beyond[: args.show]:
        print(f"  {path}: {x!r} vs {y!r}" + (f" ({rel:.3g})" if rel is not None else ""))
    return 1


if __name__ == "__main__":
    sys.exit(main())
