#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kernels: compaction-noacct lru-batch rss-lazy uml-walk workingset-cost
# beside builds: the keys each kernel lists, no timing
# beside tests: the keys each kernel lists
# labs/kernel-keys, against which 'umkit lab --check' validates a lab's
# vmstat.KEY and meminfo.KEY, is what the kit's kernels have: every variant
# booted once gives exactly the keys of the file (regenerate it with
# tests/fixtures/capture-keys.sh when a variant adds or drops one).
. "$(dirname "$0")/lib.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

if sh "$TOP/tests/fixtures/capture-keys.sh" > "$work/keys" 2> "$work/err"; then
	ok "every variant boots and lists its vmstat and meminfo keys"
else
	not_ok "every variant boots and lists its vmstat and meminfo keys" "$(cat "$work/err")"
fi
like "the kernels have the vmstat keys the labs read" "$(cat "$work/keys")" "^vmstat workingset_refault_anon$"
like "and the variants' own keys (rss-lazy)" "$(cat "$work/keys")" "^vmstat rss_percpu_switch$"
if d=$(diff -u "$TOP/labs/kernel-keys" "$work/keys"); then
	ok "labs/kernel-keys is the kernels' keys"
else
	not_ok "labs/kernel-keys is the kernels' keys (run tests/fixtures/capture-keys.sh > labs/kernel-keys)" "$d"
fi
no_leftovers "nothing left behind"
done_testing
