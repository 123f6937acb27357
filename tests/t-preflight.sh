#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Host preflight: 'umkit doctor' on this host, a noexec TMPDIR (a working
# guest through the fallback, or one line saying why not), and a failed
# boot that shows the console's last lines.
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d /tmp/umkit-preflight.XXXXXX)
cleanup() {
	for m in "$tmp/noexec" "$tmp/top"; do
		mountpoint -q "$m" 2>/dev/null && umount "$m"
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

out=$("$UMKIT" doctor 2>&1)
rc=$?
for c in "temp dir" seccomp fuse aslr rootfs kernel; do
	is "doctor reports '$c' once, as ok, warn or fix" \
		"$(printf '%s\n' "$out" | grep -cE "^(ok|warn|fix) +$c ")" 1
done
fixes=$(printf '%s\n' "$out" | grep -c '^fix ')
if [ "$fixes" -eq 0 ]; then want=0; else want=1; fi
is "doctor exits $want with $fixes checks to fix" "$rc" "$want"
like "on this host UML's checks pass" "$out" '^ok +seccomp '
if [ "$(id -u)" -ne 0 ]; then
	skip "a noexec TMPDIR still gives a working guest" "needs root to mount a tmpfs"
	skip "and says why once" "needs root"
	skip "doctor warns about a noexec TMPDIR" "needs root"
	skip "a noexec TMPDIR and a noexec kit directory are one clear error" "needs root"
else
	mkdir "$tmp/noexec" "$tmp/top"
	mount -t tmpfs -o noexec,size=16m umkit-test "$tmp/noexec"
	out=$(TMPDIR="$tmp/noexec" "$UMKIT" exec -- echo guest-ran 2>"$tmp/err")
	rc=$?
	is "a noexec TMPDIR still gives a working guest" "$rc:$out" "0:guest-ran"
	is "and says why once" "$(grep -c '^umkit: ' "$tmp/err")" 1
	like "naming the directory and noexec" "$(cat "$tmp/err")" \
		"^umkit: temp dir: \\\$TMPDIR=$tmp/noexec: mounted noexec"
	like "doctor warns about a noexec TMPDIR" \
		"$(TMPDIR="$tmp/noexec" "$UMKIT" doctor 2>&1)" '^warn +temp dir +\$TMPDIR=.*mounted noexec'
	# The kit's own directory on a noexec mount too: nothing to fall back on.
	mount -t tmpfs -o noexec,size=16m umkit-test "$tmp/top"
	mkdir -p "$tmp/top/build/rootfs"
	cp "$TOP/build/rootfs/initramfs.cpio" "$tmp/top/build/rootfs/"
	out=$(UMKIT_TOP="$tmp/top" TMPDIR="$tmp/noexec" "$UMKIT" exec \
		-k "$TOP/build/k/base/linux" -- true 2>&1)
	rc=$?
	is "a noexec TMPDIR and a noexec kit directory exit 125" "$rc" 125
	is "with one line" "$(printf '%s\n' "$out" | wc -l)" 1
	like "naming both and the remedy" "$out" \
		"^umkit: temp dir: .*noexec.*; $tmp/top/run: mounted noexec.*; set TMPDIR to"
	if [ -z "$(ls "$tmp/top/run")" ]; then ok "and leaves nothing in its run/"
	else not_ok "and leaves nothing in its run/" "$(ls "$tmp/top/run")"; fi
fi

# A kernel that fails at once: umkit's error shows what its console said.
cat > "$tmp/badkernel" <<'K'
#!/bin/sh
echo "badkernel: this is not a kernel"
echo "badkernel: giving up"
exit 1
K
chmod +x "$tmp/badkernel"
out=$("$UMKIT" exec -k "$tmp/badkernel" -- true 2>&1)
rc=$?
is "a failed boot exits 125" "$rc" 125
like "and shows the console's last lines" "$out" '^    badkernel: giving up$'
like "in order" "$(printf '%s\n' "$out" | grep badkernel | tr '\n' ' ')" \
	'this is not a kernel .*giving up'
out=$("$UMKIT" start -n tpf -k "$tmp/badkernel" 2>&1)
rc=$?
is "a named guest whose boot fails exits 125" "$rc" 125
like "and shows the console's last lines too" "$out" '^    badkernel: giving up$'
no_leftovers "nothing left behind"

done_testing
