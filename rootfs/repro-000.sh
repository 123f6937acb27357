#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# repro-000 - seed 000 (MGLRU: batch the counter updates of aging), the
# guest side of `umkit reproduce 000`, on the lru-batch kernel:
#
#   repro-000 [--quick] [--rounds N]
#
# Columns, each round in the order A B then B A (drift hits both; which
# one comes first is drawn at random in each boot):
#   perfolio  debugfs lru_gen_batch_aging N: per-folio size updates (7.2)
#   batched   lru_gen_batch_aging Y: the updates applied once per batch
#
# Per column and round, one line
#
#   repro: COLUMN ops_per_s=.. aging_ns_per_page=.. aging_us_per_s=..
#          aging_full_ns_per_page=.. protect_ns_per_page=..
#          protect_active_ns_per_page=..      (one line)
#
#   ops_per_s               kvbench (memcached + memtier's get/set case) in
#                           memcg r000kv, memory.max below its store, so it
#                           swaps to zram throughout, while the memcg is aged
#                           every 50 ms as a proactive ager would; ops/s of
#                           the run phase
#   aging_ns_per_page       ns per page inc_min_seq() moved during that
#                           kvbench process (lru_gen_aging_cost: all its
#                           time over all its pages)
#   aging_us_per_s          microseconds inc_min_seq() spent per second of
#                           that process: aging's share of the time (ppm)
#   aging_full_ns_per_page  ns per moved page of inc_min_seq() with a full
#                           oldest generation: 4 agings of memcg r000p
#                           (tmpfs pages and a file); the median of the calls
#                           that moved 4096 folios (tracepoint
#                           mm_vmscan_lru_gen_inc_min_seq)
#   protect_ns_per_page     ns per page of scan_folios() calls in which every
#                           folio took sort_folio()'s protected path, the
#                           fastest of those of >= 1024 pages (tracepoint
#                           mm_vmscan_lru_gen_protect): a file read through
#                           read() 6 times (tiers full, then the workingset
#                           lazily promoted: include/linux/mmzone.h:500-506),
#                           evicted from the oldest of 4 generations, so it
#                           moves to max_seq - 2, an inactive one
#   protect_active_ns_per_page  the same read again, then evicted from the
#                           oldest of 3 generations: min_seq + 1 is
#                           max_seq - 1, active (include/linux/mm_inline.h:
#                           165-172), and in perfolio each folio moved costs
#                           two __update_lru_size() calls (mm_inline.h:
#                           211-215), each a node and a memcg statistic
#                           (mm_inline.h:33-45)
#
# Lower is better for every key but ops_per_s.  Needs the lru-batch kernel,
# the scratch disk at /mnt/disk and zram swap (umkit exec gives both);
# 2 CPUs and 512 MiB (umkit exec -c 2 -m 512M).  --quick: one round with a
# 1 s kvbench run (18.7-19.1 s on a quiet 2-core host; each kvbench run
# first loads its 72 MB store into the 48 MB memcg, about 5.5 s);
# `umkit reproduce 000 --quick` runs --quick --rounds 2 (42 s);
# default: a 1 s warm-up kvbench run, then 3 rounds of 3 s runs (about
# 55 s); --rounds N: N rounds.
# After each protected eviction into an active generation, the active file
# pages of memory.stat must agree with lru_gen's (else it fails): the
# batched path keeps the node and memcg LRU sizes exact.
set -u
D=/sys/kernel/debug CGR=/sys/fs/cgroup T=/sys/kernel/tracing
CGK=$CGR/r000kv CGP=$CGR/r000p
HOT=/mnt/disk/r000-hot ANON=/dev/shm/r000-anon STOP=/tmp/r000-stop
SW=$D/lru_gen_batch_aging
ROUNDS=3 KV_SECS=3 QUICK=
KV_LIMIT_MB=48 KV_STORE_MB=72 AGER_S=0.05
FILE_MB=64 ANON_MB=64 READS=6 AGINGS=4

