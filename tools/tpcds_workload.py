#!/usr/bin/python3
"""Generate scenarios/tpcds_sf100 (workload.json and README.md) from Impala's plans and profiles.

The entry point of tools/tpcds/workload.py; --help there.
"""

import sys
from pathlib import Path

if not __package__:  # run as a script: the repository root on sys.path, as for every entry point
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.tpcds.workload import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
