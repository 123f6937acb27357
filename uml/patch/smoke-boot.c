/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * smoke-boot.c - the children of a smoke run (smoke.h): the kernel build
 * with its progress line, a boot whose console and dmesg are scanned for
 * kernel reports (and stopped when it floods); the labs' batch run is
 * smoke-labs.c.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/kbuild.h"
#include "smoke.h"
#include "spawn.h"
#include "util.h"

/* Console lines that are a kernel report: any one fails the smoke test. */
static const char *report_marks[] = {
	"Kernel panic - not syncing", "BUG: ", "Oops: ", "kernel BUG at",
	"WARNING: ", "general protection fault", "Unable to handle kernel",
	"possible recursive locking detected", "possible circular locking",
	"inconsistent lock state", "INFO: task ", "KASAN: ", "UBSAN: ",
	"list_add corruption", "list_del corruption", NULL
};


/* The launcher binary, for the children (allocated). */
static char *
self(void)
{
	return umkit_exe();
}

/* A boot's log being watched for a flood (flood_tick). */
struct flood_watch {
	const char	*path;
	off_t		 limit;
	struct spawn	*sp;
	int		 flooded;
};

/* Stop the boot (SIGTERM: umkit exec's own cleanup) once its log is too big. */
static void
flood_tick(void *arg)
{
	struct flood_watch	*w = arg;
	struct stat		 sb;

	if (!w->flooded && stat(w->path, &sb) == 0 && sb.st_size > w->limit) {
		w->flooded = 2;
		kill(w->sp->pid, SIGTERM);
	}
}

/*
 * Run argv with both streams into path, stopped when path passes limit
 * bytes (a flooding kernel would fill the disk before its timeout);
 * *flooded is then 2.
 */
static int
run_watched(char *const argv[], const char *path, off_t limit, int *flooded)
{
	struct spawn		sp;
	struct flood_watch	w = { path, limit, &sp, 0 };
	int			rc;

	spawn_init(&sp, argv);
	sp.out_file = path;
	sp.err = SPAWN_TO_OUT;
	sp.tick = flood_tick;
	sp.arg = &w;
	rc = spawn_run(&sp);
	*flooded = w.flooded;
	return rc;
}

/*
 * Print the lines of text matching any report mark (at most max); count
 * all.  The guest wrote them: a control character is printed as '?' (a
 * tab kept, a CR at the line's end left out).
 */
int
smoke_reports(const char *text, int print, int max)
{
	const char	*l = text, *e, *c;
	const char	**m;
	size_t		 len;
	int		 n = 0;

	while (l != NULL && *l != '\0') {
		e = strchr(l, '\n');
		len = e ? (size_t)(e - l) : strlen(l);
		for (m = report_marks; *m != NULL; m++) {
			if (memmem(l, len, *m, strlen(*m)) == NULL)
				continue;
			if (print && n < max) {
				fputs("    ", stdout);
				for (c = l; c < l + len; c++) {
					if (*c == '\r' && c + 1 == l + len)
						break;
					putchar(((unsigned char)*c < 0x20 &&
					    *c != '\t') || *c == 0x7f ? '?' : *c);
				}
				putchar('\n');
			}
			n++;
			break;
		}
		l = e ? e + 1 : NULL;
	}
	return n;
}

/* The first report mark that text holds, or NULL. */
const char *
smoke_first_report(const char *text)
{
	const char	**m;

	for (m = report_marks; *m != NULL; m++)
		if (strstr(text, *m) != NULL)
			return *m;
	return NULL;
}

/* A build's progress: the apply stage once make starts; a progress line. */
struct build_watch {
	struct smoke	*s;
	const char	*apply_stage;
	int		 applied;
};

