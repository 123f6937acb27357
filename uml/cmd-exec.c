/* cmd-exec.c - run one command in a fresh guest, or in a named one. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "guest/ctl.h"
#include "guest/gdb.h"
#include "cov/cov.h"
#include "guest/guest.h"
#include "guest/initrd.h"
#include "link/link.h"
#include "guest/oops.h"
#include "guest/preflight.h"
#include "guest/rundir.h"
#include "umkit.h"
#include "util.h"
#include "guest/watch.h"

/* exec --gdb: gdb on the one-shot guest, in a thread of its own. */
struct exec_gdb {
	pid_t			 pid;
	struct gdb_kernel	 k;
	char			*setup;
	const char		*batch;		/* --gdb-x FILE, or NULL */
	pthread_t		 thread;
	int			 status;
};

/* Run gdb on the stopped UML process until it quits. */
static void *
exec_gdb_main(void *arg)
{
	struct exec_gdb	*e = arg;

	e->status = gdb_run(e->pid, &e->k, e->setup, e->batch, NULL, 1);
	return NULL;
}

/* Start gdb on the guest that guest_boot left stopped before its exec. */
static struct exec_gdb *
exec_gdb_start(struct guest *g, const char *rundir, const char *batch)
{
	struct exec_gdb	*e = xcalloc(1, sizeof *e);

	e->pid = g->pid;
	e->batch = batch;
	if (gdb_kernel_find(g->kernel, &e->k) < 0)
		fatal("%s", g->kernel);
	e->setup = xasprintf("%s/gdb-setup.gdb", rundir);
	if (gdb_write_setup(e->setup, &e->k, 1) < 0)
		fatal("%s", e->setup);
	if (batch == NULL)
		fprintf(stderr, "umkit: gdb on the guest's kernel (%s), stopped "
		    "at its first instruction; 'continue' boots it\n", e->k.binary);
	if (pthread_create(&e->thread, NULL, exec_gdb_main, e) != 0)
		fatalx("cannot start the gdb thread");
	return e;
}

/* Wait for gdb to end; its status. */
static int
exec_gdb_end(struct exec_gdb *e)
{
	int	st;

	pthread_join(e->thread, NULL);
	st = e->status;
	unlink(e->setup);
	free(e->setup);
	gdb_kernel_free(&e->k);
	free(e);
	return st;
}

/* Print a panic, oops or warning from the console log, decoded. */
static int
exec_report(const char *kernel, const char *logpath)
{
	char	*t = read_text(logpath), *r;
	int	 warn = 0;

	if (t == NULL || (r = oops_find(t, 120, &warn)) == NULL) {
		free(t);
		return 0;
	}
	fprintf(stderr, "umkit: guest kernel %s:\n", warn ? "warning" : "panic");
	oops_print(stderr, kernel, r, "    ");
	free(r);
	free(t);
	return 1;
}

/*
 * One-shot: boot, wait for the agent, run argv (stdin from in_fd, or
 * /dev/null when it is -1), kill the guest.  Returns the command's status
 * or one of the EXIT_* codes.
 */
