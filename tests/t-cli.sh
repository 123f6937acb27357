#!/bin/sh
# The launcher's command line: help for every command, clear errors.
. "$(dirname "$0")/lib.sh"

out=$("$UMKIT" --help)
is "umkit --help exits 0" "$?" 0
for c in run exec start stop list console trace tui record variants cleanup; do
	like "umkit --help lists '$c'" "$out" "^  umkit $c"
	h=$("$UMKIT" $c --help 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && printf '%s\n' "$h" | grep -q '^usage: umkit' &&
	    printf '%s\n' "$h" | grep -q '^Example'; then
		ok "umkit $c --help has usage and an example"
	else not_ok "umkit $c --help has usage and an example" "rc=$rc" "$h"; fi
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
