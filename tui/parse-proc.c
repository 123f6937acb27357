/* SPDX-License-Identifier: GPL-2.0-only */
/* parse-proc.c - /proc/PID/status, /proc/PID/statm, /proc/stat,
 * /proc/pressure/memory and /proc/sys/kernel/osrelease. */
#include <string.h>

#include "parse.h"

/* "Key:\tvalue [kB]" lines of /proc/PID/status. */
int
parse_pidstatus(const char *buf, size_t len, struct pidstatus *ps)
{
	static const struct { const char *key; size_t off; } kb[] = {
		{ "VmRSS:", offsetof(struct pidstatus, vm_rss) },
		{ "RssAnon:", offsetof(struct pidstatus, rss_anon) },
		{ "RssFile:", offsetof(struct pidstatus, rss_file) },
		{ "RssShmem:", offsetof(struct pidstatus, rss_shmem) },
		{ "VmSwap:", offsetof(struct pidstatus, vm_swap) },
	};
	struct lines	l;
	struct tok	line, t[4];
	bool		have_pid = false;
	u64		v;

	memset(ps, 0, sizeof(*ps));
	lines_init(&l, buf, len);
	while (lines_next(&l, &line)) {
		int	n = tok_split(line, t, 4);

		if (n < 2)
			continue;
		if (tok_eq(t[0], "Name:")) {
			/* the name may contain blanks: take the rest of the line */
			struct tok	r = { t[1].s, (size_t)(line.s + line.n - t[1].s) };

			tok_copy(ps->name, sizeof(ps->name), r);
		} else if (tok_eq(t[0], "Pid:") && tok_u64(t[1], &v)) {
			ps->pid = (int)v;
			have_pid = true;
		} else if (tok_eq(t[0], "Threads:") && tok_u64(t[1], &v)) {
			ps->threads = (int)v;
		} else if (t[0].n > 7 && memcmp(t[0].s, "Rss", 3) == 0 &&
		    memmem(t[0].s, t[0].n, "Mode", 4)) {
			tok_copy(ps->mode, sizeof(ps->mode), t[1]);
		} else {
			for (size_t i = 0; i < sizeof(kb) / sizeof(kb[0]); i++)
				if (tok_eq(t[0], kb[i].key)) {
					if (n != 3 || !tok_u64(t[1], &v) || !tok_eq(t[2], "kB"))
						perr(ps->err, l.lineno, "bad %s line", kb[i].key);
					else
						*(u64 *)((char *)ps + kb[i].off) = v;
				}
		}
	}
	cut_short(ps->err, buf, len, l.lineno, "status");
	if (!have_pid)
		perr(ps->err, 0, "status: no Pid line");
	return ps->err[0] ? -1 : 0;
}

/* Seven page counts on one line. */
int
parse_statm(const char *buf, size_t len, struct statm *sm)
{
	struct lines	 l;
	struct tok	 line, t[8];
	u64		*f[] = { &sm->size, &sm->resident, &sm->shared,
	    &sm->text, &sm->lib, &sm->data, &sm->dt };

	memset(sm, 0, sizeof(*sm));
	lines_init(&l, buf, len);
	if (!lines_next(&l, &line) || tok_split(line, t, 8) != 7) {
		perr(sm->err, 1, "statm: expected 7 numbers");
		return -1;
	}
	for (int i = 0; i < 7; i++)
		if (!tok_u64(t[i], f[i])) {
			perr(sm->err, 1, "statm: bad number %d", i + 1);
			return -1;
		}
	if (cut_short(sm->err, buf, len, 1, "statm")) {
		memset(sm, 0, offsetof(struct statm, err));
		return -1;
	}
	return 0;
}

/*
 * "PID (COMM) STATE PPID ... RSS ...": COMM may hold blanks and ')', so
 * the fields are counted from the last ')'; RSS is field 24.
 */
int
parse_pidstat(const char *buf, size_t len, struct pidstat *ps)
{
	struct lines	 l;
	struct tok	 line, rest, t[24];
	const char	*rp = NULL;
	u64		 pid;
	size_t		 i;

	memset(ps, 0, sizeof(*ps));
	lines_init(&l, buf, len);
	if (!lines_next(&l, &line)) {
		perr(ps->err, 1, "stat: empty");
		return -1;
	}
	for (i = 0; i < line.n; i++)
		if (line.s[i] == ')')
			rp = line.s + i;
	rest.s = line.s;
	rest.n = 0;
	while (rest.n < line.n && line.s[rest.n] != ' ')
		rest.n++;
	if (rp == NULL || !tok_u64(rest, &pid) || pid > 1U << 30) {
		perr(ps->err, 1, "stat: expected 'PID (COMM) ...'");
		return -1;
	}
	rest.s = rp + 1;
	rest.n = (size_t)(line.s + line.n - rest.s);
	/* fields 3 .. 24 after the ')': state is t[0], rss t[21] */
	if (tok_split(rest, t, 24) < 22 || !tok_u64(t[21], &ps->rss)) {
		perr(ps->err, 1, "stat: no resident pages (field 24)");
		return -1;
	}
	if (cut_short(ps->err, buf, len, 1, "stat")) {
		ps->rss = 0;
		return -1;
	}
	ps->pid = (int)pid;
	return 0;
}

