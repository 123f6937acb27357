/*
 * cmd-smoke.c - 'umkit smoke INPUT...': does a patch apply, build, boot
 * clean, pass the labs' checks and the developer's own reproducers?
 *
 * The inputs become one patch list (patchin.h) written as the variant
 * smoke-HASH in build/smoke/HASH (content-addressed: the same change in
 * any form is the same variant, and its build is reused).  Each stage is
 * a subprocess of the kit's own tools (uml/kernel/kbuild.sh, umkit exec, umkit
 * lab), so their cleanup on failure, timeout and Ctrl-C holds here too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "patch/bench.h"
#include "guest/guest.h"
#include "patch/patchin.h"
#include "patch/smoke.h"
#include "umkit.h"
#include "util.h"

/* A quiet boot's console and dmesg are ~10 KiB; dmesg is at most the
 * kernel's 128 KiB log buffer: more console than this is a flood. */
#define SMOKE_FLOOD_BYTES	(512 << 10)
/* A reproducer's own output counts too: its run may write this much. */
#define SMOKE_RUN_LOG_MAX	(64 << 20)

/* The kernel's debug checks for --debug (arch/um/Kconfig: UML 7.2 x86_64
 * selects HAVE_ARCH_KASAN and LOCKDEP_SUPPORT). */
static const char debug_config[] =
"# umkit smoke --debug: the kernel's own checks that help an MM patch\n"
"CONFIG_DEBUG_KERNEL=y\n"
"CONFIG_DEBUG_VM=y\n"
"CONFIG_PROVE_LOCKING=y\n"
"CONFIG_KASAN=y\n"
"CONFIG_KASAN_GENERIC=y\n"
"CONFIG_KASAN_OUTLINE=y\n";

/* Console lines that are a kernel report: any one fails the smoke test. */
static const char *report_marks[] = {
	"Kernel panic - not syncing", "BUG: ", "Oops: ", "kernel BUG at",
	"WARNING: ", "general protection fault", "Unable to handle kernel",
	"possible recursive locking detected", "possible circular locking",
	"inconsistent lock state", "INFO: task ", "KASAN: ", "UBSAN: ",
	"list_add corruption", "list_del corruption", NULL
};


/* The launcher binary, for subprocesses. */
char *
self(void)
{
	return top_path("build/bin/umkit");
}

/*
 * Run argv with stdout and stderr to path (NULL: inherited); returns the
 * exit status, 128+N for a signal.  SIGINT reaches the child through the
 * terminal's process group; we only wait.
 */
static int
run_to_tick(char *const argv[], const char *path, int stdout_too,
    void (*tick)(void *), void *arg, pid_t *child);

/* run_to_tick without progress. */
int
run_to(char *const argv[], const char *path, int stdout_too)
{
	return run_to_tick(argv, path, stdout_too, NULL, NULL, NULL);
}

/*
 * Run argv with its output in path, calling tick while it runs; the
 * child's pid goes to *child first (unless NULL), for tick to use.
 */
static int
run_to_tick(char *const argv[], const char *path, int stdout_too,
    void (*tick)(void *), void *arg, pid_t *child)
{
	pid_t	pid;
	int	fd;

	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) < 0)
		fatal("fork");
	if (pid == 0) {
		if (path != NULL) {
			if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
				_exit(125);
			if (stdout_too)
				dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	if (child != NULL)
		*child = pid;
	return child_wait_tick(pid, tick, arg);
}

/* A boot's log being watched for a flood (flood_tick). */
struct flood_watch {
	const char	*path;
	off_t		 limit;
	pid_t		 pid;
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
		kill(w->pid, SIGTERM);
	}
}

/*
 * run_to for a boot: output (both streams) in path, stopped when path
 * passes limit bytes (a flooding kernel would fill the disk before
 * its timeout); *flooded is then 2.
 */
static int
run_watched(char *const argv[], const char *path, off_t limit, int *flooded)
{
	struct flood_watch	w = { path, limit, 0, 0 };
	int			rc;

	rc = run_to_tick(argv, path, 1, flood_tick, &w, &w.pid);
	*flooded = w.flooded;
	return rc;
}

