#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench-coverage.sh - what 'umkit smoke --coverage' adds (issues 13, 28):
# the coverage build after the plain smoke build (the fixture cov.patch
# made unique per run, so the profiled object is a real compile in the
# gcov tree, build/k/smoke-tree-cov), the benchmarks once on it, and the
# whole command's time (target with the gcov tree built: <= 90 s); then
# --coverage-cost, which adds the instrumented kernel against the plain
# patched one on procbench and kvbench (N=5 boots each, interleaved):
# gcov's run-time cost.
cd "$(dirname "$0")/.." || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
uml/kernel/kbuild.sh base >/dev/null || exit 1
# run OPTION STAMP: smoke OPTION on the fixture made unique by STAMP (one
# more comment line in the first hunk: a new hash, the same lines below),
# its stages and its total time.
run() {
	sed "s|^+/\* umkit-cov: a comment only, nothing to execute (test fixture) \*/|&\n+/* bench-coverage $2 */|; s|^@@ -3921,6 +3921,7 @@|@@ -3921,6 +3921,8 @@|; s|^@@ -3930,6 +3931,8 @@|@@ -3930,6 +3932,8 @@|; s|^@@ -5327,6 +5330,8 @@|@@ -5327,6 +5331,8 @@|; s|^@@ -7646,6 +7651,7 @@|@@ -7646,6 +7652,7 @@|" \
		tests/fixtures/smoke/cov.patch > $tmp/p.patch
	echo "== umkit smoke $1 --labs none --bench procbench,kvbench -n ${BENCH_BOOTS:-5}"
	t0=$(date +%s.%N)
	./umkit smoke "$1" --labs none --bench procbench,kvbench -n "${BENCH_BOOTS:-5}" \
		$tmp/p.patch > $tmp/out 2>&1
	rc=$? t1=$(date +%s.%N)
	sed -n '/^smoke: build /p; /^smoke: cov-build/p; /ran once on the gcov/p; /gcov.s run-time cost):/,/^smoke: coverage/p; /^smoke: \(PASS\|FAIL\)/p' $tmp/out
	printf 'total %.1f s (exit %d)\n' "$(echo "$t1 - $t0" | bc)" $rc
}
stamp=$(date +%s)
# --coverage: the gcov tree built (a real compile of the profiled object),
# the benchmarks once on it; then --coverage-cost: gcov's cost round too.
run --coverage "$stamp"
run --coverage-cost "$stamp-cost"
