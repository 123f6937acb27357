/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * umkit-value.c - read named values from a root through libumkit-parse
 * (values.h has the spec syntax, docs/values.md the table): what shell
 * tests use instead of awk.  'umkit get' is the launcher's command for the
 * same values on a running guest (uml/cmd-get.c, through the same layer).
 *
 *   umkit-value ROOT SPEC...        "SPEC VALUE" per spec, one read of each file
 *   umkit-value --check SPEC...     syntax only, nothing read
 *   umkit-value --history ROOT...   feed each root's lru_gen (a recording:
 *                                   its snapshots) to the history model,
 *                                   print "agings N" and "evictions N"
 *   umkit-value --files             the files specs can name (globs)
 *
 * Exit status: 0, 1 when a spec or a root failed (one line each on
 * stderr, "umkit-value: SPEC: what"), 2 for bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lruhist.h"
#include "parse.h"
#include "recfmt.h"
#include "values.h"
#include "util.h"

/* Usage to f; returns 2. */
static int
usage(FILE *f)
{
	fputs("usage: umkit-value ROOT SPEC...\n"
	    "       umkit-value --check SPEC...\n"
	    "       umkit-value --history ROOT...\n"
	    "       umkit-value --files\n"
	    "ROOT is a directory laid out like / (a mirror run/NAME/mnt, a recording's\n"
	    "snapshot DIR/snap/SEQ, a fixture tree); specs are in docs/values.md,\n"
	    "e.g. vmstat.pgfault, lru_gen.max_seq, zoneinfo[Normal].free.\n", f);
	return 2;
}

/* Print each spec's value; 1 if any failed. */
static int
print_values(const char *root, char **specs, int n)
{
	char		 err[VALUE_ERR_LEN], num[64];
	struct values	*v = values_open(root, err, sizeof(err));
	int		 bad = 0;
	double		 x;

	if (!v) {
		fprintf(stderr, "umkit-value: %s\n", err);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		if (values_get(v, specs[i], &x, err, sizeof(err)) < 0) {
			fprintf(stderr, "umkit-value: %s\n", err);
			bad = 1;
			continue;
		}
		values_format(num, sizeof(num), x);
		printf("%s %s\n", specs[i], num);
	}
	values_close(v);
	return bad;
}

/* Check each spec's syntax; 1 if any is wrong. */
static int
check_specs(char **specs, int n)
{
	char	err[VALUE_ERR_LEN];
	int	bad = 0;

	for (int i = 0; i < n; i++)
		if (values_check(specs[i], err, sizeof(err)) < 0) {
			fprintf(stderr, "umkit-value: %s\n", err);
			bad = 1;
		}
	return bad;
}

/* Feed dir's lru_gen at data time t; 0 or -1 after saying why. */
static int
feed(struct lruhist *h, int dirfd, const char *name, double t)
{
	static struct buf	b;
	static struct lrugen	lg;
	int			r = buf_read_at(&b, dirfd,
	    "sys/kernel/debug/lru_gen");

	if (r < 0) {
		fprintf(stderr, "umkit-value: %s/sys/kernel/debug/lru_gen: %s\n", name,
		    strerror(-r));
		return -1;
	}
	if (parse_lrugen(b.p, b.len, &lg) < 0) {
		fprintf(stderr, "umkit-value: %s/sys/kernel/debug/lru_gen: %s\n", name, lg.err);
		return -1;
	}
	lruhist_feed(h, &lg, t);
	return 0;
}

/* A recording's snapshots in index order; 0 or -1. */
static int
feed_recording(struct lruhist *h, int fd, const char *root)
{
	struct rec_snap	*snaps = NULL;
	struct buf	 idx = { 0 };
	int		 n, r = 0;

	if ((r = buf_read_at(&idx, fd, REC_INDEX)) < 0) {
		fprintf(stderr, "umkit-value: %s/%s: %s\n", root, REC_INDEX, strerror(-r));
		return -1;
	}
	n = rec_index_parse(idx.p, idx.len, &snaps);
	buf_free(&idx);
	for (int i = 0; i < n && r == 0; i++) {
		char	rel[64], name[4200];
		int	sfd;

		rec_snap_rel(rel, sizeof(rel), snaps[i].seq, false);
		snprintf(name, sizeof(name), "%s/%s", root, rel);
		if ((sfd = openat(fd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
			fprintf(stderr, "umkit-value: %s: %s\n", name, strerror(errno));
			r = -1;
			break;
		}
		r = feed(h, sfd, name, (double)snaps[i].elapsed_ms);
		close(sfd);
	}
	free(snaps);
	return r;
}

/* --history: every root (or recording) in order through the model. */
static int
history(char **roots, int n)
{
	struct lruhist	h = { 0 };
	struct lh_count	c;
	int		r = 0;

	for (int i = 0; i < n && r == 0; i++) {
		int	fd = open(roots[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0) {
			fprintf(stderr, "umkit-value: %s: %s\n", roots[i], strerror(errno));
			r = -1;
			break;
		}
		if (faccessat(fd, REC_HEADER, F_OK, 0) == 0)
			r = feed_recording(&h, fd, roots[i]);
		else
			r = feed(&h, fd, roots[i], 1000.0 * h.snapshots);
		close(fd);
	}
	if (r < 0)
		return 1;
	c = lruhist_count(&h, LH_ANY_MEMCG, LH_ANY_NODE);
	printf("snapshots %d\nagings %ld\nevictions %ld\n", h.snapshots, c.agings, c.evictions);
	lruhist_free(&h);
	return 0;
}

/* Dispatch on the first argument. */
int
main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--files")) {
		for (int i = 0; values_files[i]; i++)
			puts(values_files[i]);
		return 0;
	}
	if (argc < 3)
		return usage(stderr);
	if (!strcmp(argv[1], "--check"))
		return check_specs(argv + 2, argc - 2);
	if (!strcmp(argv[1], "--history"))
		return history(argv + 2, argc - 2);
	if (argv[1][0] == '-')
		return usage(stderr);
	return print_values(argv[1], argv + 2, argc - 2);
}
