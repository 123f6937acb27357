/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd-exec.c - umkit exec: one command in a fresh guest or a named one (exec.h). */
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

#include "guest/exec.h"
#include "guest/guest.h"
#include "umkit.h"
#include "util.h"

/* umkit exec [options] [NAME] -- CMD [ARGS...] */
static int
exec_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "add", required_argument, NULL, 'a' },
		{ "gdb", no_argument, NULL, 'G' },
		{ "gdb-x", required_argument, NULL, 'X' },
		{ "timings", no_argument, NULL, 'T' },
		{ "host-cpu", required_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 }
	};
	struct guest_opts	 o;
	int			 c, timeout_s = 0, in_fd = -1, gdb = 0;
	long long		 start_us = now_us(), timings_us = 0;
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
		case 'T':
			timings_us = start_us;
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
	if (name != NULL && timings_us != 0)
		fatalx("--timings times a fresh guest's boot; '%s' is running "
		    "already", name);
	if (gdb && timings_us != 0)
		fatalx("--timings and --gdb: a person at gdb's prompt is not "
		    "a boot to time");
	if (name != NULL) {
		cmd_need_guest(name);
		return exec_named(name, timeout_s, in_fd, argv + optind);
	}
	return exec_fresh(&o, timeout_s, in_fd, argv + optind, gdb, gdb_batch,
	    timings_us);
}

const struct cmd cmd_exec = {
	.name = "exec",
	.usage = "exec [-V VARIANT] [-m MEM] [-c CPUS] [-d DISK] [-t SECONDS] [-A] [-i] [-v] [--add HOSTPATH[:GUESTPATH]]... [--gdb | --gdb-x FILE] [--timings] [--host-cpu N|auto|any] [NAME] -- CMD [ARGS...]",
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
"  --host-cpu N|auto|any\n"
"              once the guest is up, move its UML processes onto one host\n"
"              CPU: auto one none of your other guests is on (if there\n"
"              is one), N that one, any (default; also UMKIT_HOST_CPU):\n"
"              where the host puts them.  A guest's system calls are\n"
"              round trips between UML's processes, about twice as\n"
"              fast unpinned (make bench-pin); pinned, its two CPUs\n"
"              share one, and under memory pressure they spin on each\n"
"              other\n"
"  --timings   print on stderr where the fresh guest's time went, in ms:\n"
"              launcher (umkit until UML is forked), uml-start (until\n"
"              the guest kernel's clock starts), kernel-init (until\n"
"              /init), init (mounts, disk, swap), agent (its fork, exec\n"
"              and first hello), command, shutdown (one more round trip\n"
"              for the guest's clock stamps, kill, cleanup), and their\n"
"              total; the guest's stages come from its own clock\n"
"\n"
"Added files keep their permission bits and are owned by root.  Without\n"
"GUESTPATH a file goes to /usr/local/bin/ (on the guest's PATH) and a\n"
"directory to /root/, under its own name; a GUESTPATH ending in '/' is a\n"
"directory to put it in.  A dynamically linked program comes with its\n"
"loader and libraries, found as ld.so finds them; one that cannot be\n"
"found is named and nothing boots.  The files live in the initramfs, in\n"
"guest memory (at most a quarter of -m); nothing is rebuilt.\n"
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
"  umkit exec -m 256M --add /usr/bin/stress-ng -- stress-ng --vm 1 -t 3\n"
"  umkit exec -i -- sh < script.sh; gzip -c big | umkit exec -i -- wc -c",
	.max_args = CMD_ARGS_ANY,
	.exec = exec_main,
};
