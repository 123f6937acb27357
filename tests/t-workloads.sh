#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The workloads in a real guest: each runs, its result line and its JSON
# parse with the same keys, bad options exit 2 naming the option, and
# each does what it says (kvbench over memory swaps and makes MGLRU
# evict, readtwice fills the file LRU and refaults under a memcg limit).
. "$(dirname "$0")/lib.sh"

G=twl-$$
cleanup() { "$UMKIT" stop $G >/dev/null 2>&1; }
trap cleanup EXIT
"$UMKIT" start -n $G >/dev/null 2>&1 || { not_ok "a guest for the workloads starts"; done_testing; exit 1; }
run() { "$UMKIT" exec $G -- "$@"; }

# The keys of a result line and of a JSON result, space-separated, in order.
keys_line() { printf '%s\n' "$1" | sed 's/^[a-z]*://' | tr ' ' '\n' | sed -n 's/=.*//p' | tr '\n' ' '; }
keys_json() {
	printf '%s\n' "$1" | sed 's/^{"workload":"[a-z]*"//; s/}$//' | tr ',' '\n' |
	    sed -n 's/^"\([a-z0-9_]*\)":.*/\1/p' | tr '\n' ' '
}
# val LINE KEY: the value of KEY in a result line (tests/lib.sh).
val() { field "$@"; }
# num VALUE: the integer part.
num() { printf '%s\n' "${1%%.*}"; }

# Each workload: the line form parses, the JSON form parses, same keys.
for w in "kvbench --size 8M --time 0.3" "procbench --case fork --iterations 50" \
	"fragment --size 16M --compact" "readtwice --workers 2 --size 16M" \
	"spawn --workers 2 --time 0.3"; do
	name=${w%% *}
	line=$(run $w 2>&1)
	like "$name prints one result line" "$line" "^$name:( [a-z0-9_]+=[^ =]+)+\$"
	json=$(run $w --json 2>&1)
	like "$name --json prints one JSON object" "$json" \
		"^\\{\"workload\":\"$name\"(,\"[a-z0-9_]+\":(-?[0-9]+(\\.[0-9]+)?|\"[a-z0-9_]*\"))+\\}\$"
	is "$name: the same keys in both forms" "$(keys_json "$json")" "$(keys_line "$line")"
	eval "out_$name=\$line"
done

# --help with an example; bad options exit 2 and name the option.
for w in kvbench procbench fragment readtwice spawn; do
	out=$(run $w --help 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q "^Example:" &&
	    printf '%s\n' "$out" | grep -q "^  $w "; then ok "$w --help gives an example"
	else not_ok "$w --help gives an example" "rc=$rc" "$out"; fi
	err=$(run $w --bogus 2>&1)
	rc=$?
	if [ $rc -eq 2 ] && printf '%s\n' "$err" | grep -q "^$w: unknown option '--bogus'"; then
		ok "$w --bogus exits 2 naming it"
	else not_ok "$w --bogus exits 2 naming it" "rc=$rc" "$err"; fi
done
for bad in "kvbench --threads 0" "kvbench --pattern zipf" "kvbench --value-size 1001" \
	"procbench --case clone" "procbench --cpu 9" "fragment --keep 100" \
	"readtwice --size 1X" "spawn --rate x" "spawn --time"; do
	err=$(run $bad 2>&1)
	rc=$?
	set -- $bad
	if [ $rc -eq 2 ] && printf '%s\n' "$err" | grep -q "^$1: $2"; then ok "$bad exits 2 naming $2"
	else not_ok "$bad exits 2 naming $2" "rc=$rc" "$err"; fi
done

# kvbench: the budget, the get:set ratio, the percentiles, a file store.
l=$(run kvbench --size 8M --ops 20000 --threads 2 --ratio 1:3 2>&1)
between "kvbench --ops 20000 --threads 2 runs 20000 operations (batches of 64)" \
	"$(val "$l" ops)" 20000 20128
sets=$(val "$l" sets) ops=$(val "$l" ops)
between "kvbench --ratio 1:3 makes about a quarter sets (per mille)" \
	"$((sets * 1000 / ops))" 220 280
p50=$(val "$l" p50_us) p99=$(val "$l" p99_us) p999=$(val "$l" p999_us)
if awk "BEGIN { exit !(0 < $p50 && $p50 <= $p99 && $p99 <= $p999) }"; then
	ok "kvbench: 0 < p50 <= p99 <= p999 ($p50 $p99 $p999)"
else not_ok "kvbench: 0 < p50 <= p99 <= p999" "$l"; fi
l=$(run sh -c 'kvbench --size 8M --time 0.3 --file /mnt/disk/kv --pattern hotcold; ls /mnt/disk' 2>&1)
like "kvbench --file keeps its items in a file mapping" "$l" 'store=file'
if printf '%s\n' "$l" | grep -qx kv; then not_ok "kvbench --file leaves no file behind" "$l"
else ok "kvbench --file leaves no file behind"; fi
# --populate: the store's pages are faulted in by mmap() itself, so the
# load takes none (each a round trip to the host under UML: 8450 faults,
# 1.03 s, for 33 MB here; 2 faults and 0.18 s with --populate).
a=$(run kvbench --size 16M --ops 1000 2>&1)
b=$(run kvbench --size 16M --ops 1000 --populate 2>&1)
fa=$(val "$a" load_faults) fb=$(val "$b" load_faults)
if [ -n "$fa" ] && [ -n "$fb" ] && [ "$fa" -ge 4096 ] && [ "$fb" -le 64 ]; then
	ok "kvbench --populate: the load takes $fb page faults, $fa without (16 MiB)"
else not_ok "kvbench --populate: the load takes <= 64 page faults, >= 4096 without" "$a" "$b"; fi

# procbench: each case, the threaded mode, pinning; the order of its
# figures; a shell (two forks and two execs) costs more than a fork, by
# the minimum (the spread of single operations follows the host's load).
f=$out_procbench
e=$(run procbench --case exec --iterations 30 --cpu 1 2>&1)
s=$(run procbench --case shell --iterations 30 --threaded 2>&1)
like "procbench --case exec --cpu 1 reports its CPU" "$e" 'case=exec .*cpu=1 '
like "procbench --threaded says so" "$s" 'case=shell .*threaded=1 '
for l in "$f" "$e" "$s"; do
	c=$(val "$l" case)
	if awk "BEGIN { exit !(0 < $(val "$l" min_us) && $(val "$l" min_us) <= $(val "$l" p50_us) &&
	    $(val "$l" p50_us) <= $(val "$l" p99_us)) }"; then ok "procbench $c: 0 < min <= p50 <= p99"
	else not_ok "procbench $c: 0 < min <= p50 <= p99" "$l"; fi
