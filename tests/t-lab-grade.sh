#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# beside tests: graders' verdicts; its own guests, state and tmux
# Labs that grade the student (docs/labs.md): on tests/fixtures/labs/grade.lab,
# batch runs answer rightly and wrongly (--answers) and the graders tell
# them apart; params and choice order per student; sealed labs grade the
# same and hold no plain answer; result files carry a MAC that the report
# checks; --check warns; then the interactive runner in tmux: a wrong
# answer shows the explanations, a goal step built through the pane's
# guest shell passes, an ab step is told apart.
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
export XDG_STATE_HOME="$work/state"
SOCK=umkit-grade-test-$$
tm() { tmux -L "$SOCK" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$work"' EXIT INT TERM
LAB="$TOP/tests/fixtures/labs/grade.lab"
j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# --- batch: right, wrong, unanswered ---------------------------------------
out=$(UMKIT_GRADE_KEY=sekrit "$UMKIT" lab "$LAB" --batch --student alice \
	--answers right --json "$work/right.json" 2>&1); rc=$?
is "--answers right: exit 0" "$rc" 0
like "... every point of the student's" "$out" "^# grade: passed 3/3, 13/13 points: 11/11 yours, 2/2 the kit's"
like "... the prediction is judged right" "$out" "^# fill prediction: a, right \(2/2\)"
like "... the why is judged right" "$out" "^# fill why: [0-9]+, right \(2/2\)"
like "... the ab step is told apart" "$out" "^# blind ab: told the guests apart; 4/4"
is "... the result file: the student's points" "$(j "$work/right.json" '"%d/%d %d/%d" % (d["student_points"], d["student_max"], d["kit_points"], d["kit_max"])')" "11/11 2/2"
is "... the goal's commands are kept (none typed in batch)" "$(j "$work/right.json" 'd["typed"][0]["step"]')" build
is "... the ab step's sides and readings" "$(j "$work/right.json" 'sorted(d["ab"][0]["evidence"][0].keys())')" \
	"['label', 'read_x', 'read_y', 'x', 'y']"

out=$("$UMKIT" lab "$LAB" --batch --student alice --answers wrong 2>&1); rc=$?
is "--answers wrong: the goal left undone fails its check (exit 1)" "$rc" 1
like "... no point of the student's" "$out" "^# grade: passed 2/3, 2/13 points: 0/11 yours, 2/2 the kit's"
like "... the wrong choice is judged wrong" "$out" "^# fill prediction: [b-c], wrong \(0/2\)"
like "... a wrong number is judged wrong, with the truth" "$out" "^# fill why: [0-9.]+, wrong \(0/2\); it was [0-9]+(\.[0-9]+)?$"
like "... the guests mistaken" "$out" "^# blind ab: mistook the guests; 0/4"

out=$("$UMKIT" lab "$LAB" --batch --student alice 2>&1); rc=$?
is "unanswered: exit 0 (the kit's checks pass; the solve lines reach the goal)" "$rc" 0
like "... the questions earn nothing" "$out" "^# fill prediction: not answered \(0/2\)"
like "... nor the ab step" "$out" "^# blind ab: not answered; 0/4"

# --- per-student numbers ---------------------------------------------------
p1=$("$UMKIT" lab "$LAB" --batch --student alice 2>&1 | grep -m1 '^#   \$ for i')
p1b=$("$UMKIT" lab "$LAB" --batch --student alice 2>&1 | grep -m1 '^#   \$ for i')
is "params: the same student gets the same numbers" "$p1b" "$p1"
n=0; s=0
for st in bob carol dave erin frank; do
	p=$("$UMKIT" lab "$LAB" --batch --student "$st" 2>&1 | grep -m1 '^#   \$ for i')
	[ "$p" != "$p1" ] && n=$((n + 1))
	s=$((s + 1))
done
if [ "$n" -ge 1 ]; then ok "params: other students get other numbers ($n of $s differ from alice's)"
else not_ok "params: other students get other numbers" "all of $s equal alice's: $p1"; fi

# --- sealed labs -----------------------------------------------------------
"$UMKIT" lab --seal "$LAB" > "$work/grade.lab"; rc=$?
is "--seal: exit 0" "$rc" 0
if grep -nE '^(ask|why) choice.*answer=[a-z]( |$)' "$work/grade.lab"; then
	not_ok "--seal: no plain choice answer left" "$(grep -n 'answer=' "$work/grade.lab")"
else ok "--seal: no plain choice answer left"; fi
if grep -q "mm/shmem.c adds them" "$work/grade.lab"; then
	not_ok "--seal: no plain explanation of a choice question left" "$(grep -n "mm/shmem.c adds" "$work/grade.lab")"
else ok "--seal: no plain explanation of a choice question left"; fi
check "--seal: the sealed lab passes --check" "$UMKIT" lab --check "$work/grade.lab"
out=$("$UMKIT" lab "$work/grade.lab" --batch --student alice --answers right 2>&1)
like "a sealed lab grades a right answer right" "$out" "^# fill prediction: a, right \(2/2\)"
out=$("$UMKIT" lab "$work/grade.lab" --batch --student alice --answers wrong 2>&1)
like "... and a wrong one wrong" "$out" "^# fill prediction: [b-c], wrong \(0/2\)"

# --- the result file's MAC -------------------------------------------------
out=$(UMKIT_GRADE_KEY=sekrit "$UMKIT" lab report "$work/right.json" 2>&1)
like "report: the MAC of an untouched result matches" "$out" " 11/11 +2/2 .* ok "
sed 's/"student_points": 11/"student_points": 12/' "$work/right.json" > "$work/forged.json"
out=$(UMKIT_GRADE_KEY=sekrit "$UMKIT" lab report "$work/right.json" "$work/forged.json" 2>&1)
like "report: a result changed after the run is flagged" "$out" " BAD "
like "... and counted" "$out" "1 result file without a MAC that matches"
out=$(UMKIT_GRADE_KEY=other "$UMKIT" lab report "$work/right.json" 2>&1)
like "report: another key does not match" "$out" " BAD "
out=$("$UMKIT" lab report "$work/right.json" 2>&1)
like "report: the student's and the kit's points apart" "$out" "yours +kit's"

# --- lab --check warnings --------------------------------------------------
cat > "$work/weak.lab" <<'EOF'
title Weak
step s S
ask choice answer=a Q?
  a) x
  b) y
