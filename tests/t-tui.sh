#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# beside tests: the TUI on fixtures, in its own tmux
# t-tui.sh - umkit-tui against the captured fixture root
# (tests/fixtures/guest): --dump of every view at 80x24 and 200x60, then
# the real TUI driven in tmux (keys, help, resize, quit, signals, the
# terminal state afterwards), and a recording stepped through.
. "$(dirname "$0")/lib.sh"

TUI=$TOP/build/bin/umkit-tui
FX=$TOP/tests/fixtures/guest
if [ ! -x "$TUI" ]; then
	not_ok "umkit-tui is built" "missing $TUI (make build/bin/umkit-tui)"
	done_testing
	exit 1
fi
export LANG=C.UTF-8 LC_ALL=C.UTF-8
unset NO_COLOR

dump() { "$TUI" --root "$FX" "$@" 2>&1; }

# --- --dump, every view ------------------------------------------------------
for v in lru compaction counters overview help; do
	out=$(dump --dump=$v)
	is "dump $v: 24 lines at 80x24" "$(printf '%s\n' "$out" | wc -l | tr -d ' ')" 24
	w=$(printf '%s\n' "$out" | wc -L | tr -d ' ')
	like "dump $v: no line wider than 80 columns ($w)" "$w" '^([0-9]|[1-7][0-9]|80)$'
	like "dump $v: status line names the root" "$(printf '%s\n' "$out" | tail -1)" \
		"root .*tests/fixtures/guest \| every 1000ms"
	out=$(dump --dump=$v --cols 200 --rows 60)
	is "dump $v: 60 lines at 200x60" "$(printf '%s\n' "$out" | wc -l | tr -d ' ')" 60
done

out=$(dump --dump=lru)
like "lru: tab bar" "$out" "1 LRU generations  2 Compaction  3 Counters  4 Overview"
like "lru: enabled bits and min_ttl_ms from sysfs" "$out" "enabled 0x0001 \(on, no A-bit walk\)  min_ttl_ms 0"
like "lru: memcg, node and generation range" "$out" "memcg 1 /  node 0  gens 2\.\.5"
like "lru: generation 2 with 23228 anon pages, 1 file page" "$out" "^ +2 +2\.3s +█+ +23228 +1 "
like "lru: generation 4 with 3487 anon pages, 150ms old" "$out" "^ +4 +150ms +█+[▏▎▍▌▋▊▉]? +3487 +0 "
out=$(dump --dump=lru --cols 200 --rows 60)
like "lru 200x60: page counts with sizes" "$out" "^ +2 +2\.3s +█+ +23228 +90\.7M +1 +4k "
out=$(dump --dump=lru --cols 200 --rows 60 --ascii)
like "lru ascii: bars drawn with #" "$out" "^ +2 +2\.3s +#+ +23228 +90\.7M"
is "lru ascii: only ASCII bytes" "$(printf '%s' "$out" | LC_ALL=C grep -c '[^ -~]')" 0

out=$(dump --dump=compaction)
like "compaction: zone span and pageblocks" "$out" "Node 0 zone Normal  pfn 0-0x10000 256\.0M, 64 blocks of 1024 pages"
like "compaction: scan efficiency 10240/15944" "$out" "scan efficiency 64\.2% \(10240 migrate / 15944 free scanned\)"
like "compaction: last run from the trace" "$out" "last run: sync ended at 2\.150s, status complete"
like "compaction: migrate scanner position" "$out" "M migrate pfn 0x2800 +scanned 10240 +isolated 4450"
like "compaction: free scanner position" "$out" "F free pfn +0x2800 +scanned 15944 +isolated 2841"
like "compaction: kpageflags prefix reported" "$out" "kpageflags: read 16384 of 65536 pages"
like "compaction: strip shows unmovable then movable blocks" "$out" "^█{10}▒{6}\?{48}$"
like "compaction: scanners met at block 10" "$out" "^─{10}M─{53}$"
out=$(dump --dump=compaction --cols 200 --rows 60)
like "compaction 200x60: extfrag index per order" "$out" "extfrag +-1\.00( -1\.00){10} Normal"
like "compaction 200x60: free blocks per order" "$out" "free blk +31 +44 +28 +27 +22 +9 +4 +5 +2 +0 +24 Normal"
like "compaction 200x60: counters in two columns" "$out" "compact_isolated +7291 .*pgmigrate_success +2841"

