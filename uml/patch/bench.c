/* SPDX-License-Identifier: GPL-2.0-only */
/* bench.c - interleaved before/after benchmark boots and their table (bench.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "spawn.h"
#include "stats.h"
#include "util.h"

/* A benchmark: the guest commands that print its "procbench: ..." lines. */
struct bdef {
	const char	*name;
	const char	*script;
	int		 more;	/* N more boots a side of its own (bench_run()) */
};

/*
 * Each benchmark prints result lines "NAME: key=value ..." that parse_out()
 * turns into metrics (procbench's carry a "case=" tag).  aging: seed 000's
 * figure, the median ns per moved page of 4 debugfs writes of 5 agings of
 * a full oldest generation (lru-age), and on lru-batch the ns per page of
 * inc_min_seq() alone, in the mode the switch is in (it boots batched);
 * compaction: seed 002's table, one compaction-round
 * after a warm-up round, the switch as the boot left it (set it with
 * umkit compare --setup-b).
 */
static const struct bdef bdefs[] = {
	/*
	 * umkit smoke's default runs every one of these in 5 boots per
	 * side (procbench in 5 more of its own, below), 2 boots at a time
	 * where the host allows it (bench-host.c; one at a time on this
	 * kit's 2-CPU machine, 9.1-11 s a boot); the
	 * boot-to-boot spread, not these counts, limits what the t-test
	 * can see.  Each is as short as its
	 * spread allows, measured in 12 boots of base, 2 at a time on host
	 * CPUs 0 and 1 swapped between pairs, each boot running the old and
	 * the new form (cv: stddev over the boots in % of the mean):
	 *  - procbench, 170 forks, 50 execs, 50 shells, about 1.4 s: a third
	 *    of the old counts, the same spread (fork us_per_op 15.3% at 500
	 *    and 14.5% at 170, min_us 7.3% and 8.5%; exec 15.2/11.7%, shell
	 *    8.9/15.6%), and the slow-fork fixture found as often (compare
	 *    -n 5 --bench procbench, 20 runs each: 9 and 10).
	 *  - kvbench, a 62 MB store (25%) mapped with --populate (a page fault
	 *    is a round trip to the host under UML) and a 0.5 s run: 1.33 s
	 *    where 125 MB and 1 s took 2.92 s; ops/s cv 9.2% against 5.8%,
	 *    p99 4.6% against 2.1%.
	 *  - readtwice, each of 2 workers in a memory cgroup of 16 MB reading
	 *    a 30 MB file (12%): 0.74 s where two files of half the memory
	 *    each under global reclaim took 2.38 s (cv 43%), and steadier:
	 *    pass 1 MB/s cv 16.5% against 27.0%, pass 2 10.2% against 129%
	 *    (some boots' second pass found its file cached), refaults 0.1%
	 *    against 62%.
	 *  - aging, 4 writes of 5 agings of 64 MB, about 1 s.
	 *  - compaction, one round of 40000 pages after a warm-up round of
	 *    5000 (it only has to leave the same state behind): 20000 pages
	 *    doubled every counter's cv (isolated 1.0 -> 4.3%, free_passes
	 *    3.1 -> 8.1%), a 5000-page warm-up against 10000 did not
	 *    (isolated 2.0% and 2.9%, free_passes 5.5% and 2.4%).  Its fill
	 *    (fragment --file) took 2.1 s less a boot than single-page
	 *    writes round-robin to four files: 12 boots of each, alternating,
	 *    6.19 -> 4.07 s with the boot; the same means (isolated 14782
	 *    both, free_passes 61.3 and 62.2), cv isolated 1.2 -> 2.3%,
	 *    free_passes 3.0% both, free_scanned 2.4 -> 6.4% (one boot of the
	 *    12 scanned three pageblocks fewer).
	 */
	/*
	 * procbench also runs alone in N more boots a side: its boots
	 * are cheap (2.2 s with the boot) and its spread between boots is
	 * as large as a real effect.  On this kit's 2-CPU host most boots
	 * of base read fork_min_us 2300-2600 us and one or two in five
	 * 3100-3500, a different boot each run; the slow-fork fixture adds
	 * about 25%.  compare -n 5 --bench procbench found the fixture
	 * (fork_min_us marked worse) in 12 of 20 runs and 6 of 19; two
	 * such runs' samples joined, 10 boots a side, in 8 of 8, and base
	 * against base marked nothing in 8 of 8 (16 of 16 at 5 a side).
	 */
	{ .name = "procbench",
	  .script = "for c in fork exec shell; do n=50; [ $c = fork ] && n=170; "
	  "procbench --case $c --cpu 1 --iterations $n || exit 1; done",
	  .more = 1 },
	{ .name = "kvbench",
	  .script = "kvbench --size 25% --time 0.5 --pattern gaussian --populate || exit 1" },
	{ .name = "readtwice",
	  .script = "readtwice --workers 2 --size 12% --memcg 16M --pin || exit 1" },
	{ .name = "aging",
	  .script = "o=$(MODES=current MB=64 ROUNDS=4 AGINGS=5 lru-age) || exit 1; "
	  "echo \"$o\" | awk 'function med(v, n,  i, j, t) { "
	  "for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) "
	  "{ t = v[j]; v[j] = v[j - 1]; v[j - 1] = t } "
	  "return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 } "
	  "$1 == \"age\" { p[$3] = $4 * 5; if ($5 > 0) k[++nk] = $6 / $5 } "
	  "$1 == \"wall\" && p[$3] > 0 { w[++nw] = $4 / p[$3] } "
	  "END { if (!nw) exit 1; printf \"aging: ns_per_page=%.3f\", med(w, nw); "
	  "if (nk) printf \" inc_min_seq_ns_per_page=%.3f\", med(k, nk); "
	  "printf \"\\n\" }' || exit 1" },
	{ .name = "compaction",
	  .script = "compaction-round --name warm --pages 5000 - >/dev/null && "
	  "compaction-round --name compaction - || exit 1" },
	{ .name = NULL }
};

