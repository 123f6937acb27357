#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Fetch and unpack the pinned Linux source into the per-user cache.
#
#   fetch-source.sh           print the path of the unpacked pristine tree,
#                             downloading and unpacking it first if needed
#   fetch-source.sh --shared  (an administrator, once) the same into the
#                             shared cache, readable by every user; the
#                             downloaded package is deleted afterwards
#
# Nothing is installed and the system's apt sources are not touched: apt
# runs with its own sources list, lists and archive directories under
# $UMKIT_CACHE/apt.  The unpacked tree is made read-only so that nothing
# (the kit included) can modify it by accident.
#
# A pinned tree in the shared cache ($UMKIT_SHARED_CACHE, default
# /var/cache/umkit: src/linux-VERSION) is used as it is, read-only, before
# the user's own cache is even created: on a classroom server the
# administrator fetches once and no student downloads 165 MB.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/kernel.pin"
# HOME may be unset (cron, CI): take the user's home from passwd.
: "${HOME:=$(getent passwd "$(id -u)" | cut -d: -f6)}"
cache=${UMKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/umkit}
shared=${UMKIT_SHARED_CACHE:-/var/cache/umkit}

die() { echo "umkit: fetch-source: $*" >&2; exit 1; }
# mb BYTES: megabytes, one decimal.
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }

upstream_of() { echo "$1" | sed 's/-.*//'; }
# trusted DIR: DIR is root's or ours and nobody else may write it (a
# shared cache someone else could fill is not taken).
trusted() {
	set -- "$1" "$(stat -Lc '%u %a' "$1" 2>/dev/null)"
	case ${2%% *} in 0|"$(id -u)") ;; *) return 1 ;; esac
	case ${2##* } in *[2367][0-7]|*[2367]) return 1 ;; esac
	return 0
}
# A complete unpacked tree of package version $2 at $1?
tree_ok() { [ "$(cat "$1/.umkit-pristine" 2>/dev/null)" = "$PACKAGE $2" ]; }

# $1 is needed at the end; "$@" carries apt's options below.
mode=${1:-}
case "$mode" in
--shared)
	cache=$shared
	umask 022
	mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] ||
		die "cannot write $cache (the shared cache: run this as root, or set UMKIT_SHARED_CACHE)"
	;;
'')
	t="$shared/src/linux-$(upstream_of "$VERSION")"
	if [ -d "$shared" ] && ! trusted "$shared"; then
		echo "umkit: fetch-source: $shared is not root's (or yours) or others may write it: not using it" >&2
	elif tree_ok "$t" "$VERSION"; then
		echo "$t"
		exit 0
	fi
	;;
*)
	echo "usage: fetch-source.sh [--shared]" >&2
	exit 2
	;;
esac
apt="$cache/apt"
src="$cache/src"

mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$src"
# One fetch at a time per cache: two builds starting together would race
# on the download and the unpack.
exec 7>"$cache/fetch.lock"
if ! flock -n 7; then
	echo "umkit: fetch-source: waiting for another fetch to finish" >&2
	flock 7
fi
echo "deb $MIRROR $SUITE main" > "$apt/sources.list"
set -- -o Dir::Etc::SourceList="$apt/sources.list" \
	-o Dir::Etc::SourceParts=/dev/null \
	-o Dir::State::Lists="$apt/lists" \
	-o Dir::Cache="$apt" -o Dir::Cache::archives="$apt/archives" \
	-o Dir::State::status=/dev/null -o Debug::NoLocking=1 \
	-o APT::Sandbox::User="$(id -un)" -q

# The pinned version, unless it has left the archive.
want="$VERSION"
deb_of() { echo "$apt/archives/${PACKAGE}_$(echo "$1" | sed 's/:/%3a/')_all.deb"; }

sum_ok() { [ -f "$1" ] && echo "$2  $1" | sha256sum -c --status; }

if tree_ok "$src/linux-$(upstream_of "$want")" "$want"; then
	: # unpacked already (the package itself may have been deleted)
