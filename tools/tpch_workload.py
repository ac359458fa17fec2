#!/usr/bin/python3
"""Generate the TPC-H harness workload (scenarios/tpch_harness/workload_sf<N>.json) from Impala's plans and the
rows counted on dbgen data.

The entry point of tools/tpch/workload.py; --help there.
"""

import sys
from pathlib import Path

if not __package__:  # run as a script: the repository root on sys.path, as for every entry point
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.tpch.workload import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
