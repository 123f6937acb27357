/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wl.h - shared parts of the kit's guest workloads (kvbench, procbench,
 * fragment, readtwice, spawn): one static multi-call binary, umkit-wl,
 * linked under each workload's name in /usr/bin.
 *
 * Every workload
 *   - takes --name VALUE or --name=VALUE options from a table (struct
 *     wl_opt); a bad value prints "NAME: --opt: why" and exits 2;
 *   - prints --help with an example, and exits 0;
 *   - prints its result as one line "NAME: key=value ..." (units in the
 *     key names: ops_per_s, p99_us, mb_per_s) or, with --json, as one JSON
 *     object with the same keys plus "workload"; keys come in a fixed
 *     order, so the shape of the output never changes between runs;
 *   - exits 1 (with a message naming what failed) when the run fails.
 */
#ifndef UMKIT_WL_H
#define UMKIT_WL_H

#include <stddef.h>
#include <stdint.h>

enum wl_type {
	WL_INT,		/* long long in [min, max] */
	WL_SIZE,	/* bytes, long long: 4096, 64K, 512M, 2G; with
			   WL_PCT also NN% of MemTotal */
	WL_SECS,	/* seconds, double: 5, 0.5 */
	WL_CHOICE,	/* int: index into choices */
	WL_FLAG,	/* int: set to 1, takes no value */
	WL_PAIR,	/* two ints "A:B" (int[2]), each in [min, max] */
	WL_CPUS,	/* int: a CPU number that is online, or -1 */
	WL_STR,		/* const char *: any non-empty string */
};

#define WL_PCT	0x1	/* WL_SIZE: a percentage of guest memory is allowed */

struct wl_opt {
	const char		*name;		/* without the leading "--" */
	enum wl_type		 type;
	void			*val;		/* where the value goes */
	const char		*arg;		/* placeholder in --help: N, SIZE */
	const char		*help;		/* one line, with the default */
	long long		 min, max;	/* WL_INT, WL_SIZE, WL_PAIR */
	const char *const	*choices;	/* WL_CHOICE, NULL-terminated */
	int			 flags;		/* WL_PCT */
};

struct wl_prog {
	const char		*name;
	const char		*summary;	/* what it reproduces, one paragraph */
	const char		*example;	/* one or more example lines */
	const struct wl_opt	*opts;		/* ends with a zeroed entry */
	int			(*run)(void);	/* after parsing; exit status */
};

extern const struct wl_prog wl_kvbench, wl_procbench, wl_fragment,
    wl_readtwice, wl_spawn;

/* The running workload (for messages) and --json. */
extern const struct wl_prog	*wl_self;
extern int			 wl_json;

/* Parse argv against p->opts; handles --help and --json; exits 2 on error. */
void	 wl_parse(const struct wl_prog *p, int argc, char **argv);
/* "NAME: message (see NAME --help)" on stderr, exit 2: a bad option value. */
void	 wl_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* "NAME: message: strerror(errno)" on stderr, exit 1: the run failed. */
void	 wl_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* "NAME: message" on stderr, exit 1. */
void	 wl_failx(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* malloc that never returns NULL (exits 1). */
void	*wl_alloc(size_t);

/* The result: begin, add keys in order, end prints the line or JSON. */
void	 wl_out_begin(void);
void	 wl_out_int(const char *key, long long v);
void	 wl_out_num(const char *key, double v, int decimals);
void	 wl_out_str(const char *key, const char *v);	/* no spaces in v */
void	 wl_out_end(void);

/* CLOCK_MONOTONIC in nanoseconds (a system call under UML: ~µs). */
uint64_t wl_now_ns(void);
/* The CPU's time-stamp counter: no system call, for per-operation timing. */
static inline uint64_t
wl_tsc(void)
{
	uint32_t	lo, hi;

	__asm__ __volatile__("rdtsc" : "=a" (lo), "=d" (hi));
	return ((uint64_t)hi << 32) | lo;
}
/* TSC ticks per microsecond, measured against CLOCK_MONOTONIC once (50 ms). */
double	 wl_tsc_per_us(void);

/* Latency histogram: log-linear buckets, 64 per power of two (~1.6%). */
#define WL_HIST_SUB	64
#define WL_HIST_N	(64 * WL_HIST_SUB)
struct wl_hist {
	uint64_t	n;
	uint64_t	count[WL_HIST_N];
};
void	 wl_hist_add(struct wl_hist *, uint64_t v);
void	 wl_hist_merge(struct wl_hist *to, const struct wl_hist *from);
/* The value at percentile p (0-100): the middle of its bucket. */
double	 wl_hist_pct(const struct wl_hist *, double p);

/* Percentile p (0-100) of n sorted doubles (nearest rank). */
double	 wl_pct_sorted(const double *v, size_t n, double p);
/* Sort n doubles ascending. */
void	 wl_sort(double *v, size_t n);

/* Pin the calling thread to cpu; exits 1 on failure. */
void	 wl_pin(int cpu);
/* Online CPUs (sysconf). */
int	 wl_ncpus(void);
/* MemTotal in bytes. */
long long wl_mem_total(void);
/* A /proc/meminfo field in bytes (-1 if absent). */
long long wl_meminfo(const char *key);
/* A /proc/vmstat counter (-1 if absent). */
long long wl_vmstat(const char *key);
/* Write a string to a file (sysfs, cgroupfs, procfs); -1 with errno. */
int	 wl_put(const char *path, const char *s);
/*
 * Keep what the program holds (its memory) for secs seconds (< 0: until
 * a signal), then return; SIGINT, SIGTERM or SIGHUP end it early.
 */
void	 wl_hold(double secs);

/* splitmix64: fast, seedable, good enough for key choice. */
static inline uint64_t
wl_rand(uint64_t *s)
{
	uint64_t	z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#endif
