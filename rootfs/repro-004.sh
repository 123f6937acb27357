#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# repro-004 - seed 004 (the cost of cgroup-aware workingset detection:
# vm-scalability lru-file-readtwice), the guest side of
# `umkit reproduce 004`, on the workingset-cost kernel:
#
#   repro-004 [--quick] [--rounds N] [--size SIZE]
#
# Columns, each round in the order below and the next round reversed
# (A B C D, then D C B A: drift hits every column alike):
#   regressed_classic  /sys/kernel/mm/lru_gen/enabled n (the classic
#                      active/inactive LRU, the only one in 2016) and
#                      workingset.regress 1: the hooks with extra work of
#                      the kind the thread's fix removed (out-of-line memcg
#                      and lruvec lookups, a css reference per hook, a lock
#                      on activation), an approximation of 23047a96d7cf:
#                      the thread's "before"
#   fixed_classic      classic LRU, regress 0: the hooks as in 7.2, which
#                      has the fix: the thread's "after"
#   regressed_mglru    MGLRU on (lru_gen/enabled y), regress 1
#   fixed_mglru        MGLRU on, regress 0: 7.2 as shipped
#
# Per column and round, one line
#
#   repro: COLUMN mb_per_s=.. evict_ns=.. refault_ns=.. activate_ns=..
#          refaults=.. evictions=.. activations=.. long_calls=..  (one line)
#
#   mb_per_s     readtwice (vm-scalability's lru-file-readtwice): 2 workers,
#                each reads its own sparse file of guest memory / 2 on the
#                guest disk twice; MB/s (10^6 bytes) over both passes
#   evict_ns     ns per page spent in workingset_eviction() during that run
#   refault_ns   ns per page spent in workingset_refault()
#   activate_ns  ns per page spent in workingset_activation(); MGLRU never
#                calls it (folio_mark_accessed(), mm/swap.c:500-503): 0
#   refaults, evictions, activations   pages through each hook in the run
#   long_calls   calls of the three hooks that took longer than 50 us (on
#                UML mostly a vCPU that lost its host CPU, or an interrupt)
#
# (from /sys/kernel/debug/workingset_cost, read before and after the run;
# the ns figures leave the long calls out).
# Lower is better for every key but mb_per_s; the four counts are
# context (the switch must not change them beyond the run-to-run spread).
# Once per boot, at the end: repro-info: workers=.. file_mb=.. mem_total_kb=..
# --size SIZE: each worker's file (64M, or 75% of guest memory) instead of
# the thread's guest memory / workers, where both passes fit in part.
# Needs the workingset-cost kernel and the scratch disk at /mnt/disk
# (umkit exec gives it: -d, default 2G); 2 CPUs and 256 MiB
# (umkit exec -c 2 -m 256M).  One warm-up run first (the guest's memory is
# touched for the first time on the host: slower), not reported; none
# with --quick.  --quick: one round (4 runs: 5-25 s, load-dependent);
# default 6 rounds (24 runs + 1: 60-70 s at load average 10 on 2 cores).
set -u
COST=/sys/kernel/debug/workingset_cost
SW=/sys/module/workingset/parameters/regress
LG=/sys/kernel/mm/lru_gen/enabled
ROUNDS=6 WORKERS=2 WARM=1 SIZE=

die() { echo "repro-004: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
	case $1 in
	--help) sed -n '2,51p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	--quick) ROUNDS=1 WARM=0; shift ;;
	--size)
		case ${2:-} in
		[1-9]*[0-9]M|[1-9]M|[1-9]*[0-9]%|[1-9]%) SIZE=$2 ;;
		*) die "--size wants a size in MiB (64M) or a share of memory (75%)" ;;
		esac
		shift 2 ;;
	--rounds)
		case ${2:-} in
		[1-9]|[1-9][0-9]) ROUNDS=$2 ;;
		*) die "--rounds wants a number from 1 to 99" ;;
		esac
		shift 2 ;;
	*) die "unknown argument (see --help)" ;;
	esac
