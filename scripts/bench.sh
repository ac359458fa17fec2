#!/bin/sh
# Benchmark (not a test): simulated RPCs per wall second and peak memory for a 5x5 and a
# 40x40 hash exchange at K=1 and K=2. Figures vary with the machine's load; compare ratios
# measured in one run.
#   scripts/bench.sh [path/to/exsim]
set -eu
cd "$(dirname "$0")/.."
exsim=${1:-build/exsim}
[ -x "$exsim" ] || { scripts/setup.sh >/dev/null; exsim=build/exsim; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-8s %-3s %12s %10s %16s %14s\n' case K rpcs wall_s rpcs_per_wall_s peak_rss_MiB
for case in 5x5 40x40; do
  if [ "$case" = 5x5 ]; then rows=5000000; dop=0; else rows=20000000; dop=8; fi
  for k in 1 2; do
    line=$("$exsim" run scenarios/examples/hash_5x5.json --set mt_dop=$dop --set "exchanges[0].rows_total=$rows" \
      --set rpcs_in_flight_per_channel=$k --output "$tmp/r.json" --timing 2>&1 >/dev/null | tail -n 1)
    /usr/bin/python3 -c '
import json, sys
d = json.loads(sys.argv[1])
print("%-8s %-3s %12d %10.2f %16.0f %14.1f" % (sys.argv[2], sys.argv[3], d["rpcs"], d["wall_s"],
      d["rpcs_per_wall_s"], d["peak_rss_kib"] / 1024))' "$line" "$case" "$k"
  done
done
