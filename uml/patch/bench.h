/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench.h - before/after benchmarks of two kernels (umkit compare, and
 * umkit smoke -n): N boots per kernel, interleaved A B A B so drift hits
 * both, serialised, each benchmark pinned to guest CPU 1; per metric the
 * mean, standard deviation, % change and a t-test (stats.h: the host CPU's
 * effect taken out when the boots ran on two, else Welch's), as a
 * table in the shape of lkp-tests' compare, and as JSON with every sample.
 * The charts of umkit compare --plot and umkit plot (gnuplot).
 */
#ifndef UMKIT_BENCH_H
#define UMKIT_BENCH_H

#include <stdio.h>
#include <sys/types.h>

#define BENCH_MAX_METRICS	32
#define BENCH_MAX_BOOTS		100
/*
 * The table marks a change only from this size up, in % of A's mean, as
 * well as p < 0.05 after Holm (bench_table()).  Some counters repeat
 * almost exactly from boot to boot and move in steps: readtwice's file
 * refaults took 14916-14955 in 200 boots of base, 91 of them 14931, 14940
 * or 14949.  Five of them a side then give a t that Holm lets through now
 * and then: compare -n 5 --bench all base base, 20 runs, marked
 * readtwice.refault_file_pages in 2 (+0.07% and +0.09%), no other row in
 * any.  A change that small says nothing about a kernel; the interval
 * is still printed.
 */
#define BENCH_MIN_CHANGE_PCT	1.0
#define BENCH_MAX_JOBS		8
#define BENCH_JSON_MAX		(8 << 20)	/* a saved result file, bytes */
#define BENCH_MAX_OUTPUT	(16 << 20)	/* one boot's output read, bytes */

struct bmetric {
	char	*name;			/* "procbench.fork_us" */
	int	 lower_better;
	double	 v[2][BENCH_MAX_BOOTS];
	int	 cpu[2][BENCH_MAX_BOOTS];	/* the host CPU of v's boot; -1 */
	int	 n[2];
};

struct bres {
	char		*label[2];	/* the two kernels' names */
	char		*host[2];	/* "hostname, kernel, cpu" of each side */
	struct bmetric	 m[BENCH_MAX_METRICS];
	int		 nm;
	int		 boots;
	int		 more;		/* boots a side more_names ran alone */
	char		*more_names;	/* "procbench" (bdef.more), or NULL */
	int		 jobs;		/* boots at a time (-j; 1: serialised) */
	int		 cur_cpu;	/* the host CPU of the boot being read, -1 */
};

/* One boot of bench_boots(): umkit exec -k KERNEL -- sh -c SCRIPT. */
struct bench_boot {
	const char	*kernel;	/* the kernel binary */
	const char	*script;	/* the guest's sh -c script */
	const char	*label;		/* names the boot in progress and errors */
	int		 cpus;		/* guest CPUs (0: 2) */
	int		 mem_mb;	/* guest memory in MiB (0: exec's default) */
	const char	*disk;		/* exec's -d (NULL: its default) */
	int		 timeout;	/* seconds (0: 900) */
	int		 unpinned;	/* not on one host CPU whatever
					   bench_host_cpu() says: a guest of
					   several CPUs (reproduce) */
};

/* Called with boot i's whole stdout (NUL-terminated; may be cut in place). */
typedef void (*bench_out_fn)(int i, char *out, void *arg);

/*
 * Boot b[0 .. nb-1] in that order, jobs at a time (1: serialised), each
 * on the host CPU bench_host_cpu() says (none if unpinned), each
 * finished boot's output to fn (NULL: dropped); progress on stderr as "WHO: boot ...".
 * 0, or the first failing boot's exit status (a signal: 128+N), after
 * printing its output; no boot starts after a failure.
 */
int	bench_boots(const struct bench_boot *b, int nb, int jobs, const char *who,
	    bench_out_fn fn, void *arg);
/*
 * The host CPU boot k of boots run jobs at a time is pinned to (umkit
 * exec --host-cpu) on a host of ncpu CPUs, or -1: none (fewer CPUs than
 * max(jobs, 2)).  Each boot of a group on a CPU of its own, turned by
 * one each group, so an interleaved A B pair swaps CPUs with the next.
 */
int	bench_host_cpu(int k, int jobs, int ncpu);
/*
 * The commands' default -j: 2 on a host of 2 CPUs or more (an A and a B
 * boot at the same time, each on a CPU of its own, the CPUs swapped
 * between pairs: host drift hits both sides of a pair), else 1.
 */
int	bench_default_jobs(void);
/*
 * The benchmarks' default -j (bench-host.c): bench_default_jobs(), but 1
 * on a host where two processes forking at once, one per CPU, each take
 * 1.3x as long a fork as one alone or longer (two boots at once would
 * change each other's figures); the probe's answer is kept in
 * cache/host-pair for the host's boot.  Why, in words, into why.
 */
int	bench_host_jobs(char *why, size_t whylen);
/* The probe itself: a fork's time two at once over alone, or -1. */
double	bench_host_pair_slowdown(void);
/* "hostname, Linux RELEASE, CPU model x N" of this machine, allocated. */
char	*bench_host_id(void);
/* 0 if every name in the comma list is a benchmark (else err names it). */
int	bench_check(const char *names, char *err, size_t errlen);
/* The benchmarks, as the help texts list them. */
extern const char bench_list[];
/*
 * Boot kernel[0] and kernel[1] n times each, interleaved, running the
 * benchmarks names, each boot after its side's setup (guest shell
 * commands, or NULL; setup itself may be NULL); then n more times each
 * running alone those of names that want more boots (procbench: r->more,
 * r->more_names); jobs boots at a time (1: serialised, the default of
 * the commands); samples into r.  Progress on stderr.  0, or the failing
 * boot's exit status (a signal: 128+N).
 */
int	bench_run(const char *kernel[2], const char *label[2], const char *setup[2],
	    const char *names, int n, int jobs, struct bres *r);
/*
 * Boot kernel once running the benchmarks names after setup (NULL: none),
 * for what the run leaves behind (a gcov kernel's counters), not for
 * figures: its output is dropped.  0, or the boot's exit status.
 */
int	bench_once(const char *kernel, const char *label, const char *setup,
	    const char *names);
/*
 * Whether name may name a metric (it becomes a file name and goes into
 * gnuplot's scripts): 1 to 63 of [a-z0-9._].
 */
int	bench_name_ok(const char *name);
/*
 * Add the metrics of one boot's output (the workloads' result lines,
 * "NAME: key=value ...") to side `side` of r; out is cut into lines in
 * place.  Values that are not finite numbers are not samples; metrics
 * past BENCH_MAX_METRICS and samples past BENCH_MAX_BOOTS are dropped.
 * Returns the number of samples refused because their metric's name
 * (procbench's case=) is not bench_name_ok.
 */
int	bench_parse_out(struct bres *r, int side, char *out);
/* The comparison table with its legend. */
void	bench_table(const struct bres *, FILE *);
/* Every sample, the kernels and the machine as JSON; 0 or -1. */
int	bench_json_write(const struct bres *, const char *path);
/*
 * Side `side` of r from a saved file (its second kernel), at most
 * BENCH_JSON_MAX bytes; 0 or -1 with err.  A metric whose name is not
 * bench_name_ok makes the file refused; labels and hosts are kept with
 * control characters and '"' made '?'.
 */
int	bench_json_read(struct bres *r, int side, const char *path, char *err,
	    size_t errlen);
/* The same from the file's text (buf, len), named name in err. */
int	bench_json_parse(struct bres *r, int side, const char *buf, size_t len,
	    const char *name, char *err, size_t errlen);
void	bench_free(struct bres *);
/*
 * Charts in dir (made if missing): per metric METRIC.png and METRIC.svg,
 * a bar per kernel with its standard deviation as error bar, drawn by
 * gnuplot from METRIC.dat and plot.gp (both kept).  0, or -1 with err (a
 * dir with a control character, a metric that is not bench_name_ok).
 */
int	bench_plot(const struct bres *, const char *dir, char *err, size_t errlen);
/*
 * Write s to a gnuplot script as a single-quoted string: no escapes nor
 * command substitution (backquotes) in there; a ' is written twice, a
 * control character (which would end the line) as '?'.
 */
void	gnuplot_str(FILE *, const char *s);
/* Whether s can go into gnuplot_str unchanged (no control character). */
int	gnuplot_str_ok(const char *s);
/* Run gnuplot on a script file; 0, or -1 with err (naming a missing gnuplot). */
int	gnuplot_run(const char *gp, char *err, size_t errlen);
#endif
