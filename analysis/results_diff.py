"""Two exsim results side by side (`exsim diff A.json B.json`): per query and per exchange, the
runtime, blocked time, RPCs and memory estimate of each and the change from A to B. With a
tolerance (`exsim diff A.json B.json --rel-tol 1e-9 [--ignore PATH]`), a verdict instead: every
figure of the two documents compared, identical, within the tolerance, or different.

    rows = results_diff.diff(load_results(a_path), load_results(b_path))
    same, text = results_diff.agreement(a, b, rel_tol=1e-9, ignore={"settings.cluster.network_model"})

Reads only the results format (docs/results.md); queries and exchanges are matched by name.
"""

import json
import math
from pathlib import Path

from common import tables


class ResultsError(Exception):
    """A results file is missing or not exsim results; the message names the file."""


def _no_constant(name):
    raise ValueError(f"{name} is not a number JSON allows")


def load_results(path):
    try:
        if Path(path).exists() and not Path(path).is_file():  # /dev/zero would be read for ever
            raise ResultsError(f"{path}: cannot read: not a regular file")
        with open(path, encoding="utf-8") as f:
            doc = json.load(f, parse_constant=_no_constant)
    except FileNotFoundError:
        raise ResultsError(f"{path}: no such file") from None
    except OSError as e:
        raise ResultsError(f"{path}: cannot read: {e.strerror}") from None
    except (ValueError, RecursionError) as e:
        what = "nested too deeply" if isinstance(e, RecursionError) else str(e)
        raise ResultsError(f"{path}: not JSON ({what}): expected the results of exsim run") from None
    if is_remote_scan(doc):
        return _check_remote_scan(path, doc)
    if not isinstance(doc, dict) or not isinstance(doc.get("exchanges"), list) or \
            not isinstance(doc.get("summary"), dict):
        what = ", ".join(sorted(doc)[:6]) if isinstance(doc, dict) else type(doc).__name__
        hint = " (this looks like a scenario: run it with exsim run first)" if isinstance(doc, dict) and \
            "schema_version" in doc else ""
        raise ResultsError(f"{path}: not exsim results: expected 'exchanges' (an array) and 'summary' (an object) "
                           f"at the top level, "
                           f"found {what}{hint}")
    for i, x in enumerate(doc["exchanges"]):
        if not isinstance(x, dict) or not isinstance(x.get("id"), str):
            raise ResultsError(f"{path}: exchanges[{i}]: expected an object with 'id'")
    for key in ("settings", "scenario"):
        if not isinstance(doc.get(key, {}), dict):
            raise ResultsError(f"{path}: {key}: expected an object, found {type(doc[key]).__name__}")
    if not isinstance(doc.get("queries", []), list) or \
            not all(isinstance(q, dict) for q in doc.get("queries", [])):
        raise ResultsError(f"{path}: queries: expected an array of objects")
    number, text = (int, float), (str,)
    checks = [(f"exchanges[{i}].query", x, "query", text) for i, x in enumerate(doc["exchanges"])]
    checks += [(f"queries[{i}].{k}", q, k, kind) for i, q in enumerate(doc.get("queries", []))
               for k, kind in (("query", text), ("runtime_s", number))]
    checks += [(f"settings.{k}", doc.get("settings", {}), k, (dict,)) for k in ("flags", "cluster")]
    checks += [("summary.makespan_s", doc["summary"], "makespan_s", number)]
    for where, parent, key, kinds in checks:
        if key in parent and (not isinstance(parent[key], kinds) or isinstance(parent[key], bool)):
            expected = {number: "a number", text: "a string"}.get(kinds, "an object")
            raise ResultsError(f"{path}: {where}: expected {expected}, found {json.dumps(parent[key])[:40]}")
    if _depth(doc) > 256:
        raise ResultsError(f"{path}: nested deeper than 256 levels: expected the results of exsim run")
    return doc


def is_remote_scan(doc):
    return isinstance(doc, dict) and doc.get("kind") == "remote_scan"


