"""TPC-DS SF100 workload tooling: Impala's plans and profiles -> scenarios/tpcds_sf100.

One module per job:
    plans      the query set and the parser of Impala's plan text (planner tests, profiles)
    standard_plans  a plan printed at the standard explain level (TPC-H's) completed with the
               fragments, senders, tuples and exchange rows the verbose level prints
    ddl        table row counts per scale factor, column types and slot sizes, scan ranges
    scaling    SF3000 (or SF1) -> SF100 re-estimation of every plan node (rules S1..R1, D1, J2)
    rowsize    the slots of every tuple, and the fixed and string bytes of an exchange's row
    fragments  a scaled plan -> the scenario's fragments, operators and exchanges; placement; the two
               shapes of a query (SECTIONS) and the built query (Built)
    profiles   numbers read off the real runtime profiles (q72's rows and skew, LZ4, start-up, codegen)
    variants   the eight statements without a plan file, derived from their SQL
    workload   the scenario builder and its command line (tools/tpcds_workload.py)
    readme     scenarios/tpcds_sf100/README.md
    calibrate  the published figures, candidate costs, cached simulations (tools/tpcds_calibrate.py)
    uncertainty  the predictions' intervals from the inputs' ranges (tools/tpcds_uncertainty.py)
"""

import os

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_PLANS = os.path.normpath(os.path.join(REPO, "..", "shared", "impala-plans"))
DEFAULT_OUT = os.path.join(REPO, "scenarios", "tpcds_sf100")
# The calibration's record (tools/tpcds/calibrate.py writes it; the workload generator reads its costs).
CALIBRATION = os.path.join(DEFAULT_OUT, "calibration.json")
# The cluster keys the calibration fits (calibrate.PARAMETERS) and the generator copies into the workload.
FITTED_CLUSTER = ("rpc_dispatch_us",)
# Rows counted on TPC-DS data (tools/tpcds_measure_rows.py), which the workload reads first (rule M2).
MEASURED_ROWS = os.path.join(DEFAULT_OUT, "measured_rows.json")
DEFAULT_PROFILES = os.path.normpath(os.path.join(REPO, "..", "shared", "impala-profiles"))
# Runtime profiles the measured inputs come from (impala-profiles/README.md).
PROFILE_Q72 = "tpcds_72_local_run_profile.json"
PROFILE_Q1 = "tpcds_1_local_run_mt_dop_0_profile.json"
PROFILE_Q1_MT = "tpcds_1_local_run_mt_dop_12_profile.json"
GENERATOR = "tools/tpcds_workload.py"

EXECUTORS = 5               # the measured cluster (calibration-data.md section A)


class PlanError(Exception):
    """Input that the generator cannot turn into a workload (a plan, profile or statistics file)."""
