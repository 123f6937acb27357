# SPDX-License-Identifier: GPL-2.0-only
# repro-003 - seed 003's experiment in one uml-walk guest (umkit reproduce
# 003 boots it): MGLRU aging of a process that a secondary MMU also maps,
# with one combined clear_young call per PTE ("one notifier", 7.2) against
# a test_young call before the folio look-up and a clear_young call for the
# young ones ("two notifiers"), through debugfs lru_gen_young_separate in
# one boot.  The secondary MMU is uml-walk's test MMU
# (/sys/kernel/debug/lru_gen_test_mmu: a young bit per page, a
# reader-writer lock that eviction's invalidations take for write).
#
#   repro-003 [--quick] [--rounds N]
#
# Two processes of 64 MiB (16384 pages) each, as the thread's
# access_tracking_perf_test has its vCPUs' memory:
#   idle   in memcg /r3i, no limit.  Per measurement: an aging with nothing
#          accessed since the one before is timed ("cold": the thread's
#          second aging in a row), the secondary MMU accesses every page
#          (the thread's "Writing to idle memory": the guest's writes set
#          the secondary MMU's bits, not the PTEs'), and the next aging is
#          timed ("idle": the thread's "got longer" aging).
#   fault  in memcg /r3f, memory.max 32 MiB, writing its 64 MiB over and
#          over, 4 MiB at a time (faulting pages in from zram swap while eviction unmaps
#          others: the test MMU's write lock); meanwhile the secondary MMU
#          accesses every page before each of the timed agings of /r3f.
# The test MMU is attached to one process at a time (the one measured).
#
# Each round measures both columns, in the order A B B A (A is combined in
# odd rounds, separate in even ones), and prints per column:
#
#   repro: COLUMN aging_idle_ms=... idle_KEY=... aging_fault_ms=... fault_KEY=...
#
# aging_idle_ms: the mean of IDLE_REPS timed agings of the idle process
# after the secondary MMU's writes; idle_lookups, idle_lookups_old,
# idle_test_calls, idle_clear_calls, idle_young, idle_young_secondary: per
# such aging, from /sys/kernel/debug/lru_gen_notify_stats (folio look-ups,
# those for old PTEs, test_young and clear_young calls made, ranges found
# young, young in the secondary MMU only); aging_cold_ms, cold_lookups,
# cold_test_calls, cold_clear_calls, cold_young: the same for the agings
# with nothing accessed; aging_fault_ms: the mean of FAULT_AGINGS timed
# agings of the faulting process; fault_notifier_calls and fault_lookups:
# per aging, counted over the phase (eviction's look-around included);
# fault_evicted: pages reclaimed from /r3f during the phase (memory.stat
# pgsteal); fault_invalidates: the test MMU's invalidations during it;
# fault_lock_waits: its young callbacks that waited for an invalidation's
# write lock.
D=/sys/kernel/debug T=/sys/kernel/tracing CG=/sys/fs/cgroup
M=$D/lru_gen_test_mmu
TOUCH=/usr/lib/umkit/umkit-touch
MIB=64

fail() { echo "repro-003: $*" >&2; exit 1; }

rounds=6 idle_reps=3 fault_agings=6
while [ $# -gt 0 ]; do
	case $1 in
	--quick) rounds=1 idle_reps=2 fault_agings=3 ;;
	--rounds)
		[ $# -ge 2 ] || fail "--rounds needs a number"
		case $2 in '' | *[!0-9]*) fail "--rounds: not a number: $2" ;; esac
		[ "$2" -ge 1 ] && [ "$2" -le 1000 ] || fail "--rounds: 1 to 1000"
		rounds=$2
		shift ;;
	*) fail "usage: repro-003 [--quick] [--rounds N]" ;;
	esac
	shift
done
[ -d $M ] && [ -f $D/lru_gen_young_separate ] && [ -f $D/lru_gen_notify_stats ] ||
	fail "this kernel has no test secondary MMU or lru_gen_young_separate (boot uml-walk)"

