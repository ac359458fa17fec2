"""Every example scenario's results conform to docs/results.schema.json (the documented format)."""

import json
import os
import subprocess
from pathlib import Path

import jsonschema
import pytest

REPO = Path(__file__).resolve().parents[2]
EXSIM = os.environ.get("EXSIM", str(REPO / "build" / "exsim"))
SCHEMA = json.loads((REPO / "docs" / "results.schema.json").read_text())
SCENARIOS = sorted((REPO / "scenarios" / "examples").glob("*.json"))
# Small enough to keep the suite quick; the structure does not depend on the sizes.
SHRINK = {"hash_5x5.json": "500000", "mt_dop_8.json": "200000"}


@pytest.mark.skipif(not os.access(EXSIM, os.X_OK), reason="exsim is not built")
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: p.name)
def test_results_match_the_documented_schema(scenario, tmp_path):
    args = [EXSIM, "run", str(scenario), "--output", str(tmp_path / "r.json")]
    if scenario.name in SHRINK:
        args += ["--set", f"exchanges[0].rows_total={SHRINK[scenario.name]}"]
    subprocess.run(args, check=True)
    results = json.loads((tmp_path / "r.json").read_text())
    jsonschema.validate(results, SCHEMA)
    assert results["summary"]["exchanges"] == len(results["exchanges"])
