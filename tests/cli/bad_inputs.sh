#!/bin/sh
# Every file in DIR/*.json is a bad scenario; DIR/expected.tsv says, per file, a --set argument
# (or -) and the text its error must contain (the JSON path). Each must exit 2 with that text.
set -u
exsim=$1
dir=$2
fail=0
count=0
while IFS='	' read -r file set_arg expected; do
  case "$file" in ''|'#'*) continue ;; esac
  count=$((count + 1))
  if [ "$set_arg" = "-" ]; then
    err=$("$exsim" validate "$dir/$file" 2>&1 >/dev/null); code=$?
  else
    err=$("$exsim" validate "$dir/$file" --set "$set_arg" 2>&1 >/dev/null); code=$?
  fi
  if [ "$code" -ne 2 ]; then
    echo "FAIL $file: exit $code, expected 2 ($err)"; fail=$((fail + 1))
  elif ! printf '%s' "$err" | grep -qF -- "$expected"; then
    echo "FAIL $file: message lacks '$expected': $err"; fail=$((fail + 1))
  else
    echo "ok   $file: $(printf '%s' "$err" | head -n 1)"
  fi
done < "$dir/expected.tsv"
# The command line itself.
for args in "run --bogus" "run $dir/../../../scenarios/default.json --set nonsense" "run --jobs many" "frobnicate" "validate"; do
  count=$((count + 1))
  # shellcheck disable=SC2086
  "$exsim" $args >/dev/null 2>&1; code=$?
  if [ "$code" -ne 2 ]; then echo "FAIL exsim $args: exit $code, expected 2"; fail=$((fail + 1)); else echo "ok   exsim $args: exit 2"; fi
done
echo "$((count - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
