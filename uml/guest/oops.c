/* SPDX-License-Identifier: GPL-2.0-only */
/* oops.c - find a kernel report in console text and decode it (oops.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gdb.h"
#include "oops.h"
#include "sandbox.h"
#include "spawn.h"
#include "util.h"

/* First lines of a report that means the kernel died or may die. */
static const char *const fatal_marks[] = {
	"Kernel panic - not syncing", "BUG: ", "Oops: ", "kernel BUG at",
	"general protection fault", "Unable to handle kernel", NULL
};
/* First lines of a warning (the kernel goes on). */
static const char *const warn_marks[] = {
	"------------[ cut here ]------------", "WARNING: ", NULL
};

/* Whether line [p, end) holds one of marks. */
static int
has_mark(const char *p, const char *end, const char *const *marks)
{
	size_t	n;

	for (; *marks != NULL; marks++) {
		n = strlen(*marks);
		if (memmem(p, end - p, *marks, n) != NULL)
			return 1;
	}
	return 0;
}

/* The first report of text, with up to three lines before it. */
char *
oops_find(const char *text, int max, int *warn)
{
	const char	*p, *end, *first = NULL, *prev[3] = { NULL, NULL, NULL };
	const char	*start, *stop, *eol;
	int		 n, w = 0;

	for (p = text; p != NULL && *p != '\0'; p = end ? end + 1 : NULL) {
		end = strchr(p, '\n');
		if (has_mark(p, end ? end : p + strlen(p), fatal_marks)) {
			first = p;
			break;
		}
		if (has_mark(p, end ? end : p + strlen(p), warn_marks)) {
			first = p;
			w = 1;
			break;
		}
		prev[0] = prev[1];
		prev[1] = prev[2];
		prev[2] = p;
	}
	if (first == NULL)
		return NULL;
	start = prev[0] ? prev[0] : prev[1] ? prev[1] : prev[2] ? prev[2] : first;
	/* To the end marker (searched within each line), or max lines. */
	for (stop = first, n = 0; stop != NULL && *stop != '\0' && n < max; n++) {
		end = strchr(stop, '\n');
		eol = end ? end : stop + strlen(stop);
		if (memmem(stop, (size_t)(eol - stop), "---[ end ", 9) != NULL) {
			stop = end ? end + 1 : eol;
			break;
		}
		stop = end ? end + 1 : eol;
	}
	if (warn != NULL)
		*warn = w;
	return xasprintf("%.*s", (int)(stop - start), start);
}

/* Run decode_stacktrace.sh on report; its output, or NULL. */
char *
oops_decode(const char *kernel, const char *report)
{
	struct gdb_kernel	 k;
	struct spawn		 sp;
	struct sandbox		 sb = { 0 };
	char			*script = NULL, *out = NULL, *argv[5];
	char			 tmpl[] = "/tmp/umkit-oops-XXXXXX";
	int			 fd = -1, st;

	if (gdb_kernel_find(kernel, &k) < 0)
		return NULL;
	if (!k.debuginfo || k.src == NULL)
		goto out;
	script = xasprintf("%s/scripts/decode_stacktrace.sh", k.src);
	if (access(script, R_OK) < 0)
		goto out;
	if ((fd = mkostemp(tmpl, O_CLOEXEC)) < 0)
		goto out;
	unlink(tmpl);
	if (write_all(fd, report, strlen(report)) < 0)
		goto out;
	lseek(fd, 0, SEEK_SET);
	/* "auto": the script finds the tree's path from kernel_init. */
	argv[0] = "bash";
	argv[1] = script;
	argv[2] = k.binary;
	argv[3] = "auto";
	argv[4] = NULL;
	/* A patch's tree: its script runs in the sandbox, or not at all. */
	if (!k.trusted) {
		if (!sandbox_use(1, script) )
			goto out;
		sandbox_init(&sb);
		sandbox_ro(&sb, k.binary);
		sandbox_ro(&sb, k.obj);
		sandbox_ro(&sb, k.src);
		sandbox_ro(&sb, kit()->cache);
		spawn_init(&sp, sandbox_argv(&sb, argv));
	} else
		spawn_init(&sp, argv);
	sp.in = fd;
	sp.out = SPAWN_CAPTURE;
	st = spawn_run(&sp);
	if (st == 0 && sp.len > 0)
		out = sp.output;
	else
		spawn_free(&sp);
out:
	sandbox_free(&sb);
	if (fd >= 0)
		close(fd);
	free(script);
	gdb_kernel_free(&k);
	return out;
}

/*
 * Print each line of text after indent; the guest wrote it, so a control
 * character (an escape sequence for the terminal) is printed as '?', but
 * a tab, and a CR at a line's end is left out.
 */
static void
print_indented(FILE *f, const char *text, const char *indent)
{
	const char	*p, *end, *c;

	for (p = text; p != NULL && *p != '\0'; p = end ? end + 1 : NULL) {
		end = strchr(p, '\n');
		fputs(indent, f);
		for (c = p; c < (end ? end : p + strlen(p)); c++) {
			if (*c == '\r' && c + 1 == end)
				break;
			fputc(((unsigned char)*c < 0x20 && *c != '\t') ||
			    *c == 0x7f ? '?' : *c, f);
		}
		fputc('\n', f);
	}
}

/* Print the report, decoded when the kernel allows. */
int
oops_print(FILE *f, const char *kernel, const char *report, const char *indent)
{
	char	*d = kernel != NULL ? oops_decode(kernel, report) : NULL;

	if (d != NULL) {
		print_indented(f, d, indent);
		free(d);
		return 1;
	}
	print_indented(f, report, indent);
	if (strstr(report, "[<") != NULL)
		fprintf(f, "umkit: call trace not decoded: %s\n",
		    gdb_nodebug_hint());
	return 0;
}
