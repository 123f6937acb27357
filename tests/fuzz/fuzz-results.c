/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-results.c - libFuzzer entry point for the result files the kit
 * reads back: 'umkit lab report' (lab_report_texts, its CSV written into
 * a temporary directory) and 'umkit compare A.json B.json'
 * (bench_json_parse, then the table).  The input is up to four files
 * split at NUL bytes, each read by both.  Never crash, leak or allocate
 * without bound; the CSV directory only ever holds plain LAB.csv files,
 * and every metric a compare file gives has a name bench_name_ok takes.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab/lab.h"
#include "lab/lab-out.h"
#include "patch/bench.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char	 csv_dir[64];
static FILE	*null_out;

/* Remove the CSV directory's files; abort on anything but a plain LAB.csv. */
static void
empty_csv_dir(void)
{
	DIR		*d;
	struct dirent	*e;
	char		 lab[256];
	size_t		 n;

	if ((d = opendir(csv_dir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		n = strlen(e->d_name);
		if (n < 5 || n - 4 >= sizeof(lab) ||
		    strcmp(e->d_name + n - 4, ".csv") != 0)
			abort();
		memcpy(lab, e->d_name, n - 4);
		lab[n - 4] = '\0';
		if (!lab_name_ok(lab) || unlinkat(dirfd(d), e->d_name, 0) < 0)
			abort();
	}
	closedir(d);
}

/* Remove the CSV directory (at exit). */
static void
remove_csv_dir(void)
{
	empty_csv_dir();
	rmdir(csv_dir);
}

/* A temporary CSV directory and a sink for the table. */
static void
setup(void)
{
	const char	*tmp = getenv("TMPDIR");

	if (tmp == NULL || strlen(tmp) >= 30)
		tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(csv_dir, sizeof(csv_dir), "%s/umkit-fuzz-results.XXXXXX", tmp);
	if (mkdtemp(csv_dir) == NULL)
		fatal("mkdtemp %s", csv_dir);
	atexit(remove_csv_dir);
	if ((null_out = fopen("/dev/null", "w")) == NULL)
		fatal("/dev/null");
}

/* Read the files of one input as both kinds of result. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *const	 names[4] = { "a.json", "b.json", "c.json", "d.json" };
	char			*buf = xmalloc(size + 1), *texts[4], err[512];
	size_t			 lens[4], off = 0;
	struct bres		 r;
	int			 n = 0, i, k;

	if (csv_dir[0] == '\0')
		setup();
	memcpy(buf, data, size);
	buf[size] = '\0';
	while (n < 4 && off <= size) {
		texts[n] = buf + off;
		lens[n] = strlen(buf + off);
		off += lens[n++] + 1;
	}
	lab_report_texts(names, texts, lens, n, csv_dir, null_out);
	empty_csv_dir();

	memset(&r, 0, sizeof(r));
	for (i = 0; i < n; i++)
		bench_json_parse(&r, i % 2, texts[i], lens[i], names[i], err,
		    sizeof(err));
	for (k = 0; k < r.nm; k++)
		if (!bench_name_ok(r.m[k].name))
			abort();
	for (i = 0; i < 2; i++)
		if (r.label[i] != NULL && !gnuplot_str_ok(r.label[i]))
			abort();
	if (r.label[0] != NULL && r.label[1] != NULL)
		bench_table(&r, null_out);
	bench_free(&r);
	free(buf);
	return 0;
}
