# SPDX-License-Identifier: GPL-2.0-only
# walk-probe - guest side of the uml-walk tests, benchmarks and lab 06.
# In every guest as /usr/bin/walk-probe: umkit exec -- walk-probe TASK
#
#   accuracy   how many of 4096 pages read after an aging the next aging
#              finds young, for a reader blocked in the kernel during the
#              aging and for one reading on in user space, with the host
#              sync of cleared young bits on (Y) and off (N, debugfs
#              um_young_sync); lines "accuracy blocked|busy Y|N SEEN 4096"
#              (busy lines add C: the young bits the aging before cleared
#              while the reader ran in user space; SEEN is the best of up
#              to BUSY_AGINGS agings, default 5; BUSY_TRACE=1 adds a line
#              "accuracy-agings Y|N COUNT..." with each aging's count)
#   notify     aging a 64 MiB process with the test secondary MMU attached
#              to its 64 MiB (COST_NS per call), one combined clear_young
#              call (N) or separate test_young and clear_young calls (Y),
#              the secondary MMU having accessed all, half or none of the
#              pages since the aging before; lines
#              "notify MODE EVERY PTES TEST CLEAR YOUNG CALL_NS WRITE_NS"
#   hotset     ROUNDS times: read a 16 MiB hot set of a 64 MiB process,
#              age; lines "hotset ROUND HOT_IN_YOUNG FAULTS WRITE_NS" (the
#              process's pages in the two youngest generations, the page
#              faults of the read, the aging write's duration); any kernel;
#              LRU_GEN=0x0001 turns the walk off first
#   young      the young bits any kernel's reverse map tests (base too):
#              the 64 MiB process's are cleared (/proc/PID/clear_refs),
#              then 16 MiB of it (4096 pages) are read; line "young
#              FAULTS REFERENCED 4096": the faults of the read and the
#              pages of the mapping whose PTE is young (smaps Referenced)
#   mmu        the test secondary MMU's own checks: refused inputs
#              ("mmu NAME accepted|refused"), its accessed bits ("mmu
#              accessed|after_aging N"), lru_gen_notify_stats of an aging
#              with nothing young, combined (N) and separate (Y) ("mmu cold
#              MODE LOOKUPS LOOKUPS_OLD TEST CLEAR YOUNG YOUNG2"), an
#              eviction with every other page young in the secondary MMU
#              ("mmu evict PRESENT INVALIDATES BITS_LEFT"), detaching
#              ("mmu detached 0") and attaching again ("mmu reattach")
#   stress     SECS seconds: NPROC processes of MIB MiB (48) touching,
#              freeing and forking at random (every other one in memcg /s,
#              limited to 48 MiB), every lruvec aged and evicted every
#              100 ms; then "stress AGINGS EVICTIONS PASSES/PROCS SWAP_KB"
#              (SWAP_KB: the most swap in use seen)
#              and "dmesg: LINE" for each warning, oops or OOM kill
#
# Every task but stress puts its process in memcg /t and ages only that
# memcg ("+ ID 0 MAX_SEQ 1 1": swappiness 1, force_scan).
D=/sys/kernel/debug T=/sys/kernel/tracing CG=/sys/fs/cgroup
TOUCH=/usr/lib/umkit/umkit-touch

fail() { echo "walk-probe: $*" >&2; exit 1; }

