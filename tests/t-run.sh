#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# beside tests: the runner on small scripts of its own
# t-run.sh - the test runner (tests/run) itself, on small TAP scripts
# written here: a plan is required, exactly one, first or last, and the
# checks run must be the checks planned; "not ok", skips and a bad exit
# status are counted as they should be.
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
# The runners here run as their checks want, whatever ran this one.
unset UMKIT_TEST_BESIDE UMKIT_TEST_LANE UMKIT_TEST_PREBUILD UMKIT_TEST_KBUILD
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

# Kernels: a script with a "# kernels:" line runs after the others, and
# the variants it names are built meanwhile (nice 19, each once, in
# order of need, "own" not one), every one done before it starts, unless
# it says "# beside builds:": then it runs first, once its own are built.
printf '%s\n' "echo \"\$1 \$(nice)\" >> $work/built" > "$work/kb.sh"
tap plain 0 "ok 1 - plain" "1..1"
printf '%s\n' '#!/bin/sh' '# kernels: v1 own v2' "echo \"ok 1 - built: \$(tr '\\n' ' ' < $work/built)\"" \
	'echo 1..1' > "$work/needs.sh"
printf '%s\n' '#!/bin/sh' '# kernels: v2 v3' 'echo "ok 1 - b"' 'echo 1..1' > "$work/needs2.sh"
o=$(UMKIT_TEST_KBUILD="sh $work/kb.sh" "$TOP/tests/run" --only "$work/needs.sh" "$work/plain.sh" "$work/needs2.sh" 2>&1)
is "scripts with kernels run last, in their order" \
	"$(printf '%s\n' "$o" | sed -n 's|^# time: .*/||p' | cut -d' ' -f1 | tr '\n' ' ')" "plain.sh needs.sh needs2.sh "
like "... after the variants they name were built at nice 19, each once" "$o" '^ok 1 - built: v1 19 v2 19 v3 19 $'
like "... and the runner says so" "$o" '^# building alongside the first tests, at nice 19: v1 v2 v3$'
rm -f "$work/built"
# One that names only v1 still waits for every build ahead (v2's takes
# half a second).
printf '%s\n' "case \$1 in v2) sleep 0.5 ;; esac" "echo \"\$1\" >> $work/built" > "$work/kbhalf.sh"
printf '%s\n' '#!/bin/sh' '# kernels: v1' "echo \"ok 1 - quiet: \$(tr '\\n' ' ' < $work/built)\"" \
	'echo 1..1' > "$work/quiet.sh"
o=$(UMKIT_TEST_KBUILD="sh $work/kbhalf.sh" "$TOP/tests/run" --only "$work/plain.sh" "$work/quiet.sh" "$work/needs2.sh" 2>&1)
like "a script naming only v1 waits for every build ahead (a machine nothing else loads)" "$o" '^ok 1 - quiet: v1 v2 v3 $'
rm -f "$work/built"
# A script that says "# beside builds:" runs before the others and starts
# once the kernels it names are built, while the next build ahead still
# runs: v2's build waits for early.sh (10 s at most), then 2 s (a loaded
# host: this script may run beside another).
printf '%s\n' "case \$1 in v2) i=0; while [ ! -e $work/go ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done" \
	"[ -e $work/go ] || set -- 'v2-before-early'; sleep 2 ;; esac" "echo \"\$1\" >> $work/built" > "$work/kbgo.sh"
printf '%s\n' '#!/bin/sh' '# kernels: v1' '# beside builds: a test' "echo \"ok 1 - early: \$(tr '\\n' ' ' < $work/built)\"" \
	"touch $work/go" 'echo 1..1' > "$work/early.sh"
printf '%s\n' '#!/bin/sh' '# kernels: v2' '# beside builds: a test' "echo \"ok 1 - late: \$(tr '\\n' ' ' < $work/built)\"" \
	'echo 1..1' > "$work/late.sh"
