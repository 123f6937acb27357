#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# repro-000 - seed 000 (MGLRU: batch the counter updates of aging), the
# guest side of `umkit reproduce 000`, on the lru-batch kernel:
#
#   repro-000 [--quick] [--rounds N]
#
# Columns, each round in the order A B then B A (drift hits both):
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
#                           kvbench process (lru_gen_aging_cost)
#   aging_us_per_s          microseconds inc_min_seq() spent per second of
#                           that process: aging's share of the time (ppm)
#   aging_full_ns_per_page  ns per moved page of inc_min_seq() with a full
#                           oldest generation: 4 agings of memcg r000p
#                           (tmpfs pages and a file)
#   protect_ns_per_page     ns per page of eviction (scan_folios()) when every
#                           folio it scanned took sort_folio()'s protected
#                           path (lru_gen_protect_cost): a file read through
#                           read() 6 times (tiers full, the workingset being
#                           lazily promoted), then evicted from the oldest of
#                           4 generations, so it moves to an inactive one
#   protect_active_ns_per_page  the same read again, then evicted from the
#                           oldest of 3 generations: min_seq + 1 is
#                           max_seq - 1, active, and each folio moved costs
#                           two __update_lru_size() calls in perfolio
#
# Lower is better for every key but ops_per_s.  Needs the lru-batch kernel,
# the scratch disk at /mnt/disk and zram swap (umkit exec gives both);
# 2 CPUs and 512 MiB (umkit exec -c 2 -m 512M).  --quick: one round with a
# 1 s kvbench run (about 10 s); default 3 rounds of 3 s runs (about 50 s).
# After each protected eviction into an active generation, the active file
# pages of memory.stat must agree with lru_gen's (else it fails): the
# batched path keeps the node and memcg LRU sizes exact.
set -u
D=/sys/kernel/debug CGR=/sys/fs/cgroup
CGK=$CGR/r000kv CGP=$CGR/r000p
HOT=/mnt/disk/r000-hot ANON=/dev/shm/r000-anon STOP=/tmp/r000-stop
SW=$D/lru_gen_batch_aging
ROUNDS=3 KV_SECS=3
KV_LIMIT_MB=48 KV_STORE_MB=72 AGER_S=0.05
FILE_MB=64 ANON_MB=64 READS=6 AGINGS=4

die() { echo "repro-000: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
	case $1 in
	--help) sed -n '2,47p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	--quick) ROUNDS=1 KV_SECS=1; shift ;;
	--rounds)
		case ${2:-} in
		[1-9]|[1-9][0-9]) ROUNDS=$2 ;;
		*) die "--rounds wants a number from 1 to 99" ;;
		esac
		shift 2 ;;
	*) die "unknown argument (see --help)" ;;
	esac
done

for f in lru_gen lru_gen_full lru_gen_aging_cost lru_gen_protect_cost lru_gen_batch_aging; do
	[ -e $D/$f ] || die "$D/$f missing: not the lru-batch kernel"
done
grep -q ' /mnt/disk ' /proc/mounts || die "no scratch disk at /mnt/disk"
grep -q '^/dev/zram0 ' /proc/swaps || die "no zram swap"

ager=
cleanup() {
	touch $STOP
	[ -z "$ager" ] || wait "$ager"
	echo Y > $SW
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

agings=""
i=0
while [ $i -lt $AGINGS ]; do agings="$agings+ $PID_P 0 0 1 1;"; i=$((i + 1)); done

# one column: $1 its name, $2 the switch's value
column() {
	echo "$2" > $SW || die "cannot set $SW"

	# aging with a full oldest generation (the tmpfs pages, and the
	# file once it has 4 generations again)
	set -- "$1" $(cost $D/lru_gen_aging_cost)
	echo "$agings" > $D/lru_gen || die "cannot age memcg $PID_P"
	set -- "$@" $(cost $D/lru_gen_aging_cost)
	full=$(per_page "$2" "$3" "$4" "$5" "aging r000p") || exit 1
	name=$1

	# the file in the oldest of 4 generations, read until protected
	set -- $(gens $PID_P)
	[ "$3" -eq $(($1 - 3)) ] && [ "$4" -ge $((file_pages * 9 / 10)) ] ||
		die "the file is not in the oldest of 4 generations (max_seq, min_seq anon and file, file pages there: $*)"
	read_hot
	set -- $(cost $D/lru_gen_protect_cost)
	evict $(( $(gens $PID_P | cut -d' ' -f1) - 3 ))
	set -- "$@" $(cost $D/lru_gen_protect_cost)
	prot=$(per_page "$1" "$2" "$3" "$4" "protected path, 4 generations") || exit 1

	# again, from the oldest of 3: into max_seq - 1, an active generation
	set -- $(gens $PID_P)
	[ "$3" -eq $(($1 - 2)) ] && [ "$4" -ge $((file_pages * 9 / 10)) ] ||
		die "the file was not protected into the next generation (max_seq, min_seq anon and file, file pages there: $*)"
	read_hot
	set -- $(cost $D/lru_gen_protect_cost)
	evict $(( $(gens $PID_P | cut -d' ' -f1) - 2 ))
	set -- "$@" $(cost $D/lru_gen_protect_cost)
	prota=$(per_page "$1" "$2" "$3" "$4" "protected path, 3 generations") || exit 1
	check_active "$name after the protected eviction into an active generation"
	[ "$gen" -ge $((file_pages * 9 / 10)) ] ||
		die "the file was not protected into an active generation ($gen pages there)"

	# kvbench in r000kv, aged every AGER_S seconds
	rm -f $STOP
	( while [ ! -e $STOP ]; do
		echo "+ $PID_K 0 0 1 1" > $D/lru_gen 2>/dev/null
		sleep $AGER_S
	done ) &
	ager=$!
	set -- $(cost $D/lru_gen_aging_cost) $(uptime_cs)
	out=$(run $CGK kvbench --size ${KV_STORE_MB}M --pattern gaussian \
		--threads 2 --time $KV_SECS) || die "kvbench failed: $out"
	set -- "$@" $(cost $D/lru_gen_aging_cost) $(uptime_cs)
	touch $STOP
	wait $ager
	ager=
	ops=$(printf '%s\n' "$out" | sed -n 's/.* ops_per_s=\([0-9][0-9.]*\).*/\1/p')
	[ -n "$ops" ] || die "no ops_per_s from kvbench: $out"
	kvage=$(per_page "$1" "$2" "$4" "$5" "aging during kvbench") || exit 1
	share=$(awk -v n="$(($5 - $2))" -v cs="$(($6 - $3))" 'BEGIN {
		if (cs < 1) cs = 1; printf "%.1f", n / 1000 / (cs / 100) }')

	echo "repro: $name ops_per_s=$ops aging_ns_per_page=$kvage aging_us_per_s=$share" \
		"aging_full_ns_per_page=$full protect_ns_per_page=$prot" \
		"protect_active_ns_per_page=$prota"
}

r=0
while [ $r -lt $ROUNDS ]; do
	if [ $((r % 2)) -eq 0 ]; then
		column perfolio N
		column batched Y
	else
		column batched Y
		column perfolio N
	fi
	r=$((r + 1))
done