const char bench_list[] = "procbench (fork, exec, shell: us per op, and "
    "the fastest repeat), "
    "kvbench (ops/s, p99 latency), "
    "readtwice (MB/s of each pass, file refaults), "
    "aging (ns per page moved by MGLRU aging), "
    "compaction (the scanners' counts of one compaction round)";

/* The benchmark called name, or NULL. */
static const struct bdef *
bdef_find(const char *name, size_t n)
{
	const struct bdef	*b;

	for (b = bdefs; b->name != NULL; b++)
		if (strlen(b->name) == n && strncmp(b->name, name, n) == 0)
			return b;
	return NULL;
}

/* "all": every benchmark of bdefs, in its order. */
static const char *
expand(const char *names)
{
	static char		 all[256];
	const struct bdef	*b;

	if (strcmp(names, "all") != 0)
		return names;
	if (all[0] == '\0')
		for (b = bdefs; b->name != NULL; b++)
			snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s",
			    b == bdefs ? "" : ",", b->name);
	return all;
}

/* The benchmarks of names that want boots of their own (bdef.more), allocated. */
static char *
bench_more(const char *names)
{
	const struct bdef	*b;
	const char		*p, *e;
	char			*r = xstrdup(""), *t;

	for (p = expand(names); *p != '\0'; p = *e ? e + 1 : e) {
		e = strchrnul(p, ',');
		if ((b = bdef_find(p, e - p)) == NULL || !b->more)
			continue;
		t = xasprintf("%s%s%s", r, *r ? "," : "", b->name);
		free(r);
		r = t;
	}
	return r;
}

/* Check a comma list of benchmark names. */
int
bench_check(const char *names, char *err, size_t errlen)
{
	const char	*p = expand(names), *e;

	for (; *p != '\0'; p = *e ? e + 1 : e) {
		e = strchrnul(p, ',');
		if (bdef_find(p, e - p) == NULL) {
			snprintf(err, errlen, "no benchmark '%.*s' (have: %s)",
			    (int)(e - p), p, bench_list);
			return -1;
		}
	}
	return 0;
}

/* Whether name may name a metric: [a-z0-9._] only, 1 to 63 of them. */
int
bench_name_ok(const char *name)
{
	size_t	n = strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789._");

	return n > 0 && n < 64 && name[n] == '\0';
}

/* The metric called name in r, made on first use; NULL when it cannot be. */
static struct bmetric *
metric(struct bres *r, const char *name, int lower)
{
	int	i;

	if (!bench_name_ok(name))
		return NULL;
	for (i = 0; i < r->nm; i++)
		if (strcmp(r->m[i].name, name) == 0)
			return &r->m[i];
	if (r->nm == BENCH_MAX_METRICS)
		return NULL;
	r->m[r->nm].name = xstrdup(name);
	r->m[r->nm].lower_better = lower;
	return &r->m[r->nm++];
}

/*
 * Add a sample (a value that is not a finite number is not one); -1
 * when name cannot name a metric.
 */
static int
add_sample(struct bres *r, int side, const char *name, int lower, double v)
{
	struct bmetric	*m;

	if (!bench_name_ok(name))
		return -1;
	if (!isfinite(v) || (m = metric(r, name, lower)) == NULL)
		return 0;
	if (m->n[side] < BENCH_MAX_BOOTS) {
		m->cpu[side][m->n[side]] = r->cur_cpu;
		m->v[side][m->n[side]++] = v;
	}
	return 0;
}

/* The value of key= in a result line, or NAN. */
static double
kv(const char *line, const char *key)
{
	char		 k[64];
	const char	*p;

	snprintf(k, sizeof k, " %s=", key);
	if ((p = strstr(line, k)) == NULL)
		return NAN;
	return strtod(p + strlen(k), NULL);
}

