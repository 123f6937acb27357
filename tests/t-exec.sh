#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# One-shot guests: 'umkit exec' boots the base kernel, runs a command,
# passes its output and status through, and leaves nothing behind.
. "$(dirname "$0")/lib.sh"

out=$("$UMKIT" exec -- cat /sys/kernel/mm/lru_gen/enabled 2>&1)
like "MGLRU is on (lru_gen/enabled)" "$out" '^0x000[1-7]$'

# Only the lines the launcher uses are registered (ssl=none con=none,
# patches/base/0002): no tty device for the 62 other serial lines and
# 15 other consoles, and no "setup_one_line failed" for them either.
out=$("$UMKIT" exec -- sh -c 'ls /dev | grep -E "^tty(S)?[0-9]+$" | tr "\n" " "; dmesg | grep -c "setup_one_line failed"' 2>&1)
is "a one-shot guest has tty0 and ttyS1 only, and no line error in dmesg" "$out" "tty0 ttyS1 0"

# sched_clock() counts nanoseconds, not jiffies (patches/base/0003):
# dmesg's stamps are not all on a 10 ms tick, and two trace markers
# written one after the other with the default clock (local) are apart,
# by less than a tick.  A kernel without it: 0 lines, and one stamp twice.
out=$("$UMKIT" exec -- sh -c 'dmesg | sed -n "s/^\[ *[0-9]*\.\([0-9]*\)\].*/\1/p" | grep -vc "0000\$"
	T=/sys/kernel/tracing; grep -o "\[local\]" $T/trace_clock; echo 1 > $T/tracing_on
	echo a > $T/trace_marker; echo b > $T/trace_marker
	grep -o "[0-9]*\.[0-9]*: tracing_mark_write" $T/trace | cut -d: -f1 | tr "\n" " "' 2>&1)
like "dmesg has stamps between ticks, and two trace markers (clock local) are < 10 ms apart" \
	"$(printf '%s\n' "$out" | awk 'NR == 1 { n = $1 } NR == 2 { c = $1 } NR == 3 { d = $2 - $1 }
		END { printf "%s %s %s", (n > 10 ? "ticks-apart" : "on-ticks:" n), c, (d > 0 && d < 0.01 ? "apart" : "not-apart:" d) }')" \
	'^ticks-apart \[local\] apart$' || echo "# $out"

# The initrd is mapped from its file, not read into the guest's memory
# (patches/base/0004), and unmapped once unpacked.
out=$("$UMKIT" exec -- dmesg 2>&1)
like "the initrd was mapped, not read: 'Unmapped initrd' in dmesg, no 'Freeing initrd memory'" \
	"$(printf '%s\n' "$out" | grep -c 'Unmapped initrd: [0-9]*K$'):$(printf '%s\n' "$out" | grep -c 'Freeing initrd memory')" '^1:0$'

# The guest programs go into the initramfs without debug information
# (rootfs/rootfs.mk): the kernel unpacks every byte at each boot.
g=$(mktemp)
"$UMKIT" exec -- cat /usr/lib/umkit/umkit-guest > "$g" 2>/dev/null
is "the guest's umkit-guest has no debug sections (its build has: $(readelf -S build/rootfs/bin/umkit-guest | grep -c '\.debug_'))" \
	"$(readelf -h "$g" >/dev/null 2>&1 && echo elf):$(readelf -S "$g" 2>/dev/null | grep -c '\.debug_')" "elf:0"
rm -f "$g"

out=$("$UMKIT" exec -c 4 -- cat /sys/devices/system/cpu/online 2>&1)
is "-c 4 gives four CPUs online" "$out" "0-3"

out=$("$UMKIT" exec -- cat /sys/devices/system/cpu/online 2>&1)
is "two CPUs by default" "$out" "0-1"

out=$("$UMKIT" exec -- sh -c 'head -n 1 /sys/kernel/debug/lru_gen' 2>&1)
like "debugfs lru_gen is readable" "$out" '^memcg +[0-9]+'

check "compaction tracepoint mm_compaction_begin exists" \
	"$UMKIT" exec -- test -d /sys/kernel/tracing/events/compaction/mm_compaction_begin

out=$("$UMKIT" exec -- sh -c 'grep -c hostfs /proc/filesystems; true' 2>&1)
is "no hostfs in the guest kernel" "$out" "0"

out=$("$UMKIT" exec -m 512M -- sh -c 'grep MemTotal /proc/meminfo' 2>&1)
like "-m 512M sizes guest memory" "$out" 'MemTotal: +(49|50|51)[0-9]{4} kB'

out=$("$UMKIT" exec -- sh -c 'swapon -s 2>/dev/null || cat /proc/swaps' 2>&1)
like "zram swap is on" "$out" 'zram0'

"$UMKIT" exec -- sh -c 'exit 7' >/dev/null 2>&1
is "exit status passes through (exit 7)" "$?" 7

"$UMKIT" exec -- nosuchcommand >/dev/null 2>&1
is "a missing command gives 127" "$?" 127

"$UMKIT" exec -- sh -c 'kill -9 $$' >/dev/null 2>&1
is "death by signal 9 gives 137" "$?" 137

"$UMKIT" exec -- sh -c 'echo to-out; echo to-err >&2' >/tmp/umkit-t-out.$$ 2>/tmp/umkit-t-err.$$
is "stdout arrives on stdout only" "$(cat /tmp/umkit-t-out.$$)" "to-out"
is "stderr arrives on stderr only" "$(grep -v '^umkit:' /tmp/umkit-t-err.$$)" "to-err"
rm -f /tmp/umkit-t-out.$$ /tmp/umkit-t-err.$$

n=$("$UMKIT" exec -- sh -c 'seq 1 20000' | wc -l)
is "large output arrives whole (20000 lines)" "$n" 20000

no_leftovers "nothing left after the exec cases"

t0=$(date +%s%N)
"$UMKIT" exec -t 2 -- sleep 60 >/dev/null 2>&1
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
is "a timeout returns 124" "$rc" 124
if [ "$ms" -lt 3500 ]; then ok "timeout honoured within 1.5 s of -t 2 (${ms} ms)"
else not_ok "timeout honoured within 1.5 s of -t 2" "took ${ms} ms"; fi
no_leftovers "nothing left after a timeout"

err=$("$UMKIT" exec -- sh -c 'echo c > /proc/sysrq-trigger; sleep 5' 2>&1 >/dev/null)
rc=$?
is "a guest panic returns 123" "$rc" 123
like "the panic text is shown" "$err" 'Kernel panic - not syncing'
no_leftovers "nothing left after a panic"

# Ctrl-C (SIGINT to umkit) and SIGTERM kill the guest and clean up.
for sig in INT:130 TERM:143; do
	"$UMKIT" exec -- sleep 60 >/dev/null 2>&1 &
	pid=$!
	wait_ready $pid
	kill -"${sig%:*}" $pid
	wait $pid
	is "SIG${sig%:*} gives ${sig#*:}" "$?" "${sig#*:}"
	no_leftovers "nothing left after SIG${sig%:*}"
done

# A host process killed outright leaves a stale run dir; the next command
# cleans it (UML dies with its parent through PDEATHSIG).
"$UMKIT" exec -- sleep 60 >/dev/null 2>&1 &
pid=$!
wait_ready $pid
kill -KILL $pid
wait $pid 2>/dev/null
wait_gone "uml_dir=$RUN/exec-$pid/"	# UML dies with umkit (PDEATHSIG)
err=$("$UMKIT" exec -- true 2>&1)
like "the next command reports the stale guest" "$err" 'cleaning up stale guest exec-'
no_leftovers "a SIGKILLed umkit is cleaned up by the next command"

"$UMKIT" exec -c 99 -- true >/dev/null 2>&1
is "a bad option gives 125" "$?" 125
err=$("$UMKIT" exec -c 99 -- true 2>&1)
like "the error names the option" "$err" '^umkit: -c 99'
"$UMKIT" exec -V no-such-variant -- true >/dev/null 2>&1
is "an unknown variant gives 125" "$?" 125
err=$(KSRC=/nonexistent "$UMKIT" exec -- true 2>&1)
is "a bad KSRC gives 125" "$?" 125
like "and names it" "$err" 'KSRC=/nonexistent is not a Linux source tree'
err=$("$UMKIT" exec -k no/such/linux -- true 2>&1)
is "a -k kernel that is not there gives 125" "$?" 125
like "and names it" "$err" '^umkit: -k no/such/linux: No such file or directory'
no_leftovers "nothing left after a variant or kernel that cannot be had"
# A kit without its initramfs (UMKIT_TOP a directory with none): the
# start fails after run/NAME is made; under ASan (t-exec-asan) a name or
# path of it not freed is a leak, and the status is no longer 125.
notop=$(mktemp -d)
err=$(UMKIT_TOP=$notop "$UMKIT" exec -k "$TOP/build/k/base/linux" -- true 2>&1)
is "a kit without its initramfs gives 125" "$?" 125
like "... names the file" "$err" "^umkit: $notop/build/rootfs/initramfs.cpio: missing"
is "... and leaves no run directory of the guest" "$(ls "$notop/run" 2>&1)" "log"
rm -rf "$notop"

# -k with a relative path: the sandbox binds the kernel at its absolute
# path (a relative one failed: "bwrap: Can't mkdir parents for build/...").
out=$(cd "$TOP" && "$UMKIT" exec -k build/k/base/linux -- echo relative-ok 2>&1)
is "exec -k with a path relative to the current directory boots" "$out" relative-ok

# --host-cpu: once up, UML's processes (the kernel and its processes'
# stubs) on that host CPU only; the launcher is not pinned.
cpus_of() {	# umkit's pid -> the allowed CPUs of its guest's UML threads
	for p in $(pgrep -f "^$TOP/build/k/base/linux .*umid=umkit-exec-$1( |\$)"); do
		for t in /proc/$p/task/*; do sed -n 's/^Cpus_allowed_list:\t//p' $t/status; done
	done | sort -u | tr '\n' ' '
}
pinned() { [ "$(cpus_of "$1")" = "$2" ]; }	# umkit's pid, "CPUS " wanted
one_cpu() { cpus_of "$1" | grep -Eqx '[0-9]+ '; }
last=$(( $(getconf _NPROCESSORS_ONLN) - 1 ))
"$UMKIT" exec --host-cpu $last -- sleep 3 >/dev/null 2>&1 &
pid=$!
wait_proc "^$TOP/build/k/base/linux .*umid=umkit-exec-$pid( |\$)" 50
wait_until 50 pinned $pid "$last "	# the move waits for the guest to be up
cpus=$(cpus_of $pid)
is "exec --host-cpu $last: every UML process and thread allowed on CPU $last only" "$cpus" "$last "
is "... the launcher is not pinned" "$(sed -n 's/^Cpus_allowed_list:\t//p' /proc/$pid/status)" \
    "$(sed -n 's/^Cpus_allowed_list:\t//p' /proc/self/status)"
wait $pid
# auto: once up, every UML thread on one host CPU, one no other guest is
# on, so two guests at once get two CPUs.
"$UMKIT" exec --host-cpu auto -- sleep 4 >/dev/null 2>&1 &
p1=$!
UMKIT_HOST_CPU=auto "$UMKIT" exec -- sleep 4 >/dev/null 2>&1 &
p2=$!
wait_until 60 one_cpu $p1 && wait_until 60 one_cpu $p2
c1=$(cpus_of $p1) c2=$(cpus_of $p2)
like "auto: the first guest's UML threads all on one host CPU" "$c1" '^[0-9]+ $'
like "... the second one's too" "$c2" '^[0-9]+ $'
if [ "$last" -gt 0 ]; then
	if [ "$c1" != "$c2" ]; then ok "... two guests at once on two CPUs ($c1and $c2)"
	else not_ok "... two guests at once on two CPUs" "both: $c1"; fi
else
	skip "... two guests at once on two CPUs" "one host CPU"
fi
wait $p1 $p2
out=$(UMKIT_HOST_CPU=0 "$UMKIT" exec -- sh -c 'dd if=/dev/zero of=/dev/null bs=4k count=2000 2>&1 | tail -1' 2>&1)
is "UMKIT_HOST_CPU=0: a pinned guest runs" "$out" '2000+0 records out'
err=$("$UMKIT" exec --host-cpu x -- true 2>&1)
is "--host-cpu x gives 125" "$?" 125
like "... and names the option" "$err" "^umkit: --host-cpu x: want a host CPU number, 'auto' or 'any'"
err=$(UMKIT_HOST_CPU=-3 "$UMKIT" exec -- true 2>&1)
like "UMKIT_HOST_CPU=-3: the same error" "$err" "^umkit: --host-cpu -3: want"
no_leftovers "nothing left after the --host-cpu cases"

done_testing
