#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Install (as root) or name (otherwise) the Debian packages umkit needs.
# Checks first; calls apt only when something is missing.
#
#   deps.sh          what make, make run and make test need
#   deps.sh fuzz     also clang and its libFuzzer runtime (make fuzz)
set -eu

# package            why
PKGS="
make                 build driver
gcc                  host tools, guest programs, kernel
libc6-dev            headers and static libc for guest programs
flex                 kernel build (kconfig)
bison                kernel build (kconfig)
bc                   kernel build (timeconst)
libelf-dev           kernel build
cpio                 initramfs
xz-utils             unpacking the kernel source tarball
ccache               shared kernel object cache
busybox-static       guest userland
libfuse3-dev         the FUSE mirror
fuse3                fusermount3
libncurses-dev       the TUI
pkg-config           finding libfuse3 / ncurses flags
libcmocka-dev        C unit tests
libjansson-dev       lab results as JSON (umkit lab)
nettle-dev           sealed lab answers and result-file MACs (HMAC-SHA256, umkit lab)
libxml2-utils        xmllint: the JUnit files are checked in make test
gnuplot-nox          charts of umkit smoke/compare --plot and umkit plot (PNG, SVG)
tmux                 driving the TUI in tests
util-linux           setarch, flock
procps               pgrep and kill for the tests
gdb                  umkit gdb: the debugger on a guest kernel (docs/debugging.md)
stress-ng            make test: a dynamically linked Debian program run in the guest (--add)
fio                  make test: a dynamically linked Debian program with many libraries (--add)
libcap-dev           umkit selftests: memfd_secret and mlock-random-test link libcap
libnuma-dev          umkit selftests: migration, ksm_tests and rmap link libnuma
python3-drgn         umkit drgn: reading a running guest's kernel without stopping it (docs/drgn.md)
e2fsprogs            mke2fs: the guest scratch disk template (uml/guest/mkdisk.sh)
ca-certificates      fetching the kernel package over https
dpkg-dev             make deb (dpkg-shlibdeps, dpkg-gencontrol); its test in make test
bubblewrap           the sandbox of guests and of patched trees' builds (docs/security.md)
"
if [ "${1:-}" = fuzz ]; then
	PKGS="$PKGS
clang                libFuzzer builds (make fuzz)
libclang-rt-14-dev   the libFuzzer runtime
"
fi

missing=""
for p in $(printf '%s\n' "$PKGS" | awk 'NF {print $1}'); do
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	case "$st" in
	ii*) ;;
	*) missing="$missing $p" ;;
	esac
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
	echo "umkit: installing:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	# A fresh machine may have no package lists yet; refresh once if so.
	if ! apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1; then
		apt-get update -q >/dev/null
		apt-get install -y -q --no-install-recommends $missing
	fi
	exit 0
fi

echo "umkit: missing Debian packages:$missing" >&2
echo "umkit: install them with:" >&2
echo "    sudo apt-get install --no-install-recommends$missing" >&2
exit 1
