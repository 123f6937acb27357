#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kernels: compaction-noacct lru-batch rss-lazy uml-walk workingset-cost
# beside builds: files, users, mounts and exit statuses; no timing, and up-to-date kernels need no build lock
# beside tests: files, users, mounts and exit statuses in its own DESTDIR
# An installed kit (issue 14): 'make install DESTDIR=... PREFIX=/usr/local',
# then two ordinary users with fresh homes run the installed umkit (never
# the checkout): exec, start/list/tui --dump/stop, and the same lab at once,
# each seeing only their own guest and results; nothing is written under
# the prefix or in the current directory.  (Every lab from an installed
# kit as an ordinary user: tests/t-labs.sh, the one run of them.)  Then
# the Debian package (make deb) is installed with apt, runs lab 01 for a
# user, and apt remove leaves nothing under /usr.
#
# Needs root: to create the users (umkit-test, umkit-test2) and to give
# them a /dev/fuse they may open (mode 0666, as on a default Debian) in a
# private mount namespace; the host's /dev/fuse is left as it is.  The deb
# part is skipped when umkit is installed on this host already (UMKIT_NO_DEB=1
# skips it too).
. "$(dirname "$0")/lib.sh"

U1=umkit-test U2=umkit-test2
if [ "$(id -u)" -ne 0 ]; then
	skip "the installed kit as ordinary users" "needs root to create the users $U1, $U2"
	done_testing; exit
fi
for c in useradd runuser unshare mknod dpkg-deb; do
	if ! command -v $c >/dev/null; then
		skip "the installed kit as ordinary users" "no $c here"
		done_testing; exit
	fi
done
for u in $U1 $U2; do
	id "$u" >/dev/null 2>&1 ||
		useradd --system --no-create-home --shell /usr/sbin/nologin "$u" ||
		{ not_ok "create the user $u"; done_testing; exit; }
done

