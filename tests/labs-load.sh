#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make test-labs-load: the six labs in batch at once, ROUNDS times in a
# row (default 10; about 100 s a round on 2 cores), as a class sharing a
# host runs them.  Every round must pass every check of every lab; a
# failing check is printed with its values.  make test runs one such
# round (tests/t-labs.sh).
#
#   ROUNDS=N   the rounds
. "$(dirname "$0")/lib.sh"

rounds=${ROUNDS:-10}
case $rounds in
[1-9]|[1-9][0-9]) ;;
*) echo "labs-load: ROUNDS wants a number from 1 to 99" >&2; exit 2 ;;
esac
work=$(mktemp -d)
export XDG_STATE_HOME="$work/state"
trap 'rm -rf "$work"' EXIT INT TERM

r=1 passed=0
while [ $r -le "$rounds" ]; do
	t0=$(date +%s)
	for f in "$TOP"/labs/*.lab; do
		n=$(basename "$f" .lab)
		("$UMKIT" lab "$n" --batch > "$work/$n.out" 2>&1; echo $? > "$work/$n.rc") &
	done
	wait
	t1=$(date +%s) bad=
	for f in "$TOP"/labs/*.lab; do
		n=$(basename "$f" .lab)
		[ "$(cat "$work/$n.rc")" = 0 ] && continue
		bad="$bad $n"
		# the checks that failed, and what umkit itself said (a guest
		# that did not come up, with its console's last lines)
		grep -A4 '^not ok' "$work/$n.out" | sed "s/^/#   $n: /"
		grep -A9 '^umkit: ' "$work/$n.out" | sed "s/^/#   $n: /"
	done
	if [ -z "$bad" ]; then
		ok "round $r: the six labs at once pass every check ($((t1 - t0)) s)"
		passed=$((passed + 1))
	else not_ok "round $r: the six labs at once pass every check ($((t1 - t0)) s)" "failed:$bad"; fi
	r=$((r + 1))
done
echo "# labs-load: $passed of $rounds rounds passed, host load $(cut -d' ' -f1-3 /proc/loadavg)"
no_leftovers "the rounds leave no guest, mount or run/ entry"
done_testing
