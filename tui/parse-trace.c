/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * parse-trace.c - compaction events from tracing/trace (the non-consuming
 * text view of the ring buffer).  A line is
 *   TASK-PID [CPU] FLAGS TIMESTAMP: EVENT: ARGS
 * (FLAGS absent when irq-info is off); formats are TP_printk in
 * include/trace/events/compaction.h.  Comment lines start with '#'.
 */
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "util.h"

static const struct { const char *name; enum tev_type type; } events[] = {
	{ "mm_compaction_begin", TEV_BEGIN },
	{ "mm_compaction_end", TEV_END },
	{ "mm_compaction_isolate_migratepages", TEV_ISO_MIGRATE },
	{ "mm_compaction_isolate_freepages", TEV_ISO_FREE },
	{ "mm_compaction_fast_isolate_freepages", TEV_ISO_FAST_FREE },
	{ "mm_compaction_migratepages", TEV_MIGRATE },
};

/* The short display name of an event type. */
const char *
tev_name(enum tev_type t)
{
	static const char *const names[] = {
		"begin", "end", "isolate_migrate", "isolate_free",
		"fast_isolate_free", "migratepages", "other",
	};

	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

/* Find "key=" at a word start in args; the value runs to ' ', ',' or ')'. */
static bool
arg(struct tok args, const char *key, struct tok *val)
{
	size_t	k = strlen(key);

	for (size_t i = 0; i + k + 1 <= args.n; i++) {
		if ((i == 0 || args.s[i - 1] == ' ' || args.s[i - 1] == '(') &&
		    memcmp(args.s + i, key, k) == 0 && args.s[i + k] == '=') {
			size_t	st = i + k + 1, e = st;

			while (e < args.n && args.s[e] != ' ' && args.s[e] != ',' &&
			    args.s[e] != ')')
				e++;
			val->s = args.s + st;
			val->n = e - st;
			return true;
		}
	}
	return false;
}

/* A hex argument. */
static bool
arg_hex(struct tok args, const char *key, u64 *v)
{
	struct tok	t;

	return arg(args, key, &t) && tok_hex(t, v);
}

/* A decimal argument. */
static bool
arg_u64(struct tok args, const char *key, u64 *v)
{
	struct tok	t;

	return arg(args, key, &t) && tok_u64(t, v);
}

/* "range=(0xA ~ 0xB)" */
static bool
arg_range(struct tok args, u64 *a, u64 *b)
{
	struct tok	 t, rest;
	const char	*p;

	if (!arg(args, "range", &t) || t.n < 2 || t.s[0] != '(')
		return false;
	t.s++;
	t.n--;
	if (!tok_hex(t, a))
		return false;
	p = t.s + t.n;		/* at the blank before '~' */
	rest.s = p;
	rest.n = (size_t)(args.s + args.n - p);
	if (rest.n < 4 || memcmp(rest.s, " ~ ", 3) != 0)
		return false;
	rest.s += 3;
	rest.n -= 3;
	for (t.n = 0; t.n < rest.n && rest.s[t.n] != ')'; t.n++)
		;
	t.s = rest.s;
	return t.n < rest.n && tok_hex(t, b);
}

/* Parse "SSSS.UUUUUU:" into seconds. */
static bool
timestamp(struct tok t, double *ts)
{
	struct tok	rest, frac;
	u64		s, us;

	if (!tok_u64_prefix(t, &s, &rest) || rest.n < 3 || rest.s[0] != '.' ||
	    rest.s[rest.n - 1] != ':')
		return false;
	frac.s = rest.s + 1;
	frac.n = rest.n - 2;
	if (!tok_u64(frac, &us))
		return false;
	*ts = (double)s;
	{
		double	div = 1;

		for (size_t i = 0; i < frac.n; i++)
			div *= 10;
		*ts += (double)us / div;
	}
	return true;
}

/* Fill an event from its arguments; false when they do not fit. */
static bool
fill(struct tev *e, struct tok args)
{
	struct tok	t;

	switch (e->type) {
	case TEV_BEGIN:
	case TEV_END:
		if (!arg_hex(args, "zone_start", &e->a) ||
		    !arg_hex(args, "migrate_pfn", &e->b) ||
		    !arg_hex(args, "free_pfn", &e->c) ||
		    !arg_hex(args, "zone_end", &e->d) || !arg(args, "mode", &t))
			return false;
		e->sync = tok_eq(t, "sync");
		if (e->type == TEV_END) {
			if (!arg(args, "status", &t))
				return false;
			tok_copy(e->status, sizeof(e->status), t);
		}
		return true;
	case TEV_ISO_MIGRATE:
	case TEV_ISO_FREE:
	case TEV_ISO_FAST_FREE:
		return arg_range(args, &e->a, &e->b) &&
		    arg_u64(args, "nr_scanned", &e->c) &&
		    arg_u64(args, "nr_taken", &e->d);
	case TEV_MIGRATE:
		return arg_u64(args, "nr_migrated", &e->a) &&
		    arg_u64(args, "nr_failed", &e->b);
	case TEV_OTHER:
		return true;
	}
	return false;
}

/* The PID of "TASK-PID" before the cpu field at br, or -1. */
static int
task_pid(const char *s, const char *br)
{
	const char	*p = br;
	long		 pid = 0, mul = 1;

	while (p > s && p[-1] == ' ')
		p--;
	if (p == s || p[-1] < '0' || p[-1] > '9')
		return -1;
	while (p > s && p[-1] >= '0' && p[-1] <= '9' && mul <= 100000000) {
		pid += (p[-1] - '0') * mul;
		mul *= 10;
		p--;
	}
	return p > s && p[-1] == '-' ? (int)pid : -1;
}

/* Parse one event line; 1 compaction event, 0 other event, -1 bad.
 * *event gets the event's name whenever the line has one. */
static int
event_line(struct tok line, struct tev *e, struct tok *event)
{
	struct tok	 t[8], name, args;
	const char	*br = NULL;
	int		 n, i;

	/* the cpu field "[NNN]" follows the task name */
	for (size_t k = 0; k + 2 < line.n; k++)
		if (line.s[k] == '[' && line.s[k + 1] >= '0' && line.s[k + 1] <= '9') {
			br = line.s + k;
			break;
		}
	if (!br)
		return -1;
	e->pid = task_pid(line.s, br);
	{
		struct tok	c = { br + 1, (size_t)(line.s + line.n - br - 1) }, rest;
		u64		cpu;

		if (!tok_u64_prefix(c, &cpu, &rest) || !rest.n || rest.s[0] != ']')
			return -1;
		e->cpu = (int)cpu;
		line.n -= (size_t)(rest.s + 1 - line.s);
		line.s = rest.s + 1;
	}
	n = tok_split(line, t, 8);
	for (i = 0; i < n && i < 8; i++)
		if (timestamp(t[i], &e->ts))
			break;
	if (i + 1 >= n || i + 1 >= 8)
		return -1;
	name = t[i + 1];
	if (name.n < 2 || name.s[name.n - 1] != ':')
		return -1;
	name.n--;
	*event = name;
	args.s = name.s + name.n + 1;
	args.n = (size_t)(line.s + line.n - args.s);
	if (name.n < 14 || memcmp(name.s, "mm_compaction_", 14) != 0)
		return 0;
	e->type = TEV_OTHER;
	for (size_t k = 0; k < sizeof(events) / sizeof(events[0]); k++)
		if (tok_eq(name, events[k].name))
			e->type = events[k].type;
	return fill(e, args) ? 1 : -1;
}

/* Parse the whole buffer, keeping compaction events in order. */
int
parse_trace(const char *buf, size_t len, struct trace *tr)
{
	struct lines	l;
	struct tok	line;

	tr->n = 0;
	tr->other_lines = 0;
	tr->counts.n = 0;
	tr->err[0] = '\0';
	lines_init(&l, buf, len);
	while (lines_next(&l, &line)) {
		struct tok	event = { NULL, 0 };
		struct tev	e;
		int		r;

		/* a read of the ring buffer may end mid-line: that line is
		 * not an event yet (its numbers may be cut), so skip it */
		if (line.s + line.n == buf + len && buf[len - 1] != '\n')
			break;
		while (line.n && line.s[0] == ' ')
			line.s++, line.n--;
		if (line.n == 0 || line.s[0] == '#')
			continue;
		memset(&e, 0, sizeof(e));
		r = event_line(line, &e, &event);
		if (r >= 0)
			(*kv_slot(&tr->counts, event))++;
		if (r < 0) {
			perr(tr->err, l.lineno, "unreadable trace line");
			continue;
		}
		if (r == 0) {
			tr->other_lines++;
			continue;
		}
		if (tr->n == tr->cap) {
			tr->cap = tr->cap ? tr->cap * 2 : 256;
			tr->ev = xrealloc(tr->ev, (size_t)tr->cap * sizeof(*tr->ev));
		}
		tr->ev[tr->n++] = e;
	}
	return tr->err[0] ? -1 : 0;
}

/* Free the event array. */
void
trace_free(struct trace *tr)
{
	free(tr->ev);
	tr->ev = NULL;
	tr->n = tr->cap = 0;
	kv_free(&tr->counts);
}
