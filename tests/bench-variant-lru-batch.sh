#!/bin/sh
# bench-variant-lru-batch.sh - seed 000's figure, base against lru-batch,
# side by side in one run over BENCH_BOOTS boots of each (default 5):
# mean, standard deviation and % change of
#
#   - ns per moved page in inc_min_seq(), the median of the calls that
#     moved a full batch of 4096 folios (tracepoint), per-folio updates
#     (switch N, the 7.2 behaviour) against batched (Y), same kernel and
#     same boot;
#   - ns per moved page of the whole aging write (debugfs lru_gen, median
#     of the writes), N against Y in the same boot, and the base kernel
#     against the lru-batch kernel (Y) in separate boots.
#
# Each boot: 200 MiB of tmpfs in the oldest generation, 8 writes per mode
# of 5 agings each (tests/lru-age.sh), 512 MiB guest, 2 CPUs.
cd "$(dirname "$0")/.." || exit 2
boots=${BENCH_BOOTS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

for v in base lru-batch; do
	uml/kbuild.sh $v >/dev/null || { echo "bench: variant $v does not build"; exit 1; }
done

# run VARIANT: one boot of tests/lru-age.sh, output appended to $tmp/VARIANT
run() {
	if ! ./umkit exec -V "$1" -m 512M -t 300 -- env MB=200 ROUNDS=8 AGINGS=5 \
	    sh -c "$(cat tests/lru-age.sh)" > "$tmp/out" 2>&1; then
		echo "bench: the aging run on $1 failed:"; cat "$tmp/out"; exit 1
	fi
	b=$(($(cat "$tmp/n.$1" 2>/dev/null || echo 0) + 1)); echo $b > "$tmp/n.$1"
	# per boot: median over the writes of ns per moved page, per mode
	awk -v boot=$b '$1 == "age" { pages[$2 " " $3] = $4 * 5 }
		$1 == "wall" { print $2, $4 / pages[$2 " " $3] }' "$tmp/out" | sort -k1,1 -k2,2n |
		awk -v boot=$b '{ v[$1, ++n[$1]] = $2 } END { for (m in n) printf "write %s %d %.3f\n", m, boot, v[m, int((n[m] + 1) / 2)] }' >> "$tmp/$1"
	awk -v boot=$b '$1 == "calls" { printf "call %s %d %s\n", $2, boot, $4 }' "$tmp/out" >> "$tmp/$1"
}

echo "== seed 000, lru-batch: MGLRU aging with a full oldest generation ($boots boots each)"
i=0
while [ $i -lt "$boots" ]; do
	run base
	run lru-batch
	i=$((i + 1))
done

# row LABEL FILE_A KIND MODE_A FILE_B MODE_B: mean, sd of both, % change
row() {
	awk -v label="$1" -v ka="$3" -v ma="$4" -v mb="$6" -v fa="$2" -v fb="$5" '
	FILENAME == fa && $1 == ka && $2 == ma { a[++na] = $4 }
	FILENAME == fb && $1 == ka && $2 == mb { b[++nb] = $4 }
	function mean(x, n,   i, s) { for (i = 1; i <= n; i++) s += x[i]; return s / n }
	function sd(x, n, m,   i, s) { if (n < 2) return 0; for (i = 1; i <= n; i++) s += (x[i] - m) ^ 2; return sqrt(s / (n - 1)) }
	END {
		if (!na || !nb) { printf "%-44s (no data)\n", label; exit }
		A = mean(a, na); B = mean(b, nb)
		printf "%-44s %7.2f %6.2f %7.2f %6.2f %+7.1f%%\n", label, A, sd(a, na, A), B, sd(b, nb, B), (B - A) / A * 100
	}' "$2" $([ "$2" = "$5" ] || echo "$5")
}
printf '%-44s %7s %6s %7s %6s %8s\n' "ns per moved page" "before" "sd" "after" "sd" "change"
row "inc_min_seq, per folio (N) vs batched (Y)" "$tmp/lru-batch" call N "$tmp/lru-batch" Y
row "aging write, per folio (N) vs batched (Y)" "$tmp/lru-batch" write N "$tmp/lru-batch" Y
row "aging write, base kernel vs lru-batch (Y)" "$tmp/base" write - "$tmp/lru-batch" Y
echo "(before/after: mean over $boots boots of each boot's median; lru-batch's N is the"
echo " 7.2 code path in the same kernel and boot, so the switch is the only difference)"
