/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * twothreads - lab 04's exercise: make this process's rss counters switch
 * to per-cpu mode from a second thread, and check they stay exact.
 *
 * It reads RssCounterMode and RssAnon from /proc/self/status, has a second
 * thread touch PAGES new anonymous pages, reads them again and prints
 *
 *   twothreads: mode_before=M mode_after=M anon_kB=N threads=T
 *
 * M is 0 for atomic, 1 for percpu, -1 on a kernel without the line;
 * anon_kB is RssAnon's change (exactly PAGES * 4 when counters are exact);
 * threads the Threads line while the second thread runs.
 *
 * Build: gcc -static -O2 -pthread -o twothreads twothreads.c
 * (umkit lab 4 --exercise DIR builds and grades it).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGES	2048

static long	threads_seen;

/* A field of /proc/self/status: a number, or (mode) 0 atomic, 1 percpu. */
static long
status(const char *key)
{
	char	 line[256];
	size_t	 n = strlen(key);
	long	 v = -1;
	FILE	*f = fopen("/proc/self/status", "r");

	if (f == NULL) {
		perror("/proc/self/status");
		exit(1);
	}
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, key, n) != 0 || line[n] != ':')
			continue;
		if (strcmp(key, "RssCounterMode") == 0)
			v = strstr(line, "percpu") != NULL;
		else
			v = strtol(line + n + 1, NULL, 10);
	}
	fclose(f);
	return v;
}

/* The second thread: map PAGES pages and write to each. */
static void *
toucher(void *arg)
{
	long	 psz = sysconf(_SC_PAGESIZE);
	char	*p = mmap(NULL, PAGES * psz, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long	 i;

	(void)arg;
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	for (i = 0; i < PAGES; i++)
		p[i * psz] = 1;
	threads_seen = status("Threads");
	return NULL;
}

int
main(void)
{
	long	before = status("RssCounterMode"), anon0 = status("RssAnon");
	long	after, anon1;
	/* TODO-BEGIN: start a second thread that runs toucher() (pthread_create), then wait for it (pthread_join); exit 1 with a message if either fails */
	pthread_t	th;

	if (pthread_create(&th, NULL, toucher, NULL) != 0 ||
	    pthread_join(th, NULL) != 0) {
		fprintf(stderr, "twothreads: cannot run the second thread\n");
		return 1;
	}
	/* TODO-END */
	after = status("RssCounterMode");
	anon1 = status("RssAnon");
	printf("twothreads: mode_before=%ld mode_after=%ld anon_kB=%ld threads=%ld\n",
	    before, after, anon1 - anon0, threads_seen);
	return 0;
}
