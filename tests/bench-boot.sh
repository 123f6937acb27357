#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Boot-to-command latency of 'umkit exec -- true' (median and p90 over
# BENCH_RUNS runs, default 20) and the guest uptime when /init starts.
cd "$(dirname "$0")/.." || exit 2
runs=${BENCH_RUNS:-20}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT INT TERM

pct() {	# percentile of the numbers in $tmp
	sort -n "$tmp" | awk -v p="$1" '{ v[NR] = $1 } END {
		i = int((NR - 1) * p / 100 + 0.5) + 1; printf "%.3f", v[i] / 1000000 }'
}

echo "== boot to command: umkit exec -- true, $runs runs"
./umkit exec -- true || { echo "bench: exec failed"; exit 1; }
: > "$tmp"
i=0
while [ $i -lt "$runs" ]; do
	s=$(date +%s%N)
	./umkit exec -- true || exit 1
	echo $(( ($(date +%s%N) - s) / 1000 )) >> "$tmp"
	i=$((i + 1))
done
printf '%-28s %8s s\n' "median" "$(pct 50)" "p90" "$(pct 90)" "min" "$(pct 0)"
up=$(sed -n 's/.*umkit-init uptime=\([0-9.]*\).*/\1/p' run/log/exec.log)
rdy=$(sed -n 's/.*umkit-ready uptime=\([0-9.]*\).*/\1/p' run/log/exec.log)
printf '%-28s %8s s\n' "guest uptime at /init" "${up:-?}" "guest uptime at ready" "${rdy:-?}"

echo "== the same with 1 CPU and with 4 CPUs (5 runs each, median)"
for c in 1 4; do
	: > "$tmp"
	for i in 1 2 3 4 5; do
		s=$(date +%s%N)
		./umkit exec -c $c -- true || exit 1
		echo $(( ($(date +%s%N) - s) / 1000 )) >> "$tmp"
	done
	printf '%-28s %8s s\n' "-c $c median" "$(pct 50)"
done
