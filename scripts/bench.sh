#!/bin/sh
# Benchmark (not a test). Figures vary with the machine's load; compare ratios measured in one run.
# 1. Simulated RPCs per wall second and peak memory for a 5x5 and a 40x40 hash exchange at K=1
#    and K=2, and for a whole query (TPC-DS q72 imported from its profile: scans, joins and 13
#    exchanges on 2 executors' cores) at K=1 and K=2.
# 2. Scaling curve: one mt_dop=8 hash exchange (scenarios/examples/hash_5x5.json, 4M rows per
#    executor) at 5, 10, 20, 40, 80 and 150 executors, with exsim's exact network model, its
#    approximation and SimGrid's (cluster.network_model exsim, approx, simgrid), the runs of a
#    size back to back: wall time, RPCs per wall second, peak RSS. A run that takes longer than
#    the timeout is reported as such, and SimGrid's model is only run up to a size (it grows with
#    executors squared per transfer). Then the approximation's error against the exact model at
#    each size (analysis/network_model_error.py: makespan, slowest-sender blocked time).
#    Writes out/bench_scaling.csv, each run's results in out/bench_scaling/ and, with
#    matplotlib, out/bench_scaling.png.
#   scripts/bench.sh [path/to/exsim]
#   EXSIM_BENCH_EXECUTORS="5 10 20" EXSIM_BENCH_SIMGRID_MAX=20 EXSIM_BENCH_TIMEOUT=600 scripts/bench.sh
#   EXSIM_BENCH_PARTS=2 scripts/bench.sh      # the scaling curve only
set -eu
cd "$(dirname "$0")/.."
exsim=${1:-build/exsim}
[ -x "$exsim" ] || { scripts/setup.sh >/dev/null; exsim=build/exsim; }
parts=${EXSIM_BENCH_PARTS:-"1 2"}
sizes=${EXSIM_BENCH_EXECUTORS:-"5 10 20 40 80 150"}
simgrid_max=${EXSIM_BENCH_SIMGRID_MAX:-40}
limit=${EXSIM_BENCH_TIMEOUT:-900}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# measure SCENARIO [--set ...]: prints "rpcs wall_s rpcs_per_wall_s peak_rss_MiB" for one run, or
# "timeout" / "failed".
measure() {
  scenario=$1
  shift
  if timeout "$limit" "$exsim" run "$scenario" "$@" --output "$tmp/r.json" --timing \
    2>"$tmp/err" >/dev/null; then
    /usr/bin/python3 -c '
import json, sys
d = json.loads(sys.argv[1])
print("%d %.2f %.0f %.1f" % (d["rpcs"], d["wall_s"], d["rpcs_per_wall_s"], d["peak_rss_kib"] / 1024))' \
      "$(tail -n 1 "$tmp/err")"
  elif [ $? -eq 124 ]; then
    echo "timeout"
  else
    echo "failed"; cat "$tmp/err" >&2
  fi
}

for part in $parts; do
  if [ "$part" = 1 ]; then
    printf '%-8s %-3s %12s %10s %16s %14s\n' case K rpcs wall_s rpcs_per_wall_s peak_rss_MiB
    for case in 5x5 40x40 q72; do
      for k in 1 2; do
        case "$case" in
          5x5) set -- $(measure scenarios/examples/hash_5x5.json --set mt_dop=0 --set "exchanges[0].rows_total=5000000" \
                 --set rpcs_in_flight_per_channel=$k) ;;
          40x40) set -- $(measure scenarios/examples/hash_5x5.json --set mt_dop=8 \
                   --set "exchanges[0].rows_total=20000000" --set rpcs_in_flight_per_channel=$k) ;;
          q72) set -- $(measure scenarios/profiles/tpcds_q72.json --set rpcs_in_flight_per_channel=$k) ;;
        esac
        printf '%-8s %-3s %12s %10s %16s %14s\n' "$case" "$k" "$1" "${2:--}" "${3:--}" "${4:--}"
      done
    done
  fi
  if [ "$part" = 2 ]; then
    mkdir -p out/bench_scaling
    rm -f out/bench_scaling/*.json
    csv=out/bench_scaling.csv
    echo "executors,network_model,rpcs,wall_s,rpcs_per_wall_s,peak_rss_mib" >"$csv"
    echo
    echo "scaling: one hash exchange, mt_dop=8, 4M rows per executor (timeout ${limit} s per run)"
    printf '%-9s %-8s %10s %10s %16s %14s\n' executors network rpcs wall_s rpcs_per_wall_s peak_rss_MiB
    for n in $sizes; do
      for model in exsim approx simgrid; do
        if [ "$model" = simgrid ] && [ "$n" -gt "$simgrid_max" ]; then
          printf '%-9s %-8s %10s\n' "$n" "$model" "not run (above EXSIM_BENCH_SIMGRID_MAX=$simgrid_max)"
          continue
        fi
        set -- $(measure scenarios/examples/hash_5x5.json --set mt_dop=8 --set cluster.executors="$n" --set "exchanges[0].rows_total=$((4000000 * n))" \
          --set cluster.network_model=$model)
        if [ "$#" -eq 4 ]; then
          printf '%-9s %-8s %10s %10s %16s %14s\n' "$n" "$model" "$1" "$2" "$3" "$4"
          echo "$n,$model,$1,$2,$3,$4" >>"$csv"
          cp "$tmp/r.json" "out/bench_scaling/${n}_$model.json"
          # Issue 23's target for the largest cluster.
          [ "$n" = 150 ] && [ "$model" = approx ] &&
            printf '%-9s %-8s %10s %10s %16s %14s\n' "" "target" "" 60 "" 8192
        else
          printf '%-9s %-8s %10s\n' "$n" "$model" "$1"
        fi
      done
    done
    echo
    echo "approx against exsim (tolerance: 1% makespan, 2% blocked time)"
    for n in $sizes; do
      [ -f "out/bench_scaling/${n}_exsim.json" ] && [ -f "out/bench_scaling/${n}_approx.json" ] || continue
      /usr/bin/python3 analysis/network_model_error.py --results "out/bench_scaling/${n}_exsim.json" \
        "out/bench_scaling/${n}_approx.json" | sed -n 3p || true
    done
    if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
      /usr/bin/python3 analysis/bench_scaling.py "$csv" out/bench_scaling.png && echo "plot: out/bench_scaling.png"
    fi
  fi
done
