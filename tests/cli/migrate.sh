#!/bin/sh
# exsim migrate keeps what a schema_version 1 scenario means: the migrated file validates and gives
# the same results (apart from the echoed schema_version), for an exchange-only scenario that
# relied on schema 1's cluster defaults and for a remote scan; a file with schema 1's formula for
# the time outside the exchanges is refused (exit 2, naming the key); a schema 2 file is written
# unchanged, with a note.
#   tests/cli/migrate.sh build/exsim tests/data/bad/valid.json scenarios/velox_s3_q1/q1_cold.json
set -u
exsim=$1
exchanges=$2
remote_scan=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for f in "$exchanges" "$remote_scan"; do
  name=$(basename "$f" .json)
  if ! "$exsim" migrate "$f" --output "$tmp/$name.v2.json" 2>"$tmp/err"; then
    echo "FAIL $name: migrate exited non-zero: $(cat "$tmp/err")"; fail=$((fail + 1)); continue
  fi
  if ! grep -q '"schema_version": 2' "$tmp/$name.v2.json"; then
    echo "FAIL $name: the migrated file is not schema_version 2"; fail=$((fail + 1)); continue
  fi
  "$exsim" run "$f" --output "$tmp/$name.v1.results.json" 2>/dev/null &&
    "$exsim" run "$tmp/$name.v2.json" --output "$tmp/$name.v2.results.json" 2>/dev/null ||
    { echo "FAIL $name: a run failed"; fail=$((fail + 1)); continue; }
  # Everything the simulation produced; the echoed settings and name follow the file's schema.
  if /usr/bin/python3 - "$tmp/$name.v1.results.json" "$tmp/$name.v2.results.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for d in (a, b):
    d.pop("settings", None)
    d.pop("scenario", None)
sys.exit(0 if a == b else 1)
PY
  then echo "ok   $name: migrated, same results"
  else echo "FAIL $name: the migrated scenario's results differ"; fail=$((fail + 1)); fi
done

printf '{"schema_version": 1, "query_work_ns_per_row": 2, "exchanges": [{"id": "a", "rows_total": 10}]}\n' \
  >"$tmp/formula.json"
err=$("$exsim" migrate "$tmp/formula.json" 2>&1 >/dev/null); code=$?
if [ "$code" -eq 2 ] && printf '%s' "$err" | grep -qF "formula.json: query_work_ns_per_row: the formula"; then
  echo "ok   a schema 1 formula key is refused"
else
  echo "FAIL formula key: exit $code: $err"; fail=$((fail + 1))
fi

# schema_version 1.0 is 1 for migrate as for validate.
printf '{"schema_version": 1.0, "exchanges": [{"id": "a", "partitioning": "HASH_PARTITIONED", "rows_total": 10}]}\n' \
  >"$tmp/float_version.json"
if "$exsim" validate "$tmp/float_version.json" >/dev/null 2>&1 &&
  "$exsim" migrate "$tmp/float_version.json" --output "$tmp/float_version.v2.json" 2>"$tmp/err" &&
  grep -q '"schema_version": 2' "$tmp/float_version.v2.json"; then
  echo "ok   schema_version 1.0 validates and migrates"
else
  echo "FAIL schema_version 1.0: $(cat "$tmp/err")"; fail=$((fail + 1))
fi

v2="$tmp/$(basename "$exchanges" .json).v2.json"
"$exsim" migrate "$v2" --output "$tmp/again.json" 2>"$tmp/err"
if cmp -s "$v2" "$tmp/again.json"; then
  if grep -q "already schema_version 2" "$tmp/err"; then echo "ok   a schema 2 file is written unchanged, with a note"
  else echo "FAIL schema 2: no note on stderr: $(cat "$tmp/err")"; fail=$((fail + 1)); fi
else
  echo "FAIL schema 2: the file changed"; fail=$((fail + 1))
fi
[ "$fail" -eq 0 ]
