# SPDX-License-Identifier: GPL-2.0-only
# tests/bench-stats.sh - the side-by-side table of the variant benchmarks
# (source it): one row per figure, the per-boot values of the "before"
# and "after" side each in a file, one number a line.

# header: the table's column titles.
header() {
	printf '%-46s %9s %8s %9s %8s %8s\n' "$1" before sd after sd change
}

# row LABEL FILE_BEFORE FILE_AFTER: mean and sample standard deviation of
# each file, and the change of the means in percent.
row() {
	awk -v label="$1" -v fb="$3" '
	FILENAME == fb { b[++nb] = $1; next } { a[++na] = $1 }
	function mean(x, n,   i, s) { for (i = 1; i <= n; i++) s += x[i]; return s / n }
	function sd(x, n, m,   i, s) { if (n < 2) return 0; for (i = 1; i <= n; i++) s += (x[i] - m) ^ 2; return sqrt(s / (n - 1)) }
	END {
		if (!na || !nb) { printf "%-46s (no data)\n", label; exit }
		A = mean(a, na); B = mean(b, nb)
		printf "%-46s %9.2f %8.2f %9.2f %8.2f ", label, A, sd(a, na, A), B, sd(b, nb, B)
		if (A != 0) printf "%+7.1f%%\n", (B - A) / A * 100; else printf "%8s\n", "-"
	}' "$2" "$3"
}
