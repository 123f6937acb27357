/*
 * cmd-lab.c - 'umkit lab': list, check, run (interactively or in batch)
 * and report labs.
 *
 * Labs are labs/NN-name.lab (docs/labs.md).  A run boots its own named
 * guest, tied to this process, so nothing outlives it.  Results go to
 * the per-user state directory ($XDG_STATE_HOME/umkit, default
 * ~/.local/state/umkit): results/LAB-TIME.json for every run, and
 * progress/LAB.json for the interactive runner's resume.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "guest/ctl.h"
#include "lab/lab-ex.h"
#include "lab/lab-out.h"
#include "lab/lab-run.h"
#include "lab/lab-ui.h"
#include "guest/rundir.h"
#include "umkit.h"
#include "util.h"

/* Exit status of a lab run (also documented in the help). */
#define LAB_EXIT_FAILED	1	/* a check failed */
#define LAB_EXIT_FILE	2	/* a lab file error, a bad option */

struct labopts {
	bool		 batch, exam, reset, verbose, hints;
	double		 slow;
	const char	*junit, *json, *record;
	const char	*exercise;	/* --exercise DIR */
	struct ex_build	 ex;		/* what the exercise gives the guests */
};

static volatile sig_atomic_t	lab_stop;
static char			lab_guest[40];

/* The labs directory. */
static char *
labs_dir(void)
{
	const char	*e = getenv("UMKIT_LABS");

	return e != NULL ? xstrdup(e) : top_path("labs");
}

/* The per-user state directory, made on demand (private when installed). */
char *
lab_state_dir(const char *sub)
{
	char	*d = xasprintf("%s/%s", kit()->state, sub);

	if (mkdir_p(d, kit()->installed ? 0700 : 0755) < 0)
		fatal("cannot create %s", d);
	return d;
}

/* The validation context: variants from patches/. */
static struct lab_env
lab_env(void)
{
	static char		*pd;
	static struct lab_env	 e;
	char			 err[512], *kp;

	if (pd == NULL) {
		pd = getenv("UMKIT_PATCHES") ? xstrdup(getenv("UMKIT_PATCHES")) :
		    top_path("patches");
		e.patches_dir = pd;
		if (getenv("UMKIT_PATCHES") == NULL)
			e.own_patches_dir = kit()->own_patches;
		kp = getenv("UMKIT_KERNEL_KEYS") ? xstrdup(getenv("UMKIT_KERNEL_KEYS")) :
		    top_path("labs/kernel-keys");
		if (lab_keys_load(kp, &e, err, sizeof err) < 0)
			fatalx("%s", err);
		free(kp);
	}
	return e;
}

/* The .lab files of the labs directory, sorted. */
static int
lab_files(char ***out)
{
	struct dirent	**nl;
	char		 *dir = labs_dir(), **v = NULL;
	int		  n, i, k = 0;
	size_t		  l;

	if ((n = scandir(dir, &nl, NULL, alphasort)) < 0)
		fatal("%s", dir);
	for (i = 0; i < n; i++) {
		l = strlen(nl[i]->d_name);
		if (nl[i]->d_name[0] != '.' && l > 4 &&
		    strcmp(nl[i]->d_name + l - 4, ".lab") == 0) {
			v = xrealloc(v, (k + 1) * sizeof *v);
			v[k++] = xasprintf("%s/%s", dir, nl[i]->d_name);
		}
		free(nl[i]);
	}
	free(nl);
	free(dir);
	*out = v;
	return k;
}