/* The leading "MAJOR.MINOR" of the kernel release string. */
int
parse_osrelease(const char *buf, size_t len, struct osrelease *o)
{
	struct lines	l;
	struct tok	line, t[2], rest;
	u64		major, minor;

	memset(o, 0, sizeof(*o));
	lines_init(&l, buf, len);
	if (!lines_next(&l, &line) || tok_split(line, t, 2) != 1 ||
	    !tok_u64_prefix(t[0], &major, &rest) || rest.n < 2 || rest.s[0] != '.') {
		perr(o->err, 1, "osrelease: expected MAJOR.MINOR");
		return -1;
	}
	rest.s++;
	rest.n--;
	if (!tok_u64_prefix(rest, &minor, &rest) || (rest.n && rest.s[0] != '.' &&
	    rest.s[0] != '-' && rest.s[0] != '+') || major > 999 || minor > 999) {
		perr(o->err, 1, "osrelease: expected MAJOR.MINOR");
		return -1;
	}
	o->major = (int)major;
	o->minor = (int)minor;
	return cut_short(o->err, buf, len, 1, "osrelease") ? -1 : 0;
}

/* The aggregate cpu line and the count of per-cpu lines. */
int
parse_cpustat(const char *buf, size_t len, struct cpustat *cs)
{
	struct lines	l;
	struct tok	line, t[12];
	bool		have = false;

	memset(cs, 0, sizeof(*cs));
	lines_init(&l, buf, len);
	while (lines_next(&l, &line)) {
		int	n = tok_split(line, t, 12);

		if (n < 1 || t[0].n < 3 || memcmp(t[0].s, "cpu", 3) != 0)
			continue;
		if (t[0].n > 3) {
			cs->ncpus++;
			continue;
		}
		u64	*f[] = { &cs->user, &cs->nice, &cs->system, &cs->idle,
		    &cs->iowait, &cs->irq, &cs->softirq, &cs->steal };
		if (n < 9) {
			perr(cs->err, l.lineno, "stat: short cpu line");
			continue;
		}
		for (int i = 0; i < 8; i++)
			if (!tok_u64(t[1 + i], f[i]))
				perr(cs->err, l.lineno, "stat: bad cpu field %d", i + 1);
		have = true;
	}
	cut_short(cs->err, buf, len, l.lineno, "stat");
	if (!have)
		perr(cs->err, 0, "stat: no cpu line");
	return cs->err[0] ? -1 : 0;
}

/* Parse "D.DD" as a double (PSI averages). */
static bool
decimal(struct tok t, double *d)
{
	struct tok	rest;
	u64		ip, fp;

	if (!tok_u64_prefix(t, &ip, &rest) || rest.n != 3 || rest.s[0] != '.')
		return false;
	rest.s++;
	rest.n--;
	if (!tok_u64(rest, &fp))
		return false;
	*d = (double)ip + (double)fp / 100.0;
	return true;
}

/* "some|full avg10=A avg60=B avg300=C total=T" lines. */
int
parse_psi(const char *buf, size_t len, struct psi *p)
{
	struct lines	l;
	struct tok	line, t[6];

	memset(p, 0, sizeof(*p));
	lines_init(&l, buf, len);
	while (lines_next(&l, &line)) {
		int		 n = tok_split(line, t, 6);
		struct psi_line	*pl;
		struct tok	 v[4];

		if (n == 0)
			continue;
		if (tok_eq(t[0], "some"))
			pl = &p->some;
		else if (tok_eq(t[0], "full"))
			pl = &p->full;
		else {
			perr(p->err, l.lineno, "psi: unknown line");
			continue;
		}
		if (n != 5) {
			perr(p->err, l.lineno, "psi: expected 4 fields");
			continue;
		}
		for (int i = 0; i < 4; i++) {
			static const char *const	key[] = { "avg10=", "avg60=", "avg300=", "total=" };
			size_t				k = strlen(key[i]);

			if (t[1 + i].n <= k || memcmp(t[1 + i].s, key[i], k) != 0) {
				perr(p->err, l.lineno, "psi: expected %s", key[i]);
				goto next;
			}
			v[i].s = t[1 + i].s + k;
			v[i].n = t[1 + i].n - k;
		}
		if (!decimal(v[0], &pl->avg10) || !decimal(v[1], &pl->avg60) ||
		    !decimal(v[2], &pl->avg300) || !tok_u64(v[3], &pl->total_us)) {
			perr(p->err, l.lineno, "psi: bad number");
			continue;
		}
		pl->present = true;
next:		;
	}
	cut_short(p->err, buf, len, l.lineno, "psi");
	if (!p->some.present)
		perr(p->err, 0, "psi: no 'some' line");
	return p->err[0] ? -1 : 0;
}
