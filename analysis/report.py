#!/usr/bin/python3
"""Turn a sweep into a recommendation: which K and buffer size, and why.

Writes one self-contained HTML file (plots inlined as base64 PNGs, so it can
be mailed or attached to an issue) and a Markdown summary beside it:

    analysis/report.py sweeps/hash_5x5 --memory-budget-mb 64 --output report.html

Rules, so that the numbers can be checked by hand:
  - runtime of a configuration: summary.runtime_s_total if exsim reports it,
    else summary.makespan_s; blocked time: summary.slowest_sender_blocked_s_total;
    memory: the planner's estimate the configuration needs at once, i.e. the
    peak query's (the largest sum over one query's exchanges) when queries run
    one after another (query_order "sequential"), else every exchange's summed.
  - equal: configurations whose runtime is within the tie tolerance (default
    2%, --tie-tolerance) of the fastest one that fits the memory budget are
    treated as equally fast: differences that small are noise next to what the
    model leaves out.
  - whole workload: among those equals, a flag-only change first (every
    exchange at K=1: buffer size and other flags, no new Impala code) before one
    that needs K > 1 (new Impala code), then the least memory, then the
    fastest, then sweep order. The other equals are listed as runner-ups with
    what each costs next to the recommendation.
  - exchange classes: partitioning x size, the size from the exchange's largest
    bytes_sent over the sweep: small < 16 MiB <= medium < 1 GiB <= large.
    The same rule per class, with the class's time = sum of its exchanges'
    duration_s (they overlap: it can exceed the workload's runtime) and its
    memory = sum of their memory_estimate_bytes; the reason given is the `bound`
    those exchanges hit in the recommended configuration. A class whose
    exchanges keep K=1 in every configuration (UNPARTITIONED, ...) is
    recommended a buffer only: K does not apply to it.
    Exchanges failed or cancelled in any configuration are listed, not classed.
"""

import argparse
import html
import itertools
import math
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

if not __package__:  # run as a script: the repository root on sys.path, as for every entry point
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis import remote_scan_report, results  # noqa: E402
from analysis.report_base import (DEFAULT_TIE_TOLERANCE, STYLE, Candidate, Choice, choose, fits,  # noqa: E402
                                  html_table, html_text, page_wide_axes, png, runtime_change, sig3)
from common import atomic  # noqa: E402
from common.figures import place_labels  # noqa: E402
from common.tables import markdown_table  # noqa: E402

MIB = 1 << 20
KIB = 1 << 10
SIZE_CLASSES = (("small", 16 * MIB), ("medium", 1024 * MIB), ("large", float("inf")))
FLAGS_ON_AXES = ("rpcs_in_flight_per_channel", "data_stream_sender_buffer_size")
K_POLICY_FLAGS = ("rpcs_in_flight_policy", "rpcs_in_flight_max")  # said by the K text (Config.k_text)
NEW_CODE = "new Impala code (K>1 or adaptive K)"
FLAGS_ONLY = "flags only"


def time_unit(seconds_values):
    """('ms', 1e3) when every value is below 10 s, else ('s', 1): the unit a table or axis shows times in."""
    return ("ms", 1e3) if max(seconds_values, default=0) < 10 else ("s", 1.0)


def buffer_text(nbytes):
    """16384 -> '16 KiB'; sizes that are not whole KiB stay in bytes."""
    if nbytes % MIB == 0:
        return f"{nbytes // MIB} MiB"
    if nbytes % KIB == 0:
        return f"{nbytes // KIB} KiB"
    return f"{nbytes} B"


def percent(fraction):
    return f"{fraction * 100:g}%"


