#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# An ordinary user: 'umkit start', a read of the mirror and 'umkit stop'
# work for a user who may open /dev/fuse (the mount then goes through the
# setuid fusermount3, the unmount through 'fusermount3 -u'); a user who
# may not gets one line saying so before anything boots.  Needs root, to
# create the user (umkit-test) and to give it a /dev/fuse of its own in a
# private mount namespace (the host's /dev/fuse is left as it is).
. "$(dirname "$0")/lib.sh"

U=umkit-test
if [ "$(id -u)" -ne 0 ]; then
	skip "start, read and stop as an ordinary user" "needs root to create the user $U"
	done_testing; exit
fi
for c in useradd runuser unshare mknod fusermount3; do
	if ! command -v $c >/dev/null; then
		skip "start, read and stop as an ordinary user" "no $c here"
		done_testing; exit
	fi
done
id "$U" >/dev/null 2>&1 ||
	useradd --system --no-create-home --shell /usr/sbin/nologin "$U" ||
	{ not_ok "create the user $U"; done_testing; exit; }

# The kit as the user sees it: a copy of the built tree that it owns (the
# kernel and rootfs hard-linked where possible, still root's, readable).
T=$(mktemp -d /tmp/umkit-nonroot.XXXXXX)
# The copy finds its tree from its own path: no UMKIT_TOP (tests/run sets it).
as() { runuser -u "$U" -- env -u UMKIT_TOP "$@"; }
cleanup() {
	as "$T/build/bin/umkit" stop nr >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$T/build/bin" "$T/build/k/base" "$T/build/rootfs" "$T/uml/link" "$T/uml/guest"
cp "$TOP/build/bin/umkit" "$T/build/bin/"
cp uml/link/allow.conf "$T/uml/link/"
cp uml/guest/mkdisk.sh "$T/uml/guest/"
cp uml/uml.mk "$T/uml/"	# what makes $T a checkout (util.h, CHECKOUT_MARKER)
for f in build/k/base/linux build/rootfs/initramfs.cpio; do
	ln "$TOP/$f" "$T/$f" 2>/dev/null || cp -p "$TOP/$f" "$T/$f"
done
find "$T" -type d -exec chown "$U" {} +
chown "$U" "$T/build/bin/umkit" "$T/uml/link/allow.conf" "$T/uml/guest/mkdisk.sh"
chmod 755 "$T"
K="$T/build/bin/umkit"
uml_of_user() { pgrep -u "$U" -f "$T/build/k/" | tr '\n' ' '; }
entries() { ls "$T/run" 2>/dev/null | grep -vx log | tr '\n' ' '; }

# This host's /dev/fuse, as it is.
if as sh -c ': <>/dev/fuse' 2>/dev/null; then
	skip "a user who may not open /dev/fuse is told so" "$U may open this host's /dev/fuse"
	skip "in one line" "see above"
	skip "and nothing is left" "see above"
else
	out=$(as "$K" start -n nr 2>&1)
	rc=$?
	is "a user who may not open /dev/fuse: start exits 125" "$rc" 125
	is "in one line" "$(printf '%s\n' "$out" | wc -l)" 1
	like "naming /dev/fuse and the remedy" "$out" \
		'^umkit: fuse: /dev/fuse .*Permission denied.*chmod 0666 /dev/fuse'
	is "and nothing is left" "$(uml_of_user)$(entries)" ""
fi

# A /dev/fuse the user may open, in a mount namespace of the test's own.
mknod "$T/fuse" c 10 229 && chown "$U" "$T/fuse" && chmod 600 "$T/fuse"
R="$T/res"
unshare -m --propagation private sh -c '
	T=$1 U=$2 R=$3 K=$T/build/bin/umkit
	as() { runuser -u "$U" -- env -u UMKIT_TOP "$@"; }
	mount --bind "$T/fuse" /dev/fuse || exit 1
	as "$K" start -n nr > "$R.start" 2>&1; echo $? > "$R.start.rc"
	grep " $T/run/nr/mnt " /proc/mounts > "$R.mount"
	as sh -c "grep MemTotal $T/run/nr/mnt/proc/meminfo" > "$R.read" 2>&1
	as sh -c "echo 1 > $T/run/nr/mnt/proc/sys/vm/overcommit_memory" \
		> "$R.write" 2>&1; echo $? > "$R.write.rc"
	as "$K" list > "$R.list" 2>&1
	as "$K" stop nr > "$R.stop" 2>&1; echo $? > "$R.stop.rc"
	grep " $T/" /proc/mounts > "$R.left"
	exit 0
' sh "$T" "$U" "$R"
is "the namespace with the user's /dev/fuse is set up" "$?" 0
is "as $U, start exits 0" "$(cat "$R.start.rc")" 0
like "and names the mirror" "$(cat "$R.start")" 'guest nr started .*run/nr/mnt'
like "the mirror is a FUSE mount of the user's" "$(cat "$R.mount")" \
	"fuse.umkit .*user_id=$(id -u "$U")"
like "$U reads the guest's meminfo through it" "$(cat "$R.read")" '^MemTotal: +[0-9]+ kB$'
like "a write outside the allowlist is refused" "$(cat "$R.write.rc"):$(cat "$R.write")" \
	'^[1-9][0-9]*:.*Permission denied'
like "list shows the guest running" "$(cat "$R.list")" '^nr +base +2 +256M running'
is "stop exits 0" "$(cat "$R.stop.rc")" 0
is "no mount is left (fusermount3 -u)" "$(cat "$R.left")" ""
is "no UML process or run/ entry is left" "$(uml_of_user)$(entries)" ""
no_leftovers "nothing left in the checkout either"

done_testing
