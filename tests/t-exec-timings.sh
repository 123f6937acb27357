#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# beside tests: stages that add up, no bound on any
# 'umkit exec --timings': where a one-shot guest's time goes.  The stages
# (launcher, uml-start, kernel-init, init, agent, command, shutdown) are
# printed on stderr, each once, none negative; they follow one another,
# so they add up to the total, and each stage's sub-stages to the stage,
# within the rounding of the printed figures (0.001 ms each: the
# tolerance is 0.01 ms); the total is no more than the wall time around
# umkit.  No check is about how long anything takes (that is make
# bench-boot's job).
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# consistent FILE: "ok" when the timings in FILE hold together, else why.
consistent() {
	awk '
	function close_parent() {
		if (parent != "" && nsub > 0 && (s = subsum - val[parent]) * s > 1e-4)
			bad = bad " " parent "'"'"'s sub-stages add up to " subsum
	}
	/^umkit: timings in ms/ { head++; next }
	/^  [^ ]/ || /^    [^ ]/ {
		if ($2 !~ /^-?[0-9]+\.[0-9][0-9][0-9]$/) { bad = bad " " $1 "=" $2; next }
		if ($2 < 0) bad = bad " " $1 "<0"
		if (/^    /) { subsum += $2; nsub++; next }
		close_parent()
		parent = $1; subsum = 0; nsub = 0
		seen[$1]++; val[$1] = $2
		if ($1 != "total") top += $2
	}
	END {
		close_parent()
		if (head != 1) bad = bad " header x" head
		n = split("launcher uml-start kernel-init init agent command shutdown total", want)
		for (i = 1; i <= n; i++)
			if (seen[want[i]] != 1) bad = bad " " want[i] " x" seen[want[i]] + 0
		if ((d = top - val["total"]) * d > 1e-4)
			bad = bad " stages add up to " top " not " val["total"]
		print bad == "" ? "ok" : bad
	}' "$1"
}

# run NAME ARGS...: umkit exec --timings ARGS, stdout, stderr, status and
# the wall time (ms) into $tmp/NAME.{out,err,rc,wall}.
run() {
	n=$1; shift
	t0=$(date +%s%N)
	"$UMKIT" exec --timings "$@" >"$tmp/$n.out" 2>"$tmp/$n.err"
	echo $? >"$tmp/$n.rc"
	echo $(( ($(date +%s%N) - t0) / 1000 )) | awk '{ printf "%.3f", $1 / 1000 }' \
		>"$tmp/$n.wall"
}

run disk -- echo hello
is "the command's output is on stdout, alone" "$(cat "$tmp/disk.out")" hello
is "its status passes through" "$(cat "$tmp/disk.rc")" 0
is "the stages are printed, each once, none negative, adding up to the total" \
	"$(consistent "$tmp/disk.err")" ok || sed 's/^/#   /' "$tmp/disk.err"
like "the guest's stages come from its clock stamps" \
	"$(grep '^umkit: timings' "$tmp/disk.err")" \
	'guest stamps mapped onto it within \+-[0-9.]+ ms'
like "with a disk, /init's disk mount is a sub-stage" "$(cat "$tmp/disk.err")" \
	'^    disk +[0-9]'
total=$(awk '$1 == "total" { print $2 }' "$tmp/disk.err")
wall=$(cat "$tmp/disk.wall")
if awk -v t="$total" -v w="$wall" 'BEGIN { exit !(t > 0 && t <= w) }'; then
	ok "the total ($total ms) is within the wall time around umkit ($wall ms)"
else
	not_ok "the total is within the wall time around umkit" "total $total ms, wall $wall ms"
fi

run nodisk -d 0 -c 1 -- sh -c 'echo x >&2; exit 3'
is "-d 0 -c 1: the status passes through" "$(cat "$tmp/nodisk.rc")" 3
is "... the command's stderr comes before the timings" \
	"$(grep -o -e '^x$' -e '^umkit: timings' "$tmp/nodisk.err" | tr '\n' ' ')" \
	"x umkit: timings "
grep -v '^x$' "$tmp/nodisk.err" >"$tmp/nodisk.t"
is "... the stages hold together" "$(consistent "$tmp/nodisk.t")" ok ||
	sed 's/^/#   /' "$tmp/nodisk.t"
if grep -q '^    disk ' "$tmp/nodisk.t"; then not_ok "... no disk sub-stage without a disk"
else ok "... no disk sub-stage without a disk"; fi

err=$("$UMKIT" exec --timings no-such-guest -- true 2>&1)
rc=$?
is "--timings with a running guest's NAME is refused" "$rc" 125
like "... saying why" "$err" 'timings times a fresh guest'

no_leftovers "nothing left behind"
done_testing
