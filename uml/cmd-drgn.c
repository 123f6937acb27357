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
#include "guest/drgn.h"
#include "guest/gdb.h"
#include "kernel/kbuild.h"
#include "umkit.h"
#include "util.h"

/*
 * The guest's kernel has no debug info: build VARIANT+debug when it is not
 * built yet (saying so), then say how to boot the guest on it; exits.
 */
static void __attribute__((noreturn))
no_debug(const char *name, const char *variant, const char *why)
{
	char	v[256], *dbg, *k;

	snprintf(v, sizeof v, "%s", strchr(variant, '/') ? "base" : variant);
	v[kbuild_base_len(v)] = '\0';
	if (kbuild_is_smoke(v) || strstr(why, "without debug info") == NULL)
		fatalx("%s", why);
	dbg = xasprintf("build/k/%s+debug/linux", v);
	k = top_path(dbg);
	if (access(k, X_OK) < 0) {
		warnmsg("%s", why);
		free(k);
		free(dbg);
		dbg = xasprintf("%s+debug", v);
		k = kbuild_kernel(dbg);		/* says what it builds */
		fatalx("built %s; boot guest %s on it, then run this again: umkit "
		    "stop %s && umkit start -V %s -n %s", k, name, name, dbg, name);
	}
	fatalx("%s", why);
}

/* umkit drgn NAME [-e EXPR | --gens PID|COMM | SCRIPT [ARGS...]] */
static int
drgn_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "gens", required_argument, NULL, 'g' },
		{ NULL, 0, NULL, 0 }
	};
	const char		*name = NULL, *opt = NULL;
	char			*val = NULL, **av, why[512];
	struct gdb_kernel	 k;
	struct ctl_guest	 cg;
	int			 c;

	for (;;) {
		while ((c = getopt_long(argc, argv, "+e:", longopts,
		    NULL)) != -1) {
			switch (c) {
			case 'e':
			case 'g':
				if (opt != NULL)
					return cmd_usage(&cmd_drgn);
				opt = c == 'e' ? "-e" : "--gens";
				val = optarg;
				break;
			default:
				return cmd_usage(&cmd_drgn);
			}
		}
		if (name != NULL || optind >= argc)
			break;
		name = argv[optind++];
	}
	if (name == NULL || (opt != NULL && optind < argc))
		return cmd_usage(&cmd_drgn);
	if (optind < argc && access(argv[optind], R_OK) < 0)
		fatal("%s", argv[optind]);
	cmd_need_guest(name);
	ctl_running(name, "read", &cg);
	if (drgn_kernel(name, cg.kernel, cg.variant, &k, why, sizeof why) < 0)
		no_debug(name, cg.variant, why);
	if (opt != NULL)
		av = drgn_argv(name, cg.uml_pid, &k, opt, &val, 1, why, sizeof why);
	else if (optind < argc)
		av = drgn_argv(name, cg.uml_pid, &k, "--", argv + optind,
		    argc - optind > 20 ? 20 : argc - optind, why, sizeof why);
	else
		av = drgn_argv(name, cg.uml_pid, &k, NULL, NULL, 0, why, sizeof why);
	if (av == NULL)
		fatalx("%s", why);
	fflush(NULL);
	execvp(av[0], av);
	fatalx("cannot run %s: %s (install Debian's python3-drgn; "
	    "UMKIT_PYTHON names another python)", av[0], strerror(errno));
}

const struct cmd cmd_drgn = {
	.name = "drgn",
	.usage = "drgn NAME [-e EXPR | --gens PID|COMM | SCRIPT [ARGS...]]",
	.help =
"drgn (Debian's python3-drgn) on the kernel of the running guest NAME,\n"
"without stopping it: the UML kernel's memory is its host process's, so\n"
"drgn reads it through /proc/PID/mem while the guest runs on.  Needs the\n"
"guest's kernel with debug info (start it with -V base+debug; on a guest\n"
"without, umkit drgn builds VARIANT+debug when it is not built yet and\n"
"says how to boot on it) and read access to the UML process (your own\n"
"guest; docs/drgn.md).\n"
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
