#!/bin/sh
# Every file in DIR/*.json is a bad scenario; DIR/expected.tsv says, per file, a --set argument
# (or -) and the text its error must contain (the JSON path). Each must exit 2 with that text.
# Then the command line itself, and files the operating system refuses: the message names the
# path and gives the system's reason.
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

# expect_error "TEXT" ARGS...: exsim ARGS exits 2 and its message contains TEXT.
expect_error() {
  expected=$1
  shift
  count=$((count + 1))
  # shellcheck disable=SC2086
  err=$($exsim "$@" 2>&1 >/dev/null); code=$?
  if [ "$code" -ne 2 ]; then
    echo "FAIL exsim $*: exit $code, expected 2 ($err)"; fail=$((fail + 1))
  elif ! printf '%s' "$err" | grep -qF -- "$expected"; then
    echo "FAIL exsim $*: message lacks '$expected': $err"; fail=$((fail + 1))
  else
    echo "ok   exsim $*: $(printf '%s' "$err" | head -n 1)"
  fi
}

# The command line itself.
valid="$dir/valid.json"
expect_error "--bogus: unknown option" run --bogus
expect_error "--sumary: unknown option; did you mean --summary?" run --sumary
expect_error "--set nonsense: expected NAME=VALUE" run "$valid" --set nonsense
expect_error "--jobs many: expected a number" run --jobs many
expect_error "--format html: expected text, md or csv" run "$valid" --summary --format html
expect_error "params: --format junk: expected text or json" params --format junk
expect_error "explain: --format md: expected text or json" explain "$valid" --format md
expect_error "extra: unexpected extra argument; params takes no file" params extra
expect_error "extra: unexpected extra argument; schema takes no file" schema extra
expect_error "frobnicate: unknown command" frobnicate
expect_error "rnu: unknown command; did you mean run?" rnu
expect_error "validate: expected a SCENARIO file" validate

# --set series_step_s, as documented, on a remote scan.
count=$((count + 1))
if out=$("$exsim" validate "$dir/rs_valid.json" --set series_step_s=0.5 2>&1); then echo "ok   --set series_step_s=0.5: $out"
else echo "FAIL --set series_step_s=0.5 refused: $out"; fail=$((fail + 1)); fi

# A remote scan whose time series would outgrow memory is refused after its run, not killed.
expect_error "rs_valid.json: series_step_s: the scan lasted 1000.04 s of simulated time, more than 500000 samples" \
  run "$dir/rs_valid.json" --set s3.data_ttfb_p50_ms=1e6 --set s3.data_ttfb_p99_ms=1e6 --set series_step_s=0.001

# explain refuses what cannot be simulated, with the channel count in 64 bits.
expect_error "too_many_channels.json: exchanges[0]: 4096000000 channels" explain "$dir/too_many_channels.json"

# migrate reads schema_version as validate does: never narrowed (4294967297 is not 1), 1.0 is 1.
expect_error "schema_version_wraps.json: schema_version: expected 1 (to migrate) or 2, got 4294967297" \
  migrate "$dir/schema_version_wraps.json"

# Files: missing, a folder, unreadable, an output folder that does not exist.
tmp=$(mktemp -d)
trap 'chmod -R u+rwx "$tmp"; rm -rf "$tmp"' EXIT
expect_error "$tmp/none.json: cannot read the scenario file: No such file or directory" run "$tmp/none.json"
expect_error "$tmp: cannot read the scenario file: Is a directory" run "$tmp"
expect_error "$tmp/missing/r.json: cannot write the results file in $tmp/missing: No such file or directory" \
  run "$valid" --output "$tmp/missing/r.json"
expect_error "$tmp: cannot write the results file: Is a directory" run "$valid" --output "$tmp"
expect_error "$tmp/none.json: cannot read the results file: No such file or directory" summary "$tmp/none.json"
expect_error "$valid: scenario: required key is missing; expected a results file" summary "$valid"
# Nesting deeper than the checks may recurse: an operator tree, a provenance, bare arrays.
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
op = {"op": "scan", "id": "s", "rows": 1}
for i in range(7000):
    op = {"op": "select", "id": f"o{i}", "rows": 1, "input": op}
doc = {"schema_version": 2, "queries": [{"name": "q", "fragments": [{"id": "f", "sink": {"result": True}, "root": op}]}]}
sys.setrecursionlimit(100000)
open(f"{tmp}/deep_ops.json", "w").write(json.dumps(doc))
open(f"{tmp}/deep_provenance.json", "w").write(
    '{"schema_version": 2, "provenance": ' + '{"a": ' * 100000 + '1' + '}' * 100000 + ', "exchanges": []}')
