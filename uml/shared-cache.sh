#!/bin/sh
# uml/shared-cache.sh - prepare a classroom server's shared cache, once,
# as root: the pinned kernel source unpacked (fetch-source.sh --shared)
# and a ccache filled by one build of the base kernel, both readable by
# every user and written by nobody else.
#
#   shared-cache.sh          into $UMKIT_SHARED_CACHE (default /var/cache/umkit)
#
# Afterwards no user downloads the 165 MB package: uml/fetch-source.sh
# takes the shared source, and uml/kbuild.sh reads the shared ccache as a
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
# The shared ccache as the primary one for this build only; the build
# itself (tree, objects) goes away with $tmp.
umask 022
mkdir -p "$shared/ccache"
echo "umkit: shared-cache: building the base kernel once to fill $shared/ccache" >&2
CCACHE_DIR="$shared/ccache" UMKIT_CACHE="$tmp/cache" UMKIT_BUILD="$tmp/build" \
	sh "$here/kbuild.sh" base >/dev/null
chmod -R a+rX "$shared/ccache"
echo "umkit: shared-cache: $shared is ready ($(du -sh "$shared" | cut -f1))" >&2
