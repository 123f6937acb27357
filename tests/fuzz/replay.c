/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * replay.c - feed each file of the fuzz regression corpus to the fuzz
 * entry point once, without libFuzzer (built with gcc and ASan).  Prints
 * one TAP line for the whole corpus, and one per file it cannot read; a
 * sanitizer report aborts the run and names the input that caused it.
 *
 *   fuzz-replay [DIR]        default: the checked-in tests/fuzz-corpus
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/common_interface_defs.h>

#include "link/proto.h"
#include "util.h"

/* The input being replayed, for the sanitizer's death callback. */
static const char *current;

/* Name the input that crashed (a sanitizer is about to abort). */
static void
say_current(void)
{
	fprintf(stderr, "fuzz-replay: crashed on corpus file %s\n",
	    current ? current : "?");
	printf("not ok - replay of %s crashed\n", current ? current : "?");
	fflush(stdout);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Read a whole file; NULL on error. */
static uint8_t *
slurp(const char *path, size_t *len)
{
	FILE	*f;
	uint8_t	*buf = NULL;
	size_t	 cap = 0, n;

	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	*len = 0;
	for (;;) {
		if (*len == cap) {
			cap = cap ? 2 * cap : 4096;
			buf = xrealloc(buf, cap);
		}
		n = fread(buf + *len, 1, cap - *len, f);
		if (n == 0)
			break;
		*len += n;
	}
	if (ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* Entries of dir, sorted by name. */
static int
by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Skip dot files. */
static int
not_hidden(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

int
main(int argc, char **argv)
{
	struct dirent	**ents;
	const char	*dir = argc > 1 ? argv[1] : CORPUS;
	char		 path[4096];
	uint8_t		*buf;
	size_t		 len;
	int		 n, i, t = 0, bad = 0;

	if ((n = scandir(dir, &ents, not_hidden, by_name)) < 0) {
		printf("not ok 1 - corpus %s: %s\n1..1\n", dir, strerror(errno));
		return 1;
	}
	if (n == 0) {
		printf("not ok 1 - corpus %s is empty\n1..1\n", dir);
		return 1;
	}
	__sanitizer_set_death_callback(say_current);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		buf = slurp(path, &len);
		if (buf == NULL) {
			printf("not ok %d - %s: %s\n", ++t, ents[i]->d_name,
			    strerror(errno));
			bad++;
		} else {
			current = path;
			LLVMFuzzerTestOneInput(buf, len);
			current = NULL;
			free(buf);
		}
		free(ents[i]);
	}
	free(ents);
	printf("ok %d - replayed the %d inputs of %s under ASan/UBSan\n",
	    ++t, n - bad, dir);
	printf("1..%d\n", t);
	return bad != 0;
}
