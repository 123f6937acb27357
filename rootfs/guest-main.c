/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * guest-main.c - umkit-guest: the kit's static guest programs in one
 * binary, each run by the name it is called by (a link to it):
 *
 *   /init                          umkit-init (rootfs/init.c)
 *   /usr/lib/umkit/umkit-agent     the link's agent (rootfs/agent.c)
 *   /usr/lib/umkit/umkit-readbench, umkit-rsscheck, umkit-tlbcheck,
 *                  umkit-touch     the tests' guest programs
 *   /usr/lib/umkit/umkit-wl, and /usr/bin/kvbench, procbench, ...
 *                                  the workloads (rootfs/wl.c)
 *
 * or as "umkit-guest NAME [ARG...]".  Every program's main() is renamed
 * (rootfs/rootfs.mk: -Dmain=NAME_main) and its other symbols made local
 * to it, so the programs share nothing but libc.  One static libc instead
 * of six: the initramfs is about 4.6 MB smaller, and every boot unpacks
 * all of it (rootfs/rootfs.mk says what that costs).
 */
#include <stdio.h>
#include <string.h>

int	umkit_agent_main(int, char **);
int	umkit_init_main(void);
int	umkit_readbench_main(int, char **);
int	umkit_rsscheck_main(int, char **);
int	umkit_tlbcheck_main(int, char **);
int	umkit_touch_main(int, char **);
int	umkit_wl_main(int, char **);

/* A program of the binary: the name it is called by, and its main(). */
struct guest_prog {
	const char	*name;
	int		(*main)(int, char **);
};

/* init's main() takes no arguments. */
static int
init_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return umkit_init_main();
}

static const struct guest_prog guest_progs[] = {
	{ .name = "init", .main = init_main },
	{ .name = "umkit-init", .main = init_main },
	{ .name = "umkit-agent", .main = umkit_agent_main },
	{ .name = "umkit-readbench", .main = umkit_readbench_main },
	{ .name = "umkit-rsscheck", .main = umkit_rsscheck_main },
	{ .name = "umkit-tlbcheck", .main = umkit_tlbcheck_main },
	{ .name = "umkit-touch", .main = umkit_touch_main },
	{ .name = NULL, .main = NULL }
};

/* The last component of a path. */
static const char *
base_name(const char *path)
{
	const char	*s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

/* Run the program argv[0] names; any other name is the workloads'. */
int
main(int argc, char **argv)
{
	const struct guest_prog	*p;
	const char		*name;

	if (argc < 1)
		return 2;
	name = base_name(argv[0]);
	if (strcmp(name, "umkit-guest") == 0) {
		if (argc < 2) {
			fprintf(stderr, "usage: umkit-guest NAME [ARG...]\n");
			return 2;
		}
		argv++;
		argc--;
		name = base_name(argv[0]);
	}
	for (p = guest_progs; p->name != NULL; p++)
		if (strcmp(p->name, name) == 0)
			return p->main(argc, argv);
	return umkit_wl_main(argc, argv);
}
