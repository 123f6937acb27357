#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What the sandbox (docs/security.md) costs, paired in one run:
# boot-to-command of 'umkit exec -- true' with and without it (BENCH_RUNS
# pairs, default 20, the order alternating), and a one-file kernel build
# (a smoke of tests/fixtures/smoke/good.patch's tree: touch its patched
# file, rebuild) with and without it (BENCH_BUILDS pairs, default 3).
cd "$(dirname "$0")/.." || exit 2
runs=${BENCH_RUNS:-20} builds=${BENCH_BUILDS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# med FILE: the median of the numbers in FILE, in ms.
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] / 1000 }'; }
# t FILE CMD...: append CMD's wall time (us) to FILE.
t() { f=$1; shift; s=$(date +%s%N); "$@" >/dev/null 2>&1 || { echo "bench: $* failed"; exit 1; }
	echo $(( ($(date +%s%N) - s) / 1000 )) >> "$f"; }

echo "== the sandbox's cost at boot: umkit exec -- true, $runs pairs"
./umkit exec -- true >/dev/null 2>&1 || { echo "bench: exec failed"; exit 1; }
i=0
while [ $i -lt "$runs" ]; do
	if [ $((i % 2)) -eq 0 ]; then
		t "$tmp/on" ./umkit exec -- true
		t "$tmp/off" ./umkit --no-sandbox exec -- true
	else
		t "$tmp/off" ./umkit --no-sandbox exec -- true
		t "$tmp/on" ./umkit exec -- true
	fi
	i=$((i + 1))
done
on=$(med "$tmp/on") off=$(med "$tmp/off")
printf '%-34s %8s ms\n' "median, sandbox" "$on" "median, --no-sandbox" "$off"
printf '%-34s %8s ms (target <= 10)\n' "the sandbox adds" "$(echo "$on $off" | awk '{ printf "%.1f", $1 - $2 }')"
paste "$tmp/on" "$tmp/off" | awk '{ print $1 - $2 }' > "$tmp/d"
printf '%-34s %8s ms\n' "median of the pairs' differences" "$(med "$tmp/d")"

echo "== the sandbox's cost in a one-file build, $builds pairs"
./umkit smoke --hash tests/fixtures/smoke/good.patch >/dev/null 2>&1
v=$(./umkit smoke --hash tests/fixtures/smoke/good.patch 2>/dev/null | sed -n 's/.*variant \(smoke-[0-9a-f]*\).*/\1/p')
[ -n "$v" ] || { echo "bench: no smoke variant"; exit 1; }
uml/kernel/kbuild.sh "$v" >/dev/null 2>&1 || { echo "bench: $v does not build"; exit 1; }
f=build/k/smoke-tree/src/mm/vmscan.c
i=0
while [ $i -lt "$builds" ]; do
	touch "$f"; t "$tmp/bon" uml/kernel/kbuild.sh "$v"
	touch "$f"; t "$tmp/boff" env UMKIT_SANDBOX=off uml/kernel/kbuild.sh "$v"
	i=$((i + 1))
done
printf '%-34s %8s ms\n' "median, sandbox" "$(med "$tmp/bon")" "median, no sandbox" "$(med "$tmp/boff")"