/* A lab by number (2, 02), name (02-mglru, mglru) or path. */
static char *
lab_resolve(const char *arg)
{
	char	**f, *found = NULL, *base;
	int	  n, i, hits = 0;
	size_t	  al = strlen(arg);
	long	  num = -1;
	char	 *end;

	if (strchr(arg, '/') != NULL || (al > 4 && strcmp(arg + al - 4, ".lab") == 0)) {
		if (access(arg, R_OK) < 0)
			fatal("%s", arg);
		return xstrdup(arg);
	}
	num = strtol(arg, &end, 10);
	if (*end != '\0')
		num = -1;
	n = lab_files(&f);
	for (i = 0; i < n; i++) {
		base = strrchr(f[i], '/') + 1;
		if ((num >= 0 && strtol(base, NULL, 10) == num && base[0] >= '0' &&
		    base[0] <= '9') ||
		    strncmp(base, arg, al) == 0 ||
		    (strchr(base, '-') && strncmp(strchr(base, '-') + 1, arg, al) == 0)) {
			if (found == NULL)
				found = xstrdup(f[i]);
			hits++;
		}
	}
	for (i = 0; i < n; i++)
		free(f[i]);
	free(f);
	if (hits == 0)
		fatalx("no lab '%s' (see 'umkit lab --list')", arg);
	if (hits > 1)
		fatalx("'%s' names more than one lab (see 'umkit lab --list')", arg);
	return found;
}

/* Load a lab or print its errors; NULL on error. */
static struct lab *
lab_open(const char *path)
{
	struct lab_env	 env = lab_env();
	char		*errs;
	struct lab	*l = lab_load(path, &env, &errs);

	if (l == NULL) {
		fputs(errs, stderr);
		free(errs);
	}
	return l;
}

/* umkit lab --list */
static int
lab_list(void)
{
	char		**f;
	struct lab	 *l;
	int		  n, i, j, rc = 0, checks, pts;
	char		  vars[128];

	n = lab_files(&f);
	printf("%-18s %4s  %-12s %-22s %s\n", "LAB", "MIN", "LEVEL", "VARIANTS", "TITLE");
	for (i = 0; i < n; i++) {
		if ((l = lab_open(f[i])) == NULL) {
			rc = LAB_EXIT_FILE;
			continue;
		}
		vars[0] = '\0';
		for (j = 0; j < l->nvariants; j++)
			snprintf(vars + strlen(vars), sizeof vars - strlen(vars), "%s%s",
			    j ? "," : "", l->variants[j]);
		pts = lab_points(l, &checks);
		printf("%-18s %4d  %-12s %-22s %s (%d steps, %d checks, %d points)\n",
		    l->name, l->minutes, l->level ? l->level : "-", vars, l->title,
		    l->nsteps, checks, pts);
		lab_free(l);
		free(f[i]);
	}
	free(f);
	return rc;
}

/* umkit lab --check FILE...: validate without booting. */
static int
lab_check(int argc, char **argv)
{
	struct lab	*l;
	int		 i, rc = 0, checks;

	for (i = 0; i < argc; i++) {
		char	*p = lab_resolve(argv[i]);

		if ((l = lab_open(p)) == NULL) {
			rc = LAB_EXIT_FILE;
		} else {
			lab_points(l, &checks);
			printf("%s: ok (%d steps, %d checks)\n", p, l->nsteps, checks);
			lab_free(l);
		}
		free(p);
	}
	return rc;
}

/* ---- batch ------------------------------------------------------------- */

struct batch {
	struct lab_book	 book;
	struct labopts	*o;
	FILE		*out;
};

/* Step header as a KTAP diagnostic. */
static void
b_step(struct lab_sess *s, int i)
{
	struct batch	*b = s->arg;

	fprintf(b->out, "%s# step %s: %s\n", b->book.indent, s->lab->steps[i].id,
	    s->lab->steps[i].title);
	fflush(b->out);
}

/* A result: into the book and out as KTAP. */
static void
b_result(struct lab_sess *s, const struct lres *r)
{
	struct batch	*b = s->arg;

	book_put(&b->book, r);
	ktap_result(b->out, &b->book, r, b->o->hints);
}

/* Log lines are KTAP diagnostics. */
static void
b_log(struct lab_sess *s, const char *fmt, ...)
{
	struct batch	*b = s->arg;
	va_list		 ap;
	char		*m;

	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);
	va_end(ap);
	fprintf(b->out, "%s#   %s\n", b->book.indent, m);
	fflush(b->out);
	free(m);
}

