#!/bin/sh
# Runs one scenario twice and compares the results byte for byte, and a third time into a pipe.
set -eu
exsim=$1
scenario=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$exsim" run "$scenario" --output "$tmp/a.json"
"$exsim" run "$scenario" --output "$tmp/b.json"
cmp "$tmp/a.json" "$tmp/b.json"
# --output /dev/stdout into a pipe (a link to /proc/self/fd/1, whose target is no path) writes through
"$exsim" run "$scenario" --output /dev/stdout 2>/dev/null | cmp - "$tmp/a.json"
echo "identical: $(wc -c < "$tmp/a.json") bytes, also through a pipe"
