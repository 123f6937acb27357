#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kernels: uml-walk own
# The uml-walk variant (seed 003): it builds, boots and passes the quick
# exec, mirror and TUI checks; the MGLRU page-table walk runs (enabled
# 0x0003, walk statistics); pages read after an aging are found young by
# the next one with the host sync of cleared young bits (um_young_sync Y)
# and not without it (N), and read-only accesses are seen (base's A-bit
# fix, patches/base/0001); the test secondary MMU refuses bad input,
# keeps an accessed bit per page that its accesses set, agings clear and
# eviction's unmaps clear (eviction keeps exactly the pages it has
# young); lru_gen_notify_stats shows the order of the two schemes (with
# nothing young, combined looks every folio up and makes one clear call,
# separate makes one test call and no look-up); the test MMU counts one
# clear_young call per mapped page with combined calls, and with separate
# calls (lru_gen_young_separate) a test_young call per page plus a
# clear_young call per young page, which costs more time in the notifier
# when pages are young; repro-003 --quick prints its table; and a 20 s
# aging/eviction stress on 4 CPUs leaves no kernel warning (make
# bench-uml-walk-stress runs it for 10 minutes).
# Takes about two minutes once the kernel is built.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/variant-smoke.sh"

V=uml-walk NAME=tvuw-$$
cleanup() { "$UMKIT" stop "$NAME" >/dev/null 2>&1; }
trap cleanup EXIT INT TERM
walk() { "$UMKIT" exec -V $V -t 300 "$@" 2>&1; }


variant_build $V
like "its description names seed 003" "$(cat "$TOP/patches/$V/description")" '^Seed 003: '
variant_smoke $V "$NAME"
MNT=$RUN/$NAME/mnt
is "$V: lru_gen/enabled shows the walk (0x0003)" \
	"$(cat "$MNT/sys/kernel/mm/lru_gen/enabled" 2>&1)" 0x0003
"$UMKIT" stop "$NAME" >/dev/null 2>&1

# Accuracy: 4096 pages read after an aging, found young by the next one.
# A blocked reader must be seen whole (the best of up to 3 agings: a walk
# skips a PTE table whose lock it cannot take at once, mm/vmscan.c:3480 in
# 7.2, and one aging saw 3076 in 1 of 16 boots here).  A reader running on
# in user space is seen once a tick syncs it; the walk then skips any PTE table that one
# of its faults holds locked: whole tables of 512 PTEs.  One aging found
# 513 to 4098 of them (26 agings in 6 boots on a quiet 2-core host, 11 of
# 26 at half or more; BUSY_TRACE=1 prints each), and the best of 5 agings
# 1025 to 4098 (10 boots), so the probe reports that best and one table
# (512) is asserted: a fresh-clone run failed the old bar, half (1025
# seen, best of 2).  Without the sync no aging finds any (0 in every
# boot), which is the contrast this checks.
out=$(walk -- walk-probe accuracy)
seen() { printf '%s\n' "$out" | awk -v k="$1" -v m="$2" '$1 == "accuracy" && $2 == k && $3 == m {print $4}'; }
for k in blocked busy; do
	n=$(seen $k Y) min=3900
	[ $k = busy ] && min=512
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

