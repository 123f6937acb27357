#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A command on a running guest: 'umkit exec NAME -- true', 50 times, the
# median and p90 wall time (what every lab step and test pays per command).
cd "$(dirname "$0")/.." || exit 1
U=./build/bin/umkit
n=bench-exec-$$
trap '$U stop $n >/dev/null 2>&1' EXIT INT TERM
$U start -n $n >/dev/null || { echo "bench: the guest did not start"; exit 1; }
$U exec $n -- true || exit 1
for i in $(seq 50); do
	a=$(date +%s%N)
	$U exec $n -- true || exit 1
	echo $(( ($(date +%s%N) - a) / 1000 ))
done | sort -n | awk '{ v[NR] = $1 } END {
	printf "== umkit exec NAME -- true on a running guest, %d runs\n", NR
	printf "median %.1f ms, p90 %.1f ms\n", v[int((NR + 1) / 2)] / 1000, v[int(NR * 0.9)] / 1000 }'
