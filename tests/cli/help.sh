#!/bin/sh
# --help documents every command and option; --version, schema, params, fields and rules work.
set -eu
exsim=$1
help=$("$exsim" --help)
for word in "run" "validate" "summary" "schema" "params" "fields" "rules" "profile import" "compare" "diff" "--format" "--query" "--top" \
  "--set" "--output" "--summary" "--timing" "Exit status"; do
  printf '%s' "$help" | grep -qF -- "$word" || { echo "--help does not mention $word"; exit 1; }
done
"$exsim" --version | grep -q '^exsim [0-9]'
"$exsim" schema | grep -q '"additionalProperties": false'
params=$("$exsim" params)
for p in data_stream_sender_buffer_size exchg_node_buffer_size_bytes rpcs_in_flight_per_channel rtt_us rows_total; do
  printf '%s' "$params" | grep -qF "$p" || { echo "params does not list $p"; exit 1; }
done
fields=$("$exsim" fields)
for f in InactiveTotalTime_s TotalRPCsDeferred startup_s makespan_s; do
  printf '%s' "$fields" | grep -qF "$f" || { echo "fields does not list $f"; exit 1; }
done
"$exsim" fields --format json | grep -qF '"SenderCounters::InactiveTotalTime"' || { echo "fields --format json names no member"; exit 1; }
# A hash collector of 16384 bytes holds 16384 // 93 = 176 rows of 93 fixed bytes; of 200008-byte
# rows, the 8 MiB tuple-data flush allows 41 (the 1 MiB buffer alone, 131072 of 8 fixed bytes).
rows=$(printf '[[16384, 93, 93]]\n\n[[1048576, 8, 200008], [16384, 100000, 100000]]\n' | "$exsim" rules collector-rows)
[ "$rows" = "$(printf '[176]\n[41,1]')" ] || { echo "rules collector-rows answered: $rows"; exit 1; }
echo "help ok"
