#!/bin/sh
# Every example scenario (and the built-in default) validates and runs to completion.
set -u
exsim=$1
dir=$2
fail=0
n=0
for f in "$dir/default.json" "$dir"/examples/*.json; do
  n=$((n + 1))
  if "$exsim" validate "$f" >/dev/null && "$exsim" run "$f" --summary > /tmp/exsim-example.$$ 2>&1; then
    echo "ok   $(basename "$f"): $(tail -n 1 /tmp/exsim-example.$$)"
  else
    echo "FAIL $f"; cat /tmp/exsim-example.$$; fail=$((fail + 1))
  fi
done
rm -f /tmp/exsim-example.$$
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
