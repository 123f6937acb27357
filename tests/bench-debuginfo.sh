#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench-debuginfo: what debug info costs a kernel of the kit, on this
# machine: cold build (no ccache), rebuild after one mm/ file changed
# (mm/vmscan.o recompiled without ccache, then the link), and the size of
# the kernel binary, for base, base+debug (uml/kernel/debug.config: DWARF 5,
# full) and base+debug with DEBUG_INFO_REDUCED.  Slow (three cold builds
# one after another: about 15-30 min on 2 cores); not part of make test.
#
#   BENCH_QUICK=1   no cold builds: rebuild and size of the kernels in
#                   build/k/base and build/k/base+debug only
set -eu
cd "$(dirname "$0")/.."
top=$PWD
scratch=$(mktemp -d "${TMPDIR:-/tmp}/umkit-bench-debuginfo.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM
export CCACHE_DISABLE=1

# The reduced form: the same fragment with DEBUG_INFO_REDUCED on.
sed -e 's/^# CONFIG_DEBUG_INFO_REDUCED is not set/CONFIG_DEBUG_INFO_REDUCED=y/' \
	uml/kernel/debug.config > "$scratch/reduced.config"

# Times are make's own (uml/kernel/kbuild.sh writes build.secs), without the
# wait for another checkout's build.

# row NAME VARIANT BUILD_DIR [DEBUG_CONFIG]: cold (unless quick), rebuild, size.
row() {
	name=$1 v=$2 b=$3 dc=${4:-$top/uml/kernel/debug.config}
	cold=-
	if [ -z "${BENCH_QUICK:-}" ]; then
		UMKIT_BUILD=$b UMKIT_DEBUG_CONFIG=$dc sh uml/kernel/kbuild.sh "$v" >/dev/null
		cold=$(cat "$b/k/$v/build.secs")
	fi
	rm -f "$b/k/$v/obj/mm/vmscan.o"
	UMKIT_BUILD=$b UMKIT_DEBUG_CONFIG=$dc sh uml/kernel/kbuild.sh "$v" >/dev/null
	rebuild=$(cat "$b/k/$v/build.secs")
	bytes=$(stat -c %s "$b/k/$v/linux")
	text=$(size "$b/k/$v/linux" | awk 'NR == 2 { print $1 }')
	printf '%-26s %8s %10s %9.1f %9.1f\n' "$name" "$cold" "$rebuild" \
		"$(echo "$bytes / 1048576" | bc -l)" "$(echo "$text / 1048576" | bc -l)"
}

echo "debug info on a $(nproc)-core host ($(uname -m)); build times in s, without ccache"
printf '%-26s %8s %10s %9s %9s\n' kernel cold rebuild "size MiB" "text MiB"
if [ -n "${BENCH_QUICK:-}" ]; then
	row "base" base "$top/build"
	row "base+debug (DWARF5)" base+debug "$top/build"
else
	row "base" base "$scratch/b"
	row "base+debug (DWARF5)" base+debug "$scratch/b"
	rm -rf "$scratch/b/k/base+debug"
	row "base+debug (REDUCED)" base+debug "$scratch/b" "$scratch/reduced.config"
fi
echo "rebuild: mm/vmscan.o recompiled and the kernel relinked; size: the linux binary"