out=$(dump --dump=counters)
# proc/51/stat (hand-made) reads 14 pages behind status, as a per-cpu
# counter's approximate read may (up to 62 pages at 2 CPUs)
like "counters: dd holds 16440 kB anon; stat 56 kB behind status" "$out" "^ +51 dd +1 +16440 +976 +0 +0 +17360 +\+56 percpu$"
like "counters: init" "$out" "^ +1 init +1 +56 +1732 +0 +0 +1788 +\+0 "
like "counters: 7.2 without a mode line: percpu for every mm" "$out" "mode: implied by Linux 7\.2 \(percpu since 6\.2\)"
is "counters: no process shows '-' as its mode on 7.2" "$(printf '%s\n' "$out" | grep -Ec '^ +[0-9]+ .* -$')" 0
noosr=$(mktemp -d)
cp -r "$FX/." "$noosr/" && rm -rf "$noosr/proc/sys"
out=$("$TUI" --root "$noosr" --dump=counters 2>&1)
rm -rf "$noosr"
like "counters: no mode line and no osrelease: '-'" "$out" "^ +51 dd .* -$"
like "counters: ... and says so" "$out" "mode: not exposed by this kernel"
like "counters: vmstat vs zone sum with bound" "$out" "nr_free_pages +27103 +27094 +\+9 +16"

out=$(dump --dump=overview)
like "overview: MemTotal" "$out" "MemTotal 250948 kB"
like "overview: MemFree" "$out" "MemFree +108376 kB"
out=$(dump --dump=overview --cols 200 --rows 60)
like "overview 200x60: PSI" "$out" "PSI memory  some 0\.00 0\.00 0\.00  full 0\.00 0\.00 0\.00"
like "overview 200x60: CPUs from proc/stat" "$out" "CPU  2 cpus"
like "overview 200x60: vmstat rates" "$out" "pgfault +[0-9.k]+ +-"

out=$(dump --dump=help)
like "help: keys listed" "$out" "F1 \? +this help"
like "help: views listed" "$out" "4 overview"

# the lab pane: below the view when narrow, beside it when wide
lab=$(mktemp)
printf 'Step 2: age the LRU\ncheck: max_seq grew\n' > "$lab"
out=$(dump --dump=lru --lab-pane "$lab")
like "lab pane 80x24: below the view" "$out" "^Lab
Step 2: age the LRU
check: max_seq grew"
like "lab pane 80x24: view still drawn above" "$out" "gens 2\.\.5"
out=$(dump --dump=lru --lab-pane "$lab" --cols 200 --rows 60)
like "lab pane 200x60: beside the view" "$out" "^memcg 1 /.* +│check: max_seq grew$"
rm -f "$lab"

out=$("$TUI" --root /nonexistent-umkit --dump 2>&1); rc=$?
like "a missing root is an error" "$rc:$out" "^1:umkit-tui: /nonexistent-umkit: No such file"
out=$("$TUI" --root "$FX" --dump=bogus 2>&1); rc=$?
like "an unknown view is an error" "$rc:$out" "^1:umkit-tui: unknown view 'bogus'"
empty=$(mktemp -d)
out=$("$TUI" --root "$empty" --dump=lru 2>&1)
like "empty root: lru view says what is missing" "$out" "sys/kernel/debug/lru_gen: No such file"
out=$("$TUI" --root "$empty" --dump=compaction 2>&1)
like "empty root: compaction view says what is missing" "$out" "proc/zoneinfo not readable"
rmdir "$empty"

# --- interactive, in tmux --------------------------------------------------
if ! command -v tmux >/dev/null; then
	skip "tmux tests" "tmux not installed"
	done_testing
	exit
