#!/bin/sh
# Installs and builds what is missing, then runs every test (unit, in-simulation, command line,
# Python tooling) with ctest. EXSIM_PRESET=asan runs them under ASan+UBSan.
set -eu
cd "$(dirname "$0")/.."
scripts/setup.sh
preset=${EXSIM_PRESET:-default}
ctest --preset "$preset" -j "$(nproc)"
