/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wl.c - the workloads' multi-call entry point and shared helpers: option
 * parsing, result printing, timing, histograms, pinning, /proc readers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wl.h"

static const struct wl_prog *const progs[] = {
	&wl_kvbench, &wl_procbench, &wl_fragment, &wl_readtwice, &wl_spawn,
	NULL
};

const struct wl_prog	*wl_self;
int			 wl_json;

/* Print a message prefixed with the workload's name, then exit with rc. */
static void __attribute__((noreturn, format(printf, 3, 0)))
die(int rc, int err, const char *fmt, va_list ap)
{
	char	msg[512];

	vsnprintf(msg, sizeof msg, fmt, ap);
	fflush(stdout);
	if (rc == 2)
		fprintf(stderr, "%s: %s (see %s --help)\n", wl_self->name, msg,
		    wl_self->name);
	else if (err != 0)
		fprintf(stderr, "%s: %s: %s\n", wl_self->name, msg, strerror(err));
	else
		fprintf(stderr, "%s: %s\n", wl_self->name, msg);
	exit(rc);
}

/* A bad option or value: exit 2. */
void
wl_usage(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	die(2, 0, fmt, ap);
}

/* The run failed (errno says why): exit 1. */
void
wl_fail(const char *fmt, ...)
{
	va_list	ap;
	int	e = errno;

	va_start(ap, fmt);
	die(1, e, fmt, ap);
}

/* The run failed: exit 1. */
void
wl_failx(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	die(1, 0, fmt, ap);
}

/* Allocate or exit. */
void *
wl_alloc(size_t n)
{
	void	*p = calloc(1, n ? n : 1);

	if (p == NULL)
		wl_failx("out of memory (%zu bytes)", n);
	return p;
}

/* One option's help line, wrapped at 79 columns under its text. */
static void
print_opt(const char *left, const char *text)
{
	const int	 col = 25, width = 79 - col;
	const char	*p = text, *cut;
	int		 n;

	printf("  %-22s ", left);
	while ((int)strlen(p) > width) {
		for (cut = p + width; cut > p && *cut != ' '; cut--)
			;
		n = cut > p ? (int)(cut - p) : width;
		printf("%.*s\n%*s", n, p, col, "");
		p += n + (p[n] == ' ');
	}
	printf("%s\n", p);
}

/* Print the help text of a workload. */
static void
help(const struct wl_prog *p)
{
	const struct wl_opt	*o;
	char			 left[64];

	printf("usage: %s [OPTION...]\n\n%s\n\n", p->name, p->summary);
	for (o = p->opts; o->name != NULL; o++) {
		snprintf(left, sizeof left, "--%s%s%s", o->name,
		    o->arg ? " " : "", o->arg ? o->arg : "");
		print_opt(left, o->help);
	}
	print_opt("--json", "print the result as one JSON object");
	print_opt("--help", "this text");
	printf("\nThe result is one line \"%s: key=value ...\" (units in the key "
	    "names)\nor, with --json, one JSON object with the same keys.  A bad "
	    "option\nexits 2.\n\nExample:\n%s\n", p->name, p->example);
}

/* Parse a size: digits with an optional K/M/G/T suffix, or NN% of memory. */
static long long
parse_size(const struct wl_opt *o, const char *s)
{
	char		*end;
	long double	 v;
	long long	 r;

	errno = 0;
	v = strtold(s, &end);
	if (errno != 0 || end == s || v < 0 || *s == '-' || *s == '+')
		wl_usage("--%s %s: not a size (like 4096, 64K, 512M, 2G%s)",
		    o->name, s, o->flags & WL_PCT ? " or 200%" : "");
	switch (*end) {
	case 'k': case 'K': v *= 1024; end++; break;
	case 'm': case 'M': v *= 1024 * 1024; end++; break;
	case 'g': case 'G': v *= 1024 * 1024 * 1024; end++; break;
	case 't': case 'T': v *= 1024.0L * 1024 * 1024 * 1024; end++; break;
	case '%':
		if (!(o->flags & WL_PCT))
			wl_usage("--%s %s: a percentage is not allowed here",
			    o->name, s);
		v = v * wl_mem_total() / 100;
		end++;
		break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end != '\0')
		wl_usage("--%s %s: not a size (like 4096, 64K, 512M, 2G%s)",
		    o->name, s, o->flags & WL_PCT ? " or 200%" : "");
	if (v > 9e18L)
		wl_usage("--%s %s: too large", o->name, s);
	r = (long long)v;
	if (r < o->min || (o->max > 0 && r > o->max))
		wl_usage("--%s %s: want %lld to %lld bytes", o->name, s, o->min,
		    o->max);
	return r;
}

