/* cmd-start.c - umkit start: a long-lived named guest (supervisor.h). */
#define _GNU_SOURCE
#include <unistd.h>

#include "guest.h"
#include "run.h"
#include "supervisor.h"
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
	struct guest_opts	 o;
	const char		*name = NULL;
	int			 c;

	guest_opts_init(&o);
	while ((c = getopt(argc, argv, "+V:m:c:d:k:n:Av")) != -1) {
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
	return supervisor_start(name, &o, 0);
}

const struct cmd cmd_start = {
	.name = "start",
	.usage = "start [-V VARIANT] [-m MEM] [-c CPUS] [-d DISK] [-A] [-n NAME]",
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
"\n"
"Example:\n"
"  umkit start -n lab -c 4 && cat run/lab/mnt/proc/meminfo && umkit stop lab",
	.max_args = CMD_ARGS_ANY,
	.exec = start_main,
};