/* Command output: with -v only. */
static void
b_output(struct lab_sess *s, const char *out, const char *err)
{
	struct batch	*b = s->arg;
	const char	*bufs[2] = { out, err }, *p, *nl;
	int		 i;

	if (!b->o->verbose)
		return;
	for (i = 0; i < 2; i++)
		for (p = bufs[i]; p != NULL && *p != '\0'; p = nl ? nl + 1 : NULL) {
			nl = strchr(p, '\n');
			fprintf(b->out, "%s#     %.*s\n", b->book.indent,
			    nl ? (int)(nl - p) : (int)strlen(p), p);
		}
}

/* A step failure without a check to carry it. */
static void
b_error(struct lab_sess *s, const char *why)
{
	struct batch	*b = s->arg;

	b->book.nerrors++;
	fprintf(b->out, "%s# error: step %s: %s\n", b->book.indent,
	    s->lab->steps[s->cur].id, why);
	fflush(b->out);
}

/* Signals: stop the lab's guest and tell the runner. */
static void *
sig_main(void *arg)
{
	sigset_t	*set = arg;
	int		 sig;

	if (sigwait(set, &sig) == 0) {
		lab_stop = sig;
		if (lab_guest[0] != '\0' && run_alive(lab_guest)) {
			const char	*f[] = { "stop", NULL };
			char		*r = ctl_call(lab_guest, f, NULL, 0, NULL);

			free(r);
		}
	}
	return NULL;
}

/* Block the stop signals; a thread waits for them. */
static void
lab_signals(void)
{
	static sigset_t	set;
	pthread_t	th;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pthread_create(&th, NULL, sig_main, &set) != 0)
		fatalx("cannot start a thread");
	pthread_detach(th);
}

/* Where this run's JSON result goes. */
static char *
result_path(const struct lab *l)
{
	char		*d = lab_state_dir("results"), *p, ts[32];
	time_t		 t = time(NULL);
	struct tm	 tm;

	localtime_r(&t, &tm);
	strftime(ts, sizeof ts, "%Y%m%d-%H%M%S", &tm);
	p = xasprintf("%s/%s-%s-%d.json", d, l->name, ts, (int)getpid());
	free(d);
	return p;
}

/* Remove saved progress and results of lab (--reset). */
static void
lab_reset(const struct lab *l)
{
	struct dirent	**nl;
	char		 *d, *p;
	int		  n, i;
	size_t		  ln = strlen(l->name);

	d = lab_state_dir("progress");
	p = xasprintf("%s/%s.json", d, l->name);
	unlink(p);
	free(p);
	free(d);
	d = lab_state_dir("results");
	if ((n = scandir(d, &nl, NULL, alphasort)) > 0) {
		for (i = 0; i < n; i++) {
			if (strncmp(nl[i]->d_name, l->name, ln) == 0 &&
			    nl[i]->d_name[ln] == '-') {
				p = xasprintf("%s/%s", d, nl[i]->d_name);
				unlink(p);
				free(p);
			}
			free(nl[i]);
		}
		free(nl);
	}
	free(d);
}

/*
 * Build the lab's exercise: the solution, or with --exercise DIR the
 * student's file (its skeleton first, when it is not there: 1).  0 ready,
 * 1 nothing to run yet, 2 an error (said).
 */
static int
lab_exercise(const struct lab *l, struct labopts *o)
{
	char	*out = lab_state_dir("exercise");
	int	 r;

	free(o->ex.add);
	free(o->ex.variant);
	free(o->ex.kernel);
	r = ex_prepare(l, o->exercise, out, &o->ex);
	free(out);
	return r;
}

