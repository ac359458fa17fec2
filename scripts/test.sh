#!/bin/sh
# Installs and builds what is missing, then runs every test (unit, in-simulation, command line,
# Python tooling) with ctest. EXSIM_PRESET=asan runs them under ASan+UBSan.
set -eu
cd "$(dirname "$0")/.."
. scripts/heartbeat.sh
heartbeat test "ctest prints each test as it ends; the longest are the Python ones"
scripts/setup.sh
preset=${EXSIM_PRESET:-default}
if [ ! -d ../shared/impala-plans ] || [ ! -d ../shared/impala-profiles ]; then
  echo "test: ../shared/impala-plans or ../shared/impala-profiles is absent beside this checkout:" \
    "the tests that read Impala's plans and profiles will be skipped (ctest counts them as passed)" >&2
fi
# The TPC-DS calibration starts first and ends last, a few minutes after the rest: say so, or
# the end of the run looks stuck.
echo "test: running every test on $(nproc) core(s); the TPC-DS calibration check (a few minutes) ends last" >&2
ctest --preset "$preset" -j "$(nproc)"
