#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# beside tests: help and errors, no guest
# The launcher's command line: help for every command, clear errors.
. "$(dirname "$0")/lib.sh"

out=$("$UMKIT" --help)
is "umkit --help exits 0" "$?" 0
# Every command file uml/cmd-NAME.c is a command, listed exactly once in
# the command list (the paragraph after the usage line).
cmds=$(ls uml/cmd-*.c | sed 's|uml/cmd-||; s|\.c$||')
list=$(printf '%s\n' "$out" | awk '/^usage:/ { u = 1; next } u && /^$/ { p++; next } u && p == 1')
is "the commands listed are the uml/cmd-*.c files" \
	"$(printf '%s\n' "$list" | sed 's/^  umkit \([a-z]*\).*/\1/' | sort | tr '\n' ' ')" \
	"$(echo $cmds) "
for c in $cmds; do
	is "umkit --help lists '$c' once" \
		"$(printf '%s\n' "$list" | grep -c "^  umkit $c\( \|\$\)")" 1
	for h in --help -h; do
		t=$("$UMKIT" $c $h 2>&1)
		rc=$?
		if [ $rc -eq 0 ] && printf '%s\n' "$t" | grep -q "^usage: umkit $c" &&
		    printf '%s\n' "$t" | grep -q '^Example'; then
			ok "umkit $c $h exits 0 with usage and an example"
		else not_ok "umkit $c $h exits 0 with usage and an example" "rc=$rc" "$t"; fi
	done
done
# --help after "--" belongs to the guest's command, not to umkit.
out=$("$UMKIT" exec nosuch -- cat --help 2>&1)
like "exec NAME -- CMD --help is not umkit's help" "$out" "no running guest 'nosuch'"
# The operand counts the dispatcher checks.
for a in "list x" "variants x" "cleanup x" "console" "console a b" "stop" "trace"; do
	out=$("$UMKIT" $a 2>&1)
	rc=$?
	if [ $rc -eq 125 ] && printf '%s\n' "$out" | grep -q "^usage: umkit ${a%% *}"; then
		ok "'umkit $a' prints the usage and exits 125"
	else not_ok "'umkit $a' prints the usage and exits 125" "rc=$rc" "$out"; fi
done
for c in console trace; do
	out=$("$UMKIT" $c nosuch 2>&1)
	rc=$?
	is "$c of an unknown guest exits 125" "$rc" 125
	like "and says so" "$out" "^umkit: no running guest 'nosuch'"
done

out=$("$UMKIT" frobnicate 2>&1)
rc=$?
is "an unknown command exits 125" "$rc" 125
like "and is named" "$out" "unknown command 'frobnicate'"

out=$("$UMKIT" exec 2>&1)
is "exec without a command exits 125" "$?" 125
like "and prints its usage" "$out" '^usage: umkit exec'

out=$("$UMKIT" exec -m lots -- true 2>&1)
like "a bad -m value is named" "$out" "^umkit: -m lots: "
out=$("$UMKIT" exec -t 0 -- true 2>&1)
like "a bad -t value is named" "$out" "^umkit: -t 0: "
out=$("$UMKIT" start -n 'bad/name' 2>&1)
like "a bad guest name is named" "$out" "^umkit: -n bad/name: "
out=$("$UMKIT" exec nosuch -- true 2>&1)
like "exec in an unknown guest says so" "$out" "no running guest 'nosuch'"
out=$("$UMKIT" record nosuch /tmp/x 2>&1)
like "record of an unknown guest says so" "$out" "no running guest 'nosuch'"

done_testing