# start_toucher MIB: umkit-touch MIB in memcg /t on fds 3 (in) and 4 (out)
start_toucher() {
	echo +memory > $CG/cgroup.subtree_control || fail "no memory controller"
	mkdir -p $CG/t
	mkfifo /tmp/walk-in /tmp/walk-out
	sh -c "echo \$\$ > $CG/t/cgroup.procs && exec $TOUCH $1" < /tmp/walk-in > /tmp/walk-out &
	exec 3> /tmp/walk-in 4< /tmp/walk-out
	read -r l pid <&4 && [ "$l" = ready ] || fail "umkit-touch did not start"
	id=$(awk '$1 == "memcg" && $3 == "/t" {print $2}' $D/lru_gen)
	[ -n "$id" ] || fail "no memcg /t in lru_gen"
}
# cmd LINE: one umkit-touch command, waiting for its answer
cmd() { echo "$1" >&3; read -r l <&4; [ "$l" != "${l#ok}" ] || fail "umkit-touch: $l"; }
age() { echo "+ $id 0 0 1 1" > $D/lru_gen || fail "aging memcg $id failed"; }
# the walk's PTE counts of the last aging of memcg /t: "TOTAL YOUNG"
walkstats() {
	awk -v id=$id '$1 == "memcg" { p = ($2 == id) }
		p && $1 ~ /^[0-9]+t$/ && $2 ~ /^[0-9]+y$/ { t = $1; y = $2 }
		END { sub(/t/, "", t); sub(/y/, "", y); print t + 0, y + 0 }' $D/lru_gen_full
}
# pages of memcg /t in its two youngest generations
young_gens() {
	awk -v id=$id '$1 == "memcg" { p = ($2 == id) }
		p && NF == 4 && $1 ~ /^[0-9]+$/ { a = b; b = $3 + $4 } END { print a + b }' $D/lru_gen
}
faults() { awk '$1 == "pgfault" {print $2}' /proc/vmstat; }
# the toucher's minor faults (/proc/PID/stat field 10)
tfaults() { awk '{print $10}' /proc/$pid/stat; }
# quiet: wait until the toucher took no fault for 0.5 s (at most 15 s)
quiet() {
	_q=0 _a=$(tfaults)
	while [ $_q -lt 30 ]; do
		sleep 0.5; _b=$(tfaults)
		[ "$_a" = "$_b" ] && return
		_a=$_b _q=$((_q + 1))
	done
}
# timed COMMAND...: run it between two trace markers; prints the ns
timed() {
	echo mono > $T/trace_clock
	echo > $T/trace
	echo 1 > $T/tracing_on
	echo "walk a" > $T/trace_marker
	"$@"
	echo "walk b" > $T/trace_marker
	awk '/tracing_mark_write: walk [ab]/ {
		for (i = 1; i <= NF; i++) if ($i == "tracing_mark_write:") break
		t = $(i - 1); sub(/:$/, "", t); split(t, s, ".")
		us[$(i + 2)] = s[1] * 1000000 + s[2] } END { print (us["b"] - us["a"]) * 1000 }' $T/trace
}

# best_of N STEP: STEP (ending in an aging) up to N times, until the walk
# finds 3900 PTEs young; $best is the most it found, $all each count
best_of() {
	best=0 all= _i=0
	while [ $_i -lt "$1" ] && [ $best -lt 3900 ]; do
		$2
		_y=$(walkstats | cut -d' ' -f2)
		[ "$_y" -le $best ] || best=$_y
		all="$all $_y" _i=$((_i + 1))
	done
}
read_age() { cmd "r $f 16"; age; }
quiet_age() { quiet; age; }

task_accuracy() {
	start_toucher 64
	age; age
	for m in Y N; do
		echo $m > $D/um_young_sync
		f=0; [ $m = N ] && f=32
		# blocked: the reader waits for its next command during the
		# agings.  A walk skips a PTE table whose lock it cannot take
		# at once (mm/vmscan.c:3480 in 7.2): once in 16 boots one aging
		# missed two tables of it, so the best of up to 3 reads.
		cmd "r $f 16"; age
		best_of 3 read_age
		echo "accuracy blocked $m $best 4096"
		# busy: the reader reads on in user space while an aging clears
		# the young bits (C of them); its next kernel entry (a timer
		# tick) syncs the host mapping, its reads fault, and agings
		# while it still runs count (the best of up to BUSY_AGINGS,
		# default 5, stopping at 3900).  Agings wait for its faults to
		# stop: the walk skips a PTE table that a fault holds locked.
		f=$((f + 16))
		cmd "r $f 16"; age
		echo "b $f 16 0" >&3
		quiet; age
		set -- $(walkstats)
		c=$2
		best_of "${BUSY_AGINGS:-5}" quiet_age
		kill -USR1 "$pid"
		read -r l <&4
		echo "accuracy busy $m $best 4096 $c"
		[ -z "${BUSY_TRACE:-}" ] || echo "accuracy-agings $m$all"
	done
	echo Y > $D/um_young_sync
	echo q >&3
}

