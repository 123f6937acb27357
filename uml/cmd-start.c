/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd-start.c - umkit start: a long-lived named guest (supervisor.h). */
#define _GNU_SOURCE
#include <getopt.h>
#include <unistd.h>

#include "guest/guest.h"
#include "guest/initrd.h"
#include "guest/rundir.h"
#include "guest/supervisor.h"
#include "umkit.h"
#include "util.h"

/* Default guest name: the variant's. */
static const char *
default_name(const struct guest_opts *o)
{
	return o->kernel != NULL ? "custom" : o->variant;
}

/* umkit start [options] [-n NAME] */
static int
start_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "add", required_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 }
	};
	struct guest_opts	 o;
	const char		*name = NULL;
	int			 c;

	guest_opts_init(&o);
	while ((c = getopt_long(argc, argv, "+V:m:c:d:k:n:Av", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'n':
			name = optarg;
			break;
		case '?':
			return cmd_usage(&cmd_start);
		default:
			guest_opt(&o, c, optarg);
		}
	}
	if (optind != argc)
		return cmd_usage(&cmd_start);
	if (name == NULL)
		name = default_name(&o);
	if (run_name_ok(name) < 0)
		fatalx("-n %s: a name is 1-32 letters, digits, '-' or '_'", name);
	initrd_prepare(&o);	/* --add: exits on a problem, before run/ */
	return supervisor_start(name, &o, 0);
}

const struct cmd cmd_start = {
	.name = "start",
	.usage = "start [-V VARIANT] [-m MEM] [-c CPUS] [-d DISK] [-A] [--add HOSTPATH[:GUESTPATH]]... [-n NAME]",
	.help =
"Boot a long-lived guest called NAME (default: the variant's name) and\n"
"mount its mirror at run/NAME/mnt: the guest's /proc and /sys (with\n"
"debugfs and tracefs) as files.  It runs until 'umkit stop NAME'.  Its\n"
"console goes to run/log/NAME.log.  Several guests may run at once.\n"
"\n"
"  -V VARIANT  kernel variant (default base)   -m MEM   memory (256M)\n"
"  -c CPUS     CPUs (default 2)                -A       host ASLR on\n"
"  -k KERNEL   boot this kernel binary         -n NAME  the guest's name\n"
"  -d DISK     scratch disk at /mnt/disk (default 2G; 0: none)\n"
"  --add HOSTPATH[:GUESTPATH]\n"
"              put a host file or directory into the guest (repeatable):\n"
"              by default a file goes to /usr/local/bin/NAME (on PATH), a\n"
"              directory to /root/NAME; a dynamic program brings its\n"
"              libraries; modes are kept.  See 'umkit exec --help'.\n"
"\n"
"Examples:\n"
"  umkit start -n lab -c 4 && cat run/lab/mnt/proc/meminfo && umkit stop lab\n"
"  umkit start -n t --add ./hog && umkit exec t -- hog && umkit stop t",
	.max_args = CMD_ARGS_ANY,
	.exec = start_main,
};