o=$(UMKIT_TEST_KBUILD="sh $work/kbgo.sh" "$TOP/tests/run" --only "$work/plain.sh" "$work/quiet.sh" "$work/early.sh" "$work/late.sh" 2>&1)
is "... before those that do not say it" \
	"$(printf '%s\n' "$o" | sed -n 's|^# time: .*/||p' | cut -d' ' -f1 | tr '\n' ' ')" "plain.sh early.sh late.sh quiet.sh "
like "a script naming v1 runs as soon as v1 is built, v2's build still running" "$o" '^ok 1 - early: v1 $'
like "... the next waits for v2, and says so" "$o" '^# .*late.sh waited [0-9]+ ms for the kernels it names$'
like "... and runs after it" "$o" '^ok 1 - late: v1 v2 $'
rm -f "$work/built"
UMKIT_TEST_PREBUILD=0 UMKIT_TEST_KBUILD="sh $work/kb.sh" "$TOP/tests/run" --only "$work/plain.sh" "$work/needs2.sh" >/dev/null 2>&1
is "UMKIT_TEST_PREBUILD=0: nothing is built ahead" "$(cat "$work/built" 2>/dev/null)" ""
UMKIT_TEST_KBUILD="sh $work/kb.sh" "$TOP/tests/run" --only "$work/needs2.sh" >/dev/null 2>&1
is "... nor when no test runs before them" "$(cat "$work/built" 2>/dev/null)" ""

# left_of FILE: the pids FILE lists that still run 5 s on (each).
left_of() {
	for _p in $(cat "$1"); do
		_i=0
		while [ $_i -lt 50 ] && kill -0 "$_p" 2>/dev/null; do sleep 0.1; _i=$((_i + 1)); done
		! kill -0 "$_p" 2>/dev/null || printf ' %s' "$_p"
	done
}
# Stopped (TERM) while a build ahead runs: that build goes with it.
printf '%s\n' "sleep 60 & echo \"\$\$ \$!\" > $work/kbpids; wait" > "$work/kbslow.sh"
printf '%s\n' '#!/bin/sh' "while [ ! -s $work/kbpids ]; do sleep 0.05; done" 'echo "ok 1 - a"' 'echo 1..1' \
	> "$work/waits.sh"
mkdir "$work/tmp-stop"
TMPDIR=$work/tmp-stop UMKIT_TEST_KBUILD="sh $work/kbslow.sh" "$TOP/tests/run" --only "$work/waits.sh" "$work/needs2.sh" \
	> "$work/stop.out" 2>&1 &
rp=$!
i=0
while [ $i -lt 100 ] && ! grep -q '^# time: .*waits.sh' "$work/stop.out"; do sleep 0.1; i=$((i + 1)); done
kill -TERM $rp
wait $rp
is "... the runner exits 143" "$?" 143
is "... and no process of the build ahead is left" "$(left_of "$work/kbpids")" ""
is "... nor any file of the runner's in TMPDIR" "$(ls -A "$work/tmp-stop")" ""

# Unit-test binaries run in a lane beside the scripts: each of these two
# waits for the other's file (10 s at most), which only works side by side.
printf '%s\n' '#!/bin/sh' "touch $work/from-u; i=0" \
	"while [ ! -e $work/from-s ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done" \
	"[ -e $work/from-s ] && echo 'ok 1 - u saw s' || echo 'not ok 1 - u saw s'" 'echo 1..1' > "$work/unit1"
printf '%s\n' '#!/bin/sh' "touch $work/from-s; i=0" \
	"while [ ! -e $work/from-u ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done" \
	"[ -e $work/from-u ] && echo 'ok 1 - s saw u' || echo 'not ok 1 - s saw u'" 'echo 1..1' > "$work/s1.sh"
