#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench-guest-io: what --add and -i cost.
#
# Boot-to-command ('umkit exec -- true') without --add, with --add of a
# 10 MB static program whose composed initramfs is in build/initrd/ (a
# boot with the same files before), and with the program just touched
# (so the initramfs is written again: the first boot after a rebuild),
# interleaved in one run, the order rotating every round: medians, p90,
# minima, the differences (target, issue 8: <= 50 ms) and ratios; the
# same for the CPU time umkit and UML use (steadier on a busy host).  Then the
# launcher's share timed in-process (tests/bench-initrd.c), and how fast
# stdin (-i) and stdout move through the guest link.
cd "$(dirname "$0")/.." || exit 2
runs=${BENCH_RUNS:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# pct FILE P: percentile P of the numbers in FILE (microseconds), in ms.
pct() {
	sort -n "$1" | awk -v p="$2" '{ v[NR] = $1 } END {
		i = int((NR - 1) * p / 100 + 0.5) + 1; printf "%.1f", v[i] / 1000 }'
}
# once TAG ARGS: one boot to 'true'; appends the wall time and the CPU
# time of umkit and UML together (us).
once() {
	tag=$1; shift
	[ "$tag" = miss ] && touch "$tmp/big10"
	set -- $(build/tests/bench-run ./umkit exec "$@" -- true) ||
	    { echo "bench: exec failed"; exit 1; }
	echo "$1" >> "$tmp/$tag.wall"
	echo "$2" >> "$tmp/$tag.cpu"
}

# A static program of 10 MiB: a small main and 10 MiB of random data.
head -c 10485760 /dev/urandom > "$tmp/blob"
cat > "$tmp/big.c" <<'EOF'
#include <stdio.h>
__asm__(".section .rodata\n.globl blob\nblob: .incbin \"blob\"\n.previous");
extern const unsigned char blob[];
int main(void) { printf("%u\n", blob[0]); return 0; }
EOF
(cd "$tmp" && gcc -static -O2 -o big10 big.c) || { echo "bench: gcc -static failed"; exit 1; }
size=$(stat -c %s "$tmp/big10")

echo "== --add of a $((size / 1024)) KiB static program: boot to command, $runs runs each, interleaved"
./umkit exec -- true && ./umkit exec --add "$tmp/big10" -- big10 >/dev/null || exit 1
i=0
while [ $i -lt "$runs" ]; do
	case $((i % 3)) in
	0) once none; once hit --add "$tmp/big10"; once miss --add "$tmp/big10" ;;
	1) once hit --add "$tmp/big10"; once miss --add "$tmp/big10"; once none ;;
	2) once miss --add "$tmp/big10"; once none; once hit --add "$tmp/big10" ;;
	esac
	i=$((i + 1))
done
printf '%-40s %9s %9s %9s\n' "" "median" "p90" "min"
row() { printf '%-40s %7s ms %7s ms %7s ms\n' "$1" "$(pct "$2" 50)" "$(pct "$2" 90)" "$(pct "$2" 0)"; }
row "no --add" "$tmp/none.wall"
row "--add, initramfs kept from a boot before" "$tmp/hit.wall"
row "--add, program just rebuilt (touched)" "$tmp/miss.wall"
awk -v n="$(pct "$tmp/none.wall" 50)" -v h="$(pct "$tmp/hit.wall" 50)" \
    -v m="$(pct "$tmp/miss.wall" 50)" -v n0="$(pct "$tmp/none.wall" 0)" \
    -v h0="$(pct "$tmp/hit.wall" 0)" -v m0="$(pct "$tmp/miss.wall" 0)" 'BEGIN {
	printf "%-40s %7.1f ms   (target <= 50 ms; minima: %.1f ms)\n", "--add cost at the median", h - n, h0 - n0
	printf "%-40s %7.1f ms   (minima: %.1f ms)\n", "--add cost, first boot after a rebuild", m - n, m0 - n0
	printf "%-40s %7.3f\n", "ratio --add / none (medians)", h / n }'
