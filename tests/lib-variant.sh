# SPDX-License-Identifier: GPL-2.0-only
# tests/lib-variant.sh - the quick subset of the base suite that every
# kernel variant must pass (source it after tests/lib.sh).
#
#   variant_quick VARIANT [HOOK]
#
# builds the variant (uml/kernel/kbuild.sh), checks that 'umkit variants' lists
# it with its description, then runs a few of the exec checks (t-exec.sh),
# the mirror checks (t-mirror-live.sh) and the TUI's --dump views on the
# live mirror (t-tui-live.sh) against it, and that nothing is left behind.
# HOOK, if given, is a function called as HOOK NAME MNT while the named
# guest and its mirror are up, for the variant's own checks there.  Each
# check prints one TAP line naming the variant.

# variant_quick VARIANT [HOOK]: the quick subset against VARIANT.
variant_quick() {
	_v=$1 _hook=${2:-} _name=vq-$1-$$
	_mnt=$RUN/$_name/mnt
	if _o=$(uml/kernel/kbuild.sh "$_v" 2>&1); then ok "$_v: builds"
	else not_ok "$_v: builds" "$(printf '%s\n' "$_o" | tail -n 20)"; return 1; fi
	_d=$(cat "patches/$_v/description")
	like "$_v: 'umkit variants' lists it, built, with its description" \
		"$("$UMKIT" variants 2>&1 | grep -F -- "$_d")" "^$_v +built "

	# exec (t-exec.sh)
	_o=$("$UMKIT" exec -V "$_v" -- cat /sys/kernel/mm/lru_gen/enabled 2>&1)
	like "$_v: exec: MGLRU is on" "$_o" '^0x000[1-7]$'
	is "$_v: exec: -c 4 gives four CPUs online" \
		"$("$UMKIT" exec -V "$_v" -c 4 -- cat /sys/devices/system/cpu/online 2>&1)" "0-3"
	"$UMKIT" exec -V "$_v" -- sh -c 'exit 7' >/dev/null 2>&1
	is "$_v: exec: exit status passes through (exit 7)" "$?" 7
	_o=$("$UMKIT" exec -V "$_v" -- sh -c 'head -n 1 /sys/kernel/debug/lru_gen;
		test -d /sys/kernel/tracing/events/compaction/mm_compaction_begin && echo tracepoint;
		grep -c hostfs /proc/filesystems' 2>&1)
	like "$_v: exec: lru_gen, compaction tracepoints, no hostfs" "$_o" '^memcg +[0-9]+.*
tracepoint
0$'

	# mirror (t-mirror-live.sh)
	_o=$("$UMKIT" start -V "$_v" -n "$_name" 2>&1)
	like "$_v: start mounts the mirror" "$_o" "mirror at run/$_name/mnt"
	is "$_v: mirror: vmstat keys equal the guest's" "$(awk '{print $1}' "$_mnt/proc/vmstat")" \
		"$("$UMKIT" exec "$_name" -- cat /proc/vmstat | awk '{print $1}')"
	set -- $(awk '/^memcg/ { if (m != "") exit; m = $2 } /^ *node/ { if (n != "") exit; n = $2; next }
		n != "" && $1 ~ /^[0-9]+$/ { s = $1 } END { print m, n, s }' "$_mnt/sys/kernel/debug/lru_gen")
	if [ $# -eq 3 ] && echo "+ $1 $2 $3" > "$_mnt/sys/kernel/debug/lru_gen" 2>/dev/null &&
	    grep -Eq "^ +$(($3 + 1)) " "$_mnt/sys/kernel/debug/lru_gen"; then
		ok "$_v: mirror: an aging command raises max_seq to $(($3 + 1))"
	else not_ok "$_v: mirror: an aging command raises max_seq" "lru_gen: $*"; fi
	_o=$( (echo 1 > "$_mnt/proc/sys/vm/overcommit_memory") 2>&1)
	like "$_v: mirror: a write off the allowlist fails with EACCES" "$_o" 'Permission denied'

	[ -z "$_hook" ] || "$_hook" "$_name" "$_mnt"

	# TUI (t-tui-live.sh, as --dump frames)
	_o=$("$TOP/build/bin/umkit-tui" --root "$_mnt" --dump=lru 2>&1)
	like "$_v: TUI: the LRU view shows the guest's generations" "$_o" 'gens [0-9]+\.\.[0-9]+'
	_o=$("$TOP/build/bin/umkit-tui" --root "$_mnt" --dump=counters 2>&1)
	like "$_v: TUI: the counters view lists the guest's processes" "$_o" '^ +1 init '
	"$UMKIT" stop "$_name" >/dev/null 2>&1
	no_leftovers "$_v: nothing left behind"
}
