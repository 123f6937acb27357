#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The uml-walk variant (seed 003): it builds, boots and passes the quick
# exec, mirror and TUI checks; the MGLRU page-table walk runs (enabled
# 0x0003, walk statistics); pages read after an aging are found young by
# the next one with the host sync of cleared young bits (um_young_sync Y)
# and not without it (N); the test secondary MMU counts one clear_young
# call per mapped page with combined calls, and with separate calls
# (lru_gen_young_separate) a test_young call per page plus a clear_young
# call per young page, which makes aging slower when pages are young; and a 20 s aging/eviction stress on 4 CPUs leaves no
# kernel warning (make bench-uml-walk-stress runs it for 10 minutes).
# Takes about a minute once the kernel is built.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/variant-smoke.sh"

V=uml-walk NAME=tvuw-$$
cleanup() { "$UMKIT" stop "$NAME" >/dev/null 2>&1; }
trap cleanup EXIT INT TERM
walk() { "$UMKIT" exec -V $V -t 300 "$@" 2>&1; }


variant_build $V
like "its description names seed 003" "$(cat "$TOP/patches/$V/description")" '^Seed 003: '
variant_smoke $V "$NAME"
MNT=$TOP/run/$NAME/mnt
is "$V: lru_gen/enabled shows the walk (0x0003)" \
	"$(cat "$MNT/sys/kernel/mm/lru_gen/enabled" 2>&1)" 0x0003
"$UMKIT" stop "$NAME" >/dev/null 2>&1

# Accuracy: 4096 pages read after an aging, found young by the next one.
# A blocked reader must be seen whole.  A reader running on in user space
# is seen once a tick syncs it; the walk then skips any PTE table that one
# of its faults holds locked (whole tables of 512 PTEs: seen 2560 of 4096
# once on 4 CPUs of a loaded host), so more than half is asserted for it.
out=$(walk -- walk-probe accuracy)
seen() { printf '%s\n' "$out" | awk -v k="$1" -v m="$2" '$1 == "accuracy" && $2 == k && $3 == m {print $4}'; }
for k in blocked busy; do
	n=$(seen $k Y) min=3900
	[ $k = busy ] && min=2048
	if [ -n "$n" ] && [ "$n" -ge $min ]; then
		ok "$V: with the host sync, the next aging finds $n of 4096 pages read ($k reader)"
	else
		not_ok "$V: with the host sync, the next aging finds >= $min of 4096 pages read ($k reader)" "$out"
	fi
	n=$(seen $k N)
	if [ -n "$n" ] && [ "$n" -le 200 ]; then
		ok "$V: without it (um_young_sync N), only $n of 4096 ($k reader)"
	else
		not_ok "$V: without it (um_young_sync N), <= 200 of 4096 ($k reader)" "$out"
	fi
done

# The test secondary MMU: notifier calls per page, combined vs separate.
# Its 64 MiB process maps 16384 pages (the walk sees a few more PTEs);
# the process does not touch them, so only the secondary MMU makes any
# young: all (young_every 1), half (2) or none (0).
out=$(walk -- env COST_NS=2000 walk-probe notify)
# per mode and young_every: TEST CLEAR of the last such line, WRITE_NS and
# CALL_NS the least of its lines (the host's preemption only adds time)
get() { printf '%s\n' "$out" | awk -v m="$1" -v e="$2" '$1 == "notify" && $2 == m && $3 == e {
	r = $5 " " $6; if (w == "" || $9 < w) w = $9; if (c == "" || $8 < c) c = $8 }
	END { if (r != "") print r, w, c }'; }
# near X WANT: X within 1% of WANT
near() { awk -v x="$1" -v w="$2" 'BEGIN { d = x - w; exit !(d <= w / 100 && -d <= w / 100) }'; }
set -- $(get N 1)
P=${2:-0} cn=${3:-0} tn=${4:-0}
if [ $# -eq 4 ] && [ "$1" -eq 0 ] && [ "$P" -ge 16384 ] && [ "$P" -le 16600 ]; then
	ok "$V: combined: one clear_young call per mapped page ($P), no test_young"
else
	not_ok "$V: combined: one clear_young call per mapped page, no test_young" "N 1: $*" "$out"
fi
for c in "1 all $P $P" "2 half $P $((P / 2))" "0 none $P 0"; do
	set -- $c
	e=$1 what=$2 wt=$3 wc=$4
	set -- $(get Y $e)
	if [ $# -eq 4 ] && near "$1" "$wt" && { [ "$wc" -eq 0 ] && [ "$2" -eq 0 ] || near "$2" "$wc"; }; then
		ok "$V: separate, $what young: $1 test_young and $2 clear_young calls for $P pages"
	else
		not_ok "$V: separate, $what young: $wt test_young and $wc clear_young calls" "Y $e: $*" "$out"
	fi
	[ "$e" = 1 ] && cy=${3:-0} ty=${4:-0}
done
# at 2 us a call, with all pages young: twice the calls, 1.8-2.0x the time
# in them (the least of two runs; 1.5x asserted),
# and a slower aging (the write's duration, noisier: other work and host
# load; measured 1.6-2.9x)
if awk -v n="$tn" -v y="$ty" 'BEGIN { exit !(n > 0 && y > 1.5 * n) }'; then
	ok "$V: separate calls spend more time in the notifier ($((ty / 1000)) vs $((tn / 1000)) us)"
else
	not_ok "$V: separate calls spend >= 1.5x the time in the notifier" "separate $ty ns, combined $tn ns" "$out"
fi
if awk -v n="$cn" -v y="$cy" 'BEGIN { exit !(n > 0 && y > 1.2 * n) }'; then
	ok "$V: and make aging slower ($((cy / 1000)) vs $((cn / 1000)) us)"
else
	not_ok "$V: and make aging >= 1.2x slower" "separate $cy ns, combined $cn ns" "$out"
fi

# A short aging/eviction stress on 4 CPUs: no warning, nothing killed.
out=$(walk -c 4 -- env SECS=20 walk-probe stress)
rc=$?
is "$V: the 20 s stress on 4 CPUs exits 0" "$rc" 0
like "$V: it aged and evicted, and all 4 processes finished" "$out" '^stress [1-9][0-9]* [1-9][0-9]* [1-9][0-9]*/4 '
if printf '%s\n' "$out" | grep -q '^dmesg: '; then
	not_ok "$V: no kernel warning, oops or OOM kill" "$(printf '%s\n' "$out" | grep '^dmesg: ')"
else
	ok "$V: no kernel warning, oops or OOM kill"
fi

no_leftovers "$V: nothing is left behind"
done_testing
