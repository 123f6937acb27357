#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench-variant-uml-walk.sh - seed 003's figures, side by side in one run
# over BENCH_BOOTS boots of each kernel (default 5): mean, standard
# deviation and % change of
#
#   - in uml-walk, the page-table walk off (lru_gen/enabled 0x0001) against
#     on (0x0003) (walk-probe (rootfs/walk-probe.sh) hotset): a 64 MiB
#     process re-reads 16 MiB after each aging; the pages of it that the
#     aging puts in the two youngest generations, the page faults of the
#     re-read and the aging write's duration (means over 7 rounds).  One
#     kernel: base against uml-walk would also compare uml-walk's
#     DEBUG_VM (patches/uml-walk/config);
#   - in uml-walk, with the test secondary MMU at 1 us a call (walk-probe
#     notify): notifier calls per page and the aging write's duration,
#     one combined clear_young call (lru_gen_young_separate N, 7.2)
#     against separate test_young and clear_young calls (Y), with every
#     page young in the secondary MMU and with none;
#   - seed 003's rows (repro-003 --rounds 2, rootfs/repro-003.sh): aging
#     after the secondary MMU wrote idle memory, aging with nothing young,
#     aging while a process faults under eviction, combined vs separate.
cd "$(dirname "$0")/.." || exit 2
boots=${BENCH_BOOTS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM


uml/kernel/kbuild.sh uml-walk >/dev/null || { echo "bench: variant uml-walk does not build"; exit 1; }
. tests/bench-stats.sh

# guest VARIANT TASK ENV...: one boot running walk-probe TASK, output
# in $tmp/out
guest() {
	v=$1 t=$2; shift 2
	if ! ./umkit exec -V "$v" -t 300 -- env "$@" walk-probe "$t" > "$tmp/out" 2>&1; then
		echo "bench: walk-probe $t on $v failed:"; cat "$tmp/out"; exit 1
	fi
}

# hotset ENABLED: appends the boot's means to $tmp/ENABLED.{hot,faults,us}
hotset() {
	guest uml-walk hotset ROUNDS=8 LRU_GEN="$1"
	awk -v f="$tmp/$1." '$1 == "hotset" && $2 > 0 { h += $3; p += $4; w += $5; n++ }
		END { print h / n >> (f "hot"); print p / n >> (f "faults"); print w / n / 1000 >> (f "us") }' "$tmp/out"
}

# notify: appends the boot's figures to $tmp/notify.{calls,ms}.MODE.EVERY
notify() {
	guest uml-walk notify COST_NS=1000
	awk -v f="$tmp/notify." '$1 == "notify" {
		k = $2 "." $3; c[k] += ($5 + $6) / $4; t[k] += $8 / 1e6; w[k] += $9 / 1e6; n[k]++ }
		END { for (k in n) { print c[k] / n[k] >> (f "calls." k); print t[k] / n[k] >> (f "callms." k)
			print w[k] / n[k] >> (f "ms." k) } }' "$tmp/out"
}

# repro: appends each round's values to $tmp/repro.KEY.COLUMN
repro() {
	if ! ./umkit exec -V uml-walk -t 300 -- repro-003 --rounds 2 > "$tmp/out" 2>&1; then
		echo "bench: repro-003 failed:"; cat "$tmp/out"; exit 1
	fi
	awk -v f="$tmp/repro." '$1 == "repro:" { for (i = 3; i <= NF; i++) {
		split($i, kv, "="); print kv[2] >> (f kv[1] "." $2) } }' "$tmp/out"
}

echo "== seed 003, uml-walk: the MGLRU walk on UML and secondary MMUs ($boots boots each)"
i=0
while [ $i -lt "$boots" ]; do
	hotset 0x0001
	hotset 0x0003
	notify
	repro
	i=$((i + 1))
done

header "uml-walk: walk off -> on (16 MiB hot in 64 MiB)"
row "hot pages in the 2 youngest gens after aging" "$tmp/0x0001.hot" "$tmp/0x0003.hot"
row "page faults of the 16 MiB re-read" "$tmp/0x0001.faults" "$tmp/0x0003.faults"
row "aging write, us" "$tmp/0x0001.us" "$tmp/0x0003.us"
header "one clear_young call -> separate calls"
row "notifier calls per PTE walked, all young" "$tmp/notify.calls.N.1" "$tmp/notify.calls.Y.1"
row "notifier calls per PTE walked, none young" "$tmp/notify.calls.N.0" "$tmp/notify.calls.Y.0"
row "ms in notifier calls per aging, all young" "$tmp/notify.callms.N.1" "$tmp/notify.callms.Y.1"
row "ms in notifier calls per aging, none young" "$tmp/notify.callms.N.0" "$tmp/notify.callms.Y.0"
row "aging write ms at 1 us/call, all young" "$tmp/notify.ms.N.1" "$tmp/notify.ms.Y.1"
row "aging write ms at 1 us/call, half young" "$tmp/notify.ms.N.2" "$tmp/notify.ms.Y.2"
row "aging write ms at 1 us/call, none young" "$tmp/notify.ms.N.0" "$tmp/notify.ms.Y.0"
header "seed 003: one notifier call -> two (repro-003)"
for k in aging_idle_ms aging_cold_ms aging_fault_ms idle_lookups cold_lookups idle_test_calls cold_test_calls fault_lock_waits; do
	row "$k" "$tmp/repro.$k.combined" "$tmp/repro.$k.separate"
done
echo "(a fault per hot page is what the software accessed bit costs once the walk"
echo " clears it; the separate-calls switch runs in the same kernel and boot; once"
echo " the mm has notifiers, each old PTE costs a folio look-up and a clear call"
echo " (combined) or a test call (separate): 2-3 us a call on UML)"
