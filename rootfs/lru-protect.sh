#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# lru-protect - protected evictions in MGLRU, and whether the node's and
# the memcg's LRU sizes still agree with the generations afterwards (lab
# 02's grader for apply_gen_move_batch()'s active-size part).  In the
# guest, on any MGLRU kernel with zram swap:  MB=64 lru-protect [--batched]
# (--batched: switch lru-batch's lru_gen_batch_aging on first).
#
# In a memcg of its own (/lru-protect-PID), MB MiB of tmpfs pages (anon LRU)
# are written, aged four times into the oldest of four generations and
# read through read() six times (tiers full, then the workingset lazily
# promoted: include/linux/mmzone.h:500-506).  An anon-only eviction
# ("- ID 0 SEQ max N" in debugfs lru_gen) of the oldest generation then
# finds every folio protected: sort_folio() moves it to min_seq + 1
# (mm/vmscan.c:4767-4770), here max_seq - 2, an inactive generation.
# Read again and evicted from the oldest of the three generations left,
# the file moves to min_seq + 1 = max_seq - 1, one of the two active
# generations (lru_gen_is_active(), include/linux/mm_inline.h:165-172), so
# every page of it must move from the inactive to the active anon LRU
# size: __update_lru_size() one folio at a time (mm_inline.h:211-215), or
# the batch at the end (lru-batch 0003).  It prints
#
#   protect: pages=P moved=M active_gen=G active_stat=S inactive_gen=I inactive_stat=J
#
# P the file's pages, M of them in min_seq + 1 after the first eviction,
# G the anon pages of the memcg in its two youngest generations (lru_gen)
# and S its active_anon (memory.stat, in pages; per-cpu deltas may lag by
# a batch); I and J the same for the older generations and inactive_anon.
# A kernel that keeps its sizes right prints G close to S and I to J.
D=/sys/kernel/debug
case ${1:-} in
--help) sed -n '3,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
--batched) echo Y > $D/lru_gen_batch_aging ||
	{ echo "lru-protect: cannot switch $D/lru_gen_batch_aging on" >&2; exit 1; } ;;
'') ;;
*) echo "lru-protect: no options but --batched and --help (setting: MB)" >&2; exit 2 ;;
esac
set -u
D=/sys/kernel/debug CGR=/sys/fs/cgroup CG=/sys/fs/cgroup/lru-protect-$$
F=/dev/shm/lru-protect MB=${MB:-64}
case $MB in
[1-9]|[1-9][0-9]|[1-9][0-9][0-9]) ;;
*) echo "lru-protect: MB wants a number from 1 to 999" >&2; exit 2 ;;
esac
die() { echo "lru-protect: $*" >&2; exit 1; }
cleanup() {
	rm -f $F
	echo $$ > $CGR/cgroup.procs 2>/dev/null
	rmdir $CG 2>/dev/null
}
trap cleanup EXIT
trap 'exit 1' INT TERM

[ -e $D/lru_gen_full ] || die "no $D/lru_gen_full: not an MGLRU kernel with debugfs"
grep -q '^/dev/zram0 ' /proc/swaps || die "no zram swap"
grep -qw memory $CGR/cgroup.subtree_control || echo +memory > $CGR/cgroup.subtree_control ||
	die "cannot enable the memory controller"
rm -f $F
mkdir $CG || die "cannot make $CG"
echo $$ > $CG/cgroup.procs || die "cannot join $CG"
ID=$(awk -v pid=$$ '$1 == "memcg" && $3 == "/lru-protect-" pid { print $2; exit }' $D/lru_gen)
[ -n "$ID" ] || die "$CG is not in $D/lru_gen"

# "MAX_SEQ MIN_SEQ_ANON ANON_PAGES_IN_OLDEST ANON_PAGES_IN_MIN_SEQ+1" of
# the memcg, node 0 (lru_gen_full marks with x the generations below a
# type's min_seq)
gens() {
	awk -v id="$ID" '$1 == "memcg" { m = $2 } $1 == "node" { n = $2 }
		m == id && n == 0 && NF == 4 && $1 ~ /^[0-9]+$/ {
			max = $1
			if (a == "" && $3 !~ /x$/) { a = $1; ap = $3 }
			else if (a != "" && $1 == a + 1) an = $3
		} END { print max, a, ap + 0, an + 0 }' $D/lru_gen_full
}
reads() { for i in 1 2 3 4 5 6; do cat $F > /dev/null || die "cannot read $F"; done; }
evict() { echo "- $ID 0 $1 max 1000000" > $D/lru_gen || die "eviction of generation $1 refused"; }

dd if=/dev/zero of=$F bs=1M count=$MB 2>/dev/null || die "cannot write $F"
pages=$((MB * 256))
echo "+ $ID 0 0 1 1;+ $ID 0 0 1 1;+ $ID 0 0 1 1;+ $ID 0 0 1 1" > $D/lru_gen ||
	die "cannot age memcg $ID"
set -- $(gens)
[ "$2" -eq $(($1 - 3)) ] && [ "$3" -ge $((pages * 9 / 10)) ] ||
	die "the file is not in the oldest of 4 generations (max_seq, min_seq, pages there: $1 $2 $3)"
reads
evict "$2"
set -- $(gens)
[ "$2" -eq $(($1 - 2)) ] ||
	die "the oldest generation was not emptied (max_seq, min_seq: $1 $2)"
moved=$3
reads
evict "$2"
set -- $(awk -v id="$ID" '$1 == "memcg" { m = $2 } $1 == "node" { n = $2 }
	m == id && n == 0 && NF == 4 && $1 ~ /^[0-9]+$/ { a[$1] = $3 + 0; all += $3; max = $1 }
	END { print a[max] + a[max - 1], all - a[max] - a[max - 1] }' $D/lru_gen)
set -- "$@" $(awk '$1 == "active_anon" { a = $2 } $1 == "inactive_anon" { i = $2 }
	END { print int(a / 4096), int(i / 4096) }' $CG/memory.stat)
echo "protect: pages=$pages moved=$moved active_gen=$1 active_stat=$3" \
	"inactive_gen=$2 inactive_stat=$4"
