#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench-compare-fp: how often 'umkit compare' cries wolf, and how
# often it finds a known effect, in one run.
#
# False positives: BENCH_RUNS (default 20) runs of 'compare -n N --bench
# B base base' (N: BENCH_BOOTS, default 5; B: BENCH_NAMES, default all,
# the smoke table's metrics): the runs in which the table marks any row
# (Holm-Bonferroni and a change of 1% or more, target <= 5%), and, from
# the same runs' --json, those
# in which some raw p is below 0.05 (what the table marked before Holm).
# Power: as many runs of 'compare -n N --bench procbench base SLOWFORK'
# (tests/fixtures/smoke/slowfork.patch: 2 ms more per new mm): the runs
# whose fork_min_us row is marked and called worse (target >= 19 of 20).
# procbench runs in N more boots of its own (bench.c): 2N samples a side
# for its rows.  BENCH_NAMES=procbench: the false positives of its rows.
cd "$(dirname "$0")/.." || exit 2
runs=${BENCH_RUNS:-20} boots=${BENCH_BOOTS:-5} names=${BENCH_NAMES:-all}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
t0=$(date +%s)

echo "== false positives: $runs runs of compare -n $boots --bench $names base base"
fp=0 raw=0 rows=0 i=0
while [ $i -lt "$runs" ]; do
	i=$((i + 1))
	./umkit compare -n "$boots" --bench "$names" --json "$tmp/r.json" base base \
	    > "$tmp/out" 2>&1 || { echo "bench: compare failed:"; tail -5 "$tmp/out"; exit 1; }
	m=$(grep -c '%\*' "$tmp/out")
	n=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["metrics"]
print(sum(1 for m in d.values() if m["p"] < 0.05), len(d))' "$tmp/r.json")
	set -- $n
	[ "$m" -gt 0 ] && fp=$((fp + 1))
	[ "$1" -gt 0 ] && raw=$((raw + 1))
	rows=$2
	printf 'run %2d: %d rows marked (Holm), %d of %d with raw p < 0.05\n' "$i" "$m" "$1" "$2"
done
printf '%-52s %3d of %d (%.0f%%; target <= 5%%)\n' \
    "runs with a row marked, Holm over $rows metrics" "$fp" "$runs" "$(echo "$fp $runs" | awk '{ print 100 * $1 / $2 }')"
printf '%-52s %3d of %d (%.0f%%)\n' "runs with a raw p < 0.05 (no correction)" \
    "$raw" "$runs" "$(echo "$raw $runs" | awk '{ print 100 * $1 / $2 }')"

echo "== power: $runs runs of compare -n $boots --bench procbench base SLOWFORK"
sv=$(./umkit smoke --labs none --bench none tests/fixtures/smoke/slowfork.patch 2>&1 |
    sed -n 's/.*variant \(smoke-[0-9a-f]*\).*/\1/p' | head -1)
[ -n "$sv" ] || { echo "bench: the slow-fork fixture did not smoke"; exit 1; }
hit=0 i=0
while [ $i -lt "$runs" ]; do
	i=$((i + 1))
	./umkit compare -n "$boots" --bench procbench base "$sv" > "$tmp/out" 2>&1 ||
	    { echo "bench: compare failed:"; tail -5 "$tmp/out"; exit 1; }
	grep -Eq '\+[0-9.]+%\*{1,2} .* procbench\.fork_min_us \(worse\)' "$tmp/out" &&
	    hit=$((hit + 1))
done
printf '%-52s %3d of %d (target >= 19)\n' "slow fork found (fork_min_us marked, worse)" "$hit" "$runs"
echo "($(( $(date +%s) - t0 )) s in all)"
