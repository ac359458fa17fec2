#!/usr/bin/python3
"""Turn a sweep into a recommendation: which K and buffer size, and why.

Writes one self-contained HTML file (plots inlined as base64 PNGs, so it can
be mailed or attached to an issue) and a Markdown summary beside it:

    analysis/report.py sweeps/hash_5x5 --memory-budget-mb 64 --output report.html

Rules, so that the numbers can be checked by hand:
  - runtime of a configuration: summary.runtime_s_total if exsim reports it,
    else summary.makespan_s; blocked time: summary.slowest_sender_blocked_s_total;
    memory: summary.memory_estimate_bytes_total (the planner's estimate).
  - whole workload: the fastest configuration whose memory fits the budget,
    ties broken by less memory, then by sweep order.
  - exchange classes: partitioning x size, the size from the exchange's largest
    bytes_sent over the sweep: small < 16 MiB <= medium < 1 GiB <= large.
    The same rule per class, with the class's runtime = sum of its exchanges'
    duration_s and its memory = sum of their memory_estimate_bytes; the reason
    given is the `bound` those exchanges hit in the recommended configuration.
    Exchanges failed or cancelled in any configuration are listed, not classed.
"""

import argparse
import base64
import html
import io
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed; must precede pyplot
import matplotlib.pyplot as plt  # noqa: E402

if not __package__:  # run as a script: make `analysis` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis import atomic, remote_scan_report, results  # noqa: E402

MIB = 1 << 20
SIZE_CLASSES = (("small", 16 * MIB), ("medium", 1024 * MIB), ("large", float("inf")))
FLAGS_ON_AXES = ("rpcs_in_flight_per_channel", "data_stream_sender_buffer_size")


@dataclass(frozen=True)
class Config:
    """A finished point with the figures the report ranks it by."""

    point: results.Point
    k: int
    buffer_bytes: int
    runtime_s: float
    blocked_s: float
    memory_bytes: int

    @property
    def exchanges(self):
        return self.point.result["exchanges"]

    def label(self):
        """Short legend text: K and buffer, plus any other grid parameter."""
        others = (f"{n}={v}" for n, v in self.point.overrides.items() if n not in FLAGS_ON_AXES)
        return ", ".join([f"K={self.k}", f"buffer={self.buffer_bytes}", *others])


@dataclass(frozen=True)
class ClassChoice:
    """The recommendation for one exchange class."""

    partitioning: str
    size: str
    exchange_ids: tuple
    config: Config | None  # None when no configuration fits the budget
    runtime_s: float
    memory_bytes: int


def configurations(points):
    """Finished points as Configs, in sweep order (the tie-break of last resort)."""
    configs = []
    for p in results.finished(points):
        flags = p.result["settings"]["flags"]
        configs.append(Config(p, flags["rpcs_in_flight_per_channel"], flags["data_stream_sender_buffer_size"],
                              results.runtime_s(p.summary), p.summary["slowest_sender_blocked_s_total"],
                              p.summary["memory_estimate_bytes_total"]))
    return configs


def fits(memory_bytes, budget_bytes):
    return budget_bytes is None or memory_bytes <= budget_bytes


def fastest_within(candidates, budget_bytes):
    """(runtime, memory, config) with the least runtime among those fitting the budget, then least memory.

    candidates yields (runtime, memory, config); min() keeps the first of equal
    keys, so sweep order breaks remaining ties.
    """
    fitting = [c for c in candidates if fits(c[1], budget_bytes)]
    return min(fitting, key=lambda c: (c[0], c[1]), default=None)


def recommend_workload(configs, budget_bytes):
    best = fastest_within(((c.runtime_s, c.memory_bytes, c) for c in configs), budget_bytes)
    return best[2] if best else None


def size_class(bytes_sent):
    return next(name for name, limit in SIZE_CLASSES if bytes_sent < limit)


def left_out(configs):
    """{exchange id: 'failed/cancelled'} for exchanges not ok in some configuration.

    Their duration and bound describe the injected fault, not the setting, so
    they stay out of the exchange classes and are listed instead.
    """
    statuses = {}
    for c in configs:
        for x in c.exchanges:
            if x["status"] != "ok":
                statuses.setdefault(x["id"], set()).add(x["status"])
    return {xid: "/".join(sorted(st)) for xid, st in sorted(statuses.items())}


