"""TPC-DS SF100 workload tooling: Impala's plans and profiles -> scenarios/tpcds_sf100.

One module per job:
    ddl        table row counts per scale factor, column naming
    plans      the query set and the parser of Impala's planner test files
    scaling    SF3000 -> SF100 re-estimation of every plan node (rules S1..R1, D1, J2)
    profiles   numbers read off the real runtime profiles (q72 check, LZ4 ratio, start-up)
    workload   the scenario builder and its command line (python3 -m tools.tpcds.workload)
    readme     scenarios/tpcds_sf100/README.md
    calibrate  the fit of the shared parameters (tools/tpcds_calibrate.py)
"""

import os

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_PLANS = os.path.normpath(os.path.join(REPO, "..", "shared", "impala-plans"))
DEFAULT_OUT = os.path.join(REPO, "scenarios", "tpcds_sf100")
DEFAULT_PROFILES = os.path.normpath(os.path.join(REPO, "..", "shared", "impala-profiles"))
# Runtime profiles the measured inputs come from (impala-profiles/README.md).
PROFILE_Q72 = "tpcds_72_local_run_profile.json"
PROFILE_Q1 = "tpcds_1_local_run_mt_dop_0_profile.json"
PROFILE_Q1_MT = "tpcds_1_local_run_mt_dop_12_profile.json"
GENERATOR = "tools/tpcds_workload.py"

# Settings of the scenario that are not derived from the plans.
SF_TARGET = 100
SF_PLAN = 3000
EXECUTORS = 5               # calibration-data.md section A
PLAN_EXECUTORS = 10         # tpcds_cpu_cost planner tests (impala-plans/README.md)


class PlanError(Exception):
    """Input that the generator cannot turn into a workload (a plan, profile or statistics file)."""
