# SPDX-License-Identifier: GPL-2.0-only
# tests/lib-reproduce.sh - the checks of every seed's reproduce table
# (source it after lib.sh).  t-labs runs them on the runs the seed labs'
# reproduce steps kept (umkit reproduce SEED --quick, read back with
# --from): one --quick run of each seed serves the labs and these checks.

# repro_checks KTAP TABLE JSON: each seed's table (TABLE, the stderr of
# umkit reproduce ... --ktap --results) has the thread's own rows and
# figures, with the kit's samples in every row and column; the KTAP and
# JSON outputs carry the same seeds.  Directions are asserted only where
# the margin measured under a host load of 10 (six other jobs on 2
# cores) was several times the spread in a --quick run (two rounds per
# column), and each such check says so; the rest of the rows are shown,
# not judged (docs/reproduce.md).
repro_checks() {
	_rk=$1 _rt=$(cat "$2") _rj=$3
	# The threads' own figures, copied from ../shared/seeds/*.txt.
	figs_000="44017.78 44687.08"
	figs_001="427.4 394.1 413.9 2205.1 2042.2 2072.0 3180.9 2963.7 3010.7"
	figs_002="120692036 118160797 131210329 154093268 1090587971 1080632536 12.03 14.26"
	figs_003="0.922719935 1.539957250 0.563424247 0.971448688 0.172128073 0.175652974"
	figs_004="21621405 24069657"
	for s in 000 001 002 003 004; do
		b=$(printf '%s\n' "$_rt" | awk -v s="== seed $s:" 'index($0, s) == 1 { on = 1; print; next }
			/^== seed / { on = 0 } on')
		like "seed $s: its table, the thread file named" "$b" "^== seed $s: .*\(${s}_[0-9a-f]{16}\.txt\)$"
		eval figs=\$figs_$s
		miss=
		for f in $figs; do
			printf '%s\n' "$b" | grep -q -- " $f\( \|$\)" || miss="$miss $f"
		done
		is "seed $s: every figure of the thread's table is in it" "$miss" ""
		is "seed $s: every row has samples in every column" \
			"$(printf '%s\n' "$b" | grep -c 'no samples')" 0
		is "seed $s: every guest result was read" \
			"$(printf '%s\n' "$b" | grep -c 'were not read')" 0
		like "seed $s: a column has a spread and a change with its interval" "$b" \
			' ± [0-9.]+ \(([2-9]|[1-9][0-9]+)\) +[-+][0-9.]+% \[[-+][0-9.]+, [-+][0-9.]+\]'
		like "seed $s: a --quick run's" "$b" "^        [^ ]+, [0-9]+ boots? \(--quick\) in [0-9]+ s on "
		like "seed $s: KTAP has its subtests and its result line" "$(cat "$_rk")" \
			"^(not )?ok [1-5] seed-$s$"
		like "seed $s: the JSON has it, with samples" \
			"$(tr -d ' \n' < "$_rj")" "\"seed\":\"$s\""
	done
	is "KTAP: version line, plan for five seeds" "$(sed -n '1,2p' "$_rk" | tr '\n' ' ')" \
		"KTAP version 1 1..5 "

	# Margins measured in --quick runs under a host load of 9-10 (each
	# check names them); the thread's own rows are not asserted: their
	# spread in two rounds is as large as the effect (docs/reproduce.md).
	# 000: sort_folio()'s protected path into an active generation, per
	# folio against batched: 5-11x, and 7.2x in the run this was written
	# from.  Each column's better round: a round is the fastest of 3-4
	# calls of about 50 us (rootfs/repro-000.sh), and a fresh clone's
	# make test read 83.7 per folio against 154.3 batched as the mean of
	# two rounds, where runs before and after read 14-15 batched.
	_repro_gt_min 000 protect_active_ns_per_page perfolio batched 2 \
		"batching the protected path's size updates (measured 5-11x)"
	# 001: per-cpu counters' cost per mm against lazy ones (16-20x
	# measured on the first VM; on a faster one, where the per-cpu
	# set-up costs 1.4-1.8 us, nine fresh-clone runs read 3.7-5.5x at 2
	# guest CPUs and 4.1-7.8x at 16, and a bar of 4 failed once), and
	# Jan Kara's point 3: lazy's locked add against revert's plain one
	# (about 6x measured).
	_repro_gt 001 permm_ns_percpu permm_ns_lazy 2 "per-cpu set-up and check_mm's sums per mm (measured 3.7-20x)"
	_repro_gt 001 permm_ns_c16_percpu permm_ns_c16_lazy 2 "the same at 16 guest CPUs (measured 4.1-20x)"
	_repro_gt 001 update_ns_lazy update_ns_revert 2 "a single-threaded update: atomic add vs the task's cache (measured 6x)"
	# 003: only the separate scheme calls test_young (16384 calls an
	# aging vs none: a count, not a timing).
	_repro_gt 003 idle_test_calls_separate idle_test_calls_combined 1000 "test_young before the look-up (16393 vs 0)"
	# 004: MGLRU never calls workingset_activation() (mm/swap.c:500-503),
	# classic LRU does on every activation (a count-derived figure: 119-132
	# ns against exactly 0).
	_repro_gt 004 activate_ns_fixed_classic activate_ns_fixed_mglru 1 "activation's hook runs under classic LRU only"
}

# _repro_res SEED KEY: the mean of KEY in SEED's results line.
_repro_res() {
	printf '%s\n' "$_rt" | awk -v s="$1" -v k="$2" '/^== seed / { cur = $3; sub(":", "", cur) }
	/^reproduce:/ && cur == s { for (i = 2; i <= NF; i++) { split($i, kv, "=");
	if (kv[1] == k) print kv[2] } }'
}
# _repro_min SEED KEY COLUMN: the smallest sample of KEY's COLUMN in the
# JSON of SEED's run.
_repro_min() {
	python3 -c 'import json, sys
for s in json.load(open(sys.argv[1])):
    if s["seed"] != sys.argv[2]:
        continue
    for r in s["rows"]:
        for c in r["columns"] if r["key"] == sys.argv[3] else []:
            if c["column"] == sys.argv[4] and c["samples"]:
                print(min(c["samples"]))' "$_rj" "$@" 2>/dev/null
}
# _repro_gt_min SEED KEY A B FACTOR WHY: KEY's smallest sample in column A
# > FACTOR * that in column B, in SEED's run.
_repro_gt_min() {
	a=$(_repro_min "$1" "$2" "$3") b=$(_repro_min "$1" "$2" "$4")
	if [ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" -v f="$5" 'BEGIN { exit !(a > f * b) }'; then
		ok "seed $1: $2, the better round: $3 > $5 x $4 ($a, $b): $6"
	else not_ok "seed $1: $2, the better round: $3 > $5 x $4: $6" "got: ${a:-none} and ${b:-none}"; fi
}
# _repro_gt SEED A B FACTOR WHY: A > FACTOR * B in SEED's results.
_repro_gt() {
	a=$(_repro_res "$1" "$2") b=$(_repro_res "$1" "$3")
	if [ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" -v f="$4" 'BEGIN { exit !(a > f * b) }'; then
		ok "seed $1: $2 > $4 x $3 ($a, $b): $5"
	else not_ok "seed $1: $2 > $4 x $3: $5" "got: $a and $b"; fi
}
