#!/usr/bin/python3
"""Predict what sender code changes do to the TPC-H harness (scenarios/tpch_harness/predictions.md):
the entry point of tools/tpch/predictions.py.

--help there.
"""

import sys
from pathlib import Path

if not __package__:  # run as a script: the repository root on sys.path, as for every entry point
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.tpch.predictions import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
