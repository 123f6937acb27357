/* cmd-exec.c - run one command in a fresh guest, or in a named one. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "ctl.h"
#include "guest.h"
#include "link.h"
#include "preflight.h"
#include "run.h"
#include "umkit.h"
#include "util.h"
#include "watch.h"

/*
 * One-shot: boot, wait for the agent, run argv, kill the guest.  Returns
 * the command's status or one of the EXIT_* codes.
 */
static int
exec_fresh(struct guest_opts *o, int timeout_s, char **argv)
{
	struct guest	 g;
	struct watch	*w;
	struct link	*l = NULL;
	char		 name[32], *rundir, *log, *tmplog;
	int		 r, status = 0, why, rc;

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
	if (guest_boot(&g, o, rundir) < 0) {
		run_remove(name);
		free(o->kpath);
		return EXIT_KIT;
	}
	w = watch_start(&g, timeout_s);
	l = link_open(g.link_fd, NULL);
	g.link_fd = -1;		/* the link owns it now */
	r = link_hello(l, BOOT_TIMEOUT_MS);
	if (r == 0)
		r = link_exec(l, argv, 0, 1, 2, &status);
	guest_kill(&g);
	why = watch_stop(w);
	guest_wait_gone(&g, 1000);
	link_close(l);

	if (why == -1) {
		warnmsg("timed out after %d s; guest killed", timeout_s);
		rc = EXIT_TIMEOUT;
	} else if (why > 0) {
		rc = 128 + why;
	} else if (guest_panicked(&g, 1)) {
		rc = EXIT_PANIC;
	} else if (r < 0) {
		warnmsg("guest link failed: %s (console log: %s)", strerror(-r), log);
		guest_print_tail(&g, 8);
		rc = EXIT_KIT;
	} else {
		rc = status;
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

/* Named guest: the supervisor runs the command with our stdout/stderr. */
static int
exec_named(const char *name, int timeout_s, char **argv)
{
	int	status;

	cmd_need_guest(name);
	if (ctl_exec(name, argv, timeout_s, &status) < 0)
		return EXIT_KIT;
	return status;
}

/* umkit exec [options] [NAME] -- CMD [ARGS...] */
static int
exec_main(int argc, char **argv)
{
	struct guest_opts	 o;
	int			 c, timeout_s = 0;
	char			*end;
	const char		*name = NULL;

	guest_opts_init(&o);
	while ((c = getopt(argc, argv, "+V:m:c:d:t:k:Av")) != -1) {
		switch (c) {
		case 't':
			timeout_s = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || timeout_s < 1)
				fatalx("-t %s: want a whole number of seconds", optarg);
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
	if (name != NULL)
		return exec_named(name, timeout_s, argv + optind);
	return exec_fresh(&o, timeout_s, argv + optind);
}

const struct cmd cmd_exec = {
	.name = "exec",
	.usage = "exec [-V VARIANT] [-m MEM] [-c CPUS] [-d DISK] [-t SECONDS] [-A] [-v] [NAME] -- CMD [ARGS...]",
	.help =
"Boot a fresh guest, run CMD in it, and exit with CMD's status; or, with\n"
"NAME, run CMD in the running guest NAME.  CMD's stdout and stderr arrive\n"
"on umkit's stdout and stderr; its stdin is /dev/null.\n"
"\n"
"  -V VARIANT  kernel variant (patches/VARIANT; default base)\n"
"  -m MEM      guest memory, e.g. 256M or 1G (default 256M)\n"
"  -c CPUS     guest CPUs (default 2)\n"
"  -d DISK     scratch disk size at /mnt/disk, e.g. 4G (default 2G); 0: none\n"
"  -t SECONDS  kill the guest (with NAME: CMD) after SECONDS; status 124\n"
"  -A          leave host address-space randomisation on for the guest\n"
"  -k KERNEL   boot this kernel binary instead of the variant's\n"
"  -v          copy the guest console to stderr\n"
"\n"
"Exit status: CMD's own (128+N if it died of signal N, 126 not\n"
"executable, 127 not found); 123 the guest kernel panicked (its panic\n"
"lines are printed); 124 timed out; 125 umkit's own error.\n"
"\n"
"Examples:\n"
"  umkit exec -- cat /sys/kernel/mm/lru_gen/enabled\n"
"  umkit exec -c 4 -m 512M -t 30 -- sh -c 'grep compact /proc/vmstat'\n"
"  umkit exec lab -- cat /proc/meminfo",
	.max_args = CMD_ARGS_ANY,
	.exec = exec_main,
};