/* Print the lines of text matching any report mark (at most max); count all. */
static int
reports(const char *text, int print, int max)
{
	const char	*l = text, *e;
	const char	**m;
	int		 n = 0;

	while (l != NULL && *l != '\0') {
		e = strchr(l, '\n');
		for (m = report_marks; *m != NULL; m++) {
			if (memmem(l, e ? (size_t)(e - l) : strlen(l), *m, strlen(*m)) != NULL) {
				if (print && n < max)
					printf("    %.*s\n", (int)(e ? e - l : (long)strlen(l)), l);
				n++;
				break;
			}
		}
		l = e ? e + 1 : NULL;
	}
	return n;
}

/* Print the lines of a file after the first report, for evidence. */
static void
print_after(const char *text, const char *mark, int max)
{
	const char	*p = strstr(text, mark), *e;
	int		 i;

	if (p == NULL)
		return;
	while (p > text && p[-1] != '\n')
		p--;
	for (i = 0; i < max && p != NULL && *p != '\0'; i++) {
		e = strchr(p, '\n');
		printf("    | %.*s\n", (int)(e ? e - p : (long)strlen(p)), p);
		p = e ? e + 1 : NULL;
	}
}

/* The stages so far, for --ktap and --junit. */
static struct {
	char	*name, *text;
	double	 secs;
}		 stages[24];
static int	 nstages;
static long long stage_t0;

/* The stage line: "smoke: STAGE  RESULT" (RESULT "ok..." or "FAIL..."). */
void
stage(const char *name, const char *fmt, ...)
{
	va_list	ap;
	char	*t;

	va_start(ap, fmt);
	t = xvasprintf(fmt, ap);
	va_end(ap);
	printf("smoke: %-6s %s\n", name, t);
	fflush(stdout);
	if (nstages < 24) {
		stages[nstages].name = xstrdup(name);
		stages[nstages].text = t;
		stages[nstages].secs = (now_ms() - stage_t0) / 1000.0;
		nstages++;
	} else {
		free(t);
	}
	stage_t0 = now_ms();
}

/* Escape text for an XML attribute or element. */
static void
xml_put(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
				fputc(*s, f);
		}
	}
}

/* The stages as KTAP on stdout, and as JUnit XML in path. */
static void
reports_write(const struct smoke *s, int ktap, const char *junit)
{
	FILE	*f;
	int	 i, nfail = 0;

	for (i = 0; i < nstages; i++)
		nfail += strncmp(stages[i].text, "ok", 2) != 0;
	if (ktap) {
		printf("KTAP version 1\n1..%d\n", nstages);
		for (i = 0; i < nstages; i++)
			printf("%s %d %s # %s\n", strncmp(stages[i].text, "ok", 2) == 0 ?
			    "ok" : "not ok", i + 1, stages[i].name, stages[i].text);
	}
	if (junit == NULL)
		return;
	if ((f = fopen(junit, "w")) == NULL)
		fatal("%s", junit);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
	    "<testsuite name=\"umkit smoke ");
	xml_put(f, s->variant ? s->variant : "?");
	fprintf(f, "\" tests=\"%d\" failures=\"%d\">\n", nstages, nfail);
	if (s->npatches > 0) {
		fprintf(f, "  <properties>\n");
		for (i = 0; i < s->npatches; i++)
			if (s->cov_prop[i] != NULL) {
				fprintf(f, "    <property name=\"coverage %04d.patch\" value=\"", i + 1);
				xml_put(f, s->cov_prop[i]);
				fprintf(f, "\"/>\n");
			}
		fprintf(f, "  </properties>\n");
	}
	for (i = 0; i < nstages; i++) {
		fprintf(f, "  <testcase classname=\"smoke\" name=\"");
		xml_put(f, stages[i].name);
		fprintf(f, "\" time=\"%.3f\">", stages[i].secs);
		if (strncmp(stages[i].text, "ok", 2) != 0) {
			fprintf(f, "<failure message=\"");
			xml_put(f, stages[i].text);
			fprintf(f, "\"/>");
		}
		fprintf(f, "<system-out>");
		xml_put(f, stages[i].text);
		fprintf(f, "</system-out></testcase>\n");
	}
	fprintf(f, "</testsuite>\n</testsuites>\n");
	if (fclose(f) != 0)
		fatal("%s", junit);
}