chmod +x "$work/unit1"
mkdir "$work/tmp-lane"
o=$(TMPDIR=$work/tmp-lane "$TOP/tests/run" --only "$work/unit1" "$work/s1.sh" 2>&1)
is "a unit test and a script run side by side" "$(printf '%s\n' "$o" | tail -1)" "2 passed, 0 failed, 0 skipped"
like "... the unit test's result printed whole after the scripts" "$o" "# $work/unit1 \\(in the lane\\)
ok 1 - u saw s
1..1
# time: $work/unit1 [0-9]+ ms\$"
is "... and the runner leaves no file in TMPDIR" "$(ls -A "$work/tmp-lane")" ""
rm -f "$work/from-u" "$work/from-s"
o=$(UMKIT_TEST_LANE=0 "$TOP/tests/run" --only "$work/unit1" "$work/s1.sh" 2>&1)
is "UMKIT_TEST_LANE=0: one after another" "$(printf '%s\n' "$o" | tail -1)" "1 passed, 1 failed, 0 skipped"


# "# beside tests:": two such scripts run at once, each with a run
# directory of its own (UMKIT_RUN: not this script's, when this one
# runs beside another), which is gone afterwards; each of
# p1 and p2 waits for the other's file (10 s at most).  A script without
# the line runs alone: it sees neither's "running" file.
# pair NAME OTHER: a script that says it may run beside another, marks
# itself running, and waits for OTHER's mark.
pair() {
	printf '%s\n' '#!/bin/sh' '# beside tests: a test' "touch $work/run-$1 $work/from-$1; i=0" \
		"echo \"\$UMKIT_RUN\" > $work/runof-$1; [ \"\${UMKIT_RUN:-}\" != '${UMKIT_RUN:-}' ] && [ -d \"\$UMKIT_RUN\" ] && [ -z \"\$(ls -A \"\$UMKIT_RUN\")\" ] && echo 'ok 1 - an empty run directory' || echo 'not ok 1 - an empty run directory'" \
		"while [ ! -e $work/from-$2 ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done" \
		"rm -f $work/run-$1" \
		"[ -e $work/from-$2 ] && echo 'ok 2 - $1 saw $2' || echo 'not ok 2 - $1 saw $2'" 'echo 1..2' > "$work/$1.sh"
}
pair p1 p2
pair p2 p1
printf '%s\n' '#!/bin/sh' "[ -z \"\$(ls $work | grep '^run-')\" ] && echo 'ok 1 - alone' || echo 'not ok 1 - alone'" \
	"[ \"\${UMKIT_RUN:-}\" = '${UMKIT_RUN:-}' ] && echo 'ok 2 - the caller s run directory' || echo 'not ok 2 - UMKIT_RUN changed'" \
	'echo 1..2' > "$work/alone.sh"
mkdir "$work/tmp-pool"
o=$(TMPDIR=$work/tmp-pool "$TOP/tests/run" --only "$work/alone.sh" "$work/p1.sh" "$work/p2.sh" "$work/alone.sh" 2>&1)
is "two scripts that say '# beside tests:' run side by side, the others alone" \
	"$(printf '%s\n' "$o" | tail -1)" "8 passed, 0 failed, 0 skipped"
