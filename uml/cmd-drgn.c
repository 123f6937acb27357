/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd-drgn.c - umkit drgn NAME: drgn on a running guest's kernel, live. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest/ctl.h"
#include "guest/gdb.h"
#include "kernel/kbuild.h"
#include "umkit.h"
#include "util.h"

/* The python that has Debian's python3-drgn (dist-packages). */
#define DRGN_PYTHON	"/usr/bin/python3"

/* umkit drgn NAME [-e EXPR | --gens PID|COMM | SCRIPT [ARGS...]] */
static int
drgn_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "gens", required_argument, NULL, 'g' },
		{ NULL, 0, NULL, 0 }
	};
	const char		*name = NULL, *expr = NULL;
	const char		*gens = NULL, *py, *av[32];
	struct gdb_kernel	 k;
	struct ctl_guest	 cg;
	char			*mod, *dbg, *dk, *variant, *kernel, pid[32];
	int			 c, n = 0, i;

	for (;;) {
		while ((c = getopt_long(argc, argv, "+e:", longopts,
		    NULL)) != -1) {
			switch (c) {
			case 'e':
				expr = optarg;
				break;
			case 'g':
				gens = optarg;
				break;
			default:
				return cmd_usage(&cmd_drgn);
			}
		}
		if (name != NULL || optind >= argc)
			break;
		name = argv[optind++];
	}
	if (name == NULL || (expr != NULL) + (gens != NULL) +
	    (optind < argc) > 1)
		return cmd_usage(&cmd_drgn);
	if (optind < argc && access(argv[optind], R_OK) < 0)
		fatal("%s", argv[optind]);
	cmd_need_guest(name);
	ctl_running(name, "read", &cg);
	snprintf(pid, sizeof pid, "%ld", cg.uml_pid);
	kernel = cg.kernel;
	variant = cg.variant;
	if (gdb_kernel_find(kernel, &k) < 0)
		fatal("guest %s: its kernel %s", name, kernel);
	if (!k.debuginfo || k.obj == NULL) {
		/* drgn needs this very build's DWARF: another's will not do. */
		if (strchr(variant, '/') != NULL)
			strcpy(variant, "base");	/* -k FILE: any kernel */
		variant[kbuild_base_len(variant)] = '\0';
		dbg = xasprintf("build/k/%s+debug/linux", variant);
		dk = top_path(dbg);
		fatalx("guest %s runs %s, a kernel without debug info: drgn "
		    "needs that build's vmlinux; boot one with it: umkit start "
		    "-V %s+debug -n NAME (%s)", name, variant, variant,
		    access(dk, X_OK) == 0 ? "built" :
		    "it builds on first use, a few minutes");
	}
	mod = top_path("uml/guest/umkit_drgn.py");
	if (access(mod, R_OK) < 0)
		fatal("%s", mod);
	if ((py = getenv("UMKIT_PYTHON")) == NULL)
		py = access(DRGN_PYTHON, X_OK) == 0 ? DRGN_PYTHON : "python3";

	av[n++] = py;
	av[n++] = "-B";		/* no __pycache__ in the kit's folders */
	av[n++] = mod;
	av[n++] = "--pid";
	av[n++] = pid;
	av[n++] = "--vmlinux";
	av[n++] = k.symbols;
	av[n++] = "--name";
	av[n++] = name;
	if (expr != NULL) {
		av[n++] = "-e";
		av[n++] = expr;
	} else if (gens != NULL) {
		av[n++] = "--gens";
		av[n++] = gens;
	} else if (optind < argc) {
		av[n++] = "--";
		for (i = optind; i < argc && n < 31; i++)
			av[n++] = argv[i];
	}
	av[n] = NULL;
	fflush(NULL);
	execvp(py, (char **)av);
	fatalx("cannot run %s: %s (install Debian's python3-drgn; "
	    "UMKIT_PYTHON names another python)", py, strerror(errno));
}

const struct cmd cmd_drgn = {
	.name = "drgn",
	.usage = "drgn NAME [-e EXPR | --gens PID|COMM | SCRIPT [ARGS...]]",
	.help =
"drgn (Debian's python3-drgn) on the kernel of the running guest NAME,\n"
"without stopping it: the UML kernel's memory is its host process's, so\n"
"drgn reads it through /proc/PID/mem while the guest runs on.  Needs the\n"
"guest's kernel with debug info (start it with -V base+debug) and read\n"
"access to the UML process (your own guest; docs/drgn.md).\n"
"\n"
"Without SCRIPT or an option: drgn's prompt, with prog set and drgn's\n"
"helpers and the kit's UML helpers (uml/guest/umkit_drgn.py:\n"
"lruvec(prog, PATH), gen_folios, folio_owners, pfn_to_page, tasks, ...)\n"
"in scope.\n"
"\n"
"  -e EXPR       evaluate EXPR (or run a statement) and print the value\n"
"  --gens PID    which MGLRU generation each page of guest process PID\n"
"                (or the newest named COMM) is in: per generation its\n"
"                pages and a line per VMA, then one line \"gens: pid=N\n"
"                max_seq=N age0=N age1=N age2=N age3=N other=N none=N\n"
"                swap=N pages=N\" (ageK: pages K generations older than\n"
"                the youngest)\n"
"  SCRIPT ARGS   run a python script with prog set (sys.argv: SCRIPT ARGS)\n"
"\n"
"Exit status: 0, 1 when the script or a read failed, 125 umkit's error.\n"
"\n"
"Examples:\n"
"  umkit start -V base+debug -n dbg && umkit drgn dbg\n"
"  umkit drgn dbg -e 'lruvec(prog, \"/\").lrugen.max_seq'\n"
"  umkit drgn dbg --gens umkit-touch",
	.max_args = CMD_ARGS_ANY,
	.exec = drgn_main,
};