/* Stage 6: the benchmarks, base against the patch. */
static int
smoke_bench(struct smoke *s)
{
	char		*base = top_path("build/k/base/linux");
	const char	*kern[2] = { base, s->kernel }, *label[2] = { "base", s->variant };
	struct bres	 r;
	int		 rc;

	rc = bench_run(kern, label, NULL, s->bench, s->boots, s->jobs, &r);
	if (rc == 0) {
		stage("bench", "ok: %s, %d boots per kernel", s->bench, s->boots);
		bench_table(&r, stdout);
		if (s->json != NULL && bench_json_write(&r, s->json) < 0)
			fatalx("cannot write %s", s->json);
		if (s->plot != NULL) {
			char err[512];

			if (bench_plot(&r, s->plot, err, sizeof err) < 0)
				fatalx("%s", err);
		}
	} else if (rc < 128) {
		stage("bench", "FAIL: a benchmark boot failed (status %d)", rc);
		rc = SMOKE_FAIL_CHECK;
	}
	bench_free(&r);
	free(base);
	return rc;
}

/* Stage 1: the inputs as one patch list, written as the variant. */
static int
smoke_input(struct smoke *s, int n, char **inputs)
{
	struct pset	 ps;
	char		 err[1024], hex[65], *dir;
	const char	*git = s->git ? s->git : getenv("KSRC");
	struct stat	 sb;
	int		 i, j, nfiles = 0;

	pset_init(&ps);
	for (i = 0; i < n; i++) {
		int	is_range = strstr(inputs[i], "..") != NULL &&
		    stat(inputs[i], &sb) < 0;
		int	rc;

		if (is_range && git == NULL) {
			stage("input", "FAIL: %s: not a file; a commit range needs "
			    "--git DIR or KSRC", inputs[i]);
			pset_free(&ps);
			return SMOKE_FAIL_INPUT;
		}
		rc = is_range ? patchin_git(git, inputs[i], &ps, err, sizeof err) :
		    patchin_path(inputs[i], &ps, err, sizeof err);
		if (rc < 0) {
			stage("input", "FAIL: %s", err);
			pset_free(&ps);
			return SMOKE_FAIL_INPUT;
		}
	}
	for (i = 0; i < ps.n; i++)
		nfiles += ps.v[i].nfiles;
	pset_hash(&ps, hex);
	hex[12] = '\0';
	s->variant = xasprintf("smoke-%s%s", hex, s->debug ? "-debug" : "");
	s->dir = xasprintf("%s/build/smoke/%s%s", top_dir(), hex,
	    s->debug ? "-debug" : "");
	dir = top_path("build/smoke");
	mkdir(dir, 0755);
	free(dir);
	if (pset_write(&ps, s->dir, s->debug ? debug_config : NULL, err,
	    sizeof err) < 0)
		fatalx("%s", err);
	if (s->coverage)
		smoke_cov_prepare(s, &ps, hex);
	stage("input", "ok: %d patch%s, %d file%s, variant %s", ps.n,
	    ps.n == 1 ? "" : "es", nfiles, nfiles == 1 ? "" : "s", s->variant);
	for (i = 0; i < ps.n; i++) {
		printf("    %04d.patch  %s%s%s:", i + 1, ps.v[i].origin,
		    ps.v[i].subject ? "  " : "", ps.v[i].subject ? ps.v[i].subject : "");
		for (j = 0; j < ps.v[i].nfiles; j++)
			printf(" %s", ps.v[i].files[j]);
		printf("\n");
	}
	pset_free(&ps);
	return 0;
}

struct progress {
	char		*log;		/* the shared tree's build.log */
	long		 expect;	/* objects the last build compiled */
	long long	 t0;
	const char	*apply_stage;	/* said once the build starts, or NULL */
	int		 applied;
	struct timespec	 start;		/* CLOCK_REALTIME, as file times are */
};

/* Count the objects a build log shows compiled. */
static long
count_cc(const char *path)
{
	char	*t = read_text(path), *p;
	long	 n = 0;

	for (p = t; p != NULL && (p = strstr(p, "\n  CC ")) != NULL; p++)
		n++;
	free(t);
	return n;
}

/*
 * The apply stage's line once make starts (kbuild.sh truncates the
 * tree's build.log then: the tree and its config are ready); on a
 * terminal, one updating line with the objects compiled so far.
 */
