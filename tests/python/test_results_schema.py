"""Every example scenario's results conform to docs/results.schema.json (the documented format)."""

import json
import os

import jsonschema
import pytest
from conftest import REPO

from common import exsim_runner

EXSIM = exsim_runner.default_exsim()
SCHEMA = json.loads((REPO / "docs" / "results.schema.json").read_text())
SCENARIOS = sorted((REPO / "scenarios" / "examples").glob("*.json"))
# Small enough to keep the suite quick; the structure does not depend on the sizes.
SHRINK = {"hash_5x5.json": "500000", "mt_dop_8.json": "200000"}


@pytest.mark.skipif(not os.access(EXSIM, os.X_OK), reason="exsim is not built")
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: p.name)
def test_results_match_the_documented_schema(scenario, tmp_path):
    sets = [f"exchanges[0].rows_total={SHRINK[scenario.name]}"] if scenario.name in SHRINK else []
    results = exsim_runner.simulate(EXSIM, scenario, tmp_path / "r.json", sets=sets, extra=())
    jsonschema.validate(results, SCHEMA)
    assert results["summary"]["exchanges"] == len(results["exchanges"])
