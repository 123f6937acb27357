/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * smoke-stage.c - the stages of a smoke run as they end: the line each
 * prints, and the record behind --ktap and --junit (smoke.h).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smoke.h"
#include "util.h"

/* Whether a stage passed. */
static int
stage_ok(const struct smoke_stage *st)
{
	return strncmp(st->text, "ok", 2) == 0;
}

/* Print the stage line and record it. */
void
smoke_stage(struct smoke *s, const char *name, const char *fmt, ...)
{
	va_list	ap;
	char	*t;

	va_start(ap, fmt);
	t = xvasprintf(fmt, ap);
	va_end(ap);
	printf("smoke: %-6s %s\n", name, t);
	fflush(stdout);
	if (s->nstages < SMOKE_MAX_STAGES) {
		s->stages[s->nstages].name = xstrdup(name);
		s->stages[s->nstages].text = t;
		s->stages[s->nstages].secs = (now_ms() - s->stage_t0) / 1000.0;
		s->nstages++;
	} else
		free(t);
	s->stage_t0 = now_ms();
}

/* Add a line to the last stage's detail. */
void
smoke_stage_detail(struct smoke *s, const char *line)
{
	struct smoke_stage	*st;
	char			*n;

	if (s->nstages == 0)
		return;
	st = &s->stages[s->nstages - 1];
	n = st->detail ? xasprintf("%s\n%s", st->detail, line) : xstrdup(line);
	free(st->detail);
	st->detail = n;
}

/* The stages as KTAP: a plan, one result line per stage, its detail as
 * diagnostic lines. */
void
smoke_ktap(const struct smoke *s, FILE *f)
{
	const char	*p, *nl;
	int		 i;

	fprintf(f, "KTAP version 1\n1..%d\n", s->nstages);
	for (i = 0; i < s->nstages; i++) {
		fprintf(f, "%s %d %s # %s\n", stage_ok(&s->stages[i]) ? "ok" :
		    "not ok", i + 1, s->stages[i].name, s->stages[i].text);
		for (p = s->stages[i].detail; p != NULL; p = nl ? nl + 1 : NULL) {
			nl = strchr(p, '\n');
			fprintf(f, "# %.*s\n", nl ? (int)(nl - p) : (int)strlen(p), p);
		}
	}
}

/* Write text to f escaped for XML. */
static void
xml_put(FILE *f, const char *text)
{
	char	*e = xml_escape(text);

	fputs(e, f);
	free(e);
}

/* The stages as a JUnit XML test suite. */
void
smoke_junit(const struct smoke *s, FILE *f)
{
	int	i, nfail = 0;

	for (i = 0; i < s->nstages; i++)
		nfail += !stage_ok(&s->stages[i]);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
	    "<testsuite name=\"umkit smoke ");
	xml_put(f, s->variant ? s->variant : "?");
	fprintf(f, "\" tests=\"%d\" failures=\"%d\">\n", s->nstages, nfail);
	if (s->npatches > 0) {
		fprintf(f, "  <properties>\n");
		for (i = 0; i < s->npatches; i++)
			if (s->cov_prop[i] != NULL) {
				fprintf(f, "    <property name=\"coverage %04d.patch\" "
				    "value=\"", i + 1);
				xml_put(f, s->cov_prop[i]);
				fprintf(f, "\"/>\n");
			}
		fprintf(f, "  </properties>\n");
	}
	for (i = 0; i < s->nstages; i++) {
		fprintf(f, "  <testcase classname=\"smoke\" name=\"");
		xml_put(f, s->stages[i].name);
		fprintf(f, "\" time=\"%.3f\">", s->stages[i].secs);
		if (!stage_ok(&s->stages[i])) {
			fprintf(f, "<failure message=\"");
			xml_put(f, s->stages[i].text);
			fprintf(f, "\"/>");
		}
		fprintf(f, "<system-out>");
		xml_put(f, s->stages[i].text);
		if (s->stages[i].detail != NULL) {
			fputc('\n', f);
			xml_put(f, s->stages[i].detail);
		}
		fprintf(f, "</system-out></testcase>\n");
	}
	fprintf(f, "</testsuite>\n</testsuites>\n");
}

int
smoke_json_write(const struct smoke *s, const char *verdict)
{
	json_error_t	 je;
	json_t		*o = NULL, *st = json_array(), *fl = json_array();
	int		 i, rc;

	/* the bench stage's file of this run, or a new one */
	if (s->json_bench && (o = json_load_file(s->json, JSON_REJECT_DUPLICATES,
	    &je)) == NULL)
		return -1;
	if (o == NULL)
		o = json_object();
	for (i = 0; i < s->nstages; i++)
		json_array_append_new(st, json_pack("{s:s, s:b, s:s, s:f, s:s?}",
		    "name", s->stages[i].name, "ok", stage_ok(&s->stages[i]),
		    "text", s->stages[i].text, "secs", s->stages[i].secs,
		    "detail", s->stages[i].detail));
	for (i = 0; s->file_state != NULL && i < s->nchanged; i++)
		json_array_append_new(fl, json_pack("{s:s, s:s, s:s}", "file",
		    s->changed[i], "state", s->file_state[i], "line",
		    s->file_line[i]));
	json_object_set_new(o, "umkit_smoke", json_integer(1));
	json_object_set_new(o, "variant", json_string(s->variant ? s->variant : "?"));
	json_object_set_new(o, "verdict", json_string(verdict));
	json_object_set_new(o, "stages", st);
	json_object_set_new(o, "files", fl);
	rc = json_dump_file(o, s->json, JSON_INDENT(1));
	json_decref(o);
	return rc;
}

/* Write the JUnit suite to path. */
int
smoke_junit_write(const struct smoke *s, const char *path)
{
	struct afile	 af;
	FILE		*f;

	if ((f = afile_open(&af, path, 0644)) == NULL)
		return -1;
	smoke_junit(s, f);
	return afile_commit(&af);
}