row "CPU time (umkit + UML), no --add" "$tmp/none.cpu"
row "CPU time, --add kept" "$tmp/hit.cpu"
row "CPU time, --add just rebuilt" "$tmp/miss.cpu"
awk -v n="$(pct "$tmp/none.cpu" 50)" -v h="$(pct "$tmp/hit.cpu" 50)" \
    -v m="$(pct "$tmp/miss.cpu" 50)" 'BEGIN {
	printf "%-40s %7.1f ms   (just rebuilt: %.1f ms)\n", "--add CPU cost at the median", h - n, m - n }'

# glibc's cost: the same small program static and dynamic (its loader,
# libc and ld.so.cache go along), both initramfs kept, interleaved.
printf 'int main(void) { return 0; }\n' > "$tmp/small.c"
gcc -static -O2 -o "$tmp/sta" "$tmp/small.c" && gcc -O2 -o "$tmp/dyn" "$tmp/small.c" ||
	{ echo "bench: gcc failed"; exit 1; }
./umkit exec --add "$tmp/sta" -- sta && ./umkit exec --add "$tmp/dyn" -- dyn || exit 1
echo "== a dynamic program (with glibc) against the same one static: boot to command, $runs runs each"
i=0
while [ $i -lt "$runs" ]; do
	if [ $((i % 2)) = 0 ]; then once sta --add "$tmp/sta"; once dyn --add "$tmp/dyn"
	else once dyn --add "$tmp/dyn"; once sta --add "$tmp/sta"; fi
	i=$((i + 1))
done
printf '%-40s %9s %9s %9s\n' "" "median" "p90" "min"
row "--add of a static program" "$tmp/sta.wall"
row "--add of the same, dynamic (glibc)" "$tmp/dyn.wall"
awk -v s="$(pct "$tmp/sta.wall" 50)" -v d="$(pct "$tmp/dyn.wall" 50)" \
    -v s0="$(pct "$tmp/sta.wall" 0)" -v d0="$(pct "$tmp/dyn.wall" 0)" 'BEGIN {
	printf "%-40s %7.1f ms   (minima: %.1f ms; ratio of medians %.3f)\n", "glibc cost at the median", d - s, d0 - s0, d / s }'

# The launcher's share, in-process: check the files, write the initramfs.
mkdir -p "$tmp/run"
set -- $(UMKIT_TOP=$PWD build/tests/bench-initrd "$tmp/run" "$tmp/big10" 20) || exit 1
printf '%-40s %7s ms\n' "launcher: check the files (prepare)" "$1" \
	"launcher: write the initramfs" "$2" "launcher: link the kept one" "$3"

# Throughput of the link: stdin with -i, stdout, 4 MiB each, 3 runs.
echo "== the guest link: 4 MiB through stdin (-i) and stdout, 3 runs each"
head -c 4194304 /dev/urandom > "$tmp/in4m"
for i in 1 2 3; do
	once base
	s=$(date +%s%N)
	n=$(./umkit exec -i -- wc -c < "$tmp/in4m") || exit 1
	echo $(( ($(date +%s%N) - s) / 1000 )) >> "$tmp/in.wall"
	[ "$n" = 4194304 ] || { echo "bench: stdin delivered $n bytes"; exit 1; }
	s=$(date +%s%N)
	n=$(./umkit exec -- head -c 4194304 /dev/zero | wc -c) || exit 1
	echo $(( ($(date +%s%N) - s) / 1000 )) >> "$tmp/out.wall"
done
awk -v b="$(pct "$tmp/base.wall" 50)" -v i="$(pct "$tmp/in.wall" 50)" \
    -v o="$(pct "$tmp/out.wall" 50)" 'BEGIN {
	printf "%-40s %7.2f MB/s  (%.0f ms for 4 MiB, boot taken off)\n",
	    "stdin (-i)", 4.194304 / ((i - b) / 1000), i - b
	printf "%-40s %7.2f MB/s  (%.0f ms)\n", "stdout", 4.194304 / ((o - b) / 1000), o - b }'