/* The metrics of one boot's output: the workloads' result lines. */
int
bench_parse_out(struct bres *r, int side, char *out)
{
	char	*l, *nl, c[32], name[96];
	int	 refused = 0;

	for (l = out; l != NULL && *l != '\0'; l = nl ? nl + 1 : NULL) {
		if ((nl = strchr(l, '\n')) != NULL)
			*nl = '\0';
		if (strncmp(l, "procbench: ", 11) == 0) {
			const char *p = strstr(l, " case=");

			if (p == NULL || sscanf(p + 6, "%31s", c) != 1)
				continue;
			snprintf(name, sizeof name, "procbench.%s_us", c);
			refused -= add_sample(r, side, name, 1, kv(l, "us_per_op"));
			/* The fastest repeat: what a busy host disturbs least. */
			snprintf(name, sizeof name, "procbench.%s_min_us", c);
			refused -= add_sample(r, side, name, 1, kv(l, "min_us"));
		} else if (strncmp(l, "kvbench: ", 9) == 0) {
			add_sample(r, side, "kvbench.ops_per_s", 0, kv(l, "ops_per_s"));
			add_sample(r, side, "kvbench.p99_us", 1, kv(l, "p99_us"));
		} else if (strncmp(l, "readtwice: ", 11) == 0) {
			add_sample(r, side, "readtwice.pass1_mb_per_s", 0, kv(l, "pass1_mb_per_s"));
			add_sample(r, side, "readtwice.pass2_mb_per_s", 0, kv(l, "pass2_mb_per_s"));
			add_sample(r, side, "readtwice.refault_file_pages", 1,
			    kv(l, "refault_file_pages"));
		} else if (strncmp(l, "aging: ", 7) == 0) {
			add_sample(r, side, "aging.ns_per_page", 1, kv(l, "ns_per_page"));
			/* lru-batch's debugfs lru_gen_aging_cost: not in base. */
			if (!isnan(kv(l, "inc_min_seq_ns_per_page")))
				add_sample(r, side, "aging.inc_min_seq_ns_per_page", 1,
				    kv(l, "inc_min_seq_ns_per_page"));
		} else if (strncmp(l, "compaction: ", 12) == 0) {
			/* Less scanning for as much taken is better. */
			static const struct { const char *k; int lower; } ck[] = {
				{ "migrate_scanned", 1 }, { "free_scanned", 1 },
				{ "free_passes", 1 }, { "free_taken", 0 },
				{ "isolated", 0 }, { "migrated", 0 },
				{ "scan_efficiency_pct", 0 },
			};
			size_t	j;

			for (j = 0; j < sizeof ck / sizeof ck[0]; j++) {
				snprintf(name, sizeof name, "compaction.%s", ck[j].k);
				add_sample(r, side, name, ck[j].lower, kv(l, ck[j].k));
			}
		}
	}
	return refused;
}

/*
 * Start one boot, umkit exec -k KERNEL [-c -m -d] -- sh -c SCRIPT, its
 * stdout into an unlinked temporary file (*fd, read when it has ended).
 */
static void
boot_start(struct spawn *sp, char *argv[22], char opt[4][24],
    const struct bench_boot *b, int *fd, int hcpu)
{
	char	 tmpl[] = "/tmp/umkit-bench.XXXXXX";
	int	 i = 0;

	argv[i++] = umkit_exe();
	argv[i++] = "exec";
	snprintf(opt[0], sizeof opt[0], "%d", b->cpus > 0 ? b->cpus : 2);
	argv[i++] = "-c";
	argv[i++] = opt[0];
	if (b->mem_mb > 0) {
		snprintf(opt[1], sizeof opt[1], "%dM", b->mem_mb);
		argv[i++] = "-m";
		argv[i++] = opt[1];
	}
	if (b->disk != NULL) {
		argv[i++] = "-d";
		argv[i++] = (char *)b->disk;
	}
	snprintf(opt[2], sizeof opt[2], "%d", b->timeout > 0 ? b->timeout : 900);
	if (hcpu >= 0) {
		snprintf(opt[3], sizeof opt[3], "%d", hcpu);
		argv[i++] = "--host-cpu";
		argv[i++] = opt[3];
	}
	argv[i++] = "-k";
	argv[i++] = (char *)b->kernel;
	argv[i++] = "-t";
	argv[i++] = opt[2];
	argv[i++] = "--";
	argv[i++] = "sh";
	argv[i++] = "-c";
	argv[i++] = (char *)b->script;
	argv[i] = NULL;
	if ((*fd = mkostemp(tmpl, O_CLOEXEC)) < 0)
		fatal("mkostemp %s", tmpl);
	unlink(tmpl);
	spawn_init(sp, argv);
	sp->out = *fd;
	spawn_start(sp);
}

/* The whole output in fd (at most BENCH_MAX_OUTPUT), allocated; fd is closed. */
static char *
slurp(int fd)
{
	char	*out;

	lseek(fd, 0, SEEK_SET);
	out = read_fd_all(fd, BENCH_MAX_OUTPUT, NULL);
	if (out == NULL && errno == EFBIG)
		warnmsg("bench: a boot printed more than %d MiB: its results "
		    "are not read", BENCH_MAX_OUTPUT >> 20);
	close(fd);
	return out != NULL ? out : xstrdup("");
}

