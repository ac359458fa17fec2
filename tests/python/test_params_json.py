"""`exsim params --format json`: the parameter table for other programs.

Run: /usr/bin/python3 -m pytest tests/python/test_params_json.py -q
"""

import json
import subprocess


def params(exsim, *args):
    return subprocess.run([str(exsim), "params", *args], capture_output=True, text=True)


def test_json_table_has_every_key_of_the_text_table(exsim):
    r = params(exsim, "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    rows = doc["parameters"]
    assert doc["schema_version"] == 2
    k = next(p for p in rows if p["section"] == "flags" and p["name"] == "rpcs_in_flight_per_channel")
    assert (k["type"], k["unit"], k["default"], k["min"], k["max"]) == ("integer", "RPCs (K)", 1, 1, 64)
    net = next(p for p in rows if p["section"] == "cluster" and p["name"] == "network_model")
    assert net["choices"] == ["exsim", "approx", "simgrid", "auto"] and net["default"] == "auto"
    # every key the text table lists is a row of the JSON one, and no other
    text = params(exsim).stdout
    names = {line.split()[0] for line in text.splitlines()[1:] if line.startswith("  ") and line[2] != " "}
    assert names == {p["name"] for p in rows}


def test_bad_format_is_named(exsim):
    r = params(exsim, "--format", "md")
    assert r.returncode == 2 and "params: --format" in r.stderr
