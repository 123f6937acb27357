#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Kernel and rootfs build figures (issue: build and boot).
#
#   cold        base kernel from nothing: empty build dir, empty ccache
#   no-change   base again with nothing changed
#   one-file    first build of a variant whose patch touches one file
#   rootfs      initramfs after /init (rootfs/init.c) changed; no kernel work
#
# Set BENCH_COLD=0 to skip the cold build (it takes minutes).
cd "$(dirname "$0")/.." || exit 2
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM

t() {	# label, command...
	l=$1; shift
	s=$(date +%s%N)
	if ! "$@" >"$tmp/out" 2>&1; then
		echo "bench: $l failed:"; tail -n 20 "$tmp/out"; exit 1
	fi
	ms=$(( ($(date +%s%N) - s) / 1000000 ))
	printf '%-28s %8.1f s\n' "$l" "$(echo "$ms / 1000" | bc -l)"
}

echo "== kernel and rootfs builds ($(nproc) CPUs)"
uml/kernel/fetch-source.sh >/dev/null
if [ "${BENCH_COLD:-1}" != 0 ]; then
	t "cold build (empty ccache)" env UMKIT_BUILD="$tmp/cold" CCACHE_DIR="$tmp/ccache" uml/kernel/kbuild.sh base
	rm -rf "$tmp/cold" "$tmp/ccache"
fi
uml/kernel/kbuild.sh base >/dev/null
t "no-change rebuild" uml/kernel/kbuild.sh base

# A one-file variant: a real code change in mm/compaction.c, made against
# the pristine source so it always applies.
src=$(uml/kernel/fetch-source.sh)
mkdir -p "$tmp/patches/bench-onefile" "$tmp/a/mm" "$tmp/b/mm"
cp "$src/mm/compaction.c" "$tmp/a/mm/"
sed 's/^static int __init kcompactd_init(void)$/&\n\/* umkit bench *\//' "$src/mm/compaction.c" > "$tmp/b/mm/compaction.c"
sed -i '0,/^\tint ret;$/s//\tint ret;\n\n\tpr_info("umkit bench variant\\n");/' "$tmp/b/mm/compaction.c"
(cd "$tmp" && diff -u a/mm/compaction.c b/mm/compaction.c) > "$tmp/patches/bench-onefile/0001-bench.patch"
echo 0001-bench.patch > "$tmp/patches/bench-onefile/series"
cp -r patches/base "$tmp/patches/"
rm -rf build/k/bench-onefile
t "one-file variant (first build)" env UMKIT_PATCHES="$tmp/patches" uml/kernel/kbuild.sh bench-onefile
rm -rf build/k/bench-onefile

touch rootfs/init.c
t "rootfs rebuild" make -s rootfs
