"""Rendering rows of figures as a readable text table, a Markdown table, CSV or JSON: the one
place for the look of a table, from `exsim compare` and `exsim diff` to the reports and the
generated pages.

    text = tables.text_table(["counter", "measured"], [["rpcs", 93070]])
    markdown = tables.markdown_table(["C", "makespan s"], [[64, "41.2"]])
"""

import csv
import io
import json
import math

from common import atomic


def fmt_number(v, digits=4):
    """Thousands separators for integers, `digits` significant digits for the rest; '-' for None."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return str(v)
        if v == int(v) and abs(v) < 1e15 and abs(v) >= 1:
            return f"{int(v):,}"
        if v == 0:
            return "0"
        mag = math.floor(math.log10(abs(v)))
        decimals = max(0, digits - 1 - mag)
        return f"{v:,.{decimals}f}"
    return str(v)


def fmt_seconds(v):
    """A duration in s, ms or us, whichever reads best; '-' for None."""
    if v is None:
        return "-"
    a = abs(v)
    if a == 0:
        return "0 s"
    if a < 1e-3:
        return f"{v * 1e6:.1f} us"
    if a < 1:
        return f"{v * 1e3:.2f} ms"
    return f"{v:.3f} s"


def fmt_ratio(v):
    return "-" if v is None else f"{v:.3f}"


def fmt_bytes(v):
    """A size in B, KiB, MiB or GiB, whichever reads best; '-' for None."""
    if v is None:
        return "-"
    a = abs(v)
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if a >= size:
            return f"{v / size:,.2f} {unit}" if unit != "KiB" else f"{v / size:,.1f} {unit}"
    return f"{int(v) if v == int(v) else v} B"


def figure_kind(name):
    """What a figure counts, read from its name (the results name each figure with its unit):
    "seconds" (..._s, ..._s_total, ..._s_mean, ...), "requests" (RPCs, GETs), "bytes", else "other"."""
    low = name.lower()
    if low.endswith("_s") or "_s_" in low:
        return "seconds"
    if "bytes" in low or "size" in low:
        return "bytes"
    if "rpc" in low or "gets" in low:
        return "requests"
    return "other"


def fmt_value(name, v):
    """A figure's value in the unit its name says: seconds in s, ms or us; bytes in B to GiB;
    numbers otherwise."""
    kind = figure_kind(name)
    if kind == "seconds":
        return fmt_seconds(v)
    if kind == "bytes" and isinstance(v, (int, float)) and not isinstance(v, bool):
        return fmt_bytes(v)
    return fmt_number(v)


# A difference of seconds smaller than this, or than this share of its query's runtime, is not what
# a headline is about: the requests or bytes that moved are.
NEGLIGIBLE_S = 1e-3
NEGLIGIBLE_SHARE = 0.01
_KIND_ORDER = {"seconds": 4, "requests": 3, "bytes": 2, "other": 1}
# Spans (when an exchange or an executor ended, how long it lasted) follow their query's runtime,
# which the headline gives: they rank after the waits and times that explain it, before requests.
SPANS = ("duration_s", "end_s")


def decision_rank(name, a, b, runtime_s=None):
    """How much the difference between a and b matters to someone deciding on K, a buffer size or a
    code change, as a sort key (larger first): seconds first, by the seconds gained or lost; then
    RPCs, then bytes, then the rest, each by its relative change (|log(b / a)|); spans (SPANS) after
    the other seconds; seconds that moved less than NEGLIGIBLE_S or NEGLIGIBLE_SHARE of `runtime_s`
    come last. A figure on one side only
    ranks first of its kind; one that did not move, or is not a number, ranks below every other."""
    num = [isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b)]
    kind = figure_kind(name)
    if not any(num):
        return (-1, 0.0)
    if not all(num):
        return (_KIND_ORDER[kind], math.inf)
    if a == b:
        return (-1, 0.0)
    if kind == "seconds":
        d = abs(b - a)
        if d < max(NEGLIGIBLE_S, NEGLIGIBLE_SHARE * (runtime_s or 0)):
            return (0, d)
        return (_KIND_ORDER[kind] - (0.5 if name in SPANS else 0), d)
    rel = abs(math.log(b / a)) if a > 0 and b > 0 else math.inf
    return (_KIND_ORDER[kind], rel)


def text_table(header, rows, indent="  "):
    """Left-aligned first column, right-aligned numbers."""
    cells = [[str(h) for h in header]] + [[fmt_number(c) if not isinstance(c, str) else c for c in r]
                                         for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = []
    for k, r in enumerate(cells):
        parts = [r[0].ljust(widths[0])] + [r[i].rjust(widths[i]) for i in range(1, len(r))]
        lines.append(indent + "  ".join(parts).rstrip())
        if k == 0:
            lines.append(indent + "  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"


def markdown_table(header, rows):
    """A Markdown table: the header, the rule, a line per row, no newline after the last. A cell is
    str() of its value, with `|` escaped so that it stays in its column."""
    def line(cells):
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"
    return "\n".join([line(header), "|" + "---|" * len(header)] + [line(r) for r in rows])


def replace_block(text, begin, end, block):
    """`text` with what lies between its marker lines `begin` and `end` replaced by `block` (which
    ends with a newline); ValueError when a marker is missing. How a page's generated tables are
    kept up to date."""
    if begin not in text or end not in text:
        raise ValueError("no %s ... %s block to replace" % (begin, end))
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return head + begin + "\n" + block + end + tail


def replace_block_in_file(path, begin, end, block):
    """replace_block on a file (a Markdown page), written atomically; the ValueError names the file."""
    with open(path, "r", encoding="utf-8") as f:
        text = f.read()
    try:
        replaced = replace_block(text, begin, end, block)
    except ValueError as e:
        raise ValueError("%s: %s" % (path, e)) from None
    atomic.write_text(path, replaced)


def csv_text(header, rows):
    """CSV with a header row and "\\n" line ends; None is an empty cell."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow(["" if c is None else c for c in r])
    return buf.getvalue()


def json_text(obj):
    return json.dumps(obj, indent=2, sort_keys=False) + "\n"


def ratio(a, b):
    """b / a, None when undefined."""
    if a is None or b is None:
        return None
    if a == 0:
        return None if b != 0 else 1.0
    return b / a


def change(a, b):
    """(b - a, relative change) with None where undefined."""
    if a is None or b is None:
        return None, None
    d = b - a
    return d, (d / a if a else None)
