#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The mirror and recordings against real guests (umkit start mounts the
# mirror at run/NAME/mnt): vmstat keys equal the guest's own; lru_gen
# reads and an aging command written through the mirror raises max_seq;
# writes off the allowlist fail and change nothing; no host file through
# symlinks or '..'; 8 concurrent readers; two guests with two mirrors;
# record a guest, and record one that is stopped mid-way; kill a guest
# while a reader loops: EIO within 2 s, and stop leaves nothing behind.
. "$(dirname "$0")/lib.sh"

A=tmla B=tmlb
MA=$RUN/$A/mnt MB=$RUN/$B/mnt
TMP=$(mktemp -d /tmp/umkit-mlive.XXXXXX)
cleanup() {
	"$UMKIT" stop $A $B >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT

if [ ! -x "$UMKIT" ] || [ ! -x "$TOP/build/k/base/linux" ] ||
    [ ! -f "$TOP/build/rootfs/initramfs.cpio" ]; then
	skip "live mirror tests" "no built kernel, rootfs or ./umkit (run make)"
	done_testing
	exit
fi
if [ ! -w /dev/fuse ]; then
	skip "live mirror tests" "/dev/fuse is not usable here"
	done_testing
	exit
fi

ms() { date +%s%3N; }
# gone NAME: no mount, no UML process and no run/ entry left for NAME.
gone() {
	_m=$(grep " $RUN/$1/" /proc/mounts)
	_p=$(pgrep -f "umid=umkit-$1 " | tr '\n' ' ')
	if [ -z "$_m$_p" ] && [ ! -e "$RUN/$1" ]; then ok "$2"
	else not_ok "$2" "mounts: $_m" "pids: $_p" "run: $(ls "$RUN/$1" 2>&1)"; fi
}

out=$("$UMKIT" start -n $A 2>&1)
like "start mounts the mirror" "$out" "mirror at run/$A/mnt"
check "the mirror is a FUSE mount" grep -q " $MA fuse.umkit " /proc/mounts
is "the mirror's root holds proc and sys" "$(ls "$MA" | tr '\n' ' ')" "proc sys "

# /proc/vmstat: same keys as inside the guest.
mk=$(awk '{print $1}' "$MA/proc/vmstat")
gk=$("$UMKIT" exec $A -- cat /proc/vmstat | awk '{print $1}')
is "vmstat keys through the mirror equal the guest's" "$mk" "$gk"
like "vmstat has the compaction counters" "$mk" '^compact_migrate_scanned$'

# MGLRU: read lru_gen, age once through the mirror, max_seq rises.
lg=$(cat "$MA/sys/kernel/debug/lru_gen")
like "lru_gen reads through the mirror" "$lg" '^memcg +[0-9]+ '
V=$TOP/build/bin/umkit-value
lru() { "$V" "$MA" 'lru_gen[memcg=/,node=0].memcg' 'lru_gen[memcg=/,node=0].max_seq' 2>&1 |
	awk '{ print $2 }' | tr '\n' ' '; }
set -- $(lru)
memcg=$1 node=0 max=$2
if echo "+ $memcg $node $max" > "$MA/sys/kernel/debug/lru_gen"; then
	ok "aging command '+ $memcg $node $max' is accepted"
else
	not_ok "aging command '+ $memcg $node $max' is accepted"
fi
set -- $(lru)
is "max_seq rose by one" "$2" "$((max + 1))"
# (dd, not echo: dash reports every failed echo as "I/O error")
err=$(echo "+ $memcg $node 999999" | dd of="$MA/sys/kernel/debug/lru_gen" 2>&1)
like "a bad aging command fails with the guest's errno" "$err" 'Invalid argument'

# Read-only outside the allowlist.
f=proc/sys/vm/overcommit_memory
before=$(cat "$MA/$f")
err=$( (echo 1 > "$MA/$f") 2>&1)
like "a write off the allowlist fails with EACCES" "$err" 'Permission denied'
is "and changes nothing in the guest" "$("$UMKIT" exec $A -- cat /$f)" "$before"
check "touch cannot create files" sh -c "! touch '$MA/proc/newfile' 2>/dev/null"

# Escapes: '..' and guest symlinks reach no host file.
check "mnt/proc/1/root/etc/passwd is not the host's" \
	sh -c "! cat '$MA/proc/1/root/etc/passwd' >/dev/null 2>&1"
check "mnt/proc/../../etc/passwd is not the host's" \
	sh -c "! cat '$MA/proc/../../etc/passwd' >/dev/null 2>&1"
like "an absolute guest symlink stays inside the mount" \
	"$(readlink "$MA/proc/1/exe")" '^\.\./\.\./'
bad= links=0
for l in "$MA"/proc/1/* "$MA"/proc/1/fd/* "$MA"/sys/class/*/*; do
	[ -L "$l" ] || continue
	links=$((links + 1))
	r=$(realpath -m "$l")
	case "$r" in "$MA"/*|"$MA") ;; *) bad="$bad $l->$r" ;; esac
done
if [ "$links" -ge 10 ] && [ -z "$bad" ]; then
	ok "no guest symlink resolves outside the mount ($links checked)"
else
	not_ok "no guest symlink resolves outside the mount" "$links symlinks checked" "$bad"
fi

# Eight concurrent readers each get whole, well-formed files.
nkeys=$(printf '%s\n' "$mk" | wc -l)
for i in 1 2 3 4 5 6 7 8; do
	(for j in $(seq 25); do
		awk 'NF != 2 || $2 !~ /^[0-9]+$/ { bad++ } END { print NR, bad + 0 }' \
			"$MA/proc/vmstat"
	done > "$TMP/r$i") &
done
wait
res=$(cat "$TMP"/r* | sort | uniq -c | awk '{print $1, $2, $3}')
is "8 readers x 25 reads: all complete and well formed" "$res" "200 $nkeys 0"

# Two guests, two mirrors.
out=$("$UMKIT" start -n $B -c 1 -m 128M 2>&1)
like "a second guest mounts its own mirror" "$out" "mirror at run/$B/mnt"
ba=$(cat "$MA/proc/sys/kernel/random/boot_id")
bb=$(cat "$MB/proc/sys/kernel/random/boot_id")
if [ -n "$ba" ] && [ -n "$bb" ] && [ "$ba" != "$bb" ]; then
	ok "the two mirrors show two different guests"
else
	not_ok "the two mirrors show two different guests" "$ba" "$bb"
fi
is "each mirror shows its own guest's CPUs" \
	"$(cat "$MA/sys/devices/system/cpu/online") $(cat "$MB/sys/devices/system/cpu/online")" \
	"0-1 0"

# Record a running guest for 2 s.
R=$TMP/rec
"$UMKIT" record $A "$R" --every 200 --for 2 2>"$TMP/rec.log"
is "record exits 0" "$?" 0
is "recording header line" "$(head -1 "$R/umkit-recording")" "umkit-recording 1"
like "recording header keys" "$(cat "$R/umkit-recording")" '^started_unix_ms [0-9]{13}$'
# (at most 10 ticks; on a loaded host a snapshot of every file through
# the mirror may take several: speed is make bench-mirror's business)
n=$(wc -l < "$R/index")
if [ "$n" -ge 2 ] && [ "$n" -le 10 ]; then ok "2 s at 200 ms: $n snapshots"
else not_ok "2 s at 200 ms: 2..10 snapshots" "got $n" "$(cat "$TMP/rec.log")"; fi
like "index lines are 'seq unix_ms elapsed_ms'" "$(head -1 "$R/index")" '^000000 [0-9]{13} [0-9]+$'
last=$(tail -1 "$R/index" | cut -d' ' -f1)
is "a snapshot's vmstat has the guest's keys" \
	"$(awk '{print $1}' "$R/snap/$last/proc/vmstat")" "$gk"
like "a snapshot has lru_gen" "$(cat "$R/snap/$last/sys/kernel/debug/lru_gen")" '^memcg '
like "a snapshot is a root for values" \
	"$("$V" "$R/snap/$last" 'lru_gen[memcg=/,node=0].max_seq' memory.stat.anon 2>&1 |
	tr '\n' ' ')" "^lru_gen\[memcg=/,node=0\]\.max_seq $((max + 1)) memory.stat.anon [0-9]+ $"
like "a snapshot has the guest's processes" "$(ls "$R/snap/$last/proc")" '^1$'

# Record guest B and stop it mid-way: the recording ends cleanly.
R2=$TMP/rec2
t0=$(ms)
"$UMKIT" record $B "$R2" --every 200 --for 30 2>"$TMP/rec2.log" &
rp=$!
# stop it once three snapshots are in (a loaded host is slow to take them)
i=0
while [ $i -lt 100 ] && [ "$(wc -l < "$R2/index" 2>/dev/null || echo 0)" -lt 3 ]; do
	sleep 0.1; i=$((i + 1))
done
"$UMKIT" stop $B
wait $rp
rc=$?
t1=$(ms)
is "recording a guest that stops exits 0" "$rc" 0
if [ $((t1 - t0)) -lt 10000 ]; then ok "and ends when the guest goes ($((t1 - t0)) ms)"
else not_ok "and ends when the guest goes" "$((t1 - t0)) ms" "$(cat "$TMP/rec2.log")"; fi
n=$(wc -l < "$R2/index")
last=$(tail -1 "$R2/index" | cut -d' ' -f1)
if [ "$n" -ge 3 ] && [ -s "$R2/snap/$last/proc/vmstat" ] &&
    [ -z "$(ls -a "$R2/snap" | grep '^\.tmp')" ]; then
	ok "the stopped guest's recording reads back: $n whole snapshots"
else
	not_ok "the stopped guest's recording reads back" "index: $n" \
		"$(ls -a "$R2/snap")" "$(cat "$TMP/rec2.log")"
fi
gone $B "stop $B leaves no mount, process or run/ entry"

# Binary files read at any offset: the same bytes as in the guest, for
# low pfns (the kernel image: their flags do not change).
hb=$(dd if="$MA/proc/kpageflags" bs=8 skip=16 count=64 2>/dev/null | od -An -tx8 | tr -s ' \n' ' ')
gb=$("$UMKIT" exec $A -- sh -c 'dd if=/proc/kpageflags bs=8 skip=16 count=64 2>/dev/null | od -An -tx8' | tr -s ' \n' ' ')
if [ -n "$hb" ] && [ "$hb" = "$gb" ]; then ok "kpageflags at an offset reads the guest's bytes"
else not_ok "kpageflags at an offset reads the guest's bytes" "mirror: $hb" "guest: $gb"; fi

# A hung guest (every UML process stopped): reads fail with EIO within
# 2 s instead of hanging; once it runs again, reads work again.
pg=$(cat "$RUN/$A/uml.pid")
/bin/kill -s STOP -- "-$pg"
t0=$(ms)
err=$(cat "$MA/proc/meminfo" 2>&1 >/dev/null)
dt=$(($(ms) - t0))
/bin/kill -s CONT -- "-$pg"
like "a hung guest's read fails with EIO" "$err" 'Input/output error'
if [ $dt -le 2000 ]; then ok "and within 2 s ($dt ms)"
else not_ok "a hung guest's read fails within 2 s" "$dt ms"; fi
meminfo_reads() { head -1 "$MA/proc/meminfo" 2>/dev/null | grep -q '^MemTotal:'; }
wait_until 50 meminfo_reads
like "reads work again once the guest runs" "$(head -1 "$MA/proc/meminfo" 2>&1)" '^MemTotal:'

# Kill guest A while a reader loops: EIO within 2 s.
(while cat "$MA/proc/vmstat" > /dev/null 2> "$TMP/err"; do : > "$TMP/reading"; done
	ms > "$TMP/failed") &
rp=$!
wait_until 50 test -e "$TMP/reading"
t0=$(ms)
kill -KILL "$(cat "$RUN/$A/uml.pid")"
i=0
while [ ! -s "$TMP/failed" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
kill $rp 2>/dev/null
if [ -s "$TMP/failed" ]; then
	dt=$(($(cat "$TMP/failed") - t0))
	if [ $dt -le 2000 ]; then ok "reads fail $dt ms after the guest is killed"
	else not_ok "reads fail within 2 s of the guest's death" "$dt ms"; fi
else
	not_ok "reads fail within 2 s of the guest's death" "still reading after 5 s"
fi
like "with EIO" "$(cat "$TMP/err")" 'Input/output error'
"$UMKIT" stop $A >/dev/null 2>&1
gone $A "stop after a guest's death leaves no mount, process or run/ entry"

done_testing
