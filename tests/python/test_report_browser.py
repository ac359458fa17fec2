"""The sweep report as a reader sees it: rendered by headless Chromium (Debian's `chromium`).

Skipped where /usr/bin/chromium is absent; scripts/setup.sh installs it for the tests and CI.
The page is laid out in a 1280-pixel window and measured by a script inside it
(tools/render_report.py): the recommendation is there, every plot image loaded,
no table is wider than the window.
"""

import os

import pytest

from conftest import SCENARIO, run_script
from tools import render_report

pytestmark = pytest.mark.skipif(not os.access(render_report.CHROMIUM, os.X_OK),
                                reason=f"{render_report.CHROMIUM} is not installed (apt-get install chromium)")


def test_readme_report_renders_with_its_recommendation_plots_and_tables(exsim, tmp_path):
    sweep_dir = tmp_path / "sweep"
    proc = run_script("run_sweep.py", SCENARIO, "--grid", "rpcs_in_flight_per_channel=1,2,4",
                      "--grid", "data_stream_sender_buffer_size=16384,65536,131072", "--exsim", exsim,
                      "--out", sweep_dir)
    assert proc.returncode == 0, proc.stderr
    report = sweep_dir / "report.html"
    proc = run_script("analysis/report.py", sweep_dir, "--memory-budget-mb", "64", "--output", report)
    assert proc.returncode == 0, proc.stderr

    m = render_report.measure(report)
    print({k: v for k, v in m.items() if k != "text"})
    assert m["recommendation"].startswith("Recommended for the whole workload: K=1, buffer 64 KiB")
    assert "Runner-ups, equally fast within 2%" in m["text"]
    assert len(m["images"]) == 2  # blocked vs K, runtime vs memory (one exchange: no CDF)
    assert all(img["complete"] and img["naturalWidth"] > 0 for img in m["images"]), m["images"]
    assert all(img["width"] >= 1000 for img in m["images"]), m["images"]  # the page's width, not a third of it
    assert len(m["tables"]) == 3
    assert all(t["width"] <= m["viewport"] for t in m["tables"]), m["tables"]
    assert m["pageWidth"] <= m["viewport"]
    assert render_report.problems(m) == []

    png = render_report.screenshot(report, tmp_path / "report.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_check_sees_a_broken_image_and_an_overflowing_table(tmp_path):
    wide = "<table><tr>" + "".join(f"<th>column_with_a_long_name_{i}</th>" for i in range(60)) + "</tr></table>"
    page = tmp_path / "broken.html"
    page.write_text('<!DOCTYPE html><html><body><p id="recommendation">x</p>'
                    '<img alt="broken" src="data:image/png;base64,bm90IGEgcG5n">' + wide + "</body></html>")
    found = render_report.problems(render_report.measure(page))
    assert any("image 'broken' did not load" in p for p in found), found
    assert any("wider than the 1280 px viewport" in p for p in found), found
