#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The rss-lazy variant (seed 001): it builds, boots and passes the quick
# subset; a single-threaded process reads RssCounterMode atomic, and after
# it starts a second thread percpu, with vmstat rss_percpu_switch up by
# exactly one; /proc/PID/status counts exactly what the process mapped in
# both modes, on 1, 2 and 4 CPUs, and the approximate read (stat rss)
# stays within the per-cpu bound; rss_counter.mode=atomic never switches
# and stays exact, =percpu is 7.2's behaviour; debugfs rss_counter/stats
# shows the per-cpu set-up only under percpu; the TUI's counters view, in
# tmux on the live mirror, shows a process atomic, then marks its switch.
# The checks use procbench (rootfs/wl-procbench.c) and umkit-rsscheck
# (tests/rss-guest.c), both in every rootfs.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-variant.sh"

V=rss-lazy
P=sys/module/rss_counter/parameters/mode
CHECK=/usr/lib/umkit/umkit-rsscheck
TUI=$TOP/build/bin/umkit-tui
NAME=rss-lazy-$$
MNT=$TOP/run/$NAME/mnt
SOCK=umkit-rss-lazy-$$
export LANG=C.UTF-8 LC_ALL=C.UTF-8
tm() { tmux -L "$SOCK" "$@"; }
cleanup() {
	tm kill-server 2>/dev/null
	"$UMKIT" stop "$NAME" >/dev/null 2>&1
}
trap cleanup EXIT INT TERM

# Through the mirror: the policy switch is in uml/link/allow.conf.
knob() {
	is "$V: rss_counter.mode reads lazy after boot" "$(cat "$2/$P" 2>&1)" lazy
	if echo atomic > "$2/$P" 2>/dev/null; then ok "$V: the mode is writable through the mirror"
	else not_ok "$V: the mode is writable through the mirror"; fi
	is "$V: the guest sees mode atomic" "$("$UMKIT" exec "$1" -- cat /$P 2>&1)" atomic
	err=$(echo bogus | dd of="$2/$P" 2>&1)
	like "$V: a bad mode is refused with the guest's EINVAL" "$err" 'Invalid argument'
	echo lazy > "$2/$P" 2>/dev/null
	like "$V: TUI: processes read atomic from status" \
		"$("$TUI" --root "$2" --dump=counters 2>&1)" '^ +1 init .* atomic$'
}
variant_quick $V knob || { done_testing; exit 1; }

is "$V: a single-threaded shell reads atomic" \
	"$("$UMKIT" exec -V $V -- sh -c 'grep RssCounterMode /proc/self/status' 2>&1)" \
	"RssCounterMode:	atomic"

# procbench --threaded: its second thread switches its counters, once.
out=$("$UMKIT" exec -V $V -- sh -c 'sw() { awk "\$1 == \"rss_percpu_switch\" { print \$2 }" /proc/vmstat; }
	a=$(sw); procbench --case fork --iterations 100000 > /dev/null & p=$!; sleep 0.5
	echo single=$(awk "/^RssCounterMode:/ { print \$2 }" /proc/$p/status); kill $p; wait $p
	b=$(sw); procbench --case fork --iterations 100000 --threaded > /dev/null & p=$!; sleep 0.5
	echo threaded=$(awk "/^RssCounterMode:/ { print \$2 }" /proc/$p/status) \
		threads=$(awk "/^Threads:/ { print \$2 }" /proc/$p/status) switches=$(($(sw) - b)) before=$((b - a))
	kill $p' 2>&1 | tr '\n' ' ')
like "$V: procbench alone reads atomic" "$out" 'single=atomic '
like "$V: procbench --threaded (2 threads) reads percpu" "$out" 'threaded=percpu threads=2 '
like "$V: its switch count rose by exactly one (none before it)" "$out" 'switches=1 before=0'

# field LINE KEY: a key=value of an rsscheck line.
field() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# rss CPUS MODE THREADS: one boot, rsscheck under rss_counter.mode=MODE,
# with the switch count before and after.
rss() {
	"$UMKIT" exec -V $V -c "$1" -- sh -c "$(cat <<EOF
echo $2 > /$P || exit 1
sw() { awk '\$1 == "rss_percpu_switch" { print \$2 }' /proc/vmstat; }
a=\$(sw)
$CHECK 4096 $3 || exit 1
echo switches=\$((\$(sw) - a))
grep -E '^(init|init_percpu|switch) ' /sys/kernel/debug/rss_counter/stats | tr ' ' =
EOF
)" 2>&1 | tr '\n' ' '
}
# the percpu_counter bound of the three rss counters VmRSS adds up:
# batch (32 up to 16 CPUs) per CPU each
for c in 1 2 4; do
	t=$((c < 2 ? 2 : c))
	out=$(rss $c lazy $t)
	d="$V: $c CPU(s), $t threads:"
	is "$d one thread reads atomic" "$(field "$out" mode1)" atomic
	is "$d atomic: status counts the 16384 kB mapped exactly" "$(field "$out" anon1_kB)" 16384
	is "$d a second thread switches it to percpu" "$(field "$out" mode2)" percpu
	is "$d the switch count rises by exactly one" "$(field "$out" switches)" 1
	is "$d percpu: status counts the 16384 kB mapped exactly" "$(field "$out" anon2_kB)" 16384
	is "$d unmapping both takes 32768 kB off" "$(field "$out" anon3_kB)" -32768
	g=$(field "$out" gap2_pages) b=$((32 * c * 3))
	if [ -n "$g" ] && [ "${g#-}" -le $b ]; then ok "$d stat rss within the per-cpu bound ($g of +-$b pages)"
	else not_ok "$d stat rss within the per-cpu bound of $b pages" "$out"; fi
