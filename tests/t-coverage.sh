#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kernels: own
# t-coverage.sh - patch coverage (umkit smoke --coverage, umkit coverage):
# the fixture cov.patch has four hunks in mm/vmscan.c: a comment (nothing
# executable), a test in inc_max_seq() (the aging path lab 02 runs), one
# in the min_ttl_ms store (no lab writes it) and a line in kswapd_init()
# (runs once at boot).  The report must say which ran, with counts; the
# unreached hunk is a warning, a failure with --require-coverage, and a
# --run that writes min_ttl_ms turns it into "ran"; the JSON and JUnit
# outputs carry it.  umkit coverage reads a running guest's counters:
# one guest's never show in another's, --reset zeroes them, a file that
# is not profiled and a kernel without gcov are named.  compare
# --coverage base lru-batch reports seed 000's batched aging path as run
# under the aging benchmark.  Nothing is left behind.
#
# The benchmarks run once on the gcov kernel; --coverage-cost (compare
# here) adds their A/B round against the plain kernel, gcov's cost.
# make test runs the quick part (no gcov kernel: the errors); SMOKE_FULL=1
# (make test-smoke) adds the rest: a coverage build of the smoke tree
# (a full kernel build the first time, 2-3 minutes).
. "$(dirname "$0")/lib.sh"
full() { [ -n "${SMOKE_FULL:-}" ]; }
F=tests/fixtures/smoke
tmp=$(mktemp -d)
trap '"$UMKIT" stop cov1 >/dev/null 2>&1; "$UMKIT" stop cov2 >/dev/null 2>&1; "$UMKIT" stop covb >/dev/null 2>&1; rm -rf "$tmp"' EXIT INT TERM
_before_pids=$(_uml_pids) _before_mounts=$(_mounts) _before_run=$(_run_dirs)
tmps() { ls -d /tmp/umkit-gcov.* /tmp/umkit-coverage.* 2>/dev/null | sort; }
before_tmps=$(tmps)

# --- the quick part: no gcov kernel -------------------------------------------
out=$("$UMKIT" coverage 2>&1); rc=$?
like "umkit coverage without a guest: usage, exit 125" "$rc:$out" '^125:usage: umkit coverage'
out=$("$UMKIT" coverage --lines 9-3 x mm/vmscan.c 2>&1); rc=$?
like "--lines 9-3 is refused by name" "$rc:$out" '^125:.*--lines 9-3: want A-B'
out=$("$UMKIT" coverage nosuchguest mm/vmscan.c 2>&1); rc=$?
like "a guest that is not running is named" "$rc:$out" '^125:.*nosuchguest'
"$UMKIT" start -n covb >/dev/null 2>&1
out=$("$UMKIT" coverage covb mm/vmscan.c 2>&1); rc=$?
like "a base guest: its kernel has no coverage notes, said so" "$rc:$out" \
	"^125:.*guest covb: its kernel .* has no coverage notes"
