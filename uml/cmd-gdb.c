/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd-gdb.c - umkit gdb NAME: gdb attached to a running guest's kernel. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest/ctl.h"
#include "guest/gdb.h"
#include "guest/rundir.h"
#include "umkit.h"
#include "util.h"

/* umkit gdb [-x FILE] NAME [-- GDB-ARGS...] */
static int
gdb_main(int argc, char **argv)
{
	const char		*batch = NULL, *name;
	struct gdb_kernel	 k;
	struct ctl_guest	 cg;
	char			*setup, *dir, *kernel;
	long			 upid;
	int			 c, rc;

	while ((c = getopt(argc, argv, "+x:")) != -1) {
		switch (c) {
		case 'x':
			batch = optarg;
			if (access(batch, R_OK) < 0)
				fatal("-x %s", batch);
			break;
		default:
			return cmd_usage(&cmd_gdb);
		}
	}
	if (optind >= argc)
		return cmd_usage(&cmd_gdb);
	name = argv[optind++];
	if (optind < argc && strcmp(argv[optind], "--") != 0)
		return cmd_usage(&cmd_gdb);
	if (optind < argc)
		optind++;
	cmd_need_guest(name);
	ctl_running(name, "attach to", &cg);
	upid = cg.uml_pid;
	kernel = cg.kernel;
	if (gdb_traced(upid))
		fatalx("guest %s: a debugger is attached to its kernel already",
		    name);
	if (gdb_kernel_find(kernel, &k) < 0)
		fatal("guest %s: its kernel %s", name, kernel);

	dir = run_dir(name);
	setup = xasprintf("%s/gdb-setup.gdb", dir);
	if (gdb_write_setup(setup, &k, 0) < 0)
		fatal("%s", setup);
	if (batch == NULL)
		fprintf(stderr, "umkit: gdb on guest %s (UML pid %ld, %s): the "
		    "kernel stops while gdb holds it (the mirror answers EIO);\n"
		    "umkit: 'continue' runs it, Ctrl-C stops it again, 'quit' "
		    "detaches and leaves the guest running\n", name, upid,
		    k.binary);
	if (!k.debuginfo)
		warnmsg("%s", gdb_nodebug_hint());
	rc = gdb_run(upid, &k, setup, batch, argv + optind, 0);
	if (rc < 0)
		rc = EXIT_KIT;
	unlink(setup);
	free(setup);
	free(dir);
	gdb_kernel_free(&k);
	return rc;
}

const struct cmd cmd_gdb = {
	.name = "gdb",
	.usage = "gdb [-x FILE] NAME [-- GDB-ARGS...]",
	.help =
"Attach gdb to the kernel of the running guest NAME: the UML kernel is a\n"
"host process, so gdb debugs it like any program, with the symbols of\n"
"the guest's kernel, the host signals UML uses for itself passed through\n"
"silently, and the kernel's own gdb helpers (lx-dmesg, lx-ps, ...) loaded\n"
"when the kernel has them.  Source lines, types and the helpers need a\n"
"kernel with debug info: start the guest with -V base+debug.\n"
"\n"
"The kernel (every CPU) stops while gdb holds it: the mirror answers EIO\n"
"and the TUI says \"guest not responding\" until you continue.  Quitting\n"
"or detaching leaves the guest running; if gdb is killed while the\n"
"kernel is stopped, umkit continues the kernel.\n"
"\n"
"  -x FILE     run the gdb commands in FILE non-interactively (gdb -batch),\n"
"              then detach\n"
"  GDB-ARGS    more gdb options, e.g. -ex 'break inc_max_seq'\n"
"\n"
"Exit status: gdb's.\n"
"\n"
"Examples:\n"
"  umkit start -V base+debug -n dbg && umkit gdb dbg\n"
"  umkit gdb dbg -- -ex 'break inc_max_seq' -ex continue\n"
"  umkit gdb -x cmds.gdb dbg",
	.max_args = CMD_ARGS_ANY,
	.exec = gdb_main,
};
