"""The files generated from the simulator's tables (tools/parameter_docs.py): the committed ones are
what the simulator gives, and Python reads the committed parameter table when no simulator is built.

Run: /usr/bin/python3 -m pytest tests/python/test_parameter_docs.py -q
"""

import json

import pytest

from common import exsim_runner, generated_files
from tools import parameter_docs


def test_committed_files_are_what_the_table_generates(exsim):
    for path, text in parameter_docs.generated(exsim).items():
        committed = path.read_text(encoding="utf-8") if path.exists() else ""
        assert committed == text, (f"{path.relative_to(parameter_docs.REPO)} differs from what the simulator's "
                                   f"tables generate; regenerate with: {parameter_docs.COMMAND}")


def test_every_marked_table_is_filled_from_its_section():
    text = parameter_docs.README.read_text(encoding="utf-8")
    sections = generated_files.marked_sections(text, "parameters")
    assert {"scenario", "cluster", "flags", "costs", "query", "fragment", "exchange"} <= set(sections)
    doc = json.loads(parameter_docs.PARAMETERS.read_text(encoding="utf-8"))
    flags = [r for r in doc["parameters"] if r["section"] == "flags"]
    table = parameter_docs.section_table(flags)
    assert table.splitlines()[0] == "| key | unit | default | check | meaning |"
    assert len(table.splitlines()) == 2 + len(flags)
    first = flags[0]
    assert f"| `{first['name']}` | {first['unit']} | `{first['default']}` | {first['check']} |" in table
    assert table in text


def test_unknown_section_in_a_marker_is_named():
    with pytest.raises(ValueError, match="no section 'flagz'"):
        parameter_docs.readme_text("<!-- parameters:flagz:begin -->\n<!-- parameters:flagz:end -->\n",
                                   {"parameters": []})


def test_parameter_rows_read_the_committed_table_without_a_simulator(tmp_path, monkeypatch):
    monkeypatch.setenv("EXSIM", str(tmp_path / "not-built"))
    exsim_runner.parameter_rows.cache_clear()
    try:
        rows = exsim_runner.parameter_rows()
        assert exsim_runner.parameter_default("flags", "batch_size") == rows["flags"]["batch_size"]["default"]
    finally:
        exsim_runner.parameter_rows.cache_clear()
    committed = json.loads(exsim_runner.PARAMETERS_JSON.read_text(encoding="utf-8"))["parameters"]
    assert sum(len(s) for s in rows.values()) == len(committed)