run true
check vmstat.pgfault >= 0
check delta(vmstat.pgscan_kswapd) >= 0
check meminfo.MemFree == meminfo.MemFree
check delta(meminfo.MemFree) >= 0
check points=5 vmstat.pgfault > 0
EOF
out=$("$UMKIT" lab --check "$work/weak.lab" 2>&1); rc=$?
is "--check of a weak lab: still exit 0 (warnings)" "$rc" 0
like "... warns on '>= 0' of a value" "$out" "weak.lab:7: warning: 'vmstat.pgfault >= 0' cannot fail"
like "... on '>= 0' of a counter's change" "$out" "weak.lab:8: warning: 'delta\(vmstat.pgscan_kswapd\) >= 0' cannot fail"
like "... on a value compared with itself" "$out" "weak.lab:9: warning: .* compares a value with itself"
if printf '%s\n' "$out" | grep -q 'weak.lab:10:'; then
	not_ok "... not on '>= 0' of a gauge's change (it can fail)" "$out"
else ok "... not on '>= 0' of a gauge's change (it can fail)"; fi
like "... and on a lab whose student earns under half" "$out" "warning: the student earns 1 of the lab's 10 points \(under half\)"
check "--check of the fixture: no warning" sh -c "! '$UMKIT' lab --check '$LAB' 2>&1 | grep -q warning"

no_leftovers "batch grading leaves no guest, mount or run/ entry"

# --- interactive, in tmux ----------------------------------------------------
if ! command -v tmux >/dev/null; then
	skip "the interactive grading in tmux" "tmux not installed"
	done_testing
	exit