static void
build_tick(void *arg)
{
	struct progress	*pr = arg;
	struct stat	 sb;
	long		 n;

	if (!pr->applied && stat(pr->log, &sb) == 0 &&
	    (sb.st_mtim.tv_sec > pr->start.tv_sec ||
	    (sb.st_mtim.tv_sec == pr->start.tv_sec &&
	    sb.st_mtim.tv_nsec >= pr->start.tv_nsec))) {
		pr->applied = 1;
		if (pr->apply_stage != NULL) {
			if (isatty(2))
				fprintf(stderr, "\r%100s\r", "");
			stage(pr->apply_stage, "ok");
		}
	}
	if (!isatty(2))
		return;
	n = count_cc(pr->log);
	if (pr->expect > 0)
		fprintf(stderr, "\rsmoke: build  %ld of ~%ld objects (as many as the "
		    "last build of this tree), %llds  ", n, pr->expect,
		    (now_ms() - pr->t0) / 1000);
	else
		fprintf(stderr, "\rsmoke: build  %ld objects, %llds  ", n,
		    (now_ms() - pr->t0) / 1000);
}

/* Stage 2: apply and build (uml/kernel/kbuild.sh); the evidence on failure. */
int
smoke_kbuild(struct smoke *s, const char *variant, const char *dir,
    const char *tree, const char *apply_stage, const char *build_stage,
    char **kernel)
{
	char		*sh = top_path("uml/kernel/kbuild.sh"), *log, *out, *blog;
	char		*argv[] = { sh, (char *)variant, NULL };
	long long	 t0 = now_ms();
	int		 rc, n;

	struct progress	 pr;
	char		*cnt;	/* kbuild.sh writes it after a build */

	pr.log = xasprintf("%s/build/k/%s/build.log", top_dir(), tree);
	cnt = xasprintf("%s/build/k/%s/.umkit-objects", top_dir(), tree);
	out = read_text(cnt);
	pr.expect = out ? atol(out) : 0;
	free(out);
	pr.t0 = t0;
	pr.apply_stage = apply_stage;
	pr.applied = 0;
	clock_gettime(CLOCK_REALTIME, &pr.start);
	log = xasprintf("%s/kbuild.log", dir);
	rc = run_to_tick(argv, log, 1, build_tick, &pr, NULL);
	if (isatty(2))
		fprintf(stderr, "\r%100s\r", "");
	free(cnt);
	free(pr.log);
	out = read_text(log);
	if (rc == 0) {
		*kernel = xasprintf("%s/linux", dir);
		if (apply_stage != NULL && !pr.applied)
			stage(apply_stage, "ok");
		stage(build_stage, "ok (%.1f s)", (now_ms() - t0) / 1000.0);
	} else if (rc == 2) {
		stage(apply_stage ? apply_stage : build_stage,
		    "FAIL: a patch does not apply (nothing was changed)");
		printf("%s", out ? out : "");
		rc = SMOKE_FAIL_APPLY;
	} else if (rc == 4) {
		if (apply_stage != NULL && !pr.applied)
			stage(apply_stage, "ok");
		stage(build_stage, "FAIL: the kernel does not build (%.1f s); the "
		    "compiler said:", (now_ms() - t0) / 1000.0);
		blog = read_text(strstr(out ? out : "", "full log: ") ?
		    strstr(out, "full log: ") + 10 : "");
		/* The compiler's file:line lines, else the log's tail. */
		if (blog != NULL) {
			n = 0;
			for (char *l = blog, *nl; l != NULL && *l; l = nl ? nl + 1 : NULL) {
				nl = strchr(l, '\n');
				if (nl)
					*nl = '\0';
				if (strstr(l, ": error:") || strstr(l, ": warning:") ||
				    strstr(l, ": note:") || strstr(l, "Error ")) {
					if (n++ < 20)
						printf("    %s\n", l);
				}
			}
			if (n == 0)
				printf("%s", out);
		} else {
			printf("%s", out ? out : "");
		}
		free(blog);
		rc = SMOKE_FAIL_BUILD;
	} else if (rc >= 128) {
		stage(build_stage, "interrupted");
	} else {
		stage(build_stage, "FAIL: status %d", rc);
		printf("%s", out ? out : "");
		rc = rc == 3 ? SMOKE_FAIL_BUILD : EXIT_KIT;
	}
	free(out);
	free(log);
	free(sh);
	return rc;
}