T=$(mktemp -d /tmp/umkit-install.XXXXXX)
chmod 755 "$T"
D=$T/dest P=/usr/local
K=$D$P/bin/umkit
# What a user's umkit processes look like: the installed kernels.
uml_of() { pgrep -u "$1" -f "$T/dest/" | tr '\n' ' '; }
cleanup() {
	for u in $U1 $U2; do
		pkill -u "$u" -f "$T/dest/" 2>/dev/null
	done
	grep -o " $T/[^ ]*" /proc/mounts | while read -r m; do umount -l "$m"; done
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

# ---- make install ---------------------------------------------------------
install_kit "$D" $P
for f in bin/umkit lib/umkit/umkit-tui lib/umkit/installed lib/umkit/rootfs/initramfs.cpio \
    lib/umkit/exercise/twothreads lib/umkit/kernel/umkit.config share/umkit/labs/01-tour.lab \
    share/umkit/labs/kernel-keys share/umkit/labs/04-twothreads.c share/man/man1/umkit.1.gz \
    share/doc/umkit/README; do
	[ -f "$D$P/$f" ] || missing="$missing $f"
done
for v in "$TOP"/patches/*/; do
	v=$(basename "$v")
	for f in linux linux.debug System.map config; do
		[ -f "$D$P/lib/umkit/k/$v/$f" ] || missing="$missing k/$v/$f"
	done
	[ -f "$D$P/share/umkit/patches/$v/series" ] || missing="$missing patches/$v"
done
is "installed: programs, kernels of every variant with symbols, labs, patches, docs" "${missing:-}" ""
like "the manual page has every command" "$(zcat "$D$P/share/man/man1/umkit.1.gz")" '^\.SS "umkit lab '
# The installed labs are sealed (umkit lab --seal): no file under PREFIX
# holds a shipped lab's choice question line with its plain answer=K.
leaks=
for f in "$TOP"/labs/*.lab; do
	grep -E '^[[:space:]]*(ask|why)[[:space:]]+choice.*answer=[a-z]([[:space:]]|$)' "$f" |
	while IFS= read -r q; do
		grep -rqF -- "$q" "$D$P" && echo "$(basename "$f"): $q"
	done
done > "$T/leaks"
is "no file under PREFIX holds a plain choice answer of a shipped lab" "$(cat "$T/leaks")" ""
is "... nor any answer=LETTER at all in the installed labs" \
	"$(grep -lE 'answer=[a-z]([[:space:]]|$)' "$D$P"/share/umkit/labs/*.lab)" ""
listing() { find "$D" -printf '%p %s %m %T@\n' | sort; }
before=$(listing)

# ---- the users: fresh homes, an empty current directory each -------------
for n in 1 2; do
	eval u=\$U$n
	mkdir -p "$T/home$n" "$T/cwd$n" "$T/rt$n"
	chown "$u" "$T/home$n" "$T/cwd$n" "$T/rt$n"
	chmod 700 "$T/home$n" "$T/rt$n"
done
# A /dev/fuse everybody may open, for the namespace below.
mknod "$T/fuse" c 10 229 && chmod 666 "$T/fuse"

# Everything as the users runs in one private mount namespace (the script
# below writes its results to $T/r.*).  User 1 has an XDG_RUNTIME_DIR, user
# 2 none (the fallback under its state directory).
cat > "$T/ns.sh" <<'EOF'
T=$1 K=$2 U1=$3 U2=$4
as() {
	n=$1; shift
	eval u=\$U$n
	rt=; [ "$n" = 1 ] && rt="XDG_RUNTIME_DIR=$T/rt$n"
	(cd "$T/cwd$n" && runuser -u "$u" -- env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin \
		HOME="$T/home$n" TERM=xterm $rt "$@")
}
mount --bind "$T/fuse" /dev/fuse || exit 1
as 1 "$K" exec -- true > "$T/r.exec" 2>&1; echo $? > "$T/r.exec.rc"
as 1 "$K" start -n g1 > "$T/r.start" 2>&1; echo $? > "$T/r.start.rc"
as 2 "$K" start -n g2 > "$T/r.start2" 2>&1
grep -o " $T/[^ ]*/g1/mnt " /proc/mounts > "$T/r.mount1"
grep -o " $T/[^ ]*/g2/mnt " /proc/mounts > "$T/r.mount2"
as 1 "$K" list > "$T/r.list1" 2>&1
as 2 "$K" list > "$T/r.list2" 2>&1
as 1 "$K" tui g1 --dump > "$T/r.tui" 2>&1; echo $? > "$T/r.tui.rc"
as 2 "$K" tui g1 --dump > "$T/r.tui2" 2>&1; echo $? > "$T/r.tui2.rc"
as 1 "$K" stop g1 > "$T/r.stop" 2>&1; echo $? > "$T/r.stop.rc"
as 2 "$K" stop g2 > /dev/null 2>&1
# The same lab at once, both users.
as 1 "$K" lab 01 --batch > "$T/r.same1" 2>&1 & p1=$!
as 2 "$K" lab 01 --batch > "$T/r.same2" 2>&1 & p2=$!
wait $p1; echo $? > "$T/r.same1.rc"
wait $p2; echo $? > "$T/r.same2.rc"
grep " $T/" /proc/mounts > "$T/r.left"
exit 0
EOF
unshare -m --propagation private sh "$T/ns.sh" "$T" "$K" $U1 $U2
is "the namespace with a /dev/fuse of mode 0666 is set up" "$?" 0

is "as $U1: the installed umkit runs exec -- true" "$(cat "$T/r.exec.rc")" 0
is "start exits 0" "$(cat "$T/r.start.rc")" 0
like "$U1's mirror is in its XDG_RUNTIME_DIR" "$(cat "$T/r.mount1")" "^ $T/rt1/umkit/g1/mnt $"
like "$U2's (no XDG_RUNTIME_DIR) under its state directory" "$(cat "$T/r.mount2")" \
	"^ $T/home2/.local/state/umkit/run/g2/mnt $"
like "$U1's list shows its guest" "$(cat "$T/r.list1")" '^g1 +base .*running'
is "and not $U2's" "$(grep -c g2 "$T/r.list1")" 0
is "$U2's list shows not $U1's" "$(grep -c g1 "$T/r.list2")" 0
is "tui --dump of the guest exits 0" "$(cat "$T/r.tui.rc")" 0
like "and draws its memory" "$(cat "$T/r.tui")" 'MemTotal|mem|Mem'
like "$U2 cannot open $U1's guest" "$(cat "$T/r.tui2.rc")" '^[1-9]'
is "stop exits 0" "$(cat "$T/r.stop.rc")" 0
is "$U1 and $U2 run lab 01 at once: both pass" \
	"$(cat "$T/r.same1.rc") $(cat "$T/r.same2.rc")" "0 0"
count() { set -- "$1"/01-tour-*; [ -e "$1" ] && echo $# || echo 0; }
r1=$(count "$T/home1/.local/state/umkit/results")
r2=$(count "$T/home2/.local/state/umkit/results")
is "each has only their own results (1 run of lab 01 each)" "$r1 $r2" "1 1"
is "$U2 cannot read $U1's state" "$(runuser -u $U2 -- ls "$T/home1/.local/state/umkit" 2>/dev/null)" ""
is "no mount is left" "$(cat "$T/r.left")" ""
is "no UML process is left" "$(uml_of $U1)$(uml_of $U2)" ""
is "nothing under the prefix was written (before/after listing)" "$(listing)" "$before"
is "nothing in the current directories" "$(find "$T/cwd1" "$T/cwd2" -mindepth 1)" ""
no_leftovers "nothing in the checkout"

# ---- the Debian package ---------------------------------------------------
if [ -n "${UMKIT_NO_DEB:-}" ] || [ -e /usr/bin/umkit ] || [ -e /usr/lib/umkit ] ||
    ! command -v apt-get >/dev/null; then
	for d in "make deb" "apt install ./umkit_*.deb" "a user runs lab 01 from the package" \
	    "apt remove" "nothing left under /usr"; do
		skip "$d" "UMKIT_NO_DEB, or umkit installed here already, or no apt"
	done
	done_testing; exit
fi
out=$(DEB_COMPRESS='-Zgzip -z1' make -s -C "$TOP" deb KERNELS=asis 2>&1)
deb=$(ls "$TOP"/build/deb/umkit_*.deb 2>/dev/null | head -1)
like "make deb makes a package" "$?:$deb" "^0:.*/umkit_.*_amd64\\.deb$" || printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
files=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' | grep -v '/$')
out=$(apt-get install -y -q --no-install-recommends "$deb" 2>&1)
is "apt install ./umkit_*.deb exits 0" "$?" 0 || printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
rm -rf "$T/home1" && mkdir "$T/home1" && chown $U1 "$T/home1"
start=$(date +%s.%N)
unshare -m --propagation private sh -c '
	T=$1 U=$2
	mount --bind "$T/fuse" /dev/fuse || exit 1
	cd "$T/cwd1" && runuser -u "$U" -- env -i PATH=/usr/bin:/bin HOME="$T/home1" \
		umkit lab 01 --batch > "$T/r.deb" 2>&1; echo $? > "$T/r.deb.rc"
' sh "$T" $U1
end=$(date +%s.%N)
is "a new user runs lab 01 from the package (/usr/bin/umkit)" "$(cat "$T/r.deb.rc" 2>/dev/null)" 0 ||
	tail -5 "$T/r.deb" | sed 's/^/#   /'
echo "# figure: apt-installed lab 01 for a new user, batch, $(echo "$end - $start" | bc) s"
out=$(apt-get remove -y -q umkit 2>&1)
is "apt remove exits 0" "$?" 0 || printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
left=$(for f in $files; do [ -e "$f" ] && echo "$f"; done; ls -d /usr/lib/umkit /usr/share/umkit /usr/share/doc/umkit 2>/dev/null)
is "nothing left under /usr" "$left" ""
dpkg --purge umkit >/dev/null 2>&1

done_testing