fi
tm new-session -d -s t -x 170 -y 50 "env -u TMUX sh"
tm set-option -t t status off >/dev/null
tm send-keys -t t "cd '$TOP' && $UMKIT lab --student alice '$LAB'; echo EXIT=\$?" Enter
step "the question shows its points" "Predict: Where do tmpfs pages go\?  \[2 points\]"
step "the checks are hidden until the answer is in" "checks are shown once you have answered"
if printf '%s\n' "$screen" | grep -q 'median(fill.mb)'; then
	not_ok "... no check line shows before the answer" "$screen"
else ok "... no check line shows before the answer"; fi
# The letter this student sees for a wrong choice (the order is shuffled).
wrong=$(printf '%s\n' "$screen" | sed -n 's/.*│  \([a-c]\)) file pages.*/\1/p' | head -1)
right=$(printf '%s\n' "$screen" | sed -n 's/.*│  \([a-c]\)) anon pages.*/\1/p' | head -1)
if [ -n "$wrong" ] && [ -n "$right" ]; then ok "the choices are shown, a-c, in this student's order"
else not_ok "the choices are shown, a-c, in this student's order" "$screen"; fi
step "a wrong answer: wrong, and the right letter" "your answer: $wrong — wrong; it was $right  \[0/2\]" "$wrong" Enter
step "... the explanation of the question" "why: tmpfs pages are shmem"
step "... why each choice is right or wrong" "wrong: tmpfs has no backing file"
step "... then the step runs and its checks show" "✓ median\(fill.mb\) >= mb - 1"
step "a why question is asked after the run" "Why: How many MiB did Shmem show"
step "... its prompt in the pane" "your answer \(a number\): _"
step "... a wrong number: 0 points, the truth shown" "your answer: 999 — wrong; it was [0-9]+(\.[0-9]+)?  \[0/2\]" 999 Enter
step "n: the goal step" "Your goal: make /tmp/made/f with exactly [0-9] lines" n
lines=$(printf '%s\n' "$screen" | sed -n 's/.*exactly \([0-9]\) lines.*/\1/p' | head -1)
step "Enter: a guest shell in the pane" "guest\\$ _" Enter
step "a command runs in the guest, its output in the pane" "  $lines /tmp/made/f" \
	"mkdir -p /tmp/made; seq $lines > /tmp/made/f; wc -l /tmp/made/f" Enter
step "'done': the checks judge what the student built" "✓ result\(made.lines\) == $lines  \[3/3\]" done Enter
step "n: the ab step" "Blind A/B: guests X and Y" n
# gaps N: the pane shows N guests' readings (the prompt can be drawn
# before the last reading's line: a fresh clone typed an empty gap for Y).
gaps() {
	screen=$(tm capture-pane -p -t t)
	[ "$(printf '%s\n' "$screen" | grep -c 'low-min gap: [0-9]* pages')" -ge "$1" ]
}
step "Enter: guest X runs, then waits" "guest X ran: read its values now" Enter
wait_until 100 gaps 1
gx=$(printf '%s\n' "$screen" | sed -n 's/.*low-min gap: \([0-9]*\) pages.*/\1/p' | head -1)
step "Enter: guest Y runs, then the question" "which guest had watermark_scale_factor 200" Enter
wait_until 100 gaps 2
gy=$(printf '%s\n' "$screen" | sed -n 's/.*low-min gap: \([0-9]*\) pages.*/\1/p' | sed -n 2p)
if [ "${gx:-0}" -gt "${gy:-0}" ]; then big=X; else big=Y; fi
# typed at once: the keys after each answer go to the next prompt (prompt+)
step "the guests told apart with readings that match: full points" \
	"you said $big: right  \[4/4 in all\]" "$big" Enter "$gx" Enter "$gy" Enter
tm send-keys -t t q
step "q: the score, the student's points apart" "lab grade: passed 3/3, [0-9]+/13 points: 7/11 yours, 2/2 the kit's"
res=$(ls -t "$XDG_STATE_HOME"/umkit/results/grade-*.json | head -1)
like "the result file keeps the commands typed in the goal step" "$(j "$res" 'd["typed"][0]["commands"]')" "seq $lines > /tmp/made/f"
tm kill-server 2>/dev/null
no_leftovers "the interactive run leaves nothing behind"
done_testing
