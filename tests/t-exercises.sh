#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kernels: rss-lazy
# beside builds: skeletons, builds and grader verdicts, no timing
# beside tests: skeletons, builds and grader verdicts in its own guests
# Several exercises in a lab, each with a level, and the grader cases a
# lab lists: --exercise-id picks one (the first is the default, as
# before), the skeleton of the one picked is written, and the cases of
# lab 04's beginner exercise (rsstouch) reject a plausible wrong solution
# that passes the happy path (tests/fixtures/exercise/), and so do the
# cases of its advanced one (gap) for a solution that never pins its
# threads.  The solution passing every case is lab 04's own batch run in
# t-labs.sh.
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
export XDG_STATE_HOME="$work/state"
trap 'rm -rf "$work"' EXIT INT TERM

# Picking an exercise, and the skeleton of the one picked.
ex=$work/ex
out=$("$UMKIT" lab 4 --exercise "$ex" --exercise-id rsstouch --batch 2>&1); rc=$?
is "--exercise-id: the first run writes that exercise's skeleton (exit 0)" "$rc" 0
like "... and says how to grade it" "$out" \
	"is in $ex/04-rsstouch.c: .*
  umkit lab 04-counters --exercise $ex --exercise-id rsstouch"
check "... with the TODO" grep -q 'TODO: write one byte to page 0' "$ex/04-rsstouch.c"
if grep -q 'touched++' "$ex/04-rsstouch.c"; then
	not_ok "... and without the solution's loop"
else ok "... and without the solution's loop"; fi
if [ -e "$ex/04-twothreads.c" ]; then
	not_ok "... and no other exercise's file"
else ok "... and no other exercise's file"; fi
out=$("$UMKIT" lab 4 --exercise "$work/ex0" --batch 2>&1); rc=$?
is "no --exercise-id: the first exercise, as before (exit 0)" "$rc:$(ls "$work/ex0")" "0:04-twothreads.c"
like "... and the lab's exercises are listed with their levels" "$out" \
	"has 3 exercises; this is twothreads .*
  twothreads +intermediate +program 04-twothreads.c .*
  rsstouch +beginner +program 04-rsstouch.c, 6 grader cases.*
  gap +advanced +program 04-gap.c, 4 grader cases"
out=$("$UMKIT" lab 4 --exercise "$ex" --exercise-id nosuch --batch 2>&1); rc=$?
like "an unknown exercise: exit 2, the lab's listed" "$rc:$out" \
	"^2:umkit: lab 04-counters has no exercise 'nosuch'; its exercises:
  twothreads "
out=$("$UMKIT" lab 4 --exercise-id rsstouch --batch 2>&1); rc=$?
like "--exercise-id alone is refused" "$rc:$out" "exercise-id rsstouch goes with --exercise DIR"

# The grader: lab 04's rsstouch exercise with its cases as the lab lists
# them, beside an exercise whose cases are left out when rsstouch is
# picked.
g=$work/g
mkdir -p "$g"
cp "$TOP/labs/04-rsstouch.c" "$TOP/labs/04-twothreads.c" "$g/"
{
	printf 'title The grader of lab 04s exercises\nmemory 256M\n'
	printf 'exercise program 04-twothreads.c\n  case runs twothreads\n'
	printf '    expect result(twothreads.threads) == 2\n'
	exercise_lines "$TOP/labs/04-counters.lab" 04-rsstouch.c
} > "$g/grader.lab"
check "the extracted grader lab is a lab" "$UMKIT" lab --check "$g/grader.lab"
check "the wrong solution (a patch) applies to the solution" patch -s -i "$TOP/tests/fixtures/exercise/04-rsstouch-rounds-down.patch" \
	-o "$ex/04-rsstouch.c" "$TOP/labs/04-rsstouch.c"