/* "hostname, uname -r, cpu model" of this machine. */
char *
bench_host_id(void)
{
	struct utsname	 u;
	char		*ci = read_text("/proc/cpuinfo"), *m, *e, *r;
	char		 model[128] = "?";

	uname(&u);
	if (ci != NULL && (m = strstr(ci, "model name")) != NULL &&
	    (m = strchr(m, ':')) != NULL) {
		m += 2;
		e = strchrnul(m, '\n');
		snprintf(model, sizeof model, "%.*s", (int)(e - m), m);
	}
	free(ci);
	r = xasprintf("%s, Linux %s, %s x %ld", u.nodename, u.release, model,
	    sysconf(_SC_NPROCESSORS_ONLN));
	return r;
}

/*
 * Boot k's host CPU: with w = jobs (2 at least) CPUs or more, boot k of
 * each group of w on a CPU of its own, turned by one each group, so an
 * interleaved A B pair swaps CPUs with the next pair (a difference
 * between the CPUs cancels out); else -1, not pinned.
 */
int
bench_host_cpu(int k, int jobs, int ncpu)
{
	int	w = jobs < 2 ? 2 : jobs;

	if (ncpu == 1)
		return 0;
	if (ncpu < w)
		return -1;
	return (k / w + k % w) % w;
}

/* 2 (an A and a B boot at once, each on a host CPU of its own), or 1 on one CPU. */
int
bench_default_jobs(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
}

/* The boots b[0 .. nb-1] in order, jobs at a time, each output to fn. */
int
bench_boots(const struct bench_boot *b, int nb, int jobs, const char *who,
    bench_out_fn fn, void *arg)
{
	char		*out, what[96];
	long long	 t0 = now_ms();
	int		 k, j, nj, rc = 0, tty = isatty(2), done = 0;
	int		 ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);

	jobs = jobs < 1 ? 1 : jobs > BENCH_MAX_JOBS ? BENCH_MAX_JOBS : jobs;
	for (k = 0; k < nb; k += nj) {
		struct spawn	sps[BENCH_MAX_JOBS];
		char		*argvs[BENCH_MAX_JOBS][22], opts[BENCH_MAX_JOBS][4][24];
		int		fds[BENCH_MAX_JOBS], rcs[BENCH_MAX_JOBS], sig;
		long long el = now_ms() - t0;

		nj = nb - k < jobs ? nb - k : jobs;
		if (nj == 1)
			snprintf(what, sizeof what, "boot %d of %d (%s)", k + 1, nb,
			    b[k].label);
		else
			snprintf(what, sizeof what, "boots %d-%d of %d, %d at a time",
			    k + 1, k + nj, nb, nj);
		if (done > 0 && tty)
			fprintf(stderr, "\r%s: %s, %llds elapsed, ~%llds left   ", who,
			    what, el / 1000, el / done * (nb - done) / 1000);
		else
			fprintf(stderr, tty ? "\r%s: %s, %llds elapsed   " :
			    "%s: %s, %llds elapsed\n", who, what, el / 1000);
		for (j = 0; j < nj; j++)
			boot_start(&sps[j], argvs[j], opts[j], &b[k + j], &fds[j],
			    b[k + j].unpinned ? -1 : bench_host_cpu(k + j, jobs, ncpu));
		sig = spawn_wait_all(sps, nj, rcs);
		for (j = 0; j < nj; j++) {
			free(argvs[j][0]);
			out = slurp(fds[j]);
			if (rc == 0 && (sig != 0 || rcs[j] != 0)) {
				rc = sig != 0 ? sig : rcs[j];
				if (tty)
					fprintf(stderr, "\n");
				warnmsg("%s: boot %d (%s) failed with status %d", who,
				    k + j + 1, b[k + j].label, rc);
				fprintf(stderr, "%s", out);
			}
			if (rc == 0 && fn != NULL)
				fn(k + j, out, arg);
			free(out);
		}
		if (rc != 0)
			return rc;
		done += nj;
	}
	if (tty)
		fprintf(stderr, "\n");
	fprintf(stderr, "%s: %d boots in %.1f s\n", who, nb, (now_ms() - t0) / 1000.0);
	return 0;
}

/* bench_run()'s output callback: boot i's samples into side i % 2. */
static void
run_out(int i, char *out, void *arg)
{
	struct bres	*r = arg;

	r->cur_cpu = bench_host_cpu(i, r->jobs, (int)sysconf(_SC_NPROCESSORS_ONLN));
	if (bench_parse_out(r, i % 2, out) > 0)
		warnmsg("bench: boot %d (%s): a procbench case is not made of "
		    "[a-z0-9._]: its results are not read", i + 1, r->label[i % 2]);
	r->cur_cpu = -1;
}