# Read-only accesses after the young bits were cleared fault and are seen
# (base's patch: an old PTE is mapped without exec on the host).
out=$(walk -- walk-probe young)
set -- $(printf '%s\n' "$out" | awk '$1 == "young" {print $2, $3}')
if [ $# -eq 2 ] && [ "$1" -ge 4096 ] && [ "$2" -eq 4096 ]; then
	ok "$V: 4096 pages read after clear_refs: $1 faults, $2 young (base's A-bit fix)"
else
	not_ok "$V: 4096 pages read after clear_refs fault and are young" "$out"
fi

# The test secondary MMU's own checks (walk-probe mmu).
out=$(walk -- walk-probe mmu)
# m KEY [WORD]: the rest of the line "mmu KEY [WORD] ..."
m() { printf '%s\n' "$out" | awk -v k="$1" -v w="${2:-}" '$1 == "mmu" && $2 == k && (w == "" || $3 == w) {
	$1 = $2 = ""; if (w != "") $3 = ""; sub(/^ +/, ""); print }'; }
for k in unattached_access cost_over_bound attach_unaligned attach_over_1g attach_garbage; do
	is "$V: test MMU: $k is refused" "$(m $k)" refused
done
is "$V: test MMU: cost_ns 10000 (the bound) is taken" "$(m cost_bound)" accepted
is "$V: test MMU: attaching to a 64 MiB range is taken and read back" "$(m attach)" "accepted 1"
is "$V: test MMU: its access of every page sets 16384 bits" "$(m accessed)" 16384
is "$V: test MMU: an aging clears them" "$(m after_aging)" 0
set -- $(m cold N)
if [ $# -eq 6 ] && [ "$1" -ge 16384 ] && [ "$2" = "$1" ] && [ "$3" = 0 ] && [ "$4" = "$1" ] && [ "$5" = 0 ]; then
	ok "$V: nothing young, combined: $1 folio look-ups (all for old PTEs), $4 clear calls, no test call"
else
	not_ok "$V: nothing young, combined: a look-up and a clear call per PTE, no test call" "cold N: $*" "$out"
fi
set -- $(m cold Y)
if [ $# -eq 6 ] && [ "$1" = 0 ] && [ "$3" -ge 16384 ] && [ "$4" = 0 ] && [ "$5" = 0 ]; then
	ok "$V: nothing young, separate: $3 test calls before any look-up, no look-up, no clear call"
else
	not_ok "$V: nothing young, separate: a test call per PTE and no look-up (test_young before get_pfn_folio)" "cold Y: $*" "$out"
fi
set -- $(m evict)
if [ $# -eq 3 ] && [ "$1" -eq 8192 ] && [ "$2" -ge 8192 ] && [ "$3" -eq 0 ]; then
	ok "$V: eviction keeps the 8192 pages young in the test MMU only, unmaps the rest ($2 invalidations)"
else
	not_ok "$V: eviction keeps the 8192 pages young in the test MMU, invalidates the others" "evict: $*" "$out"
fi
is "$V: test MMU: detached, attach reads 0" "$(m detached)" 0
is "$V: test MMU: attaching again to the same process works" "$(m reattach)" accepted

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
# at 2 us a call, with all pages young: twice the calls; the time in them
# (the least of two runs) was 1.4-1.8x under a host load of 10 on 2 cores
# (the clock reads of the wait are part of each call): 1.2x asserted.  The
# aging write's duration is repro-003's row, not asserted here.
if awk -v n="$tn" -v y="$ty" 'BEGIN { exit !(n > 0 && y > 1.2 * n) }'; then
	ok "$V: separate calls spend more time in the notifier ($((ty / 1000)) vs $((tn / 1000)) us)"
else
	not_ok "$V: separate calls spend >= 1.2x the time in the notifier" "separate $ty ns, combined $tn ns" "$out"
fi

# repro-003 --quick: one result line per column, the same keys, numbers;
# the idle row's counts are exact (16384 pages, all young in the test MMU
# only): one call per page combined, two separate.
out=$(walk -- repro-003 --quick)
rc=$?
is "$V: repro-003 --quick exits 0" "$rc" 0
keys() { printf '%s\n' "$out" | awk -v c="$1" '$1 == "repro:" && $2 == c {
	for (i = 3; i <= NF; i++) { split($i, kv, "="); printf "%s ", kv[1] } print "" }'; }
like "$V: repro-003 prints combined then separate" \
	"$(printf '%s\n' "$out" | awk '$1 == "repro:" {printf "%s ", $2}')" '^combined separate $'
is "$V: both columns have the same keys" "$(keys separate)" "$(keys combined)"
if printf '%s\n' "$out" | awk '$1 == "repro:" { if ($2 !~ /^[a-z0-9_]+$/ || length($2) > 32) bad = 1
	for (i = 3; i <= NF; i++) if ($i !~ /^[a-z0-9_]+=[0-9]+(\.[0-9]+)?$/ || index($i, "=") > 33) bad = 1 }
	END { exit bad }'; then
	ok "$V: every result is KEY=NUMBER"
else
	not_ok "$V: every result is KEY=NUMBER" "$out"
fi
v() { printf '%s\n' "$out" | awk -v c="$1" -v k="$2" '$1 == "repro:" && $2 == c {
	for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }'; }
if [ "$(v combined idle_test_calls)" = 0 ] && [ "$(v combined idle_clear_calls)" -ge 16384 ] &&
    [ "$(v separate idle_test_calls)" -ge 16384 ] && [ "$(v separate idle_clear_calls)" -ge 16384 ] &&
    [ "$(v separate idle_young_secondary)" = 16384 ]; then
	ok "$V: repro-003 idle row: one call per page combined, two separate, 16384 young in the test MMU only"
else
	not_ok "$V: repro-003 idle row: one call per page combined, two separate" "$out"
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
