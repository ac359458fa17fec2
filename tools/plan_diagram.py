#!/usr/bin/python3
"""A picture of a query's fragments, their pipelines and the exchanges between them.

Reads what `exsim explain --format json` prints (the decomposition the simulator runs) and draws,
for one query, a box per fragment (its instances, and one line per pipeline: source, streaming
operators, sink, coloured by the thread that runs it) with an arrow per exchange (its id,
partitioning and channels) from the sending fragment to the receiving one. The result fragment is
at the top, the fragments feeding it below.

    tools/plan_diagram.py scenarios/examples/query_broadcast_join.json --out plan.png
    tools/plan_diagram.py SCENARIO --query q72 --set mt_dop=8 --out q72_mt8.png
"""

import argparse
import io
import json
import sys
from pathlib import Path

if not __package__:  # run as a script: the repository root on sys.path, as for every entry point
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import matplotlib  # noqa: E402

matplotlib.use("Agg")  # no display needed; must precede pyplot
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch  # noqa: E402

from common import atomic, exsim_runner  # noqa: E402

THREAD_COLOURS = ["#1f4e79", "#b05a00", "#2e7d32", "#6a1b9a", "#ad1457", "#00695c"]


class DiagramError(Exception):
    """Bad input: the message says what is wrong."""


def explain(exsim, scenario, sets):
    argv = exsim_runner.command(exsim, scenario, sets, verb="explain", extra=("--format", "json"))
    returncode, stdout, stderr = exsim_runner.run(argv)
    if returncode != 0:
        raise DiagramError(stderr.strip() or f"exsim explain exited with {returncode}")
    return json.loads(stdout)


def pick_query(plan, name):
    queries = plan["queries"]
    if name is None:
        if len(queries) != 1:
            names = ", ".join(q["query"] or "(exchanges without a query)" for q in queries)
            raise DiagramError(f"the scenario has {len(queries)} queries; pick one with --query ({names})")
        return queries[0]
    for q in queries:
        if q["query"] == name:
            return q
    raise DiagramError(f"--query {name}: no such query")


def levels(query):
    """Row of each fragment: 0 for the one returning the result, then one below what it feeds."""
    feeds = {}  # fragment -> fragments it sends rows to (exchanges and join builds)
    for x in query["exchanges"]:
        feeds.setdefault(x["from"], set()).add(x["to"])
    for f in query["fragments"]:
        for p in f["pipelines"]:
            if p["sink"].startswith("build of ") and " in " in p["sink"]:
                feeds.setdefault(f["id"], set()).add(p["sink"].rsplit(" in ", 1)[1])
    level = {}

    def depth(fid, seen=()):
        if fid in level:
            return level[fid]
        if fid in seen:
            return 0
        targets = feeds.get(fid, ())
        level[fid] = 0 if not targets else 1 + max(depth(t, seen + (fid,)) for t in targets)
        return level[fid]

    for f in query["fragments"]:
        depth(f["id"])
    return level


def pipeline_text(p):
    chain = [p["source"], *p["operators"], p["sink"]]
    text = " \u2192 ".join(chain)
    if p["waits_for_builds"]:
        text += "   [after the build]"
    return text


def draw(query, mt_dop, title=None):
    level = levels(query)
    rows = {}
    for f in query["fragments"]:
        rows.setdefault(level[f["id"]], []).append(f)
    width = max(len(r) for r in rows.values())
    box_w, gap_x, gap_y = 6.6, 0.8, 1.1
    heights = {f["id"]: 0.75 + 0.42 * len(f["pipelines"]) for f in query["fragments"]}
    row_h = {lv: max(heights[f["id"]] for f in fs) for lv, fs in rows.items()}
    total_h = sum(row_h.values()) + gap_y * (len(rows) - 1)
    fig_w = width * (box_w + gap_x) + gap_x
    fig, ax = plt.subplots(figsize=(max(8.0, fig_w * 1.15), max(3.0, total_h * 0.8 + 0.8)))
    ax.set_xlim(0, fig_w)
    ax.set_ylim(-0.2, total_h + 0.6)
    ax.axis("off")
    pos = {}
    y_top = total_h
    for lv in sorted(rows):
        fs = rows[lv]
        offset = (fig_w - len(fs) * (box_w + gap_x) + gap_x) / 2
        for i, f in enumerate(fs):
            x = offset + i * (box_w + gap_x)
            h = heights[f["id"]]
            y = y_top - h
            pos[f["id"]] = (x, y, h)
            ax.add_patch(FancyBboxPatch((x, y), box_w, h, boxstyle="round,pad=0.05", fc="#f5f7fa", ec="#555"))
            head = (f"{f['id']}: {f['instances']} instance(s), {f['instances_per_executor']} per executor"
                    f" on {f['executors']}, {f['threads_per_instance']} thread(s) each")
            ax.text(x + 0.12, y + h - 0.3, head, fontsize=8.5, weight="bold", va="center")
            for j, p in enumerate(f["pipelines"]):
                colour = THREAD_COLOURS[p["thread"] % len(THREAD_COLOURS)]
                ax.text(x + 0.2, y + h - 0.75 - 0.42 * j, f"t{p['thread']}: " + pipeline_text(p), fontsize=7.2,
                        color=colour, va="center")
        y_top -= row_h[lv] + gap_y
    for xch in query["exchanges"]:
        (x0, y0, _), (x1, y1, h1) = pos[xch["from"]], pos[xch["to"]]
        start, end = (x0 + box_w / 2, y0 + heights[xch["from"]]), (x1 + box_w / 2, y1)
        if y0 + heights[xch["from"]] > y1:  # the sender is not below: go around
            start, end = (x0 + box_w / 2, y0), (x1 + box_w / 2, y1 + h1)
        ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=12, color="#333",
                                     connectionstyle="arc3,rad=0.08"))
        label = (f"{xch['id']}: {xch['partitioning']}{' merging' if xch['merging'] else ''}, "
                 f"{xch['senders']}\u00d7{xch['receivers']} channels, K={xch['k']}")
        ax.text((start[0] + end[0]) / 2 + 0.1, (start[1] + end[1]) / 2, label, fontsize=7.5, color="#333",
                bbox={"fc": "white", "ec": "none", "alpha": 0.85, "pad": 1})
    ax.set_title(title or f"query {query['query']} at mt_dop={mt_dop}: fragments, pipelines (t = thread) and "
                 "exchanges", fontsize=10)
    fig.tight_layout()
    return fig


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario", help="a scenario with whole queries (schema_version 2)")
    ap.add_argument("--query", help="the query to draw (needed when the scenario has several)")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="as for exsim run")
    ap.add_argument("--out", required=True, help="the PNG to write (atomically)")
    ap.add_argument("--exsim", default=None, help="the exsim binary (default: $EXSIM, else build/exsim)")
    args = ap.parse_args(argv)
    try:
        plan = explain(args.exsim or exsim_runner.default_exsim(), args.scenario, args.set)
        query = pick_query(plan, args.query)
        if query["exchange_only"]:
            raise DiagramError("that query is an exchange-only one: there is no plan to draw")
        fig = draw(query, plan["mt_dop"])
    except DiagramError as e:
        print(f"plan_diagram: {e}", file=sys.stderr)
        return 2
    atomic.write_bytes(args.out, _png(fig))
    print(f"plan_diagram: wrote {args.out}")
    return 0


def _png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=130)
    plt.close(fig)
    return buf.getvalue()


if __name__ == "__main__":
    sys.exit(main())
