/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd-coverage.c - 'umkit coverage NAME FILE...': which lines of a
 * profiled source file a running guest has run, read through its mirror
 * (the .gcda files under /sys/kernel/debug/gcov) and the notes files its
 * kernel's build left beside it (gcno/, see uml/kernel/kbuild.sh); --reset
 * zeroes the counters first, so a step's own lines can be told apart.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cov/cov.h"
#include "guest/ctl.h"
#include "guest/rundir.h"
#include "umkit.h"
#include "util.h"

/* Copy guest file src (through the mirror) to dst; 0 or -errno. */
static int
copy_file(const char *src, const char *dst)
{
	char	*buf, *dir = xstrdup(dst);
	size_t	 len;
	int	 in, out, rc = 0;

	mkdir_p(dirname(dir), 0755);
	free(dir);
	if ((in = open(src, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	buf = read_fd_all(in, 64u << 20, &len);
	close(in);
	if (buf == NULL)
		return -EIO;
	if ((out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0 ||
	    write_all(out, buf, len) < 0)
		rc = -errno;
	if (out >= 0)
		close(out);
	free(buf);
	return rc;
}

/* Print lines a..b of source s with their counts, gcov's way. */
static void
print_lines(const struct cov_src *s, const char *srcfile, int a, int b)
{
	char	*text = read_text(srcfile), *l, *nl;
	int	 no = 1;

	for (l = text; no <= b; no++, l = nl ? nl + 1 : NULL) {
		long	c = no <= s->nlines ? s->count[no - 1] : -1;

		nl = l ? strchr(l, '\n') : NULL;
		if (no < a)
			continue;
		if (c < 0)
			printf("%9s:%6d:", "-", no);
		else if (c == 0)
			printf("%9s:%6d:", "#####", no);
		else
			printf("%9ld:%6d:", c, no);
		printf("%.*s\n", l ? (int)(nl ? nl - l : (long)strlen(l)) : 0, l ? l : "");
	}
	free(text);
}

/* umkit coverage [--reset] [--lines A-B] NAME FILE... */
static int
coverage_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "reset", no_argument, NULL, 'r' },
		{ "lines", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 }
	};
	const char	*fields[] = { "info", NULL };
	char		*name, *info, kernel[4096], err[1024], *gcno, *mnt, *tmp;
	char		*objtree, *nl, *end;
	struct cov	 c;
	int		 ch, i, reset = 0, la = 0, lb = 0, rc = 0;

	while ((ch = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		switch (ch) {
		case 'r':
			reset = 1;
			break;
		case 'l':
			la = strtol(optarg, &end, 10);
			lb = *end == '-' ? strtol(end + 1, &end, 10) : la;
			if (*end != '\0' || la < 1 || lb < la)
				fatalx("--lines %s: want A-B (line numbers, A <= B) or A",
				    optarg);
			break;
		default:
			return cmd_usage(&cmd_coverage);
		}
	}
	if (optind >= argc || (!reset && optind + 1 >= argc))
		return cmd_usage(&cmd_coverage);
	name = argv[optind++];
	cmd_need_guest(name);
	if ((info = ctl_call(name, fields, NULL, 0, NULL)) == NULL)
		fatalx("guest %s does not answer", name);
	ctl_field(info, "kernel", kernel, sizeof kernel);
	free(info);
	tmp = xstrdup(kernel);
	gcno = xasprintf("%s/gcno", dirname(tmp));
	free(tmp);
	tmp = xasprintf("%s/objtree", gcno);
	if ((objtree = read_text(tmp)) == NULL)
		fatalx("guest %s: its kernel %s has no coverage notes (no %s): "
		    "build a variant with a 'profile', e.g. 'umkit smoke "
		    "--coverage' makes smoke-HASH-cov", name, kernel, tmp);
	free(tmp);
	if ((nl = strchr(objtree, '\n')) != NULL)
		*nl = '\0';
	mnt = run_mnt(name);
	if (reset) {
		char	*r = xasprintf("%s%s/reset", mnt, COV_GUEST_ROOT);
		int	 fd = open(r, O_WRONLY | O_CLOEXEC);

		if (fd < 0 || write(fd, "1\n", 2) != 2)
			fatal("guest %s: %s", name, r);
		close(fd);
		free(r);
		if (optind >= argc) {
			printf("guest %s: coverage counters zeroed\n", name);
			goto out;
		}
	}
	tmp = xstrdup("/tmp/umkit-coverage.XXXXXX");
	if (mkdtemp(tmp) == NULL)
		fatal("mkdtemp");
	for (i = optind; i < argc; i++) {
		size_t	 len = strlen(argv[i]);
		char	*base, *g, *src, *dst;
		int	 r;

		if (len < 3 || argv[i][len - 2] != '.' ||
		    (argv[i][len - 1] != 'c' && argv[i][len - 1] != 'o')) {
			warnmsg("%s: name a source file of the tree (mm/vmscan.c)", argv[i]);
			rc = EXIT_KIT;
			continue;
		}
		base = xasprintf("%.*s", (int)(len - 2), argv[i]);
		g = xasprintf("%s/%s.gcno", gcno, base);
		if (access(g, R_OK) < 0) {
			warnmsg("%s.c is not profiled in guest %s's kernel (no %s)",
			    base, name, g);
			rc = EXIT_KIT;
		} else {
			src = xasprintf("%s%s%s/%s.gcda", mnt, COV_GUEST_ROOT, objtree, base);
			dst = xasprintf("%s%s/%s.gcda", tmp, objtree, base);
			if ((r = copy_file(src, dst)) < 0) {
				warnmsg("guest %s: %s: %s", name, src, strerror(-r));
				rc = EXIT_KIT;
			}
			free(src);
			free(dst);
		}
		free(g);
		free(base);
	}
	cov_init(&c);
	if (rc == 0 && cov_load(&c, gcno, tmp, 1, err, sizeof err) < 0) {
		warnmsg("%s", err);
		rc = EXIT_KIT;
	}
	for (i = optind; rc == 0 && i < argc; i++) {
		char			*p = xasprintf("%.*s.c", (int)strlen(argv[i]) - 2, argv[i]);
		const struct cov_src	*s = cov_find(&c, p);
		int			 k, ex = 0, ran = 0;

		for (k = 0; s != NULL && k < s->nlines; k++) {
			ex += s->count[k] >= 0;
			ran += s->count[k] > 0;
		}
		printf("%s: %d of %d executable lines ran (%.1f%%)\n", p, ran, ex,
		    ex ? 100.0 * ran / ex : 0.0);
		if (s != NULL && la > 0) {
			char *sf = xasprintf("%s/%s", gcno, p);

			print_lines(s, sf, la, lb);
			free(sf);
		}
		free(p);
	}
	cov_free(&c);
	rm_tree(tmp);
	free(tmp);
out:
	free(mnt);
	free(objtree);
	free(gcno);
	return rc;
}

const struct cmd cmd_coverage = {
	.name = "coverage",
	.usage = "coverage [--reset] [--lines A-B] NAME [FILE...]",
	.help =
"Which lines of a source file the running guest NAME has run: its\n"
"kernel's gcov counters (CONFIG_GCOV_KERNEL), read through the guest's\n"
"mirror, against the notes its build left beside the kernel.  FILE is a\n"
"source file the kernel's variant profiles (its 'profile' lists the\n"
"objects; 'umkit smoke --coverage' makes smoke-HASH-cov for the files a\n"
"patch changes).  The counters count from boot, or from --reset.\n"
"\n"
"  --reset       zero every counter first (with no FILE: only that)\n"
"  --lines A-B   also print lines A to B with their counts, as gcov does\n"
"                ('#####': executable, never run; '-': not executable)\n"
"\n"
"Exit status: 0; 125 not a running guest, a file not profiled, no gcov.\n"
"\n"
"Examples:\n"
"  umkit start -k build/smoke/HASH-cov/linux -n g1\n"
"  umkit coverage --reset g1 && umkit exec g1 -- lru-age\n"
"  umkit coverage --lines 5320-5335 g1 mm/vmscan.c",
	.max_args = CMD_ARGS_ANY,
	.exec = coverage_main,
};
