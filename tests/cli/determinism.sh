#!/bin/sh
# Runs one scenario twice and compares the results byte for byte.
set -eu
exsim=$1
scenario=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$exsim" run "$scenario" --output "$tmp/a.json"
"$exsim" run "$scenario" --output "$tmp/b.json"
cmp "$tmp/a.json" "$tmp/b.json"
echo "identical: $(wc -c < "$tmp/a.json") bytes"