/* Say the apply stage once make runs; on a terminal, the objects so far. */
static void
build_progress(const struct kbuild_progress *p, void *arg)
{
	struct build_watch	*b = arg;

	if (p->applied && !b->applied) {
		b->applied = 1;
		if (b->apply_stage != NULL) {
			if (isatty(2))
				fprintf(stderr, "\r%100s\r", "");
			smoke_stage(b->s, b->apply_stage, "ok");
		}
	}
	if (!isatty(2))
		return;
	if (p->expect > 0)
		fprintf(stderr, "\rsmoke: build  %ld of ~%ld objects (as many as the "
		    "last build of this tree), %llds  ", p->done, p->expect,
		    (long long)p->secs);
	else
		fprintf(stderr, "\rsmoke: build  %ld objects, %llds  ", p->done,
		    (long long)p->secs);
}

/* Print the compiler's file:line lines of a build log (at most 20); how many. */
static int
compiler_lines(char *blog)
{
	char	*l, *nl;
	int	 n = 0;

	for (l = blog; l != NULL && *l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		if (strstr(l, ": error:") || strstr(l, ": warning:") ||
		    strstr(l, ": note:") || strstr(l, "Error ")) {
			if (n++ < 20)
				printf("    %s\n", l);
		}
	}
	return n;
}

/* Apply and build a variant; the evidence on failure. */
int
smoke_kbuild(struct smoke *s, const char *variant, const char *dir,
    const char *apply_stage, const char *build_stage, char **kernel)
{
	struct build_watch	 bw = { s, apply_stage, 0 };
	struct kbuild_req	 q = { .variant = variant, .progress = build_progress,
				    .arg = &bw };
	struct kbuild_res	 res;
	long long		 t0 = now_ms();
	char			*log, *out, *blog;
	int			 rc = 0;

	log = xasprintf("%s/kbuild.log", dir);
	q.log = log;
	kbuild_run(&q, &res);
	if (isatty(2))
		fprintf(stderr, "\r%100s\r", "");
	out = read_text(log);
	switch (res.status) {
	case KBUILD_OK:
		*kernel = res.path;
		res.path = NULL;
		if (apply_stage != NULL && !bw.applied)
			smoke_stage(s, apply_stage, "ok");
		smoke_stage(s, build_stage, "ok (%.1f s)", (now_ms() - t0) / 1000.0);
		break;
	case KBUILD_FAIL_APPLY:
		smoke_stage(s, apply_stage ? apply_stage : build_stage,
		    "FAIL: a patch does not apply (nothing was changed)");
		printf("%s", out ? out : "");
		rc = SMOKE_FAIL_APPLY;
		break;
	case KBUILD_FAIL_BUILD:
		if (apply_stage != NULL && !bw.applied)
			smoke_stage(s, apply_stage, "ok");
		smoke_stage(s, build_stage, "FAIL: the kernel does not build "
		    "(%.1f s); the compiler said:", (now_ms() - t0) / 1000.0);
		/* The compiler's file:line lines, else the log's tail. */
		blog = read_text(res.full_log);
		if (blog == NULL || compiler_lines(blog) == 0)
			printf("%s", out ? out : "");
		free(blog);
		rc = SMOKE_FAIL_BUILD;
		break;
	case KBUILD_INTERRUPTED:
		smoke_stage(s, build_stage, "interrupted");
		rc = res.code >= 128 ? res.code : 130;
		break;
	default:
		smoke_stage(s, build_stage, "FAIL: status %d: %s", res.code,
		    kbuild_what(res.status));
		printf("%s", out ? out : "");
		rc = res.status == KBUILD_FAIL_CONFIG ? SMOKE_FAIL_BUILD : EXIT_KIT;
	}
	kbuild_res_free(&res);
	free(out);
	free(log);
	return rc;
}

/*
 * The most times one line of the console's first n bytes of text was
 * printed, its printk time stamp ("[    0.470000] ") left out; lines are
 * told apart by a 64-bit hash in a table of SMOKE_FLOOD_SLOTS (the lines
 * past a full table are not counted).
 */
