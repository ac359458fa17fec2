#!/bin/sh
# The TPC-DS predictions of docs/tpcds.md: sweeps of the calibrated workload around the measured
# baseline (K=1, 16 KiB, LZ4 on, mt_dop=0, pipelined end of stream, RTT 390 us), then the table,
# the per-query CSV and the CDF plot (analysis/tpcds_predictions.py). Each sweep resumes where it
# stopped (run_sweep.py); DASK=ADDRESS runs the points on a Dask cluster instead of here.
# The most important points first: K=1..4 at mt_dop 0 and 8, K=2 with 128 KiB and no compression
# at both, the buffers; then compression off and the end of stream at 390 and 50 us. 20 workload
# runs, each 2.5 to 5 minutes of one core here; JOBS sets the points run at once (default 2).
# STAGE=1 stops after the first group. INTERVALS=1 then also runs tools/tpcds_uncertainty.py: the
# headline predictions again with each uncertain input at each end of its range (88 more runs),
# for the intervals and the tornado plot. SWEEPS=DIR puts the sweeps in DIR instead of sweeps/ and
# REPORT=0 leaves out the table and plot (scripts/bench.sh times the 20 runs so, from scratch).
set -eu
cd "$(dirname "$0")/.."
scripts/setup.sh exsim >/dev/null
W=scenarios/tpcds_sf100/workload.json
J=${JOBS:-2}
where="--jobs $J"
if [ -n "${DASK:-}" ]; then where="--dask $DASK"; fi
S=${SWEEPS:-sweeps}
# shellcheck disable=SC2086
sweep() { /usr/bin/python3 run_sweep.py "$W" $where "$@"; }
sweep --out "$S"/tpcds_k --grid mt_dop=0,8 --grid rpcs_in_flight_per_channel=1,2,3,4
sweep --out "$S"/tpcds_k2_128k_nolz4 --grid mt_dop=0,8 --grid rpcs_in_flight_per_channel=2 \
    --grid data_stream_sender_buffer_size=131072 --grid compression=false
sweep --out "$S"/tpcds_buffer --grid data_stream_sender_buffer_size=32768,65536,131072,262144
if [ "${STAGE:-2}" = 2 ]; then
    sweep --out "$S"/tpcds_lz4 --grid compression=false --grid rpcs_in_flight_per_channel=1,2
    sweep --out "$S"/tpcds_mt8_lz4 --grid mt_dop=8 --grid compression=false
    # The baseline's point (pipelined, 390 us) is tpcds_k's first: three new points here.
    sweep --out "$S"/tpcds_eos --grid eos_flush=serial
    sweep --out "$S"/tpcds_eos_lan --grid eos_flush=pipelined,serial --grid cluster.rtt_us=50
fi
[ "${REPORT:-1}" = 0 ] && exit 0
/usr/bin/python3 analysis/tpcds_predictions.py "$S"/tpcds_* --out docs --page docs/tpcds.md
if [ "${INTERVALS:-0}" = 1 ]; then
    /usr/bin/python3 tools/tpcds_uncertainty.py --jobs "$J"
fi