/* The marker before the guest's dmesg at the end of a run's log. */
#define DMESG_MARK	"@@umkit-smoke-dmesg@@"

/*
 * Boot kernel, run cmd (the console and cmd's output into logfile).  The
 * guest boots quiet, so warnings never reach the console: the kernel log
 * (dmesg) is appended after cmd and scanned, with the console; cmd's own
 * output is not scanned.
 * The run is stopped when logfile passes limit bytes (*flood: 2; 1 when
 * it ended past SMOKE_FLOOD_BYTES).
 * Returns exec's status; *nrep gets the kernel reports on the console.
 */
int
boot_run(struct smoke *s, const char *kernel, const char *cmd,
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
	    DMESG_MARK);
	argv[k++] = wrap;
	argv[k] = NULL;
	rc = run_watched(argv, logfile, limit, flood);
	free(argv[0]);
	free(wrap);
	if (*flood == 0 && stat(logfile, &sb) == 0 && sb.st_size > SMOKE_FLOOD_BYTES)
		*flood = 1;
	text = read_text(logfile);
	/* After the marker: the kernel log; without it (panic, hang): all. */
	d = text ? strstr(text, DMESG_MARK "\n") : NULL;
	*nrep = text ? reports(d ? d : text, print, 12) : 0;
	free(text);
	return rc;
}

/* Stage 3: boot the patched kernel and scan its console. */
static int
smoke_boot(struct smoke *s)
{
	char		*log = xasprintf("%s/boot.log", s->dir), *text;
	long long	 t0 = now_ms();
	int		 rc, nrep, flood;

	rc = boot_run(s, s->kernel, "true", log, SMOKE_FLOOD_BYTES, &nrep, 0, &flood);
	text = read_text(log);
	if (rc == 0 && nrep == 0 && !flood) {
		stage("boot", "ok (%.1f s, no kernel reports; console %s)",
		    (now_ms() - t0) / 1000.0, log);
		rc = 0;
	} else {
		if (flood && rc != EXIT_PANIC)
			stage("boot", "FAIL: console flood (more than %d KiB%s)",
			    SMOKE_FLOOD_BYTES >> 10, flood == 2 ? "; the boot was stopped" : "");
		else if (rc == EXIT_PANIC)
			stage("boot", "FAIL: the kernel panicked at boot");
		else if (rc == EXIT_TIMEOUT)
			stage("boot", "FAIL: hang: no shell within %d s", s->timeout_s);
		else if (rc == EXIT_KIT && text != NULL &&
		    strstr(text, "guest link failed") != NULL)
			stage("boot", "FAIL: hang: the guest never answered within "
			    "%d s of boot (its link timed out)", BOOT_TIMEOUT_MS / 1000);
		else if (nrep > 0)
			stage("boot", "FAIL: %d kernel report line%s at boot", nrep,
			    nrep == 1 ? "" : "s");
		else
			stage("boot", "FAIL: the guest did not come up (status %d)", rc);
		/* Interrupted (not by the flood watch): pass the status on. */
		if (flood != 2 && rc >= 128 && rc != EXIT_PANIC && rc != EXIT_TIMEOUT &&
		    rc != EXIT_KIT) {
			free(log);
			free(text);
			return rc;
		}
		if (text != NULL) {
			const char **m, *d = strstr(text, DMESG_MARK "\n");

			d = d ? d : text;
			reports(d, 1, 12);
			for (m = report_marks; *m != NULL; m++)
				if (strstr(d, *m) != NULL)
					break;
			if (*m != NULL)
				print_after(d, *m, 12);
			if (flood) {
				/* The console's last line before the kernel log: what floods. */
				const char *e = strstr(text, DMESG_MARK "\n"), *b;

				e = e ? e : text + strlen(text);
				while (e > text && e[-1] == '\n')
					e--;
				for (b = e; b > text && b[-1] != '\n'; b--)
					;
				printf("    the console's last line: %.*s\n", (int)(e - b > 200 ?
				    200 : e - b), b);
			}
		}
		printf("    (console: %s)\n", log);
		rc = SMOKE_FAIL_BOOT;
	}
	free(text);
	free(log);
	return rc;
}

