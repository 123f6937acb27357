#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench-workingset-cgroups.sh - seed 004's figures on base: readtwice in two
# memory cgroups (tests/workingset-cgroups.sh), classic LRU against MGLRU
# in the same boots, over BENCH_BOOTS boots (default 5): readtwice MB/s
# and the per-cgroup counters, mean and standard deviation over boots
# (each boot's figure is the mean of its two cgroups), % change from
# classic LRU to MGLRU.  Rounds alternate n y n y so neither LRU always
# runs first.
cd "$(dirname "$0")/.." || exit 2
boots=${BENCH_BOOTS:-5}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT INT TERM

echo "== seed 004: readtwice in two memory cgroups, classic LRU vs MGLRU, $boots boots"
if ! ./umkit exec -- sh -c 'command -v readtwice && test -d /mnt/disk' >/dev/null 2>&1; then
	echo "bench: no readtwice or guest disk in this kit (the workloads are not merged)"; exit 1
fi
i=0
while [ $i -lt "$boots" ]; do
	sh tests/workingset-cgroups.sh n y n y N Y | sed -n "s/^round=/boot=$i round=/p" >> "$tmp" || exit 1
	i=$((i + 1))
done
awk '
	{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	  l = v["lru"]; if (l ~ /[NY]/) l = l v["cg"]
	  for (k in v) if (k !~ /^(boot|round|lru|cg)$/) { b[l, k, v["boot"]] += v[k]; c[l, k, v["boot"]]++ }
	  boots[v["boot"]] = 1 }
	function stat(l, k,   j, x, n, s, q) { n = s = q = 0
		for (j in boots) if (c[l, k, j]) { x = b[l, k, j] / c[l, k, j]; n++; s += x; q += x * x }
		M = n ? s / n : 0; SD = n > 1 && q / n - M * M > 0 ? sqrt((q / n - M * M) * n / (n - 1)) : 0 }
	function row(label, a, bb, k,   ma, sa) {
		stat(a, k); ma = M; sa = SD; stat(bb, k)
		printf "%-36s %9.1f +-%6.1f %9.1f +-%6.1f %8s\n", label, ma, sa, M, SD,
			ma ? sprintf("%+.1f%%", (M - ma) * 100 / ma) : "-" }
	END {
		printf "%-36s %17s %17s %8s\n", "", "classic (sd)", "MGLRU (sd)", "change"
		row("readtwice MB/s, own file", "n", "y", "mb_per_s")
		row("workingset_refault_file, own file", "n", "y", "refault")
		row("workingset_activate_file, own file", "n", "y", "activate")
		row("pgsteal, own file", "n", "y", "evict")
		row("workingset_refault_file, shared, wsA", "NA", "YA", "refault")
		row("workingset_refault_file, shared, wsB", "NB", "YB", "refault")
		row("workingset_activate_file, shared, wsB", "NB", "YB", "activate")
	}' "$tmp"
