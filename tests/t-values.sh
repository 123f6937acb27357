#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# beside tests: the value layer on fixtures
# t-values.sh - build/bin/umkit-value, the CLI of the value layer, on the
# fixture root: "SPEC VALUE" lines, one error line per bad spec and exit
# 1, --check without reading, --files, and --history over a recording
# with one aging and one eviction.
. "$(dirname "$0")/lib.sh"

V=$TOP/build/bin/umkit-value
FX=$TOP/tests/fixtures/guest
if [ ! -x "$V" ]; then
	not_ok "umkit-value is built" "missing $V (make)"
	done_testing
	exit 1
fi

out=$("$V" "$FX" lru_gen.max_seq 'zoneinfo[Normal].free' 'extfrag[Normal].0' 2>&1); rc=$?
is "values print as 'SPEC VALUE' lines" "$rc:$out" "0:lru_gen.max_seq 5
zoneinfo[Normal].free 27094
extfrag[Normal].0 -1"
out=$("$V" "$FX" vmstat.pgfault lru_gen.max_sq 2>&1 >/dev/null); rc=$?
is "a bad spec: exit 1, one line naming it" "$rc:$out" \
	"1:umkit-value: lru_gen.max_sq: unknown field 'max_sq' (want max_seq, min_seq, gens, anon, file, memcg)"
out=$("$V" "$FX" vmstat.pgfault lru_gen.max_sq 2>/dev/null)
like "the good specs are still printed" "$out" '^vmstat\.pgfault [0-9]+$'
out=$("$V" /nonexistent-umkit vmstat.pgfault 2>&1); rc=$?
is "a missing root: exit 1" "$rc:$out" "1:umkit-value: /nonexistent-umkit: No such file or directory"
out=$("$V" --check 'lru_gen[memcg=1,node=0].max_seq' 'psi[some].avg10' 2>&1); rc=$?
is "--check accepts good specs silently" "$rc:$out" "0:"
out=$("$V" --check 'psi[half].avg10' 2>&1); rc=$?
is "--check names a bad one" "$rc:$out" "1:umkit-value: psi[half].avg10: 'half' (want some or full)"
out=$("$V" 2>&1); rc=$?
like "no arguments: usage, exit 2" "$rc:$out" "^2:usage: umkit-value ROOT SPEC"
missing=
for f in $("$V" --files); do
	grep -qxF "$f" "$TOP/uml/link/record.files" || missing="$missing $f"
done
is "every file --files lists is recorded (uml/link/record.files)" "$missing" ""

# a recording: snapshot 1 is one aging later (generation 6 new, 2 gone)
rec=$(mktemp -d)
trap 'rm -rf "$rec"' EXIT
mkdir -p "$rec/snap"
printf 'umkit-recording 1\nsource %s\nevery_ms 1000\nstarted_unix_ms 1700000000000\n' "$FX" > "$rec/umkit-recording"
for s in 000000 000001; do
	mkdir -p "$rec/snap/$s/sys/kernel/debug"
	cp "$FX/sys/kernel/debug/lru_gen" "$rec/snap/$s/sys/kernel/debug/"
done
awk '/^ +2 / { next } { print } END { printf " %10d %10d %10d  %10d \n", 6, 0, 120, 0 }' \
	"$FX/sys/kernel/debug/lru_gen" > "$rec/snap/000001/sys/kernel/debug/lru_gen"
printf '000000 1700000000000 0\n000001 1700000001000 1000\n' > "$rec/index"
is "--history over a recording: one aging, one eviction" "$("$V" --history "$rec" 2>&1)" \
	"snapshots 2
agings 1
evictions 1"
is "--history over two roots in order" \
	"$("$V" --history "$rec/snap/000000" "$rec/snap/000001" 2>&1 | tr '\n' ' ')" \
	"snapshots 2 agings 1 evictions 1 "
is "a recording's snapshot is a root" "$("$V" "$rec/snap/000001" lru_gen.max_seq lru_gen.min_seq 2>&1 | tr '\n' ' ')" \
	"lru_gen.max_seq 6 lru_gen.min_seq 3 "
out=$("$V" "$rec" lru_gen.max_seq 2>&1); rc=$?
is "a whole recording is not a root" "$rc:$out" \
	"1:umkit-value: $rec is a recording: name one snapshot, $rec/snap/SEQ"

done_testing
