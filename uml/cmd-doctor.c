/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd-doctor.c - umkit doctor: every host check UML needs (preflight.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "guest/guest.h"
#include "guest/preflight.h"
#include "umkit.h"
#include "util.h"

/* A built file of the kit, as a check. */
static void
pf_built(struct pf_result *r, const char *name, const char *rel)
{
	char		*p = top_path(rel);
	const char	*shown = kit()->installed ? p : rel;

	r->name = name;
	r->fix[0] = '\0';
	if (access(p, R_OK) == 0) {
		r->level = PF_OK;
		snprintf(r->what, sizeof r->what, "%s", shown);
	} else {
		r->level = PF_FAIL;
		snprintf(r->what, sizeof r->what, "%s is missing", shown);
		snprintf(r->fix, sizeof r->fix, kit()->installed ?
		    "reinstall umkit (the install is incomplete)" : "run 'make'");
	}
	free(p);
}

/* umkit doctor [-m MEM]: print each check; 1 when one needs a fix. */
static int
doctor_main(int argc, char **argv)
{
	struct guest_opts	 o;
	struct pf_result	 r;
	const char		*use;
	int			 c, bad = 0;

	guest_opts_init(&o);
	while ((c = getopt(argc, argv, "m:")) != -1) {
		if (c != 'm')
			return cmd_usage(&cmd_doctor);
		guest_opt(&o, c, optarg);
	}
	if (optind != argc)
		return cmd_usage(&cmd_doctor);
	pf_tmpdir(o.mem_mb, &r, &use);
	pf_print(&r);
	bad |= r.level == PF_FAIL;
	pf_seccomp(&r);
	pf_print(&r);
	bad |= r.level == PF_FAIL;
	pf_fuse(&r);
	pf_print(&r);
	bad |= r.level == PF_FAIL;
	pf_aslr(&r);
	pf_print(&r);
	bad |= r.level == PF_FAIL;
	pf_sandbox(&r);
	pf_print(&r);
	bad |= r.level == PF_FAIL;
	pf_built(&r, "rootfs", "build/rootfs/initramfs.cpio");
	pf_print(&r);
	bad |= r.level == PF_FAIL;
	pf_built(&r, "kernel", "build/k/base/linux");
	pf_print(&r);
	bad |= r.level == PF_FAIL;
	return bad ? 1 : 0;
}

const struct cmd cmd_doctor = {
	.name = "doctor",
	.usage = "doctor [-m MEM]",
	.help =
"Check what UML needs from this host, and say how to fix what is missing:\n"
"  temp dir  an exec-able temporary directory with room for the guest's\n"
"            memory (MEM, default 256M): $TMPDIR, else /dev/shm or /tmp,\n"
"            as UML chooses; when it does not work, umkit uses the\n"
"            guest's run directory instead (warn)\n"
"  seccomp   seccomp filters can be installed (UML's seccomp mode, SMP)\n"
"  fuse      /dev/fuse opens for you (the mirror; fusermount3 mounts it\n"
"            for an ordinary user, but opens it as that user)\n"
"  aslr      personality(2) can turn address-space randomisation off\n"
"  rootfs, kernel  the kit's own build (make)\n"
"Each line starts with ok, warn or fix; exit status 1 when one says fix.\n"
"exec and start run the same checks before every boot.\n"
"\n"
"Example:\n"
"  umkit doctor -m 1G",
	.max_args = CMD_ARGS_ANY,
	.exec = doctor_main,
};