/* Run one lab unattended; fills b.  Returns the exit status. */
static int
batch_one(struct lab *l, struct labopts *o, struct batch *b, const char *indent)
{
	struct lab_sess		*s;
	struct lab_score	 sc;
	char			*res;
	int			 i;

	if ((i = lab_exercise(l, o)) != 0)
		return i == 1 ? 0 : LAB_EXIT_FILE;
	snprintf(lab_guest, sizeof lab_guest, "lab%.8s-%d", l->name, (int)getpid());
	book_init(&b->book, l, o->exam ? "exam" : "batch");
	b->book.indent = indent;
	b->o = o;
	ktap_begin(b->out, &b->book);
	s = lab_sess_new(l, lab_guest, o->slow);
	s->ex = &o->ex;
	s->stop = &lab_stop;
	s->on_step = b_step;
	s->on_result = b_result;
	s->log_line = b_log;
	s->log_output = b_output;
	s->on_error = b_error;
	s->arg = b;
	for (i = 0; i < l->nsteps && !lab_stop; i++)
		lab_step_run(s, i);
	if (s->variant != NULL)
		snprintf(b->book.variant, sizeof b->book.variant, "%s", s->variant);
	lab_sess_free(s);	/* stops the guest */
	lab_guest[0] = '\0';
	b->book.end_s = (now_ms() - b->book.start_ms) / 1000.0;
	ktap_end(b->out, &b->book);
	res = result_path(l);
	if (book_write_json(&b->book, NULL, res) < 0)
		warnmsg("%s: cannot write the result file", res);
	if (o->json != NULL && book_write_json(&b->book, NULL, o->json) < 0)
		warnmsg("%s: cannot write: %s", o->json, strerror(errno));
	free(res);
	book_score(&b->book, &sc);
	if (lab_stop)
		return 128 + lab_stop;
	return sc.failed > 0 || sc.notrun > 0 || b->book.nerrors > 0 ? LAB_EXIT_FAILED : 0;
}

/* umkit lab LAB|all --batch */
static int
lab_batch(char **paths, int n, struct labopts *o)
{
	struct batch	 *b = xcalloc(n, sizeof *b);
	struct lab_book	**books = xcalloc(n, sizeof *books);
	struct lab	**labs = xcalloc(n, sizeof *labs);
	int		  i, rc = 0, r, nb = 0;

	for (i = 0; i < n; i++)
		if ((labs[i] = lab_open(paths[i])) == NULL)
			rc = LAB_EXIT_FILE;
	if (rc != 0)
		goto out;
	lab_signals();
	if (n > 1)
		printf("KTAP version 1\n1..%d\n", n);
	for (i = 0; i < n && !lab_stop; i++) {
		b[i].out = stdout;
		if (o->reset)
			lab_reset(labs[i]);
		/* Several labs: each is a KTAP subtest. */
		r = batch_one(labs[i], o, &b[i], n > 1 ? "    " : "");
		books[nb++] = &b[i].book;
		if (n > 1)
			printf("%s %d %s\n", r == 0 ? "ok" : "not ok", i + 1, labs[i]->name);
		if (r > rc)
			rc = r;
	}
	if (o->junit != NULL && books_write_junit(books, nb, o->junit) < 0) {
		warnmsg("%s: %s", o->junit, strerror(errno));
		rc = EXIT_KIT;
	}
	for (i = 0; i < nb; i++)
		book_free(books[i]);
out:
	for (i = 0; i < n; i++)
		lab_free(labs[i]);
	free(labs);
	free(books);
	free(b);
	return rc;
}