@dataclass(frozen=True)
class Config:
    """A finished point with the figures the report ranks it by."""

    point: results.Point
    k: int
    buffer_bytes: int
    runtime_s: float
    blocked_s: float
    memory_bytes: int
    fixed_names: frozenset = frozenset()  # grid names with one value over the sweep

    @property
    def exchanges(self):
        return self.point.result["exchanges"]

    @property
    def new_code(self):
        """True when some exchange runs at K > 1 or adapts K, which today's Impala cannot do."""
        return needs_new_code(self.exchanges)

    @property
    def k_text(self):
        """'2', or under an adaptive policy its name, start and cap with the K it kept on average
        (time-weighted over the channels of the exchanges that adapt): 'bdp 1..8 (mean 5.2)'."""
        windows = [x["k_window"] for x in self.exchanges if "k_window" in x]
        if not windows:
            return str(self.k)
        w = windows[0]
        mean = sum(v["k_mean"] for v in windows) / len(windows)
        return f"{w['policy']} {w['k_start']}..{w['k_cap']} (mean {mean:.1f})"

    def label(self, with_k=True):
        """Short text: K and buffer, plus any other grid parameter that varies in the sweep (a grid
        name of one value is a fixed setting: repeating it on every label hides what differs);
        without K where it does not apply."""
        others = (f"{n}={v}" for n, v in self.point.overrides.items()
                  if n not in FLAGS_ON_AXES and n not in self.fixed_names and (n not in K_POLICY_FLAGS or not with_k))
        return ", ".join([*([f"K={self.k_text}"] if with_k else []), f"buffer {buffer_text(self.buffer_bytes)}",
                          *others])


def needs_new_code(exchanges):
    return any(x["k"] > 1 or "k_window" in x for x in exchanges)


@dataclass(frozen=True)
class ClassChoice:
    """The recommendation for one exchange class."""

    partitioning: str
    size: str
    exchange_ids: tuple
    choice: Choice

    @property
    def config(self):
        return self.choice.best.config if self.choice.best else None


def configurations(points):
    """Finished points as Configs, in sweep order (the tie-break of last resort)."""
    configs = []
    values = {}
    for p in points:
        for name, value in p.overrides.items():
            values.setdefault(name, set()).add(value)
    fixed = frozenset(name for name, seen in values.items() if len(seen) == 1)
    for p in results.finished(points):
        flags = p.result["settings"]["flags"]
        configs.append(Config(p, flags["rpcs_in_flight_per_channel"], flags["data_stream_sender_buffer_size"],
                              results.runtime_s(p.summary), p.summary["slowest_sender_blocked_s_total"],
                              results.memory_estimate_bytes(p.result), fixed))
    return configs


def recommend_workload(configs, budget_bytes, tolerance=DEFAULT_TIE_TOLERANCE):
    return choose([Candidate(c.runtime_s, c.memory_bytes, c.new_code, c) for c in configs], budget_bytes, tolerance)


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


def recommend_classes(configs, budget_bytes, tolerance=DEFAULT_TIE_TOLERANCE):
    """One ClassChoice per exchange class, by the workload rule applied to the class's own exchanges."""
    choices = []
    for (partitioning, size), ids in exchange_classes(configs).items():
        members = set(ids)

        def candidate(c):
            xs = [x for x in c.exchanges if x["id"] in members]
            return Candidate(sum(x["duration_s"] for x in xs), sum(x["memory_estimate_bytes"] for x in xs),
                             needs_new_code(xs), c)

        choices.append(ClassChoice(partitioning, size, tuple(ids),
                                   choose([candidate(c) for c in configs], budget_bytes, tolerance)))
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


def config_table(manifest, points, configs, budget_bytes, choice, unit):
    """Every configuration, finished or not, in sweep order."""
    name, scale = unit
    by_id = {c.point.id: c for c in configs}
    front = {c.point.id for c in pareto_front(configs)}
    equal = {c.config.point.id for c in ([choice.best] if choice.best else []) + list(choice.runner_ups)}
    names = [n for n in results.grid_names(manifest) if n not in FLAGS_ON_AXES]  # K and buffer have columns
    header = [*names, "K", "buffer", f"runtime {name}", f"blocked {name}", "memory MiB", "fits budget",
              "within tolerance", "Pareto", "change", "status"]
    rows = []
    for p in points:
        c = by_id.get(p.id)
        figures = [""] * 9
        if c:
            figures = [c.k_text, buffer_text(c.buffer_bytes), sig3(c.runtime_s * scale), sig3(c.blocked_s * scale),
                       sig3(c.memory_bytes / MIB), "yes" if fits(c.memory_bytes, budget_bytes) else "no",
                       "yes" if p.id in equal else "", "yes" if p.id in front else "",
                       NEW_CODE if c.new_code else FLAGS_ONLY]
        if not c:  # not finished: K and buffer as the grid set them
            figures[:2] = [p.overrides.get(FLAGS_ON_AXES[0], ""), p.overrides.get(FLAGS_ON_AXES[1], "")]
        rows.append([*(p.overrides[n] for n in names), *figures, p.status])
    return header, rows


