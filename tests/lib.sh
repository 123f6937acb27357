# SPDX-License-Identifier: GPL-2.0-only
# tests/lib.sh - shared helpers for tests/t-*.sh (source it).
#
# Each check prints one TAP line.  Scripts end with 'done_testing', which
# prints the plan and exits non-zero when any check failed.
cd "$(dirname "$0")/.." || exit 2
TOP=$PWD
# The guests' run directories: run/, or the private one tests/run gives a
# script that runs beside another ("# beside tests:"; umkit reads
# UMKIT_RUN too).
RUN=${UMKIT_RUN:-$TOP/run}
# UMKIT_BIN runs the tests with another build of the launcher (ASan).
UMKIT="${UMKIT_BIN:-$TOP/umkit}"
_n=0 _failed=0
# UMKIT_TEST_STAMPS=1: after each result line, a comment with the
# milliseconds since the one before, or since the script started (where
# a script's time goes; tests/run prints only each script's whole).
_stamp_t=
[ "${UMKIT_TEST_STAMPS:-0}" != 1 ] || _stamp_t=$(date +%s%N)
_stamp() {
	[ -n "$_stamp_t" ] || return 0
	_s=$(date +%s%N)
	echo "# +$(( (_s - _stamp_t) / 1000000 )) ms"
	_stamp_t=$_s
}

# ok DESCRIPTION: a check that passed.
ok() { _n=$((_n + 1)); echo "ok $_n - $*"; _stamp; }
# not_ok DESCRIPTION [DETAIL...]: a check that failed, with detail lines.
# Returns 1, so that 'is ... || more detail' shows the detail.
not_ok() {
	_n=$((_n + 1)); _failed=$((_failed + 1)); _d=$1; shift
	echo "not ok $_n - $_d"
	for _l in "$@"; do printf '%s\n' "$_l" | sed 's/^/#   /'; done
	_stamp
	return 1
}
# skip DESCRIPTION REASON: a check that cannot run here.
skip() { _n=$((_n + 1)); echo "ok $_n - $1 # SKIP $2"; _stamp; }
# check DESCRIPTION CMD...: passes when CMD exits 0.
check() {
	_c=$1; shift
	if _o=$("$@" 2>&1); then ok "$_c"; else not_ok "$_c" "command: $*" "$_o"; fi
}
# is DESCRIPTION GOT WANT: passes when the two strings are equal.
is() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "got:  $2" "want: $3"; fi
}
# like DESCRIPTION TEXT REGEX: passes when TEXT matches the extended REGEX.
like() {
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then ok "$1"
	else not_ok "$1" "text: $(printf '%s' "$2" | head -c 600)" "want match: $3"; fi
}
# between DESC V LO HI: passes when LO <= V <= HI (whole numbers).
between() {
	if [ "$2" -ge "$3" ] 2>/dev/null && [ "$2" -le "$4" ]; then ok "$1 ($2)"
	else not_ok "$1" "got '$2', want $3..$4"; fi
}
# field LINE KEY: the value of KEY=VALUE in a result line.
field() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# What belongs to guests that were running before this test started (a
# lab open in another terminal, say): no_leftovers leaves them out.
# (UML processes: their command line starts with the kernel's path and
# names their run directory, uml_dir=$RUN/NAME/; a kernel build's
# compiler lines only mention build/k/TREE/src/.../linux.)  Only this
# script's $RUN: a script running beside it has a run directory of its
# own.
_uml_pids() { pgrep -f "^$TOP/build/(k|smoke)/[^ ]*/linux .*uml_dir=$RUN/" | sort; }
_mounts() { grep " $RUN/" /proc/mounts | awk '{print $2}' | sort; }
_run_dirs() { ls "$RUN" 2>/dev/null | grep -v '^log$' | sort; }
_before_pids=$(_uml_pids) _before_mounts=$(_mounts) _before_run=$(_run_dirs)
_new() { printf '%s\n' "$2" | grep -vxF -e "$1" -e '' | tr '\n' ' '; }

# wait_until TENTHS CMD...: run CMD (a command or a function) every 0.1 s
# until it succeeds, at most TENTHS tenths of a second; 1 if it never did.
# A wait on what the test needs, never a fixed sleep: the check after it
# says what was wanted.
wait_until() {
	_w=$1 _k=0
	shift
	until "$@"; do
		[ $_k -ge "$_w" ] && return 1
		sleep 0.1; _k=$((_k + 1))
	done
}

# wait_ready PID: until the one-shot guest of the 'umkit exec' PID (run in
# the background) has started its agent (/init's umkit-ready line in its
# console log), or PID has ended; 10 s at most.
wait_ready() { wait_until 100 _ready "$1"; }
_ready() { grep -aqs umkit-ready "$RUN/log/exec-$1.log" || ! kill -0 "$1" 2>/dev/null; }

