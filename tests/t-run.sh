#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# t-run.sh - the test runner (tests/run) itself, on small TAP scripts
# written here: a plan is required, exactly one, first or last, and the
# checks run must be the checks planned; "not ok", skips and a bad exit
# status are counted as they should be.
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# tap NAME EXIT LINES...: a script printing LINES, then exiting EXIT.
tap() {
	n=$1 x=$2; shift 2
	{ for l in "$@"; do printf "echo '%s'\n" "$l"; done; echo "exit $x"; } > "$work/$n.sh"
}
# verdict NAME: the runner's summary line and exit status for one script.
verdict() {
	o=$("$TOP/tests/run" --only "$work/$1.sh" 2>&1); r=$?
	printf '%s|%s' "$(printf '%s\n' "$o" | tail -1)" "$r"
}

tap plan-last 0 "ok 1 - a" "ok 2 - b" "1..2"
is "plan at the end, all run: passes" "$(verdict plan-last)" "2 passed, 0 failed, 0 skipped|0"
tap plan-first 0 "1..2" "ok 1 - a" "# a comment" "ok 2 - b" "# ok - group"
is "plan first (cmocka): passes" "$(verdict plan-first)" "2 passed, 0 failed, 0 skipped|0"
tap short 0 "ok 1 - a" "ok 2 - b" "ok 3 - c" "1..10"
is "3 of 10 planned checks and exit 0: a failure" "$(verdict short)" \
	"3 passed, 1 failed, 0 skipped|1"
like "and the runner says why" "$("$TOP/tests/run" --only "$work/short.sh")" \
	"not ok - .*short.sh planned 10 checks but ran 3"
tap short-first 0 "1..4" "ok 1 - a"
is "plan first, stopped after one: a failure" "$(verdict short-first)" \
	"1 passed, 1 failed, 0 skipped|1"
tap extra 0 "1..1" "ok 1 - a" "ok 2 - b"
is "more checks than planned: a failure" "$(verdict extra)" "2 passed, 1 failed, 0 skipped|1"
tap none 0 "ok 1 - a" "ok 2 - b"
is "no plan: a failure" "$(verdict none)" "2 passed, 1 failed, 0 skipped|1"
like "and the runner says why" "$("$TOP/tests/run" --only "$work/none.sh")" \
	"not ok - .*none.sh printed no TAP plan"
tap two 0 "1..1" "ok 1 - a" "1..1"
is "two plans: a failure" "$(verdict two)" "1 passed, 1 failed, 0 skipped|1"
tap failing 1 "ok 1 - a" "not ok 2 - b" "1..2"
is "a not ok line is one failure" "$(verdict failing)" "1 passed, 1 failed, 0 skipped|1"
tap status 3 "ok 1 - a" "1..1"
is "all ok but a non-zero exit: a failure" "$(verdict status)" "1 passed, 1 failed, 0 skipped|1"
tap skips 0 "ok 1 - a # SKIP no tmux" "ok 2 - b" "1..2"
is "skips are counted apart" "$(verdict skips)" "1 passed, 0 failed, 1 skipped|0"
is "two scripts add up" \
	"$("$TOP/tests/run" --only "$work/plan-last.sh" "$work/short.sh" | tail -1)" \
	"5 passed, 1 failed, 0 skipped"

done_testing
