#!/bin/sh
# The TPC-DS predictions of docs/tpcds.md: scripts/predictions.sh on the calibrated workload, around
# the measured baseline (K=1, 16 KiB, LZ4 on, mt_dop=0, pipelined end of stream, RTT 390 us), its
# tables in docs/ and their block in docs/tpcds.md, the intervals of docs/tpcds_uncertainty.csv
# drawn on the plot. 20 workload runs, each 2.5 to 5 minutes of one core here; JOBS, DASK, STAGE,
# SWEEPS and REPORT as scripts/predictions.sh says. INTERVALS=1 then also runs
# tools/tpcds_uncertainty.py: the headline predictions again with each uncertain input at each end
# of its range (106 more runs), for the intervals and the tornado plot.
set -eu
cd "$(dirname "$0")/.."
OUT=docs TITLE="TPC-DS SF100" PAGE=docs/tpcds.md INTERVALS_CSV=docs/tpcds_uncertainty.csv \
    scripts/predictions.sh scenarios/tpcds_sf100/workload.json tpcds
if [ "${INTERVALS:-0}" = 1 ]; then
    /usr/bin/python3 tools/tpcds_uncertainty.py --jobs "${JOBS:-2}"
    # the plot draws an interval only where its K=1 run is the sweeps' one: draw it again with the new
    # intervals (the sweeps are done, so this only reads them)
    OUT=docs TITLE="TPC-DS SF100" PAGE=docs/tpcds.md INTERVALS_CSV=docs/tpcds_uncertainty.csv \
        scripts/predictions.sh scenarios/tpcds_sf100/workload.json tpcds
fi
