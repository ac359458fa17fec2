"""The sweep report for remote-scan results ("kind": "remote_scan"): which
executorSplitPrefetchConcurrency (C) to use under a memory budget, and why.

analysis/report.py hands a sweep to build() when its results are of this kind;
the command line and the outputs (one self-contained HTML file, a Markdown
summary beside it) are report.py's, the ranking rule and the page's pieces
report_base.py's. Rules, so that the numbers can be checked
by hand:
  - runtime of a configuration: summary.makespan_s;
  - memory: summary.bytes_reserved_peak, the most bytes any executor held in
    its prefetch byte window at once (splits loading, or loaded and not yet
    taken by a scan driver): the memory the prefetch needs per executor;
  - when `seed` is a grid axis, the points that differ only in the seed are
    one configuration: its runtime is their median makespan, its memory their
    largest bytes_reserved_peak, its bound the median run's;
  - recommended: among the configurations whose memory fits the budget and
    whose makespan is within the tie tolerance of the fastest (--tie-tolerance,
    2% by default), the one with the least memory, then by sweep order;
  - the reason given is the configuration's `bound` (window, nic, s3_stream,
    consumer) and, for a window, which one was full longest (window_limit):
    prefetch_concurrency (C), prefetch_bytes, plan_ahead or gets_in_flight.
"""

from dataclasses import dataclass

from analysis import results
from analysis.report_base import (DEFAULT_TIE_TOLERANCE, STYLE, Candidate, choose, fits, html_table, html_text,
                                  page_wide_axes, png, sig3)
from common.tables import markdown_table

MIB = 1 << 20


C_AXIS = "executorSplitPrefetchConcurrency"
REPLICA_AXIS = "seed"


@dataclass(frozen=True)
class ScanConfig:
    """A configuration (its points over seeds) with the figures the report ranks it by."""

    point: results.Point  # the median run
    id: str  # the overrides without the seed
    seeds: int
    c: int
    runtime_s: float
    memory_bytes: int
    bound: str
    window_limit: str

    def others(self):
        """The grid values other than C and the seed: the line this configuration belongs to in the plot."""
        return ", ".join(f"{n}={v}" for n, v in self.point.overrides.items()
                         if n not in (C_AXIS, REPLICA_AXIS)) or "C only"


def is_remote_scan(points):
    return any(p.result.get("kind") == "remote_scan" for p in results.finished(points))


