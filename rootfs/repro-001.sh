#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# repro-001 - seed 001's experiment in one guest of the rss-lazy kernel:
# the thread's lmbench fork/exec/shell table for 7.2's per-cpu rss
# counters, the pre-6.2 split counting ("revert") and lazy counters, with
# plain atomic counters as a fourth column, plus the in-kernel figures
# that UML's slow process creation hides.
#
#   repro-001 [--quick] [--rounds N] [--cpus-sweep]
#
# Columns, in this order (the first is the thread's base): percpu, revert,
# lazy, atomic: the values of rss_counter.mode, written before each column
# runs.  Each mm latches the mode when it is created, so every process the
# column starts (procbench, its children, the reader of update_cost) has
# that column's counters.  The columns run interleaved, in turn forwards
# and backwards (A B C D, D C B A, ...), so drift hits them alike.  Per
# column and round, one line:
#
#   repro: COLUMN fork_us=.. exec_us=.. shell_us=.. permm_ns=.. update_ns=..
#
#   fork_us, exec_us, shell_us  procbench (rootfs/wl-procbench.c, lmbench's
#            lat_proc cases) microseconds per operation, pinned to CPU 1
#            when the guest has two CPUs or more
#   permm_ns  nanoseconds the kernel spent per new mm on its rss counters
#            over the column's procbench runs: set-up (mm_rss_init), the
#            sums check_mm() takes, tear-down (mm_rss_destroy), the per-cpu
#            switch (lazy, with threads: none here) and the split policy's
#            syncs when a task leaves its mm; debugfs rss_counter/modes,
#            which charges each mm to the mode it latched
#   update_ns  nanoseconds per rss counter update as a fault makes it, in a
#            single-threaded process of the column's mode: the fastest of
#            64 chunks of 4096 (debugfs rss_counter/update_cost)
#
# --cpus-sweep: a boot of the per-mm sweep over guest CPU counts: per
# column and round only permm_ns, from procbench forks (one line
# "repro: COLUMN permm_ns=.."); in-kernel time, meaningful beyond the
# host's own cores.  --quick: 2 rounds of fewer operations (a boot well
# under 15 s); --rounds N: rounds (default 8, or 5 with --cpus-sweep).
# "repro-info:" lines give the context once: guest CPUs, rounds, operations,
# what one clock read (clock_ns) and one local_irq_save/restore pair
# (irqsave_ns: two host sigprocmask calls on UML with SMP) cost, and at
# the end how many timed kernel sections took over 1 ms and were left out
# of permm_ns (slow_sections: the host took the virtual CPU away).  An
# error goes to stderr with exit status 1.  A "BUG: Bad rss-counter state" in the kernel log (a
# counter left non-zero when an mm was freed) is an error too.
P=/sys/module/rss_counter/parameters/mode
D=/sys/kernel/debug/rss_counter
COLS="percpu revert lazy atomic"
rounds= quick= sweep=
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1; shift ;;
	--cpus-sweep) sweep=1; shift ;;
	--rounds)
		case ${2:-} in
		[1-9] | [1-9][0-9]) rounds=$2 ;;
		*) echo "repro-001: --rounds wants 1 to 99" >&2; exit 1 ;;
		esac
		shift 2 ;;
	--help) sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "repro-001: '$1': want --quick, --rounds N or --cpus-sweep" >&2; exit 1 ;;
	esac
done
die() { echo "repro-001: $*" >&2; exit 1; }
[ -w $P ] && [ -r $D/modes ] || die "not the rss-lazy kernel (no $P or $D/modes)"
command -v procbench >/dev/null || die "no procbench in the guest"
grep -q '^revert ' $D/modes || die "this rss-lazy kernel has no revert mode"

# Operations per column and round (fork, exec, shell; sweep: forks).
nf=150 ne=100 ns=50 sf=200
if [ -n "$quick" ]; then
	nf=60 ne=40 ns=20 sf=100
	: "${rounds:=2}"
fi
[ -n "$sweep" ] && : "${rounds:=5}"
: "${rounds:=8}"
cpus=$(grep -c '^processor' /proc/cpuinfo)
pin=; [ "$cpus" -ge 2 ] && pin="--cpu 1"
tmp=/tmp/repro-001.$$
trap 'rm -f $tmp' EXIT