elif ! sum_ok "$(deb_of "$want")" "$SHA256"; then
	apt-get "$@" update >"$apt/update.log" 2>&1 ||
		die "apt-get update failed (see $apt/update.log)"
	if ! apt-cache "$@" madison "$PACKAGE" | awk '{print $3}' | grep -qxF "$want"; then
		newest=$(apt-cache "$@" madison "$PACKAGE" | awk '{print $3}' | sort -V | tail -n 1)
		[ -n "$newest" ] || die "$PACKAGE is not in $SUITE any more"
		echo "umkit: warning: pinned $PACKAGE $want left $SUITE; using $newest (update uml/kernel/kernel.pin)" >&2
		want=$newest
		SHA256=$(apt-cache "$@" show "$PACKAGE=$want" | awk '/^SHA256:/ {print $2; exit}')
	fi
	size=$(apt-cache "$@" show "$PACKAGE=$want" | awk '/^Size:/ {print $2; exit}')
	echo "umkit: downloading $PACKAGE $want ($(mb "${size:-0}") MB)" >&2
	(cd "$apt/archives" && exec apt-get "$@" download "$PACKAGE=$want" >"$apt/download.log" 2>&1) &
	dl=$!
	# On a terminal: one updating line, the bytes so far of the expected size.
	if [ -t 2 ] && [ -n "$size" ]; then
		while kill -0 $dl 2>/dev/null; do
			# sizes, not contents: stat, not a read of the file
			got=$(stat -c %s "$apt"/archives/partial/*.deb "$(deb_of "$want")" 2>/dev/null |
				awk '{ s += $1 } END { print s + 0 }')
			printf '\rumkit: downloading %s: %s of %s MB (%d%%)   ' "$PACKAGE" \
				"$(mb "$got")" "$(mb "$size")" $((got * 100 / size)) >&2
			sleep 0.5
		done
		got=$(stat -c %s "$(deb_of "$want")" 2>/dev/null || echo 0)
		printf '\rumkit: downloading %s: %s of %s MB (%d%%)   \n' "$PACKAGE" \
			"$(mb "$got")" "$(mb "$size")" $((got * 100 / size)) >&2
	fi
	wait $dl || die "download of $PACKAGE=$want failed (see $apt/download.log)"
	sum_ok "$(deb_of "$want")" "$SHA256" ||
		{ rm -f "$(deb_of "$want")"; die "checksum mismatch for $PACKAGE=$want"; }
fi

upstream=$(upstream_of "$want")
tree="$src/linux-$upstream"
if ! tree_ok "$tree" "$want"; then
	tmp=$(mktemp -d "$src/.unpack.XXXXXX")
	trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
	echo "umkit: unpacking $PACKAGE $want" >&2
	dpkg-deb --fsys-tarfile "$(deb_of "$want")" |
		tar -xf - -C "$tmp" --wildcards './usr/src/*.tar.xz'
	tarball=$(ls "$tmp"/usr/src/*.tar.xz)
	mkdir "$tmp/t"
	# On a terminal: the share of the tar stream unpacked (xz's index has
	# its size), at every 2000 records of 10 KiB.
	set --
	total=$(xz --robot --list "$tarball" 2>/dev/null | awk '$1 == "totals" {print $5}')
	if [ -t 2 ] && [ -n "$total" ] && [ "$total" -gt 0 ]; then
		set -- --checkpoint=2000 --checkpoint-action="exec=sh -c 'printf \"\\rumkit: unpacking: %d of %d MB (%d%%)   \" \$((TAR_CHECKPOINT * 10240 / 1048576)) $((total / 1048576)) \$((TAR_CHECKPOINT * 10240 * 100 / $total)) >&2'"
	fi
	# The package's tarball is xz in many blocks: xz -T0 decompresses them
	# on every core (12.0 s on one, 6.9 s on two).
	tar -I 'xz -T0' -xf "$tarball" -C "$tmp/t" --strip-components=1 --no-same-owner "$@"
	[ $# -eq 0 ] || printf '\n' >&2
	rm -f "$tarball"
	echo "$PACKAGE $want" > "$tmp/t/.umkit-pristine"
	# Read-only files: a hard-linked variant tree cannot write through.
	find "$tmp/t" -type f -exec chmod a-w {} +
	chmod -R u+w "$tree" 2>/dev/null || true
	rm -rf "$tree"
	mv "$tmp/t" "$tree"
	chmod -R u+w "$tmp"; rm -rf "$tmp"
	trap - EXIT INT TERM
fi
if [ "$mode" = --shared ]; then
	# Every user reads it; nobody needs the package any more.
	chmod -R a+rX "$tree"
	rm -rf "$apt"
	echo "umkit: fetch-source: $tree is the shared source; users' builds take it from there" >&2
fi
echo "$tree"