/* Parse a whole number in [lo, hi], naming the option in the error. */
static long long
parse_int(const struct wl_opt *o, const char *s, long long lo, long long hi)
{
	char		*end;
	long long	 v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0')
		wl_usage("--%s %s: not a whole number", o->name, s);
	if (v < lo || v > hi)
		wl_usage("--%s %s: want %lld to %lld", o->name, s, lo, hi);
	return v;
}

/* Store one option's value. */
static void
set_opt(const struct wl_opt *o, const char *v)
{
	const char *const	*c;
	char			*end, *colon, buf[64];
	double			 d;
	int			 i, *pair;

	switch (o->type) {
	case WL_INT:
		*(long long *)o->val = parse_int(o, v, o->min, o->max);
		break;
	case WL_SIZE:
		*(long long *)o->val = parse_size(o, v);
		break;
	case WL_SECS:
		errno = 0;
		d = strtod(v, &end);
		if (errno != 0 || end == v || (*end != '\0' && strcmp(end, "s") != 0) ||
		    !(d >= o->min) || !(d <= o->max))
			wl_usage("--%s %s: want seconds from %lld to %lld (like 5 or 0.5)",
			    o->name, v, o->min, o->max);
		*(double *)o->val = d;
		break;
	case WL_CHOICE:
		for (c = o->choices, i = 0; *c != NULL; c++, i++) {
			if (strcmp(*c, v) == 0) {
				*(int *)o->val = i;
				return;
			}
		}
		buf[0] = '\0';
		for (c = o->choices; *c != NULL; c++)
			snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s",
			    c == o->choices ? "" : ", ", *c);
		wl_usage("--%s %s: want one of %s", o->name, v, buf);
	case WL_PAIR:
		snprintf(buf, sizeof buf, "%s", v);
		if ((colon = strchr(buf, ':')) == NULL)
			wl_usage("--%s %s: want A:B, like %lld:%lld", o->name, v,
			    o->min, o->max);
		*colon = '\0';
		pair = o->val;
		pair[0] = (int)parse_int(o, buf, o->min, o->max);
		pair[1] = (int)parse_int(o, colon + 1, o->min, o->max);
		break;
	case WL_CPUS:
		if (strcmp(v, "-1") == 0) {
			*(int *)o->val = -1;
			break;
		}
		*(int *)o->val = (int)parse_int(o, v, 0, wl_ncpus() - 1);
		break;
	case WL_FLAG:
		*(int *)o->val = 1;
		break;
	case WL_STR:
		if (*v == '\0')
			wl_usage("--%s: empty value", o->name);
		*(const char **)o->val = v;
		break;
	}
}

/* Parse the command line; --help prints help and exits 0. */
void
wl_parse(const struct wl_prog *p, int argc, char **argv)
{
	const struct wl_opt	*o;
	const char		*a, *eq, *v;
	size_t			 n;
	int			 i;

	wl_self = p;
	for (i = 1; i < argc; i++) {
		a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			help(p);
			exit(0);
		}
		if (strcmp(a, "--json") == 0) {
			wl_json = 1;
			continue;
		}
		if (strncmp(a, "--", 2) != 0)
			wl_usage("unexpected argument '%s'", a);
		a += 2;
		n = (eq = strchr(a, '=')) ? (size_t)(eq - a) : strlen(a);
		for (o = p->opts; o->name != NULL; o++)
			if (strlen(o->name) == n && strncmp(o->name, a, n) == 0)
				break;
		if (o->name == NULL)
			wl_usage("unknown option '%s'", argv[i]);
		if (o->type == WL_FLAG) {
			if (eq != NULL)
				wl_usage("--%s takes no value", o->name);
			v = "1";
		} else if (eq != NULL) {
			v = eq + 1;
		} else if (i + 1 < argc) {
			v = argv[++i];
		} else {
			wl_usage("--%s needs a value (%s)", o->name, o->arg);
		}
		set_opt(o, v);
	}
}

