#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# beside tests: the lab pane in its own tmux, its own guests and state
# The interactive lab runner driven in tmux: the pane shows the step, the
# prediction is asked and kept, Enter runs the step, the view follows the
# step, checks show a tick, progress is saved and resumed, q leaves
# nothing behind.
. "$(dirname "$0")/lib.sh"

if ! command -v tmux >/dev/null; then
	skip "lab runner in tmux" "tmux not installed"
	done_testing
	exit
fi
SOCK=umkit-lab-test-$$
tm() { tmux -L "$SOCK" "$@"; }
work=$(mktemp -d)
export XDG_STATE_HOME="$work/state"
trap 'tm kill-server 2>/dev/null; rm -rf "$work"' EXIT INT TERM
LAB="$TOP/tests/fixtures/labs/ui.lab"

tm new-session -d -s t -x 160 -y 40 "env -u TMUX sh"
tm set-option -t t status off >/dev/null
tm send-keys -t t "cd '$TOP' && $UMKIT lab '$LAB'; echo EXIT=\$?" Enter
step "the pane shows the first step" "ui · step 1/2: Fill tmpfs"
step "the lab's introduction above it, a list item joined" "^.*\\- a goal whose line goes on here"
step "the step's view is focused (overview)" "MemTotal"
step "the pane shows the question" "Predict: Where do tmpfs pages go"
step "the prediction is asked at once" "your prediction \(a letter, a-b\): _"
step "Enter without an answer keeps asking" "your prediction \(a letter, a-b\): _" Enter
step "a wrong kind of answer is refused" "not one of the choices; your prediction" 7 Enter
step "Esc cancels the prompt" "\(Enter: answer, then the step runs\)" Escape
step "Enter asks again" "your prediction \(a letter, a-b\): _" Enter
step "the answer runs the step; a right choice is marked" "your answer: a — right" a Enter
step "the check gets a tick" "✓ meminfo.Shmem >= 8000"
step "n shows the next step" "step 2/2: Age once" n
step "its view is focused (lru)" "LRU generations.*gens|memcg 1"
step "a number prediction" "your prediction \(a number\): _" Enter
step "the prediction is judged after the step" "your answer: 1 — right" 1 Enter
step "the aging check passes" "✓ delta\(lru_gen.max_seq\) == 1  \[2/2\]"
step "the score is shown" "score: passed 2/2, 5/5 points: 2/2 yours, 3/3 the kit.s"
step "b goes back" "step 1/2: Fill tmpfs" b
step "the earlier result is kept" "✓ meminfo.Shmem >= 8000"
step "q quits and prints the score" "lab ui: passed 2/2, 5/5 points: 2/2 yours" q
step "it exits 0" "EXIT=0"
like "the run's recording is named" "$screen" "replay this run: umkit tui --root .*/recordings/ui-"
rec=$(printf '%s\n' "$screen" | sed -n 's/.*umkit tui --root \([^ ]*\).*/\1/p' | head -1)
check "the recording replays" test -f "$rec/umkit-recording"
check "progress was saved" grep -q '"fill": "pass"' "$work/state/umkit/progress/ui.json"
check "the answers were saved" grep -q '"age": "1"' "$work/state/umkit/progress/ui.json"
res=$(ls "$work"/state/umkit/results/ui-*.json 2>/dev/null | head -1)
check "a result file was written" test -s "$res"
like "the result keeps the predictions" "$(cat "$res" 2>/dev/null)" '"answer": "a"'
no_leftovers "q leaves no guest, mount or run/ entry"

# Resume: the saved step comes back; Ctrl-C stops the lab cleanly.
tm send-keys -t t "clear; $UMKIT lab '$LAB'; echo EXIT=\$?" Enter
step "a second run resumes at the saved step" "step 1/2: Fill tmpfs"
tm send-keys -t t C-c
step "Ctrl-C ends it with status 130" "EXIT=130"
no_leftovers "Ctrl-C leaves no guest, mount or run/ entry"

# --reset starts afresh and removes old results.
tm send-keys -t t "clear; $UMKIT lab '$LAB' --reset; echo EXIT=\$?" Enter
step "--reset starts afresh" "step 1/2: Fill tmpfs"
check "--reset removed the old results" test ! -e "$res"
step "the unanswered prediction is asked again" "your prediction \(a letter" 
step "Esc leaves the prompt" "\(Enter: answer, then the step runs\)" Escape
tm send-keys -t t q
step "q again" "EXIT="
no_leftovers "nothing left after the third run"
done_testing
