#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# uml/install/deb/mkdeb.sh WORK VERSION OUT - the Debian package from a staged
# install, with Debian's own tools (dpkg-shlibdeps, dpkg-gencontrol,
# dpkg-deb).  No debian/ directory in the tree: this script lays one out
# under WORK from uml/install/deb/ (control, copyright, postrm,
# lintian-overrides); the staged install (make install DESTDIR=
# WORK/debian/umkit PREFIX=/usr) must be in place.
#
#   WORK      build/deb: gets debian/control, changelog, substvars
#             (the programs in exercise/ are static: not for shlibdeps)
#   VERSION   the package version (0~gitYYYYMMDD.HASH)
#   OUT       the .deb to write
#
# Environment: DEB_MAINTAINER ("Name <email>"; default: git's user.name
# and user.email); DEB_COMPRESS (dpkg-deb's options, default -Zxz; the
# tests take -Zgzip -z1, 15 times faster).
set -eu
[ $# -eq 3 ] || { echo "usage: mkdeb.sh WORK VERSION OUT" >&2; exit 2; }
work=$1 version=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$(dirname "$(dirname "$here")")")
root=$work/debian/umkit
die() { echo "umkit: mkdeb: $*" >&2; exit 1; }

[ -x "$root/usr/bin/umkit" ] || die "$root: no staged install (make install DESTDIR=$root PREFIX=/usr)"
for t in dpkg-shlibdeps dpkg-gencontrol dpkg-deb; do
	command -v $t >/dev/null || die "$t not found (apt-get install dpkg-dev)"
done
maint=${DEB_MAINTAINER:-$(git -C "$top" config user.name 2>/dev/null) <$(git -C "$top" config user.email 2>/dev/null)>}
case "$maint" in
*'<>'* | ' <'*) die "no maintainer: set DEB_MAINTAINER='Name <email>' (or git's user.name and user.email)" ;;
esac

# Debian's files in the package: copyright, a changelog, the overrides.
doc=$root/usr/share/doc/umkit
install -m 644 "$here/copyright" "$doc/copyright"
date=$(git -C "$top" log -1 --format=%cD 2>/dev/null || date -R)
commit=$(git -C "$top" log -1 --format=%H 2>/dev/null || echo unknown)
cat > "$work/debian/changelog" <<EOF
umkit ($version) unstable; urgency=medium

  * Built from umkit commit $commit.

 -- $maint  $date
EOF
gzip -9n < "$work/debian/changelog" > "$doc/changelog.gz"
chmod 644 "$doc/changelog.gz"
install -d -m 755 "$root/usr/share/lintian/overrides"
install -m 644 "$here/lintian-overrides" "$root/usr/share/lintian/overrides/umkit"
install -d -m 755 "$root/DEBIAN"
install -m 755 "$here/postrm" "$root/DEBIAN/postrm"

# The control file: Depends from the dynamic ELF files' libraries;
# Built-Using names the sources of what is linked in statically: busybox
# and glibc (the rootfs and the guest programs) and Linux (the kernels).
sed "s|@MAINTAINER@|$maint|" "$here/control" > "$work/debian/control"
rm -f "$work/debian/substvars"
elf=$(find "$root" -type f -perm -u+x ! -path '*/rootfs/*' ! -path '*/exercise/*' -exec sh -c \
	'for f; do [ "$(head -c 4 "$f")" = "$(printf "\177ELF")" ] && echo "$f"; done' sh {} +)
[ -n "$elf" ] || die "no programs in $root"
# shellcheck disable=SC2046  # one path per word: no spaces in the staged tree
(cd "$work" && dpkg-shlibdeps -Tdebian/substvars $(echo "$elf" | sed "s|^$work/||"))
. "$root/usr/lib/umkit/kernel/kernel.pin"
bu=$(dpkg-query -W -f='${source:Package} (= ${source:Version})' busybox-static)
bu="$bu, $(dpkg-query -W -f='${source:Package} (= ${source:Version})' libc6-dev)"
bu="$bu, linux (= $VERSION)"
echo "umkit:Built-Using=$bu" >> "$work/debian/substvars"
(cd "$work" && dpkg-gencontrol -pumkit -Pdebian/umkit -v"$version")
(cd "$root" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | LC_ALL=C sort -z |
	xargs -0 md5sum > DEBIAN/md5sums)
chmod 644 "$root/DEBIAN/md5sums" "$root/DEBIAN/control"
mkdir -p "$(dirname "$out")"
# shellcheck disable=SC2086  # DEB_COMPRESS is dpkg-deb options
dpkg-deb --root-owner-group ${DEB_COMPRESS:--Zxz} --build "$root" "$out" >/dev/null
