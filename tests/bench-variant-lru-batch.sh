#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench-variant-lru-batch.sh - seed 000's figure, base against lru-batch,
# side by side in one run over BENCH_BOOTS boots of each (default 5):
# mean, standard deviation and % change of
#
#   - ns per moved page in inc_min_seq(), the median and the 10th
#     percentile of the calls that
#     moved a full batch of 4096 folios (tracepoint), per-folio updates
#     (switch N, the 7.2 behaviour) against batched (Y), same kernel and
#     same boot;
#   - ns per moved page of the whole aging write (debugfs lru_gen, median
#     of the writes), N against Y in the same boot, and the base kernel
#     against the lru-batch kernel (Y) in separate boots;
#   - kvbench ops/s (the thread's memcached + memtier) with the root memcg
#     aged every 50 ms (tests/lru-kv.sh), N against Y and base against
#     lru-batch, beside the ns per moved page inc_min_seq() spent in them;
#   - the protected path of eviction (sort_folio(), batched behind the same
#     switch by lru-batch's third patch), ns per page of the scan_folios()
#     calls that only protected, into an inactive generation (4
#     generations) and into an active one (3), from one boot of
#     repro-000 --rounds 1 (seed 000's guest experiment) per lru-batch boot.
#
# Each boot: 200 MiB of tmpfs in the oldest generation, 8 writes per mode
# of 5 agings each (rootfs/lru-age.sh, lru-age in the guest), 512 MiB guest, 2 CPUs; then, in
# another boot of 256 MiB, 2 kvbench runs of 8 s per mode.
cd "$(dirname "$0")/.." || exit 2
boots=${BENCH_BOOTS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

for v in base lru-batch; do
	uml/kernel/kbuild.sh $v >/dev/null || { echo "bench: variant $v does not build"; exit 1; }
done

. tests/bench-stats.sh

# run VARIANT: one boot of lru-age (rootfs/lru-age.sh); appends each boot's figures
# to $tmp/VARIANT.KIND.MODE (KIND call: median ns per moved page of the
# full inc_min_seq() calls; write: median ns per moved page of the writes)
run() {
	if ! ./umkit exec -V "$1" -m 512M -t 300 -- env MB=200 ROUNDS=8 AGINGS=5 \
	    lru-age > "$tmp/out" 2>&1; then
		echo "bench: the aging run on $1 failed:"; cat "$tmp/out"; exit 1
	fi
	awk '$1 == "age" { pages[$2 " " $3] = $4 * 5 }
		$1 == "wall" { print $2, $4 / pages[$2 " " $3] }' "$tmp/out" | sort -k1,1 -k2,2n |
		awk -v f="$tmp/$1.write." '{ v[$1, ++n[$1]] = $2 }
		END { for (m in n) print v[m, int((n[m] + 1) / 2)] >> (f m) }'
	awk -v f="$tmp/$1.call" '$1 == "calls" { print $4 >> (f "." $2); print $5 >> (f "10." $2) }' "$tmp/out"
	if ! ./umkit exec -V "$1" -t 300 -- sh -c "$(cat tests/lru-kv.sh)" > "$tmp/out" 2>&1; then
		echo "bench: the kvbench run on $1 failed:"; cat "$tmp/out"; exit 1
	fi
	# per boot: mean ops/s per mode, and ns per moved page over its runs
	awk -v f="$tmp/$1." '$1 == "kv" { o[$2] += $4; n[$2]++; p[$2] += $5; t[$2] += $6 }
		END { for (m in n) { print o[m] / n[m] >> (f "kvops." m)
			if (p[m]) print t[m] / p[m] >> (f "kvns." m) } }' "$tmp/out"
	[ "$1" = lru-batch ] || return 0
	if ! ./umkit exec -V "$1" -c 2 -m 512M -t 300 -- repro-000 --rounds 1 > "$tmp/out" 2>&1; then
		echo "bench: repro-000 on $1 failed:"; cat "$tmp/out"; exit 1
	fi
	# "repro: COLUMN KEY=VALUE ...": per column, protect and protect_active
	awk -v f="$tmp/$1." '$1 == "repro:" { m = $2 == "batched" ? "Y" : "N"
		for (i = 3; i <= NF; i++) { split($i, kv, "=")
			if (kv[1] == "protect_ns_per_page") print kv[2] >> (f "prot." m)
			if (kv[1] == "protect_active_ns_per_page") print kv[2] >> (f "prota." m) } }' "$tmp/out"
}

echo "== seed 000, lru-batch: MGLRU aging with a full oldest generation ($boots boots each)"
i=0
while [ $i -lt "$boots" ]; do
	run base
	run lru-batch
	i=$((i + 1))
done

header "ns per moved page (mean of per-boot medians)"
row "inc_min_seq: per folio (N) -> batched (Y)" "$tmp/lru-batch.call.N" "$tmp/lru-batch.call.Y"
row "... 10th percentile of the calls" "$tmp/lru-batch.call10.N" "$tmp/lru-batch.call10.Y"
row "aging write: per folio (N) -> batched (Y)" "$tmp/lru-batch.write.N" "$tmp/lru-batch.write.Y"
row "aging write: base kernel -> lru-batch (Y)" "$tmp/base.write.-" "$tmp/lru-batch.write.Y"
row "protected, into inactive: N -> Y" "$tmp/lru-batch.prot.N" "$tmp/lru-batch.prot.Y"
row "protected, into active: N -> Y" "$tmp/lru-batch.prota.N" "$tmp/lru-batch.prota.Y"
header "kvbench, root memcg aged every 50 ms"
row "ops/s: per folio (N) -> batched (Y)" "$tmp/lru-batch.kvops.N" "$tmp/lru-batch.kvops.Y"
row "ops/s: base kernel -> lru-batch (Y)" "$tmp/base.kvops.-" "$tmp/lru-batch.kvops.Y"
row "inc_min_seq ns per moved page: N -> Y" "$tmp/lru-batch.kvns.N" "$tmp/lru-batch.kvns.Y"
echo "(N and Y: lru-batch's switch lru_gen_batch_aging in the same kernel and boot,"
echo " N being the 7.2 code path; base and lru-batch: separate boots, alternating;"
echo " aging is ~1% of a kvbench run here, so its ops/s cannot show the saving)"