fi
SOCK=umkit-tui-test-$$
tm() { tmux -L "$SOCK" "$@"; }
work=$(mktemp -d)
trap 'tm kill-server 2>/dev/null; rm -rf "$work"' EXIT INT TERM


tm new-session -d -s t -x 80 -y 24 "env -u TMUX sh"
tm set-option -t t status off >/dev/null
tm send-keys -t t "stty -g > $work/stty.before; printf 'ready\\n'" Enter
# (keys sent before sh printed its prompt are echoed by the terminal, and
# the output then follows the prompt: "# ready")
wait_for '^([#$] )?ready$'
tm send-keys -t t "$TUI --root $FX --interval 200; echo tui-exit=\$?" Enter
if poll_screen "1 LRU generations"; then ok "tmux 80x24: TUI starts on the LRU view"
else not_ok "tmux 80x24: TUI starts on the LRU view" "$screen"; fi
is "tmux: the TUI uses the alternate screen" "$(tm display -p -t t '#{alternate_on}')" 1
# The first frame may be caught half drawn: wait for its last line.
wait_for "root .*every 200ms"
like "tmux 80x24: generations from the fixture" "$screen" "gens 2\.\.5"
like "tmux 80x24: status line at the bottom row" "$(printf '%s\n' "$screen" | sed -n 24p)" "root .*every 200ms"
step "tmux: key 2 shows compaction" "scan efficiency 64\.2%" 2
step "tmux: key 3 shows counters" "16440" 3
step "tmux: key 4 shows overview" "MemTotal 250948 kB" 4
step "tmux: Tab wraps to LRU" "gens 2\.\.5" Tab
step "tmux: ? shows help" "this help" "?"
step "tmux: ? again returns to the view" "gens 2\.\.5" "?"
step "tmux: F1 shows help" "this help" F1
step "tmux: Esc leaves help" "gens 2\.\.5" Escape
step "tmux: t shows tier rows" "tier 3 +anon" t
step "tmux: t hides them" "tiers off" t
step "tmux: p pauses" "PAUSED 200ms" p
step "tmux: + lengthens the interval" "PAUSED 500ms" +
step "tmux: - shortens it" "PAUSED 200ms" -
step "tmux: p resumes" "every 200ms" p
step "tmux: ] on a plain root says so" "not a recording" "]"
step "tmux: L without a lab pane says so" "no lab pane" L
tm send-keys -t t 3
wait_for "16440"
step "tmux: Down scrolls the counters view" "^ +1 init" Down
tm send-keys -t t Home
# resize while running
tm resize-window -t t -x 200 -y 60
if poll_row 60 "root .*every 200ms.*F1 help  q quit"; then
	ok "tmux resize to 200x60: status line moves to row 60"
else
	not_ok "tmux resize to 200x60: status line moves to row 60" "row 60: $row" "$screen"
fi
step "tmux 200x60: compaction view with counters in two columns" "compact_isolated +7291 .*pgmigrate_success" 2
step "tmux 200x60: the whole counters view fits" "nr_page_table_pages" 3
tm resize-window -t t -x 80 -y 24
step "tmux resize back to 80x24: LRU view redrawn" "gens 2\.\.5" 1
if poll_row 24 "every 200ms"; then ok "tmux 80x24 again: status on row 24"
else not_ok "tmux 80x24 again: status on row 24" "row 24: $row" "$screen"; fi
step "tmux: q quits with status 0" "tui-exit=0" q
is "tmux: alternate screen left after q" "$(tm display -p -t t '#{alternate_on}')" 0
tm send-keys -t t "stty -g > $work/stty.after; echo saved" Enter
wait_for '^saved'
is "tmux: terminal modes restored after q" "$(cat "$work/stty.after")" "$(cat "$work/stty.before")"

