#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench-pin: what umkit exec --host-cpu does to a guest, in one run.
# BENCH_RUNS (default 7) rounds, each booting the three settings in turn
# (auto: once up, onto the host CPU with the fewest guests;
# 0: onto CPU 0; any: never, the default), and per setting the median of
#   boot    wall ms of 'umkit exec -- true'
#   syscall us per system call: 20000 reads and 20000 writes of 4 KiB
#           (dd /dev/zero to /dev/null), timed in the guest
#   compact wall ms of a boot running one compaction-round
# with each setting's median over any's.  It prints figures; it never
# passes or fails on time.
cd "$(dirname "$0")/.." || exit 2
runs=${BENCH_RUNS:-7}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
set -- auto 0 any
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
i=0
while [ $i -lt "$runs" ]; do
	i=$((i + 1))
	for h in "$@"; do
		s=$(date +%s%N)
		./umkit exec --host-cpu "$h" -- true || { echo "bench: exec failed"; exit 1; }
		echo "$(ms "$s")" >> "$tmp/boot.$h"
		./umkit exec --host-cpu "$h" -- sh -c 'a=$(cut -d" " -f1 /proc/uptime)
			dd if=/dev/zero of=/dev/null bs=4096 count=20000 2>/dev/null
			b=$(cut -d" " -f1 /proc/uptime)
			awk -v a="$a" -v b="$b" "BEGIN { printf \"%.1f\\n\", (b - a) * 1e6 / 40000 }"' \
			>> "$tmp/syscall.$h" || { echo "bench: exec failed"; exit 1; }
		s=$(date +%s%N)
		./umkit exec --host-cpu "$h" -- compaction-round >/dev/null ||
			{ echo "bench: compaction-round failed"; exit 1; }
		echo "$(ms "$s")" >> "$tmp/compact.$h"
	done
done
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "== umkit exec --host-cpu: medians of $runs rounds (host load now: $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%-8s %12s %12s %12s %10s %10s\n' what auto 0 any auto/any 0/any
for w in boot syscall compact; do
	a=$(med "$tmp/$w.auto") z=$(med "$tmp/$w.0") n=$(med "$tmp/$w.any")
	printf '%-8s %12s %12s %12s %10.2f %10.2f\n' "$w" "$a" "$z" "$n" \
	    "$(echo "$a $n" | awk '{ print $1 / $2 }')" "$(echo "$z $n" | awk '{ print $1 / $2 }')"
done
echo "(boot and compact: wall ms of the whole umkit exec; syscall: us per call in the guest)"