def exchange_classes(configs):
    """{(partitioning, size): [exchange ids]}; an exchange's size is its largest bytes_sent in the sweep,
    so that it stays in one class whatever the configuration."""
    largest, partitioning = {}, {}
    skipped = left_out(configs)
    for c in configs:
        for x in c.exchanges:
            if x["id"] not in skipped:
                largest[x["id"]] = max(largest.get(x["id"], 0), x["bytes_sent"])
                partitioning[x["id"]] = x["partitioning"]
    classes = {}
    for xid in sorted(largest):
        classes.setdefault((partitioning[xid], size_class(largest[xid])), []).append(xid)
    order = {name: i for i, (name, _) in enumerate(SIZE_CLASSES)}
    return dict(sorted(classes.items(), key=lambda item: (item[0][0], order[item[0][1]])))


def recommend_classes(configs, budget_bytes):
    """One ClassChoice per exchange class, by the workload rule applied to the class's own exchanges."""
    choices = []
    for (partitioning, size), ids in exchange_classes(configs).items():
        members = set(ids)

        def class_figures(c):
            xs = [x for x in c.exchanges if x["id"] in members]
            return sum(x["duration_s"] for x in xs), sum(x["memory_estimate_bytes"] for x in xs), c

        runtime, memory, config = fastest_within(map(class_figures, configs), budget_bytes) or (0.0, 0, None)
        choices.append(ClassChoice(partitioning, size, tuple(ids), config, runtime, memory))
    return choices


def class_exchanges(choice):
    return [x for x in choice.config.exchanges if x["id"] in choice.exchange_ids]


def distinct(values):
    """'1' or '1/2': the exchanges of a class may differ (a merging exchange keeps K=1)."""
    return "/".join(str(v) for v in sorted(set(values)))


def bound_reason(exchanges):
    """'bandwidth (2 of 3), rpc_window (1 of 3)': what limited the class, most frequent first."""
    counts = Counter(x["bound"] for x in exchanges)
    return ", ".join(f"{b} ({n} of {len(exchanges)})" for b, n in sorted(counts.items(), key=lambda i: (-i[1], i[0])))


def pareto_front(configs):
    """Configurations no other beats on both runtime and memory, by increasing memory."""
    front = [c for c in configs if not any(
        d.runtime_s <= c.runtime_s and d.memory_bytes <= c.memory_bytes
        and (d.runtime_s, d.memory_bytes) != (c.runtime_s, c.memory_bytes) for d in configs)]
    return sorted(front, key=lambda c: (c.memory_bytes, c.runtime_s))


def fmt(value):
    return f"{value:.6g}"


def config_table(manifest, points, configs, budget_bytes):
    """Every configuration, finished or not, in sweep order."""
    by_id = {c.point.id: c for c in configs}
    front = {c.point.id for c in pareto_front(configs)}
    names = results.grid_names(manifest)
    header = [*names, "K", "buffer bytes", "runtime s", "blocked s", "memory MiB", "fits budget", "Pareto", "status"]
    rows = []
    for p in points:
        c = by_id.get(p.id)
        figures = ["", "", "", "", "", "", ""]
        if c:
            figures = [str(c.k), str(c.buffer_bytes), fmt(c.runtime_s), fmt(c.blocked_s), fmt(c.memory_bytes / MIB),
                       "yes" if fits(c.memory_bytes, budget_bytes) else "no", "yes" if p.id in front else ""]
        rows.append([*p.overrides.values(), *figures, p.status])
    return header, rows


def class_table(choices):
    header = ["partitioning", "size", "exchanges", "recommended", "K", "buffer bytes",
              "class runtime s", "class memory MiB", "bound (reason)"]
    rows = []
    for ch in choices:
        if ch.config is None:
            rows.append([ch.partitioning, ch.size, str(len(ch.exchange_ids)), "nothing fits the budget",
                         "", "", "", "", ""])
            continue
        xs = class_exchanges(ch)
        rows.append([ch.partitioning, ch.size, str(len(ch.exchange_ids)), ch.config.point.id,
                     distinct(x["k"] for x in xs), distinct(x["buffer_bytes"] for x in xs),
                     fmt(ch.runtime_s), fmt(ch.memory_bytes / MIB), bound_reason(xs)])
    return header, rows