done
if awk "BEGIN { exit !($(val "$f" min_us) < $(val "$s" min_us)) }"; then
	ok "procbench: a shell costs more than a fork ($(val "$f" min_us) < $(val "$s" min_us) us)"
else not_ok "procbench: a shell costs more than a fork" "$f" "$s"; fi

# fragment: a quarter kept, spread over mixed pageblocks; compaction
# runs over them; pins take a fifth.
l=$out_fragment
is "fragment keeps 25% of the pages" "$(val "$l" kept_pages)" "$(($(val "$l" pages) / 4))"
between "fragment: every pageblock holding kept pages is only partly filled by them" \
	"$(val "$l" mixed_pageblocks)" "$(val "$l" pageblocks)" "$(val "$l" pageblocks)"
between "fragment --compact: compaction scanned pages" "$(val "$l" migrate_scanned)" 1 999999999
between "fragment --compact: and isolated pages to migrate" "$(val "$l" isolated)" 1 999999999
# (Whether our pages move depends on where they sit against the scanners.)
between "fragment --compact: the kept pages are found again afterwards (pageblocks)" \
	"$(val "$l" pageblocks_after)" 1 999999
l=$(run fragment --size 16M --pin 20 --compact 2>&1)
is "fragment --pin 20 pins a fifth of the kept pages" \
	"$(val "$l" pinned_pages)" "$(($(val "$l" kept_pages) / 5))"
