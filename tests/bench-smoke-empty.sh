#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench-smoke-empty.sh - 'umkit smoke' of a one-file mm/ patch from an
# empty cache (issue target: 8 minutes on 2 cores): a fresh clone of
# this checkout's HEAD, an empty UMKIT_CACHE (so the kernel source is
# downloaded and unpacked, and ccache starts empty) and no shared cache;
# `make all`, then the smoke with its defaults.  Prints the total and
# where it went.  Downloads 157 MB; takes about 8 minutes.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
e=$(mktemp -d "${TMPDIR:-/tmp}/umkit-bench-empty.XXXXXX")
trap 'chmod -R u+w "$e" 2>/dev/null; rm -rf "$e"' EXIT INT TERM
git clone -q "$top" "$e/ck" || exit 1
cd "$e/ck" || exit 1
export UMKIT_CACHE="$e/cache" UMKIT_SHARED_CACHE="$e/noshared"
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
echo "== umkit smoke from an empty cache (fresh clone, no ccache, no source)"
t0=$(now)
make -s all > "$e/make.log" 2>&1 || { tail -20 "$e/make.log"; exit 1; }
t1=$(now)
./umkit smoke tests/fixtures/smoke/good.patch > "$e/smoke.log" 2>&1; rc=$?
t2=$(now)
grep '^smoke:' "$e/smoke.log"
echo "make all          $(secs "$t0" "$t1") s (of it, base's make: $(cat build/k/base/build.secs) s)"
echo "umkit smoke       $(secs "$t1" "$t2") s (exit $rc; smoke tree's make: $(cat build/k/smoke-tree/build.secs) s)"
echo "total             $(secs "$t0" "$t2") s (target 480 s)"
# The machine's speed at the time, for comparing runs: one compile of
# mm/vmscan.c (base's own command, without ccache), median of three.
c=$(sed -n 's/^savedcmd_mm\/vmscan.o := //p' build/k/base/obj/mm/.vmscan.o.cmd | sed 's/^ccache //')
if [ -n "$c" ]; then
	r=$(cd build/k/base/obj && for i in 1 2 3; do
		a=$(now); sh -c "$c" >/dev/null 2>&1; secs "$a" "$(now)"; echo
	done | sort -n | sed -n 2p)
	echo "reference         $r s: gcc of mm/vmscan.c, median of 3 (this machine's speed now)"
fi
[ "$rc" = 0 ]
