#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kernels: base+debug
# beside builds: breakpoints and values read in gdb, no timing checks
# umkit gdb and exec --gdb on real guests of the base+debug kernel (built
# here on first use): a breakpoint in the aging path hit by an aging
# write, bt naming inc_max_seq, values read, the mirror's EIO while the
# kernel is stopped, detach leaving the guest running, gdb killed with
# SIGKILL at a breakpoint (the kernel is continued), the kernel's gdb
# helpers, a sysrq panic decoded to file:line, a one-shot guest under gdb
# from its first instruction; nothing left behind.
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
g=t-gdb-$$
trap '"$UMKIT" stop $g >/dev/null 2>&1; rm -rf "$work"' EXIT INT TERM

if ! command -v gdb >/dev/null; then
	skip "umkit gdb" "gdb is not installed (uml/install/deps.sh installs it)"
	done_testing; exit
fi
# The debug kernel: built once (docs/debugging.md has the cost).
t0=$(date +%s)
check "the base+debug kernel builds" sh uml/kernel/kbuild.sh base+debug
echo "# base+debug kernel ready in $(( $(date +%s) - t0 )) s"

# wait_file FILE PATTERN [TENTHS]: until FILE has a line matching PATTERN.
wait_file() {
	_i=0
	while [ $_i -lt "${3:-300}" ]; do
		grep -Eq -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1; _i=$((_i + 1))
	done
	return 1
}
# age: one aging of memcg 1 node 0, through umkit exec (it waits while
# the kernel is stopped: exec has no timeout).
age() {
	"$UMKIT" exec $g -- sh -c 'echo "+ 1 0 $(awk "NR == 3 { print \$1; exit }" /sys/kernel/debug/lru_gen) 1 1" > /sys/kernel/debug/lru_gen'
}

out=$("$UMKIT" start -V base+debug -n $g 2>&1)
like "a base+debug guest starts" "$out" "guest $g started \(base\+debug"
pid=$(cat "$RUN/$g/uml.pid")

# --- a breakpoint in the aging path ---------------------------------------
cat > "$work/bp.gdb" <<'EOF'
break inc_max_seq
echo umkit-test: ready\n
continue
echo umkit-test: stopped\n
bt 8
printf "umkit-test: max_seq=%lu min_seq_anon=%lu\n", lruvec->lrugen.max_seq, lruvec->lrugen.min_seq[0]
shell sleep 5
detach
EOF
s=$(date +%s%N)
"$UMKIT" gdb -x "$work/bp.gdb" $g > "$work/bp.out" 2>&1 &
gpid=$!
wait_file "$work/bp.out" "umkit-test: ready" 300
echo "# umkit gdb: attached with symbols and helpers in $(( ($(date +%s%N) - s) / 1000000 )) ms"
age > "$work/age.out" 2>&1 &
apid=$!
if wait_file "$work/bp.out" "umkit-test: stopped" 200; then
	ok "the aging write stops the kernel at the breakpoint"
	st=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' /proc/$pid/status)
	is "the UML process is in a tracing stop" "$st" t
	s=$(date +%s%N)
	r=$(cat "$RUN/$g/mnt/proc/loadavg" 2>&1); rc=$?
	ms=$(( ($(date +%s%N) - s) / 1000000 ))
	like "a mirror read of a stopped kernel fails with EIO" "$rc $r" "^1 .*Input/output error"
	if [ $ms -le 2000 ]; then ok "... within 2 s ($ms ms)"; else not_ok "... within 2 s" "took $ms ms"; fi
	out=$(timeout 20 "$UMKIT" tui $g --view lru --dump 2>&1)
	like "the TUI says \"guest not responding\"" "$out" "guest not responding"
else
	not_ok "the aging write stops the kernel at the breakpoint" "$(cat "$work/bp.out")"
fi
wait $gpid; rc=$?
is "umkit gdb -x exits 0" "$rc" 0
wait $apid; is "the aging write completes after detach" "$?" 0
out=$(cat "$work/bp.out")
like "bt names inc_max_seq" "$out" "^#0 +inc_max_seq \(lruvec="
like "bt has the debugfs writer: lru_gen_seq_write in mm/vmscan.c" "$out" "lru_gen_seq_write .*mm/vmscan.c:[0-9]+"
like "gdb reads the generation numbers" "$out" "umkit-test: max_seq=[0-9]+ min_seq_anon=[0-9]+"
like "detach" "$out" "Inferior 1 \(process $pid\) detached"
if printf '%s\n' "$out" | grep -q "received signal"; then
	not_ok "UML's own signals pass silently" "$(printf '%s\n' "$out" | grep 'received signal' | head -3)"
