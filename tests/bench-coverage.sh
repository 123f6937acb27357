#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench-coverage.sh - what 'umkit smoke --coverage' adds (issue 13): the
# coverage build after the plain smoke build (the fixture cov.patch made
# unique per run, so the profiled object is a real compile in the gcov
# tree, build/k/smoke-tree-cov), the instrumented kernel against the plain
# patched one on procbench and kvbench (N=5 boots each, interleaved), and
# the time from the end of the runs to the coverage report.
cd "$(dirname "$0")/.." || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
uml/kernel/kbuild.sh base >/dev/null || exit 1
stamp=$(date +%s)
# One more comment line in the first hunk: a new hash, the same lines below.
sed "s|^+/\* umkit-cov: a comment only, nothing to execute (test fixture) \*/|&\n+/* bench-coverage $stamp */|; s|^@@ -3921,6 +3921,7 @@|@@ -3921,6 +3921,8 @@|; s|^@@ -3930,6 +3931,8 @@|@@ -3930,6 +3932,8 @@|; s|^@@ -5327,6 +5330,8 @@|@@ -5327,6 +5331,8 @@|; s|^@@ -7646,6 +7651,7 @@|@@ -7646,6 +7652,7 @@|" \
	tests/fixtures/smoke/cov.patch > $tmp/p.patch
echo "== umkit smoke --coverage --labs none --bench procbench,kvbench -n ${BENCH_BOOTS:-5}"
t0=$(date +%s.%N)
./umkit smoke --coverage --labs none --bench procbench,kvbench -n "${BENCH_BOOTS:-5}" $tmp/p.patch > $tmp/out 2>&1
rc=$? t1=$(date +%s.%N)
sed -n '/^smoke: build /p; /^smoke: cov-build/p; /gcov.s run-time cost/,/^smoke: coverage/p; /^smoke: \(PASS\|FAIL\)/p' $tmp/out
printf 'total %.1f s (exit %d)\n' "$(echo "$t1 - $t0" | bc)" $rc
