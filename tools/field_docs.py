"""The files generated from the simulator's results field table (models/run_fields.cpp), which
tools/parameter_docs.py regenerates with those of the parameter table:
  - docs/fields.json, the output of `exsim fields --format json` (Python reads names, units and
    labels from it when no simulator is built: common.exsim_runner.field_rows);
  - docs/results.schema.json, the JSON Schema of results files: the exchanges and queries form from
    the table, the remote scan's form from docs/results_remote_scan.schema.json (kept by hand until
    its fields are rows);
  - the field tables of docs/results.md, each between its marker lines
    <!-- fields:SECTION:begin --> and <!-- fields:SECTION:end --> (SECTION as in the JSON: document,
    exchange, sender, ...): key, type, unit and meaning of every row.
"""

import json
from pathlib import Path

from common import exsim_runner, generated_files
from common.tables import markdown_table

REPO = Path(__file__).resolve().parents[1]
RESULTS_MD = REPO / "docs" / "results.md"
SCHEMA = REPO / "docs" / "results.schema.json"
REMOTE_SCAN_SCHEMA = REPO / "docs" / "results_remote_scan.schema.json"
FIELDS = exsim_runner.FIELDS_JSON
COMMAND = "tools/parameter_docs.py"
JSON_TYPES = {"integer": "integer", "number": "number", "boolean": "boolean", "string": "string",
              "object": "object", "array": "array"}


def section_table(rows):
    """The Markdown table of a section's rows, in the table's order."""
    lines = []
    for r in rows:
        meaning = r["meaning"]
        if r.get("choices"):
            meaning += " (one of " + ", ".join(f"`{c}`" for c in r["choices"]) + ")"
        if r["when"]:
            meaning += f" (only for {r['when']})"
        lines.append([f"`{r['name']}`", r["type"], r["unit"], meaning])
    return markdown_table(["key", "type", "unit", "meaning"], lines)


def results_md_text(text, fields):
    """`text` (docs/results.md) with each marked table replaced by its section's rows of `fields`
    (the document of `exsim fields --format json`); ValueError naming a section the table lacks."""
    return generated_files.fill_tables(text, "fields", fields["fields"], section_table, RESULTS_MD, "results field table")


def object_schema(path, by_path):
    """The schema of the object at `path` ("" for the top level, "exchanges[]", ...): its rows are its
    properties, those without a condition required, no other key allowed."""
    properties, required = {}, []
    for r in by_path[path]:
        properties[r["name"]] = field_schema(r, by_path)
        if not r["when"]:
            required.append(r["name"])
    return {"type": "object", "required": required, "properties": properties, "additionalProperties": False}


def field_schema(row, by_path):
    """A row's schema: an object or array of a section's entries where a section lies at its place,
    else its type (and its choices); an object of seconds holds numbers."""
    place = (row["path"] + "." if row["path"] else "") + row["name"]
    if row["type"] == "array" and place + "[]" in by_path:
        return {"type": "array", "items": object_schema(place + "[]", by_path)}
    if row["type"] == "object" and place in by_path:
        return object_schema(place, by_path)
    schema = {"type": JSON_TYPES[row["type"]]}
    if row.get("choices"):
        schema["enum"] = row["choices"]
    if row["type"] == "object" and row["unit"] == "s":
        schema["additionalProperties"] = {"type": "number"}
    schema["description"] = row["meaning"]
    return schema


def results_schema(fields, remote_scan):
    """The JSON Schema of results files: the remote scan's form (`remote_scan`, its schema) when the
    document's kind says so, else the form the field table describes."""
    by_path = {}
    for row in fields["fields"]:
        if row["section"] != "carried":
            by_path.setdefault(row["path"], []).append(row)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "exsim-results-v2",
        "title": "exsim results",
        "description": f"generated from the results field table by {COMMAND}",
        "if": {"properties": {"kind": {"const": "remote_scan"}}, "required": ["kind"]},
        "then": {"$ref": "#/$defs/remote_scan"},
        "else": object_schema("", by_path),
        "$defs": {"remote_scan": remote_scan},
    }


def generated(exsim):
    """{path: text} of every file generated from the field table of `exsim`."""
    text = exsim_runner.fields_text(exsim)
    fields = json.loads(text)
    remote_scan = json.loads(REMOTE_SCAN_SCHEMA.read_text(encoding="utf-8"))
    schema = json.dumps(results_schema(fields, remote_scan), indent=2) + "\n"
    return {FIELDS: text, SCHEMA: schema, RESULTS_MD: results_md_text(RESULTS_MD.read_text(encoding="utf-8"), fields)}