/* Run the labs' batch checks (KTAP into log), base steps on kernel. */
int
run_labs(struct smoke *s, const char *kernel, const char *log)
{
	char	*argv[] = { self(), "lab", (char *)s->labs, "--batch", NULL };
	int	 rc;

	setenv("UMKIT_SMOKE_KERNEL", kernel, 1);
	rc = run_to(argv, log, 1);
	unsetenv("UMKIT_SMOKE_KERNEL");
	free(argv[0]);
	return rc;
}

/* Stage 4: the labs' batch checks, base steps on the patched kernel. */
static int
smoke_labs(struct smoke *s)
{
	char	*log = xasprintf("%s/labs.ktap", s->dir), *text, *l, *nl;
	int	 rc, pass = 0, fail = 0, skip = 0;

	rc = run_labs(s, s->kernel, log);
	text = read_text(log);
	for (l = text; l != NULL && *l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		while (*l == ' ')
			l++;
		if (strncmp(l, "not ok ", 7) == 0) {
			fail++;
			printf("    %s\n", l);
		} else if (strncmp(l, "ok ", 3) == 0) {
			if (strstr(l, "# SKIP") || strstr(l, "# skip"))
				skip++;
			else
				pass++;
		}
	}
	free(text);
	if (rc >= 128) {
		free(log);
		return rc;
	}
	if (rc == 0 && fail == 0)
		stage("labs", "ok: %d checks passed, %d skipped (steps on other "
		    "variants); KTAP in %s", pass, skip, log);
	else
		stage("labs", "FAIL: %d of %d checks failed (status %d); KTAP in %s",
		    fail, pass + fail, rc, log);
	free(log);
	return rc == 0 && fail == 0 ? 0 : SMOKE_FAIL_CHECK;
}

/* Stage 5: each --run on base and on the patch. */
static int
smoke_runs(struct smoke *s)
{
	char	*base = top_path("build/k/base/linux"), *log;
	int	 i, k, st[2], nrep[2], flood, bad = 0;
	const char *kern[2] = { base, s->kernel }, *side[2] = { "base", "patched" };

	if (access(base, X_OK) < 0) {
		char *sh = top_path("uml/kernel/kbuild.sh"), *argv[] = { sh, "base", NULL };

		if (run_to(argv, NULL, 0) != 0)
			fatalx("building the base kernel failed");
		free(sh);
	}
	for (i = 0; i < s->nruns; i++) {
		for (k = 0; k < 2; k++) {
			log = xasprintf("%s/run%d-%s.log", s->dir, i + 1, side[k]);
			st[k] = boot_run(s, kern[k], s->runs[i], log, SMOKE_RUN_LOG_MAX,
			    &nrep[k], 0, &flood);
			free(log);
			if (st[k] >= 128 && st[k] != EXIT_PANIC) {
				free(base);
				return st[k];
			}
		}
		k = st[1] != 0 || nrep[1] > 0;
		stage("run", "%s: '%s': base status %d, %d report%s; patched status "
		    "%d, %d report%s%s", k ? "FAIL" : "ok", s->runs[i], st[0], nrep[0],
		    nrep[0] == 1 ? "" : "s", st[1], nrep[1], nrep[1] == 1 ? "" : "s",
		    st[0] != st[1] ? " (differs from base)" : "");
		if (k) {
			log = xasprintf("%s/run%d-patched.log", s->dir, i + 1);
			printf("    (output and console: %s)\n", log);
			free(log);
		}
		bad |= k;
	}
	free(base);
	return bad ? SMOKE_FAIL_CHECK : 0;
}

