/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench-mirror - the host half of 'make bench-mirror' (tests/bench-mirror.sh
 * drives it against a live guest's mirror).
 *
 *   bench-mirror lat N FILE...            N whole reads of each file:
 *                                         "FILE BYTES p50_us p99_us"
 *   bench-mirror calls N FILE             N whole reads, each system call
 *                                         timed: "open_us read_us eof_us
 *                                         close_us" (p50s; eof: the read
 *                                         that returns 0)
 *   bench-mirror tput SECONDS READERS FILE
 *                                         READERS threads reading FILE
 *                                         whole, in a loop: "reads/s"
 *   bench-mirror poll HZ SECONDS ROOT LISTFILE
 *                                         read every file matching the
 *                                         patterns in LISTFILE (the
 *                                         record.files format) under
 *                                         ROOT, HZ times a second; prints
 *                                         guest CPU use from ROOT/proc/stat
 *                                         for that time: "busy% files/poll"
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

/* Read a file to EOF once into buf (the first size bytes); size or -1. */
static long
read_once(const char *path, char *keep, size_t keepsize)
{
	char	buf[1 << 16];
	long	total = 0;
	ssize_t	n;
	int	fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof buf)) > 0) {
		if (keep != NULL && (size_t)total < keepsize - 1) {
			size_t c = keepsize - 1 - total < (size_t)n ?
			    keepsize - 1 - total : (size_t)n;
			memcpy(keep + total, buf, c);
			keep[total + c] = '\0';
		}
		total += n;
	}
	close(fd);
	return n < 0 ? -1 : total;
}

/* lat: per-file latency percentiles. */
static int
lat(int argc, char **argv)
{
	long	 n = atol(argv[0]), i, size = 0;
	double	*t = malloc(n * sizeof *t), t0;
	int	 f;

	for (f = 1; f < argc; f++) {
		for (i = 0; i < n; i++) {
			t0 = bench_now_us();
			size = read_once(argv[f], NULL, 0);
			t[i] = bench_now_us() - t0;
			if (size < 0) {
				perror(argv[f]);
				return 1;
			}
		}
		printf("%s %ld %.1f %.1f\n", argv[f], size, bench_pct(t, n, 50),
		    bench_pct(t, n, 99));
	}
	free(t);
	return 0;
}

/* calls: the p50 of each system call of a whole read that fits one read. */
static int
calls(char **argv)
{
	long	 n = atol(argv[0]), i, k;
	double	*t[4], t0, t1;
	char	 buf[1 << 16];
	int	 fd, c;

	if (n <= 0) {
		fprintf(stderr, "bench-mirror: calls: N must be 1 or more\n");
		return 2;
	}
	for (c = 0; c < 4; c++)
		t[c] = malloc(n * sizeof *t[c]);
	for (i = 0; i < n; i++) {
		t0 = bench_now_us();
		if ((fd = open(argv[1], O_RDONLY)) < 0) {
			perror(argv[1]);
			return 1;
		}
		t1 = bench_now_us();
		t[0][i] = t1 - t0;
		k = read(fd, buf, sizeof buf);
		t0 = bench_now_us();
		t[1][i] = t0 - t1;
		if (k <= 0 || read(fd, buf, sizeof buf) != 0) {
			fprintf(stderr, "%s: not one read and then the end\n",
			    argv[1]);
			return 1;
		}
		t1 = bench_now_us();
		t[2][i] = t1 - t0;
		close(fd);
		t[3][i] = bench_now_us() - t1;
	}
	printf("%.1f %.1f %.1f %.1f\n", bench_pct(t[0], n, 50),
	    bench_pct(t[1], n, 50), bench_pct(t[2], n, 50),
	    bench_pct(t[3], n, 50));
	for (c = 0; c < 4; c++)
		free(t[c]);
	return 0;
}

static const char	*tput_file;
static volatile int	 tput_stop;

/* One throughput reader: count whole reads until told to stop. */
static void *
tput_reader(void *arg)
{
	long	*count = arg;

	while (!tput_stop)
		if (read_once(tput_file, NULL, 0) >= 0)
			(*count)++;
	return NULL;
}

