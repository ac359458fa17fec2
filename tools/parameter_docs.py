#!/usr/bin/python3
"""The files generated from the simulator's tables, and the one command that regenerates them all from
a built simulator. From the parameter table (input/rows/, gathered by input/parameters.cpp):
  - scenarios/scenario.schema.json, the output of `exsim schema`;
  - scenarios/parameters.json, the output of `exsim params --format json` (Python reads defaults
    from it when no simulator is built: common.exsim_runner.parameter_rows);
  - the parameter tables of scenarios/README.md, each between its marker lines
    <!-- parameters:SECTION:begin --> and <!-- parameters:SECTION:end --> (SECTION as in the JSON:
    cluster, flags, exchange, ...): key, unit, default, check and meaning of every row.
From the results field table (models/run_fields.cpp), by tools/field_docs.py: docs/fields.json
(`exsim fields --format json`), docs/results.schema.json and the field tables of docs/results.md.

    tools/parameter_docs.py [--exsim build/exsim]     # rewrite them
    tools/parameter_docs.py --check                    # exit 1 naming each file that differs

tests/python/test_parameter_docs.py fails when a committed file differs from what the table gives.
"""

import json
import sys
from pathlib import Path

if not __package__:  # run as a script: the repository root on sys.path, as for every entry point
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import exsim_runner, generated_files  # noqa: E402
from tools import field_docs  # noqa: E402
from common.tables import markdown_table  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
README = REPO / "scenarios" / "README.md"
SCHEMA = REPO / "scenarios" / "scenario.schema.json"
PARAMETERS = exsim_runner.PARAMETERS_JSON
COMMAND = "tools/parameter_docs.py"


def default_cell(row):
    """As `exsim params` shows it: required, how a derived default is found, or the JSON value."""
    if row["required"]:
        return "required"
    if row["derived"]:
        return row["derived"]
    return "`%s`" % json.dumps(row["default"], separators=(", ", ": "))


def section_table(rows):
    """The Markdown table of a section's rows (a list, in the table's order); the unit column only
    when some row has a unit."""
    units = any(r["unit"] for r in rows)
    header = ["key"] + (["unit"] if units else []) + ["default", "check", "meaning"]
    lines = []
    for r in rows:
        meaning = r["description"] + (" (exchanges[] only)" if r["standalone_only"] else "")
        lines.append([f"`{r['name']}`"] + ([r["unit"]] if units else []) +
                     [default_cell(r), r["check"], meaning])
    return markdown_table(header, lines)


def readme_text(text, parameters):
    """`text` (the README) with each marked table replaced by its section's rows from `parameters`
    (the document of `exsim params --format json`); ValueError naming a section the table lacks."""
    return generated_files.fill_tables(text, "parameters", parameters["parameters"], section_table, README, "parameter table")


def generated(exsim):
    """{path: text} of every file generated from the tables of `exsim`."""
    status, schema, err = exsim_runner.run([str(exsim), "schema"])
    if status != 0:
        raise exsim_runner.ExsimError(f"{exsim} schema: {err.strip() or f'exit status {status}'}")
    _exsim_json(exsim, "schema", schema, lambda d: isinstance(d, dict) and "$schema" in d)
    parameters = exsim_runner.parameters_text(exsim)
    table = _exsim_json(exsim, "params --format json", parameters, lambda d: isinstance(d, dict) and isinstance(
        d.get("parameters"), list) and all(isinstance(r, dict) and {"section", "name"} <= set(r) for r in d["parameters"]))
    readme = readme_text(README.read_text(encoding="utf-8"), table)
    return {SCHEMA: schema, PARAMETERS: parameters, README: readme, **field_docs.generated(exsim)}


def _exsim_json(exsim, verb, text, shaped):
    """The JSON `exsim VERB` printed; ExsimError when --exsim is not the simulator (its output is not
    that document)."""
    try:
        doc = json.loads(text)
    except ValueError as e:
        doc, why = None, f"not JSON ({e})"
    else:
        why = "not the document exsim prints"
    if doc is None or not shaped(doc):
        raise exsim_runner.ExsimError(f"{exsim} {verb}: its output is {why}: expected exsim, the simulator "
                                      "(--exsim PATH, default $EXSIM, else build/exsim)")
    return doc


def main(argv=None):
    return generated_files.main(__doc__, generated, REPO, "the simulator's tables", COMMAND, argv)


if __name__ == "__main__":
    sys.exit(main())