/* umkit smoke [options] INPUT... */
static int
smoke_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "add", required_argument, NULL, 'a' },
		{ "run", required_argument, NULL, 'r' },
		{ "labs", required_argument, NULL, 'L' },
		{ "git", required_argument, NULL, 'g' },
		{ "debug", no_argument, NULL, 'D' },
		{ "hash", no_argument, NULL, 'H' },
		{ "timeout", required_argument, NULL, 't' },
		{ "bench", required_argument, NULL, 'B' },
		{ "json", required_argument, NULL, 'J' },
		{ "junit", required_argument, NULL, 'U' },
		{ "ktap", no_argument, NULL, 'K' },
		{ "plot", required_argument, NULL, 'P' },
		{ "coverage", no_argument, NULL, 'C' },
		{ "require-coverage", no_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 }
	};
	struct smoke	 s = { .labs = "all", .timeout_s = 60, .bench = "all", .jobs = 1,
			    .boots = 5 };
	char		 err[512];
	long long	 t0 = now_ms();
	int		 c, rc, fails = 0;
	char		*end;

	stage_t0 = now_ms();
	while ((c = getopt_long(argc, argv, "+t:n:j:", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			s.jobs = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || s.jobs < 1 ||
			    s.jobs > BENCH_MAX_JOBS)
				fatalx("-j %s: want 1 to %d boots at a time", optarg,
				    BENCH_MAX_JOBS);
			break;
		case 'n':
			s.boots = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || s.boots < 2 ||
			    s.boots > BENCH_MAX_BOOTS)
				fatalx("-n %s: want 2 to %d boots", optarg, BENCH_MAX_BOOTS);
			break;
		case 'B':
			s.bench = optarg;
			if (strcmp(optarg, "none") != 0 && bench_check(optarg, err, sizeof err) < 0)
				fatalx("--bench %s: %s", optarg, err);
			break;
		case 'J':
			s.json = optarg;
			break;
		case 'U':
			s.junit = optarg;
			break;
		case 'K':
			s.ktap = 1;
			break;
		case 'P':
			s.plot = optarg;
			break;
		case 'a':
			if (s.nadds == SMOKE_MAX_RUNS)
				fatalx("--add: at most %d", SMOKE_MAX_RUNS);
			s.adds[s.nadds++] = optarg;
			break;
		case 'r':
			if (s.nruns == SMOKE_MAX_RUNS)
				fatalx("--run: at most %d", SMOKE_MAX_RUNS);
			s.runs[s.nruns++] = optarg;
			break;
		case 'L':
			s.labs = optarg;
			break;
		case 'g':
			s.git = optarg;
			break;
		case 'D':
			s.debug = 1;
			break;
		case 'C':
			if (s.coverage == 0)
				s.coverage = 1;
			break;
		case 'R':
			s.coverage = 2;
			break;
		case 'H':
			s.hash_only = 1;
			break;
		case 't':
			s.timeout_s = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || s.timeout_s < 5)
				fatalx("--timeout %s: want whole seconds, at least 5", optarg);
			break;
		default:
			return cmd_usage(&cmd_smoke);
		}
	}
	if (optind >= argc)
		return cmd_usage(&cmd_smoke);
	if ((rc = smoke_input(&s, argc - optind, argv + optind)) != 0)
		return rc;
	if (s.hash_only)
		return 0;
	if ((rc = smoke_kbuild(&s, s.variant, s.dir, s.debug ? "smoke-tree-debug" :
	    "smoke-tree", "apply", "build", &s.kernel)) != 0)
		goto done;
	if ((rc = smoke_boot(&s)) != 0)
		goto done;
	if (strcmp(s.labs, "none") != 0) {
		rc = smoke_labs(&s);
		if (rc >= 128)
			goto done;
		fails |= rc;
	}
	if (s.nruns > 0) {
		rc = smoke_runs(&s);
		if (rc >= 128)
			goto done;
		fails |= rc;
	}
	if (strcmp(s.bench, "none") != 0) {
		rc = smoke_bench(&s);
		if (rc >= 128)
			goto done;
		fails |= rc;
	}
	rc = fails ? SMOKE_FAIL_CHECK : 0;
	if (s.coverage) {
		int	crc = smoke_cov(&s);

		if (crc >= 128 || crc == EXIT_KIT) {
			rc = crc;
			goto done;
		}
		if (rc == 0)
			rc = crc;
	}
done:
	reports_write(&s, s.ktap, s.junit);
	if (rc >= 128 && rc != EXIT_PANIC)
		printf("smoke: INTERRUPTED after %.1f s\n", (now_ms() - t0) / 1000.0);
	else
		printf("smoke: %s %s (%.1f s)\n", rc == 0 ? "PASS" : "FAIL",
		    s.variant, (now_ms() - t0) / 1000.0);
	free(s.dir);
	free(s.variant);
	free(s.kernel);
	free(s.cov_dir);
	for (c = 0; c < s.npatches; c++)
		free(s.cov_prop[c]);
	return rc;
}