open(f"{tmp}/deep_arrays.json", "w").write("[" * 200000 + "]" * 200000)
PY
expect_error "deep_ops.json: queries[0].fragments[0].root.input.input" validate "$tmp/deep_ops.json"
expect_error "nested deeper than 256 levels" validate "$tmp/deep_ops.json"
expect_error "deep_provenance.json: provenance.a.a" validate "$tmp/deep_provenance.json"
expect_error "deep_arrays.json: [0][0]" validate "$tmp/deep_arrays.json"
# Files that are not regular: read for ever, or never ended.
expect_error "/dev/zero: cannot read the scenario file: not a regular file" validate /dev/zero
mkfifo "$tmp/fifo"
expect_error "$tmp/fifo: cannot read the scenario file: not a regular file" validate "$tmp/fifo"
expect_error "/dev/zero: cannot read the results file: not a regular file" summary /dev/zero
expect_error "deep_arrays.json: [0][0]" summary "$tmp/deep_arrays.json"

# exsim rules: a missing or unknown rule, and inputs that are not what the rule takes, each named by
# line and JSON path.
expect_error "rules: expected the name of a rule: collector-rows" rules
expect_error "colector-rows: unknown rule; did you mean collector-rows?" rules colector-rows "$valid"
expect_error "$tmp/none.json: cannot read the file of inputs: No such file or directory" \
  rules collector-rows "$tmp/none.json"
printf '[[16384, 93, 93]]\n{"rows": 1}\n' > "$tmp/rules_object.json"
expect_error "rules_object.json:2: (top level): expected a JSON array of inputs [buffer_bytes, fixed_row_bytes, row_bytes], got an object" \
  rules collector-rows "$tmp/rules_object.json"
printf '[[16384, 93]]\n' > "$tmp/rules_pair.json"
expect_error "rules_pair.json:1: [0]: expected [buffer_bytes, fixed_row_bytes, row_bytes], got [16384,93]" \
  rules collector-rows "$tmp/rules_pair.json"
printf '[[16384, 93.5, 100], [-1, 93, 93]]\n' > "$tmp/rules_values.json"
expect_error "rules_values.json:1: [0][1]: expected an integer in [1, 16777216], got 93.5" \
  rules collector-rows "$tmp/rules_values.json"
expect_error "rules_values.json:1: [1][0]: expected an integer in [1, 2147483648], got -1" \
  rules collector-rows "$tmp/rules_values.json"

# Output that cannot be written fails (exit 2, naming where); a link stays a link.
expect_error "/dev/full: writing the results failed: No space left on device" run "$valid" --output /dev/full
count=$((count + 1))
if [ -w /dev/full ]; then
  err=$("$exsim" run "$valid" 2>&1 >/dev/full); code=$?
  if [ "$code" -ne 2 ] || ! printf '%s' "$err" | grep -qF "stdout: writing the output failed"; then
    echo "FAIL exsim run >/dev/full: exit $code ($err)"; fail=$((fail + 1))
  else echo "ok   exsim run >/dev/full: $err"; fi
else
  echo "skip stdout to /dev/full: not writable"
fi
count=$((count + 1))
ln -s target.json "$tmp/link.json"
if "$exsim" run "$valid" --output "$tmp/link.json" 2>/dev/null && [ -L "$tmp/link.json" ] && [ -s "$tmp/target.json" ]; then
  echo "ok   --output through a symbolic link writes its target, the link stays"
else
  echo "FAIL --output through a symbolic link: $(ls -la "$tmp")"; fail=$((fail + 1))
fi

# A run larger than the memory it may use is refused before it starts (not under ASan, which
# needs the address space for itself).
if [ -z "${ASAN_OPTIONS:-}" ]; then
  count=$((count + 1))
  err=$(ulimit -v 600000; "$exsim" run "$valid" --set cluster.executors=1000 --set mt_dop=3 --output "$tmp/r.json" 2>&1)
  code=$?
  if [ "$code" -eq 2 ] && printf '%s' "$err" | grep -qF "valid.json: the run needs about 4.0 GiB for its 9000000 channels"; then
    echo "ok   run beyond ulimit -v: $err"
  else echo "FAIL run beyond ulimit -v: exit $code ($err)"; fail=$((fail + 1)); fi
fi

# Permissions do not stop root: as root, these run as nobody when setpriv can (else they are skipped).
chmod 755 "$tmp"
cp "$valid" "$tmp/locked.json"
chmod 000 "$tmp/locked.json"
mkdir "$tmp/ro"
chmod 555 "$tmp/ro"
run_as=""
if [ "$(id -u)" -eq 0 ]; then
  run_as="setpriv --reuid=65534 --regid=65534 --clear-groups"
  $run_as "$exsim" --version >/dev/null 2>&1 || run_as="none"
fi
if [ "$run_as" = "none" ]; then
  echo "skip unreadable file and read-only folder: root, and nobody cannot run $exsim"
else
  real_exsim=$exsim
  exsim="$run_as $real_exsim"
  expect_error "$tmp/locked.json: cannot read the scenario file: Permission denied" run "$tmp/locked.json"
  cp "$valid" "$tmp/readable.json"
  chmod 644 "$tmp/readable.json"
  expect_error "$tmp/ro/r.json: cannot write the results file in $tmp/ro: Permission denied" \
    run "$tmp/readable.json" --output "$tmp/ro/r.json"
  exsim=$real_exsim
fi
echo "$((count - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
