#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# beside tests: the TUI on its own guest's mirror
# t-tui-live.sh - umkit-tui on a running guest's mirror (run/NAME/mnt):
# the LRU view shows the guest's generations, and after an aging command
# (echo "+ MEMCG NODE MAX_SEQ 1 1" > /sys/kernel/debug/lru_gen, run in the
# guest) it shows one more generation, marked as aged; the other views
# draw from the live files; nothing is left behind.
. "$(dirname "$0")/lib.sh"

TUI=$TOP/build/bin/umkit-tui
NAME=tui-live-$$
MNT=$RUN/$NAME/mnt
export LANG=C.UTF-8 LC_ALL=C.UTF-8

if [ ! -x "$UMKIT" ] || [ ! -x "$TUI" ]; then
	skip "live TUI on a guest mirror" "umkit or umkit-tui not built"
	done_testing
	exit 0
fi
if ! command -v tmux >/dev/null; then
	skip "live TUI on a guest mirror" "tmux not installed"
	done_testing
	exit 0
fi
SOCK=umkit-tui-live-$$
tm() { tmux -L "$SOCK" "$@"; }
cleanup() {
	tm kill-server 2>/dev/null
	"$UMKIT" stop "$NAME" >/dev/null 2>&1
}
trap cleanup EXIT INT TERM

if ! out=$("$UMKIT" start -n "$NAME" 2>&1); then
	not_ok "umkit start -n $NAME" "$out"
	done_testing
	exit 1
fi
ok "guest $NAME started with its mirror"

# the root memcg's seqs on node 0, through the value layer
V=$TOP/build/bin/umkit-value
set -- $("$V" "$MNT" 'lru_gen[memcg=/,node=0].memcg' 'lru_gen[memcg=/,node=0].min_seq' \
	'lru_gen[memcg=/,node=0].max_seq' 2>&1)
memcg=$2 min=$4 max=$6
like "mirror: lru_gen has generations" "$memcg $min $max" "^[0-9]+ [0-9]+ [0-9]+$"

tm new-session -d -s t -x 100 -y 30 "env -u TMUX sh"
tm set-option -t t status off >/dev/null
tm send-keys -t t "$TUI --root $MNT --interval 200; echo tui-exit=\$?" Enter
if poll_screen "gens $min\.\.$max" 80; then ok "live: LRU view shows gens $min..$max"
else not_ok "live: LRU view shows gens $min..$max" "$screen"; fi
# (under load an error may share the line: the path's start gives way)
like "live: status line says live" "$screen" "live .*$NAME/mnt \| every 200ms"

# age once, in the guest
if out=$("$UMKIT" exec "$NAME" -- sh -c "echo '+ $memcg 0 $max 1 1' > /sys/kernel/debug/lru_gen" 2>&1); then
	ok "aging command ran in the guest"
else
	not_ok "aging command ran in the guest" "$out"
fi
new=$((max + 1))
if poll_screen "gens [0-9]+\.\.$new" 80; then ok "live: one more generation after aging (max seq $new)"
else not_ok "live: one more generation after aging (max seq $new)" "$screen"; fi
like "live: the new generation is marked as aged" "$screen" "^ +$new +[0-9.]+m?s +aged \+1"
like "live: the aging is counted" "$screen" "agings seen 1,"

tm send-keys -t t 2
if poll_screen "Node 0 zone Normal +pfn" 80; then ok "live: compaction view maps the zone"
else not_ok "live: compaction view maps the zone" "$screen"; fi
tm send-keys -t t 3
if poll_screen "umkit-agent" 80; then ok "live: counters view lists guest processes"
else not_ok "live: counters view lists guest processes" "$screen"; fi
tm send-keys -t t 4
if poll_screen "MemTotal [0-9]+ kB" 80; then ok "live: overview shows meminfo"
else not_ok "live: overview shows meminfo" "$screen"; fi
tm send-keys -t t q
if poll_screen "tui-exit=0" 80; then ok "live: q quits"; else not_ok "live: q quits" "$screen"; fi

# the guest goes away under the running TUI: it must keep running and say so
tm send-keys -t t "clear; $TUI --root $MNT --view overview --interval 200; echo tui-exit=\$?" Enter
wait_for "MemTotal [0-9]+ kB" 80
# First the guest dies (the mirror stays mounted and answers EIO)...
kill -KILL "$(cat "$RUN/$NAME/uml.pid")"
if poll_screen "guest not responding" 50; then
	ok "live: a dead guest shows 'guest not responding'"
else
	not_ok "live: a dead guest shows 'guest not responding'" "$screen"
fi
# ...then it is stopped and the mirror unmounted.
"$UMKIT" stop "$NAME" >/dev/null 2>&1
if poll_screen "not readable|not responding|Transport endpoint|No such" 50; then
	ok "live: a stopped guest is reported in the TUI"
else
	not_ok "live: a stopped guest is reported in the TUI" "$screen"
fi
tm send-keys -t t q
if poll_screen "tui-exit=0" 80; then ok "live: q still quits after the guest stopped"
else not_ok "live: q still quits after the guest stopped" "$screen"; fi
tm kill-server 2>/dev/null
no_leftovers "nothing left behind"
done_testing
