#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# beside tests: a grader's verdicts, counted pages; its own guests and state
# Lab 03's exercise (holes, beginner): --exercise-id holes writes its
# skeleton, and its grader cases, as lab 03 lists them, reject a
# plausible wrong solution (tests/fixtures/exercise/03-holes-next-page.patch, to labs/03-holes.c:
# it frees only the page after each kept one and counts PAGES / STRIDE
# kept) although it passes the happy path, the kernel's view and the
# compaction included.  One guest: the grader is extracted from the lab,
# as t-exercises.sh does.  The solution passing every case is lab 03's
# own batch run in t-labs.sh.
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
export XDG_STATE_HOME="$work/state"
trap 'rm -rf "$work"' EXIT INT TERM

# The skeleton: both TODOs, neither solution.
ex=$work/ex
out=$("$UMKIT" lab 3 --exercise "$ex" --exercise-id holes --batch 2>&1); rc=$?
is "--exercise-id holes: the first run writes the skeleton (exit 0)" "$rc" 0
like "... and says how to grade it" "$out" \
	"is in $ex/03-holes.c: .*
  umkit lab 03-compaction --exercise $ex --exercise-id holes"
check "... with the buddyinfo TODO" grep -q 'TODO: a line is "Node 0, zone' "$ex/03-holes.c"
check "... and the freeing TODO" grep -q 'TODO: keep page 0, page STRIDE' "$ex/03-holes.c"
if grep -q 'MADV_DONTNEED) < 0\|blocks << order' "$ex/03-holes.c"; then
	not_ok "... and without the solution's code"
else ok "... and without the solution's code"; fi
like "the lab says the exercise's level" "$(grep -i 'exercise (beginner' "$TOP/labs/03-compaction.lab")" "beginner"

# The grader: lab 03's exercise with its cases as the lab lists them.
g=$work/g
mkdir -p "$g"
cp "$TOP/labs/03-holes.c" "$g/"
{
	printf 'title The grader of lab 03s exercise\nmemory 256M\ncpus 1\n'
	exercise_lines "$TOP/labs/03-compaction.lab" 03-holes.c
} > "$g/grader.lab"
check "the extracted grader lab is a lab" "$UMKIT" lab --check "$g/grader.lab"
check "the wrong solution (a patch) applies to the solution" patch -s -i "$TOP/tests/fixtures/exercise/03-holes-next-page.patch" \
	-o "$ex/03-holes.c" "$TOP/labs/03-holes.c"
out=$("$UMKIT" lab "$g/grader.lab" --exercise "$ex" --exercise-id holes --batch 2>&1); rc=$?
is "a wrong solution is rejected (exit 1)" "$rc" 1
like "... though it passes the happy path's counts" "$out" \
	"^ok [0-9]+ holes-frag: result\(holes.resident\) == 8192"
like "... its holes, in the kernel's view (no order-9 block formed)" "$out" \
	"^ok [0-9]+ holes-frag: result\(holes.high_after\) < result\(holes.high_touched\) \+ 1024"
like "... and the compaction that undoes them" "$out" \
	"^ok [0-9]+ holes-frag: result\(holes.c_high\) >= result\(holes.k_high\) \+ 0.5 \* result\(holes.freed\)"
if printf '%s\n' "$out" | grep -q '^not ok [0-9]* holes-frag'; then
	not_ok "... every check of the happy path" "$out"
else ok "... every check of the happy path"; fi
like "it fails the case with STRIDE 1" "$out" \
	"^not ok [0-9]+ holes-keepall: result\(holes.freed\) == 0"
like "... with the fail message and the values" "$out" \
	"^# STRIDE 1 keeps every page: nothing to free: result\(holes.freed\) == 0 is 4095, want == 0\$"
like "... and the hint" "$out" "^# hint: page i is kept when i % STRIDE == 0"
like "... and the case whose stride does not divide the pages" "$out" \
	"^not ok [0-9]+ holes-uneven: result\(holes.kept\) == 4"
like "... where the kernel maps the pages it kept" "$out" \
	"^# the kernel should map only pages 0, 3, 6 and 9: result\(holes.resident\) == 4 is 7, want == 4\$"
like "... and the case with STRIDE 4" "$out" \
	"^not ok [0-9]+ holes-quad: result\(holes.freed\) == 12288"
like "the empty mapping passes" "$out" "^ok [0-9]+ holes-empty: result\(holes.freed\) == 0"
like "the score counts this exercise's checks" "$out" "^# grader: passed [0-9]+/[0-9]+, "
no_leftovers "the exercise leaves nothing behind"
done_testing