task_notify() {
	M=$D/lru_gen_test_mmu
	start_toucher 64
	age; age; age
	echo "${COST_NS:-1000}" > $M/cost_ns
	echo "$pid $(map_start 64) $((64 << 20))" > $M/attach || fail "attach to $pid failed"
	for e in 1 2 0; do
		for m in N Y N Y; do
			echo $m > $D/lru_gen_young_separate
			# the secondary MMU accesses every e-th page since the last
			# aging (which cleared its bits)
			[ $e = 0 ] || echo $e > $M/access
			s0=$(awk 'NR <= 8 {printf "%s ", $2}' $M/stats)
			w=$(timed age)
			s1=$(awk 'NR <= 8 {printf "%s ", $2}' $M/stats)
			set -- $(walkstats)
			# stats: cfy calls, pages, clear calls, pages, test calls, pages, young, ns
			echo "$s0 $s1" | awk -v m=$m -v e=$e -v p=$1 -v w=$w '{
				printf "notify %s %d %d %d %d %d %d %d\n", m, e, p,
					$13 - $5, $11 - $3, $15 - $7, $16 - $8, w }'
		done
	done
	echo 0 > $M/attach
	echo N > $D/lru_gen_young_separate
	echo q >&3
}

task_hotset() {
	# LRU_GEN: lru_gen/enabled for the run (0x0001: no page-table walk)
	[ -z "${LRU_GEN:-}" ] || echo "$LRU_GEN" > /sys/kernel/mm/lru_gen/enabled ||
		fail "lru_gen/enabled: $LRU_GEN"
	start_toucher 64
	age; age
	r=0
	while [ $r -lt "${ROUNDS:-8}" ]; do
		f0=$(faults)
		cmd "r 0 16"
		f1=$(faults)
		w=$(timed age)
		echo "hotset $r $(young_gens) $((f1 - f0)) $w"
		r=$((r + 1))
	done
	echo q >&3
}

# the start address of the toucher's mapping of MIB MiB (decimal)
map_start() {
	awk '{ split($1, a, "-"); if (length(a[2]) <= 12) print a[1], a[2] }' /proc/$pid/maps |
	while read -r a b; do
		[ $((0x$b - 0x$a)) -eq $(($1 * 1048576)) ] && { echo $((0x$a)); break; }
	done
}
# present FIRST COUNT: pages of MiB FIRST..FIRST+COUNT-1 of the toucher's
# 64 MiB mapping that are in memory (/proc/PID/pagemap bit 63)
present() {
	dd if=/proc/$pid/pagemap bs=8 skip=$(($(map_start 64) / 4096 + $1 * 256)) \
		count=$(($2 * 256)) 2>/dev/null | od -An -v -tx8 |
		awk '{ for (i = 1; i <= NF; i++) if (substr($i, 1, 1) ~ /[89a-f]/) n++ } END { print n + 0 }'
}
# nstats: lru_gen_notify_stats, "LOOKUPS LOOKUPS_OLD TEST CLEAR YOUNG YOUNG2"
nstats() { awk '{printf "%s ", $2} END {print ""}' $D/lru_gen_notify_stats; }
# the difference of two nstats lines (12 numbers)
ndiff() { echo "$*" | awk '{ for (i = 1; i <= 6; i++) printf "%d ", $(6 + i) - $i; print "" }'; }
# tried VALUE FILE: whether FILE takes VALUE
tried() { if echo "$1" > "$2" 2>/dev/null; then echo accepted; else echo refused; fi; }

