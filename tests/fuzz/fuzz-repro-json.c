/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-repro-json.c - libFuzzer entry point for a stored reproduce run as
 * umkit reproduce --from reads it (repro_json_parse), then its statistics
 * and the JSON written again.  Never crash, leak or read past the input;
 * either -1 with a printable message, or at most 8 seeds whose samples
 * are finite and bounded, whose context lines and host are printable, and
 * that read back the same from what they write.
 */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-util.h"

#include "repro/repro.h"

#define MAXD	8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort unless seed d holds what repro_json_parse promises. */
static void
check(const struct repro_data *d)
{
	int	r, c, i;

	if (d->s == NULL || d->host == NULL || has_ctl(d->host))
		abort();
	for (r = 0; r < REPRO_MAX_ROWS; r++)
		for (c = 0; c < REPRO_MAX_COLS; c++) {
			if (d->n[r][c] < 0 || d->n[r][c] > REPRO_MAX_SAMPLES)
				abort();
			for (i = 0; i < d->n[r][c]; i++)
				if (!isfinite(d->v[r][c][i]))
					abort();
		}
	for (i = 0; i < d->ninfo; i++)
		if (has_ctl(d->info[i]) || strlen(d->info[i]) > REPRO_INFO_LEN)
			abort();
}

/* The input as a stored run: read, checked, written and read again. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct repro_cmp cmp[REPRO_MAX_ROWS][REPRO_MAX_COLS];
	struct repro_data d[MAXD], e[MAXD];
	char	 err[512], *text;
	json_t	*j;
	int	 n, m, i, r, c;

	n = repro_json_parse((const char *)data, size, d, MAXD, err, sizeof err);
	if (n < 0) {
		if (err[0] == '\0' || has_ctl(err))
			abort();
		return 0;
	}
	if (n == 0 || n > MAXD)
		abort();
	for (i = 0; i < n; i++) {
		check(&d[i]);
		repro_stats(&d[i], cmp);
	}
	j = repro_json(d, n);
	text = json_dumps(j, 0);
	json_decref(j);
	if (text == NULL)
		abort();
	m = repro_json_parse(text, strlen(text), e, MAXD, err, sizeof err);
	if (m != n)
		abort();
	for (i = 0; i < n; i++) {
		if (e[i].s != d[i].s || e[i].ninfo != d[i].ninfo || e[i].boots != d[i].boots)
			abort();
		for (r = 0; r < REPRO_MAX_ROWS; r++)
			for (c = 0; c < REPRO_MAX_COLS; c++)
				if (e[i].n[r][c] != d[i].n[r][c] || (d[i].n[r][c] > 0 &&
				    memcmp(e[i].v[r][c], d[i].v[r][c],
				    sizeof (double) * (size_t)d[i].n[r][c]) != 0))
					abort();
		repro_data_free(&e[i]);
		repro_data_free(&d[i]);
	}
	free(text);
	return 0;
}