done

[ -r $COST ] || die "$COST missing: not the workingset-cost kernel"
[ -w $SW ] || die "$SW missing: not the workingset-cost kernel"
[ -w $LG ] || die "$LG missing: no MGLRU in this kernel"
grep -q ' /mnt/disk ' /proc/mounts || die "no scratch disk at /mnt/disk (umkit exec -d SIZE)"

cleanup() {
	echo 0 > $SW
	echo y > $LG
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# setting LRU REGRESS: LRU y (MGLRU) or n (classic), REGRESS 0 or 1;
# each is read back
setting() {
	echo "$1" > $LG || die "cannot write $1 to $LG"
	lg=$(cat $LG)
	if [ "$1" = n ]; then [ "$lg" = 0x0000 ] || die "$LG reads $lg after n"
	else [ "$lg" != 0x0000 ] || die "$LG reads $lg after y"; fi
	echo "$2" > $SW || die "cannot write $2 to $SW"
	case $2:$(cat $SW) in
	0:N|1:Y) ;;
	*) die "$SW did not take $2" ;;
	esac
}
# "PAGES NS LONG_CALLS LONG_PAGES LONG_NS" of eviction, refault and
# activation in turn (15 numbers)
cost() {
	awk '$1 == "eviction" { e = $3 " " $4 " " $5 " " $6 " " $7 }
		$1 == "refault" { r = $3 " " $4 " " $5 " " $6 " " $7 }
		$1 == "activation" { a = $3 " " $4 " " $5 " " $6 " " $7 }
		END { print e, r, a }' $COST
}
# readtwice's output line, after the page cache is dropped
readtwice_run() {
	echo 1 > /proc/sys/vm/drop_caches
	readtwice --workers $WORKERS ${SIZE:+--size "$SIZE"} || die "readtwice failed"
}
# val LINE KEY: a KEY=VALUE of readtwice's line
val() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# column NAME LRU REGRESS: one run, one result line
column() {
	setting "$2" "$3"
	c0=$(cost)
	out=$(readtwice_run) || exit 1
	c1=$(cost)
	mb=$(val "$out" mb_per_s)
	file_mb=$(val "$out" file_mb)
	case $mb in ''|*[!0-9.]*) die "readtwice printed no mb_per_s: $out" ;; esac
	echo "$c0 $c1" | awk -v col="$1" -v mb="$mb" '
		# path i (0 eviction, 1 refault, 2 activation): field j of it,
		# after minus before
		function d(i, j) { return $(15 + 5 * i + j) - $(5 * i + j) }
		# ns per page of the calls that took at most 50 us
		function per(i,  p) {
			p = d(i, 1) - d(i, 4)
			return p > 0 ? sprintf("%.1f", (d(i, 2) - d(i, 5)) / p) : "0"
		}
		NF == 30 { printf "repro: %s mb_per_s=%s evict_ns=%s refault_ns=%s activate_ns=%s refaults=%d evictions=%d activations=%d long_calls=%d\n",
			col, mb, per(0), per(1), per(2), d(1, 1), d(0, 1), d(2, 1),
			d(0, 3) + d(1, 3) + d(2, 3); ok = 1 }
		END { exit !ok }' || die "cannot read $COST"
}

# The warm-up run: the first pass over guest memory costs host page faults.
if [ $WARM = 1 ]; then
	setting y 0
	readtwice_run > /dev/null || exit 1
fi
file_mb=0

r=1
while [ $r -le $ROUNDS ]; do
	if [ $((r % 2)) -eq 1 ]; then
		column regressed_classic n 1
		column fixed_classic n 0
		column regressed_mglru y 1
		column fixed_mglru y 0
	else
		column fixed_mglru y 0
		column regressed_mglru y 1
		column fixed_classic n 0
		column regressed_classic n 1
	fi
	r=$((r + 1))
done
echo "repro-info: workers=$WORKERS file_mb=$file_mb mem_total_kb=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)"
