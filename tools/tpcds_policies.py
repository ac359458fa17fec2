#!/usr/bin/python3
"""Adaptive in-flight windows on TPC-DS against fixed K (tools/tpcds/policies.py; --help there)."""

import sys
from pathlib import Path

if not __package__:  # run as a script: the repository root on sys.path, as for every entry point
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.tpcds.policies import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