def cost_text(other, best, unit):
    """What choosing `other` instead of `best` costs or saves: runtime, memory, code."""
    name, scale = unit
    parts = []
    if best.runtime_s > 0:
        delta = (other.runtime_s - best.runtime_s) / best.runtime_s
        parts.append(runtime_change(delta))
    else:
        parts.append(f"{sig3((other.runtime_s - best.runtime_s) * scale)} {name}")
    mem = (other.memory_bytes - best.memory_bytes) / MIB
    parts.append(f"{sig3(abs(mem))} MiB {'more' if mem > 0 else 'less'} memory" if mem else "same memory")
    if other.new_code and not best.new_code:
        parts.append("needs new Impala code (K>1 or adaptive K)")
    elif best.new_code and not other.new_code:
        parts.append("flags only")
    return ", ".join(parts)


def runner_up_table(choice, unit):
    name, scale = unit
    header = ["runner-up", f"runtime {name}", "memory MiB", "change", "next to the recommendation"]
    rows = [[c.config.label(), sig3(c.runtime_s * scale), sig3(c.memory_bytes / MIB),
             NEW_CODE if c.new_code else FLAGS_ONLY, cost_text(c, choice.best, unit)]
            for c in choice.runner_ups]
    return header, rows


def class_table(choices, configs, unit):
    """One row per class. K is left out of the recommendation of a class whose exchanges keep K=1 in
    every configuration (UNPARTITIONED, merging, ...): there it does not apply. The class's time is
    the sum of its exchanges' durations, which overlap: it can exceed the workload's runtime."""
    name, scale = unit
    header = ["partitioning", "size", "exchanges", "recommended", "K", "buffer", f"exchange time {name} (sum)",
              "class memory MiB", "equal options", "bound (reason)"]
    rows = []
    for ch in choices:
        if ch.config is None:
            rows.append([ch.partitioning, ch.size, str(len(ch.exchange_ids)), "nothing fits the budget",
                         "", "", "", "", "", ""])
            continue
        xs = class_exchanges(ch)
        best = ch.choice.best
        # K applies where some configuration gave the class's exchanges more than one RPC in flight,
        # at a fixed K or under an adaptive policy: the rule of needs_new_code.
        k_applies = needs_new_code([x for c in configs for x in c.exchanges if x["id"] in ch.exchange_ids])
        recommended = ch.config.label() if k_applies else ch.config.label(with_k=False) + " (K does not apply)"
        rows.append([ch.partitioning, ch.size, str(len(ch.exchange_ids)), recommended,
                     distinct(x["k"] for x in xs), distinct(buffer_text(x["buffer_bytes"]) for x in xs),
                     sig3(best.runtime_s * scale), sig3(best.memory_bytes / MIB),
                     str(1 + len(ch.choice.runner_ups)), bound_reason(xs)])
    return header, rows


def workload_sentences(choice, configs, budget_bytes, tolerance, unit):
    """The recommendation in words (Markdown, `code` spans for names)."""
    name, scale = unit
    if choice.best is None:
        least = min(c.memory_bytes for c in configs)
        return [f"No configuration fits the memory budget (the smallest estimate is {sig3(least / MIB)} MiB)."]
    best, fastest = choice.best.config, choice.fastest.config
    within = "" if budget_bytes is None else f" within the {sig3(budget_bytes / MIB)} MiB budget"
    first = (f"Recommended for the whole workload: {best.label()} (point `{best.point.id}`): runtime "
             f"{sig3(best.runtime_s * scale)} {name}, blocked {sig3(best.blocked_s * scale)} {name}, "
             f"memory estimate {sig3(best.memory_bytes / MIB)} MiB; "
             + ("needs new Impala code (K>1 or adaptive K)." if best.new_code else "a flag-only change (no new Impala code)."))
    if best is fastest:
        why = f"It is the fastest configuration{within}"
    else:
        why = (f"The fastest configuration{within} is {fastest.label()} ({sig3(fastest.runtime_s * scale)} {name}); "
               f"this one is within {percent(tolerance)} of it")
    equals = len(choice.runner_ups)
    why += (f"; {equals} other configuration(s) are within {percent(tolerance)} of the fastest and count as "
            f"equally fast, and among equals a flag-only change comes first, then the least memory."
            if equals else f", and no other configuration is within {percent(tolerance)} of it.")
    return [first, why]


MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", ":", "-.")


