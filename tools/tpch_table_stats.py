#!/usr/bin/python3
"""Measure the statistics Impala's planner would have for the TPC-H tables on TPC-H data (dbgen output):
scenarios/tpch_harness/table_stats.json.

The entry point of tools/rowcount/tpch_stats.py; --help there.
"""

import sys
from pathlib import Path

if not __package__:  # run as a script: the repository root on sys.path, as for every entry point
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.rowcount.tpch_stats import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