# toucher NAME MEMCG: umkit-touch MIB in memcg MEMCG on fds (in, out) set
# by the caller; sets NAME_pid and NAME_id (the memcg's lru_gen ID)
start_toucher() {
	mkdir -p $CG/$2
	mkfifo /tmp/r3-$1-in /tmp/r3-$1-out
	sh -c "echo \$\$ > $CG/$2/cgroup.procs && exec $TOUCH $MIB" < /tmp/r3-$1-in > /tmp/r3-$1-out &
}
# memcg_id NAME: its ID in lru_gen
memcg_id() { awk -v n="/$1" '$1 == "memcg" && $3 == n {print $2}' $D/lru_gen; }
# the start address of process PID's mapping of MIB MiB (decimal)
map_start() {
	awk '{ split($1, a, "-"); if (length(a[2]) <= 12) print a[1], a[2] }' /proc/$1/maps |
	while read -r a b; do
		[ $((0x$b - 0x$a)) -eq $((MIB * 1048576)) ] && { echo $((0x$a)); break; }
	done
}
attach() {
	echo "$1 $(map_start "$1") $((MIB * 1048576))" > $M/attach || fail "attaching the test MMU to $1 failed"
}
# age ID: one aging of memcg ID; retried while another aging of it runs
age() {
	_n=0
	until echo "+ $1 0 0 1 1" > $D/lru_gen 2>/dev/null; do
		_n=$((_n + 1))
		[ $_n -lt 100 ] || fail "aging memcg $1 refused 100 times"
	done
}
# tage ID: one aging of memcg ID between two trace markers; prints its ns,
# or nothing when it was refused (another aging of the memcg ran: reclaim)
# or the markers do not give one interval (each is seen once, in order)
tage() {
	echo > $T/trace
	echo "r3 a" > $T/trace_marker
	_ok=0
	echo "+ $1 0 0 1 1" > $D/lru_gen 2>/dev/null && _ok=1
	echo "r3 b" > $T/trace_marker
	[ $_ok = 1 ] || return 0
	awk '/tracing_mark_write: r3 [ab]/ {
		for (i = 1; i <= NF; i++) if ($i == "tracing_mark_write:") break
		t = $(i - 1); sub(/:$/, "", t); split(t, s, ".")
		n[$(i + 2)]++; us[$(i + 2)] = s[1] * 1000000 + s[2] }
		END { if (n["a"] == 1 && n["b"] == 1 && us["b"] >= us["a"]) print (us["b"] - us["a"]) * 1000 }' $T/trace
}
# nstats: the notifier counts, "LOOKUPS LOOKUPS_OLD TEST CLEAR YOUNG YOUNG2"
nstats() { awk '{printf "%s ", $2} END {print ""}' $D/lru_gen_notify_stats; }
# mstat KEY: a test MMU stats value
mstat() { awk -v k="$1" '$1 == k {print $2}' $M/stats; }
pgsteal() { awk '$1 == "pgsteal" {print $2}' $CG/r3f/memory.stat; }

# --- set up ---------------------------------------------------------------
echo +memory > $CG/cgroup.subtree_control || fail "no memory controller"
echo mono > $T/trace_clock || fail "no trace clock"
echo 1 > $T/tracing_on
echo 0 > $M/cost_ns
start_toucher i r3i
exec 3> /tmp/r3-i-in 4< /tmp/r3-i-out
read -r l ipid <&4 && [ "$l" = ready ] || fail "the idle process did not start"
mkdir -p $CG/r3f
echo 32M > $CG/r3f/memory.max || fail "memory.max of /r3f"
start_toucher f r3f
exec 5> /tmp/r3-f-in 6< /tmp/r3-f-out
read -r l fpid <&6 && [ "$l" = ready ] || fail "the faulting process did not start"
iid=$(memcg_id r3i) fid=$(memcg_id r3f)
[ -n "$iid" ] && [ -n "$fid" ] || fail "memcgs /r3i and /r3f not in lru_gen"
age "$iid"; age "$iid"; age "$fid"; age "$fid"
echo "repro-info: pages=$((MIB * 256)) fault_limit_pages=8192 rounds=$rounds idle_reps=$idle_reps fault_agings=$fault_agings cost_ns=0"