r1=$(cat "$work/runof-p1") r2=$(cat "$work/runof-p2")
like "... each with a run directory of its own" "$r1 $r2" "^/.+ /.+\$"
check "... two different ones" test "$r1" != "$r2"
check "... gone afterwards" test ! -e "$r1" -a ! -e "$r2"
like "... each result printed whole, in the order they started" "$o" "# $work/p1.sh \\(beside tests\\)
ok 1 - an empty run directory
ok 2 - p1 saw p2
1..2
# time: $work/p1.sh [0-9]+ ms
# $work/p2.sh \\(beside tests\\)
ok 1 - an empty run directory
ok 2 - p2 saw p1
1..2
# time: $work/p2.sh [0-9]+ ms
# $work/alone.sh
"
is "... and the runner leaves no file in TMPDIR" "$(ls -A "$work/tmp-pool")" ""
rm -f "$work"/from-* "$work"/runof-*
o=$(UMKIT_TEST_BESIDE=0 "$TOP/tests/run" --only "$work/p1.sh" "$work/p2.sh" 2>&1)
# one after another, neither has a run directory of its own, and p1
# waits in vain for p2
is "UMKIT_TEST_BESIDE=0: one after another" "$(printf '%s\n' "$o" | tail -1)" "1 passed, 3 failed, 0 skipped"
rm -f "$work"/from-* "$work"/runof-*
# Two that build kernels of their own ("own") never run at once, though
# both say they may run beside tests.
for n in 1 2; do
	printf '%s\n' '#!/bin/sh' '# kernels: own' '# beside tests: a test' \
		"[ -e $work/own-busy ] && echo 'not ok 1 - o$n alone' || echo 'ok 1 - o$n alone'" \
		"touch $work/own-busy; sleep 0.5; rm -f $work/own-busy" 'echo 1..1' > "$work/o$n.sh"
done
o=$(UMKIT_TEST_PREBUILD=0 "$TOP/tests/run" --only "$work/o1.sh" "$work/o2.sh" 2>&1)
is "two builders of their own kernels never run at once" "$(printf '%s\n' "$o" | tail -1)" "2 passed, 0 failed, 0 skipped"

# While a build ahead runs (v1's, until b2 has run), two that may run
# beside tests run one at a time: the build gets the second CPU.  Each
# marks itself, waits half a second, looks for the other's mark and
# keeps its own another half second.
printf '%s\n' "i=0; while [ ! -e $work/release ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done" \
	> "$work/kbrel.sh"
for n in 1 2; do
	printf '%s\n' '#!/bin/sh' '# beside tests: a test' "touch $work/mark-b$n; sleep 0.5" \
		"[ -n \"\$(ls $work | grep '^mark-b' | grep -vx mark-b$n)\" ] && echo 'not ok 1 - b$n alone' || echo 'ok 1 - b$n alone'" \
		"sleep 0.5; rm -f $work/mark-b$n" 'echo 1..1' > "$work/b$n.sh"
done
echo "touch $work/release" >> "$work/b2.sh"
printf '%s\n' '#!/bin/sh' '# kernels: v1' 'echo "ok 1 - v1"' 'echo 1..1' > "$work/needv1.sh"
o=$(UMKIT_TEST_KBUILD="sh $work/kbrel.sh" "$TOP/tests/run" --only "$work/b1.sh" "$work/b2.sh" "$work/needv1.sh" 2>&1)
is "while a build ahead runs, two that may run beside tests run one at a time" \
	"$(printf '%s\n' "$o" | tail -1)" "3 passed, 0 failed, 0 skipped"
o=$(UMKIT_TEST_PREBUILD=0 "$TOP/tests/run" --only "$work/b1.sh" "$work/b2.sh" 2>&1)
is "... and side by side with no build ahead" "$(printf '%s\n' "$o" | tail -1)" "0 passed, 2 failed, 0 skipped"

# Stopped (TERM) while two run beside each other: both go, and their
# children.
printf '%s\n' '#!/bin/sh' '# beside tests: a test' "sleep 60 & echo \$! >> $work/pairpids; wait" > "$work/slow1.sh"
cp "$work/slow1.sh" "$work/slow2.sh"
mkdir "$work/tmp-pstop"
TMPDIR=$work/tmp-pstop "$TOP/tests/run" --only "$work/slow1.sh" "$work/slow2.sh" > /dev/null 2>&1 &
rp=$!
i=0
while [ $i -lt 100 ] && [ "$(cat "$work/pairpids" 2>/dev/null | wc -l)" -lt 2 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM $rp
wait $rp
is "stopped while two run beside each other: the runner exits 143" "$?" 143
is "... no process of theirs is left" "$(left_of "$work/pairpids")" ""
is "... nor any file of the runner's in TMPDIR" "$(ls -A "$work/tmp-pstop")" ""

done_testing