/* tput: whole reads per second with R readers. */
static int
tput(char **argv)
{
	int		 secs = atoi(argv[0]), r = atoi(argv[1]), i;
	pthread_t	*th = calloc(r, sizeof *th);
	long		*counts = calloc(r, sizeof *counts), total = 0;
	double		 t0;

	tput_file = argv[2];
	t0 = bench_now_us();
	for (i = 0; i < r; i++)
		pthread_create(&th[i], NULL, tput_reader, &counts[i]);
	sleep(secs);
	tput_stop = 1;
	for (i = 0; i < r; i++) {
		pthread_join(th[i], NULL);
		total += counts[i];
	}
	printf("%.0f\n", total / ((bench_now_us() - t0) / 1e6));
	return 0;
}

/* Busy and total jiffies of the "cpu" line of ROOT/proc/stat. */
static int
cpu_jiffies(const char *root, double *busy, double *total)
{
	char			 path[4096], buf[512];
	unsigned long long	 v[10] = { 0 };
	int			 i;

	snprintf(path, sizeof path, "%s/proc/stat", root);
	if (read_once(path, buf, sizeof buf) < 0 || sscanf(buf,
	    "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
	    &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8],
	    &v[9]) < 8)
		return -1;
	*total = 0;
	for (i = 0; i < 8; i++)		/* guest, guest_nice are in user */
		*total += v[i];
	*busy = *total - v[3] - v[4];	/* minus idle and iowait */
	return 0;
}

/* poll: read the file set at HZ for SECONDS; guest CPU busy %. */
static int
poll_set(char **argv)
{
	int	 hz = atoi(argv[0]), secs = atoi(argv[1]), tick, i;
	char	*root = argv[2], line[1024], pat[4096], *p;
	FILE	*f = fopen(argv[3], "r");
	glob_t	 g;
	double	 b0, t0, b1, t1, start, next;
	long	 files = 0;

	if (f == NULL) {
		perror(argv[3]);
		return 1;
	}
	memset(&g, 0, sizeof g);
	while (fgets(line, sizeof line, f) != NULL) {
		if ((p = strchr(line, '#')) != NULL)
			*p = '\0';
		if (sscanf(line, "%1023s", line) != 1)
			continue;
		snprintf(pat, sizeof pat, "%s/%s", root, line);
		glob(pat, g.gl_pathc ? GLOB_APPEND : 0, NULL, &g);
	}
	fclose(f);
	if (cpu_jiffies(root, &b0, &t0) < 0) {
		fprintf(stderr, "%s/proc/stat: unreadable\n", root);
		return 1;
	}
	if (hz == 0)			/* idle baseline: just wait */
		sleep(secs);
	else {
		start = bench_now_us();
		for (tick = 0; tick < hz * secs; tick++) {
			for (i = 0; i < (int)g.gl_pathc; i++)
				if (read_once(g.gl_pathv[i], NULL, 0) >= 0)
					files++;
			next = start + (tick + 1) * 1e6 / hz;
			if (next > bench_now_us())
				usleep(next - bench_now_us());
		}
	}
	if (cpu_jiffies(root, &b1, &t1) < 0 || t1 <= t0)
		return 1;
	printf("%.2f %ld\n", 100 * (b1 - b0) / (t1 - t0),
	    hz > 0 ? files / (hz * secs) : 0);
	globfree(&g);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "lat") == 0)
		return lat(argc - 2, argv + 2);
	if (argc == 4 && strcmp(argv[1], "calls") == 0)
		return calls(argv + 2);
	if (argc == 5 && strcmp(argv[1], "tput") == 0)
		return tput(argv + 2);
	if (argc == 6 && strcmp(argv[1], "poll") == 0)
		return poll_set(argv + 2);
	fprintf(stderr, "usage: bench-mirror lat N FILE... | calls N FILE | "
	    "tput SECONDS READERS FILE | poll HZ SECONDS ROOT LISTFILE\n");
	return 2;
}
