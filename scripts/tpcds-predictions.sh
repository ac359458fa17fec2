#!/bin/sh
# The TPC-DS predictions of the README: sweeps of the calibrated workload around the measured
# baseline (K=1, 16 KiB, LZ4 on, mt_dop=0, pipelined end of stream, RTT 390 us), then the table,
# the CSV and the CDF plot (analysis/tpcds_predictions.py). Each sweep resumes where it stopped.
# One factor at a time around the baseline, plus K=2 with 128 KiB and compression off: 16 points
# at mt_dop=0 (about 35 minutes on 2 cores) and 6 at mt_dop=8 (K=1..4, K=2 with 128 KiB, K=2
# without compression: about 25 minutes; WITH_MT_DOP_8=0 skips them). JOBS sets the points run
# at once (default 2).
set -eu
cd "$(dirname "$0")/.."
scripts/setup.sh exsim >/dev/null
W=scenarios/tpcds_sf100/workload.json
J=${JOBS:-2}
sweep() { /usr/bin/python3 run_sweep.py "$W" --jobs "$J" "$@"; }
sweep --out sweeps/tpcds_k --grid rpcs_in_flight_per_channel=1,2,3,4
sweep --out sweeps/tpcds_buffer --grid data_stream_sender_buffer_size=32768,65536,131072,262144
sweep --out sweeps/tpcds_lz4 --grid compression=false --grid rpcs_in_flight_per_channel=1,2 \
    --grid data_stream_sender_buffer_size=16384,131072
sweep --out sweeps/tpcds_eos_lan --grid eos_flush=pipelined,serial --grid cluster.rtt_us=50
# Two one-point sweeps side by side (the baseline itself is the first point of tpcds_k).
/usr/bin/python3 run_sweep.py "$W" --jobs 1 --out sweeps/tpcds_k2_128k --grid rpcs_in_flight_per_channel=2 \
    --grid data_stream_sender_buffer_size=131072 &
pid=$!
/usr/bin/python3 run_sweep.py "$W" --jobs 1 --out sweeps/tpcds_eos --grid eos_flush=serial
wait "$pid"
if [ "${WITH_MT_DOP_8:-1}" = 1 ]; then
    sweep --out sweeps/tpcds_mt8_k --grid mt_dop=8 --grid rpcs_in_flight_per_channel=1,2,3,4
    /usr/bin/python3 run_sweep.py "$W" --jobs 1 --out sweeps/tpcds_mt8_k2_128k --grid mt_dop=8 \
        --grid rpcs_in_flight_per_channel=2 --grid data_stream_sender_buffer_size=131072 &
    pid=$!
    /usr/bin/python3 run_sweep.py "$W" --jobs 1 --out sweeps/tpcds_mt8_lz4 --grid mt_dop=8 --grid compression=false \
        --grid rpcs_in_flight_per_channel=2
    wait "$pid"
fi
/usr/bin/python3 analysis/tpcds_predictions.py sweeps/tpcds_* --out docs --readme README.md
