#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# workingset-cgroups.sh - seed 004's experiment: vm-scalability's
# lru-file-readtwice in two memory cgroups, classic LRU against MGLRU
# (/sys/kernel/mm/lru_gen/enabled n / y, switched at run time), with each
# cgroup's own refault and activation counters from its memory.stat.
#
#   tests/workingset-cgroups.sh [-V VARIANT] [-c CPUS] [-m MEM] [ROUND...]
#
# One guest boots (default: base, 2 CPUs, 256M, the guest disk) and runs
# one round per ROUND argument (default: n y n y N Y), lower case with its
# own file per cgroup, upper case with one file shared; "n"/"N" with
# classic LRU and "y"/"Y" with MGLRU.  A round makes two cgroups, wsA and
# wsB, each with memory.max = WS_LIMIT (default 48M).
#   n, y  in each cgroup at the same time, one readtwice worker whose
#         sparse file (WS_SIZE, default 64M) is larger than the limit: the
#         second pass refaults what the first pass had to evict, and each
#         cgroup's reclaim is its own;
#   N, Y  one sparse file of WS_SIZE: read twice (cat) in wsA, then once
#         in wsB, which refaults the pages wsA evicted: the shadow entries
#         name wsA, the refaults happen in wsB.
# Reading a hole costs no disk I/O, so the run is LRU and workingset work.
#
# Output: one line per cgroup and round,
#   round=R lru=n|y|N|Y cg=A|B mb_per_s=.. refault=.. activate=.. restore=..
#   evict=..
# (readtwice's MB/s, "-" in shared rounds; the memory.stat deltas of
# workingset_refault_file, workingset_activate_file,
# workingset_restore_file and pgsteal), then the means per kind of round
# (and, for shared rounds, per cgroup).
cd "$(dirname "$0")/.." || exit 2
variant=base cpus=2 mem=256M
while getopts V:c:m: o; do
	case $o in
	V) variant=$OPTARG ;;
	c) cpus=$OPTARG ;;
	m) mem=$OPTARG ;;
	*) echo "usage: $0 [-V VARIANT] [-c CPUS] [-m MEM] [ROUND...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- n y n y N Y
for r in "$@"; do
	case $r in
	n|y|N|Y) ;;
	*) echo "$0: round '$r': want n or N (classic LRU), y or Y (MGLRU)" >&2; exit 2 ;;
	esac
done

guest=$(cat <<'EOF'
CG=/sys/fs/cgroup E=/sys/kernel/mm/lru_gen/enabled
command -v readtwice >/dev/null || { echo "no readtwice in the guest" >&2; exit 1; }
[ -d /mnt/disk ] || { echo "no guest disk at /mnt/disk" >&2; exit 1; }
grep -qw memory $CG/cgroup.subtree_control || echo +memory > $CG/cgroup.subtree_control || exit 1
st() { awk '$1 == "workingset_refault_file" { r = $2 } $1 == "workingset_activate_file" { a = $2 }
	$1 == "workingset_restore_file" { s = $2 } $1 == "pgsteal" { e = $2 }
	END { print r + 0, a + 0, s + 0, e + 0 }' $CG/ws$1/memory.stat; }
r=0
for round in $ROUNDS; do
	r=$((r + 1))
	lru=$(echo $round | tr NY ny)
	echo $lru > $E || exit 1
	sync; echo 3 > /proc/sys/vm/drop_caches
	for g in A B; do
		mkdir $CG/ws$g && echo $WS_LIMIT > $CG/ws$g/memory.max || exit 1
		eval "s$g=\"\$(st $g)\""
	done
	if [ $round = $lru ]; then
		for g in A B; do
			sh -c "echo \$\$ > $CG/ws$g/cgroup.procs && exec readtwice --workers 1 --size $WS_SIZE" > /tmp/rt$g 2>&1 &
		done
		wait
	else
		F=/mnt/disk/ws-shared
		rm -f $F; truncate -s $WS_SIZE $F || exit 1
		sh -c "echo \$\$ > $CG/wsA/cgroup.procs && cat $F > /dev/null && exec cat $F > /dev/null" || exit 1
		sh -c "echo \$\$ > $CG/wsB/cgroup.procs && exec cat $F > /dev/null" || exit 1
		rm -f $F
	fi
	for g in A B; do
		eval "a=\$s$g"
		b=$(st $g)
		mbs=-
		if [ $round = $lru ]; then
			mbs=$(sed -n 's/.* mb_per_s=\([0-9.]*\).*/\1/p' /tmp/rt$g)
			[ -n "$mbs" ] || { cat /tmp/rt$g >&2; exit 1; }
		fi
		echo $a $b | awk -v r=$r -v l=$round -v g=$g -v m=$mbs '{ printf "round=%d lru=%s cg=%s mb_per_s=%s refault=%d activate=%d restore=%d evict=%d\n",
			r, l, g, m, $5 - $1, $6 - $2, $7 - $3, $8 - $4 }'
		rmdir $CG/ws$g || exit 1
	done
done
echo y > $E
EOF
)
out=$(./umkit exec -V "$variant" -c "$cpus" -m "$mem" -t 600 -- \
	sh -c "ROUNDS='$*' WS_LIMIT=${WS_LIMIT:-48M} WS_SIZE=${WS_SIZE:-64M}; $guest")
rc=$?
[ -z "$out" ] || printf '%s\n' "$out"
[ $rc -eq 0 ] || { echo "$0: the guest run failed (status $rc)" >&2; exit 1; }

printf '%s\n' "$out" | awk -v variant="$variant" -v cpus="$cpus" -v mem="$mem" \
    -v lim="${WS_LIMIT:-48M}" -v size="${WS_SIZE:-64M}" '
	/^round=/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		l = v["lru"]; c = l ~ /[NY]/ ? l v["cg"] : l; n[c]++
		for (k in v) if (k !~ /^(round|lru|cg)$/) s[c, k] += v[k] }
	function m(c, k) { return n[c] ? s[c, k] / n[c] : 0 }
	function rows(a, b, what,   i) {
		for (i = 1; i <= 5; i++) {
			if (key[i] == "mb_per_s" && what != "") continue
			printf "%-32s %14.1f %14.1f\n", lab[i], m(a, key[i]), m(b, key[i])
		} }
	END {
		split("mb_per_s refault activate restore evict", key, " ")
		split("readtwice MB/s|workingset_refault_file|workingset_activate_file|workingset_restore_file|pgsteal", lab, "|")
		printf "\n%s, %s CPU(s), %s; two cgroups, memory.max %s, %s files\n", variant, cpus, mem, lim, size
		if (n["n"] || n["y"]) {
			printf "own file each, read twice (per cgroup) %7s %14s\n", "classic", "MGLRU"
			rows("n", "y", "")
		}
		for (g = 1; g <= 2; g++) {
			cg = g == 1 ? "A" : "B"
			if (!n["N" cg] && !n["Y" cg]) continue
			printf "shared file, ws%s (%s)  %16s %14s\n", cg, g == 1 ? "reads it twice" : "then reads it", "classic", "MGLRU"
			rows("N" cg, "Y" cg, "shared")
		}
	}'
