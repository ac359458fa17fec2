#!/bin/sh
# Predictions for a workload (a scenario of whole queries: the TPC-DS workload, or one imported
# from profiles): sweeps around the workload's own settings, then the tables and plots
# (analysis/predictions.py). Each sweep resumes where it stopped (run_sweep.py); DASK=ADDRESS runs
# the points on a Dask cluster instead of here.
#   scripts/predictions.sh WORKLOAD [NAME]
# The most important points first: K=1..4 at the workload's mt_dop and at 8, K=2 with 128 KiB and
# no compression at both, the buffers; then compression off and the end of stream at the workload's round trip
# and at 50 us. 20 workload runs; JOBS sets the points run at once (default 2). STAGE=1 stops after
# the first group. NAME (default: WORKLOAD's file name without .json) prefixes the sweeps
# (SWEEPS/NAME_*, SWEEPS default sweeps) and the outputs (OUT/NAME_predictions.md, .csv, the
# per-query CSV, OUT/figures/NAME_*.png; OUT default out). TITLE names the workload in them, PAGE
# is a Markdown page whose NAME-predictions block is rewritten. The intervals: INTERVALS_CSV, runs
# of tools/tpcds_uncertainty.py made earlier (the TPC-DS script passes the committed ones), else
# that tool runs now on WORKLOAD (OUT/NAME_uncertainty.{md,csv}, OUT/figures/NAME_tornado.png; 8
# runs an input end, cached in SWEEPS/uncertainty_runs_NAME); INTERVALS=0 draws none. REPORT=0 leaves out the
# tables and plots.
set -eu
cd "$(dirname "$0")/.."
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: scripts/predictions.sh WORKLOAD [NAME]" >&2
    exit 2
fi
W=$1
if [ ! -f "$W" ]; then
    echo "predictions: $W: no such file (expected a workload scenario)" >&2
    exit 2
fi
N=${2:-$(basename "$W" .json)}
scripts/setup.sh exsim >/dev/null
J=${JOBS:-2}
where="--jobs $J"
if [ -n "${DASK:-}" ]; then where="--dask $DASK"; fi
S=${SWEEPS:-sweeps}
# The workload's own mt_dop (its file's flag, else the simulator's default) and 8: the baseline is
# then a point of the first sweep.
MT=$(/usr/bin/python3 -c 'import json, sys
sys.path.insert(0, ".")
from common import exsim_runner
print(json.load(open(sys.argv[1])).get("flags", {}).get("mt_dop", exsim_runner.parameter_default("flags", "mt_dop")))' "$W")
if [ "$MT" = 8 ]; then MTS=8; else MTS="$MT,8"; fi
# A workload whose queries ran with their own mt_dop (queries[].flags): the sweeps set mt_dop for
# every query, so its baseline runs them all at the workload's; `exsim run WORKLOAD` runs each at
# its own.
/usr/bin/python3 -c 'import json, sys
own = sorted({q["flags"]["mt_dop"] for q in json.load(open(sys.argv[1])).get("queries", []) if "mt_dop" in q.get("flags", {})})
if own:
    sys.stderr.write("predictions: some queries ran at their own mt_dop (%s); the sweeps set mt_dop for every query, so "
                     "the baseline runs them all at %s (exsim run %s runs each at its own)\n" % (", ".join(map(str, own)),
                                                                                               sys.argv[2], sys.argv[1]))' "$W" "$MT"
# shellcheck disable=SC2086
sweep() { /usr/bin/python3 run_sweep.py "$W" $where "$@"; }
sweep --out "$S/${N}_k" --grid mt_dop="$MTS" --grid rpcs_in_flight_per_channel=1,2,3,4
sweep --out "$S/${N}_k2_128k_nolz4" --grid mt_dop="$MTS" --grid rpcs_in_flight_per_channel=2 \
    --grid data_stream_sender_buffer_size=131072 --grid compression=false
sweep --out "$S/${N}_buffer" --grid data_stream_sender_buffer_size=32768,65536,131072,262144
if [ "${STAGE:-2}" = 2 ]; then
    sweep --out "$S/${N}_lz4" --grid compression=false --grid rpcs_in_flight_per_channel=1,2
    sweep --out "$S/${N}_mt8_lz4" --grid mt_dop=8 --grid compression=false
    # The baseline's point (pipelined, its round trip) is NAME_k's first: three new points here.
    sweep --out "$S/${N}_eos" --grid eos_flush=serial
    sweep --out "$S/${N}_eos_lan" --grid eos_flush=pipelined,serial --grid cluster.rtt_us=50
fi
[ "${REPORT:-1}" = 0 ] && exit 0
IV=${INTERVALS_CSV:-}
if [ -z "$IV" ] && [ "${INTERVALS:-1}" != 0 ]; then
    echo "predictions: intervals from the inputs' ranges (tools/tpcds_uncertainty.py --workload $W)" >&2
    /usr/bin/python3 tools/tpcds_uncertainty.py --workload "$W" --name "$N" --out "${OUT:-out}" --page "" \
        --work "$S/uncertainty_runs_${N}" --jobs "$J" ${TITLE:+--title "$TITLE"} >/dev/null
    IV="${OUT:-out}/${N}_uncertainty.csv"
fi
/usr/bin/python3 analysis/predictions.py "$S/${N}"_* --out "${OUT:-out}" --name "$N" \
    ${TITLE:+--title "$TITLE"} ${PAGE:+--page "$PAGE"} ${IV:+--intervals "$IV"}