def _check_remote_scan(path, doc):
    """A remote scan's results: 'summary' and one entry per executor."""
    if not isinstance(doc.get("summary"), dict) or not isinstance(doc.get("executors"), list):
        raise ResultsError(f"{path}: not a remote scan's results: expected 'summary' (an object) and 'executors' "
                           "(an array) beside kind \"remote_scan\"")
    for i, e in enumerate(doc["executors"]):
        if not isinstance(e, dict) or not isinstance(e.get("index"), int) or isinstance(e.get("index"), bool):
            raise ResultsError(f"{path}: executors[{i}]: expected an object with 'index' (an integer)")
    if not isinstance(doc.get("settings", {}), dict):
        raise ResultsError(f"{path}: settings: expected an object")
    if _depth(doc) > 256:
        raise ResultsError(f"{path}: nested deeper than 256 levels: expected the results of exsim run")
    return doc


def check_same_kind(a, b, a_path, b_path):
    """A remote scan's results compare only with another's."""
    if is_remote_scan(a) != is_remote_scan(b):
        scan, other = (a_path, b_path) if is_remote_scan(a) else (b_path, a_path)
        raise ResultsError(f"{scan} holds a remote scan's results and {other} exchanges' and queries': they share no "
                           "figure to compare; diff two results of the same kind")


def _depth(value, limit=257):
    """Nesting depth of a parsed document, counted without recursion, up to `limit`."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        v, d = stack.pop()
        deepest = max(deepest, d)
        if deepest >= limit:
            break
        if isinstance(v, dict):
            stack.extend((x, d + 1) for x in v.values())
        elif isinstance(v, list):
            stack.extend((x, d + 1) for x in v)
    return deepest


# Per exchange: (label, key in results or a function of the exchange entry).
EXCHANGE_FIGURES = [
    ("duration_s", "duration_s"),
    ("slowest_sender_blocked_s", "slowest_sender_blocked_s"),
    ("rpcs", "rpcs"),  # TransmitData, as in the results and the summary
    ("eos_rpcs", "eos_rpcs"),
    ("bytes_sent", "bytes_sent"),
    ("rpcs_deferred", "rpcs_deferred"),
    ("memory_estimate_bytes", "memory_estimate_bytes"),
    ("peak_sender_bytes", "peak_sender_bytes"),
]
QUERY_FIGURES = ["runtime_s", "slowest_sender_blocked_s", "rpcs", "eos_rpcs", "memory_estimate_bytes"]


def _figure(x, key):
    v = key(x) if callable(key) else x.get(key)
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _query_figures(doc):
    """{query: {figure: value}}: runtime from the results' queries, the rest summed over its exchanges."""
    out = {}
    for x in doc["exchanges"]:
        q = out.setdefault(x.get("query", ""), {"exchanges": 0})
        q["exchanges"] += 1
        for label, key in EXCHANGE_FIGURES:
            if label in QUERY_FIGURES:
                v = _figure(x, key)
                if v is not None:
                    q[label] = q.get(label, 0) + v
    for q in doc.get("queries") or []:
        if isinstance(q, dict):
            entry = out.setdefault(q.get("query", ""), {"exchanges": 0})
            for k in ("runtime_s", "status"):
                if k in q:
                    entry[k] = q[k]
    if "" in out and "runtime_s" not in out[""]:
        out[""]["runtime_s"] = doc.get("summary", {}).get("makespan_s")
    return out


# A remote scan: the whole scan's figures (its summary) and each executor's.
SCAN_FIGURES = ["makespan_s", "throughput_gbps", "first_split_s", "consumer_wait_s_total", "data_gets", "footer_gets",
                "bytes", "bytes_reserved_peak"]
EXECUTOR_FIGURES = ["end_s", "consumer_wait_s", "data_gets", "splits", "peak_bytes_reserved"]