/* umkit lab ... */
static int
lab_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "list", no_argument, NULL, 'l' },
		{ "check", no_argument, NULL, 'C' },
		{ "batch", no_argument, NULL, 'b' },
		{ "junit", required_argument, NULL, 'j' },
		{ "json", required_argument, NULL, 'J' },
		{ "slow", required_argument, NULL, 's' },
		{ "reset", no_argument, NULL, 'r' },
		{ "exam", no_argument, NULL, 'x' },
		{ "csv", required_argument, NULL, 'c' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "exercise", required_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 }
	};
	struct labopts	 o = { .slow = 1, .hints = true };
	const char	*csv = NULL;
	bool		 list = false, check = false;
	char		**paths, *end;
	int		 c, i, n, rc;

	while ((c = getopt_long(argc, argv, "bv", lo, NULL)) != -1) {
		switch (c) {
		case 'l': list = true; break;
		case 'C': check = true; break;
		case 'b': o.batch = true; break;
		case 'j': o.junit = optarg; break;
		case 'J': o.json = optarg; break;
		case 's':
			o.slow = strtod(optarg, &end);
			if (*end != '\0' || o.slow < 0.1 || o.slow > 100)
				fatalx("--slow %s: want a factor from 0.1 to 100", optarg);
			break;
		case 'r': o.reset = true; break;
		case 'x': o.exam = true; o.hints = false; break;
		case 'c': csv = optarg; break;
		case 'v': o.verbose = true; break;
		case 'e': o.exercise = optarg; break;
		default: return cmd_usage(&cmd_lab);
		}
	}
	argc -= optind;
	argv += optind;
	if (list)
		return argc == 0 ? lab_list() : cmd_usage(&cmd_lab);
	if (check)
		return argc > 0 ? lab_check(argc, argv) : cmd_usage(&cmd_lab);
	if (argc >= 1 && strcmp(argv[0], "report") == 0) {
		if (argc < 2)
			return cmd_usage(&cmd_lab);
		return lab_report(argv + 1, argc - 1, csv, stdout);
	}
	if (argc != 1)
		return cmd_usage(&cmd_lab);
	if (strcmp(argv[0], "all") == 0) {
		if (o.exercise != NULL)
			fatalx("--exercise DIR grades one lab: name it");
		if (!o.batch)
			fatalx("'all' runs every lab in batch mode: add --batch");
		n = lab_files(&paths);
		if (n == 0)
			fatalx("no labs in %s", "labs/");
	} else {
		n = 1;
		paths = xcalloc(1, sizeof *paths);
		paths[0] = lab_resolve(argv[0]);
	}
	if (o.batch)
		rc = lab_batch(paths, n, &o);
	else {
		struct lab *l = lab_open(paths[0]);

		if (l == NULL)
			rc = LAB_EXIT_FILE;
		else {
			if (o.reset)
				lab_reset(l);
			lab_signals();
			if ((rc = lab_exercise(l, &o)) != 0) {
				lab_free(l);
				rc = rc == 1 ? 0 : LAB_EXIT_FILE;
				goto out;
			}
			rc = lab_interactive(l, o.slow, o.exam, &o.ex, &lab_stop, lab_guest,
			    sizeof lab_guest, o.json, o.junit);
			lab_free(l);
		}
	}
out:
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	return rc;
}

const struct cmd cmd_lab = {
	.name = "lab",
	.usage = "lab [--list | --check LAB... | LAB|all [--batch] [options] | report RESULTS...]",
	.help =
"Step through a lab: the TUI with the lab pane on a guest booted for the\n"
"lab.  Each step shows its text, asks for a prediction, runs its commands\n"
"(Enter), and shows a check mark or a cross per check with a hint.  Keys in\n"
"the lab pane: Enter run (again), n next, b back, H hint, q quit.  Progress\n"
"is saved, so running the lab again resumes where you stopped.\n"
"\n"
"LAB is a number (2), a name (02-mglru or mglru) or a path to a .lab file.\n"
"\n"
"  --list          the labs with their time, level and kernel variants\n"
"  --check LAB...  validate lab files without booting (FILE:LINE errors)\n"
"  --batch         run unattended, print KTAP (one line per check); 'all'\n"
"                  runs every lab\n"
"  --junit FILE    also write JUnit XML      --json FILE  the JSON result\n"
"  --slow FACTOR   multiply every timeout (a slower machine)\n"
"  --reset         forget saved progress and old results of the lab first\n"
"  --exam          no hints; a prediction cannot be changed once given\n"
"  -v, --verbose   batch: show the commands' output\n"
"  --exercise DIR  the lab's exercise: the first time, its skeleton is\n"
"                  written to DIR; complete the TODO and run the same\n"
"                  command again to build and grade your work\n"
"  report [--csv DIR] RESULTS...  merge result files (JSON) of many runs\n"
"                  into one table per lab, and a CSV per lab in DIR\n"
"\n"
"Results: every run writes a JSON result file to\n"
"$XDG_STATE_HOME/umkit/results/ (default ~/.local/state/umkit).\n"
"Exit status: 0 every check passed (or skipped), 1 a check failed, 2 a lab\n"
"file or option error, 125 umkit's own error, 130/143 interrupted.\n"
"\n"
"Examples:\n"
"  umkit lab 1\n"
"  umkit lab --check labs/02-mglru.lab\n"
"  umkit lab all --batch --junit results.xml\n"
"  umkit lab report --csv grades ~/.local/state/umkit/results/*.json",
	.max_args = CMD_ARGS_ANY,
	.exec = lab_main,
};
