#!/bin/sh
# Every example scenario (and the default) gives the same results with exsim's network model as
# with SimGrid's (cluster.network_model "exsim" and "simgrid"): byte-identical apart from the
# echoed setting, or every number within 1e-9 relative (the two compute a transfer's end with
# different rounding). Prints which, per scenario.
#   tests/cli/network_paths.sh build/exsim scenarios
set -u
exsim=$1
dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
identical=0
n=0
for f in "$dir/default.json" "$dir"/examples/*.json; do
  n=$((n + 1))
  name=$(basename "$f" .json)
  for model in exsim simgrid; do
    if ! "$exsim" run "$f" --set cluster.network_model=$model --output "$tmp/$model.json" 2>"$tmp/err"; then
      echo "FAIL $name: the $model network model did not run"; cat "$tmp/err"; fail=$((fail + 1)); continue 2
    fi
  done
  verdict=$("$exsim" diff "$tmp/exsim.json" "$tmp/simgrid.json" --rel-tol 1e-9 \
    --ignore settings.cluster.network_model)
  status=$?
  if [ "$status" -ne 0 ]; then
    echo "FAIL $name: $verdict"; fail=$((fail + 1))
  else
    [ "$verdict" = identical ] && identical=$((identical + 1))
    echo "ok   $name: $verdict"
  fi
done
echo "$((n - fail)) of $n agree ($identical byte-identical apart from network_model), $fail differ"
[ "$fail" -eq 0 ]
