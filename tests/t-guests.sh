#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Named guests: start, list, exec, console, stop; two at once; a crashed
# supervisor is cleaned up by the next command.
. "$(dirname "$0")/lib.sh"

cleanup() { "$UMKIT" stop ta tb >/dev/null 2>&1; }
trap cleanup EXIT

out=$("$UMKIT" start -n ta 2>&1)
like "start prints the guest and its mirror" "$out" 'guest ta started .*run/ta/mnt'
out=$("$UMKIT" start -n tb -c 1 -m 128M -A 2>&1)
like "a second guest starts beside it" "$out" 'guest tb started \(base, 1 CPUs, 128 MiB\)'

# Host ASLR is off for the UML process (personality ADDR_NO_RANDOMIZE,
# 0x0040000) unless -A asks for it.
is "a guest's UML process runs with ASLR off" \
	"$(cat /proc/"$(cat "$RUN/ta/uml.pid")"/personality)" "00040000"
is "-A leaves ASLR on" \
	"$(cat /proc/"$(cat "$RUN/tb/uml.pid")"/personality)" "00000000"

out=$("$UMKIT" start -n ta 2>&1)
rc=$?
is "a taken name is refused with 125" "$rc" 125
like "the refusal names the guest" "$out" "guest named 'ta' is already running"

out=$("$UMKIT" list)
like "list shows ta running" "$out" '^ta +base +2 +256M running'
like "list shows tb running" "$out" '^tb +base +1 +128M running'

out=$("$UMKIT" exec ta -- cat /sys/devices/system/cpu/online)
is "exec NAME runs in that guest (ta: 2 CPUs)" "$out" "0-1"
out=$("$UMKIT" exec tb -- cat /sys/devices/system/cpu/online)
is "exec NAME runs in that guest (tb: 1 CPU)" "$out" "0"
"$UMKIT" exec ta -- sh -c 'echo o; echo e >&2; exit 9' >/tmp/umkit-g-o.$$ 2>/tmp/umkit-g-e.$$
is "exec NAME passes the exit status (9)" "$?" 9
is "exec NAME keeps stdout apart" "$(cat /tmp/umkit-g-o.$$)" "o"
is "exec NAME keeps stderr apart" "$(cat /tmp/umkit-g-e.$$)" "e"
rm -f /tmp/umkit-g-o.$$ /tmp/umkit-g-e.$$

"$UMKIT" exec -t 1 ta -- sleep 30 >/dev/null 2>&1
is "exec -t in a named guest returns 124 when the command is killed" "$?" 124

# State persists between commands in a long-lived guest.
"$UMKIT" exec ta -- sh -c 'echo persisted > /tmp/mark'
out=$("$UMKIT" exec ta -- cat /tmp/mark)
is "a named guest keeps its state between commands" "$out" "persisted"

out=$(printf 'echo console-$((6*7))\n' | timeout 20 "$UMKIT" console ta 2>&1)
like "console runs a shell in the guest" "$out" 'console-42'

# Trace events stream from the guest until Ctrl-C, then are disabled.
timeout -s INT 5 "$UMKIT" trace ta compaction > /tmp/umkit-g-t.$$ 2>&1 &
tp=$!
# Recorded from their enabling on, streamed once the client reads.
wait_until 30 grep -qx 1 "$RUN/ta/mnt/sys/kernel/tracing/events/compaction/enable"
"$UMKIT" exec ta -- sh -c 'echo 1 > /proc/sys/vm/compact_memory'
wait $tp
like "trace streams compaction events" "$(cat /tmp/umkit-g-t.$$)" 'mm_compaction_begin: zone_start=0x0'
is "trace disables the events it enabled" \
	"$(cat "$RUN/ta/mnt/sys/kernel/tracing/events/compaction/enable")" "0"
rm -f /tmp/umkit-g-t.$$