def _scan_diff(a, b):
    rows = []
    for fig in SCAN_FIGURES:
        va, vb = _figure(a["summary"], fig), _figure(b["summary"], fig)
        rows.append(("scan", "", "", fig, va, vb, *tables.change(va, vb)))
    ea = {e["index"]: e for e in a["executors"]}
    eb = {e["index"]: e for e in b["executors"]}
    for i in list(ea) + [i for i in eb if i not in ea]:
        for fig in EXECUTOR_FIGURES:
            va = _figure(ea[i], fig) if i in ea else None
            vb = _figure(eb[i], fig) if i in eb else None
            rows.append(("executor", "", str(i), fig, va, vb, *tables.change(va, vb)))
    return rows


def _exchange_key(x):
    return (x.get("query", ""), x["id"])


def diff(a, b):
    """Rows (level, query, exchange, figure, A, B, change, relative change), queries first. Two remote
    scans: levels "scan" and "executor" (the executor's index in the exchange column)."""
    if is_remote_scan(a) and is_remote_scan(b):
        return _scan_diff(a, b)
    rows = []
    qa, qb = _query_figures(a), _query_figures(b)
    for q in list(qa) + [q for q in qb if q not in qa]:
        fa, fb = qa.get(q, {}), qb.get(q, {})
        for fig in QUERY_FIGURES:
            va, vb = fa.get(fig), fb.get(fig)
            d, rel = tables.change(va, vb)
            rows.append(("query", q, "", fig, va, vb, d, rel))
    xa = {_exchange_key(x): x for x in a["exchanges"]}
    xb = {_exchange_key(x): x for x in b["exchanges"]}
    for key in list(xa) + [k for k in xb if k not in xa]:
        ea, eb = xa.get(key), xb.get(key)
        for label, k in EXCHANGE_FIGURES:
            va = _figure(ea, k) if ea else None
            vb = _figure(eb, k) if eb else None
            d, rel = tables.change(va, vb)
            rows.append(("exchange", key[0], key[1], label, va, vb, d, rel))
    return rows


# How many figures the short form shows after the tables of queries: those that matter most.
SHORT_ROWS = 8


def _runtimes(rows):
    """{query: the longer of its runtimes A and B} (a remote scan: its makespan, under "")."""
    out = {}
    for r in rows:
        if (r[0], r[3]) in (("query", "runtime_s"), ("scan", "makespan_s")):
            out[r[1]] = max((v for v in (r[4], r[5]) if isinstance(v, (int, float))), default=None)
    return out


def ranked(rows):
    """The rows that moved, most decisive first (tables.decision_rank: seconds, then RPCs, then
    bytes), leaving out each query's runtime (the headline gives it) and the query totals of what
    its exchanges have (their exchange rows say which exchange moved)."""
    runtimes = _runtimes(rows)
    detailed = {r[1] for r in rows if r[0] in ("exchange", "executor")}
    keep = [r for r in rows if (r[0], r[3]) not in (("query", "runtime_s"), ("scan", "makespan_s"))
            and not (r[0] == "query" and r[1] in detailed) and not (r[0] == "scan" and "" in detailed)]
    keyed = [(tables.decision_rank(r[3], r[4], r[5], runtimes.get(r[1])), r) for r in keep]
    return [r for k, r in sorted(keyed, key=lambda t: t[0], reverse=True) if k[0] >= 0]


def _moved_text(r, many_queries):
    where = f"{r[0]} {r[2]}" if r[0] in ("exchange", "executor") else r[0]
    if r[1] and many_queries:
        where += f" of {r[1]}"
    if r[4] is not None and r[5] is not None and tables.figure_kind(r[3]) == "seconds":
        how = ("+" if r[6] >= 0 else "-") + tables.fmt_seconds(abs(r[6]))
    else:
        how = _pct(r[7])
    return f"{where} {r[3]} {tables.fmt_value(r[3], r[4])} -> {tables.fmt_value(r[3], r[5])} ({how})"