def markdown_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def html_table(header, rows):
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def workload_sentence(best, configs, budget_bytes):
    if best is None:
        least = min(c.memory_bytes for c in configs)
        return f"No configuration fits the memory budget (the smallest estimate is {fmt(least / MIB)} MiB)."
    return (f"Recommended for the whole workload: `{best.point.id}` (K={best.k}, buffer "
            f"{best.buffer_bytes} bytes): runtime {fmt(best.runtime_s)} s, blocked {fmt(best.blocked_s)} s, "
            f"memory estimate {fmt(best.memory_bytes / MIB)} MiB; "
            + ("the fastest configuration." if budget_bytes is None
               else f"the fastest configuration within the {fmt(budget_bytes / MIB)} MiB budget."))


def html_text(markdown_line):
    """Escape a Markdown sentence for HTML, turning its `code` spans into <code>."""
    parts = html.escape(markdown_line).split("`")
    return "".join(f"<code>{part}</code>" if i % 2 else part for i, part in enumerate(parts))


def png(fig):
    """A figure as an inline data URI; fixed metadata keeps the bytes reproducible."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def plot_blocked_vs_k(configs):
    """One line per buffer size (and per value of any other grid parameter)."""
    lines = {}
    for c in configs:
        label = c.label().split(", ", 1)[1]  # all but K, which is the x axis
        lines.setdefault(label, []).append((c.k, c.blocked_s))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, xy in lines.items():
        xy.sort()
        ax.plot([x for x, _ in xy], [y for _, y in xy], marker="o", label=label)
    ks = sorted({c.k for c in configs})
    ax.set_xscale("log", base=2)  # K grids are usually powers of two
    ax.set_xticks(ks, labels=[str(k) for k in ks])
    ax.minorticks_off()
    ax.set_xlabel("K (rpcs_in_flight_per_channel)")
    ax.set_ylabel("slowest-sender blocked time, summed over exchanges (s)")
    ax.set_title("Blocked time vs K")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    return png(fig)


def plot_runtime_vs_memory(configs, best, budget_bytes):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.scatter([c.memory_bytes / MIB for c in configs], [c.runtime_s for c in configs], label="configuration")
    front = pareto_front(configs)
    ax.step([c.memory_bytes / MIB for c in front], [c.runtime_s for c in front], where="post",
            color="tab:red", marker="s", label="Pareto front")
    if budget_bytes is not None:
        ax.axvline(budget_bytes / MIB, color="grey", linestyle="--", label="memory budget")
    if best:
        ax.scatter([best.memory_bytes / MIB], [best.runtime_s], s=200, facecolors="none",
                   edgecolors="tab:green", linewidths=2, label="recommended", zorder=3)
    ax.set_xlabel("memory estimate (MiB)")
    ax.set_ylabel("runtime (s)")
    ax.set_title("Runtime vs memory")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    return png(fig)


def chosen_configs(configs, best, choices):
    """The configurations worth comparing in the CDF: the recommendations, the fastest overall,
    and the one needing least memory as the reference of what memory buys."""
    chosen = {}
    candidates = [("recommended", best), ("fastest", recommend_workload(configs, None)),
                  ("least memory", min(configs, key=lambda c: (c.memory_bytes, c.runtime_s))),
                  *((f"{ch.partitioning} {ch.size}", ch.config) for ch in choices)]
    for role, c in candidates:
        if c is not None:
            chosen.setdefault(c.point.id, (c, []))[1].append(role)
    return list(chosen.values())


def plot_blocked_cdf(chosen, skipped):
    """Over the exchanges that the classes cover (see left_out)."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for c, roles in chosen:
        values = sorted(x["slowest_sender_blocked_s"] for x in c.exchanges if x["id"] not in skipped)
        if not values:
            continue
        fractions = [i / len(values) for i in range(len(values) + 1)]
        ax.step([values[0], *values], fractions, where="post", label=f"{c.label()} ({', '.join(roles)})")
    ax.set_xlabel("slowest-sender blocked time per exchange (s)")
    ax.set_ylabel("fraction of exchanges")
    ax.set_title("CDF of per-exchange blocked time")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(0, -0.15))
    ax.grid(alpha=0.3)
    return png(fig)


