#!/bin/sh
# The TPC-DS SF100 workload (scenarios/tpcds_sf100/workload.json) at the measured baseline:
# installs and builds what is missing, simulates the 104 queries a process per core, prints the
# summary (calibration figures included) and writes the results JSON to out/tpcds_sf100.json.
# Extra arguments go to `exsim run` (for example --set rpcs_in_flight_per_channel=2).
set -eu
cd "$(dirname "$0")/.."
scripts/setup.sh exsim
mkdir -p out
exec build/exsim run scenarios/tpcds_sf100/workload.json --jobs 0 --output out/tpcds_sf100.json --summary "$@"
