#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# t-tui-replay.sh - the compaction view's replay of a run from the trace
# buffer: --dump --replay-at on the captured fragment-and-compact run
# (tests/fixtures/compact: its totals against the fragment workload's own
# report, the scanners closing in, the strip with a partial kpageflags),
# on the jiffies-clock fixture, a trace-only root, two runs, a recording
# and bad input; then the real TUI in tmux stepping and playing through
# the run; then a live guest's mirror after a fragment --compact run.
. "$(dirname "$0")/lib.sh"

TUI=$TOP/build/bin/umkit-tui
FX=$TOP/tests/fixtures/compact
GX=$TOP/tests/fixtures/guest
if [ ! -x "$TUI" ]; then
	not_ok "umkit-tui is built" "missing $TUI (make build/bin/umkit-tui)"
	done_testing
	exit 1
fi
export LANG=C.UTF-8 LC_ALL=C.UTF-8
unset NO_COLOR
work=$(mktemp -d)
SOCK=umkit-tui-replay-$$
NAME=tui-replay-$$
tm() { tmux -L "$SOCK" "$@"; }
cleanup() {
	tm kill-server 2>/dev/null
	[ -x "$UMKIT" ] && "$UMKIT" stop "$NAME" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

at() { "$TUI" --root "$FX" --dump --replay-at "$@" 2>&1; }
# report KEY: KEY=N from the fragment workload's report of the run
report() { tr ' ' '\n' < "$FX/fragment.out" | sed -n "s/^$1=//p"; }
# field LABEL TEXT: the number after "LABEL " on the M (or F) row
mrow() { printf '%s\n' "$2" | sed -n "s/.*M migrate pfn.* $1 \([0-9]*\).*/\1/p"; }
frow() { printf '%s\n' "$2" | sed -n "s/.*F free pfn.* $1 \([0-9]*\).*/\1/p"; }
# marks TEXT: the row beneath the strip (the first row holding an M)
marks() { printf '%s\n' "$1" | sed -n 3,6p | grep -m1 'M'; }
col() { printf '%s\n' "$2" | awk -v c="$1" '{ print index($0, c) }'; }

# --- the captured run, event by event ------------------------------------
out=$(at 1)
like "event 1: where the student is" "$out" "^replay: event 1 of 133, t=0\.000ms into the run$"
like "event 1: the begin event" "$out" "now: begin: sync, zone 0-0x10000, migrate from 0, free from 0xfc00"
like "event 1: migrate scanner at the zone start, free scanner at its last block" \
	"$(marks "$out")" "^M {62}F$"
like "event 1: nothing counted yet" "$out" "M migrate pfn 0 +scanned 0 +isolated 0 +migrated 0"
like "event 1: partial kpageflags: the strip still draws, half unread" "$out" \
	"^█+▒+\?{32}$"
like "event 1: the partial map is said" "$out" "kpageflags: read 32768 of 65536 pages"
like "event 1: the keys are shown" "$out" "paused, 10 events/s +\. , step +p play +\{ \} speed"

# the scanners close in, the counts grow, the time runs on
pm=0 pf=99 ps=-1 pt=-1
for i in 30 60 90 133; do
	out=$(at $i --ascii)	# ASCII: one byte a column
	m=$(marks "$out")
	mc=$(col M "$m") fc=$(col F "$m") s=$(mrow scanned "$out")
	t=$(printf '%s\n' "$out" | sed -n 's/.*, t=\([0-9]*\)\.[0-9]*ms into the run.*/\1/p')
	[ "$i" = 133 ] && fc=$mc	# they met: F under M
	if [ "$mc" -gt "$pm" ] && [ "$fc" -lt "$pf" ] && [ "$mc" -le "$fc" ] &&
	    [ "$s" -gt "$ps" ] && [ "$t" -ge "$pt" ]; then
		ok "event $i: M at column $mc, F at $fc, $s pages scanned, t=${t}ms: closer, more, later"
	else
		not_ok "event $i: scanners closer, counts larger, time later" \
			"M $mc (was $pm) F $fc (was $pf) scanned $s (was $ps) t $t (was $pt)" "$out"
	fi
	pm=$mc pf=$fc ps=$s pt=$t
done
out=$(at 60)
like "event 60: blocks the migrate scanner scanned, then M, nothing, F, the free scanner's" \
	"$(marks "$out")" "^[─═]{14}M {16}F┄+═+$"
like "event 60: the free scanner passed over free pageblocks without scanning" \
	"$(marks "$out")" "F┄{29}═{3}$"
like "event 60: what the event did" "$out" "now: migratepages: migrated 211, failed 0"
like "legend for the replay marks" "$out" "─ scanned  ═ pages isolated  ┄ passed over, not scanned"

# at the end: the totals are the workload's own (vmstat deltas over its run)
out=$(at 133)
like "event 133: the end, 82 ms into the run" "$out" \
	"replay: event 133 of 133, t=82\.150ms into the run"
like "event 133: the end event" "$out" "now: end: status complete, migrate at 0x6800, free at 0x6bb8"
is "event 133: migrate scanner scanned what fragment reported" \
	"$(mrow scanned "$out")" "$(report migrate_scanned)"
is "event 133: free scanner scanned what fragment reported" \
	"$(frow scanned "$out")" "$(report free_scanned)"
is "event 133: both scanners isolated what fragment reported" \
	"$(( $(mrow isolated "$out") + $(frow isolated "$out") ))" "$(report isolated)"
last=$("$TUI" --root "$FX" --dump=compaction)
is "event 133: the same counts as the view's last run" \
	"$(printf '%s\n' "$out" | grep -E '^  [MF] ')" "$(printf '%s\n' "$last" | grep -E '^  [MF] ')"
like "event 133: at the end" "$out" "at the end, 10 events/s"

out=$(at 60 --ascii)
like "ascii: marks in ASCII" "$(marks "$out")" "^[-=]{14}M {16}F\.{29}={3}$"
is "ascii: only ASCII bytes" "$(printf '%s' "$out" | LC_ALL=C grep -c '[^ -~]')" 0
out=$(at 60 --cols 200 --rows 60)
like "200x60: three columns a block, the marks too" "$(marks "$out")" "^[─═]{42}M +═F═┄+═{9}$"
is "200x60: 60 lines" "$(printf '%s\n' "$out" | wc -l | tr -d ' ')" 60

# --- the jiffies-clock fixture: its one run, said to be coarse -------------
out=$("$TUI" --root "$GX" --dump --replay-at 64)
like "jiffies fixture: last event 30 ms into the run" "$out" \
	"replay: event 64 of 64, t=30\.000ms into the run"
like "jiffies fixture: 10 ms ticks said, with the remedy" "$out" \
	"times in 10 ms ticks \(trace_clock local\): echo mono > tracing/trace_clock"
is "jiffies fixture: the same counts as the view's last run" \
	"$(printf '%s\n' "$out" | grep -E '^  [MF] ')" \
	"$("$TUI" --root "$GX" --dump=compaction | grep -E '^  [MF] ')"
out=$(at 1)
is "mono fixture: no coarse-clock note" "$(printf '%s\n' "$out" | grep -c '10 ms ticks')" 0

# --- a root with the trace only: the begin event gives the zone -------------
mkdir -p "$work/only/sys/kernel/tracing"
cp "$FX/sys/kernel/tracing/trace" "$work/only/sys/kernel/tracing/"
out=$("$TUI" --root "$work/only" --dump --replay-at 60 2>&1)
like "trace only: the run's zone from its begin" "$out" \
	"^Run's zone \(no zoneinfo\) +pfn 0-0x10000 256\.0M, 64 blocks of 1024 pages"
like "trace only: a strip of unread blocks" "$out" "^\?{64}$"
like "trace only: the marks drawn on it" "$out" "^[─═]{14}M {16}F┄+═+$"
like "trace only: what is missing is said" "$out" "proc/kpageflags: not readable"

# --- two runs in one buffer --------------------------------------------------
mkdir -p "$work/two/sys/kernel/tracing" "$work/two/proc"
cp "$FX/proc/zoneinfo" "$FX/proc/pagetypeinfo" "$work/two/proc/"
{ grep -v '^#' "$GX/sys/kernel/tracing/trace"; grep -v '^#' "$FX/sys/kernel/tracing/trace"; } \
	> "$work/two/sys/kernel/tracing/trace"
out=$("$TUI" --root "$work/two" --dump --replay-at 1:64 2>&1)
like "two runs: the first run's end" "$out" "replay: event 64 of 64, t=30\.000ms into the run  \(run 1 of 2\)"
like "two runs: ( ) listed" "$out" "\( \) run"
out=$("$TUI" --root "$work/two" --dump --replay-at 5 2>&1)
like "two runs: without RUN: the last run" "$out" "replay: event 5 of 133, .*\(run 2 of 2\)"

# --- a recording ---------------------------------------------------------------
mkdir -p "$work/rec/snap"
printf 'umkit-recording 1\nsource %s\nevery_ms 1000\nstarted_unix_ms 1700000000000\n' "$FX" \
	> "$work/rec/umkit-recording"
cp -r "$FX" "$work/rec/snap/000000"
printf '000000 1700000000000 0\n' > "$work/rec/index"
out=$("$TUI" --root "$work/rec" --dump --replay-at 40 2>&1)
like "recording: replays from the snapshot's trace" "$out" "replay: event 40 of 133, t=31\.068ms"
like "recording: status line says recording" "$out" "recording 1/1"

# --- bad input: one line naming the option ------------------------------------
for a in "999|event 999: run 1 has events 1\.\.133" "1:200|event 200: run 1 has events 1\.\.133" \
	 "2:1|run 2: the trace buffer has 1 run" "x|'x' is not \[RUN:\]EVENT" \
	 "0|'0' is not \[RUN:\]EVENT" "1:|'1:' is not \[RUN:\]EVENT"; do
	arg=${a%%|*} want=${a#*|}
	out=$("$TUI" --root "$FX" --dump --replay-at "$arg" 2>&1); rc=$?
	like "--replay-at $arg: exit 1, one line" "$rc:$(printf '%s\n' "$out" | wc -l | tr -d ' '):$out" \
		"^1:1:umkit-tui: --replay-at:? ?($arg: )?$want"
done
out=$("$TUI" --root "$FX" --dump=lru --replay-at 3 2>&1); rc=$?
like "--replay-at with another view: an error" "$rc:$out" \
	"^1:umkit-tui: --replay-at: the compaction view replays, not the lru view$"
mkdir -p "$work/none/sys/kernel/tracing"
grep -v 'mm_compaction_begin' "$FX/sys/kernel/tracing/trace" > "$work/none/sys/kernel/tracing/trace"
out=$("$TUI" --root "$work/none" --dump --replay-at 1 2>&1); rc=$?
like "--replay-at with no begin in the buffer: said so" "$rc:$out" \
	"^1:umkit-tui: --replay-at 1: no compaction run in the trace buffer"

# --- interactive, in tmux ------------------------------------------------------
if ! command -v tmux >/dev/null; then
	skip "tmux replay tests" "tmux not installed"
	done_testing
	exit
fi
tm new-session -d -s t -x 80 -y 24 "env -u TMUX sh"
tm set-option -t t status off >/dev/null
tm send-keys -t t "$TUI --root $FX --view compaction; echo tui-exit=\$?" Enter
wait_for "scan efficiency 308\.4%"
step "tmux: R starts the replay at the run's first event" "replay: event 1 of 133" R
step "tmux: . steps forward" "replay: event 4 of 133" . . .
like "tmux: the event said" "$screen" "now: isolate_freepages 0xfc00-0xfc2c: scanned 44, isolated 33"
step "tmux: , steps back" "replay: event 3 of 133" ,
step "tmux: > jumps to the end" "replay: event 133 of 133, t=82\.150ms" ">"
like "tmux: at the end" "$screen" "at the end, 10 events/s"
step "tmux: < jumps to the start" "replay: event 1 of 133" "<"
step "tmux: } plays faster" "paused, 20 events/s" "}"
step "tmux: { plays slower" "paused, 5 events/s" "{" "{"
step "tmux: } three times: 50 events/s" "paused, 50 events/s" "}" "}" "}"
step "tmux: p plays" "playing, 50 events/s" p
if poll_screen "^replay: event ([2-9]|[1-9][0-9]|1[0-2][0-9]|13[0-2]) of 133" 100; then
	ok "tmux: playing moves on by itself: $(printf '%s\n' "$screen" | grep '^replay: event')"
else
	not_ok "tmux: playing moves on by itself" "$screen"
fi
if poll_screen "at the end, 50 events/s" 100; then
	ok "tmux: playing reaches the end by itself"
else
	not_ok "tmux: playing reaches the end by itself" "$screen"
fi
like "tmux: and stops at the last event" "$screen" "replay: event 133 of 133"
step "tmux: p at the end plays again from the start" "playing, 50 events/s" p
step "tmux: space pauses" "paused, 50 events/s" " "
step "tmux: ? lists the replay keys" "R replay the runs in the trace" "?"
step "tmux: ? goes back to the replay" "replay: event [0-9]+ of 133" "?"
step "tmux: R leaves the replay" "last run: sync ended at 4\.036s" R
step "tmux: q quits" "tui-exit=0" q
tm send-keys -t t "clear; $TUI --root $work/none --view compaction; echo tui-exit=\$?" Enter
wait_for "scan efficiency"
step "tmux: R without a run in the buffer says so" \
	"replay: no compaction run in the trace buffer" R
step "tmux: q quits" "tui-exit=0" q
tm kill-server 2>/dev/null

# --- a live guest's mirror -----------------------------------------------------
if [ ! -x "$UMKIT" ]; then
	skip "replay on a live mirror" "umkit not built"
	done_testing
	exit
fi
MNT=$RUN/$NAME/mnt
if ! out=$("$UMKIT" start -n "$NAME" 2>&1); then
	not_ok "umkit start -n $NAME" "$out"
	done_testing
	exit 1
fi
T=$MNT/sys/kernel/tracing
if echo mono > "$T/trace_clock" && echo 1 > "$T/events/compaction/enable"; then
	ok "live: trace clock and compaction events set through the mirror"
else
	not_ok "live: trace clock and compaction events set through the mirror"
fi
frag=$("$UMKIT" exec "$NAME" -- fragment --size 64M --keep 25 --pin 5 --compact 2>&1)
like "live: fragment compacted" "$frag" "^fragment: .*migrate_scanned=[0-9]+"
out=$("$TUI" --root "$MNT" --dump --replay-at 1 2>&1)
like "live: the run replays from the mirror's trace" "$out" "^replay: event 1 of [0-9]+, t=0\.000ms"
n=$(printf '%s\n' "$out" | sed -n 's/^replay: event 1 of \([0-9]*\),.*/\1/p')
out=$("$TUI" --root "$MNT" --dump --replay-at "${n:-1}" 2>&1)
like "live: its last event is the end" "$out" "now: end: status"
want=$(printf '%s\n' "$frag" | tr ' ' '\n' | sed -n 's/^migrate_scanned=//p')
is "live: the replay's migrate scanned is fragment's own" "$(mrow scanned "$out")" "$want"
is "live: microsecond times (trace_clock mono)" "$(printf '%s\n' "$out" | grep -c '10 ms ticks')" 0
"$UMKIT" stop "$NAME" >/dev/null 2>&1
no_leftovers "live: nothing left behind"
done_testing
