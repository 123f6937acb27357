# SPDX-License-Identifier: GPL-2.0-only
# tests/variant-smoke.sh - the quick subset of the exec, mirror and TUI
# checks, run against one kernel variant (source it after lib.sh).
#
#   variant_build VARIANT       build it (uml/kernel/kbuild.sh); fails the test
#                               script when it does not build
#   variant_smoke VARIANT NAME  one-shot guests, then the long-lived guest
#                               NAME with its mirror, read and written, and
#                               the TUI's LRU view dumped from it; NAME is
#                               left running for the variant's own checks
#                               (the caller stops it)

# variant_build VARIANT: the variant's kernel builds (cached: ~1 s).
variant_build() {
	if _o=$("$TOP/uml/kernel/kbuild.sh" "$1" 2>&1); then
		ok "variant $1 builds"
	else
		not_ok "variant $1 builds" "$(printf '%s\n' "$_o" | tail -n 15)"
		done_testing
		exit 1
	fi
	like "'umkit variants' lists $1 as built" "$("$UMKIT" variants 2>&1)" "^$1 +built +Seed "
}

# variant_smoke VARIANT NAME: see the header.
variant_smoke() {
	_v=$1 _name=$2 _mnt=$RUN/$2/mnt
	_o=$("$UMKIT" exec -V "$_v" -c 4 -- sh -c \
		'cat /sys/devices/system/cpu/online; head -n 1 /sys/kernel/debug/lru_gen' 2>&1)
	like "$_v: exec -c 4 boots with four CPUs and lru_gen" "$_o" '^0-3$'
	like "$_v: debugfs lru_gen is readable" "$_o" '^memcg +[0-9]+'
	"$UMKIT" exec -V "$_v" -- sh -c 'exit 7' >/dev/null 2>&1
	is "$_v: exit status passes through (exit 7)" "$?" 7
	"$UMKIT" exec -V "$_v" -- nosuchcommand >/dev/null 2>&1
	is "$_v: a missing command gives 127" "$?" 127

	if ! _o=$("$UMKIT" start -V "$_v" -n "$_name" 2>&1); then
		not_ok "$_v: start -n $_name mounts the mirror" "$_o"
		return 1
	fi
	like "$_v: start -n $_name mounts the mirror" "$_o" "\\($_v, .*mirror at run/$_name/mnt"
	is "$_v: vmstat keys through the mirror equal the guest's" \
		"$(awk '{print $1}' "$_mnt/proc/vmstat")" \
		"$("$UMKIT" exec "$_name" -- cat /proc/vmstat | awk '{print $1}')"
	# memcg, node, min_seq and max_seq of the first lruvec
	_lru='/^memcg/ { if (m != "") exit; m = $2 } /^ *node/ { n = $2; next }
		m != "" && NF == 4 && $1 ~ /^[0-9]+$/ { if (lo == "") lo = $1; hi = $1 }
		END { print m, n, lo, hi }'
	set -- $(awk "$_lru" "$_mnt/sys/kernel/debug/lru_gen")
	if echo "+ $1 $2 $4" > "$_mnt/sys/kernel/debug/lru_gen"; then
		ok "$_v: aging through the mirror is accepted"
	else
		not_ok "$_v: aging through the mirror is accepted"
	fi
	_max=$4
	set -- $(awk "$_lru" "$_mnt/sys/kernel/debug/lru_gen")
	is "$_v: max_seq rose by one" "$4" "$((_max + 1))"
	_err=$( (echo 1 > "$_mnt/proc/sys/vm/overcommit_memory") 2>&1)
	like "$_v: a write off the allowlist fails with EACCES" "$_err" 'Permission denied'
	_o=$("$TOP/build/bin/umkit-tui" --root "$_mnt" --view lru --dump 2>&1)
	like "$_v: the TUI's LRU view shows gens $3..$4 of memcg $1" "$_o" \
		"memcg $1 .* gens $3\\.\\.$4 "
}
