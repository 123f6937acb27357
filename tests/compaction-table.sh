#!/bin/sh
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
# Fragmenting: awk writes N pages (FRAG_PAGES, default 40000) round-robin
# to K files (FRAG_FILES, default 4) in a fresh tmpfs, one page per write,
# so consecutive page allocations go to different files; all but the first
# file are removed, leaving one used page in K.  With one CPU and host ASLR
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

guest=$(cat <<'EOF'
T=/sys/kernel/tracing P=/sys/module/compaction/parameters/noacct
N=${FRAG_PAGES:-40000} K=${FRAG_FILES:-4}
echo 0 > /proc/sys/vm/compaction_proactiveness
echo 1024 > $T/buffer_size_kb
echo 1 > $T/events/compaction/mm_compaction_isolate_freepages/enable
echo 1 > $T/events/compaction/mm_compaction_migratepages/enable
mkdir -p /mnt/frag
vm() { awk '$1 == "compact_isolated" { i = $2 } $1 == "compact_migrate_scanned" { m = $2 }
	$1 == "compact_free_scanned" { f = $2 } END { print i, m, f }' /proc/vmstat; }
r=0
for s in $ROUNDS; do
	mount -t tmpfs -o size=90%,nr_inodes=0 frag /mnt/frag || exit 1
	awk -v n=$N -v k=$K 'BEGIN { s = sprintf("%4096s", "")
		for (i = 0; i < n; i++) { f = "/mnt/frag/" (i % k); printf "%s", s > f; fflush(f) } }' || exit 1
	rm -f /mnt/frag/[1-9]*
	case $s in
	w) [ ! -e $P ] || echo 0 > $P ;;
	-) ;;
	*) [ -e $P ] || { echo "no $P: this kernel has no compaction.noacct switch" >&2; exit 1; }
	   echo $s > $P || exit 1 ;;
	esac
	echo > $T/trace
	echo 1 > $T/tracing_on
	a=$(vm)
	echo 1 > /proc/sys/vm/compact_memory
	b=$(vm)
	echo 0 > $T/tracing_on
	if [ "$s" != w ]; then
		r=$((r + 1))
		echo $a $b | awk -v r=$r -v s=$s '{ printf "round=%d noacct=%s isolated=%d migrate_scanned=%d free_scanned=%d ",
			r, s, $4 - $1, $5 - $2, $6 - $3 }'
		awk '/ mm_compaction_isolate_freepages:/ { n++; sub(/.*nr_taken=/, ""); t += $1 }
		     / mm_compaction_migratepages:/ { sub(/.*nr_migrated=/, ""); m += $1 }
		     END { printf "free_passes=%d free_taken=%d migrated=%d\n", n, t, m }' $T/trace
	fi
	umount /mnt/frag
	echo 3 > /proc/sys/vm/drop_caches
	echo 1 > /proc/sys/vm/compact_memory
done
EOF
)
out=$(./umkit exec -V "$variant" -c "$cpus" -m "$mem" -t 300 -- \
	sh -c "ROUNDS='$*' FRAG_PAGES=${FRAG_PAGES:-40000} FRAG_FILES=${FRAG_FILES:-4}; $guest")
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