int
smoke_repeats(const char *text, size_t n)
{
	uint64_t	*key = xcalloc(SMOKE_FLOOD_SLOTS, sizeof *key), h;
	int		*cnt = xcalloc(SMOKE_FLOOD_SLOTS, sizeof *cnt), best = 0;
	const char	*p = text, *e = text + n, *nl, *q;
	size_t		 i, k;

	while (p < e) {
		if ((nl = memchr(p, '\n', e - p)) == NULL)
			nl = e;
		q = p;
		if (*p == '[' && (q = memchr(p, ']', nl - p)) != NULL)
			q += 1 + (q + 1 < nl && q[1] == ' ');
		else
			q = p;
		h = fnv1a(FNV1A_BASIS, q, nl - q);
		for (i = h % SMOKE_FLOOD_SLOTS, k = 0; k < SMOKE_FLOOD_SLOTS &&
		    cnt[i] != 0 && key[i] != h; k++)
			i = (i + 1) % SMOKE_FLOOD_SLOTS;
		if (k < SMOKE_FLOOD_SLOTS) {	/* else the table is full */
			key[i] = h;
			if (++cnt[i] > best)
				best = cnt[i];
		}
		p = nl < e ? nl + 1 : e;
	}
	free(key);
	free(cnt);
	return best;
}

/*
 * Boot kernel, run cmd (the console and cmd's output into logfile).  The
 * guest boots quiet, so warnings never reach the console: the kernel log
 * (dmesg) is appended after cmd and scanned, with the console; cmd's own
 * output is not scanned.
 * The run is stopped when logfile passes limit bytes (*flood: 2; 1 when
 * it ended past SMOKE_FLOOD_BYTES; 3 when one line of the console, before
 * cmd's end, was printed SMOKE_FLOOD_REPEATS times: a flood the boot
 * outran, 2 of 5 boots of tests/fixtures/smoke/flood.patch here ending
 * at 499 and 514 KB of log).
 * Returns exec's status; *nrep gets the kernel reports on the console.
 */
int
smoke_boot_run(struct smoke *s, const char *kernel, const char *cmd,
    const char *logfile, off_t limit, int *nrep, int print, int *flood)
{
	char	*argv[16 + 2 * SMOKE_MAX_RUNS], *text, t[16], *wrap, *d;
	int	 i, k = 0, rc;
	struct stat sb;

	snprintf(t, sizeof t, "%d", s->timeout_s);
	argv[k++] = self();
	argv[k++] = "exec";
	argv[k++] = "-v";
	argv[k++] = "-k";
	argv[k++] = (char *)kernel;
	argv[k++] = "-t";
	argv[k++] = t;
	for (i = 0; i < s->nadds; i++) {
		argv[k++] = "--add";
		argv[k++] = (char *)s->adds[i];
	}
	argv[k++] = "--";
	argv[k++] = "sh";
	argv[k++] = "-c";
	wrap = xasprintf("(%s); st=$?; echo %s >&2; dmesg >&2; exit $st", cmd,
	    SMOKE_DMESG_MARK);
	argv[k++] = wrap;
	argv[k] = NULL;
	rc = run_watched(argv, logfile, limit, flood);
	free(argv[0]);
	free(wrap);
	if (*flood == 0 && stat(logfile, &sb) == 0 && sb.st_size > SMOKE_FLOOD_BYTES)
		*flood = 1;
	text = read_text(logfile);
	/* After the marker: the kernel log; without it (panic, hang): all. */
	d = text ? strstr(text, SMOKE_DMESG_MARK "\n") : NULL;
	if (*flood == 0 && text != NULL && smoke_repeats(text, d ? (size_t)(d - text) :
	    strlen(text)) >= SMOKE_FLOOD_REPEATS)
		*flood = 3;
	*nrep = text ? smoke_reports(d ? d : text, print, 12) : 0;
	free(text);
	return rc;
}
