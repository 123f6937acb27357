#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench-disk: what the guest disk costs at boot.
#
# Boot-to-command ('umkit exec -- true') with the default disk (2 GiB) and
# with -d 0, interleaved in one run (the order alternates every round, so
# host drift hits both alike): median, p90, the median difference and the
# ratio; the guest's uptime at umkit-ready (after /init mounted the disk)
# for each (10 ms steps: HZ=100), the guest's own time to mount the disk
# (/init's umkit-disk marker); and the launcher's part, disk_make()'s sparse copy of the
# template, timed in-process (tests/bench-disk.c).  Target (issue 8): the disk costs
# <= 30 ms at the median.
cd "$(dirname "$0")/.." || exit 2
runs=${BENCH_RUNS:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# pct FILE P: percentile P of the numbers in FILE (microseconds), in ms.
pct() {
	sort -n "$1" | awk -v p="$2" '{ v[NR] = $1 } END {
		i = int((NR - 1) * p / 100 + 0.5) + 1; printf "%.1f", v[i] / 1000 }'
}
# once ARGS: one boot to a command; appends wall time and ready uptime.
once() {
	tag=$1; shift
	s=$(date +%s%N)
	./umkit exec "$@" -- true || { echo "bench: exec $* failed"; exit 1; }
	echo $(( ($(date +%s%N) - s) / 1000 )) >> "$tmp/$tag.wall"
	sed -n 's/.*umkit-ready uptime=\([0-9.]*\).*/\1/p' run/log/exec.log |
	    awk '{ printf "%d\n", $1 * 1000000 }' >> "$tmp/$tag.ready"
	sed -n 's/.*umkit-disk mount_us=\([0-9]*\).*/\1/p' run/log/exec.log >> "$tmp/$tag.mount"
}

echo "== guest disk: boot to command, default disk vs -d 0, $runs runs each, interleaved"
./umkit exec -- true && ./umkit exec -d 0 -- true || exit 1	# warm caches, template
i=0
while [ $i -lt "$runs" ]; do
	if [ $((i % 2)) -eq 0 ]; then once disk; once none -d 0
	else once none -d 0; once disk; fi
	i=$((i + 1))
done
printf '%-34s %9s %9s\n' "" "median" "p90"
printf '%-34s %7s ms %7s ms\n' "default disk (2 GiB)" "$(pct "$tmp/disk.wall" 50)" "$(pct "$tmp/disk.wall" 90)"
printf '%-34s %7s ms %7s ms\n' "-d 0" "$(pct "$tmp/none.wall" 50)" "$(pct "$tmp/none.wall" 90)"
awk -v a="$(pct "$tmp/disk.wall" 50)" -v b="$(pct "$tmp/none.wall" 50)" 'BEGIN {
	printf "%-34s %7.1f ms   (target <= 30 ms)\n", "disk cost at the median", a - b
	printf "%-34s %7.3f\n", "ratio disk / -d 0 (medians)", a / b }'
printf '%-34s %7s ms %7s ms\n' "guest uptime at ready, disk" "$(pct "$tmp/disk.ready" 50)" "$(pct "$tmp/disk.ready" 90)"
printf '%-34s %7s ms %7s ms\n' "guest uptime at ready, -d 0" "$(pct "$tmp/none.ready" 50)" "$(pct "$tmp/none.ready" 90)"
printf '%-34s %7s ms %7s ms\n' "guest: /init mounting the disk" "$(pct "$tmp/disk.mount" 50)" "$(pct "$tmp/disk.mount" 90)"

# The launcher's share: disk_make() itself (uml/guest/disk.c), timed in-process.
set -- $(UMKIT_TOP=$PWD build/tests/bench-disk "$tmp" 2048 50) || exit 1
printf '%-34s %7s ms %7s ms   (%s KiB of data copied)\n' \
	"launcher: disk_make (2 GiB), 50x" "$1" "$2" "$3"