else ok "UML's own signals pass silently"; fi
out=$("$UMKIT" exec $g -- true 2>&1); rc=$?
is "after detach the guest runs: umkit exec NAME -- true" "$rc:$out" "0:"
out=$("$UMKIT" list)
like "umkit list: running" "$out" "^$g +base\+debug .* running "

# --- the kernel's gdb helpers ---------------------------------------------
cat > "$work/lx.gdb" <<'EOF'
lx-version
lx-ps
lx-dmesg
EOF
out=$("$UMKIT" gdb -x "$work/lx.gdb" $g 2>&1)
like "lx-version" "$out" "^Linux version 7\.2"
like "lx-ps lists the guest's agent" "$out" "umkit-agent"
like "lx-dmesg prints the kernel log" "$out" "\] Linux version 7\.2"

# --- gdb killed at a breakpoint -------------------------------------------
cat > "$work/hold.gdb" <<'EOF'
break inc_max_seq
echo umkit-test: ready\n
continue
echo umkit-test: stopped\n
shell sleep 120
EOF
"$UMKIT" gdb -x "$work/hold.gdb" $g > "$work/hold.out" 2>&1 &
gpid=$!
wait_file "$work/hold.out" "umkit-test: ready" 300
age > /dev/null 2>&1 &
apid=$!
wait_file "$work/hold.out" "umkit-test: stopped" 200
gdbp=$(pgrep -P $gpid -x gdb)
if [ -n "$gdbp" ]; then kill -KILL $gdbp; fi
wait $gpid; rc=$?
is "umkit gdb reports gdb's SIGKILL (137)" "$rc" 137
like "... and says the kernel runs on" "$(cat "$work/hold.out")" "gdb was killed; the guest kernel runs on"
wait $apid; is "the stopped aging completes: the guest was resumed" "$?" 0
out=$("$UMKIT" exec $g -- cat /proc/loadavg 2>&1); rc=$?
like "the guest still answers" "$rc:$out" "^0:[0-9]"
check "the mirror answers again" cat "$RUN/$g/mnt/proc/loadavg"
is "no gdb is left" "$(pgrep -f "gdb .*-p $pid" | wc -l)" 0
out=$("$UMKIT" stop $g 2>&1)
is "umkit stop" "$?" 0

# --- a panic, decoded -----------------------------------------------------
out=$("$UMKIT" exec -V base+debug -- sh -c 'echo c > /proc/sysrq-trigger' 2>&1); rc=$?
is "sysrq crash: exit status 123" "$rc" 123
like "the panic is printed" "$out" "Kernel panic - not syncing: sysrq triggered crash"
like "call-trace lines carry file:line" "$out" "sysrq_handle_crash \(drivers/tty/sysrq\.c:[0-9]+\)"
like "... also in kernel/ or mm/" "$out" "\((kernel|mm)/[a-z_/]+\.c:[0-9]+"
"$UMKIT" start -V base+debug -n $g >/dev/null 2>&1
out=$("$UMKIT" exec $g -- sh -c 'echo c > /proc/sysrq-trigger' 2>&1); rc=$?
is "a named guest's panic: exit status 123" "$rc" 123
like "... decoded too" "$out" "sysrq_handle_crash \(drivers/tty/sysrq\.c:[0-9]+\)"
"$UMKIT" stop $g >/dev/null 2>&1
out=$("$UMKIT" exec -- sh -c 'echo c > /proc/sysrq-trigger' 2>&1); rc=$?
is "without debug info: exit status 123" "$rc" 123
like "without debug info: the hint" "$out" "call trace not decoded: .*-V base\+debug"

# --- exec --gdb from the first instruction --------------------------------
cat > "$work/first.gdb" <<'EOF'
info symbol $pc
break start_kernel
continue
bt 1
EOF
out=$("$UMKIT" exec -V base+debug --gdb-x "$work/first.gdb" -- echo booted 2>&1); rc=$?
is "exec --gdb-x: the command's status" "$rc" 0
like "exec --gdb-x: stopped at the exec, in the dynamic loader's _start" "$out" "_start in section .text of .*ld-linux"
like "exec --gdb-x: breakpoint at start_kernel" "$out" "Breakpoint 2, start_kernel \(\) at .*init/main\.c"
like "exec --gdb-x: then the guest boots and runs the command" "$out" "^booted$"

no_leftovers "no guest, mount or run/ entry is left"
is "no gdb is left" "$(pgrep -f "gdb -q -nx -batch" | wc -l)" 0
done_testing