def headline(rows):
    """One line a query: its runtime A -> B, and the figure that moved most by what a user decides on
    (seconds of runtime or wait, then RPCs, then bytes: tables.decision_rank)."""
    queries = list(dict.fromkeys(r[1] for r in rows))
    moved = ranked(rows)
    lines = []
    for q in queries:
        parts = []
        for r in rows:
            if r[1] == q and (r[0], r[3]) in (("query", "runtime_s"), ("scan", "makespan_s")):
                parts.append((f"query {r[1]}: " if r[1] else "") +
                             f"runtime A {tables.fmt_seconds(r[4])}, B {tables.fmt_seconds(r[5])}"
                             + (f" ({_pct(r[7])})" if r[7] is not None else ""))
        mine = [r for r in moved if r[1] == q]
        parts.append(f"moved most: {_moved_text(mine[0], len(queries) > 1)}" if mine else "no figure moved")
        lines.append("; ".join(parts))
    return "\n".join(lines)


def select(rows, changed_tol=None, top=None):
    """Only the figures that changed by more than changed_tol (relative; a figure present on one side
    only counts as changed), and/or the `top` that moved most (ranked())."""
    if changed_tol is not None:
        rows = [r for r in rows if (r[4] is None) != (r[5] is None) or
                (r[6] not in (None, 0) and (r[7] is None or abs(r[7]) > changed_tol))]
    if top is not None:
        rows = ranked(rows)[:top]
    return rows


def settings_line(doc):
    s = doc.get("settings", {})
    if is_remote_scan(doc):
        prefetch = s.get("prefetch", {}) if isinstance(s.get("prefetch"), dict) else {}
        return " ".join([f"executors={(s.get('cluster') or {}).get('executors', '?')}"] +
                        [f"{k}={v}" for k, v in list(prefetch.items())[:4] if not isinstance(v, (dict, list))])
    flags = s.get("flags", {})
    cl = s.get("cluster", {})
    parts = [f"K={flags.get('rpcs_in_flight_per_channel', '?')}",
             f"buffer={flags.get('data_stream_sender_buffer_size', '?')}",
             f"mt_dop={flags.get('mt_dop', '?')}", f"executors={cl.get('executors', '?')}",
             f"rtt_us={cl.get('rtt_us', '?')}"]
    return " ".join(parts)


HEADER = ["level", "query", "exchange", "figure", "A", "B", "change", "relative_change"]


def _cells(r):
    """A row's A, B and change in the unit its figure's name says."""
    change = r[6]
    if change is not None and tables.figure_kind(r[3]) == "seconds":
        change = ("+" if change >= 0 else "-") + tables.fmt_seconds(abs(change))
    elif change is not None and tables.figure_kind(r[3]) == "bytes":
        change = ("+" if change >= 0 else "-") + tables.fmt_bytes(abs(change))
    else:
        change = tables.fmt_number(change)
    return [tables.fmt_value(r[3], r[4]), tables.fmt_value(r[3], r[5]), change, _pct(r[7])]


def render(rows, a_path, b_path, a, b, fmt, head=None, full=True):
    """head: the headline of every row (before a selection), else that of `rows`. full: every row
    in tables by level; else the short form: the queries' figures, then the SHORT_ROWS figures that
    moved most."""
    head = headline(rows) if head is None else head
    if fmt == "json":
        return tables.json_text({"headline": head,
                                 "a": {"file": a_path, "settings": settings_line(a)},
                                 "b": {"file": b_path, "settings": settings_line(b)},
                                 "rows": [dict(zip(HEADER, r)) for r in rows]})
    if fmt == "csv":
        return tables.csv_text(HEADER, rows)
    out = [head + "\n", f"A: {a_path} ({settings_line(a)})\n", f"B: {b_path} ({settings_line(b)})\n"]
    if not full:
        return "".join(out) + _short(rows)
    by_query = [r for r in rows if r[0] == "query"]
    if by_query:
        out.append("\nPer query\n")
        out.append(tables.text_table(["query", "figure", "A", "B", "change", "change %"],
                                     [[r[1] or "(none)", r[3], r[4], r[5], r[6], _pct(r[7])] for r in by_query]))
    for level, title in (("scan", "The scan"), ("executor", "Per executor")):
        part = [r for r in rows if r[0] == level]
        if part:
            out.append(f"\n{title}\n")
            head_row = (["executor"] if level == "executor" else []) + ["figure", "A", "B", "change", "change %"]
            out.append(tables.text_table(head_row, [([r[2]] if level == "executor" else []) +
                                                    [r[3], r[4], r[5], r[6], _pct(r[7])] for r in part]))
    by_x = [r for r in rows if r[0] == "exchange"]
    if by_x:
        out.append("\nPer exchange\n")
        out.append(tables.text_table(["query", "exchange", "figure", "A", "B", "change", "change %"],
                                     [[r[1] or "-", r[2], r[3], r[4], r[5], r[6], _pct(r[7])] for r in by_x]))
    return "".join(out)


