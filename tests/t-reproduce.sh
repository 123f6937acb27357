#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# beside tests: operands and stored runs; boots nothing
# umkit reproduce without boots: bad operands are refused before any
# boot; a stored run (--json, read back with --from) gives the same
# table, KTAP and JSON; a file that is not one of this kit's is named
# with where it goes wrong.  The seeds' runs themselves, booted, are
# t-labs': each seed lab's reproduce step runs its seed's --quick run
# and keeps it, and t-labs checks every seed's table on those runs
# (tests/lib-reproduce.sh).
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
fx=$TOP/tests/fixtures/reproduce/003-quick.json

"$UMKIT" reproduce 9 > "$tmp/o" 2>&1
is "an unknown seed: exit 125" "$?" 125
like "an unknown seed is named" "$(cat "$tmp/o")" "no seed '9' \(000 to 004, or all\)"
"$UMKIT" reproduce 002 -n 1 > "$tmp/o" 2>&1
is "-n 1: exit 125" "$?" 125
like "-n 1 is refused with the range" "$(cat "$tmp/o")" "-n 1: want a number of boots from 2 to 50"
"$UMKIT" reproduce 002 --json /nonexistent/dir/r.json > "$tmp/o" 2>&1
like "--json into a directory that is not there: refused before any boot" \
	"$?:$(cat "$tmp/o")" "^125:umkit: --json /nonexistent/dir/r.json: cannot write there"

# A stored run: seed 003's --quick run on this host (the file is its
# --json), read back.
"$UMKIT" reproduce --from "$fx" --results > "$tmp/table" 2>&1
is "--from a stored run: exit 0" "$?" 0
like "--from: the seed's table, the thread's figures beside the kit's" "$(cat "$tmp/table")" \
	"^  separate \(two notifiers\) 1\.539957250 \+66\.9% +583\.0 ± 73\.8 \(2\) +\+56\.0% \[-118\.0, \+229\.9\]"
like "--from: the run's facts, and where it was read" "$(cat "$tmp/table")" \
	"^        uml-walk, 1 boot \(--quick\) in 29 s on vm, .*
        \(a stored run, read from $fx\)$"
like "--from: the results line a lab reads" "$(cat "$tmp/table")" \
	"^reproduce: aging_idle_ms_combined=373\.839 .* idle_test_calls_separate=16394 "
"$UMKIT" reproduce 003 --from "$fx" --from "$fx" --ktap --json "$tmp/two.json" \
	> "$tmp/ktap" 2> "$tmp/err"
is "--from twice, --ktap: exit 0" "$?" 0
is "--from twice: a KTAP subtest each" \
	"$(grep -E '^(KTAP|1\.\.|(not )?ok)' "$tmp/ktap" | tr '\n' ' ')" "KTAP version 1 1..2 ok 1 seed-003 ok 2 seed-003 "
is "--from twice: the tables on stderr" "$(grep -c '^== seed 003:' "$tmp/err")" 2
"$UMKIT" reproduce --from "$tmp/two.json" > "$tmp/again" 2>&1
is "--json of a stored run reads back as the same tables" \
	"$(grep -v 'a stored run, read from' "$tmp/again" | md5sum)" \
	"$( (grep -v 'a stored run, read from' "$tmp/table" | grep -v '^reproduce:'
	     grep -v 'a stored run, read from' "$tmp/table" | grep -v '^reproduce:') | md5sum)"
"$UMKIT" reproduce 002 --from "$fx" > "$tmp/o" 2>&1
like "--from with another SEED: none there, named" "$?:$(cat "$tmp/o")" \
	"^125:umkit: --from $fx: no run of seed 002$"
"$UMKIT" reproduce --from "$fx" --quick > "$tmp/o" 2>&1
like "--from with --quick (a new run's): refused" "$?:$(cat "$tmp/o")" \
	"^125:umkit: --quick is for a new run: not with --from"

# Files that are not stored runs of this kit: exit 125, the file and the
# place named, nothing on stdout.
bad() {
	"$UMKIT" reproduce --from "$2" > "$tmp/o" 2> "$tmp/e"
	rc=$?
	like "--from $1: exit 125, named" "$rc:$(cat "$tmp/e")" "^125:umkit: --from $3"
	is "--from $1: no table" "$(cat "$tmp/o")" ""
}
bad "a directory" "$tmp" "$tmp: not a regular file$"
bad "a missing file" "$tmp/none" "$tmp/none: No such file or directory$"
printf '[{"format": 1,\n "seed": ' > "$tmp/cut.json"
bad "a cut file" "$tmp/cut.json" "$tmp/cut.json: line 2: not JSON "
sed 's/"key": "aging_cold_ms"/"key": "aging_hot_ms"/' "$fx" > "$tmp/row.json"
bad "another kit's rows" "$tmp/row.json" \
	"$tmp/row.json: entry 1 \(seed 003\): row 3 is not the kit's 'lru_gen: Aging again, nothing accessed \(x86\)' \(aging_cold_ms\)"
awk '/"samples": \[/ && !d { print; print "  \"1e999\","; d = 1; next } 1' "$fx" > "$tmp/inf.json"
bad "a sample that is not a number" "$tmp/inf.json" \
	"$tmp/inf.json: entry 1 \(seed 003\): row 1 \(aging_idle_ms\), column 1: sample 1 is not a finite number"
sed 's/"seed": "003"/"seed": "007"/' "$fx" > "$tmp/seed.json"
bad "an unknown seed" "$tmp/seed.json" "$tmp/seed.json: entry 1: no seed '007' in this kit"
head -c $((64 * 1024 * 1024 + 1)) /dev/zero > "$tmp/big.json"
bad "a file past 64 MiB" "$tmp/big.json" "$tmp/big.json: larger than 64 MiB"
rm -f "$tmp/big.json"
mkfifo "$tmp/fifo"
bad "a FIFO (never opened for a read that blocks)" "$tmp/fifo" "$tmp/fifo: not a regular file"
i=0 args=
while [ $i -lt 9 ]; do args="$args --from $fx"; i=$((i + 1)); done
# shellcheck disable=SC2086
"$UMKIT" reproduce $args > "$tmp/o" 2>&1
like "nine --from files: refused, named" "$?:$(cat "$tmp/o")" "^125:umkit: --from $fx: at most 8 files"
no_leftovers "nothing left after the runs"
done_testing
