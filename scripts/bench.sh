#!/bin/sh
# Benchmark (not a test). Figures vary with the machine's load; compare ratios measured in one run.
# 1. Simulated RPCs per wall second and peak memory for a 5x5 and a 40x40 hash exchange at K=1
#    and K=2, and for a whole query (TPC-DS q72 imported from its profile: scans, joins and 13
#    exchanges on 2 executors' cores) at K=1 and K=2.
# 2. Scaling curve: one mt_dop=8 hash exchange (scenarios/examples/hash_5x5.json, 4M rows per
#    executor) at 5, 10, 20, 40, 80 and 150 executors, with exsim's network model and with
#    SimGrid's (cluster.network_model), the two runs of a size back to back: wall time, RPCs per
#    wall second, peak RSS. A run that takes longer than the timeout is reported as such, and
#    SimGrid's model is only run up to a size (it grows with executors squared per transfer).
#    Writes out/bench_scaling.csv and, with matplotlib, out/bench_scaling.png.
#   scripts/bench.sh [path/to/exsim]
#   EXSIM_BENCH_EXECUTORS="5 10 20" EXSIM_BENCH_SIMGRID_MAX=20 EXSIM_BENCH_TIMEOUT=600 scripts/bench.sh
#   EXSIM_BENCH_PARTS=2 scripts/bench.sh      # the scaling curve only
# 3. The TPC-DS workload (104 queries, --jobs 2) on 5, 10, 20 and 40 executors: the committed
#    5-executor workload, and the same workload re-planned for N executors by
#    tools/tpcds_workload.py --executors N (joins re-decided and fragments placed for N; needs
#    ../shared/impala-plans, else only 5 runs): wall time, RPCs, RPCs per wall second, peak RSS of
#    the largest query process. Writes out/bench_tpcds_scaling.csv. Not in the default parts (each
#    run takes 25 s to minutes): EXSIM_BENCH_PARTS=3, sizes in EXSIM_BENCH_TPCDS_EXECUTORS.
set -eu
cd "$(dirname "$0")/.."
exsim=${1:-build/exsim}
[ -x "$exsim" ] || { scripts/setup.sh >/dev/null; exsim=build/exsim; }
parts=${EXSIM_BENCH_PARTS:-"1 2"}
sizes=${EXSIM_BENCH_EXECUTORS:-"5 10 20 40 80 150"}
tpcds_sizes=${EXSIM_BENCH_TPCDS_EXECUTORS:-"5 10 20 40"}
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
    mkdir -p out
    csv=out/bench_scaling.csv
    echo "executors,network_model,rpcs,wall_s,rpcs_per_wall_s,peak_rss_mib" >"$csv"
    echo
    echo "scaling: one hash exchange, mt_dop=8, 4M rows per executor (timeout ${limit} s per run)"
    printf '%-9s %-8s %10s %10s %16s %14s\n' executors network rpcs wall_s rpcs_per_wall_s peak_rss_MiB
    for n in $sizes; do
      for model in exsim simgrid; do
        if [ "$model" = simgrid ] && [ "$n" -gt "$simgrid_max" ]; then
          printf '%-9s %-8s %10s\n' "$n" "$model" "not run (above EXSIM_BENCH_SIMGRID_MAX=$simgrid_max)"
          continue
        fi
        set -- $(measure scenarios/examples/hash_5x5.json --set mt_dop=8 --set cluster.executors="$n" --set "exchanges[0].rows_total=$((4000000 * n))" \
          --set cluster.network_model=$model)
        if [ "$#" -eq 4 ]; then
          printf '%-9s %-8s %10s %10s %16s %14s\n' "$n" "$model" "$1" "$2" "$3" "$4"
          echo "$n,$model,$1,$2,$3,$4" >>"$csv"
        else
          printf '%-9s %-8s %10s\n' "$n" "$model" "$1"
        fi
      done
    done
    if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
      /usr/bin/python3 analysis/bench_scaling.py "$csv" out/bench_scaling.png && echo "plot: out/bench_scaling.png"
    fi
  fi
  if [ "$part" = 3 ]; then
    mkdir -p out
    csv=out/bench_tpcds_scaling.csv
    echo "executors,rpcs,wall_s,rpcs_per_wall_s,peak_rss_mib" >"$csv"
    echo
    echo "TPC-DS workload, mt_dop=0, --jobs 2, re-planned per cluster size (timeout ${limit} s per run)"
    printf '%-9s %12s %10s %16s %14s\n' executors rpcs wall_s rpcs_per_wall_s peak_rss_MiB
    for n in $tpcds_sizes; do
      workload=scenarios/tpcds_sf100/workload.json
      if [ "$n" != 5 ]; then
        workload=$tmp/tpcds_$n/workload.json
        if ! /usr/bin/python3 tools/tpcds_workload.py --executors "$n" --out "$tmp/tpcds_$n" 2>"$tmp/gen_err"; then
          printf '%-9s %s\n' "$n" "not run: $(tail -n 1 "$tmp/gen_err")"
          continue
        fi
      fi
      set -- $(measure "$workload" --jobs 2)
      if [ "$#" -eq 4 ]; then
        printf '%-9s %12s %10s %16s %14s\n' "$n" "$1" "$2" "$3" "$4"
        echo "$n,$1,$2,$3,$4" >>"$csv"
      else
        printf '%-9s %12s\n' "$n" "$1"
      fi
    done
  fi
done
