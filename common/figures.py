"""A matplotlib figure as PNG bytes, the same way everywhere: fixed metadata (no software version
in the file), so that the same figure gives the same bytes; the figure is closed. And labels for
the points of a plot that overlap neither each other nor the markers and lines.

    from common.figures import png_bytes
    atomic.write_bytes("out.png", png_bytes(fig, dpi=110))
"""

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.text import Text  # noqa: E402
from matplotlib.transforms import Bbox  # noqa: E402


def png_bytes(fig, dpi=100, tight=False):
    """PNG of `fig` at `dpi`; `tight` crops to what is drawn (bbox_inches="tight")."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None}, **({"bbox_inches": "tight"} if tight else {}))
    plt.close(fig)
    return buf.getvalue()


# Where place_labels tries a label: (dx, dy) directions from the point, and the alignment that
# keeps the text on that side of it. Next to the point any side; further out (with a leader line)
# straight above or below first, where a column of labels over a row of points stays readable.
DIRECTIONS = ((0, 1, "center", "bottom"), (0, -1, "center", "top"), (1, 0, "left", "center"),
              (-1, 0, "right", "center"), (1, 1, "left", "bottom"), (1, -1, "left", "top"),
              (-1, 1, "right", "bottom"), (-1, -1, "right", "top"))
DISTANCES_PT = (6, 16, 28, 40, 52, 64, 76)
CANDIDATES = ([(DISTANCES_PT[0], d) for d in DIRECTIONS]
              + [(far, d) for far in DISTANCES_PT[1:] for d in DIRECTIONS[:2]]
              + [(far, d) for far in DISTANCES_PT[1:] for d in DIRECTIONS[2:]])
GAP_PX = 2  # the least room between a label and anything else, above and below
SPACE_PX = 5  # and beside it: two labels on one line closer than a space read as one


def place_labels(ax, points, texts, *, lines=(), avoid=(), marker_pt=3.5, rings=(), colors=None, **text_kw):
    """Label every point of `points` ([(x, y)] in data coordinates) with its text, each where it
    overlaps no other label, no marker, no line of `lines` ([[(x, y), ...], ...]) and no box of
    `avoid` (display-space Bboxes, e.g. a legend's) or of `rings` ([(x, y, radius in points)]: larger
    markers drawn over some points), and stays inside the axes: the nearest free place around the
    point that is nearer to it than to any other point, else further out with a thin leader line.
    A label with no free place goes above its point (the test of a plot can see it). Set the axes'
    limits first: the places are measured on the figure as drawn. Returns the annotations."""
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    r = marker_pt * fig.dpi / 72
    obstacles = list(avoid)
    pixels = [tuple(ax.transData.transform((x, y))) for x, y in points]
    for px, py in pixels:
        obstacles.append(Bbox.from_extents(px - r, py - r, px + r, py + r))
    for x, y, radius_pt in rings:
        px, py = ax.transData.transform((x, y))
        radius = radius_pt * fig.dpi / 72
        obstacles.append(Bbox.from_extents(px - radius, py - radius, px + radius, py + radius))
    for line in lines:
        obstacles += _line_boxes(ax.transData.transform(list(line)))
    placed = []
    out = []
    for i, ((x, y), text) in enumerate(zip(points, texts)):
        color = colors[i] if colors else None
        chosen = None
        for distance, (dx, dy, ha, va) in CANDIDATES:
            leader = distance > DISTANCES_PT[0]
            ann = _annotate(ax, text, (x, y), (dx * distance, dy * distance), ha, va, leader=leader, color=color,
                            **text_kw)
            box = _text_box(ann, renderer)
            px, py = pixels[i]
            scale = fig.dpi / 72
            # The leader line, from the point to the text's near edge, crosses no label either.
            segment = _line_boxes([(px, py), (px + dx * distance * scale, py + dy * distance * scale)]) \
                if leader else []
            free = (frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1
                    and not any(box.overlaps(o) for o in obstacles)
                    and not any(b.overlaps(box) or any(b.overlaps(o) for o in segment) for b in placed)
                    and (leader or _nearest(box, pixels) == i))  # else it reads as another point's
            if free:
                chosen = (ann, box)
                obstacles += segment
                break
            ann.remove()
        if not chosen:
            ann = _annotate(ax, text, (x, y), (0, DISTANCES_PT[0]), "center", "bottom", leader=False,
                            color=color, **text_kw)
            chosen = (ann, _text_box(ann, renderer))
        placed.append(chosen[1])
        out.append(chosen[0])
    return out


def _annotate(ax, text, xy, offset, ha, va, leader, color, **text_kw):
    arrow = {"arrowprops": {"arrowstyle": "-", "color": "0.55", "linewidth": 0.6, "shrinkA": 1, "shrinkB": 3}}
    return ax.annotate(text, xy, xytext=offset, textcoords="offset points", ha=ha, va=va,
                       **({"color": color} if color else {}), **(arrow if leader else {}), **text_kw)


def _nearest(box, pixels):
    """The index of the point nearest to a box (display coordinates)."""
    def gap(p):
        dx = max(box.x0 - p[0], 0, p[0] - box.x1)
        dy = max(box.y0 - p[1], 0, p[1] - box.y1)
        return dx * dx + dy * dy
    return min(range(len(pixels)), key=lambda k: gap(pixels[k]))


def _text_box(ann, renderer):
    """The drawn box of an annotation's text alone (not its leader line), with the gap around it."""
    ann.update_positions(renderer)
    box = Text.get_window_extent(ann, renderer)
    return Bbox.from_extents(box.x0 - SPACE_PX, box.y0 - GAP_PX, box.x1 + SPACE_PX, box.y1 + GAP_PX)


def _line_boxes(pixels, step=3.0):
    """Small boxes every `step` pixels along a polyline given in display coordinates."""
    boxes = []
    for (x0, y0), (x1, y1) in zip(pixels, pixels[1:]):
        n = max(1, int(((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5 / step))
        for k in range(n + 1):
            x, y = x0 + (x1 - x0) * k / n, y0 + (y1 - y0) * k / n
            boxes.append(Bbox.from_extents(x - 1, y - 1, x + 1, y + 1))
    return boxes


def overlapping_labels(ax, texts=None):
    """[(text, text)] of the axes' labels whose drawn boxes overlap: what a test of a plot checks."""
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = list(ax.texts if texts is None else texts)
    boxes = []
    for t in texts:
        if hasattr(t, "update_positions"):
            t.update_positions(renderer)
        boxes.append(Text.get_window_extent(t, renderer))
    return [(texts[i].get_text(), texts[j].get_text()) for i in range(len(texts)) for j in range(i + 1, len(texts))
            if boxes[i].overlaps(boxes[j])]


def crossing_leaders(ax):
    """[(label, label)] where the first label's leader line crosses the second label's text."""
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = [t for t in ax.texts if hasattr(t, "update_positions")]
    boxes = []
    for t in texts:
        t.update_positions(renderer)
        boxes.append(Text.get_window_extent(t, renderer))
    out = []
    for t in texts:
        if getattr(t, "arrow_patch", None) is None:
            continue
        x, y = ax.transData.transform(t.xy)
        dx, dy = (v * fig.dpi / 72 for v in t.xyann)
        segment = _line_boxes([(x, y), (x + dx, y + dy)])
        out += [(t.get_text(), u.get_text()) for u, box in zip(texts, boxes)
                if u is not t and any(box.overlaps(s) for s in segment)]
    return out
