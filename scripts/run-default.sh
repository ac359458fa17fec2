#!/bin/sh
# The main job: installs and builds what is missing, then simulates the built-in default
# scenario (scenarios/default.json) and prints a readable summary. Extra arguments go to
# `exsim run` (for example --set rpcs_in_flight_per_channel=2). The first run installs packages
# and builds for a few minutes, saying so on stderr; later runs print only the summary.
set -eu
cd "$(dirname "$0")/.."
scripts/setup.sh exsim
mkdir -p out
exec build/exsim run scenarios/default.json --output out/default.json --summary "$@"