done

out=$(rss 4 atomic 4)
d="$V: mode atomic, 4 CPUs, 4 threads:"
is "$d stays atomic" "$(field "$out" mode2)" atomic
is "$d no switch" "$(field "$out" switches)" 0
is "$d exact" "$(field "$out" anon2_kB) $(field "$out" gap2_pages)" "16384 0"
is "$d no per-cpu set-up" "$(field "$out" init_percpu)" 0

out=$(rss 2 percpu 2)
d="$V: mode percpu (7.2), 2 CPUs:"
is "$d a single thread already reads percpu" "$(field "$out" mode1)" percpu
is "$d no switch" "$(field "$out" switches)" 0
is "$d exact sums in status" "$(field "$out" anon1_kB) $(field "$out" anon2_kB)" "16384 16384"
like "$d per-cpu set-up at every mm_init after the change" "$(field "$out" init_percpu)" '^[1-9][0-9]*$'
no_leftovers "$V: nothing left after the mode checks"

# The TUI in tmux on the live mirror: atomic, then the switch marked.
if ! command -v tmux >/dev/null; then
	skip "$V: TUI marks a mode switch" "tmux not installed"
	done_testing
	exit 0
fi
if ! out=$("$UMKIT" start -V $V -n "$NAME" 2>&1); then
	not_ok "$V: umkit start -V $V" "$out"
	done_testing
	exit 1
fi
wait_for() {
	i=0
	while [ $i -lt "${2:-100}" ]; do
		screen=$(tm capture-pane -p -t t)
		printf '%s\n' "$screen" | grep -Eq -- "$1" && return 0
		sleep 0.1; i=$((i + 1))
	done
	return 1
}
tm new-session -d -s t -x 100 -y 30 "env -u TMUX sh"
tm set-option -t t status off >/dev/null
tm send-keys -t t "$TUI --root $MNT --view counters --interval 200; echo tui-exit=\$?" Enter
"$UMKIT" exec "$NAME" -- sh -c "$CHECK 8192 2 12 >/dev/null 2>&1 &" >/dev/null 2>&1
if wait_for "umkit-rssche .* atomic$"; then ok "$V: TUI: the single-threaded process shows atomic"
else not_ok "$V: TUI: the single-threaded process shows atomic" "$screen"; fi
# rsscheck holds 12 s single-threaded (HOLD) before its second thread:
# the wait starts once the first row shows, up to 30 s.
if wait_for "umkit-rssche +2 .* >percpu$" 300; then ok "$V: TUI: with its second thread, the switch is marked (>percpu)"
else not_ok "$V: TUI: with its second thread, the switch is marked (>percpu)" "$screen"; fi
# One update reads vmstat before the processes' status, so the frame that first
# marks the switch may still show the old count; the next one must show it.
if wait_for 'rss_percpu_switch [0-9]+ \+1' 30; then ok "$V: TUI: the global switch count is shown as it rises"
else not_ok "$V: TUI: the global switch count is shown as it rises" "$screen"; fi
if wait_for "umkit-rssche +2 .*[0-9] percpu$" 80 && ! printf '%s\n' "$screen" | grep -q ">percpu"; then
	ok "$V: TUI: the mark goes after 5 s, percpu stays"
else not_ok "$V: TUI: the mark goes after 5 s, percpu stays" "$screen"; fi
tm send-keys -t t q
if wait_for "tui-exit=0"; then ok "$V: TUI: q quits"; else not_ok "$V: TUI: q quits" "$screen"; fi
tm kill-server 2>/dev/null
"$UMKIT" stop "$NAME" >/dev/null 2>&1
no_leftovers "$V: nothing left behind"

done_testing