def plot_blocked_vs_k(configs, unit):
    """One line per buffer size (and per value of any other grid parameter). Lines that coincide stay
    visible: each has its own marker and line style, and earlier lines draw larger hollow markers."""
    name, scale = unit
    lines = {}
    for c in configs:
        label = c.label(with_k=False)  # K is the x axis (an adaptive policy's: where it starts)
        lines.setdefault(label, []).append((c.k, c.blocked_s * scale))
    fig, ax = page_wide_axes(5)
    n = len(lines)
    for i, ((label, xy), marker, style) in enumerate(zip(lines.items(), itertools.cycle(MARKERS),
                                                          itertools.cycle(LINESTYLES))):
        xy.sort()
        ax.plot([x for x, _ in xy], [y for _, y in xy], marker=marker, linestyle=style, label=label,
                markersize=6 + 2.5 * (n - 1 - i), markerfacecolor="none", markeredgewidth=1.5, linewidth=1.5)
    ks = sorted({c.k for c in configs})
    ax.set_xscale("log", base=2)  # K grids are usually powers of two
    ax.set_xticks(ks, labels=[str(k) for k in ks])
    ax.minorticks_off()
    ax.set_xlabel("K (rpcs_in_flight_per_channel)")
    ax.set_ylabel(f"slowest-sender blocked time, summed ({name})")
    ax.set_title("Blocked time vs K")
    # Below the axes, where it covers no line.
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(0, -0.12), ncols=min(n, 4))
    ax.grid(alpha=0.3)
    return png(fig)


def plot_runtime_vs_memory(configs, best, budget_bytes, unit):
    """Every configuration as a point, each labelled with what varies (points at the same place share
    one label), each label where it overlaps no other label, point or line (common.figures.place_labels);
    the memory axis starts at 0; the Pareto front, the budget and the recommendation marked, the
    legend below the axes. When the recommendation lies off the front, the plot says why."""
    name, scale = unit
    fig, ax = page_wide_axes(6.5)
    ax.scatter([c.memory_bytes / MIB for c in configs], [c.runtime_s * scale for c in configs],
               label="configuration", zorder=2)
    front = pareto_front(configs)
    front_xy = [(c.memory_bytes / MIB, c.runtime_s * scale) for c in front]
    ax.step([x for x, _ in front_xy], [y for _, y in front_xy], where="post",
            color="tab:red", marker="s", markerfacecolor="none", label="Pareto front", zorder=1)
    if budget_bytes is not None:
        ax.axvline(budget_bytes / MIB, color="grey", linestyle="--", label="memory budget")
    if best:
        ax.scatter([best.memory_bytes / MIB], [best.runtime_s * scale], s=250, facecolors="none",
                   edgecolors="tab:green", linewidths=2, label="recommended", zorder=3)
    ax.set_xlabel("memory estimate (MiB)")
    ax.set_ylabel(f"runtime ({name})")
    ax.set_title("Runtime vs memory")
    legend_below = -0.12
    if best and best.point.id not in {c.point.id for c in front}:
        ax.text(0, -0.1, "The recommendation lies off the front: within the tie tolerance of the fastest, a flag-only "
                "change (K=1)\ncomes before a faster or smaller one that needs new Impala code (K>1 or adaptive K).",
                transform=ax.transAxes, fontsize="small", va="top")
        legend_below = -0.2
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(0, legend_below), ncols=4)
    ax.grid(alpha=0.3)
    ax.margins(y=0.25)  # room for the labels above and below the points, inside the axes
    right = max([c.memory_bytes / MIB for c in configs] + ([budget_bytes / MIB] if budget_bytes else []))
    ax.set_xlim(0, right * 1.12 if right > 0 else 1)  # a memory estimate is never negative
    places = {}
    for c in sorted(configs, key=lambda c: (c.memory_bytes, c.runtime_s)):
        places.setdefault((c.memory_bytes / MIB, c.runtime_s * scale), []).append(c.label())
    lines = [[xy for a, b in zip(front_xy, front_xy[1:]) for xy in (a, (b[0], a[1]))] + front_xy[-1:]]  # the steps
    if budget_bytes is not None:
        lines.append([(budget_bytes / MIB, y) for y in ax.get_ylim()])
    place_labels(ax, list(places), [" / ".join(labels) for labels in places.values()], fontsize="small", lines=lines,
                 rings=[(best.memory_bytes / MIB, best.runtime_s * scale, 9)] if best else [])
    return png(fig)