task_mmu() {
	M=$D/lru_gen_test_mmu
	start_toucher 64
	age; age
	echo 0 > $M/attach
	echo "mmu unattached_access $(tried 1 $M/access)"
	echo "mmu cost_over_bound $(tried 10001 $M/cost_ns)"
	echo "mmu cost_bound $(tried 10000 $M/cost_ns)"
	echo 0 > $M/cost_ns
	a=$(map_start 64)
	echo "mmu attach_unaligned $(tried "$pid $((a + 1)) 4096" $M/attach)"
	echo "mmu attach_over_1g $(tried "$pid $a $((2 << 30))" $M/attach)"
	echo "mmu attach_garbage $(tried "$pid $a 4096 x" $M/attach)"
	echo "mmu attach $(tried "$pid $a $((64 << 20))" $M/attach) $(cat $M/attach | awk -v p=$pid '{print ($1 == p)}')"
	echo 1 > $M/access
	echo "mmu accessed $(cat $M/access)"
	age
	echo "mmu after_aging $(cat $M/access)"
	# nothing young anywhere: combined looks every folio up and makes
	# one call; separate makes a test call and no look-up
	for m in N Y; do
		echo $m > $D/lru_gen_young_separate
		s0=$(nstats); age; s1=$(nstats)
		echo "mmu cold $m $(ndiff "$s0 $s1")"
	done
	# half young in the secondary MMU only: eviction keeps those (the
	# rmap's young test asks the secondary MMU), and unmaps the others
	# (each unmap an invalidation)
	echo N > $D/lru_gen_young_separate
	echo 2 > $M/access
	v0=$(awk '$1 == "invalidates" {print $2}' $M/stats)
	hi=$(awk -v id=$id '$1 == "memcg" { p = ($2 == id) }
		p && NF == 4 && $1 ~ /^[0-9]+$/ { h = $1 } END { print h }' $D/lru_gen)
	echo "- $id 0 $((hi - 2)) max 65536" > $D/lru_gen || fail "evicting memcg $id failed"
	v1=$(awk '$1 == "invalidates" {print $2}' $M/stats)
	echo "mmu evict $(present 0 64) $((v1 - v0)) $(cat $M/access)"
	echo 0 > $M/attach
	echo "mmu detached $(cat $M/attach)"
	echo "mmu reattach $(tried "$pid $a $((64 << 20))" $M/attach)"
	echo 0 > $M/attach
	echo q >&3
}

# referenced MIB: the Referenced: kB of the toucher's mapping of MIB MiB
# in /proc/PID/smaps (pages whose PTE is young), in pages
referenced() {
	awk -v n=$(($1 * 1024)) '$1 == "Size:" { s = $2 }
		$1 == "Referenced:" && s == n { print $2 / 4; exit }' /proc/$pid/smaps
}

task_young() {
	start_toucher 64
	echo 1 > /proc/$pid/clear_refs
	f0=$(tfaults)
	cmd "r 0 16"
	f1=$(tfaults)
	echo "young $((f1 - f0)) $(referenced 64) 4096"
	echo q >&3
}

task_stress() {
	secs=${SECS:-600} n=${NPROC:-4} mib=${MIB:-48}
	echo +memory > $CG/cgroup.subtree_control
	mkdir -p $CG/s
	echo 48M > $CG/s/memory.max
	i=0
	while [ $i -lt "$n" ]; do
		if [ $((i % 2)) = 1 ]; then
			sh -c "echo \$\$ > $CG/s/cgroup.procs && exec $TOUCH -s $mib $secs" > /tmp/stress.$i &
		else
			$TOUCH -s "$mib" "$secs" > /tmp/stress.$i &
		fi
		i=$((i + 1))
	done
	agings=0 evictions=0 swap=0
	end=$(($(cut -d. -f1 /proc/uptime) + secs))
	while [ "$(cut -d. -f1 /proc/uptime)" -lt $end ]; do
		# every lruvec: age it, then evict from its oldest generation
		for l in $(awk '$1 == "memcg" {m = $2} $1 == "node" {n = $2}
			m != "" && NF == 4 && $1 ~ /^[0-9]+$/ {if (!(m in lo)) lo[m] = $1; hi[m] = $1}
			END {for (m in hi) print m ":" n ":" lo[m] ":" hi[m]}' $D/lru_gen); do
			set -- $(echo "$l" | tr : ' ')
			m=$1 nd=$2 lo=$3 hi=$4
			echo "+ $m $nd $hi 1 1" > $D/lru_gen 2>/dev/null && agings=$((agings + 1))
			[ $((lo + 2)) -le $((hi + 1)) ] &&
				echo "- $m $nd $lo 100 256" > $D/lru_gen 2>/dev/null &&
				evictions=$((evictions + 1))
		done
		s=$(awk '$1 == "SwapTotal:" {t = $2} $1 == "SwapFree:" {f = $2} END {print t - f}' /proc/meminfo)
		[ "$s" -le "$swap" ] || swap=$s
		sleep 0.1
	done
	wait
	passes=$(cat /tmp/stress.* | awk '$1 == "done" {s += $2; n++} END {print s + 0 "/" n + 0}')
	echo "stress $agings $evictions $passes $swap"
	dmesg | grep -E 'WARNING|BUG|Oops|Call Trace|stall|lockup|Out of memory|Killed process' |
		head -20 | sed 's/^/dmesg: /'
}

case "$1" in
accuracy | notify | hotset | young | mmu | stress) "task_$1" ;;
*) fail "no task '$1'" ;;
esac
