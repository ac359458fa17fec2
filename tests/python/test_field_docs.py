"""The files generated from the results field table (tools/field_docs.py; test_parameter_docs.py
checks that the committed ones are what the simulator gives): the tables of docs/results.md are
filled from their sections, the generated schema admits no key the table lacks, and Python reads the
committed table when no simulator is built.

Run: /usr/bin/python3 -m pytest tests/python/test_field_docs.py -q
"""

import json

import jsonschema
import pytest

from common import exsim_runner, generated_files
from tools import field_docs


def test_results_md_has_a_table_per_written_section():
    text = field_docs.RESULTS_MD.read_text(encoding="utf-8")
    fields = json.loads(field_docs.FIELDS.read_text(encoding="utf-8"))["fields"]
    assert set(generated_files.marked_sections(text, "fields")) == {r["section"] for r in fields} - {"carried"}
    sender = field_docs.section_table([r for r in fields if r["section"] == "sender"])
    assert "| `InactiveTotalTime_s` | number | s | blocked waiting for a slot |" in sender.splitlines()
    assert sender in text


def test_unknown_section_in_a_marker_is_named():
    with pytest.raises(ValueError, match="no section 'senders'"):
        field_docs.results_md_text("<!-- fields:senders:begin -->\n<!-- fields:senders:end -->\n", {"fields": []})


def test_the_schema_refuses_a_key_the_table_lacks():
    schema = json.loads(field_docs.SCHEMA.read_text(encoding="utf-8"))
    sender = schema["else"]["properties"]["exchanges"]["items"]["properties"]["sender_instances"]["items"]
    assert sender["additionalProperties"] is False and "InactiveTotalTime_s" in sender["required"]
    instance = {name: 0 for name in sender["required"]}
    instance.update(error="")
    jsonschema.validate(instance, sender)
    with pytest.raises(jsonschema.ValidationError, match="InactiveTotalTime"):
        jsonschema.validate(dict(instance, InactiveTotalTime=1.0), sender)


def test_field_rows_read_the_committed_table_without_a_simulator(tmp_path, monkeypatch):
    monkeypatch.setenv("EXSIM", str(tmp_path / "not-built"))
    exsim_runner.field_rows.cache_clear()
    try:
        rows = exsim_runner.field_rows()
        parts = exsim_runner.breakdown_parts()
    finally:
        exsim_runner.field_rows.cache_clear()
    committed = json.loads(exsim_runner.FIELDS_JSON.read_text(encoding="utf-8"))["fields"]
    assert sum(len(s) for s in rows.values()) == len(committed)
    assert rows["sender"]["InactiveTotalTime_s"]["reads"] == ["SenderCounters::InactiveTotalTime"]
    assert parts["startup_s"] == "start-up" and list(parts)[0] == "startup_s"
