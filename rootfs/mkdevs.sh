#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Print a newc cpio archive holding /dev and /dev/console, so the kernel has
# a console before /init runs.  Device nodes cannot be made without root,
# so the archive is written directly; the kernel unpacks concatenated
# archives one after another.
set -eu
ino=1
entry() {	# name mode(hex) rdevmajor rdevminor
	n=$(( ${#1} + 1 ))
	printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X' \
		"$ino" "$2" 0 0 1 0 0 0 0 "$3" "$4" "$n" 0
	printf '%s\0' "$1"
	pad=$(( (4 - (110 + n) % 4) % 4 ))
	[ "$pad" -eq 0 ] || head -c "$pad" /dev/zero
	ino=$((ino + 1))
}
entry dev 0x41ed 0 0		# directory 0755
entry dev/console 0x2180 5 1	# char device 0600, 5:1
entry 'TRAILER!!!' 0 0 0
