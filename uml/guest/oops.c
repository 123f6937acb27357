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
	const char	*start, *stop;
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
	/* To the end marker, or max lines. */
	for (stop = first, n = 0; stop != NULL && *stop != '\0' && n < max; n++) {
		end = strchr(stop, '\n');
		if (strncmp(stop, "---[ end ", 9) == 0 ||
		    (strstr(stop, "---[ end ") != NULL &&
		    (end == NULL || strstr(stop, "---[ end ") < end))) {
			stop = end ? end + 1 : stop + strlen(stop);
			break;
		}
		stop = end ? end + 1 : stop + strlen(stop);
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
	char			*script = NULL, *in = NULL, *out = NULL;
	char			 tmpl[] = "/tmp/umkit-oops-XXXXXX";
	int			 fd = -1, p[2], st;
	pid_t			 pid;
	FILE			*f;
	size_t			 len = 0, size = 0;
	ssize_t			 n;
	char			 buf[4096];

	if (gdb_kernel_find(kernel, &k) < 0)
		return NULL;
	if (!k.debuginfo || k.src == NULL)
		goto out;
	script = xasprintf("%s/scripts/decode_stacktrace.sh", k.src);
	if (access(script, R_OK) < 0)
		goto out;
	if ((fd = mkostemp(tmpl, O_CLOEXEC)) < 0)
		goto out;
	in = tmpl;
	if (write_all(fd, report, strlen(report)) < 0)
		goto out;
	lseek(fd, 0, SEEK_SET);
	if (pipe2(p, O_CLOEXEC) < 0)
		goto out;
	fflush(NULL);
	if ((pid = fork()) < 0)
		fatal("fork");
	if (pid == 0) {
		dup2(fd, 0);
		dup2(p[1], 1);
		/* "auto": the script finds the tree's path from kernel_init. */
		execlp("bash", "bash", script, k.binary, "auto", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if ((f = fdopen(p[0], "r")) == NULL)
		fatal("fdopen");
	while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
		if (len + n + 1 > size)
			out = xrealloc(out, size = (len + n + 1) * 2);
		memcpy(out + len, buf, n);
		len += n;
	}
	fclose(f);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (out != NULL)
		out[len] = '\0';
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || len == 0) {
		free(out);
		out = NULL;
	}
out:
	if (fd >= 0)
		close(fd);
	if (in != NULL)
		unlink(in);
	free(script);
	gdb_kernel_free(&k);
	return out;
}

/* Print each line of text after indent. */
static void
print_indented(FILE *f, const char *text, const char *indent)
{
	const char	*p, *end;

	for (p = text; p != NULL && *p != '\0'; p = end ? end + 1 : NULL) {
		end = strchr(p, '\n');
		fprintf(f, "%s%.*s\n", indent, end ? (int)(end - p) :
		    (int)strlen(p), p);
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