def build(sweep_dir, budget_bytes):
    """(markdown, html) of the report; both say the same things, the HTML adds the plots."""
    manifest = results.load_manifest(sweep_dir)
    points = results.load_points(sweep_dir, manifest)
    if remote_scan_report.is_remote_scan(points):  # another kind of scenario, its own report
        return remote_scan_report.build(sweep_dir, manifest, points, budget_bytes)
    configs = configurations(points)
    if not configs:
        raise results.SweepError(f"{sweep_dir}: no finished point to report on")
    best = recommend_workload(configs, budget_bytes)
    choices = recommend_classes(configs, budget_bytes)
    budget = "none" if budget_bytes is None else f"{fmt(budget_bytes / MIB)} MiB"
    intro = (f"Sweep `{sweep_dir}` of scenario `{manifest['scenario']}` (sha256 {manifest['scenario_sha256'][:12]}), "
             f"exsim {manifest['exsim_version']}: {len(points)} configurations, {len(configs)} finished. "
             f"Memory budget: {budget}.")
    sentence = workload_sentence(best, configs, budget_bytes)
    classes = class_table(choices)
    table = config_table(manifest, points, configs, budget_bytes)
    class_note = ("Per exchange class (the same rule on the class's own exchanges; "
                  "the reason is the resource that bound them in the recommended configuration):")
    skipped = left_out(configs)
    if skipped:
        class_note += (" Left out, as not ok in every configuration: "
                       + ", ".join(f"`{xid}` ({status})" for xid, status in skipped.items()) + ".")

    markdown = "\n\n".join([
        "# exsim sweep report", intro, "## Recommendation", sentence, class_note, markdown_table(*classes),
        "## Configurations", markdown_table(*table)]) + "\n"

    plots = [("Blocked time vs K, per buffer size", plot_blocked_vs_k(configs)),
             ("Runtime vs memory, Pareto front marked", plot_runtime_vs_memory(configs, best, budget_bytes)),
             ("CDF of per-exchange blocked time, chosen configurations",
              plot_blocked_cdf(chosen_configs(configs, best, choices), skipped))]
    style = ("body{font-family:sans-serif;max-width:75em;margin:auto}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}code{background:#eee}")
    page = "\n".join([
        "<!DOCTYPE html>", '<html><head><meta charset="utf-8"><title>exsim sweep report</title>',
        f"<style>{style}</style></head><body>",
        "<h1>exsim sweep report</h1>", f"<p>{html.escape(intro)}</p>",
        "<h2>Recommendation</h2>", f"<p>{html_text(sentence)}</p>", f"<p>{html_text(class_note)}</p>",
        html_table(*classes),
        "<h2>Configurations</h2>", html_table(*table),
        "<h2>Plots</h2>",
        *(f'<h3>{html.escape(title)}</h3><img alt="{html.escape(title)}" src="{uri}">' for title, uri in plots),
        "</body></html>"]) + "\n"
    return markdown, page


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sweep_dir", metavar="SWEEP_DIR", help="directory written by run_sweep.py")
    parser.add_argument("--memory-budget-mb", type=float, metavar="N",
                        help="memory budget in MiB (2^20 bytes) for memory_estimate_bytes_total; default: none")
    parser.add_argument("--output", required=True, metavar="FILE.html",
                        help="HTML report; the Markdown summary goes beside it with the suffix .md")
    args = parser.parse_args(argv)
    if args.memory_budget_mb is not None and args.memory_budget_mb <= 0:
        parser.error("--memory-budget-mb: must be positive")
    if Path(args.output).suffix == ".md":
        parser.error("--output: the HTML file; the .md summary is written beside it")
    budget_bytes = None if args.memory_budget_mb is None else args.memory_budget_mb * MIB
    try:
        markdown, page = build(Path(args.sweep_dir), budget_bytes)
    except results.SweepError as e:
        print(f"report: {e}", file=sys.stderr)
        return 2
    except KeyError as e:
        print(f"report: {args.sweep_dir}: a results file lacks the key {e}; was it written by exsim?",
              file=sys.stderr)
        return 2
    output = Path(args.output)
    atomic.write_text(output, page)
    atomic.write_text(output.with_suffix(".md"), markdown)
    print(f"report: wrote {output} and {output.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
