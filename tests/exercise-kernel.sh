#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make test-exercises: lab 02's kernel exercise graded end to end (six
# kernel builds, about a quarter of an hour, so not in make test): the
# skeleton (the body of apply_gen_move_batch() cut) builds and fails the
# checks, the completed file (the solution) builds and passes, and four
# wrong solutions, each leaving out one part of the three the TODO names
# (the generation sizes; protected[]; the active LRU size, either half),
# fail the grader case that guards that part and name it in their hint.
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
sol=$TOP/build/k/lru-batch/src/mm/vmscan.c
# wrong NAME SED-SCRIPT CASE HINT: the solution with SED-SCRIPT applied to
# apply_gen_move_batch() only; graded, it must fail case CASE (and no
# case of another part) with HINT in its output.
wrong() {
	sed "/^static void apply_gen_move_batch(/,/^}/{ $2 }" "$sol" > "$ex/vmscan.c"
	if cmp -s "$sol" "$ex/vmscan.c"; then
		not_ok "wrong solution $1: the edit changed nothing"; return
	fi
	out=$("$UMKIT" lab 2 --exercise "$ex" --batch 2>&1); rc=$?
	is "wrong solution $1: builds, boots and fails the lab (exit 1)" "$rc" 1
	like "wrong solution $1: the grader case $3 rejects it" "$out" \
		"^not ok [0-9]+ apply_gen_move_batch-$3: "
	like "wrong solution $1: ... with the hint for that part" "$out" "^# hint: $4"
	for c in sizes protected active; do
		[ "$c" = "$3" ] && continue
		case $1:$c in
		# without the generation sizes the protected moves are not
		# counted in lru_gen either: the active case fails too
		nr_pages:active) continue ;;
		esac
		if printf '%s\n' "$out" | grep -q "^not ok [0-9]* apply_gen_move_batch-$c: "; then
			not_ok "wrong solution $1: the case $c of another part passes" \
				"$(printf '%s\n' "$out" | grep -A3 "^not ok [0-9]* apply_gen_move_batch-$c: ")"
		else ok "wrong solution $1: the case $c of another part passes"; fi
	done
}
wrong nr_pages '/WRITE_ONCE(lrugen->nr_pages\[gen\]/,/delta);$/d; /WRITE_ONCE(lrugen->nr_pages\[old_gen\]/,/moved);$/d' \
	sizes 'add batch->nr_pages\[gen\]'
wrong protected '/WRITE_ONCE(lrugen->protected\[/,/protected\[tier\]);$/d' \
	protected 'add batch->protected\[tier\]'
wrong active-only '/__update_lru_size(lruvec, lru, zone, -promoted);/d' \
	active 'take them from the inactive size too'
wrong inactive-only '/__update_lru_size(lruvec, lru + LRU_ACTIVE, zone, promoted);/d' \
	active 'pages that went to an active generation'
printf 'syntax error\n' >> "$ex/vmscan.c"
out=$("$UMKIT" lab 2 --exercise "$ex" --batch 2>&1); rc=$?
is "a file that does not build: exit 2" "$rc" 2
like "... with the compiler's file:line" "$out" "vmscan.c:[0-9]+:[0-9]+: error"
no_leftovers "nothing left behind"
done_testing
