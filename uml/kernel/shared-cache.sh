#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# uml/kernel/shared-cache.sh - prepare a classroom server's shared cache, once,
# as root: the pinned kernel source unpacked (fetch-source.sh --shared)
# and a ccache filled by one build of the base kernel, both readable by
# every user and written by nobody else.
#
#   shared-cache.sh          into $UMKIT_SHARED_CACHE (default /var/cache/umkit)
#
# Afterwards no user downloads the 165 MB package: uml/kernel/fetch-source.sh
# takes the shared source, and uml/kernel/kbuild.sh reads the shared ccache as a
# second, read-only one beside the user's own, so a student's variant of
# base recompiles only the files its patches touch.  The installed
# kernels need neither: this is for building variants only.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
shared=${UMKIT_SHARED_CACHE:-/var/cache/umkit}
export UMKIT_SHARED_CACHE="$shared"

"$here/fetch-source.sh" --shared >/dev/null
tmp=$(mktemp -d "${TMPDIR:-/tmp}/umkit-shared.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
# The shared ccache is written as ccache's remote storage (the file:
# backend, $shared/ccache/ab/cdef...), the layout kbuild.sh reads it in
# (file:$shared/ccache|read-only); a local cache directory (a/b/cdef...R,
# what CCACHE_DIR=$shared/ccache made) is not readable that way, and gave
# no hits.  The build's own local cache is $CCACHE_DIR when set (a warm
# one saves the cold build: its hits are copied out too, CCACHE_RESHARE),
# else one that goes away with $tmp, like the tree and the objects.
umask 022
mkdir -p "$shared/ccache"
echo "umkit: shared-cache: building the base kernel once to fill $shared/ccache" >&2
CCACHE_REMOTE_STORAGE="file:$shared/ccache|umask=022" CCACHE_RESHARE=1 \
	UMKIT_CACHE="$tmp/cache" UMKIT_BUILD="$tmp/build" \
	sh "$here/kbuild.sh" base >/dev/null
chmod -R a+rX "$shared/ccache"
echo "umkit: shared-cache: $shared is ready ($(du -sh "$shared" | cut -f1))" >&2