/*
 * The test of one metric.  Boots pinned to two host CPUs, the CPUs
 * swapped between pairs (bench_host_cpu()), leave a CPU's effect in
 * every sample: in 12 runs of compare -n 5 --bench procbench base
 * against the slow-fork fixture, one host CPU ran fork 10-35% slower
 * than the other all run long, which one changing from run to run, so
 * a side's boots alternated fast and slow.  Taking the CPU out (least
 * squares, kernel + CPU: stats_blocked()) found the fixture in 11 of
 * the 12 where Welch's test found it in 9; in 12 runs of base against
 * base each marked a row in the same one run.  Samples without their
 * CPUs (a saved file, -j above 2, one CPU) get Welch's test.  Returns
 * whether the CPU was taken out.
 */
static int
bench_test(const struct bmetric *m, struct welch *w)
{
	if (stats_blocked(m->v[0], m->cpu[0], m->n[0], m->v[1], m->cpu[1],
	    m->n[1], w) == 0)
		return 1;
	stats_welch(m->v[0], m->n[0], m->v[1], m->n[1], w);
	return 0;
}

/* The guest script of the benchmarks names, after setup (NULL: none). */
static char *
bench_script(const char *names, const char *setup)
{
	const char	*p, *e;
	char		*sc = xstrdup(""), *t;

	for (p = expand(names); *p != '\0'; p = *e ? e + 1 : e) {
		e = strchrnul(p, ',');
		t = xasprintf("%s%s%s", sc, *sc ? "; " : "", bdef_find(p, e - p)->script);
		free(sc);
		sc = t;
	}
	if (setup == NULL)
		return sc;
	/* The setup runs first, in the same shell: its failure ends the boot. */
	t = xasprintf("{ %s\n} || { echo 'bench: the setup failed' >&2; exit 1; }; %s",
	    setup, sc);
	free(sc);
	return t;
}

/* One boot of the benchmarks, its output dropped. */
int
bench_once(const char *kernel, const char *label, const char *setup,
    const char *names)
{
	struct bench_boot b;
	char		*script = bench_script(names, setup);
	int		 rc;

	memset(&b, 0, sizeof b);
	b.kernel = kernel;
	b.script = script;
	b.label = label;
	rc = bench_boots(&b, 1, 1, "bench", NULL, NULL);
	free(script);
	return rc;
}

/*
 * The interleaved boots: 2n of every benchmark, then 2 * more of those
 * that want boots of their own (bdef.more), alone, still interleaved;
 * the host CPUs go on alternating across both.
 */
int
bench_run(const char *kernel[2], const char *label[2], const char *setup[2],
    const char *names, int n, int jobs, struct bres *r)
{
	struct bench_boot *b;
	char		*script[2], *alone[2], *mnames = bench_more(names);
	int		 side, k, rc, more;

	memset(r, 0, sizeof *r);
	r->cur_cpu = -1;
	for (side = 0; side < 2; side++) {
		r->label[side] = xstrdup(label[side]);
		r->host[side] = bench_host_id();
	}
	r->boots = n;
	r->jobs = jobs = jobs < 1 ? 1 : jobs > BENCH_MAX_JOBS ? BENCH_MAX_JOBS : jobs;
	/* Only the boots a side's samples have room for. */
	more = *mnames == '\0' ? 0 : n < BENCH_MAX_BOOTS - n ? n : BENCH_MAX_BOOTS - n;
	r->more = more;
	r->more_names = mnames;
	for (side = 0; side < 2; side++) {
		script[side] = bench_script(names, setup != NULL ? setup[side] : NULL);
		alone[side] = more ? bench_script(mnames, setup != NULL ? setup[side] :
		    NULL) : NULL;
	}
	/* Boots k = 0 .. 2(n + more) - 1 of side k % 2. */
	b = xcalloc(2 * (n + more), sizeof *b);
	for (k = 0; k < 2 * (n + more); k++) {
		b[k].kernel = kernel[k % 2];
		b[k].script = k < 2 * n ? script[k % 2] : alone[k % 2];
		b[k].label = label[k % 2];
	}
	rc = bench_boots(b, 2 * (n + more), jobs, "bench", run_out, r);
	free(b);
	for (side = 0; side < 2; side++) {
		free(script[side]);
		free(alone[side]);
	}
	return rc;
}

/*
 * Each metric's p-value adjusted with Holm-Bonferroni over the metrics
 * both sides have (padj[i]; 1 for a metric one side lacks).  The table
 * marks a row by its adjusted p: with 19 metrics and no change at all,
 * raw p < 0.05 marks some row in about 6 runs of 10.
 */
static void
bench_padj(const struct bres *r, double *padj)
{
	double		 p[BENCH_MAX_METRICS] = { 0 };
	int		 idx[BENCH_MAX_METRICS], i, n = 0;
	struct welch	 w;

	for (i = 0; i < r->nm; i++) {
		const struct bmetric *m = &r->m[i];

		padj[i] = 1;
		if (m->n[0] == 0 || m->n[1] == 0)
			continue;
		bench_test(m, &w);
		p[n] = w.p;
		idx[n++] = i;
	}
	stats_holm(p, n, p);
	for (i = 0; i < n; i++)
		padj[idx[i]] = p[i];
}

