#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# beside tests: refault counts with 2x margins in its own guest
# Seed 004 on base: readtwice in two memory cgroups, classic LRU against
# MGLRU switched at run time in one boot (tests/workingset-cgroups.sh).
# Each cgroup's memory.stat counts its own refaults and reclaim under both
# LRUs; and with one file evicted in wsA and re-read in wsB, classic LRU
# counts the refaults in wsB (judged against wsA, where the eviction
# happened) while MGLRU does not count them at all (lru_gen_refault()
# ignores a refault whose shadow entry names another memcg).  Measured:
# 16384 refaults per 64M file in each cgroup, shared file 4244 in wsB
# under classic LRU, 0 under MGLRU.
. "$(dirname "$0")/lib.sh"

if ! "$UMKIT" exec -- sh -c 'command -v readtwice && test -d /mnt/disk' >/dev/null 2>&1; then
	skip "readtwice in two cgroups, classic vs MGLRU" "no readtwice or guest disk in this kit (the workloads are not merged)"
	done_testing
	exit 0
fi
out=$(sh tests/workingset-cgroups.sh n y N Y 2>&1)
# get ROUND CG KEY
get() { printf '%s\n' "$out" | awk -v r="round=$1" -v c="cg=$2" -v k="$3" '$1 == r && $3 == c {
	for (i = 4; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }'; }
is "four rounds, two cgroups each" "$(printf '%s\n' "$out" | grep -c '^round=')" 8
for r in 1 2; do
	l=classic; [ $r = 2 ] && l=MGLRU
	for g in A B; do
		rf=$(get $r $g refault) ev=$(get $r $g evict)
		if [ "${rf:-0}" -ge 8192 ] && [ "${ev:-0}" -ge 8192 ]; then
			ok "$l, own files: ws$g counts its own refaults and reclaim ($rf refaults, $ev stolen)"
		else not_ok "$l, own files: ws$g counts its own refaults and reclaim" "$out"; fi
	done
	like "$l, own files: readtwice reports MB/s in both cgroups" "$(get $r A mb_per_s) $(get $r B mb_per_s)" \
		'^[0-9.]+ [0-9.]+$'
done
rf=$(get 3 B refault)
if [ "${rf:-0}" -ge 1000 ]; then ok "classic, shared file: wsB counts the refaults of what wsA evicted ($rf)"
else not_ok "classic, shared file: wsB counts the refaults of what wsA evicted" "$out"; fi
is "MGLRU, shared file: wsB counts none of them" "$(get 4 B refault)" 0
if [ "$(get 4 A refault)" -ge 8192 ]; then ok "MGLRU, shared file: wsA counts its own ($(get 4 A refault))"
else not_ok "MGLRU, shared file: wsA counts its own" "$out"; fi
no_leftovers "nothing left behind"
done_testing
