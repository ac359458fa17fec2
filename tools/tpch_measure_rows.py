#!/usr/bin/python3
"""Count the rows of Impala's TPC-H plans on TPC-H data (dbgen output): scenarios/tpch_harness/measured_rows.json.

The entry point of tools/rowcount/tpch.py; --help there.
"""

import sys
from pathlib import Path

if not __package__:  # run as a script: the repository root on sys.path, as for every entry point
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.rowcount.tpch import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
