#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# install-build.sh - a student builds a variant of their own on an
# installed kit (issue 14, item 3): 'make test-install-build', not part of
# 'make test' (one unpack of the kernel source and one kernel build).
#
# As root: make install into a DESTDIR, then the administrator's step,
# PREFIX/lib/umkit/kernel/shared-cache.sh, into a shared cache of this test's own
# (the pinned source unpacked, a ccache filled by one base build; the
# package comes from this checkout's cache and the ccache starts as a copy
# of this checkout's, so neither a download nor a cold build is needed).
# The shared ccache is ccache's file: remote storage layout, filled with
# no locale and no rustc in the config (uml/kernel/kbuild.sh), so a student's
# hashes match the administrator's.
# Then an ordinary user with a fresh home puts a variant in
# ~/.local/share/umkit/patches/hello (one patch to mm/vmscan.c), and the
# installed umkit builds and boots it: the source is the shared one (no
# download into the user's cache), the shared ccache serves the unchanged
# objects, the patch is in the kernel that runs, nothing under the prefix
# or in the shared cache was written, and base still runs the installed
# kernel without a build.
. "$(dirname "$0")/lib.sh"

U=umkit-test
if [ "$(id -u)" -ne 0 ]; then
	skip "a student's variant on an installed kit" "needs root to create the user $U"
	done_testing; exit
fi
id "$U" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$U" ||
	{ not_ok "create the user $U"; done_testing; exit; }

T=$(mktemp -d /tmp/umkit-ibuild.XXXXXX)
chmod 755 "$T"
D=$T/dest P=/usr/local S=$T/shared H=$T/home
K=$D$P/bin/umkit
cleanup() {
	pkill -u "$U" -f "$T/" 2>/dev/null
	grep -o " $T/[^ ]*" /proc/mounts | while read -r m; do umount -l "$m"; done
	chmod -R u+w "$T" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

# ---- the administrator: install, then the shared cache --------------------
bad=
for v in "$TOP"/patches/*/; do
	v=$(basename "$v")
	"$TOP/uml/kernel/kbuild.sh" "$v" >/dev/null 2>"$T/kbuild.err" || bad="$bad $v"
done
is "every shipped variant's kernel is built" "$bad" "" || tail -5 "$T/kbuild.err" | sed 's/^/#   /'
out=$(make -s -C "$TOP" install DESTDIR="$D" PREFIX=$P KERNELS=asis 2>&1)
is "make install DESTDIR PREFIX=$P exits 0" "$?" 0 || printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'

. "$TOP/uml/kernel/kernel.pin"
mine=${UMKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/umkit}
deb=$(ls "$mine"/apt/archives/${PACKAGE}_*.deb 2>/dev/null | head -1)
mkdir -p "$S/apt/archives"
[ -z "$deb" ] || cp "$deb" "$S/apt/archives/"
# The fill build's local cache starts as a copy of this checkout's (its
# hits go to the shared one too): no cold build.
seed=$T/seed-ccache
mkdir -p "$seed"
[ ! -d "$mine/ccache" ] || cp -a "$mine/ccache/." "$seed/"
t0=$(date +%s)
out=$(CCACHE_DIR=$seed UMKIT_SHARED_CACHE=$S sh "$D$P/lib/umkit/kernel/shared-cache.sh" 2>&1)
is "shared-cache.sh (the source unpacked, the ccache filled) exits 0" "$?" 0 ||
	printf '%s\n' "$out" | tail -8 | sed 's/^/#   /'
echo "# figure: shared-cache.sh $(( $(date +%s) - t0 )) s"
like "... the shared source is in place" "$(ls "$S/src")" "^linux-"
is "... the package is gone from it once unpacked" "$(ls -d "$S/apt" 2>/dev/null)" ""
listing() { find "$1" -printf '%p %s %m %T@\n' | sort | sha256sum; }
before_d=$(listing "$D") before_s=$(listing "$S")

# ---- the student ---------------------------------------------------------
mkdir -p "$H/.local/share/umkit/patches/hello" "$T/cwd" "$T/rt"
cp "$TOP/tests/fixtures/smoke/good.patch" "$H/.local/share/umkit/patches/hello/0001-hello.patch"
echo 0001-hello.patch > "$H/.local/share/umkit/patches/hello/series"
chown -R "$U" "$H" "$T/cwd" "$T/rt"
chmod 700 "$H" "$T/rt"
mknod "$T/fuse" c 10 229 && chmod 666 "$T/fuse"
cat > "$T/ns.sh" <<'EOF'
T=$1 K=$2 U=$3 S=$4
as() {
	(cd "$T/cwd" && runuser -u "$U" -- env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin \
		HOME="$T/home" XDG_RUNTIME_DIR="$T/rt" UMKIT_SHARED_CACHE="$S" "$@")
}
mount --bind "$T/fuse" /dev/fuse || exit 1
as "$K" variants > "$T/r.variants" 2>&1
s=$(date +%s)
as "$K" exec -V hello -t 600 -- dmesg > "$T/r.hello" 2>&1; echo $? > "$T/r.hello.rc"
echo $(( $(date +%s) - s )) > "$T/r.hello.s"
as "$K" exec -- true > "$T/r.base" 2>&1; echo $? > "$T/r.base.rc"
exit 0
EOF
unshare -m --propagation private sh "$T/ns.sh" "$T" "$K" $U "$S"
is "the namespace with a /dev/fuse of mode 0666 is set up" "$?" 0
like "$U's umkit variants lists the own variant" "$(cat "$T/r.variants")" 'hello'
is "$U: exec -V hello builds and boots the variant" "$(cat "$T/r.hello.rc")" 0 ||
	tail -12 "$T/r.hello" | sed 's/^/#   /'
echo "# figure: the student's first exec -V hello (build + boot) $(cat "$T/r.hello.s") s"
like "... the patch is in the kernel that ran" "$(cat "$T/r.hello")" 'umkit-smoke: kswapd_init runs'
C=$H/.cache/umkit
check "... its kernel is in the student's cache" test -x "$C/build/k/hello/linux"
is "... no kernel source was downloaded or unpacked for the student" \
	"$(ls -d "$C/src" "$C/apt" 2>/dev/null)" ""
hits=$(CCACHE_DIR=$C/ccache ccache --print-stats 2>/dev/null | awk '$1 == "remote_storage_hit" {print $2}')
misses=$(CCACHE_DIR=$C/ccache ccache --print-stats 2>/dev/null | awk '$1 == "cache_miss" {print $2}')
echo "# ccache of the student: ${hits:-?} hits in the shared cache, ${misses:-?} misses"
like "... the shared ccache served the unchanged objects (hits > 100, misses < 50)" \
	"${hits:-0} ${misses:-999}" '^([1-9][0-9]{2,}) ([0-9]|[1-4][0-9])$'
is "exec -- true (base: the installed kernel) exits 0" "$(cat "$T/r.base.rc")" 0
is "... with no build of base" "$(ls -d "$C/build/k/base" 2>/dev/null)" ""
is "nothing under the prefix was written" "$(listing "$D")" "$before_d"
is "nothing in the shared cache was written" "$(listing "$S")" "$before_s"
is "nothing in the current directory" "$(find "$T/cwd" -mindepth 1)" ""
is "no UML process of $U is left" "$(pgrep -u $U -f "$T/" | tr '\n' ' ')" ""
is "no mount is left" "$(grep " $T/" /proc/mounts)" ""
done_testing
