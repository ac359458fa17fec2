#!/bin/sh
# --help documents every command and option; --version, schema and params work.
set -eu
exsim=$1
help=$("$exsim" --help)
for word in "run" "validate" "summary" "schema" "params" "profile import" "compare" "diff" "--format" "--query" "--top" \
  "--set" "--output" "--summary" "--timing" "Exit status"; do
  printf '%s' "$help" | grep -qF -- "$word" || { echo "--help does not mention $word"; exit 1; }
done
"$exsim" --version | grep -q '^exsim [0-9]'
"$exsim" schema | grep -q '"additionalProperties": false'
params=$("$exsim" params)
for p in data_stream_sender_buffer_size exchg_node_buffer_size_bytes rpcs_in_flight_per_channel rtt_us rows_total; do
  printf '%s' "$params" | grep -qF "$p" || { echo "params does not list $p"; exit 1; }
done
echo "help ok"