def _short(rows):
    """Each query's (or the scan's) figures, its id said once, then the figures that moved most."""
    out = []
    for q in dict.fromkeys(r[1] for r in rows if r[0] in ("query", "scan")):
        part = [r for r in rows if r[0] in ("query", "scan") and r[1] == q]
        out.append(f"\n{'query ' + q if q else ('the scan' if part[0][0] == 'scan' else 'the exchanges')}\n")
        out.append(tables.text_table(["figure", "A", "B", "change", "change %"], [[r[3]] + _cells(r) for r in part]))
    top = ranked(rows)[:SHORT_ROWS]
    many = len({r[1] for r in rows}) > 1
    if top:
        out.append(f"\nMoved most (seconds, then RPCs, then bytes; {len(top)} of {len(rows)} figures: --full "
                   "for every one)\n")
        out.append(tables.text_table((["query"] if many else []) + ["where", "figure", "A", "B", "change", "change %"],
                                     [([r[1] or "-"] if many else []) + [f"{r[0]} {r[2]}".strip(), r[3]] + _cells(r)
                                      for r in top]))
    return "".join(out)


def _pct(rel):
    return "-" if rel is None else f"{rel * 100:+.1f}%"


def leaf_differences(a, b, path="", ignore=frozenset(), out=None):
    """[(dotted path, A, B, relative difference or None)] for every leaf that differs; keys in
    `ignore` (dotted paths) are left out. None: not two numbers (a type, a string, a length)."""
    out = [] if out is None else out
    if path in ignore:
        return out
    num_a = isinstance(a, (int, float)) and not isinstance(a, bool)
    num_b = isinstance(b, (int, float)) and not isinstance(b, bool)
    if num_a and num_b:
        if a != b:
            scale = max(abs(a), abs(b))
            out.append((path, a, b, abs(a - b) / scale if math.isfinite(scale) else math.inf))
    elif type(a) is not type(b):
        out.append((path, a, b, None))
    elif isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            sub = f"{path}.{key}" if path else key
            if key not in a or key not in b:
                if sub not in ignore:
                    out.append((sub, a.get(key, "<absent>"), b.get(key, "<absent>"), None))
            else:
                leaf_differences(a[key], b[key], sub, ignore, out)
    elif isinstance(a, list):
        if len(a) != len(b):
            out.append((path, f"{len(a)} items", f"{len(b)} items", None))
        else:
            for i, (x, y) in enumerate(zip(a, b)):
                leaf_differences(x, y, f"{path}[{i}]", ignore, out)
    elif a != b:
        out.append((path, a, b, None))
    return out


def agreement(a, b, rel_tol, ignore=frozenset(), show=5):
    """(True if identical or every number within rel_tol, a one-line verdict plus the worst
    differences)."""
    out = leaf_differences(a, b, "", set(ignore))
    if not out:
        return True, "identical"
    beyond = [d for d in out if d[3] is None or d[3] > rel_tol]
    worst = max((d[3] for d in out if d[3] is not None), default=0.0)
    if not beyond:
        return True, f"within {rel_tol:g}: {len(out)} numbers differ, worst relative difference {worst:.3g}"
    beyond.sort(key=lambda d: -(d[3] if d[3] is not None else math.inf))
    lines = [f"different: {len(beyond)} figures beyond {rel_tol:g} (worst relative difference {worst:.3g})"]
    lines += [f"  {p}: {x!r} vs {y!r}" + (f" ({r:.3g})" if r is not None else "") for p, x, y, r in beyond[:show]]
    return False, "\n".join(lines)
