#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tui/bench.sh BINARY - make bench-tui: the TUI's cost on the fixture root.
#
# 1. Median time to update (read + parse every file of the view) and
#    render (draw + curses refresh) one frame at 200x60, per view: the TUI
#    runs --bench-frames 200 in a detached 200x60 tmux pane.  "replay" is
#    the compaction view replaying the captured fragment run
#    (tests/fixtures/compact) at its last event, the costliest to draw;
#    "compact-fx" the same view and root without the replay, for the
#    ratio (that root's kpageflags is twice the other's).
# 2. Host CPU at 10 Hz: the TUI runs normally with --interval 100 in a
#    200x60 pane for 10 s on each view (and the replay playing at 10
#    events/s); CPU = (utime + stime) from /proc/PID/stat over wall time.
# Targets: <= 2 ms per frame, <= 3% of one core at 10 Hz.
set -eu
cd "$(dirname "$0")/.."
TUI=${1:-build/bin/umkit-tui}
FX=$PWD/tests/fixtures/guest
CX=$PWD/tests/fixtures/compact
SOCK=umkit-bench-$$
SECS=${BENCH_SECS:-10}
export LANG=C.UTF-8 LC_ALL=C.UTF-8
out=$(mktemp)
trap 'tmux -L "$SOCK" kill-server 2>/dev/null || true; rm -f "$out"' EXIT INT TERM
hz=$(getconf CLK_TCK)

tmux -L "$SOCK" new-session -d -s b -x 200 -y 60 "sh"
tmux -L "$SOCK" set-option -t b status off >/dev/null
echo "bench-tui: fixture root $FX, 200x60 tmux pane"
for v in lru compaction counters overview compact-fx replay; do
	case $v in
	compact-fx) args="--root $CX --view compaction" ;;
	replay) args="--root $CX --replay-at 133" ;;	# the run's last event
	*) args="--root $FX --view $v" ;;
	esac
	: > "$out"
	tmux -L "$SOCK" send-keys -t b "$PWD/$TUI $args --bench-frames 200 2> $out; echo done-$v" Enter
	i=0
	until grep -q frames "$out" 2>/dev/null; do
		sleep 0.2; i=$((i + 1))
		[ $i -lt 300 ] || { echo "bench-tui: $v did not finish" >&2; exit 1; }
	done
	awk -v v="$v" '{ for (i = 1; i < NF; i++) f[$i] = $(i + 1) }
		END { printf "frame %-10s median %.3f ms  mean %.3f ms  max %.3f ms  (%s frames at %s, target <= 2 ms)\n",
			v, f["median_ms"], f["mean_ms"], f["max_ms"], f["frames"], f["size"] }' "$out"
	[ "$v" = compact-fx ] && base=$(sed -n 's/.*median_ms \([0-9.]*\).*/\1/p' "$out")
	[ "$v" = replay ] && sed -n 's/.*median_ms \([0-9.]*\).*/\1/p' "$out" |
		awk -v b="$base" '{ printf "replay / compact-fx median ratio %.2f (the replay'"'"'s own cost)\n", $1 / b }'
done
for v in lru compaction counters overview replay; do
	case $v in
	replay) args="--root $CX --replay-at 1" ;;	# p plays it, 10 events/s
	*) args="--root $FX --view $v" ;;
	esac
	tmux -L "$SOCK" send-keys -t b "clear; exec_tui() { $PWD/$TUI $args --interval 100; }; exec_tui" Enter
	shell=$(tmux -L "$SOCK" display -p -t b '#{pane_pid}')
	pid=
	i=0
	while [ -z "$pid" ] && [ $i -lt 50 ]; do
		pid=$(pgrep -P "$shell" -f "$TUI" | head -1 || true)
		sleep 0.1; i=$((i + 1))
	done
	[ -n "$pid" ] || { echo "bench-tui: TUI did not start" >&2; exit 1; }
	sleep 1
	# the run's 133 events at 10 a second outlast the measurement
	[ "$v" != replay ] || tmux -L "$SOCK" send-keys -t b p
	t0=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
	w0=$(date +%s.%N)
	sleep "$SECS"
	t1=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
	w1=$(date +%s.%N)
	tmux -L "$SOCK" send-keys -t b q
	awk -v v="$v" -v a="$t0" -v b="$t1" -v w0="$w0" -v w1="$w1" -v hz="$hz" 'BEGIN {
		cpu = (b - a) / hz; wall = w1 - w0;
		printf "cpu   %-10s %.2f%% of one core at 10 Hz  (%.2f s CPU in %.1f s, target <= 3%%)\n",
			v, 100 * cpu / wall, cpu, wall }'
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
done