/* A metric's samples a side: the larger count. */
static int
side_n(const struct bmetric *m)
{
	return m->n[0] > m->n[1] ? m->n[0] : m->n[1];
}

/*
 * The legend's boots: "N boots per side, interleaved", and the rows with
 * more samples a side than N by their benchmark (procbench's own boots;
 * in two saved files, whatever their samples say).
 */
static void
bench_legend_boots(const struct bres *r, FILE *f)
{
	int	i, j, len;

	fprintf(f, "%d boots per side, interleaved", r->boots);
	for (i = 0; i < r->nm; i++) {
		len = (int)strcspn(r->m[i].name, ".");
		if (side_n(&r->m[i]) <= r->boots)
			continue;
		for (j = 0; j < i; j++)
			if (side_n(&r->m[j]) > r->boots &&
			    strncmp(r->m[j].name, r->m[i].name, len + 1) == 0)
				break;
		if (j < i)
			continue;	/* its benchmark said already */
		fprintf(f, " (%.*s's rows: %d%s)", len, r->m[i].name, side_n(&r->m[i]),
		    r->more > 0 ? ", the boots beyond those running it alone" : "");
	}
}

/* The table: base ±%stddev  %change [95% CI]  patched ±%stddev  metric. */
void
bench_table(const struct bres *r, FILE *f)
{
	struct welch	 w;
	double		 padj[BENCH_MAX_METRICS];
	int		 i, sig = 0, blocked = 0;	/* metrics with the CPU out */
	const char	*mark;
	char		 sa[32], sb[32], ci[48];
	int		 one = 0, ncpu;

	bench_padj(r, padj);
	fprintf(f, "%16.16s %8s %10s %-17s %16.16s %8s  %s\n", r->label[0], "", "%change",
	    "  (95% CI)", r->label[1], "", "metric");
	fprintf(f, "%16s %8s %10s %-17s %16s %8s  %s\n", "----------------", "--------",
	    "----------", "  ---------------", "----------------", "--------", "------");
	for (i = 0; i < r->nm; i++) {
		const struct bmetric *m = &r->m[i];

		blocked += bench_test(m, &w);
		if (m->n[0] == 0 || m->n[1] == 0) {
			/* A counter one kernel lacks (a variant's debugfs file). */
			int	s = m->n[0] == 0;
			char	v[2][32];

			snprintf(v[s], sizeof v[s], "%.1f", w.mean[s]);
			snprintf(v[!s], sizeof v[!s], "-");
			snprintf(sa, sizeof sa, "±%.0f%%", w.mean[s] ?
			    100 * w.sd[s] / fabs(w.mean[s]) : 0);
			fprintf(f, "%16s %9s %10s %17s %14s %9s  %s (only %s has it)\n", v[0],
			    s ? "" : sa, "", "", v[1], s ? sa : "", m->name, r->label[s]);
			one++;
			continue;
		}
		mark = fabs(w.change_pct) < BENCH_MIN_CHANGE_PCT ? "" :
		    padj[i] < 0.01 ? "**" : padj[i] < 0.05 ? "*" : "";
		if (*mark)
			sig++;
		snprintf(sa, sizeof sa, "±%.0f", w.mean[0] ? 100 * w.sd[0] / fabs(w.mean[0]) : 0);
		snprintf(sb, sizeof sb, "±%.0f", w.mean[1] ? 100 * w.sd[1] / fabs(w.mean[1]) : 0);
		snprintf(ci, sizeof ci, "(%+.1f, %+.1f)", w.ci_lo_pct, w.ci_hi_pct);
		fprintf(f, "%16.1f %8s%% %+9.1f%%%-2s %-15s %14.1f %8s%%  %s%s\n", w.mean[0],
		    sa, w.change_pct, mark, ci, w.mean[1], sb,
		    m->name, !*mark ? "" : ((w.change_pct < 0) == m->lower_better) ?
		    " (better)" : " (worse)");
	}
	fprintf(f, "± stddev in %% of the mean; %%change with its 95%% confidence interval; "
	    "* p<0.05, ** p<0.01 after Holm-Bonferroni over the %d metrics (%s, "
	    "two-sided; each p in --json), for a change of %g%% or more; ", r->nm - one,
	    blocked == r->nm - one ? "t-test of the kernel's effect with the host CPU's "
	    "taken out, least squares" : blocked == 0 ? "Welch's t-test" :
	    "least squares with the host CPU taken out, or Welch's t-test where a "
	    "metric lacks its CPUs", BENCH_MIN_CHANGE_PCT);
	bench_legend_boots(r, f);
	fprintf(f, "; %d of %d metrics changed significantly\n", sig, r->nm - one);
	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (bench_host_cpu(1, r->jobs, ncpu) >= 0)
		fprintf(f, "note: each boot's UML ran on one host CPU (exec --host-cpu), "
		    "the CPUs swapped between pairs; %d boot%s at a time\n", r->jobs,
		    r->jobs > 1 ? "s" : "");
	else if (r->jobs > 1)
		fprintf(f, "note: -j %d: %d boots ran at a time, sharing the host's CPUs "
		    "(the figures are disturbed by each other)\n", r->jobs, r->jobs);
	if (r->host[0] && r->host[1] && strcmp(r->host[0], r->host[1]) != 0)
		fprintf(f, "note: the two sides ran on different machines:\n  %s: %s\n"
		    "  %s: %s\n", r->label[0], r->host[0], r->label[1], r->host[1]);
}