def chosen_configs(configs, best, choices):
    """The configurations worth comparing in the CDF: the recommendations, the fastest overall,
    and the one needing least memory as the reference of what memory buys."""
    chosen = {}
    fastest = min(configs, key=lambda c: (c.runtime_s, c.memory_bytes))
    candidates = [("recommended", best), ("fastest", fastest),
                  ("least memory", min(configs, key=lambda c: (c.memory_bytes, c.runtime_s))),
                  *((f"{ch.partitioning} {ch.size}", ch.config) for ch in choices)]
    for role, c in candidates:
        if c is not None:
            chosen.setdefault(c.point.id, (c, []))[1].append(role)
    return list(chosen.values())


def plot_blocked_cdf(chosen, skipped, unit):
    """Over the exchanges that the classes cover (see left_out)."""
    name, scale = unit
    fig, ax = page_wide_axes(5)
    for (c, roles), style in zip(chosen, itertools.cycle(LINESTYLES)):
        values = sorted(x["slowest_sender_blocked_s"] * scale for x in c.exchanges if x["id"] not in skipped)
        if not values:
            continue
        fractions = [i / len(values) for i in range(len(values) + 1)]
        ax.step([values[0], *values], fractions, where="post", linestyle=style,
                label=f"{c.label()} ({', '.join(roles)})")
    ax.set_xlabel(f"slowest-sender blocked time per exchange ({name})")
    ax.set_ylabel("fraction of exchanges")
    ax.set_title("CDF of per-exchange blocked time")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(0, -0.15))
    ax.grid(alpha=0.3)
    return png(fig)


def plots(configs, choice, choices, skipped, budget_bytes, unit):
    """(title, data URI) of each plot that carries information, and a note on those left out."""
    out, dropped = [], []
    best = choice.best.config if choice.best else None
    if len({c.k for c in configs}) >= 2:
        out.append(("Blocked time vs K, per buffer size", plot_blocked_vs_k(configs, unit)))
    else:
        dropped.append("blocked time vs K (the sweep has one K)")
    if len(configs) >= 2:
        out.append(("Runtime vs memory, Pareto front marked",
                    plot_runtime_vs_memory(configs, best, budget_bytes, unit)))
    covered = {x["id"] for c in configs for x in c.exchanges} - set(skipped)
    if len(covered) >= 2:
        out.append(("CDF of per-exchange blocked time, chosen configurations",
                    plot_blocked_cdf(chosen_configs(configs, best, choices), skipped, unit)))
    else:
        dropped.append(f"the CDF of per-exchange blocked time (the classes cover {len(covered)} exchange)")
    note = f"Not plotted, as it would carry no information: {'; '.join(dropped)}." if dropped else ""
    return out, note


