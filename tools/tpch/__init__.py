"""TPC-H as Impala's single-node performance runs execute it: scenarios/tpch_harness.

The TPC-DS generator's steps (tools/tpcds: Shape, Scaler, Redistributor, RowSizes, Converter, the
compression classes, the calibrated costs) build this workload too; this package is only what is
TPC-H's:
    schema    the tables (rows at a scale factor, naming, facts), their statistics measured on
              dbgen data (table_stats.json) and the measured rows (measured_rows.json)
    workload  Impala's tpch-all.test plans, completed (tools/tpcds/standard_plans.py), on the
              harness's cluster: several daemons on one host (tools/tpch_workload.py)
"""

import os

from tools.tpcds import REPO

DEFAULT_OUT = os.path.join(REPO, "scenarios", "tpch_harness")
MEASURED_ROWS = os.path.join(DEFAULT_OUT, "measured_rows.json")
TABLE_STATS = os.path.join(DEFAULT_OUT, "table_stats.json")
GENERATOR = "tools/tpch_workload.py"
