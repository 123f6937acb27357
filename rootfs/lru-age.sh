#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# lru-age - the cost of MGLRU aging when the oldest generation is full
# (seed 000), in the guest: the lru-batch test and benchmark, and umkit
# compare --bench aging.  On any kernel; settings from the environment:
#   MB=100 ROUNDS=6 AGINGS=5 lru-age
# (MODES=current: leave the lru-batch switch as it is, one mode "-").
#
# MB MiB of tmpfs pages (anon LRU) are written and aged into the oldest
# generation, so every aging moves all of them (inc_min_seq()).  Then for
# ROUNDS rounds, each mode in turn (Y batched, N per folio; alternating
# order; on a kernel without the lru_gen_batch_aging switch the one mode
# is "-") runs AGINGS agings in one write to debugfs lru_gen, and prints
#
#   age MODE ROUND PAGES KPAGES KNS
#
# PAGES: pages in the oldest generation before the write (each aging moves
# them); KPAGES KNS: pages moved and ns spent in inc_min_seq() from
# lru_gen_aging_cost (0 0 without it).  Then one line per write
#
#   wall MODE ROUND NS
#
# the write's duration between two trace_marker lines (trace clock mono).
# With the tracepoint mm_vmscan_lru_gen_inc_min_seq (lru-batch), one line
# per mode for the calls that moved a full MAX_LRU_BATCH of folios
#
#   calls MODE COUNT MEDIAN_NS_PER_PAGE P10_NS_PER_PAGE
#
# (P10: the 10th percentile of those calls, the cost of a call the host
# did not slow down; steadier from boot to boot than the median: on a
# 2-core host all the calls of one write ran up to 30% slower than those
# of the write before.)
#
# Last: "check TOTAL_BEFORE TOTAL_AFTER MEMINFO_LRU_ANON FREED" for the
# accounting checks (lru_gen anon pages before and after the agings, the
# anon LRU of /proc/meminfo in pages, and lru_gen anon pages after the
# fill is removed).
case ${1:-} in
--help) sed -n '2,37p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
'') ;;
*) echo "lru-age: no options but --help (settings: MB, ROUNDS, AGINGS)" >&2; exit 2 ;;
esac
D=/sys/kernel/debug T=/sys/kernel/tracing
SW=$D/lru_gen_batch_aging
MB=${MB:-100} ROUNDS=${ROUNDS:-6} AGINGS=${AGINGS:-5}

# anon pages of memcg 1 node 0 in lru_gen
anon() { awk '/^memcg/ {m = $2} m == 1 && NF == 4 && $1 ~ /^[0-9]+$/ {s += $3} END {print s + 0}' $D/lru_gen; }
# anon + file pages in the oldest generation of memcg 1 node 0
oldest() { awk '/^memcg/ {m = $2} m == 1 && NF == 4 && $1 ~ /^[0-9]+$/ && !n++ {print $3 + $4}' $D/lru_gen; }
cost() {
	if [ -r $D/lru_gen_aging_cost ]; then
		awk '{v[$1] = $2} END {print v["pages"], v["ns"]}' $D/lru_gen_aging_cost
	else echo 0 0; fi
}
cmds=""
i=0
while [ $i -lt "$AGINGS" ]; do cmds="$cmds+ 1 0 0 1 1;"; i=$((i + 1)); done

dd if=/dev/zero of=/dev/shm/lru-age bs=1M count="$MB" 2>/dev/null || exit 1
echo "+ 1 0 0 1 1;+ 1 0 0 1 1;+ 1 0 0 1 1;+ 1 0 0 1 1" > $D/lru_gen || exit 1
before=$(anon)
EV=$T/events/vmscan/mm_vmscan_lru_gen_inc_min_seq
echo mono > $T/trace_clock
echo 4096 > $T/buffer_size_kb
[ -d $EV ] && echo 1 > $EV/enable
echo 1 > $T/tracing_on
echo > $T/trace
modes="-" switched=
[ -w $SW ] && [ "${MODES:-}" != current ] && modes="Y N" switched=1
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	for m in $modes; do
		[ "$m" = - ] || echo $m > $SW
		p=$(oldest)
		set -- $(cost)
		k0=$1 n0=$2
		echo "a $m $r" > $T/trace_marker
		echo "$cmds" > $D/lru_gen || exit 1
		echo "b $m $r" > $T/trace_marker
		set -- $(cost)
		echo "age $m $r $p $(($1 - k0)) $(($2 - n0))"
	done
	modes=$(echo $modes | awk '{for (i = NF; i > 0; i--) printf "%s ", $i}')
	r=$((r + 1))
done
[ -z "$switched" ] || echo Y > $SW
# "<task>-<pid> [cpu] flags SECS.USECS: tracing_mark_write: a|b MODE ROUND"
awk '$0 ~ /tracing_mark_write: [ab] / {
	for (i = 1; i <= NF; i++) if ($i == "tracing_mark_write:") break
	t = $(i - 1); sub(/:$/, "", t); split(t, s, ".")
	us = s[1] * 1000000 + s[2]; k = $(i + 2) " " $(i + 3)
	if ($(i + 1) == "a") a[k] = us; else printf "wall %s %d\n", k, (us - a[k]) * 1000 }' $T/trace
# "... mm_vmscan_lru_gen_inc_min_seq: nid=0 type=anon batched=1 nr_folios=4096 nr_pages=4096 ns=N"
for b in 1 0; do
	m=Y; [ $b = 1 ] || m=N
	awk -v b=$b '/mm_vmscan_lru_gen_inc_min_seq:/ && / nr_folios=4096 / {
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (v["batched"] == b) print v["ns"] / v["nr_pages"] }' $T/trace | sort -n |
		awk -v m=$m '{ v[NR] = $1 } END { if (NR) printf "calls %s %d %.2f %.2f\n",
			m, NR, v[int((NR + 1) / 2)], v[int((NR - 1) / 10) + 1] }'
done
[ -d $EV ] && echo 0 > $EV/enable
after=$(anon)
lru=$(awk '/^(Active|Inactive)\(anon\):/ {s += $2} END {print s / 4}' /proc/meminfo)
rm -f /dev/shm/lru-age
echo "check $before $after $lru $(anon)"