# --file: the pages are a tmpfs file's, three in four punched out; the
# file keeps the rest after fragment exits (compaction-round's fill).
# (Each error goes to stdout in the guest, so that it comes before the
# status line: the guest's stdout and stderr reach the host apart, in
# either order.)
out=$(run sh -c 'mkdir -p /mnt/twl && mount -t tmpfs twl /mnt/twl || exit 9
	fragment --size 16M --file /mnt/twl/f; echo "rc=$? du=$(du -k /mnt/twl/f | cut -f1) size=$(wc -c < /mnt/twl/f)"
	fragment --size 16M --file /mnt/twl/f --pin 5 2>&1; echo "pin rc=$?"
	fragment --size 16M --file /mnt/twl/nodir/f 2>&1; echo "nodir rc=$?"
	umount /mnt/twl' 2>&1)
l=$(printf '%s\n' "$out" | grep '^fragment: pages=')
is "fragment --file keeps 25% of the file's pages" "$(val "$l" kept_pages)" "$(($(val "$l" pages) / 4))"
is "fragment --file: no pageblock counts (no mapping to read PFNs from)" \
	"$(val "$l" pageblocks_filled) $(val "$l" pageblocks) $(val "$l" mixed_pageblocks)" "-1 -1 -1"
like "fragment --file exits at once, the file 16 MiB long holding 4 MiB (du -k)" "$out" \
	'rc=0 du=4096 size=16777216'
like "fragment --file --pin: refused, exit 2" \
	"$(printf '%s\n' "$out" | grep -A1 '^fragment: --pin' | tr '\n' ' ')" \
	'^fragment: --pin: the pages of --file are mapped by no one to pin \(see fragment --help\) pin rc=2 $'
like "fragment --file in a missing directory: named, exit 1" \
	"$(printf '%s\n' "$out" | grep -A1 '^fragment: --file' | tr '\n' ' ')" \
	'^fragment: --file /mnt/twl/nodir/f: No such file or directory nodir rc=1 $'
out=$(run sh -c 'fragment --size 8M > /tmp/fr & p=$!; sleep 1; cat /tmp/fr
	kill -0 $p && echo holding; kill $p; wait $p; echo rc=$?' 2>&1)
like "fragment holds its memory after the report" "$out" 'holding'
like "and exits 0 on SIGTERM" "$out" 'rc=0'
# kvbench --hold: after its report the store stays mapped (lab 01's
# counters step reads its RssAnon) until SIGTERM.
out=$(run sh -c 'kvbench --size 4M --ops 1 --hold 600 > /tmp/kv & p=$!
	i=0; while ! grep -q ops_per_s /tmp/kv && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	kill -0 $p && echo "holding $(awk "/^RssAnon/ { print \$2 }" /proc/$p/status)"
	kill $p; wait $p; echo rc=$?' 2>&1)
like "kvbench --ops 1 --hold keeps its 4 MiB store mapped after the report (RssAnon, kB)" \
	"$out" 'holding (409[6-9]|4[1-9][0-9][0-9]|[5-9][0-9][0-9][0-9])$'
like "... and exits 0 on SIGTERM" "$out" 'rc=0'

# readtwice: the files end on the file LRU; under a memcg limit the second
# pass refaults (the vmstat counter moves); cgroups and files are removed.
l=$out_readtwice
# (vmstat's LRU sizes lag by the per-cpu deltas and LRU batches: 90%.)
between "readtwice leaves its 2 x 16 MiB on the file LRU (pages)" \
	"$(val "$l" file_lru_pages)" 7373 999999999
out=$(run sh -c 'grep workingset_refault_file /proc/vmstat
	readtwice --workers 2 --size 24M --memcg 16M
	grep workingset_refault_file /proc/vmstat
	ls /sys/fs/cgroup | grep -c readtwice; ls /mnt/disk' 2>&1)
r0=$(printf '%s\n' "$out" | sed -n '1s/.* //p') r1=$(printf '%s\n' "$out" | sed -n '3s/.* //p')
between "readtwice --memcg 16M moves workingset_refault_file" "$((r1 - r0))" 1 999999999
l=$(printf '%s\n' "$out" | grep '^readtwice:')
between "and reports those refaults" "$(val "$l" refault_file_pages)" 1 999999999
is "readtwice removes its cgroups and files" "$(printf '%s\n' "$out" | sed -n '4,$p' | tr '\n' ' ')" "0 lost+found "

# spawn: the rate is kept; processes or threads.
l=$(run spawn --workers 2 --rate 500 --time 1 2>&1)
between "spawn --rate 500 with 2 workers for 1 s touches ~1000 pages" "$(val "$l" touches)" 800 1100
like "spawn is threads by default" "$out_spawn" 'mode=threads'
like "spawn --procs uses processes" "$(run spawn --procs --time 0.2 2>&1)" 'mode=procs'

"$UMKIT" stop $G >/dev/null 2>&1

# kvbench at twice guest memory: swap in use, MGLRU evicts (min_seq of
# the root memcg's generations advances).
# (~5 s on a quiet host; one run under a host load of 7 took over 120 s.)
out=$("$UMKIT" exec -m 64M -t 300 -- sh -c '
	minseq() { awk "/^memcg/ { m = \$2 } m == 1 && NF == 4 { print \$1; exit }" /sys/kernel/debug/lru_gen; }
	echo min_seq=$(minseq); kvbench --size 200% --time 1; echo min_seq=$(minseq)' 2>&1)
l=$(printf '%s\n' "$out" | grep '^kvbench:')
s0=$(printf '%s\n' "$out" | sed -n '1s/min_seq=//p') s1=$(printf '%s\n' "$out" | sed -n '3s/min_seq=//p')
like "kvbench --size 200% runs in a 64 MiB guest" "$l" 'store_mb=1[01][0-9] '
between "its cold items go to swap (swap in use, MiB)" "$(val "$l" swap_used_mb)" 1 999999
between "and come back (pages swapped in)" "$(val "$l" swapin_pages)" 1 999999999
if [ "$s1" -gt "$s0" ] 2>/dev/null; then ok "MGLRU evicts: lru_gen min_seq advances ($s0 -> $s1)"
else not_ok "MGLRU evicts: lru_gen min_seq advances" "$out"; fi

no_leftovers "nothing left after the workload tests"
done_testing