"$UMKIT" stop covb >/dev/null 2>&1
want=$("$UMKIT" smoke --hash --coverage $F/cov.patch | sed -n 's/.*variant \(smoke-[0-9a-f]*\).*/\1/p')
h=${want#smoke-}
is "smoke --hash --coverage writes the coverage variant's profile" \
	"$(grep -v '^#' build/smoke/$h-cov/profile 2>/dev/null)" "mm/vmscan.o"

if ! full; then
	for t in "smoke --coverage: the labs' aging path ran, the unreached hunk is named" \
	    "--require-coverage fails on it; a --run reaching it makes it ran" \
	    "JSON and JUnit carry the coverage" \
	    "compare --coverage: lru-batch's batched aging path ran under the aging benchmark" \
	    "umkit coverage: per guest, --reset, a file not profiled"; do
		skip "$t" "a gcov kernel build: make test-smoke"
	done
	no_leftovers "nothing left behind"
	is "no gcov temporary directories left" "$(tmps)" "$before_tmps"
	done_testing
	exit
fi

# --- smoke --coverage: labs, boot, benchmarks ---------------------------------
out=$("$UMKIT" smoke --coverage --bench procbench -n 2 --json $tmp/a.json \
    --junit $tmp/a.xml $F/cov.patch 2>&1); rc=$?
is "smoke --coverage, one hunk unreached: exit 0 (a warning only)" "$rc" 0 ||
	printf '%s\n' "$out" | tail -20 | sed 's/^/#   /'
like "... the coverage kernel is built" "$out" '^smoke: cov-build ok'
like "... the stage warns: 2 of 3 hunks ran" "$out" '^smoke: coverage ok \(warning\): 2 of 3 hunks ran'
like "... the aging path's added test ran under the labs (count > 0; its pr_warn_once not)" \
	"$out" 'ran: mm/vmscan.c:3934-3935 in 0001.patch: 1 of 2 lines \(counts [1-9][0-9]*, 0\)'
like "... kswapd_init's line ran, once per guest's boot" "$out" 'ran: mm/vmscan.c:7654 in 0001.patch: 1 of 1 lines \(counts [1-9][0-9]*\)'
like "... the min_ttl_ms store is not exercised, named with its patch" "$out" \
	'not exercised: mm/vmscan.c:5333-5334 in 0001.patch \(tests/fixtures/smoke/cov.patch\)'
like "... the comment-only hunk has nothing executable" "$out" 'nothing executable: mm/vmscan.c:3924 in 0001.patch'
like "... the benchmarks ran once on the gcov kernel" "$out" \
	'^    the benchmarks ran once on the gcov kernel \(--coverage-cost: '
if printf '%s\n' "$out" | grep -q "gcov's run-time cost):"; then
	not_ok "... and gcov's cost round is left out (--coverage-cost asks for it)"
else ok "... and gcov's cost round is left out (--coverage-cost asks for it)"; fi
like "... the verdict" "$out" "^smoke: PASS $want "
check "... JSON: four hunks; the unreached one has 2 executable lines, 0 ran; counts per line" \
	python3 -c 'import json,sys
c = json.load(open(sys.argv[1]))["coverage"]
h = c["hunks"]
assert len(h) == 4, h
assert h[2]["start"] == 5333 and h[2]["executable"] == 2 and h[2]["ran"] == 0, h[2]
assert [l["count"] for l in h[1]["lines"]][1] == 0 and h[1]["lines"][0]["count"] > 0, h[1]
assert h[0]["executable"] == 0 and h[0]["lines"][0]["count"] is None, h[0]
assert c["guests"] > 2, c' $tmp/a.json
check "... JSON still has the benchmark samples" python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["metrics"]' $tmp/a.json
check "... JUnit is well-formed XML" xmllint --noout $tmp/a.xml
like "... JUnit: a coverage property for the patch" "$(cat $tmp/a.xml)" \
	'<property name="coverage 0001.patch" value="2 of 3 hunks ran \(2 of 5 lines\); not exercised: mm/vmscan.c:5333-5334"/>'

out=$("$UMKIT" smoke --require-coverage --labs none --bench none $F/cov.patch 2>&1); rc=$?
is "--require-coverage with the labs off: exit 7" "$rc" 7 || printf '%s\n' "$out" | tail -8 | sed 's/^/#   /'
like "... the coverage stage fails, naming what ran" "$out" '^smoke: coverage FAIL: 1 of 3 hunks ran'
out=$("$UMKIT" smoke --require-coverage --bench none --run 'echo 5 > /sys/kernel/mm/lru_gen/min_ttl_ms' $F/cov.patch 2>&1); rc=$?
is "--require-coverage with the labs and a --run writing min_ttl_ms: exit 0" "$rc" 0 ||
	printf '%s\n' "$out" | tail -8 | sed 's/^/#   /'
like "... the min_ttl_ms hunk ran now (its test once, its pr_info not)" "$out" \
	'ran: mm/vmscan.c:5333-5334 in 0001.patch: 1 of 2 lines \(counts 1, 0\)'
like "... every hunk ran" "$out" '^smoke: coverage ok: 3 of 3 hunks ran'

# --- compare --coverage-cost: a variant of patches/ ----------------------------
out=$("$UMKIT" compare --coverage-cost --bench aging -n 2 --json $tmp/c.json base lru-batch 2>&1); rc=$?
is "compare --coverage-cost --bench aging base lru-batch: exit 0" "$rc" 0 ||
	printf '%s\n' "$out" | tail -8 | sed 's/^/#   /'
like "... lru-batch is built with gcov (lru-batch+cov)" "$out" '^coverage: lru-batch built with gcov \([0-9.]+ s\): .*/build/k/lru-batch\+cov/linux$'
like "... gcov's cost: the instrumented kernel against the plain one" "$out" "gcov's run-time cost\):"
like "... the headline counts the hunks that ran" "$out" '^coverage: lru-batch: [1-9][0-9]* of [0-9]+ hunks ran \([0-9]+ of [0-9]+ executable added lines\) in 2 boots'
like "... the batched aging path of seed 000's patch ran under the aging benchmark" "$out" \
	'ran: mm/vmscan.c:[0-9-]+ in 0002-mglru-batch-aging-size-updates.patch: [0-9]+ of [0-9]+ lines \(counts [1-9]'
check "... its JSON has the comparison's samples and the coverage" python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
assert d["metrics"] and len(d["coverage"]["hunks"]) > 10, d.keys()' $tmp/c.json
out=$("$UMKIT" compare --coverage base nosuch 2>&1); rc=$?
like "compare --coverage of a variant that does not exist: said so, before any boot" "$rc:$out" \
	"^125:umkit: --coverage: no variant 'nosuch'"

# --- umkit coverage on running guests ------------------------------------------
k=build/smoke/$h-cov/linux
"$UMKIT" start -k $k -n cov1 >/dev/null 2>&1 && "$UMKIT" start -k $k -n cov2 >/dev/null 2>&1
"$UMKIT" exec cov1 -- sh -c 'echo 9 > /sys/kernel/mm/lru_gen/min_ttl_ms'
out=$("$UMKIT" coverage --lines 5333-5334 cov1 mm/vmscan.c 2>&1); rc=$?
is "umkit coverage cov1 mm/vmscan.c: exit 0" "$rc" 0 || printf '%s\n' "$out" | sed 's/^/#   /'
like "... a summary of the file" "$out" '^mm/vmscan.c: [0-9]+ of [0-9]+ executable lines ran \([0-9.]+%\)$'
like "... the store's test ran once in cov1" "$out" '^ +1: +5333:	if \(msecs > 3600000\)$'
like "... its pr_info never" "$out" '^ +#####: +5334:'
out=$("$UMKIT" coverage --lines 5333 cov2 mm/vmscan.c 2>&1)
like "cov1's counters do not show in cov2" "$out" '^ +#####: +5333:'
"$UMKIT" coverage --reset cov1 >/dev/null 2>&1
out=$("$UMKIT" coverage --lines 5333 cov1 mm/vmscan.c 2>&1)
like "--reset zeroes cov1's counters" "$out" '^ +#####: +5333:'
out=$("$UMKIT" coverage cov1 mm/mlock.c 2>&1); rc=$?
like "a file the variant does not profile is named" "$rc:$out" "^125:.*mm/mlock.c is not profiled in guest cov1's kernel"
"$UMKIT" stop cov1 >/dev/null 2>&1; "$UMKIT" stop cov2 >/dev/null 2>&1

no_leftovers "nothing left behind"
is "no gcov temporary directories left" "$(tmps)" "$before_tmps"
done_testing
