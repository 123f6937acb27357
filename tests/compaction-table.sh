#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# compaction-table.sh - seed 002's table for the compaction-noacct variant,
# both settings of compaction.noacct in one boot on the same fragmented
# memory.
#
#   tests/compaction-table.sh [-V VARIANT] [-c CPUS] [-m MEM] [ROUND...]
#
# One guest boots (default: variant compaction-noacct, 1 CPU, 256M) and runs
# one round per ROUND argument (default: w 0 1 0 1).  A round fragments
# memory the same way every time, sets /sys/module/compaction/parameters/
# noacct to the round's value (0: 7.2's accounting, 1: before it; "-": leave
# it, for a kernel without the switch), runs compact_memory with the
# compaction tracepoints on, reports, and frees everything again.  "w" is a
# warm-up round at 0 that is not reported: the first round after boot starts
# from a different layout than the later ones.
#
# Fragmenting: compaction-round writes N pages (FRAG_PAGES, default 40000)
# to a file in a fresh tmpfs and punches three of every four out of it
# (fragment --file), leaving one used page in four: the pages round-robin
# writes to four files would leave when three of them are removed.  With one CPU and host ASLR
# off the layout, and so every figure, repeats round after round (measured:
# the same setting gives the same figures to within 0.5%).
#
# Output: one line per reported round,
#   round=R noacct=S isolated=.. migrate_scanned=.. free_scanned=..
#   free_passes=.. free_taken=.. migrated=..
# (vmstat compact_isolated, compact_migrate_scanned, compact_free_scanned
# deltas; free_passes: mm_compaction_isolate_freepages events, one per free
# scanner pass over a pageblock; free_taken: the pages those passes took;
# migrated: nr_migrated summed over mm_compaction_migratepages), then the
# table of the means per setting with the change from 0 to 1.
cd "$(dirname "$0")/.." || exit 2
variant=compaction-noacct cpus=1 mem=256M
while getopts V:c:m: o; do
	case $o in
	V) variant=$OPTARG ;;
	c) cpus=$OPTARG ;;
	m) mem=$OPTARG ;;
	*) echo "usage: $0 [-V VARIANT] [-c CPUS] [-m MEM] [ROUND...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- w 0 1 0 1
for r in "$@"; do
	case $r in
	w|0|1|-) ;;
	*) echo "$0: round '$r': want w, 0, 1 or -" >&2; exit 2 ;;
	esac
done

# The guest side is compaction-round (rootfs/compaction-round.sh), the
# same rounds lab 03 runs.
guest='r=0
for s in $ROUNDS; do
	out=$(compaction-round --pages "$FRAG_PAGES" $s) || exit 1
	[ "$s" = w ] && continue
	r=$((r + 1))
	echo "round=$r ${out#*: }"
done'
out=$(./umkit exec -V "$variant" -c "$cpus" -m "$mem" -t 300 -- \
	sh -c "ROUNDS='$*' FRAG_PAGES=${FRAG_PAGES:-40000}; $guest")
rc=$?
[ -z "$out" ] || printf '%s\n' "$out"
[ $rc -eq 0 ] || { echo "$0: the guest run failed (status $rc)" >&2; exit 1; }

printf '%s\n' "$out" | awk -v variant="$variant" -v cpus="$cpus" -v mem="$mem" '
	/^round=/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		s = v["noacct"]; n[s]++
		for (k in v) if (k != "round" && k != "noacct") sum[s, k] += v[k] }
	function m(s, k) { return sum[s, k] / n[s] }
	function eff(s) { return m(s, "free_scanned") ? m(s, "migrate_scanned") * 100 / m(s, "free_scanned") : 0 }
	function row(label, k,   i, a, b) {
		printf "%-30s", label
		for (i = 1; i <= nc; i++) printf " %11.1f", m(col[i], k)
		a = m(col[1], k); b = m(col[nc], k)
		if (nc > 1) printf " %8s", a ? sprintf("%+.2f%%", (b - a) * 100 / a) : "-"
		printf "\n" }
	END {
		split("- 0 1", all, " ")
		for (i = 1; i <= 3; i++) if (all[i] in n) { col[++nc] = all[i]; rounds = rounds " " n[all[i]] }
		if (!nc) exit 1
		printf "\n%s, %s CPU(s), %s: means in one boot (rounds per column:%s)\n", variant, cpus, mem, rounds
		printf "%-30s", ""
		for (i = 1; i <= nc; i++) printf " %11s", "noacct=" col[i]
		if (nc > 1) printf " %8s", "change"
		printf "\n"
		row("Compaction pages isolated", "isolated")
		row("Compaction migrate scanned", "migrate_scanned")
		row("Compaction free scanned", "free_scanned")
		printf "%-30s", "Compact scan efficiency (%)"
		for (i = 1; i <= nc; i++) printf " %11.2f", eff(col[i])
		printf "\n"
		row("Free-page isolation passes", "free_passes")
		row("Free pages taken", "free_taken")
		row("Pages migrated", "migrated") }'
