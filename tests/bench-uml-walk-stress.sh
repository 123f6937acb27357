#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench-uml-walk-stress.sh - the uml-walk kernel under STRESS_SECONDS
# (default 600) of aging and eviction on 4 CPUs: 4 processes of 48 MiB
# touching, freeing and forking at random, two of them in a memcg limited
# to 48 MiB (so it swaps to zram), every lruvec aged and evicted every
# 100 ms (walk-probe, rootfs/walk-probe.sh stress).  Prints what was done and every
# kernel warning, oops or OOM kill; fails if there is one.
cd "$(dirname "$0")/.." || exit 2
secs=${STRESS_SECONDS:-600}
uml/kernel/kbuild.sh uml-walk >/dev/null || { echo "bench: uml-walk does not build"; exit 1; }
echo "== uml-walk: ${secs} s aging/eviction stress, 4 CPUs, 256 MiB, DEBUG_VM"
start=$(date +%s)
out=$(./umkit exec -V uml-walk -c 4 -t $((secs + 120)) -- env SECS="$secs" \
	walk-probe stress 2>&1)
rc=$?
printf '%s\n' "$out" | awk '$1 == "stress" {
	printf "%-32s %s\n%-32s %s\n%-32s %s\n%-32s %s kB\n", "agings", $2, "evictions", $3,
		"process passes/processes", $4, "most swap in use", $5 }'
printf '%-32s %s s\n' "wall time" $(($(date +%s) - start))
warn=$(printf '%s\n' "$out" | grep '^dmesg: ')
printf '%-32s %s\n' "kernel warnings/oopses/OOM kills" "$(printf '%s' "$warn" | grep -c .)"
[ -z "$warn" ] || printf '%s\n' "$warn"
if [ $rc -ne 0 ] || [ -n "$warn" ] || ! printf '%s\n' "$out" | grep -q '^stress '; then
	echo "bench: the stress failed (exit $rc):"; printf '%s\n' "$out" | tail -20
	exit 1
fi
