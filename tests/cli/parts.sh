#!/bin/sh
# A sequential workload's queries simulated in shares (`run --query-share K/N`, as Dask workers run
# them for `run --dask`) and merged (`run --from-parts DIR`) give the local run's results byte for
# byte, for any number of shares; a missing, doubled or foreign share, a bad K/N and a concurrent
# scenario are bad input, named.
set -eu
exsim=$1
workload=$2      # query_order "sequential", two queries
concurrent=$3    # query_order "concurrent"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$exsim" run "$workload" --set mt_dop=2 --output "$tmp/local.json" 2>/dev/null
for n in 1 2 3; do
  rm -rf "$tmp/parts" && mkdir "$tmp/parts"
  k=0
  while [ "$k" -lt "$n" ]; do
    "$exsim" run "$workload" --set mt_dop=2 --query-share "$k/$n" --output "$tmp/parts/share-$k.json"
    k=$((k + 1))
  done
  "$exsim" run "$workload" --set mt_dop=2 --from-parts "$tmp/parts" --output "$tmp/merged.json" 2>/dev/null
  cmp "$tmp/local.json" "$tmp/merged.json"
  echo "identical: $n share(s) merged into $(wc -c < "$tmp/merged.json") bytes"
done

bad() {  # bad EXPECTED_MESSAGE ARGS...: exit status 2 and the message on stderr
  want=$1
  shift
  status=0
  "$exsim" "$@" >/dev/null 2>"$tmp/err" || status=$?
  [ "$status" -eq 2 ] || { echo "status $status for: $*" >&2; cat "$tmp/err" >&2; exit 1; }
  grep -qF -- "$want" "$tmp/err" || { echo "no '$want' for: $*" >&2; cat "$tmp/err" >&2; exit 1; }
}
bad "--query-share 2/2: expected K/N" run "$workload" --query-share 2/2
bad "--query-share 1: expected K/N" run "$workload" --query-share 1
bad "--query-share: only for a workload whose queries run one after another" run "$concurrent" --query-share 0/1
bad "--query-share and --from-parts: one or the other" run "$workload" --query-share 0/1 --from-parts "$tmp/parts"
bad "--query-share: writes its queries' parts, not results" run "$workload" --query-share 0/1 --summary
# the last loop left three shares of one query each (the third empty)
cp "$tmp/parts/share-0.json" "$tmp/parts/again.json"
bad "in two shares" run "$workload" --from-parts "$tmp/parts"
mv "$tmp/parts/again.json" "$tmp/share-0.json"
rm "$tmp/parts/share-0.json"
bad "--from-parts: no share holds query" run "$workload" --from-parts "$tmp/parts"
echo 'not json' > "$tmp/parts/share-0.json"
bad "share-0.json: --from-parts: not a share" run "$workload" --from-parts "$tmp/parts"
sed 's/"query":"[^"]*"/"query":"another"/' "$tmp/share-0.json" > "$tmp/parts/share-0.json"
bad "is of query \"another\"" run "$workload" --from-parts "$tmp/parts"
bad "--from-parts: cannot read the folder" run "$workload" --from-parts "$tmp/none"
echo "bad shares: exit 2, each named"
