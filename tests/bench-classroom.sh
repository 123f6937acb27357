#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench-classroom: how many students can run lab 01 at once on this
# host with every check still passing.  N runs of 'umkit lab 01 --batch'
# start together, each with a home of its own (its own state, cache and
# run directories, as N students have); N doubles from 1 until a run
# fails or N reaches MAX (default 60, the target: 60 students at once,
# every check passing; MAX itself is the last N tried).  Prints per N: wall time, checks
# failed, the host's lowest MemAvailable while they ran (so the memory
# per guest), and the disk each student's directories take.  The kit
# runs installed (make install DESTDIR=a scratch directory), as root.
#
#   BENCH_MAX=N   the largest N tried        BENCH_NS="1 2 4"  the Ns tried
. "$(dirname "$0")/lib.sh"

max=${BENCH_MAX:-60}
ns=${BENCH_NS:-$(n=1; while [ $n -lt "$max" ]; do echo $n; n=$((n * 2)); done; echo "$max")}
W=$(mktemp -d /tmp/umkit-classroom.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM
# The kit as students get it: installed (make install DESTDIR).
make -s -C "$TOP" install DESTDIR="$W/dest" PREFIX=/usr/local KERNELS=asis >/dev/null || exit 1
K=$W/dest/usr/local/bin/umkit
avail() { awk '/^MemAvailable/ {print $2}' /proc/meminfo; }

echo "bench-classroom: lab 01 (base, 2 CPUs, 256 MiB guest), $(nproc) host CPUs," \
	"$(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
printf '%4s %8s %7s %14s %12s\n' N wall_s failed min_avail_MiB MiB_per_run
best=0
for n in $ns; do
	rm -rf "$W"/h*; i=1
	base=$(avail) low=$base
	t0=$(date +%s.%N)
	while [ $i -le "$n" ]; do
		mkdir -p "$W/h$i"
		(env -u UMKIT_TOP -u XDG_STATE_HOME -u XDG_CACHE_HOME -u XDG_RUNTIME_DIR \
			HOME="$W/h$i" "$K" lab 01 --batch > "$W/out$i" 2>&1; echo $? > "$W/rc$i") &
		i=$((i + 1))
	done
	while [ "$(ls "$W"/rc* 2>/dev/null | wc -l)" -lt "$n" ]; do
		a=$(avail); [ "$a" -lt "$low" ] && low=$a
		sleep 0.2
	done
	wait
	t1=$(date +%s.%N)
	bad=$(cat "$W"/rc* | grep -vcx 0)
	per=$(( (base - low) / 1024 / n ))
	printf '%4d %8.1f %7d %14d %12d\n' "$n" "$(echo "$t1 - $t0" | bc)" "$bad" \
		"$((low / 1024))" "$per"
	rm -f "$W"/rc*
	if [ "$bad" -ne 0 ]; then
		# which checks failed, in how many runs, and what umkit said
		grep -h '^not ok' "$W"/out* | sed 's/^not ok [0-9]* /  failed: /' |
			sort | uniq -c | sort -rn | head -12
		grep -h '^umkit: ' "$W"/out* | sed 's/[0-9][0-9]*/N/g' | sort | uniq -c |
			sort -rn | head -6
		break
	fi
	best=$n
done
echo "bench-classroom: $best runs of lab 01 at once passed every check"
echo "bench-classroom: disk per student after lab 01: $(du -sh "$W/h1" | cut -f1)" \
	"(state $(du -sh "$W/h1/.local/state" | cut -f1), cache $(du -sh "$W/h1/.cache" | cut -f1))"
