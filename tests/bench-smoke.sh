#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench-smoke.sh - what 'umkit smoke' of a one-file mm/ patch costs with
# the base kernel cached: the time from the command to the full report
# with N=5 boots per kernel of every benchmark (--bench all), per stage (from its JUnit file),
# and what --debug (DEBUG_VM, PROVE_LOCKING, KASAN) adds to the build and
# to the boot.  The patch is made unique per run (a comment with the
# time in mm/vmscan.c), so its object is a real compile, not a ccache hit.
cd "$(dirname "$0")/.." || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
uml/kernel/kbuild.sh base >/dev/null || exit 1
stamp=$(date +%s)
sed "s|^+\tpr_info(\"umkit-smoke: kswapd_init runs (test fixture)\\\\n\");|&\n+\t/* bench-smoke $stamp */|; s|^@@ -7646,6 +7646,7 @@|@@ -7646,6 +7646,8 @@|" \
	tests/fixtures/smoke/good.patch > $tmp/p.patch
stages() {	# JUnit file -> "stage=seconds ..."
	sed -n 's/.*testcase classname="smoke" name="\([a-z]*\)" time="\([0-9.]*\)".*/\1=\2s/p' "$1" | tr '\n' ' '
}
echo "== umkit smoke of a one-file mm/ patch, base cached, -n ${BENCH_BOOTS:-5}, every benchmark"
t0=$(date +%s.%N)
./umkit smoke -n "${BENCH_BOOTS:-5}" --junit $tmp/a.xml $tmp/p.patch > $tmp/a.out 2>&1
rc=$? t1=$(date +%s.%N)
tail -n 12 $tmp/a.out
printf 'total %.1f s (exit %d); per stage: %s\n' "$(echo "$t1 - $t0" | bc)" $rc "$(stages $tmp/a.xml)"
echo "== the same patch with --debug (DEBUG_VM, PROVE_LOCKING, KASAN): build and boot"
t0=$(date +%s.%N)
./umkit smoke --debug --labs none --bench none --junit $tmp/d.xml $tmp/p.patch > $tmp/d.out 2>&1
rc=$? t1=$(date +%s.%N)
grep '^smoke:' $tmp/d.out
printf 'total %.1f s (exit %d); per stage: %s\n' "$(echo "$t1 - $t0" | bc)" $rc "$(stages $tmp/d.xml)"
v=$(sed -n 's/.*variant \(smoke-[0-9a-f]*\).*/\1/p' $tmp/a.out | head -1)
for k in build/smoke/${v#smoke-}/linux build/smoke/${v#smoke-}-debug/linux; do
	[ -x "$k" ] || continue
	best=999
	for i in 1 2 3; do
		s=$(date +%s%N); ./umkit exec -k "$k" -- true >/dev/null 2>&1; e=$(date +%s%N)
		ms=$(( (e - s) / 1000000 )); [ $ms -lt $best ] && best=$ms
	done
	printf 'boot+true+poweroff %-55s best of 3: %d ms, kernel %d KiB\n' "$k" $best $(( $(stat -c %s "$k") / 1024 ))
done