static char	out_buf[4096];
static size_t	out_len;

/* Append to the result buffer. */
static void __attribute__((format(printf, 1, 2)))
out_add(const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(out_buf + out_len, sizeof out_buf - out_len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof out_buf - out_len)
		wl_failx("result line too long");
	out_len += n;
}

/* Start the result. */
void
wl_out_begin(void)
{
	out_len = 0;
	if (wl_json)
		out_add("{\"workload\":\"%s\"", wl_self->name);
	else
		out_add("%s:", wl_self->name);
}

/* A whole-number result. */
void
wl_out_int(const char *key, long long v)
{
	out_add(wl_json ? ",\"%s\":%lld" : " %s=%lld", key, v);
}

/* A real-number result with a fixed number of decimals. */
void
wl_out_num(const char *key, double v, int decimals)
{
	if (v != v || v > 1e300 || v < -1e300)
		v = 0;	/* NaN or infinite: never print what JSON cannot hold */
	out_add(wl_json ? ",\"%s\":%.*f" : " %s=%.*f", key, decimals, v);
}

/* A word result (an enumeration such as a mode name). */
void
wl_out_str(const char *key, const char *v)
{
	out_add(wl_json ? ",\"%s\":\"%s\"" : " %s=%s", key, v);
}

/* Print the result line (or JSON object) in one write. */
void
wl_out_end(void)
{
	out_add(wl_json ? "}\n" : "\n");
	fflush(stdout);
	if (write(1, out_buf, out_len) != (ssize_t)out_len)
		wl_fail("writing the result");
}

/* CLOCK_MONOTONIC now. */
uint64_t
wl_now_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Ticks of the TSC per microsecond, calibrated once. */
double
wl_tsc_per_us(void)
{
	static double	rate;
	struct timespec	ts = { 0, 50 * 1000 * 1000 };
	uint64_t	t0, c0, t1, c1;

	if (rate > 0)
		return rate;
	t0 = wl_now_ns();
	c0 = wl_tsc();
	nanosleep(&ts, NULL);
	t1 = wl_now_ns();
	c1 = wl_tsc();
	rate = (double)(c1 - c0) * 1000.0 / (double)(t1 - t0);
	if (!(rate > 0))
		wl_failx("the time-stamp counter does not advance");
	return rate;
}

/* Nearest rank of percentile p among n values: ceil(p/100 * n). */
static uint64_t
rank_of(double p, uint64_t n)
{
	double		x = p / 100.0 * (double)n;
	uint64_t	r = (uint64_t)x;

	return (double)r < x ? r + 1 : r;
}

/* Bucket of a value: exact below WL_HIST_SUB, then 64 per octave. */
static unsigned
hist_bucket(uint64_t v)
{
	unsigned	msb, shift;

	if (v < WL_HIST_SUB)
		return (unsigned)v;
	msb = 63 - (unsigned)__builtin_clzll(v);	/* >= 6 */
	shift = msb - 6;
	return (shift + 1) * WL_HIST_SUB + (unsigned)((v >> shift) & (WL_HIST_SUB - 1));
}

/* Count one value. */
void
wl_hist_add(struct wl_hist *h, uint64_t v)
{
	h->count[hist_bucket(v)]++;
	h->n++;
}

/* Add from's counts to to. */
void
wl_hist_merge(struct wl_hist *to, const struct wl_hist *from)
{
	size_t	i;

	for (i = 0; i < WL_HIST_N; i++)
		to->count[i] += from->count[i];
	to->n += from->n;
}

