#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench-boot: boot to command done, 'umkit exec --timings -- true'
# BENCH_RUNS times (default 20): the median, p10 and p90 of every stage
# umkit prints (launcher, uml-start, kernel-init, init, agent, command,
# shutdown and their sub-stages), of its total, and of the wall time
# around umkit (which also holds the program's own exec and exit); the
# host's load before and after, and its cost of a page's first write.
# Then the wall-time median with 1 and with 4 guest CPUs.  It prints
# figures; it never passes or fails on time.
#
# UMKIT_B=DIR: interleave runs of DIR's umkit (another checkout, built)
# with this one's, A B A B ..., and print both columns and B/A (a paired
# comparison in one run; BENCH_ARGS adds options to both, e.g. '-k FILE').
cd "$(dirname "$0")/.." || exit 2
runs=${BENCH_RUNS:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# one SIDE UMKIT: one timed boot, its stages appended to $tmp/SIDE.
one() {
	s=$(date +%s%N)
	"$2" exec --timings $BENCH_ARGS -- true 2>"$tmp/err" || {
		echo "bench: $2 exec failed:"; cat "$tmp/err"; exit 1; }
	w=$(( ($(date +%s%N) - s) / 1000 ))
	awk -v w="$w" '
	/^  [^ ]/ { p = $1; print $1, $2 }
	/^    [^ ]/ { print p "." $1, $2 }
	END { printf "wall %.3f\n", w / 1000 }' "$tmp/err" >>"$tmp/$1"
}

# stats FILE: "name median p10 p90" per stage, in first-seen order.
stats() {
	awk '
	!($1 in n) { order[++k] = $1 }
	{ v[$1, ++n[$1]] = $2 }
	function pct(name, p,   i, j, m, a, t) {
		m = n[name]
		for (i = 1; i <= m; i++) a[i] = v[name, i]
		for (i = 2; i <= m; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		i = int((m - 1) * p / 100 + 0.5) + 1
		return a[i]
	}
	END {
		for (i = 1; i <= k; i++)
			printf "%s %.3f %.3f %.3f\n", order[i], pct(order[i], 50),
			    pct(order[i], 10), pct(order[i], 90)
	}' "$1"
}

# label NAME: the stage's name, sub-stages indented.
label() { echo "$1" | awk -F. '{ print (NF > 1 ? "  " $2 : $1) }'; }

echo "== boot to command done: umkit exec --timings $BENCH_ARGS -- true, $runs runs"
echo "load before: $(cat /proc/loadavg)"
# What the host charges for each page a boot writes first (bench-touch.c):
# the kernel's early setup (struct pages), the initrd's read and its
# unpacking pay it for every page they write.
[ ! -x build/tests/bench-touch ] || build/tests/bench-touch
./umkit exec $BENCH_ARGS -- true || { echo "bench: exec failed"; exit 1; }
if [ -n "$UMKIT_B" ]; then
	"$UMKIT_B/umkit" exec $BENCH_ARGS -- true || { echo "bench: B's exec failed"; exit 1; }
	i=0
	while [ $i -lt "$runs" ]; do
		one A ./umkit; one B "$UMKIT_B/umkit"
		i=$((i + 1))
	done
	echo "load after:  $(cat /proc/loadavg)"
	echo "A: $PWD   B: $UMKIT_B   (interleaved A B A B ...)"
	stats "$tmp/A" >"$tmp/A.s"
	stats "$tmp/B" >"$tmp/B.s"
	printf '%-18s %9s %9s %9s %9s %7s\n' "ms" "A p50" "B p50" "A p90" "B p90" "B/A"
	awk 'NR == FNR { b[$1] = $2; b90[$1] = $4; next }
	{ printf "%s %s %s %s %s\n", $1, $2, ($1 in b) ? b[$1] : "-", $4,
	    ($1 in b90) ? b90[$1] : "-" }' "$tmp/B.s" "$tmp/A.s" |
	while read -r n a b a9 b9; do
		printf '%-18s %9s %9s %9s %9s %7s\n' "$(label "$n")" "$a" "$b" "$a9" "$b9" \
			"$(awk -v a="$a" -v b="$b" 'BEGIN { if (b == "-" || a <= 0) print "-"; else printf "%.2f", b / a }')"
	done
	exit 0
fi
i=0
while [ $i -lt "$runs" ]; do
	one A ./umkit
	i=$((i + 1))
done
echo "load after:  $(cat /proc/loadavg)"
printf '%-18s %9s %9s %9s\n' "ms" "median" "p10" "p90"
stats "$tmp/A" | while read -r n m p10 p90; do
	printf '%-18s %9s %9s %9s\n' "$(label "$n")" "$m" "$p10" "$p90"
done
echo "(wall: around the umkit process, so its exec and exit too; the"
echo " stages above add up to total, from umkit exec's start to its end)"
up=$(sed -n 's/.*umkit-init uptime=\([0-9.]*\).*/\1/p' run/log/exec.log)
rdy=$(sed -n 's/.*umkit-ready uptime=\([0-9.]*\).*/\1/p' run/log/exec.log)
printf '%-28s %8s s\n' "guest uptime at /init" "${up:-?}" "guest uptime at ready" "${rdy:-?}"

echo "== the same with 1 CPU and with 4 CPUs (5 runs each, wall median)"
for c in 1 4; do
	: >"$tmp/c"
	for i in 1 2 3 4 5; do
		s=$(date +%s%N)
		./umkit exec -c $c $BENCH_ARGS -- true || exit 1
		echo $(( ($(date +%s%N) - s) / 1000 )) >>"$tmp/c"
	done
	printf '%-28s %8s ms\n' "-c $c median" "$(sort -n "$tmp/c" |
		awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] / 1000 }')"
done