# wait_proc PATTERN [TENTHS]: until a process's command line matches the
# extended PATTERN (pgrep -f), at most TENTHS (default 300) tenths of a s.
wait_proc() { wait_until "${2:-300}" _running "$1"; }
_running() { pgrep -f "$1" >/dev/null; }
# wait_gone PATTERN [TENTHS]: until no process's command line matches,
# at most TENTHS (default 50) tenths of a second.
wait_gone() { wait_until "${2:-50}" _gone "$1"; }
_gone() { ! _running "$1"; }

# exercise_lines LAB FILE.c: the 'exercise' line of the lab file LAB that
# names FILE.c, with its indented case, expect, fail and hint lines: the
# grader a test's own small lab takes from a shipped one.
exercise_lines() {
	awk -v f="$2" '$1 == "exercise" && $NF == f { on = 1; print; next }
		on && /^[ \t]/ { print; next } on { exit }' "$1"
}

# install_kit DESTDIR PREFIX [WHAT]: every shipped variant's kernel built
# here (a no-op for those make test has built; a run of one test alone may
# reach this first), then make install into DESTDIR with the kernels as
# they are (KERNELS=asis, no second pass through kbuild): two checks,
# their descriptions after WHAT.
install_kit() {
	_bad= _err=$(mktemp)
	for _v in "$TOP"/patches/*/; do
		_v=$(basename "$_v")
		"$TOP/uml/kernel/kbuild.sh" "$_v" >/dev/null 2>"$_err" || _bad="$_bad $_v"
	done
	is "${3:+$3: }every shipped variant's kernel is built" "$_bad" "" ||
		sed 's/^/#   /' "$_err" | tail -5
	rm -f "$_err"
	_out=$(make -s -C "$TOP" install DESTDIR="$1" PREFIX="$2" KERNELS=asis 2>&1)
	is "${3:+$3: }make install DESTDIR PREFIX=$2 exits 0" "$?" 0 ||
		printf '%s\n' "$_out" | tail -5 | sed 's/^/#   /'
}

# no_leftovers DESCRIPTION: no UML process of this checkout, no FUSE mount
# under run/ and no entry in run/ beyond those that were there before.
no_leftovers() {
	_p=$(_new "$_before_pids" "$(_uml_pids)")
	_m=$(_new "$_before_mounts" "$(_mounts)")
	_r=$(_new "$_before_run" "$(_run_dirs)")
	if [ -z "$_p$_m$_r" ]; then ok "$1"
	else not_ok "$1" "uml pids: $_p" "mounts: $_m" "run/: $_r"; fi
}

# Terminal tests: the script defines tm() (tmux on its own socket) and a
# session whose pane is target t.
# poll_screen PATTERN [TRIES]: poll the pane every 0.1 s (TRIES times,
# default 50) until it shows the extended regex PATTERN; $screen holds
# the last capture.  Quiet: the caller reports.
poll_screen() {
	_i=0
	while [ $_i -lt "${2:-50}" ]; do
		screen=$(tm capture-pane -p -t t)
		printf '%s\n' "$screen" | grep -Eq -- "$1" && return 0
		sleep 0.1; _i=$((_i + 1))
	done
	return 1
}
# wait_for PATTERN [TRIES]: poll_screen, and a failed check (with the
# screen) when the pattern never shows: a wait is never a silent sleep.
wait_for() {
	poll_screen "$@" && return 0
	not_ok "screen shows /$1/ within $(( ${2:-50} / 10 )) s" "screen:" "$screen"
	return 1
}
# step DESC PATTERN [KEYS...]: send KEYS to the pane, then a check that
# the screen shows PATTERN within 10 s (the screen in the failure).
step() {
	_d=$1 _p=$2; shift 2
	[ $# -gt 0 ] && tm send-keys -t t "$@"
	if poll_screen "$_p" 100; then ok "$_d"
	else not_ok "$_d" "screen:" "$screen" "want: $_p"; fi
}
# poll_row ROW PATTERN [TRIES]: poll until the pane has ROW rows and row
# ROW matches PATTERN; $row holds that row.  Quiet.
poll_row() {
	_i=0
	while [ $_i -lt "${3:-50}" ]; do
		screen=$(tm capture-pane -p -t t)
		row=$(printf '%s\n' "$screen" | sed -n "${1}p")
		if [ "$(printf '%s\n' "$screen" | wc -l)" -eq "$1" ] &&
		    printf '%s\n' "$row" | grep -Eq -- "$2"; then
			return 0
		fi
		sleep 0.1; _i=$((_i + 1))
	done
	return 1
}

done_testing() {
	echo "1..$_n"
	[ "$_failed" -eq 0 ]
}
