#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make test-exercises: lab 02's kernel exercise graded end to end (two
# kernel builds, a few minutes, so not in make test): the skeleton (the
# body of apply_gen_move_batch() cut) builds and fails the checks, the
# completed file (the solution) builds and passes.
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
export XDG_STATE_HOME="$work/state"
trap 'rm -rf "$work"' EXIT INT TERM
ex=$work/ex2
"$UMKIT" lab 2 --exercise "$ex" --batch > "$work/out" 2>&1
check "the skeleton is written" test -s "$ex/vmscan.c"
out=$("$UMKIT" lab 2 --exercise "$ex" --batch 2>&1); rc=$?
is "the skeleton's kernel builds, boots and fails the lab (exit 1)" "$rc" 1
like "the generation sizes are what it gets wrong" "$out" \
	"^not ok [0-9]+ batch: lru_gen.anon (>=|<=)"
cp "$TOP/build/k/lru-batch/src/mm/vmscan.c" "$ex/vmscan.c"
out=$("$UMKIT" lab 2 --exercise "$ex" --batch 2>&1); rc=$?
is "the completed file passes every check (exit 0)" "$rc:$(printf '%s\n' "$out" | grep -c '^not ok')" "0:0" ||
	printf '%s\n' "$out" | grep -A3 '^not ok' | sed 's/^/#   /'
printf 'syntax error\n' >> "$ex/vmscan.c"
out=$("$UMKIT" lab 2 --exercise "$ex" --batch 2>&1); rc=$?
is "a file that does not build: exit 2" "$rc" 2
like "... with the compiler's file:line" "$out" "vmscan.c:[0-9]+:[0-9]+: error"
no_leftovers "nothing left behind"
done_testing
