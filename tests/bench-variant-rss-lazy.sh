#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench-variant-rss-lazy.sh - seed 001's table for the rss-lazy variant:
# procbench fork, exec and shell (us per operation, pinned to CPU 1 of a
# 2-CPU guest; BENCH_CPU=N instead runs a 1-CPU guest with its UML process
# pinned to host CPU N, which DESIGN.md found much less noisy on an idle
# host, and much slower on a busy one) on base and, in the same boots of
# rss-lazy, under rss_counter.mode=lazy (the variant), atomic (plain
# atomics), percpu (7.2's code path in the variant kernel) and revert (the
# split counting before 6.2, the thread's "revert" column), over
# BENCH_BOOTS boots per kernel (default 5): mean, standard deviation,
# % change against base.  UML's fork costs about a millisecond, so a few
# microseconds of counter set-up vanish in the spread; the in-kernel figure
# that shows them is the time the rss counters' set-up, check_mm()'s sums,
# tear-down, the switch and the split syncs on leaving take per mm, from
# debugfs rss_counter/modes over the same runs, per mode the mms latched
# (base has no such counter: its code path is the variant's percpu mode).
# umkit reproduce 001 (rootfs/repro-001.sh) runs the modes interleaved in
# one boot instead, with the per-update cost beside them.
cd "$(dirname "$0")/.." || exit 2
boots=${BENCH_BOOTS:-5}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT INT TERM

if [ -n "${BENCH_CPU:-}" ]; then
	run="taskset -c $BENCH_CPU ./umkit exec -c 1" pin=0 where="1 guest CPU on host CPU $BENCH_CPU"
else
	run="./umkit exec -c 2" pin=1 where="2 guest CPUs, procbench on CPU 1"
fi
echo "== rss-lazy vs base: procbench fork/exec/shell, $boots boots per kernel, $where"
uml/kernel/kbuild.sh base >/dev/null && uml/kernel/kbuild.sh rss-lazy >/dev/null || exit 1
guest=$(cat <<'G'
command -v procbench >/dev/null || { echo "no procbench in the guest (rootfs without the workloads)" >&2; exit 1; }
S=/sys/kernel/debug/rss_counter/modes P=/sys/module/rss_counter/parameters/mode
st() { awk -v m=$m '$1 == m { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	printf "%d %d ", v["init"], v["init_ns"] + v["check_ns"] + v["destroy_ns"] + v["switch_ns"] + v["leave_ns"] }' $S; }
for m in $MODES; do
	[ "$m" = base ] || echo $m > $P || exit 1
	[ ! -e $S ] || a=$(st)
	for c in fork exec shell; do
		n=300; [ $c = fork ] && n=1000
		procbench --case $c --cpu $PIN --iterations $n | sed -n "s/^procbench: .*us_per_op=\([0-9.]*\).*/col=$m $c=\1/p"
	done
	[ ! -e $S ] || echo "col=$m $(echo $a $(st) | awk '{ n = $3 - $1; printf "ns_per_mm=%.1f mms=%d", n ? ($4 - $2) / n : 0, n }')"
done
G
)
i=0
while [ $i -lt "$boots" ]; do
	$run -V base -t 600 -- sh -c "PIN=$pin MODES=base; $guest" >> "$tmp" || exit 1
	$run -V rss-lazy -t 600 -- sh -c "PIN=$pin MODES='lazy atomic percpu revert'; $guest" >> "$tmp" || exit 1
	i=$((i + 1))
done
awk -v boots="$boots" '
	{ c = $1; sub(/^col=/, "", c)
	  for (i = 2; i <= NF; i++) { split($i, kv, "="); k = kv[1]
		if (k == "mms") continue
		n[c, k]++; s[c, k] += kv[2]; q[c, k] += kv[2] * kv[2] } }
	function mean(c, k) { return n[c, k] ? s[c, k] / n[c, k] : 0 }
	function sd(c, k,   m, d) { m = mean(c, k); d = n[c, k] ? q[c, k] / n[c, k] - m * m : 0
		return n[c, k] > 1 && d > 0 ? sqrt(d * n[c, k] / (n[c, k] - 1)) : 0 }
	END {
		split("base lazy atomic percpu revert", col, " ")
		split("fork exec shell ns_per_mm", key, " ")
		split("fork_proc (us)|exec_proc (us)|shell_proc (us)|rss counters per mm (ns)", lab, "|")
		printf "%-30s", ""
		for (j = 1; j <= 5; j++) printf " %-17s %8s", "  " (j > 1 ? "rss-lazy " : "") col[j], (j > 1 ? "vs base" : "")
		printf "\n"
		for (r = 1; r <= 4; r++) {
			printf "%-30s", lab[r]
			for (j = 1; j <= 5; j++) {
				c = col[j]; k = key[r]
				if (!n[c, k]) { printf " %17s %8s", "-", ""; continue }
				printf " %9.1f +-%6.1f", mean(c, k), sd(c, k)
				b = mean(k == "ns_per_mm" ? "percpu" : "base", k)
				if (j > 1 && b && !(k == "ns_per_mm" && c == "percpu"))
					printf " %+6.2f%%", (mean(c, k) - b) * 100 / b
				else
					printf " %8s", ""
			}
			printf "\n"
		}
		printf "(%d boots per kernel; the four rss-lazy columns ran in the same boots;\n", boots
		printf " base has no set-up counter: that row compares with rss-lazy percpu, 7.2'"'"'s code path)\n"
	}' "$tmp"