def configurations(points):
    """One ScanConfig per configuration, in sweep order of its first point."""
    groups = {}
    for p in results.finished(points):
        key = ",".join(f"{n}={v}" for n, v in p.overrides.items() if n != REPLICA_AXIS)
        groups.setdefault(key, []).append(p)
    configs = []
    for key, ps in groups.items():
        runs = sorted(ps, key=lambda p: p.summary["makespan_s"])
        median = runs[(len(runs) - 1) // 2]
        s = median.summary
        configs.append(ScanConfig(median, key, len(ps), median.result["settings"]["prefetch"][C_AXIS],
                                  s["makespan_s"], max(p.summary["bytes_reserved_peak"] for p in ps), s["bound"],
                                  s["window_limit"]))
    return configs


def recommend(configs, budget_bytes, tolerance=DEFAULT_TIE_TOLERANCE):
    """The exchange report's rule: among configurations within `tolerance` of the fastest that
    fit the budget, the one reserving the least memory (a prefetch change needs no new code)."""
    choice = choose([Candidate(c.runtime_s, c.memory_bytes, False, c) for c in configs],
                           budget_bytes, tolerance)
    return choice.best.config if choice.best else None


def reason(c):
    return c.bound + (f" ({c.window_limit})" if c.bound == "window" else "")


def config_table(manifest, points, configs, budget_bytes):
    """Every point, finished or not, in sweep order, with its own figures."""
    header = [*results.grid_names(manifest), "C", "makespan s", "bytes reserved peak MiB", "fits budget",
              "bound (window)", "first split s", "planned then", "status"]
    rows = []
    for p in points:
        figures = [""] * 7
        if p.result:
            s = p.summary
            figures = [str(p.result["settings"]["prefetch"][C_AXIS]), sig3(s["makespan_s"]),
                       sig3(s["bytes_reserved_peak"] / MIB),
                       "yes" if fits(s["bytes_reserved_peak"], budget_bytes) else "no",
                       s["bound"] + (f" ({s['window_limit']})" if s["bound"] == "window" else ""),
                       sig3(s["first_split_s"]), str(s["planned_at_first_split"])]
        rows.append([*p.overrides.values(), *figures, p.status])
    return header, rows


def sentence(best, configs, budget_bytes):
    if best is None:
        least = min(c.memory_bytes for c in configs)
        return (f"No configuration fits the memory budget (the smallest bytes reserved peak is "
                f"{sig3(least / MIB)} MiB).")
    within = ("the least memory among the configurations tied with the fastest." if budget_bytes is None
              else f"the least memory among the configurations tied with the fastest within the "
                   f"{sig3(budget_bytes / MIB)} MiB budget.")
    over = f" (median of {best.seeds} seeds)" if best.seeds > 1 else ""
    return (f"Recommended: `{best.id}` (C={best.c}): makespan {sig3(best.runtime_s)} s{over}, bytes "
            f"reserved peak {sig3(best.memory_bytes / MIB)} MiB per executor, bound {reason(best)}; "
            + within)


def regimes(configs):
    """'C=16-32: window (prefetch_concurrency); C=48-256: window (plan_ahead)' per line of the grid."""
    out = []
    lines = {}
    for c in configs:
        lines.setdefault(c.others(), []).append(c)
    for name, members in lines.items():
        members.sort(key=lambda c: c.c)
        parts, start = [], 0
        for i in range(1, len(members) + 1):
            if i == len(members) or reason(members[i]) != reason(members[start]):
                lo, hi = members[start].c, members[i - 1].c
                parts.append(f"C={lo}{'' if lo == hi else f'-{hi}'}: {reason(members[start])}")
                start = i
        out.append(f"{name}: " + "; ".join(parts))
    return out


def plot(configs, best, budget_bytes):
    fig, (top, bottom) = page_wide_axes(8, rows=2)
    lines = {}
    for c in configs:
        lines.setdefault(c.others(), []).append(c)
    for name, members in lines.items():
        members.sort(key=lambda c: c.c)
        top.plot([c.c for c in members], [c.runtime_s for c in members], marker="o", label=name)
        bottom.plot([c.c for c in members], [c.memory_bytes / MIB for c in members], marker="s", label=name)
    if best:
        top.scatter([best.c], [best.runtime_s], s=200, facecolors="none", edgecolors="tab:green", linewidths=2,
                    label="recommended", zorder=3)
    if budget_bytes is not None:
        bottom.axhline(budget_bytes / MIB, color="grey", linestyle="--", label="memory budget")
    cs = sorted({c.c for c in configs})
    bottom.set_xscale("log", base=2)
    bottom.set_xticks(cs, labels=[str(c) for c in cs])
    bottom.minorticks_off()
    bottom.set_xlabel("C (executorSplitPrefetchConcurrency)")
    top.set_ylabel("makespan (s)")
    bottom.set_ylabel("bytes reserved peak (MiB)")
    top.set_title("Makespan and prefetch memory vs C")
    for ax in (top, bottom):
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
    return png(fig)


def build(sweep_dir, manifest, points, budget_bytes, tolerance=DEFAULT_TIE_TOLERANCE):
    """(markdown, html) of the report for a remote-scan sweep."""
    configs = configurations(points)
    if not configs:
        raise results.SweepError(f"{sweep_dir}: no finished point to report on")
    best = recommend(configs, budget_bytes, tolerance)
    budget = "none" if budget_bytes is None else f"{sig3(budget_bytes / MIB)} MiB"
    intro = (f"Remote-scan sweep `{sweep_dir}` of scenario `{manifest['scenario']}` (sha256 "
             f"{manifest['scenario_sha256'][:12]}), exsim {manifest['exsim_version']}: {len(points)} points, "
             f"{len(results.finished(points))} finished, {len(configs)} configurations. Memory budget (bytes reserved "
             f"peak per executor): {budget}.")
    rec = sentence(best, configs, budget_bytes)
    regime_lines = regimes(configs)
    table = config_table(manifest, points, configs, budget_bytes)
    markdown = "\n\n".join([
        "# exsim sweep report (remote scan)", intro, "## Recommendation", rec,
        "What bounds each regime:\n\n" + "\n".join(f"- {line}" for line in regime_lines),
        "## Configurations", markdown_table(*table)]) + "\n"
    page = "\n".join([
        "<!DOCTYPE html>", '<html><head><meta charset="utf-8"><title>exsim sweep report (remote scan)</title>',
        f"<style>{STYLE}</style></head><body>",
        "<h1>exsim sweep report (remote scan)</h1>", f"<p>{html_text(intro)}</p>",
        "<h2>Recommendation</h2>", f'<p class="recommendation" id="recommendation">{html_text(rec)}</p>',
        "<p>What bounds each regime:</p><ul>" + "".join(f"<li>{html_text(x)}</li>" for x in regime_lines)
        + "</ul>",
        "<h2>Configurations</h2>", html_table(*table),
        "<h2>Plot</h2>",
        f'<img alt="makespan and bytes reserved vs C" src="{plot(configs, best, budget_bytes)}">',
        "</body></html>"]) + "\n"
    return markdown, page
