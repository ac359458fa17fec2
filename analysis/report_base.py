"""What both sweep reports are made of: the rule that picks a configuration, and the pieces of
their pages. report.py (exchanges) hands a remote-scan sweep to remote_scan_report.py; both build
on this module, which imports neither.

The rule (report.py's docstring says it in full): configurations whose memory fits the budget
(no budget: all fit) and whose runtime is within the tie tolerance of the fastest of them are
equals; among equals a flag-only change comes first, then the least memory, then the fastest,
then the order given.
"""

import base64
import html
import math
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")  # no display needed; must precede pyplot
import matplotlib.pyplot as plt  # noqa: E402

from common.figures import png_bytes  # noqa: E402

DEFAULT_TIE_TOLERANCE = 0.02
PAGE_WIDTH_PX = 1200  # the body's max-width below (75em of 16 px)
FIGURE_DPI = 100
FIGURE_WIDTH_IN = PAGE_WIDTH_PX / FIGURE_DPI  # a plot as wide as the page's text
STYLE = ("body{font-family:sans-serif;max-width:75em;margin:auto;padding:0 1em}"
         ".table{max-width:100%;overflow-x:auto}table{border-collapse:collapse;font-size:90%}"
         "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}th{background:#f4f4f4}td.num{text-align:right}"
         "code{background:#eee;overflow-wrap:anywhere}"
         "img{display:block;width:100%;height:auto}p.recommendation{font-size:110%}")  # a plot spans the page


@dataclass(frozen=True)
class Candidate:
    """A configuration's figures for one ranking (the workload's, or one exchange class's)."""

    runtime_s: float
    memory_bytes: int
    new_code: bool
    config: object  # what is ranked: a report.Config, a remote_scan_report.ScanConfig


@dataclass(frozen=True)
class Choice:
    """The outcome of a ranking: the pick, the fastest fitting candidate, and the other equals."""

    best: Candidate | None
    fastest: Candidate | None
    runner_ups: tuple  # the other candidates within the tolerance of the fastest, best first


def preference(c):
    """Among equals: flag-only first, then least memory, then fastest (min() then keeps sweep order)."""
    return (c.new_code, c.memory_bytes, c.runtime_s)


def choose(candidates, budget_bytes, tolerance):
    """The pick among candidates: of those that fit the budget, the ones within `tolerance` of the fastest
    are equals, and among equals the first by preference()."""
    fitting = [c for c in candidates if fits(c.memory_bytes, budget_bytes)]
    if not fitting:
        return Choice(None, None, ())
    fastest = min(fitting, key=lambda c: (c.runtime_s, c.memory_bytes))
    equals = sorted((c for c in fitting if c.runtime_s <= fastest.runtime_s * (1 + tolerance)), key=preference)
    return Choice(equals[0], fastest, tuple(equals[1:]))


def fits(memory_bytes, budget_bytes):
    return budget_bytes is None or memory_bytes <= budget_bytes


def sig3(value):
    """A number with 3 significant digits, never in exponent form: 0.00116, 4.55, 36.4, 110, 1,230."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    exponent = math.floor(math.log10(abs(value)))
    return f"{round(value, 2 - exponent):,.{max(0, 2 - exponent)}f}"


def runtime_change(fraction):
    """How much slower or faster, as a reader can use it: runtimes are not known better than to a
    tenth of a percent, so below 0.1% 'within 0.1%', else one decimal: '0.3% faster', '1.5% slower'."""
    if fraction == 0:
        return "as fast"
    if abs(fraction) < 0.001:
        return "within 0.1%"
    return f"{abs(fraction) * 100:.1f}% {'slower' if fraction > 0 else 'faster'}"


def is_number(cell):
    try:
        float(cell.replace(",", ""))
        return True
    except ValueError:
        return False


def html_table(header, rows):
    """Numbers right-aligned, text left-aligned; wrapped so that a narrow window scrolls the table, not the page."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f'<td class="num">{html.escape(c)}</td>' if is_number(c)
                                     else f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f'<div class="table"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def html_text(markdown_line):
    """Escape a Markdown sentence for HTML, turning its `code` spans into <code>: no backtick is left."""
    parts = html.escape(markdown_line).split("`")
    return "".join(f"<code>{part}</code>" if i % 2 else part for i, part in enumerate(parts))


def page_wide_axes(height_in, rows=1):
    """A figure as wide as the page's text whose axes span it (the axis labels in the margin left)."""
    fig, axes = plt.subplots(rows, 1, figsize=(FIGURE_WIDTH_IN, height_in), sharex=rows > 1)
    fig.subplots_adjust(left=0.07, right=0.985)
    return fig, axes


def png(fig):
    """A figure as an inline data URI; fixed metadata keeps the bytes reproducible."""
    return "data:image/png;base64," + base64.b64encode(png_bytes(fig, dpi=FIGURE_DPI, tight=True)).decode("ascii")