out=$("$UMKIT" lab "$g/grader.lab" --exercise "$ex" --exercise-id rsstouch --batch 2>&1); rc=$?
is "a wrong solution is rejected (exit 1)" "$rc" 1
like "... though it passes the happy path" "$out" \
	"^ok [0-9]+ rsstouch-big: result\(rsstouch.touched\) == 4096"
like "... and the empty mapping" "$out" "^ok [0-9]+ rsstouch-empty: result\(rsstouch.anon_kB\) == 0"
like "... it fails the case whose stride does not divide the pages" "$out" \
	"^not ok [0-9]+ rsstouch-uneven: result\(rsstouch.touched\) == 4"
like "... with the values, the fail message and the hint" "$out" \
	"^# pages 0, 3, 6 and 9 of 10 make four: result\(rsstouch.touched\) is 3, want == 4
# hint: PAGES / STRIDE rounds down"
like "... and the case with a stride wider than the mapping" "$out" \
	"^not ok [0-9]+ rsstouch-wide: result\(rsstouch.touched\) == 1"
like "... from the student's program, not a stale line of another case" "$out" \
	"^not ok [0-9]+ rsstouch-wide: result\(rsstouch.anon_kB\) == 4"
if printf '%s\n' "$out" | grep -q 'twothreads-runs'; then
	not_ok "the other exercise's cases are left out" "$out"
else ok "the other exercise's cases are left out"; fi
like "the plan counts this exercise's checks only" "$out" "^1\.\.17\$"
like "... and so does the score" "$out" "^# grader: passed 12/17, "

# Lab 04's advanced exercise (gap): its cases as the lab lists them, on a
# solution that reads, writes and fits right but never pins its threads.
# Started on CPU 0 alone (case pinned: taskset -c 0) its threads stay
# there, so two CPUs never hold back pages at once: the gap at 2 CPUs
# stays one CPU's (31 pages) and the case rejects it, every run.  Case
# two (no taskset) is left unchecked here: where the scheduler puts
# unpinned threads varies.
gl=$work/gl
mkdir -p "$gl"
cp "$TOP/labs/04-gap.c" "$gl/"
{
	printf 'title The grader of lab 04s gap exercise\nmemory 256M\ncpus 2\n'
	printf 'variants rss-lazy\n'
	exercise_lines "$TOP/labs/04-counters.lab" 04-gap.c
} > "$gl/grader.lab"
check "the extracted gap grader lab is a lab" "$UMKIT" lab --check "$gl/grader.lab"
exg=$work/exg
mkdir -p "$exg"
check "gap's wrong solution (a patch) applies to the solution" patch -s -i "$TOP/tests/fixtures/exercise/04-gap-unpinned.patch" \
	-o "$exg/04-gap.c" "$TOP/labs/04-gap.c"
out=$("$UMKIT" lab "$gl/grader.lab" --exercise "$exg" --exercise-id gap --batch 2>&1); rc=$?
is "gap: a solution that does not pin its threads is rejected (exit 1)" "$rc" 1
like "... though its one-thread run lags as it should" "$out" \
	"^ok [0-9]+ gap-one: result\(gap.max_gap_pages\) >= 24"
like "... and its started-on-CPU-0 run measures both CPUs" "$out" \
	"^ok [0-9]+ gap-pinned: result\(gap.cpus\) == 2"
like "... it fails the case that starts it on CPU 0 alone" "$out" \
	"^not ok [0-9]+ gap-pinned: result\(gap.max_gap_pages\) >= 40"
like "... with the gap of one CPU, the fail message and the hint" "$out" \
	"^# started on CPU 0 alone, your threads stayed on CPU 0: each must pin itself to its own CPU: result\(gap.max_gap_pages\) is 3[0-9], want >= 40
# hint: in the thread: CPU_ZERO, CPU_SET"
like "... and bad arguments still exit 2" "$out" "^ok [0-9]+ gap-zero: status == 2"
no_leftovers "the exercises leave nothing behind"
done_testing