# mstat MODE: mms= and ns= so far for the mms that latched MODE: their
# set-ups, and the nanoseconds of all their rss counter stages.
mstat() {
	awk -v m="$1" '$1 == m {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%d %d\n", v["init"], v["init_ns"] + v["check_ns"] + v["destroy_ns"] + v["switch_ns"] + v["leave_ns"]
		f = 1 } END { exit !f }' $D/modes > $tmp || die "no line for $1 in $D/modes"
	read -r mms ns_total < $tmp
}
# pb CASE N: procbench's microseconds per operation, in v.
pb() {
	procbench --case "$1" $pin --iterations "$2" > $tmp || die "procbench --case $1 failed"
	v=$(sed -n 's/^procbench: .* us_per_op=\([0-9][0-9.]*\).*/\1/p' $tmp)
	[ -n "$v" ] || die "procbench --case $1: no us_per_op in '$(cat $tmp)'"
}
# upd MODE: ns per update, in v, read by a fresh process (cat), which
# must have latched MODE.
upd() {
	cat $D/update_cost > $tmp || die "reading $D/update_cost failed"
	v=$(awk -v m="$1" '{ k[$1] = $2 }
		END { if (k["policy"] != m || k["chunk"] <= 0) exit 1
		      printf "%.2f\n", k["best_chunk_ns"] / k["chunk"] }' $tmp) ||
		die "update_cost ran under '$(sed -n 's/^policy //p' $tmp)', not $1"
}
# permm: ns per new mm since the last mstat before (m0, t0).
permm() {
	[ "$mms" -gt "$m0" ] || die "$1: no new mms counted"
	permm=$(awk -v n=$((mms - m0)) -v t=$((ns_total - t0)) 'BEGIN { printf "%.1f", t / n }')
}
# column MODE: one column's round, its result line.
column() {
	echo "$1" > $P || die "cannot set $P to $1"
	[ "$(cat $P)" = "$1" ] || die "$P reads $(cat $P), not $1"
	mstat "$1"; m0=$mms t0=$ns_total
	if [ -n "$sweep" ]; then
		pb fork $sf
		mstat "$1"; permm "$1"
		echo "repro: $1 permm_ns=$permm"
		return
	fi
	pb fork $nf; f=$v
	pb exec $ne; e=$v
	pb shell $ns; s=$v
	mstat "$1"; permm "$1"
	upd "$1"
	echo "repro: $1 fork_us=$f exec_us=$e shell_us=$s permm_ns=$permm update_ns=$v"
}

echo "repro-info: cpus=$cpus"
echo "repro-info: rounds=$rounds"
awk '$1 == "clock_ns" || $1 == "irqsave_ns" { print "repro-info: " $1 "=" $2 }' $D/stats
if [ -z "$sweep" ]; then
	echo "repro-info: fork_iterations=$nf"
	echo "repro-info: exec_iterations=$ne"
	echo "repro-info: shell_iterations=$ns"
	warm=shell
else
	echo "repro-info: fork_iterations=$sf"
	warm=fork
fi
# A short untimed pass, so that the first column does not pay alone for
# cold caches and the per-cpu allocator's first chunks.
for m in $COLS; do
	echo "$m" > $P && procbench --case $warm $pin --iterations 10 > /dev/null ||
		die "warm-up under $m failed"
done
r=1
while [ $r -le "$rounds" ]; do
	if [ $((r % 2)) -eq 1 ]; then order=$COLS
	else order=$(echo $COLS | awk '{ for (i = NF; i > 0; i--) printf "%s ", $i }'); fi
	for m in $order; do column "$m"; done
	r=$((r + 1))
done
echo lazy > $P
awk '$1 == "slow" { print "repro-info: slow_sections=" $2 }' $D/stats
if dmesg | grep -q 'Bad rss-counter state'; then
	dmesg | grep 'Bad rss-counter state' | head -5 >&2
	die "the kernel found an mm's rss counters off when freeing it"
fi
exit 0
