#!/bin/sh
# The TPC-DS SF100 workload (scenarios/tpcds_sf100/workload.json) at the measured baseline:
# installs and builds what is missing, simulates the 104 queries a process per core, prints the
# summary, writes the results JSON to out/tpcds_sf100.json, then prints the calibration figures
# (calibration-data.md A) against the simulated ones. Extra arguments go to `exsim run` (for
# example --set rpcs_in_flight_per_channel=2); the figures are then those of that configuration,
# printed against the baseline's measurements for comparison only.
set -eu
cd "$(dirname "$0")/.."
. scripts/heartbeat.sh
heartbeat run-tpcds "simulating the 104 queries, then the calibration figures"
scripts/setup.sh exsim
mkdir -p out
build/exsim run scenarios/tpcds_sf100/workload.json --jobs 0 --output out/tpcds_sf100.json --summary "$@"
echo
/usr/bin/python3 tools/tpcds_calibrate.py --results out/tpcds_sf100.json