# signals: the terminal is restored too
for sig in TERM INT HUP; do
	tm send-keys -t t "clear; $TUI --root $FX --view overview; echo tui-exit=\$?" Enter
	wait_for "MemTotal 250948"
	shell=$(tm display -p -t t '#{pane_pid}')
	pid=$(pgrep -P "$shell" -f "$TUI" | head -1)
	if [ -z "$pid" ]; then not_ok "SIG$sig: TUI running" "$screen"; continue; fi
	kill -s "$sig" "$pid"
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	case $sig in
	TERM) code=143 ;;
	HUP) code=129 ;;
	*) code= ;;	# an interactive sh drops the rest of the line on SIGINT
	esac
	if [ -n "$code" ]; then
		if poll_screen "tui-exit=$code"; then ok "SIG$sig: TUI exits by the signal ($code)"
		else not_ok "SIG$sig: TUI exits by the signal" "$screen"; fi
	elif kill -0 "$pid" 2>/dev/null; then
		not_ok "SIG$sig: TUI exits" "still running: $pid"
	else
		ok "SIG$sig: TUI exits"
	fi
	is "SIG$sig: alternate screen left" "$(tm display -p -t t '#{alternate_on}')" 0
	tm send-keys -t t "stty -g > $work/stty.after; echo saved-$sig" Enter
	wait_for "^saved-$sig"
	is "SIG$sig: terminal modes restored" "$(cat "$work/stty.after")" "$(cat "$work/stty.before")"
done

# monochrome and ASCII fallbacks on a vt100
tm send-keys -t t "clear; TERM=vt100 $TUI --root $FX --view compaction; echo tui-exit=\$?" Enter
if poll_screen "scan efficiency 64\.2%"; then
	ok "TERM=vt100: TUI runs"
	like "TERM=vt100: ASCII strip" "$screen" "^U{10}m{6}\?{48}"
else
	not_ok "TERM=vt100: TUI runs" "$screen"
fi
step "TERM=vt100: q quits" "tui-exit=0" q
tm send-keys -t t "clear; NO_COLOR=1 $TUI --root $FX; echo tui-exit=\$?" Enter
if poll_screen "gens 2\.\.5"; then ok "NO_COLOR: TUI runs"; else not_ok "NO_COLOR: TUI runs" "$screen"; fi
tm send-keys -t t q

# --- a recording: step through snapshots, see aging ------------------------
rec=$work/rec
mkdir -p "$rec/snap"
printf 'umkit-recording 1\nsource %s\nevery_ms 1000\nstarted_unix_ms 1700000000000\n' "$FX" > "$rec/umkit-recording"
cp -r "$FX" "$rec/snap/000000"
cp -r "$FX" "$rec/snap/000001"
# snapshot 1: one aging later: a new youngest generation 6, oldest 2 gone
awk '/^ +2 / { next } { print } END { printf " %10d %10d %10d  %10d \n", 6, 0, 120, 0 }' \
	"$FX/sys/kernel/debug/lru_gen" > "$rec/snap/000001/sys/kernel/debug/lru_gen"
printf '000000 1700000000000 0\n000001 1700000001000 1000\n' > "$rec/index"
out=$("$TUI" --root "$rec" --dump=lru)
like "recording: dump shows the first snapshot" "$out" "gens 2\.\.5"
like "recording: status line shows position and time" "$out" "recording 1/2 2023-11-14 22:13:20\.000Z \+0\.0s"
tm send-keys -t t "clear; $TUI --root $rec; echo tui-exit=\$?" Enter
if poll_screen "recording 1/2 .* stopped"; then ok "recording in tmux: stopped at snapshot 1"
else not_ok "recording in tmux: stopped at snapshot 1" "$screen"; fi
step "recording: ] steps forward to snapshot 2" "recording 2/2 .*\+1\.0s" "]"
# the view redraws the step's marks with the snapshot: wait for them
wait_for "evict \+1"
like "recording: the new generation is marked as aging" "$screen" "^ +6 +0ms aged \+1 "
like "recording: the oldest generation left: eviction marked" "$screen" "^ +3 +2\.3s evict \+1 "
like "recording: agings and evictions counted" "$screen" "gens 3\.\.6  agings seen 1, evictions 1"
step "recording: [ steps back" "recording 1/2" "["
step "recording: Right steps forward" "recording 2/2" Right
step "recording: Left steps back" "recording 1/2" Left
step "recording: q quits" "tui-exit=0" q

done_testing