static int
exec_fresh(struct guest_opts *o, int timeout_s, int in_fd, char **argv,
    int gdb, const char *gdb_batch)
{
	struct guest	 g;
	struct watch	*w;
	struct link	*l = NULL;
	struct exec_gdb	*eg = NULL;
	char		 name[32], *rundir, *log, *tmplog;
	int		 r, status = 0, why, rc;

	initrd_prepare(o);	/* --add: checks; exits on a problem */
	guest_kernel(o);	/* may build; exits on failure, before run/ */
	preflight(o, 0);	/* exits on failure, before run/ too */
	snprintf(name, sizeof name, "exec-%d", (int)getpid());
	o->name = name;
	if (run_create(name, getpid()) < 0)
		fatal("cannot create run/%s", name);
	rundir = run_dir(name);
	log = run_log("exec");
	tmplog = run_log(name);
	o->logpath = tmplog;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	watch_block_signals();
	o->gdb_stop = gdb;
	if (guest_boot(&g, o, rundir) < 0) {
		run_remove(name);
		free(o->kpath);
		return EXIT_KIT;
	}
	w = watch_start(&g, timeout_s);
	if (gdb) {
		watch_pass_sigint(w);
		eg = exec_gdb_start(&g, rundir, gdb_batch);
	}
	l = link_open(g.link_fd, NULL);
	g.link_fd = -1;		/* the link owns it now */
	/* Under gdb the boot takes as long as the person at gdb's prompt. */
	r = link_hello(l, gdb ? INT_MAX / 2 : BOOT_TIMEOUT_MS);
	if (r == 0)
		r = link_exec(l, argv, 0, in_fd, 1, 2, &status);
	if (r == 0)
		cov_collect(l, name);	/* with $UMKIT_GCOV_DIR: its counters */
	if (eg != NULL && gdb_traced(g.pid) && gdb_batch == NULL)
		fprintf(stderr, "umkit: the command ended; the guest is killed "
		    "now: quit gdb\n");
	guest_kill(&g);
	if (eg != NULL)
		exec_gdb_end(eg);
	why = watch_stop(w);
	guest_wait_gone(&g, 1000);
	link_close(l);

	if (why == -1) {
		warnmsg("timed out after %d s; guest killed", timeout_s);
		rc = EXIT_TIMEOUT;
	} else if (why > 0) {
		rc = 128 + why;
	} else if (guest_panicked(&g, 0)) {
		/* From the log: it has the whole report, decoded if it can be. */
		if (!exec_report(g.kernel, tmplog))
			guest_panicked(&g, 1);
		rc = EXIT_PANIC;
	} else if (r < 0) {
		warnmsg("guest link failed: %s (console log: %s)", strerror(-r), log);
		guest_print_tail(&g, 8);
		rc = EXIT_KIT;
	} else {
		rc = status;
		/* A WARN while the command ran: the guest went on, say so. */
		exec_report(g.kernel, tmplog);
	}
	guest_free(&g);
	free(o->kpath);
	o->kpath = NULL;
	rename(tmplog, log);
	run_remove(name);
	free(rundir);
	free(log);
	free(tmplog);
	return rc;
}

/* Named guest: the supervisor runs the command with our stdio. */
static int
exec_named(const char *name, int timeout_s, int in_fd, char **argv)
{
	int	status;

	cmd_need_guest(name);
	if (ctl_exec_io(name, argv, timeout_s, in_fd, 1, 2, &status) < 0) {
		const char	*f[] = { "info", NULL };
		char		*r = ctl_call(name, f, NULL, 0, NULL), *log, k[4096];
		int		 i;

		/* The console's end may come a moment after the link's. */
		for (i = 0; i < 10 && r != NULL && strstr(r, "state=running"); i++) {
			free(r);
			usleep(100000);
			r = ctl_call(name, f, NULL, 0, NULL);
		}
		/* The guest's kernel died under the command: show why. */
		ctl_field(r != NULL ? r : "", "kernel", k, sizeof k);
		log = run_log(name);
		if (r != NULL && strstr(r, "state=panicked") != NULL &&
		    exec_report(k, log)) {
			free(log);
			free(r);
			return EXIT_PANIC;
		}
		free(log);
		free(r);
		return EXIT_KIT;
	}
	return status;
}

/* umkit exec [options] [NAME] -- CMD [ARGS...] */
static int
exec_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "add", required_argument, NULL, 'a' },
		{ "gdb", no_argument, NULL, 'G' },
		{ "gdb-x", required_argument, NULL, 'X' },
		{ NULL, 0, NULL, 0 }
	};
	struct guest_opts	 o;
	int			 c, timeout_s = 0, in_fd = -1, gdb = 0;
	const char		*gdb_batch = NULL;
	char			*end;
	const char		*name = NULL;

	guest_opts_init(&o);
	while ((c = getopt_long(argc, argv, "+V:m:c:d:t:k:Aiv", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 't':
			timeout_s = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || timeout_s < 1)
				fatalx("-t %s: want a whole number of seconds", optarg);
			break;
		case 'i':
			in_fd = 0;
			break;
		case 'G':
			gdb = 1;
			break;
		case 'X':
			gdb = 1;
			gdb_batch = optarg;
			if (access(optarg, R_OK) < 0)
				fatal("--gdb-x %s", optarg);
			break;
		case '?':
			return cmd_usage(&cmd_exec);
		default:
			guest_opt(&o, c, optarg);
		}
	}
	if (optind < argc && strcmp(argv[optind - 1], "--") != 0) {
		name = argv[optind++];
		if (optind >= argc || strcmp(argv[optind], "--") != 0)
			return cmd_usage(&cmd_exec);
		optind++;
	}
	if (optind >= argc)
		return cmd_usage(&cmd_exec);
	if (name != NULL && o.nadds > 0)
		fatalx("--add %s: files are added when a guest boots; '%s' is "
		    "running already (umkit start --add ... -n %s)", o.adds[0],
		    name, name);
	if (name != NULL && gdb)
		fatalx("--gdb starts a guest under gdb; for the running guest "
		    "'%s': umkit gdb %s", name, name);
	if (name != NULL)
		return exec_named(name, timeout_s, in_fd, argv + optind);
	return exec_fresh(&o, timeout_s, in_fd, argv + optind, gdb, gdb_batch);
}

