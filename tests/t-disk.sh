#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# beside tests: images and mounts of its own guests
# The guest's scratch disk: an ext4 image per guest at /mnt/disk, sized by
# -d, none with -d 0, its pages on the file LRU, removed with its guest.
. "$(dirname "$0")/lib.sh"

A=tdisk-a-$$ B=tdisk-b-$$
cleanup() { "$UMKIT" stop $A $B >/dev/null 2>&1; }
trap cleanup EXIT
# Disk images under run/ (one per running guest), but for guests that ran
# before this test started.
images() {
	for f in "$RUN"/*/disk.img; do
		[ -e "$f" ] || continue
		d=${f%/disk.img}
		printf '%s\n' "$_before_run" | grep -qxF "${d##*/}" || printf '%s ' "$f"
	done
}

out=$("$UMKIT" exec -- sh -c 'grep " /mnt/disk " /proc/mounts; df -k /mnt/disk | tail -1' 2>&1)
like "/init mounts the disk at /mnt/disk (ext4)" "$out" '^/dev/ubda /mnt/disk ext4 rw,noatime'
like "the default disk holds 2 GiB" "$out" ' 2[0-9]{6} +[0-9]+ +[0-9]+ '

out=$("$UMKIT" exec -d 512M -- cat /sys/block/ubda/size 2>&1)
is "-d 512M gives a 512 MiB disk (1048576 sectors)" "$out" 1048576

out=$("$UMKIT" exec -d 0 -- sh -c 'ls /dev/ubda 2>&1; grep -c /mnt/disk /proc/mounts' 2>&1)
like "-d 0 gives no disk" "$out" 'No such file or directory'
like "and nothing mounted at /mnt/disk" "$out" '^0$'

for bad in 8M x 2Q -1; do
	err=$("$UMKIT" exec -d $bad -- true 2>&1)
	rc=$?
	if [ $rc -eq 125 ] && printf '%s\n' "$err" | grep -q "^umkit: -d $bad: want a disk size"; then
		ok "-d $bad is refused (125) with the option named"
	else
		not_ok "-d $bad is refused (125) with the option named" "rc=$rc" "$err"
	fi
done
no_leftovers "nothing left after refused -d values"

# Reading a file on the disk puts its pages on the file LRU (lru_gen's
# fourth column); files in the initramfs never get there.
out=$("$UMKIT" exec -- sh -c '
	lru() { awk "/^memcg/ { m = \$2 } m == 1 && NF == 4 { s += \$4 } END { print s + 0 }" /sys/kernel/debug/lru_gen; }
	dd if=/dev/zero of=/mnt/disk/f bs=1M count=32 2>/dev/null && sync
	echo 3 > /proc/sys/vm/drop_caches
	a=$(lru); cat /mnt/disk/f > /dev/null; b=$(lru)
	echo $((b - a))' 2>&1)
if [ "$out" -ge 8192 ] 2>/dev/null; then ok "reading a 32 MiB file on the disk adds >= 8192 file pages to lru_gen ($out)"
else not_ok "reading a 32 MiB file on the disk adds >= 8192 file pages to lru_gen" "$out"; fi

# Two guests at once: each its own image, apart from the other.
"$UMKIT" start -n $A >/dev/null 2>&1 && "$UMKIT" start -n $B -d 1G >/dev/null 2>&1
check "two guests start" test -S "$RUN/$A/ctl.sock" -a -S "$RUN/$B/ctl.sock"
"$UMKIT" exec $A -- sh -c 'echo from-a > /mnt/disk/mark'
is "a file written in one guest's disk stays there" \
	"$("$UMKIT" exec $A -- cat /mnt/disk/mark 2>&1)" "from-a"
is "the other guest's disk does not have it" \
	"$("$UMKIT" exec $B -- sh -c 'ls /mnt/disk/mark 2>/dev/null; echo none')" "none"
is "each guest has its own size (1G: 2097152 sectors)" \
	"$("$UMKIT" exec $B -- cat /sys/block/ubda/size)" 2097152
ia=$(stat -c %i "$RUN/$A/disk.img" 2>/dev/null) ib=$(stat -c %i "$RUN/$B/disk.img" 2>/dev/null)
if [ -n "$ia" ] && [ -n "$ib" ] && [ "$ia" != "$ib" ]; then ok "each image is its own file in run/NAME/"
else not_ok "each image is its own file in run/NAME/" "inodes: '$ia' '$ib'"; fi
kb=$(du -k "$RUN/$A/disk.img" | cut -f1)
if [ "$kb" -lt 16384 ]; then ok "the 2 GiB image is sparse on the host (${kb} KiB)"
else not_ok "the 2 GiB image is sparse on the host" "${kb} KiB"; fi
"$UMKIT" stop $A $B >/dev/null 2>&1
is "no image left after stop" "$(images)" ""

# One-shot guests: the image exists while the command runs, and is gone
# after a timeout, a panic, Ctrl-C and a SIGKILLed umkit.
"$UMKIT" exec -t 3 -- sleep 60 >/dev/null 2>&1 &
pid=$!
wait_ready $pid
like "a one-shot guest's image is in run/exec-PID/" "$(images)" "/exec-$pid/disk.img"
wait $pid
is "-t timeout returns 124" "$?" 124
is "no image left after a timeout" "$(images)" ""

"$UMKIT" exec -- sh -c 'echo x > /mnt/disk/x; echo c > /proc/sysrq-trigger; sleep 5' >/dev/null 2>&1
is "a panic returns 123" "$?" 123
is "no image left after a panic" "$(images)" ""

"$UMKIT" exec -- sleep 60 >/dev/null 2>&1 &
pid=$!
wait_ready $pid
kill -INT $pid
wait $pid
is "Ctrl-C returns 130" "$?" 130
is "no image left after Ctrl-C" "$(images)" ""

"$UMKIT" exec -- sleep 60 >/dev/null 2>&1 &
pid=$!
wait_ready $pid
kill -KILL $pid
wait $pid 2>/dev/null
wait_gone "uml_dir=$RUN/exec-$pid/"	# UML dies with umkit (PDEATHSIG)
"$UMKIT" list >/dev/null 2>&1
is "no image left after a SIGKILLed umkit and the next command" "$(images)" ""

# A missing template is made again on first use.
rm -f "$TOP/build/disk/ext4-96M.img"
is "a disk of a new size works (its template is made on first use)" \
	"$("$UMKIT" exec -d 96M -- cat /sys/block/ubda/size 2>&1)" 196608
check "and its template stays for the next guest" test -f "$TOP/build/disk/ext4-96M.img"
rm -f "$TOP/build/disk/ext4-96M.img"

no_leftovers "nothing left after the disk tests"
done_testing
