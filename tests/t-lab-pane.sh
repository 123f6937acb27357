#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# beside tests: the pane's text and widths in its own tmux and guest
# The lab pane of the interactive runner in tmux, on one guest: a number
# typed into the pending question is the answer, not view keys; the
# step's text re-flows to the pane's width (100 and 160 columns); and at
# 80, 120 and 170 columns no view draws into the pane: every row's view
# part has the view's width in characters (one terminal column each),
# the separator is intact and the pane's text is the same under each of
# the four views.  The LRU view shows a cgroup named in CJK characters,
# two terminal columns each: before cv_blit kept every cell to one
# column, that row ran 30 columns past the view's width, under the
# separator (in tmux, which agrees with curses on widths, the separator
# drawn after it survives; on a terminal that draws the strip's · ▒ █
# two columns wide, the same overflow lands on the pane).
. "$(dirname "$0")/lib.sh"

if ! command -v tmux >/dev/null; then
	skip "lab pane in tmux" "tmux not installed"
	done_testing
	exit
fi
# characters, not bytes, for grep and sed (the pane's separator is one)
export LC_ALL=C.UTF-8
SOCK=umkit-lab-pane-$$
tm() { tmux -L "$SOCK" "$@"; }
work=$(mktemp -d)
export XDG_STATE_HOME="$work/state"
trap 'tm kill-server 2>/dev/null; rm -rf "$work"' EXIT INT TERM
LAB="$TOP/tests/fixtures/labs/pane.lab"
ROWS=50


# pane_of COLS: the lab pane's part of $screen (the TUI's layout: beside
# the view from 120 columns, 2/5 of them up to 64, else below it on the
# lower half), trailing blanks removed; false when the separator between
# the view and the pane is not whole.
pane_of() {
	if [ "$1" -ge 120 ]; then
		w=$(( $1 * 2 / 5 > 64 ? 64 : $1 * 2 / 5 ))
		s=$(( $1 - w - 1 ))
		printf '%s\n' "$screen" | sed -n "2,$((ROWS - 1))p" > "$work/rows"
		[ "$(grep -c "^.\{$s\}│" "$work/rows")" -eq $((ROWS - 2)) ] || return 1
		sed "s/^.\{$s\}│//; s/ *\$//" "$work/rows"
	else
		sep=$(( 1 + (ROWS - 2) - (ROWS - 2) / 2 ))	# the separator's line
		line=$(printf '%s\n' "$screen" | sed -n "${sep}p")
		[ "$line" = "$(printf "%${1}s" '' | sed 's/ /─/g')" ] || return 1
		printf '%s\n' "$screen" | sed -n "$((sep + 1)),$((ROWS - 1))p" | sed 's/ *$//'
	fi
}

# wrapped WIDTH TEXT: TEXT word-wrapped greedily at WIDTH columns (ASCII)
wrapped() {
	printf '%s\n' "$2" | awk -v w="$1" '{
		l = ""
		for (i = 1; i <= NF; i++) {
			if (l == "") l = $i
			else if (length(l) + 1 + length($i) <= w) l = l " " $i
			else { print l; l = $i }
		}
		if (l != "") print l
	}'
}

t0=$(date +%s)
tm new-session -d -s t -x 170 -y $ROWS "env -u TMUX sh"
tm set-option -t t status off >/dev/null
tm send-keys -t t "cd '$TOP' && $UMKIT lab '$LAB'; echo EXIT=\$?" Enter
step "the pane shows the step" "pane · step 1/1: The pane's text"
step "the step's question is asked at once, in the pane" \
    "│  your prediction \(a number\): _"
step "the step's view is focused (compaction)" "scan efficiency"

# A number typed into the pending question: 1 2 3 4 are view keys.
step "typing a number fills the answer" "your prediction \(a number\): 16384_" 16384
like "... and does not switch views" "$screen" "scan efficiency"
step "Enter answers: the step runs and judges it" "your answer: 16384 — right" Enter
step "the step's check passed" "✓ meminfo.MemTotal > 0"

# No view draws into the pane.
for cols in 170 120 80; do
	tm resize-window -t t -x "$cols" -y $ROWS
	for v in 1 2 3 4; do
		case $v in
		1) p="memcg [0-9]+ /.*node 0" ;;
		2) p="scan efficiency" ;;
		3) p="mm rss counters" ;;
		4) p="memory  MemTotal" ;;
		esac
		tm send-keys -t t "$v"
		poll_screen "$p" 50 && poll_row $ROWS "F1 help" 20
		d="$cols columns, view $v: each row's view part is its width, the separator whole"
		if pane_of "$cols" > "$work/pane-$v"; then
			ok "$d"
		else
			not_ok "$d" "screen:" "$screen"
		fi
		# two-column characters are drawn as one-column stand-ins
		[ "$cols$v" = 1701 ] && like "the LRU view shows the CJK-named cgroup in its width" \
		    "$screen" "memcg [0-9]+ /[?]{30}  node 0"
	done
	like "$cols columns: the pane shows the step" "$(head -1 "$work/pane-1")" \
	    "^pane · step 1/1: The pane's text"
	same=yes
	for v in 2 3 4; do
		cmp -s "$work/pane-1" "$work/pane-$v" || same="no: view $v"
	done
	if [ "$same" = yes ]; then
		ok "$cols columns: the pane's text is the same under every view"
	else
		not_ok "$cols columns: the pane's text is the same under every view" "$same" \
		    "$(diff "$work/pane-1" "$work/pane-${same#no: view }")"
	fi
done

# The paragraph re-flows to the pane's width (64 columns at 160, the
# whole 100 below the view at 100).
para="The lab pane joins the lines of one paragraph and wraps them at its own\
 width, so that the words memory cgroup and node of this sentence share a\
 line instead of taking three, at any width."
for cols in 160 100; do
	tm resize-window -t t -x "$cols" -y $ROWS
	tm send-keys -t t 2
	poll_screen "scan efficiency" 50
	want=$(wrapped $([ "$cols" -ge 120 ] && echo 64 || echo "$cols") "$para")
	# until the pane has re-flowed (5 s at most)
	i=0
	while :; do
		screen=$(tm capture-pane -p -t t)
		pane=$(pane_of "$cols")
		case "$pane" in *"$want"*) break ;; esac
		[ $i -lt 50 ] || break
		sleep 0.1; i=$((i + 1))
	done
	case "$pane" in
	*"$want"*) ok "$cols columns: the paragraph is joined and wrapped at the pane's width" ;;
	*) not_ok "$cols columns: the paragraph is joined and wrapped at the pane's width" \
	    "pane:" "$pane" "want:" "$want" ;;
	esac
	like "$cols columns: an indented line is kept" "$pane" "^  an indented line is kept as written$"
done

tm send-keys -t t q
step "q quits" "EXIT=0"
no_leftovers "q leaves no guest, mount or run/ entry"
echo "# $(( $(date +%s) - t0 )) s"
done_testing