const struct cmd cmd_smoke = {
	.name = "smoke",
	.usage = "smoke [--debug] [--coverage|--require-coverage] [--labs all|none|LAB] [--add HOSTPATH[:GUESTPATH]]... [--run CMD]... [--bench NAMES|none] [-n N] [-j J] [--json FILE] [--junit FILE] [--ktap] [--plot DIR] [--git DIR] [-t SECONDS] [--hash] INPUT...",
	.help =
"Smoke-test a kernel patch against the base kernel: does it apply, build,\n"
"boot without a kernel report, pass the labs' checks and your reproducers?\n"
"\n"
"INPUT is a patch file; a quilt directory (with series); a directory of\n"
"git format-patch files; an mbox, a whole mailing-list thread too ([PATCH\n"
"n/m] in order; the cover letter and replies skipped; a missing part is\n"
"refused); '-' for standard input; or a commit range A..B of the git tree\n"
"--git DIR (default $KSRC).  The patches become the variant smoke-HASH,\n"
"named by a hash of their diffs (build/smoke/HASH): the same change in\n"
"any form is the same variant, and its build is reused.  A path that\n"
"leaves the tree (.., absolute) is refused before anything is applied.\n"
"\n"
"Stages, each named in the output: input, apply, build, boot (the\n"
"console is scanned for BUG, WARNING, oops, panic, lockdep, KASAN and\n"
"UBSAN reports), labs (every lab's batch checks; steps on the base kernel\n"
"run on the patched one, steps that need another variant are skipped,\n"
"since the patch is against base), run (each --run CMD on base and on the\n"
"patch, with the --add files; the patched status must be 0 and no report),\n"
"bench (base against the patch, as 'umkit compare' does: N interleaved\n"
"boots each, mean, stddev, % change and Welch's t-test per metric).\n"
"\n"
"  --debug       build with DEBUG_VM, PROVE_LOCKING (lockdep) and KASAN\n"
"                (variant smoke-HASH-debug, its own shared tree)\n"
"  --coverage    after the verdict, a pass that tells which of the\n"
"                patch's added lines ran: the kernel built again with gcov\n"
"                for the .c files the patch changes (smoke-HASH-cov), the\n"
"                same boot, labs, --run commands and benchmarks (against\n"
"                the plain patched kernel: gcov's cost) run on it, and\n"
"                each hunk reported as run (with its counts) or not\n"
"                exercised; a warning only\n"
"  --require-coverage  the same, and a hunk never run fails (status 7)\n"
"  --labs L      'all' (default), 'none', or a lab (as 'umkit lab' takes it)\n"
"  --add H[:G]   files for the guests, as in 'umkit exec' (repeatable)\n"
"  --run CMD     a reproducer, run by sh -c in a fresh guest (repeatable)\n"
"  --git DIR     the repository of commit ranges (default $KSRC)\n"
"  -t SECONDS    per boot: a hang or console flood fails then (default 60)\n"
"  --hash        print the variant the input makes, and stop\n"
"  --bench NAMES benchmarks, a comma list (default all: procbench,\n"
"                kvbench, readtwice, aging, compaction; or none)\n"
"  -n N          boots per kernel for them (default 5)\n"
"  -j J          J benchmark boots at a time (default 1: serialised)\n"
"  --json FILE   every benchmark sample as JSON (see umkit compare)\n"
"  --ktap        the stages as KTAP at the end\n"
"  --junit FILE  the stages as a JUnit XML test suite\n"
"  --plot DIR    a PNG and an SVG chart per benchmark metric (gnuplot)\n"
"\n"
"Exit status: 0 passed; 2 the input was refused; 3 a patch does not\n"
"apply; 4 the kernel does not build; 5 boot: panic, hang, flood or a\n"
"kernel report; 6 a lab check or a reproducer failed; 7 a hunk never ran\n"
"(--require-coverage); 125 umkit's own\n"
"error; 130/143 interrupted (nothing is left behind).\n"
"\n"
"Examples:\n"
"  umkit smoke fix.patch\n"
"  umkit smoke --labs none --run 'procbench --case fork' thread.mbox\n"
"  git format-patch -3 --stdout | umkit smoke -\n"
"  umkit smoke --git ~/linux v7.2..my-branch",
	.max_args = CMD_ARGS_ANY,
	.exec = smoke_main,
};
