#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kernels: selftests base+debug own
# beside tests: the selftests' verdicts in its own guests
# umkit selftests: the kernel's own mm tests of a variant's tree, built
# by its Makefile and run each in a fresh guest, with KTAP; smoke
# --selftests fails a patch that breaks one (tests/fixtures/smoke/
# onfault.patch: MLOCK_ONFAULT ignored, mlock2-tests fails) and not for
# what fails on base too; --run judges KTAP subtests the same way.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

out=$("$UMKIT" selftests --list 2>&1); rc=$?
is "selftests --list: exit 0" "$rc" 0
like "... lists mlock2-tests in its category" "$out" '^mlock2-tests +mlock$'
like "... and mremap_test" "$out" '^mremap_test +mremap$'
n=$(printf '%s\n' "$out" | wc -l)
check "... at least 30 tests of run_vmtests.sh built ($n)" test "$n" -ge 30

out=$("$UMKIT" selftests --ktap mlock2-tests map_fixed_noreplace mremap_dontunmap 2>$tmp/err); rc=$?
is "three tests that pass on base: exit 0" "$rc" 0
is "... KTAP on stdout: a plan and a line per test" "$out" "KTAP version 1
1..3
ok 1 map_fixed_noreplace
ok 2 mlock2-tests
ok 3 mremap_dontunmap"
like "... a progress line per test and the counts on stderr" "$(cat $tmp/err)" \
	'selftests: base: 3 passed, 0 failed, 0 skipped'
# mremap_test: its four 2 GB cases cannot map 2 GB in a 256 MiB guest
# (heuristic overcommit refuses it), and pass with the memory.
out=$("$UMKIT" selftests --ktap mremap_test 2>/dev/null); rc=$?
is "mremap_test in 256 MiB: exit 1" "$rc" 1
is "... only its 2GB subtests fail" \
	"$(printf '%s\n' "$out" | grep -c '^# mremap_test: not ok: 2GB mremap'):$(printf '%s\n' "$out" | grep -c '^# mremap_test: not ok')" "4:4"
out=$("$UMKIT" selftests -m 3G --ktap mremap_test 2>/dev/null); rc=$?
is "mremap_test with -m 3G: every subtest passes (userfaultfd's too)" "$rc:$(printf '%s\n' "$out" | grep -c 'not ok')" "0:0"
out=$("$UMKIT" selftests --ktap thuge-gen khugepaged 2>/dev/null); rc=$?
like "a test UML cannot run is a skip with the test's own reason" "$out" \
	'^ok [0-9] khugepaged # SKIP .*Transparent Hugepages not available'
out=$("$UMKIT" selftests nosuch 2>&1); rc=$?
is "an unknown test: exit 125, named" "$rc:$out" "125:umkit: no test 'nosuch' (built: see 'umkit selftests --list')"

# KUnit: base+debug (uml/kernel/debug.config), its mm suites run at a boot
# with kunit.enable=1, and only then.
out=$("$UMKIT" selftests --kunit 2>&1); rc=$?
is "selftests --kunit: exit 0" "$rc" 0
for s in damon damon-operations damon-sysfs slub_test; do
	like "... suite $s passes, with its cases" "$out" "^selftests: kunit $s +pass +[1-9][0-9]* cases?\$"
done
out=$("$UMKIT" selftests --kunit --ktap 2>/dev/null)
like "... as KTAP" "$out" '^ok [0-9] damon$'
# ... and a boot of that kernel that does not ask runs none (umkit gdb's).
out=$("$UMKIT" exec -V base+debug -- sh -c 'dmesg | grep -c "KTAP version"; dmesg | grep -o "kunit: disabled"; ls /sys/kernel/debug/kunit | wc -l' 2>&1)
is "a base+debug boot without kunit.enable=1 runs no suite (no KTAP, no results)" "$out" "0
kunit: disabled
0"

# smoke --selftests: the patched tree's tests on base and on the patch.
# (four tests: every one would add two runs of uffd-unit-tests, 94 s each)
out=$("$UMKIT" smoke --labs none --bench none --selftests=mlock2-tests,mremap_test,cow,map_fixed_noreplace \
	--run 'printf "ok 1 a\nnot ok 2 b\n"' tests/fixtures/smoke/onfault.patch 2>&1); rc=$?
is "smoke --selftests of a patch that breaks MLOCK_ONFAULT: exit 6" "$rc" 6
like "... the selftests stage fails" "$out" 'smoke: selftests +FAIL: 4 tests'
like "... naming mlock2-tests, which passes on base" "$out" \
	'^  mlock2-tests: passes on base, fail patched'
is "... and its subtests; no other test is blamed" \
	"$(printf '%s\n' "$out" | grep 'passes on base, fail' | grep -vc '^  mlock2-tests: ')" 0
like "... the subtest named" "$out" \
	'^  mlock2-tests: subtest passes on base, fails patched: test_mlock_onfault'
like "... what fails on base too is said so" "$out" \
	'mremap_test: fail patched, and on base too \(fail\): not the patch'"'"'s'
like "a --run whose failing KTAP subtest fails on base too: ok, and said" "$out" \
	"smoke: run +ok: .*\(1 failing subtest fails on base too: not the patch's\)"
no_leftovers "no guest, mount or run/ entry left"
done_testing