def build(sweep_dir, budget_bytes, tolerance=DEFAULT_TIE_TOLERANCE):
    """(markdown, html) of the report; both say the same things, the HTML adds the plots."""
    manifest = results.load_manifest(sweep_dir)
    points = results.load_points(sweep_dir, manifest)
    if remote_scan_report.is_remote_scan(points):  # another kind of scenario, its own report
        return remote_scan_report.build(sweep_dir, manifest, points, budget_bytes, tolerance)
    configs = configurations(points)
    if not configs:
        raise results.SweepError(f"{sweep_dir}: no finished point to report on")
    unit = time_unit(c.runtime_s for c in configs)
    choice = recommend_workload(configs, budget_bytes, tolerance)
    choices = recommend_classes(configs, budget_bytes, tolerance)
    budget = "none" if budget_bytes is None else f"{sig3(budget_bytes / MIB)} MiB"
    sequential = any(c.point.result.get("settings", {}).get("query_order") == "sequential" for c in configs)
    memory_rule = ("the peak query's estimate (queries run one after another)" if sequential
                   else "every exchange's estimate, summed")
    intro = (f"Sweep `{sweep_dir}` of scenario `{manifest['scenario']}` (sha256 {manifest['scenario_sha256'][:12]}), "
             f"exsim {manifest['exsim_version']}: {len(points)} configurations, {len(configs)} finished. "
             f"Memory budget: {budget}; memory is {memory_rule}. Tie tolerance: {percent(tolerance)} "
             f"(configurations that close to the fastest count as equally fast).")
    sentences = workload_sentences(choice, configs, budget_bytes, tolerance, unit)
    runner_ups = runner_up_table(choice, unit) if choice.best and choice.runner_ups else None
    classes = class_table(choices, configs, unit)
    table = config_table(manifest, points, configs, budget_bytes, choice, unit)
    class_note = ("Per exchange class (the same rule on the class's own exchanges; "
                  "the reason is the resource that bound them in the recommended configuration). A class's "
                  "exchange time is the sum of its exchanges' durations: they run at once, so it can exceed "
                  "the workload's runtime. K does not apply to a class whose exchanges keep K=1 in every "
                  "configuration (UNPARTITIONED, KUDU, DIRECTED, merging):")
    skipped = left_out(configs)
    if skipped:
        class_note += (" Left out, as not ok in some configuration: "
                       + ", ".join(f"`{xid}` ({status})" for xid, status in skipped.items()) + ".")
    runner_note = f"Runner-ups, equally fast within {percent(tolerance)}, best first:"

    markdown = "\n\n".join([
        "# exsim sweep report", intro, "## Recommendation", *sentences,
        *([runner_note, markdown_table(*runner_ups)] if runner_ups else []),
        class_note, markdown_table(*classes),
        "## Configurations", markdown_table(*table)]) + "\n"

    figures, plot_note = plots(configs, choice, choices, skipped, budget_bytes, unit)
    page = "\n".join([
        "<!DOCTYPE html>",
        '<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">'
        "<title>exsim sweep report</title>",
        f"<style>{STYLE}</style></head><body>",
        "<h1>exsim sweep report</h1>", f"<p>{html_text(intro)}</p>",
        "<h2>Recommendation</h2>",
        f'<p class="recommendation" id="recommendation">{html_text(sentences[0])}</p>',
        *(f"<p>{html_text(s)}</p>" for s in sentences[1:]),
        *([f"<p>{html_text(runner_note)}</p>", html_table(*runner_ups)] if runner_ups else []),
        f"<p>{html_text(class_note)}</p>", html_table(*classes),
        "<h2>Configurations</h2>", html_table(*table),
        "<h2>Plots</h2>",
        *(f'<h3>{html.escape(title)}</h3><img alt="{html.escape(title)}" src="{uri}">' for title, uri in figures),
        *([f"<p>{html_text(plot_note)}</p>"] if plot_note else []),
        "</body></html>"]) + "\n"
    return markdown, page


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sweep_dir", metavar="SWEEP_DIR", help="directory written by run_sweep.py")
    parser.add_argument("--memory-budget-mb", type=float, metavar="N",
                        help="memory budget in MiB (2^20 bytes) for the memory estimate; default: none")
    parser.add_argument("--tie-tolerance", type=float, metavar="PERCENT", default=DEFAULT_TIE_TOLERANCE * 100,
                        help="runtimes within this many percent of the fastest count as equal "
                             f"(default {DEFAULT_TIE_TOLERANCE * 100:g})")
    parser.add_argument("--output", required=True, metavar="FILE.html",
                        help="HTML report; the Markdown summary goes beside it with the suffix .md")
    args = parser.parse_args(argv)
    if args.memory_budget_mb is not None and not (math.isfinite(args.memory_budget_mb) and args.memory_budget_mb > 0):
        parser.error(f"--memory-budget-mb {args.memory_budget_mb:g}: expected a positive number of MiB")
    if not 0 <= args.tie_tolerance < 100:
        parser.error("--tie-tolerance: expected a percentage in [0, 100)")
    if Path(args.output).suffix == ".md":
        parser.error("--output: the HTML file; the .md summary is written beside it")
    budget_bytes = None if args.memory_budget_mb is None else args.memory_budget_mb * MIB
    try:
        markdown, page = build(Path(args.sweep_dir), budget_bytes, args.tie_tolerance / 100)
    except results.SweepError as e:
        print(f"report: {e}", file=sys.stderr)
        return 2
    except KeyError as e:
        print(f"report: {args.sweep_dir}: a results file lacks the key {e}; was it written by exsim?",
              file=sys.stderr)
        return 2
    output = Path(args.output)
    try:
        atomic.write_text(output, page)  # creates the folder if need be
    except OSError as e:
        print(f"report: {output}: cannot write the report: {e.strerror}", file=sys.stderr)
        return 2
    atomic.write_text(output.with_suffix(".md"), markdown)
    print(f"report: wrote {output} and {output.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