/* Every sample as JSON. */
int
bench_json_write(const struct bres *r, const char *path)
{
	json_t	*o = json_object(), *k = json_array(), *ms = json_object();
	int	 i, s, j, rc;
	struct welch w;
	double	 padj[BENCH_MAX_METRICS];

	bench_padj(r, padj);
	for (s = 0; s < 2; s++)
		json_array_append_new(k, json_pack("{s:s,s:s}", "label", r->label[s],
		    "host", r->host[s]));
	for (i = 0; i < r->nm; i++) {
		const struct bmetric *m = &r->m[i];
		json_t	*sm = json_array(), *sc = json_array();
		int	 blocked;

		for (s = 0; s < 2; s++) {
			json_t *a = json_array(), *c = json_array();

			for (j = 0; j < m->n[s]; j++) {
				json_array_append_new(a, json_real(m->v[s][j]));
				json_array_append_new(c, json_integer(m->cpu[s][j]));
			}
			json_array_append_new(sm, a);
			json_array_append_new(sc, c);
		}
		blocked = bench_test(m, &w);
		json_object_set_new(ms, m->name, json_pack("{s:b,s:o,s:o,s:s,s:f,s:f,s:f,s:f,"
		    "s:f,s:f,s:f,s:f,s:f,s:f}",
		    "lower_is_better", m->lower_better, "samples", sm, "host_cpus", sc,
		    "test", blocked ? "least squares, kernel + host CPU" : "welch",
		    "mean_a", w.mean[0], "sd_a", w.sd[0], "mean_b", w.mean[1],
		    "sd_b", w.sd[1], "change_pct", w.change_pct, "t", isfinite(w.t) ? w.t : 1e300,
		    "p", w.p, "p_holm", padj[i], "ci_lo_pct", w.ci_lo_pct,
		    "ci_hi_pct", w.ci_hi_pct));
	}
	json_object_set_new(o, "umkit_bench", json_integer(1));
	json_object_set_new(o, "boots", json_integer(r->boots));
	json_object_set_new(o, "kernels", k);
	json_object_set_new(o, "metrics", ms);
	rc = json_dump_file(o, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(o);
	return rc;
}

/* A copy of s for a terminal and a data file: controls and '"' become '?'. */
static char *
clean_text(const char *s)
{
	char	*c = xstrdup(s), *p;

	for (p = c; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == '"')
			*p = '?';
	return c;
}

/* Side `side` of r from a saved file's text: its second kernel's samples. */
int
bench_json_parse(struct bres *r, int side, const char *buf, size_t len,
    const char *name, char *err, size_t errlen)
{
	json_error_t	 je;
	json_t		*o, *ms, *m, *k, *a, *x;
	const char	*mname, *lab, *host;
	size_t		 j;
	int		 rc = -1;

	o = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (o == NULL || json_integer_value(json_object_get(o, "umkit_bench")) != 1) {
		snprintf(err, errlen, "%s: not a umkit --json result file%s%s", name,
		    o == NULL ? ": " : "", o == NULL ? je.text : "");
		goto out;
	}
	ms = json_object_get(o, "metrics");
	json_object_foreach(ms, mname, m) {
		if (!bench_name_ok(mname)) {
			snprintf(err, errlen, "%s: metric '%.64s%s' is not made of "
			    "[a-z0-9._] (at most 63)", name, mname,
			    strlen(mname) > 64 ? "..." : "");
			goto out;
		}
	}
	k = json_array_get(json_object_get(o, "kernels"), 1);
	lab = json_string_value(json_object_get(k, "label"));
	host = json_string_value(json_object_get(k, "host"));
	free(r->label[side]);
	free(r->host[side]);
	r->label[side] = clean_text(lab ? lab : name);
	r->host[side] = clean_text(host ? host : "?");
	r->boots = (int)json_integer_value(json_object_get(o, "boots"));
	/* Another run's CPUs are not this one's: its samples get Welch's test. */
	r->cur_cpu = -1;
	json_object_foreach(ms, mname, m) {
		int lower = json_is_true(json_object_get(m, "lower_is_better"));

		a = json_array_get(json_object_get(m, "samples"), 1);
		json_array_foreach(a, j, x)
			if (json_is_number(x))
				add_sample(r, side, mname, lower, json_number_value(x));
	}
	rc = 0;
out:
	json_decref(o);
	return rc;
}

/* Side `side` of r from a saved file: its second kernel's samples. */
int
bench_json_read(struct bres *r, int side, const char *path, char *err,
    size_t errlen)
{
	char	*buf;
	size_t	 len;
	int	 fd, rc;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	buf = read_fd_all(fd, BENCH_JSON_MAX, &len);
	close(fd);
	if (buf == NULL) {
		snprintf(err, errlen, "%s: %s", path, errno == EFBIG ?
		    "larger than a umkit --json result file can be" : strerror(errno));
		return -1;
	}
	rc = bench_json_parse(r, side, buf, len, path, err, errlen);
	free(buf);
	return rc;
}

/* Run gnuplot on script gp; 0, or -1 with err. */
int
gnuplot_run(const char *gp, char *err, size_t errlen)
{
	char		*argv[] = { "gnuplot", (char *)gp, NULL };
	struct spawn	 sp;
	int		 rc;

	spawn_init(&sp, argv);
	rc = spawn_run(&sp);
	if (rc != 0)
		snprintf(err, errlen, "gnuplot %s failed (status %d%s)", gp, rc,
		    rc == 127 ? ": not installed? apt-get install gnuplot-nox" : "");
	return rc == 0 ? 0 : -1;
}

/* Whether s has a control character (it cannot go into a gnuplot string). */
int
gnuplot_str_ok(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* Write s as a single-quoted gnuplot string ('' for '; controls as '?'). */
void
gnuplot_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
	}
	fputc('\'', f);
}

/* Charts of every metric through gnuplot. */
int
bench_plot(const struct bres *r, const char *dir, char *err, size_t errlen)
{
	char		*path, *gp, *out, *label, title[160];
	FILE		*f, *g;
	int		 i, s, rc;
	struct welch	 w;

	if (!gnuplot_str_ok(dir)) {
		snprintf(err, errlen, "the plot directory's name has a control "
		    "character");
		return -1;
	}
	for (i = 0; i < r->nm; i++) {
		if (!bench_name_ok(r->m[i].name)) {
			snprintf(err, errlen, "metric '%s' is not made of [a-z0-9._]",
			    r->m[i].name);
			return -1;
		}
	}
	mkdir(dir, 0755);
	gp = xasprintf("%s/plot.gp", dir);
	if ((g = fopen(gp, "w")) == NULL) {
		snprintf(err, errlen, "%s: %s", gp, strerror(errno));
		free(gp);
		return -1;
	}
	fprintf(g, "# umkit: bars with error bars (mean, standard deviation)\n"
	    "set style fill solid 0.6 border -1\nset boxwidth 0.6\n"
	    "set yrange [0:*]\nset grid ytics\nunset key\nset xrange [-0.6:1.6]\n");
	for (i = 0; i < r->nm; i++) {
		const struct bmetric *m = &r->m[i];

		path = xasprintf("%s/%s.dat", dir, m->name);
		if ((f = fopen(path, "w")) == NULL) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			free(path);
			fclose(g);
			free(gp);
			return -1;
		}
		bench_test(m, &w);
		fprintf(f, "# kernel mean stddev n\n");
		for (s = 0; s < 2; s++) {
			label = clean_text(r->label[s] ? r->label[s] : "?");
			fprintf(f, "\"%s\" %.6g %.6g %d\n", label, w.mean[s], w.sd[s],
			    m->n[s]);
			free(label);
		}
		fclose(f);
		snprintf(title, sizeof title, "%s (%+.1f%%, p=%.3g, %d boots per side)",
		    m->name, w.change_pct, w.p, side_n(m));
		for (s = 0; s < 2; s++) {
			out = xasprintf("%s/%s.%s", dir, m->name, s ? "svg" : "png");
			fprintf(g, "set terminal %s size 640,480\nset output ",
			    s ? "svg" : "pngcairo");
			gnuplot_str(g, out);
			fprintf(g, "\nset title ");
			gnuplot_str(g, title);
			fprintf(g, " noenhanced\nset ylabel ");
			gnuplot_str(g, m->name);
			fprintf(g, " noenhanced\nplot ");
			gnuplot_str(g, path);
			fprintf(g, " using 0:2:3:xtic(1) with boxerrorbars "
			    "lc rgb '#4a7ab0'\n");
			free(out);
		}
		free(path);
	}
	fprintf(g, "unset output\n");
	fclose(g);
	rc = gnuplot_run(gp, err, errlen);
	free(gp);
	return rc;
}

/* Free what r holds. */
void
bench_free(struct bres *r)
{
	int	i;

	for (i = 0; i < 2; i++) {
		free(r->label[i]);
		free(r->host[i]);
	}
	for (i = 0; i < r->nm; i++)
		free(r->m[i].name);
	free(r->more_names);
	memset(r, 0, sizeof *r);
}
