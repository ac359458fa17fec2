#!/usr/bin/python3
"""Render a sweep report (analysis/report.py's HTML) in headless Chromium, as a reader's browser would.

Checks the page as laid out: the recommendation is there, every image loaded
(naturalWidth > 0), no table and no page wider than the viewport; optionally
takes a full-page screenshot. Uses Debian's `chromium` package, with no
network, a fresh profile and no sandbox (it runs as root in CI):

    tools/render_report.py sweeps/hash_5x5/report.html                 # prints the checks, exit 1 if one fails
    tools/render_report.py REPORT.html --screenshot docs/figures/report_example.png

The checks run in the page itself: a copy of the report gets a script that
measures the laid-out page on `load` and writes the figures into the DOM as
JSON, which `chromium --dump-dom` returns.
"""

import argparse
import html
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

if not __package__:  # run as a script: the repository root on sys.path, as for every entry point
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CHROMIUM = "/usr/bin/chromium"
WIDTH = 1280  # a laptop's browser window, CSS pixels
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--virtual-time-budget=10000"]
CHECK_ID = "exsim-browser-check"
CHECK_SCRIPT = """<script>
window.addEventListener("load", function () {
  var viewport = document.documentElement.clientWidth;
  var images = Array.prototype.map.call(document.images, function (i) {
    return {alt: i.alt, complete: i.complete, naturalWidth: i.naturalWidth, width: i.getBoundingClientRect().width};
  });
  var tables = Array.prototype.map.call(document.querySelectorAll("table"), function (t) {
    return {width: t.getBoundingClientRect().width, firstHeader: (t.querySelector("th") || {}).textContent || ""};
  });
  var rec = document.getElementById("recommendation");
  var out = document.createElement("pre");
  out.id = "%s";
  out.textContent = JSON.stringify({
    viewport: viewport, pageWidth: document.documentElement.scrollWidth,
    pageHeight: document.documentElement.scrollHeight,
    recommendation: rec ? rec.textContent : null, images: images, tables: tables,
    text: document.body.innerText
  });
  document.body.appendChild(out);
});
</script>""" % CHECK_ID


class RenderError(Exception):
    """Chromium is missing, failed, or returned no measurements; the message says which."""


def _chromium(args, timeout=120):
    if not os.access(CHROMIUM, os.X_OK):
        raise RenderError(f"{CHROMIUM} not found: apt-get install chromium (scripts/setup.sh does)")
    with tempfile.TemporaryDirectory(prefix="exsim-chromium.") as profile:
        proc = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True,
                              text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise RenderError(f"chromium exited with status {proc.returncode}: {proc.stderr[-2000:]}")
    return proc.stdout


def measure(report_html, width=WIDTH):
    """Lay the report out in a window `width` CSS pixels wide and return what the page measured."""
    text = Path(report_html).read_text(encoding="utf-8")
    if "</body>" not in text:
        raise RenderError(f"{report_html}: no </body>; is it a report?")
    with tempfile.TemporaryDirectory(prefix="exsim-render.") as tmp:
        page = Path(tmp) / "report.html"
        page.write_text(text.replace("</body>", CHECK_SCRIPT + "</body>", 1), encoding="utf-8")
        dom = _chromium([f"--window-size={width},900", "--dump-dom", page.as_uri()])
    match = re.search(r'<pre id="%s">(.*?)</pre>' % CHECK_ID, dom, re.S)
    if not match:
        raise RenderError("the page's check script did not run (no measurements in the DOM)")
    return json.loads(html.unescape(match.group(1)))


def problems(m):
    """What a reader would see as broken, from measure()'s figures; empty when the page is fine."""
    out = []
    if not m["recommendation"]:
        out.append("no recommendation paragraph (id=recommendation)")
    for img in m["images"]:
        if not img["complete"] or img["naturalWidth"] <= 0:
            out.append(f"image {img['alt']!r} did not load")
    for t in m["tables"]:
        if t["width"] > m["viewport"]:
            out.append(f"table starting {t['firstHeader']!r} is {t['width']:.0f} px wide, "
                       f"wider than the {m['viewport']} px viewport")
    if m["pageWidth"] > m["viewport"]:
        out.append(f"the page is {m['pageWidth']} px wide, wider than the {m['viewport']} px viewport")
    return out


def screenshot(report_html, png, width=WIDTH):
    """A full-page PNG of the report: the window is made as tall as the laid-out page."""
    height = min(int(measure(report_html, width)["pageHeight"]) + 20, 16000)
    png = Path(png).resolve()
    _chromium([f"--window-size={width},{height}", f"--screenshot={png}", Path(report_html).resolve().as_uri()])
    if not png.exists() or png.stat().st_size == 0:
        raise RenderError(f"chromium wrote no screenshot to {png}")
    return png


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report", metavar="REPORT.html")
    parser.add_argument("--width", type=int, default=WIDTH, help=f"window width in CSS pixels (default {WIDTH})")
    parser.add_argument("--screenshot", metavar="FILE.png", help="also write a full-page screenshot")
    args = parser.parse_args(argv)
    try:
        m = measure(args.report, args.width)
        if args.screenshot:
            screenshot(args.report, args.screenshot, args.width)
    except (RenderError, OSError, subprocess.TimeoutExpired) as e:
        print(f"render_report: {e}", file=sys.stderr)
        return 2
    found = problems(m)
    print(f"render_report: {args.report}: {len(m['images'])} image(s), {len(m['tables'])} table(s), "
          f"page {m['pageWidth']}x{m['pageHeight']} px in a {m['viewport']} px viewport")
    for p in found:
        print(f"render_report: {p}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
