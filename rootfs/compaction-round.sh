#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# compaction-round - one round of seed 002's experiment, in the guest:
# fragment memory the same way every time, compact it with the compaction
# tracepoints on, and print what the scanners did.
#
#   compaction-round [--name NAME] [--pages N] [w|0|1|-]
#
# 40000 pages (--pages) are written to a file in a fresh tmpfs and three
# pages of every four punched out of it (fragment --file: the pages that
# round-robin writes to four files and removing three would leave, in
# about 200 system calls, not one a page), so most pageblocks hold one used
# page in four.  The argument sets compaction-noacct's switch for the round
# (0 the 7.2 accounting, 1 none; - leaves it; w: a warm-up round, 0).  With
# one CPU and host ASLR off (umkit's default) rounds of one setting repeat
# within a few percent.  After the round everything is freed and compacted
# again, so the next round starts from the same state.  Output, one line:
#
#   NAME: noacct=S isolated=.. migrate_scanned=.. free_scanned=..
#   scan_efficiency_pct=.. free_passes=.. free_taken=.. migrated=..
#
# (NAME defaults to compaction-round; the counts are /proc/vmstat deltas and
# the trace's mm_compaction_isolate_freepages and _migratepages events.)
T=/sys/kernel/tracing P=/sys/module/compaction/parameters/noacct
name=compaction-round pages=40000 s=-
while [ $# -gt 0 ]; do
	case $1 in
	--name) name=$2; shift 2 ;;
	--pages) pages=$2; shift 2 ;;
	w|0|1|-) s=$1; shift ;;
	--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "compaction-round: '$1': want --name NAME, --pages N, w, 0, 1 or -" >&2; exit 2 ;;
	esac
done
case $pages in ''|*[!0-9]*) echo "compaction-round: --pages $pages: want a number" >&2; exit 2 ;; esac
case $s in
w) [ ! -e $P ] || echo 0 > $P ;;
0|1) [ -e $P ] || { echo "compaction-round: no $P: this kernel has no compaction.noacct switch" >&2; exit 2; }
     echo $s > $P || exit 1 ;;
esac
echo 0 > /proc/sys/vm/compaction_proactiveness
echo 1024 > $T/buffer_size_kb
echo 1 > $T/events/compaction/mm_compaction_isolate_freepages/enable
echo 1 > $T/events/compaction/mm_compaction_migratepages/enable
mkdir -p /mnt/frag
vm() { awk '$1 == "compact_isolated" { i = $2 } $1 == "compact_migrate_scanned" { m = $2 }
	$1 == "compact_free_scanned" { f = $2 } END { print i, m, f }' /proc/vmstat; }
mount -t tmpfs -o size=90%,nr_inodes=0 frag /mnt/frag || exit 1
fragment --size $((pages * 4096)) --keep 25 --file /mnt/frag/0 >/dev/null || exit 1
echo > $T/trace
echo 1 > $T/tracing_on
a=$(vm)
echo 1 > /proc/sys/vm/compact_memory
b=$(vm)
echo 0 > $T/tracing_on
echo $a $b | awk -v name="$name" -v s="$s" '{ i = $4 - $1; m = $5 - $2; f = $6 - $3
	printf "%s: noacct=%s isolated=%d migrate_scanned=%d free_scanned=%d scan_efficiency_pct=%.2f ",
		name, s, i, m, f, f ? m * 100 / f : 0 }'
awk '/ mm_compaction_isolate_freepages:/ { n++; sub(/.*nr_taken=/, ""); t += $1 }
     / mm_compaction_migratepages:/ { sub(/.*nr_migrated=/, ""); m += $1 }
     END { printf "free_passes=%d free_taken=%d migrated=%d\n", n, t, m }' $T/trace
umount /mnt/frag
echo 3 > /proc/sys/vm/drop_caches
echo 1 > /proc/sys/vm/compact_memory