/* Value at percentile p: the middle of the bucket holding that rank. */
double
wl_hist_pct(const struct wl_hist *h, double p)
{
	uint64_t	rank, seen = 0;
	unsigned	i, shift;
	double		lo, width;

	if (h->n == 0)
		return 0;
	rank = rank_of(p, h->n);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < WL_HIST_N; i++) {
		seen += h->count[i];
		if (seen >= rank)
			break;
	}
	if (i < WL_HIST_SUB)
		return i;
	shift = i / WL_HIST_SUB - 1;
	lo = (double)((uint64_t)(WL_HIST_SUB + i % WL_HIST_SUB) << shift);
	width = (double)(1ULL << shift);
	return lo + width / 2;
}

/* Compare doubles for qsort. */
static int
cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Sort ascending. */
void
wl_sort(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
}

/* Nearest-rank percentile of sorted values. */
double
wl_pct_sorted(const double *v, size_t n, double p)
{
	size_t	rank;

	if (n == 0)
		return 0;
	rank = rank_of(p, n);
	if (rank < 1)
		rank = 1;
	return v[rank - 1];
}

/* Pin the calling thread to one CPU. */
void
wl_pin(int cpu)
{
	cpu_set_t	set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) < 0)
		wl_fail("cannot pin to CPU %d", cpu);
}

/* Online CPUs. */
int
wl_ncpus(void)
{
	long	n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

/* Value of "key value" in a /proc file, scaled; -1 if absent. */
static long long
proc_value(const char *path, const char *key, long long scale)
{
	char		 line[256];
	size_t		 kl = strlen(key);
	long long	 v = -1;
	FILE		*f = fopen(path, "re");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, key, kl) == 0 && (line[kl] == ' ' ||
		    line[kl] == ':')) {
			v = strtoll(line + kl + 1 + strspn(line + kl + 1, ": "),
			    NULL, 10) * scale;
			break;
		}
	}
	fclose(f);
	return v;
}

/* MemTotal in bytes. */
long long
wl_mem_total(void)
{
	long long	v = proc_value("/proc/meminfo", "MemTotal", 1024);

	if (v <= 0)
		wl_failx("cannot read MemTotal from /proc/meminfo");
	return v;
}

/* One /proc/meminfo field, in bytes. */
long long
wl_meminfo(const char *key)
{
	return proc_value("/proc/meminfo", key, 1024);
}

/* One /proc/vmstat counter. */
long long
wl_vmstat(const char *key)
{
	return proc_value("/proc/vmstat", key, 1);
}

/* Write s to path. */
int
wl_put(const char *path, const char *s)
{
	int	fd = open(path, O_WRONLY | O_CLOEXEC), e;
	ssize_t	n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* Run the workload named by argv[0] (or by argv[1] for umkit-wl NAME). */
int
main(int argc, char **argv)
{
	const struct wl_prog *const	*p;
	const char			*name = strrchr(argv[0], '/');

	name = name ? name + 1 : argv[0];
	if (strcmp(name, "umkit-wl") == 0 && argc > 1) {
		argv++;
		argc--;
		name = argv[0];
	}
	for (p = progs; *p != NULL; p++) {
		if (strcmp((*p)->name, name) == 0) {
			wl_parse(*p, argc, argv);
			return (*p)->run();
		}
	}
	fprintf(stderr, "umkit-wl: no workload '%s'; there are:", name);
	for (p = progs; *p != NULL; p++)
		fprintf(stderr, " %s", (*p)->name);
	fprintf(stderr, "\n");
	return 2;
}

static volatile sig_atomic_t	wl_stop;

/* SIGINT, SIGTERM, SIGHUP: stop holding. */
static void
wl_on_signal(int sig)
{
	(void)sig;
	wl_stop = 1;
}

/* Hold for secs seconds (< 0: until a signal), or until a signal. */
void
wl_hold(double secs)
{
	struct sigaction sa = { .sa_handler = wl_on_signal };
	struct timespec	 nap = { 0, 100 * 1000 * 1000 };
	uint64_t	 until = wl_now_ns() + (uint64_t)(secs > 0 ? secs * 1e9 : 0);

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	while (!wl_stop && (secs < 0 || wl_now_ns() < until))
		nanosleep(&nap, NULL);
}
