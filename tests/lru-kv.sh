# SPDX-License-Identifier: GPL-2.0-only
# tests/lru-kv.sh - guest side of the lru-batch kvbench figure: kvbench
# (seed 000's memcached + memtier) while a background loop ages the root
# memcg every 50 ms, as a proactive-aging daemon would, so that aging
# finds full generations (under eviction alone inc_min_seq() hardly runs:
# eviction empties the oldest generation first).  ROUNDS rounds of each
# mode (Y batched, N per folio, alternating order; "-" on a kernel without
# the switch), each one kvbench run of KV_SECS seconds; prints
#
#   kv MODE ROUND OPS_PER_S PAGES NS
#
# PAGES and NS: pages moved and ns spent by inc_min_seq() during the run
# (lru_gen_aging_cost; 0 0 without it).
D=/sys/kernel/debug SW=$D/lru_gen_batch_aging
ROUNDS=${ROUNDS:-2} KV_SECS=${KV_SECS:-8} KV_SIZE=${KV_SIZE:-25%}
cost() {
	if [ -r $D/lru_gen_aging_cost ]; then
		awk '{v[$1] = $2} END {print v["pages"], v["ns"]}' $D/lru_gen_aging_cost
	else echo 0 0; fi
}
rm -f /tmp/lru-kv-stop
while [ ! -e /tmp/lru-kv-stop ]; do
	echo "+ 1 0 0 1 1" > $D/lru_gen
	sleep 0.05
done &
ager=$!
modes="-"
[ -w $SW ] && modes="Y N"
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	for m in $modes; do
		[ "$m" = - ] || echo $m > $SW
		set -- $(cost)
		k0=$1 n0=$2
		ops=$(kvbench --size "$KV_SIZE" --pattern gaussian --time "$KV_SECS" |
			sed -n 's/.* ops_per_s=\([0-9.]*\).*/\1/p')
		[ -n "$ops" ] || { touch /tmp/lru-kv-stop; exit 1; }
		set -- $(cost)
		echo "kv $m $r $ops $(($1 - k0)) $(($2 - n0))"
	done
	modes=$(echo $modes | awk '{for (i = NF; i > 0; i--) printf "%s ", $i}')
	r=$((r + 1))
done
touch /tmp/lru-kv-stop
wait $ager
[ -w $SW ] && echo Y > $SW
exit 0