# idle COLUMN: IDLE_REPS times, an aging of the idle process with nothing
# accessed since the aging before (timed: "cold"), then one after the
# secondary MMU wrote all of it (timed: "idle"); sets idle_out
idle() {
	[ "$1" = separate ] && echo Y > $D/lru_gen_young_separate || echo N > $D/lru_gen_young_separate
	attach "$ipid"
	age "$iid"
	_t=0 _c=0 _i=0 _tries=0
	set -- 0 0 0 0 0 0 0 0 0 0 0 0
	while [ $_i -lt "$idle_reps" ]; do
		_tries=$((_tries + 1))
		[ $_tries -le $((idle_reps * 50)) ] || fail "agings of /r3i refused too often"
		_s0=$(nstats)
		_wc=$(tage "$iid")
		_s1=$(nstats)
		echo 1 > $M/access
		_w=$(tage "$iid")
		_s2=$(nstats)
		[ -n "$_wc" ] && [ -n "$_w" ] || continue
		# cold counts 1-6, idle counts 7-12
		set -- $(echo "$* $_s0 $_s1 $_s2" | awk '{ for (i = 1; i <= 6; i++) printf "%d ", $i + $(18 + i) - $(12 + i)
			for (i = 1; i <= 6; i++) printf "%d ", $(6 + i) + $(24 + i) - $(18 + i) }')
		_t=$((_t + _w)) _c=$((_c + _wc)) _i=$((_i + 1))
	done
	idle_out=$(echo "$_t $_c $idle_reps $*" | awk '{ n = $3
		printf "aging_idle_ms=%.3f idle_lookups=%d idle_lookups_old=%d idle_test_calls=%d idle_clear_calls=%d idle_young=%d idle_young_secondary=%d",
			$1 / n / 1e6, $10 / n, $11 / n, $12 / n, $13 / n, $14 / n, $15 / n
		printf " aging_cold_ms=%.3f cold_lookups=%d cold_test_calls=%d cold_clear_calls=%d cold_young=%d",
			$2 / n / 1e6, $4 / n, $6 / n, $7 / n, $8 / n }')
}

# fault COLUMN: FAULT_AGINGS timed agings of the faulting process while it
# writes its memory over and over; sets fault_out
fault() {
	[ "$1" = separate ] && echo Y > $D/lru_gen_young_separate || echo N > $D/lru_gen_young_separate
	attach "$fpid"
	rm -f /tmp/r3-stop
	# 4 MiB a command, so that the stop is seen soon
	( k=0
	  while [ ! -e /tmp/r3-stop ]; do
		echo "w $k 4" >&5
		read -r l <&6 && [ "$l" != "${l#ok}" ] || exit 1
		k=$(((k + 4) % MIB))
	  done ) &
	_bg=$!
	_s0=$(nstats) _v0=$(mstat invalidates) _r0=$(mstat read_waits) _p0=$(pgsteal)
	_t=0 _i=0 _tries=0
	while [ $_i -lt "$fault_agings" ]; do
		_tries=$((_tries + 1))
		[ $_tries -le $((fault_agings * 50)) ] || fail "agings of /r3f refused too often"
		echo 1 > $M/access
		_w=$(tage "$fid")
		[ -n "$_w" ] || continue
		_t=$((_t + _w)) _i=$((_i + 1))
	done
	_s1=$(nstats) _v1=$(mstat invalidates) _r1=$(mstat read_waits) _p1=$(pgsteal)
	: > /tmp/r3-stop
	wait $_bg || fail "the faulting process failed"
	fault_out=$(echo "$_t $fault_agings $_s0 $_s1 $((_p1 - _p0)) $((_v1 - _v0)) $((_r1 - _r0))" | awk '{ n = $2
		printf "aging_fault_ms=%.3f fault_notifier_calls=%d fault_lookups=%d fault_evicted=%d fault_invalidates=%d fault_lock_waits=%d",
			$1 / n / 1e6, ($11 - $5 + $12 - $6) / n, ($9 - $3) / n, $15, $16, $17 }')
}

r=1
while [ $r -le "$rounds" ]; do
	if [ $((r % 2)) = 1 ]; then a=combined b=separate; else a=separate b=combined; fi
	idle $a; ia=$idle_out
	idle $b; ib=$idle_out
	fault $b; fb=$fault_out
	fault $a; fa=$fault_out
	for c in combined separate; do
		if [ $c = $a ]; then echo "repro: $c $ia $fa"; else echo "repro: $c $ib $fb"; fi
	done
	r=$((r + 1))
done
echo 0 > $M/attach
echo N > $D/lru_gen_young_separate
echo q >&3
echo q >&5
wait
