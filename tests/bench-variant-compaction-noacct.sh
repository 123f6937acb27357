#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench-variant-compaction-noacct.sh - seed 002's figures for the
# compaction-noacct variant against base, side by side, over BENCH_BOOTS
# boots each (default 5): base boots run "w w -" (no switch), variant boots
# "w w 0 1" (both settings in the same boot), all through
# tests/compaction-table.sh (1 CPU, 256M, host ASLR off, the same
# fragmentation).  Prints mean, standard deviation and % change against
# base for each figure; noacct=0 is 7.2's accounting, so it should equal
# base to within the spread, and noacct=1 shows what the accounting does.
# Then seed 002's direct-compaction experiment, rootfs/repro-002.sh (order-9
# requests through the variant's test driver, columns before = noacct=1
# and fixed = noacct=0 interleaved in each boot), over BENCH_REPRO_BOOTS
# boots (default 1) of its default rounds: mean, standard deviation over
# all rounds, and % change from before to fixed for every key.
cd "$(dirname "$0")/.." || exit 2
boots=${BENCH_BOOTS:-5}
tmp=$(mktemp) rtmp=$(mktemp)
trap 'rm -f "$tmp" "$rtmp"' EXIT INT TERM

echo "== compaction-noacct vs base: compact_memory on fragmented memory, $boots boots each"
uml/kernel/kbuild.sh base >/dev/null && uml/kernel/kbuild.sh compaction-noacct >/dev/null || exit 1
i=0
while [ $i -lt "$boots" ]; do
	sh tests/compaction-table.sh -V base w w - | sed -n 's/^round=[0-9]* noacct=- /col=base /p' >> "$tmp" || exit 1
	sh tests/compaction-table.sh -V compaction-noacct w w 0 1 |
		sed -n 's/^round=[0-9]* noacct=\([01]\) /col=noacct=\1 /p' >> "$tmp" || exit 1
	i=$((i + 1))
done
awk -v boots="$boots" '
	{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	  c = $1; sub(/^col=/, "", c); n[c]++
	  v["efficiency"] = v["free_scanned"] ? v["migrate_scanned"] * 100 / v["free_scanned"] : 0
	  for (k in v) if (k != "col") { s[c, k] += v[k]; q[c, k] += v[k] * v[k] } }
	function mean(c, k) { return s[c, k] / n[c] }
	function sd(c, k,   m, d) { m = mean(c, k); d = q[c, k] / n[c] - m * m
		return n[c] > 1 && d > 0 ? sqrt(d * n[c] / (n[c] - 1)) : 0 }
	END {
		split("base noacct=0 noacct=1", col, " ")
		split("isolated migrate_scanned free_scanned efficiency free_passes free_taken", key, " ")
		split("pages isolated|migrate scanned|free scanned|scan efficiency (%)|free-page isolation passes|free pages taken", lab, "|")
		printf "%-28s", ""
		for (j = 1; j <= 3; j++) printf " %-17s %8s", "  " col[j] " (sd)", (j > 1 ? "vs base" : "")
		printf "\n"
		for (r = 1; r <= 6; r++) {
			printf "%-28s", lab[r]
			for (j = 1; j <= 3; j++) {
				c = col[j]; k = key[r]
				printf " %9.1f +-%6.1f", mean(c, k), sd(c, k)
				b = mean("base", k)
				if (j > 1)
					printf " %+6.2f%%", b ? (mean(c, k) - b) * 100 / b : 0
				else
					printf "        "
			}
			printf "\n"
		}
		printf "(%d boots per kernel; noacct=0 and noacct=1 ran in the same boots)\n", boots
	}' "$tmp"

rboots=${BENCH_REPRO_BOOTS:-1}
echo "== compaction-noacct: repro-002 (order-9 direct compaction), $rboots boot(s), 1 CPU, 256M"
i=0
while [ $i -lt "$rboots" ]; do
	./umkit exec -V compaction-noacct -c 1 -m 256M -t 300 -- repro-002 >> "$rtmp" || exit 1
	i=$((i + 1))
done
grep '^repro-info:' "$rtmp"
awk '$1 == "repro:" { c = $2; if (!(c in n)) cols[++nc] = c; n[c]++
		for (i = 3; i <= NF; i++) { split($i, kv, "="); k = kv[1]
			if (!(k in seen)) { seen[k] = 1; key[++nk] = k }
			s[c, k] += kv[2]; q[c, k] += kv[2] * kv[2] } }
	function mean(c, k) { return s[c, k] / n[c] }
	function sd(c, k,   m, d) { m = mean(c, k); d = q[c, k] / n[c] - m * m
		return n[c] > 1 && d > 0 ? sqrt(d * n[c] / (n[c] - 1)) : 0 }
	END {
		printf "%-16s", ""
		for (j = 1; j <= nc; j++) printf " %22s", cols[j] " (sd)"
		printf " %9s\n", "change"
		for (r = 1; r <= nk; r++) {
			k = key[r]; printf "%-16s", k
			for (j = 1; j <= nc; j++) printf " %12.1f +-%8.1f", mean(cols[j], k), sd(cols[j], k)
			a = mean(cols[1], k); b = mean(cols[nc], k)
			printf " %9s\n", a ? sprintf("%+.2f%%", (b - a) * 100 / a) : "-"
		}
		printf "(%d rounds per column)\n", n[cols[1]]
	}' "$rtmp"