die() { echo "repro-000: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
	case $1 in
	--help) sed -n '3,60p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	--quick) ROUNDS=1 KV_SECS=1 QUICK=1; shift ;;
	--rounds)
		case ${2:-} in
		[1-9]|[1-9][0-9]) ROUNDS=$2 ;;
		*) die "--rounds wants a number from 1 to 99" ;;
		esac
		shift 2 ;;
	*) die "unknown argument (see --help)" ;;
	esac
done

for f in $D/lru_gen $D/lru_gen_full $D/lru_gen_aging_cost $D/lru_gen_protect_cost \
    $D/lru_gen_batch_aging $T/events/vmscan/mm_vmscan_lru_gen_inc_min_seq \
    $T/events/vmscan/mm_vmscan_lru_gen_protect; do
	[ -e $f ] || die "$f missing: not the lru-batch kernel"
done
grep -q ' /mnt/disk ' /proc/mounts || die "no scratch disk at /mnt/disk"
grep -q '^/dev/zram0 ' /proc/swaps || die "no zram swap"

ager=
cleanup() {
	touch $STOP
	[ -z "$ager" ] || wait "$ager"
	echo Y > $SW
	echo 0 > $T/tracing_on
	for e in mm_vmscan_lru_gen_inc_min_seq mm_vmscan_lru_gen_protect; do
		echo 0 > $T/events/vmscan/$e/enable
	done
	rm -f $HOT $ANON $STOP
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# run CGROUP CMD ARGS...: CMD in the memory cgroup CGROUP
run() { sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$@"; }
# memcg id of cgroup /NAME in lru_gen
memcg_id() { awk -v p="/$1" '$1 == "memcg" && $3 == p { print $2; exit }' $D/lru_gen; }
# "MAX_SEQ MIN_SEQ_ANON MIN_SEQ_FILE FILE_PAGES_IN_OLDEST" of memcg $1, node 0
# (lru_gen_full marks with x the generations below a type's min_seq)
gens() {
	awk -v id="$1" '$1 == "memcg" { m = $2 } $1 == "node" { n = $2 }
		m == id && n == 0 && NF == 4 && $1 ~ /^[0-9]+$/ {
			max = $1
			if (a == "" && $3 !~ /x$/) a = $1
			if (f == "" && $4 !~ /x$/) { f = $1; fp = $4 }
		} END { print max, a, f, fp + 0 }' $D/lru_gen_full
}
# "PAGES NS" of a cost file (lru_gen_aging_cost or lru_gen_protect_cost)
cost() { awk '{ v[$1] = $2 } END { print v["pages"] + 0, v["ns"] + 0 }' "$1"; }
# ns per page from two cost readings: PAGES0 NS0 PAGES1 NS1 WHAT
per_page() {
	[ "$3" -gt "$1" ] || die "$5: no pages moved"
	awk -v p="$(($3 - $1))" -v n="$(($4 - $2))" 'BEGIN { printf "%.2f", n / p }'
}
read_hot() {
	i=0
	while [ $i -lt $READS ]; do
		dd if=$HOT of=/dev/null bs=256k 2>/dev/null || die "cannot read $HOT"
		i=$((i + 1))
	done
}
# evict the file pages of memcg $PID_P from generation $1 (swappiness 0:
# file only); every folio there should be protected
evict() { echo "- $PID_P 0 $1 0 1000000" > $D/lru_gen || die "eviction from generation $1 refused"; }
# The node and memcg LRU sizes must still agree with the generations: the
# file pages of memcg $PID_P in its two youngest (active) generations
# against active_file of r000p's memory.stat (pages; its per-cpu deltas
# may lag by a batch).  Prints the active pages; dies on a mismatch.
check_active() {
	gen=$(awk -v id="$PID_P" '$1 == "memcg" { m = $2 } $1 == "node" { n = $2 }
		m == id && n == 0 && NF == 4 && $1 ~ /^[0-9]+$/ { f[$1] = $4 + 0; max = $1 }
		END { print f[max] + f[max - 1] }' $D/lru_gen)
	stat=$(awk '$1 == "active_file" { print int($2 / 4096) }' $CGP/memory.stat)
	[ -n "$stat" ] && [ $((gen - stat)) -le 512 ] && [ $((stat - gen)) -le 512 ] ||
		die "$1: active file pages of r000p: $gen in lru_gen, ${stat:-none} in memory.stat"
}
# The clean phases: per call of inc_min_seq() or scan_folios(), from the
# tracepoints mm_vmscan_lru_gen_inc_min_seq (calls that moved a whole
# MAX_LRU_BATCH of 4096 folios) and mm_vmscan_lru_gen_protect (calls of at
# least 1024 pages in which every folio scanned was protected); of their
# ns per page, the median for the agings (24-32 calls), which a preempted
# vCPU does not move as it moves a sum, and the minimum for the protected
# path: its 16384 pages come in 3-4 calls of up to MAX_LRU_BATCH = 4096
# pages (mm/vmscan.c:4660, include/linux/mmzone.h:539-540), about
# 50 us each batched, so a host time slice (milliseconds) lost in a
# middle call moves their median tenfold (a --quick run in make test
# read 208 ns a page batched, 11-21 usual); the minimum moves only if
# every call lost one.  Measured in 48 phases beside two busy host
# loops: the median 0-17% above the minimum in 45, 24-65% in 3.
trace_on() { echo 0 > $T/tracing_on; echo > $T/trace; echo 1 > $T/tracing_on; }
trace_stat() {
	echo 0 > $T/tracing_on
	awk -v ev="$1:" -v stat="${3:-median}" '$0 ~ ev {
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (ev == "mm_vmscan_lru_gen_inc_min_seq:" && v["nr_folios"] != 4096) next
		if (ev == "mm_vmscan_lru_gen_protect:" &&
		    (v["nr_pages"] != v["nr_scanned"] || v["nr_pages"] < 1024)) next
		x[++n] = v["ns"] / v["nr_pages"] }
		END { if (!n) exit 1
			for (i = 2; i <= n; i++) for (j = i; j > 1 && x[j - 1] > x[j]; j--) {
				t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
			if (stat == "min") printf "%.2f\n", x[1]
			else printf "%.2f\n", n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2 }' $T/trace ||
		die "$2: no calls in the trace"
}
uptime_cs() { awk '{ split($1, t, "."); print t[1] * 100 + t[2] }' /proc/uptime; }

grep -qw memory $CGR/cgroup.subtree_control || echo +memory > $CGR/cgroup.subtree_control ||
	die "cannot enable the memory controller"
mkdir -p $CGK $CGP || die "cannot make the cgroups"
echo ${KV_LIMIT_MB}M > $CGK/memory.max || die "cannot set memory.max"
PID_K=$(memcg_id r000kv) PID_P=$(memcg_id r000p)
[ -n "$PID_K" ] && [ -n "$PID_P" ] || die "the cgroups are not in lru_gen"
# This shell and what it starts (the reads, the fills) are charged to r000p.
echo $$ > $CGP/cgroup.procs || die "cannot join r000p"

rm -f $STOP
dd if=/dev/zero of=$ANON bs=1M count=$ANON_MB 2>/dev/null || die "cannot fill $ANON"
dd if=/dev/zero of=$HOT bs=1M count=$FILE_MB 2>/dev/null || die "cannot write $HOT"
sync
file_pages=$((FILE_MB * 256))
# Four agings put everything of r000p in the oldest generation.
echo "+ $PID_P 0 0 1 1;+ $PID_P 0 0 1 1;+ $PID_P 0 0 1 1;+ $PID_P 0 0 1 1" > $D/lru_gen ||
	die "cannot age memcg $PID_P"
echo "repro-info: kv_limit_mb=$KV_LIMIT_MB"
echo "repro-info: kv_store_mb=$KV_STORE_MB"
echo "repro-info: kv_secs=$KV_SECS"
echo "repro-info: aging_pages=$((ANON_MB * 256 + file_pages))"
echo "repro-info: protect_pages=$file_pages"

echo 0 > $T/tracing_on
echo 1024 > $T/buffer_size_kb
for e in mm_vmscan_lru_gen_inc_min_seq mm_vmscan_lru_gen_protect; do
	echo 1 > $T/events/vmscan/$e/enable || die "cannot enable the tracepoint $e"
done

agings=""
i=0
while [ $i -lt $AGINGS ]; do agings="$agings+ $PID_P 0 0 1 1;"; i=$((i + 1)); done

# kvbench in r000kv for $1 seconds, the memcg aged every AGER_S seconds;
# sets ops, kvage (ns per page inc_min_seq() moved meanwhile, from
# lru_gen_aging_cost) and share (its microseconds per second)
kv() {
	rm -f $STOP
	( while [ ! -e $STOP ]; do
		echo "+ $PID_K 0 0 1 1" > $D/lru_gen 2>/dev/null
		sleep $AGER_S
	done ) &
	ager=$!
	set -- $(cost $D/lru_gen_aging_cost) $(uptime_cs) "$1"
	out=$(run $CGK kvbench --size ${KV_STORE_MB}M --pattern gaussian \
		--threads 2 --time "$4") || die "kvbench failed: $out"
	set -- "$@" $(cost $D/lru_gen_aging_cost) $(uptime_cs)
	touch $STOP
	wait $ager
	ager=
	ops=$(printf '%s\n' "$out" | sed -n 's/.* ops_per_s=\([0-9][0-9.]*\).*/\1/p')
	[ -n "$ops" ] || die "no ops_per_s from kvbench: $out"
	kvage=$(per_page "$1" "$2" "$5" "$6" "aging during kvbench") || exit 1
	share=$(awk -v n="$(($6 - $2))" -v cs="$(($7 - $3))" 'BEGIN {
		if (cs < 1) cs = 1; printf "%.1f", n / 1000 / (cs / 100) }')
}

# one column: $1 its name, $2 the switch's value
column() {
	echo "$2" > $SW || die "cannot set $SW"

	name=$1

	# aging with a full oldest generation (the tmpfs pages, and the
	# file once it has 4 generations again)
	trace_on
	echo "$agings" > $D/lru_gen || die "cannot age memcg $PID_P"
	full=$(trace_stat mm_vmscan_lru_gen_inc_min_seq "aging r000p") || exit 1

	# the file in the oldest of 4 generations, read until protected
	set -- $(gens $PID_P)
	[ "$3" -eq $(($1 - 3)) ] && [ "$4" -ge $((file_pages * 9 / 10)) ] ||
		die "the file is not in the oldest of 4 generations (max_seq, min_seq anon and file, file pages there: $*)"
	read_hot
	trace_on
	evict $(($1 - 3))
	prot=$(trace_stat mm_vmscan_lru_gen_protect "protected path, 4 generations" min) || exit 1

	# again, from the oldest of 3: into max_seq - 1, an active generation
	set -- $(gens $PID_P)
	[ "$3" -eq $(($1 - 2)) ] && [ "$4" -ge $((file_pages * 9 / 10)) ] ||
		die "the file was not protected into the next generation (max_seq, min_seq anon and file, file pages there: $*)"
	read_hot
	trace_on
	evict $(($1 - 2))
	prota=$(trace_stat mm_vmscan_lru_gen_protect "protected path, 3 generations" min) || exit 1
	check_active "$name after the protected eviction into an active generation"
	[ "$gen" -ge $((file_pages * 9 / 10)) ] ||
		die "the file was not protected into an active generation ($gen pages there)"

	kv $KV_SECS

	echo "repro: $name ops_per_s=$ops aging_ns_per_page=$kvage aging_us_per_s=$share" \
		"aging_full_ns_per_page=$full protect_ns_per_page=$prot" \
		"protect_active_ns_per_page=$prota"
}

# The first kvbench run of a boot differs from the later ones (in one
# default run its aging cost per page was 31-63 ns against 43-172 ns): a
# warm-up run that is not reported, unless --quick; and the first column
# is drawn at random in each boot.
[ -n "$QUICK" ] || kv 1
case $(cut -c1 /proc/sys/kernel/random/uuid) in
[0-7]) first="perfolio N" second="batched Y" ;;
*) first="batched Y" second="perfolio N" ;;
esac
r=0
while [ $r -lt $ROUNDS ]; do
	if [ $((r % 2)) -eq 0 ]; then
		column $first
		column $second
	else
		column $second
		column $first
	fi
	r=$((r + 1))
done