# A trace client that stops reading (Ctrl-Z) is dropped by the
# supervisor, never waited for: ta still stops in time.
# (sched events flood the stream: the stopped client's socket fills.)
"$UMKIT" trace ta sched > /tmp/umkit-g-s.$$ 2>&1 &
tp=$!
wait_until 50 test -s /tmp/umkit-g-s.$$	# connected: events arrive
kill -STOP $tp
"$UMKIT" exec ta -- sh -c 'i=0; while [ $i -lt 300 ]; do sleep 0.01; i=$((i+1)); done' >/dev/null 2>&1
# Another user's connection: refused (the socket's peer is checked).
# The directories and the socket opened up, as on a careless host: the
# supervisor itself must still say no.  Only where nobody can reach the
# checkout at all (a clone below a private directory cannot be).
reach=
if id nobody >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
	chmod 755 "$RUN" "$RUN/ta"
	chmod 666 "$RUN/ta/ctl.sock"
	runuser -u nobody -- test -w "$RUN/ta/ctl.sock" 2>/dev/null && reach=1
	[ -n "$reach" ] || {
		chmod 700 "$RUN" "$RUN/ta"
		chmod 600 "$RUN/ta/ctl.sock"
	}
fi
if [ -n "$reach" ]; then
	out=$(cd / && runuser -u nobody -- env UMKIT_TOP="$TOP" "$TOP/build/bin/umkit" exec ta -- echo reached 2>&1)
	chmod 700 "$RUN" "$RUN/ta"
	chmod 600 "$RUN/ta/ctl.sock"
	if printf '%s\n' "$out" | grep -q reached; then
		not_ok "another user's request is refused by the supervisor" "$out"
	else ok "another user's request is refused by the supervisor"; fi
	like "and ta's log says so" "$(cat "$RUN/log/ta.host.log" 2>/dev/null)" 'a connection from another user was refused'
else
	skip "another user's request is refused by the supervisor" \
		"needs root, the user nobody, and a checkout nobody can reach ($TOP)"
	skip "and ta's log says so" "see above"
fi

check "the mirror of ta is mounted" grep -q " $RUN/ta/mnt fuse" /proc/mounts
t0=$(date +%s)
"$UMKIT" stop ta
dt=$(( $(date +%s) - t0 ))
if [ $dt -le 5 ]; then ok "stop with a stopped trace client takes ${dt} s (at most 5)"
else not_ok "stop with a stopped trace client took ${dt} s"; fi
kill -CONT $tp 2>/dev/null
kill $tp 2>/dev/null
wait $tp 2>/dev/null
rm -f /tmp/umkit-g-s.$$
out=$("$UMKIT" list)
if printf '%s\n' "$out" | grep -q '^ta '; then not_ok "stop removes ta from the list" "$out"
else ok "stop removes ta from the list"; fi
like "tb still runs after ta stopped" "$out" '^tb +base .* running'
is "tb still answers" "$("$UMKIT" exec tb -- echo alive)" "alive"
if grep -q " $RUN/ta/mnt " /proc/mounts; then not_ok "ta's mirror is unmounted"
else ok "ta's mirror is unmounted"; fi

# Kill tb's supervisor outright: UML dies with it (PDEATHSIG), and the
# next command removes the stale mount and directory.
sup=$(cut -d' ' -f1 "$RUN/tb/pid")
kill -KILL "$sup"
wait_gone "uml_dir=$RUN/tb/"	# UML dies with its supervisor (PDEATHSIG)
"$UMKIT" list >/dev/null 2>&1
no_leftovers "a killed supervisor leaves nothing after the next command"

# What the kit did not make in run/ is not a stale guest: a directory
# without run_create()'s pid file, older than the 5 s a new one may lack
# it, stays (a binary that once took / for its top cleaned out /run).
mkdir "$RUN/notours" && echo keep > "$RUN/notours/file"
touch -d '1 hour ago' "$RUN/notours"
"$UMKIT" list >/dev/null 2>&1
is "the next command leaves a directory it did not make in run/" \
	"$(cat "$RUN/notours/file" 2>&1)" keep
rm -rf "$RUN/notours"

out=$("$UMKIT" stop nosuch 2>&1)
like "stopping an unknown guest says so" "$out" "no guest named 'nosuch'"

done_testing