const struct cmd cmd_exec = {
	.name = "exec",
	.usage = "exec [-V VARIANT] [-m MEM] [-c CPUS] [-d DISK] [-t SECONDS] [-A] [-i] [-v] [--add HOSTPATH[:GUESTPATH]]... [--gdb | --gdb-x FILE] [NAME] -- CMD [ARGS...]",
	.help =
"Boot a fresh guest, run CMD in it, and exit with CMD's status; or, with\n"
"NAME, run CMD in the running guest NAME.  CMD's stdout and stderr arrive\n"
"on umkit's stdout and stderr; its stdin is /dev/null, or with -i umkit's\n"
"stdin (EOF included).\n"
"\n"
"  -V VARIANT  kernel variant (patches/VARIANT; default base)\n"
"  -m MEM      guest memory, e.g. 256M or 1G (default 256M)\n"
"  -c CPUS     guest CPUs (default 2)\n"
"  -d DISK     scratch disk size at /mnt/disk, e.g. 4G (default 2G); 0: none\n"
"  -t SECONDS  kill the guest (with NAME: CMD) after SECONDS; status 124\n"
"  -A          leave host address-space randomisation on for the guest\n"
"  -k KERNEL   boot this kernel binary instead of the variant's\n"
"  -v          copy the guest console to stderr\n"
"  -i          pass umkit's stdin to CMD (a file, a pipe, the terminal)\n"
"  --add HOSTPATH[:GUESTPATH]\n"
"              put a host file or directory into the guest (repeatable;\n"
"              not with NAME)\n"
"  --gdb       run the fresh guest under gdb, stopped at the kernel\n"
"              binary's first instruction (interactive; see umkit gdb)\n"
"  --gdb-x FILE  the same with FILE's gdb commands, non-interactively;\n"
"              when they end gdb detaches and the guest runs on\n"
"\n"
"Added files keep their permission bits and are owned by root.  Without\n"
"GUESTPATH a file goes to /usr/local/bin/ (on the guest's PATH) and a\n"
"directory to /root/, under its own name; a GUESTPATH ending in '/' is a\n"
"directory to put it in.  Programs must be static (gcc -static): a\n"
"dynamically linked one is refused before boot.  The files live in the\n"
"initramfs, in guest memory (at most half of -m); nothing is rebuilt.\n"
"\n"
"Exit status: CMD's own (128+N if it died of signal N, 126 not\n"
"executable, 127 not found); 123 the guest kernel panicked (its panic\n"
"lines are printed, with file:line for a kernel with debug info); 124\n"
"timed out; 125 umkit's own error.  A kernel warning (WARN) while CMD ran\n"
"is printed the same way; the status stays CMD's.\n"
"\n"
"Examples:\n"
"  umkit exec -- cat /sys/kernel/mm/lru_gen/enabled\n"
"  umkit exec -c 4 -m 512M -t 30 -- sh -c 'grep compact /proc/vmstat'\n"
"  umkit exec lab -- cat /proc/meminfo\n"
"  gcc -static -o hog hog.c && umkit exec --add hog -- hog 100M\n"
"  umkit exec --add selftests/mm:/root/mm -- /root/mm/mlock2-tests\n"
"  umkit exec -i -- sh < script.sh; gzip -c big | umkit exec -i -- wc -c",
	.max_args = CMD_ARGS_ANY,
	.exec = exec_main,
};
