/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-repro.c - libFuzzer entry point for a guest's "repro:" result
 * lines as umkit reproduce reads them (repro_parse_out), into each seed's
 * table, then its statistics.  Never crash or read past the input; every
 * sample kept is finite, no row and column holds more than
 * REPRO_MAX_SAMPLES, and every kept context line is printable.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-util.h"

#include "repro/repro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as every seed's guest output, group 0 and the last group. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct repro_cmp cmp[REPRO_MAX_ROWS][REPRO_MAX_COLS];
	struct repro_data d;
	const struct repro_seed *s;
	char	*buf;
	int	 r, c, i, g;

	for (s = repro_seeds; s->id != NULL; s++) {
		repro_data_init(&d, s);
		for (g = 0; g < 2; g++) {
			if ((buf = malloc(size + 1)) == NULL)
				return 0;
			memcpy(buf, data, size);
			buf[size] = '\0';
			repro_parse_out(&d, g == 0 ? 0 : REPRO_MAX_GROUPS - 1, buf);
			free(buf);
		}
		for (r = 0; r < REPRO_MAX_ROWS; r++)
			for (c = 0; c < REPRO_MAX_COLS; c++) {
				if (d.n[r][c] > REPRO_MAX_SAMPLES)
					abort();
				for (i = 0; i < d.n[r][c]; i++)
					if (!isfinite(d.v[r][c][i]))
						abort();
			}
		for (i = 0; i < d.ninfo; i++)
			if (has_ctl(d.info[i]) || strlen(d.info[i]) > REPRO_INFO_LEN)
				abort();
		repro_stats(&d, cmp);
		repro_data_free(&d);
	}
	return 0;
}
