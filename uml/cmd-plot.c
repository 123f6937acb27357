/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd-plot.c - 'umkit plot RECORDING [DIR]': a recording's time series
 * as charts (gnuplot, PNG and SVG): memory (meminfo), the MGLRU
 * generations' anon and file pages (lru_gen), compaction and reclaim
 * counters (vmstat, as deltas from the first snapshot).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "patch/bench.h"
#include "recfmt.h"
#include "umkit.h"
#include "util.h"

/* One chart: its file name, title, and the series "file:key" it draws. */
struct chart {
	const char	*name, *title, *ylabel;
	const char	*keys[8];
	int		 delta;		/* counters: minus the first value */
};

static const struct chart charts[] = {
	{ "memory", "memory (meminfo)", "kB",
	  { "meminfo:MemFree", "meminfo:Active(anon)", "meminfo:Inactive(anon)",
	    "meminfo:Active(file)", "meminfo:Inactive(file)", "meminfo:SwapFree",
	    NULL }, 0 },
	{ "lru_gen", "MGLRU generations (lru_gen, all memcgs and nodes)", "pages",
	  { "lru_gen:anon", "lru_gen:file", "lru_gen:generations", NULL }, 0 },
	{ "compaction", "compaction counters (vmstat, since the start)", "pages",
	  { "vmstat:compact_migrate_scanned", "vmstat:compact_free_scanned",
	    "vmstat:compact_isolated", "vmstat:compact_stall", NULL }, 1 },
	{ "reclaim", "reclaim counters (vmstat, since the start)", "pages",
	  { "vmstat:pgscan_kswapd", "vmstat:pgscan_direct", "vmstat:pgsteal_kswapd",
	    "vmstat:workingset_refault_file", "vmstat:pswpout", NULL }, 1 },
};
#define NCHARTS	(sizeof charts / sizeof charts[0])

/* The value of key in a "key value" (vmstat) or "Key: value kB" file; NAN-free: -1. */
static double
kv_value(const char *text, const char *key)
{
	size_t		 n = strlen(key);
	const char	*p = text;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, key, n) == 0 && (p[n] == ' ' || p[n] == ':'))
			return strtod(p + n + 1 + (p[n] == ':'), NULL);
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
	return -1;
}

/* Sum lru_gen's generation rows: "seq age_ms anon file" under memcg/node lines. */
static void
lrugen_sums(const char *text, double *anon, double *file, double *gens)
{
	const char	*p = text;
	double		 a, b, c, d;

	*anon = *file = *gens = 0;
	while (p != NULL && *p != '\0') {
		if (sscanf(p, " %lf %lf %lf %lf", &a, &b, &c, &d) == 4 &&
		    strncmp(p, "memcg", 5) != 0 && strncmp(p, " node", 5) != 0) {
			*anon += c;
			*file += d;
			(*gens)++;
		}
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
}

/* One value of a snapshot. */
static double
snap_value(const char *spec, char **cache)
{
	const char	*k = strchr(spec, ':') + 1;
	double		 a, f, g;

	if (strncmp(spec, "meminfo:", 8) == 0)
		return cache[0] ? kv_value(cache[0], k) : -1;
	if (strncmp(spec, "vmstat:", 7) == 0)
		return cache[1] ? kv_value(cache[1], k) : -1;
	if (cache[2] == NULL)
		return -1;
	lrugen_sums(cache[2], &a, &f, &g);
	return strcmp(k, "anon") == 0 ? a : strcmp(k, "file") == 0 ? f : g;
}

/* umkit plot RECORDING [DIR] */
static int
plot_main(int argc, char **argv)
{
	const char	*rec = argv[1];
	char		*out;
	char		*p, *idx, *gp, *cache[3], rel[32], *dat;
	FILE		*f[NCHARTS], *g;
	double		 first[NCHARTS][8], v;
	struct rec_snap	*snaps = NULL;
	unsigned	 c, k, nsnap = 0;
	int		 i, n;
	char		 err[512];

	/* No options but --help (cmd_run handles it): "-x" is a mistake. */
	if (rec[0] == '-' || (argc > 2 && argv[2][0] == '-')) {
		fprintf(stderr, "plot: unrecognized option '%s'\n",
		    rec[0] == '-' ? rec : argv[2]);
		return cmd_usage(&cmd_plot);
	}
	out = argc > 2 ? xstrdup(argv[2]) : xasprintf("%s/plots", rec);
	/* Paths go into gnuplot's strings, where a line must not end. */
	if (!gnuplot_str_ok(out))
		fatalx("%s: the directory's name has a control character", out);

	p = xasprintf("%s/index", rec);
	if ((idx = read_text(p)) == NULL)
		fatal("%s: not a recording (no index)", rec);
	free(p);
	/* Snapshot names from the index: six digits, nothing else. */
	n = rec_index_parse(idx, strlen(idx), &snaps);
	free(idx);
	mkdir(out, 0755);
	for (c = 0; c < NCHARTS; c++) {
		p = xasprintf("%s/%s.dat", out, charts[c].name);
		if ((f[c] = fopen(p, "w")) == NULL)
			fatal("%s", p);
		fprintf(f[c], "# elapsed_s");
		for (k = 0; charts[c].keys[k] != NULL; k++)
			fprintf(f[c], " %s", strchr(charts[c].keys[k], ':') + 1);
		fprintf(f[c], "\n");
		free(p);
	}
	for (i = 0; i < n; i++) {
		rec_snap_rel(rel, sizeof rel, snaps[i].seq, false);
		p = xasprintf("%s/%s/proc/meminfo", rec, rel);
		cache[0] = read_text(p);
		free(p);
		p = xasprintf("%s/%s/proc/vmstat", rec, rel);
		cache[1] = read_text(p);
		free(p);
		p = xasprintf("%s/%s/sys/kernel/debug/lru_gen", rec, rel);
		cache[2] = read_text(p);
		free(p);
		for (c = 0; c < NCHARTS; c++) {
			fprintf(f[c], "%.3f", snaps[i].elapsed_ms / 1000.0);
			for (k = 0; charts[c].keys[k] != NULL; k++) {
				v = snap_value(charts[c].keys[k], cache);
				if (nsnap == 0)
					first[c][k] = v;
				if (v < 0)
					fprintf(f[c], " NaN");
				else
					fprintf(f[c], " %.0f", charts[c].delta ? v - first[c][k] : v);
			}
			fprintf(f[c], "\n");
		}
		for (k = 0; k < 3; k++)
			free(cache[k]);
		nsnap++;
	}
	free(snaps);
	for (c = 0; c < NCHARTS; c++)
		fclose(f[c]);
	if (nsnap == 0)
		fatalx("%s: the recording has no snapshots", rec);
	gp = xasprintf("%s/plot.gp", out);
	if ((g = fopen(gp, "w")) == NULL)
		fatal("%s", gp);
	/* Every string single-quoted (gnuplot_str): no command substitution. */
	fprintf(g, "# umkit plot\nset grid\nset key outside right\n"
	    "set xlabel 'seconds'\n");
	for (c = 0; c < NCHARTS; c++) {
		dat = xasprintf("%s/%s.dat", out, charts[c].name);
		for (k = 0; k < 2; k++) {
			p = xasprintf("%s/%s.%s", out, charts[c].name,
			    k ? "svg" : "png");
			fprintf(g, "set terminal %s size 800,480\nset output ",
			    k ? "svg" : "pngcairo");
			gnuplot_str(g, p);
			fprintf(g, "\nset title ");
			gnuplot_str(g, charts[c].title);
			fprintf(g, " noenhanced\nset ylabel ");
			gnuplot_str(g, charts[c].ylabel);
			fprintf(g, "\nplot ");
			free(p);
			for (unsigned j = 0; charts[c].keys[j] != NULL; j++) {
				fprintf(g, "%s", j ? ", " : "");
				gnuplot_str(g, dat);
				fprintf(g, " using 1:%u with linespoints title ", j + 2);
				gnuplot_str(g, strchr(charts[c].keys[j], ':') + 1);
				fprintf(g, " noenhanced");
			}
			fprintf(g, "\n");
		}
		free(dat);
	}
	fprintf(g, "unset output\n");
	fclose(g);
	if (gnuplot_run(gp, err, sizeof err) < 0)
		fatalx("%s", err);
	printf("plot: %u snapshots; charts in %s:", nsnap, out);
	for (c = 0; c < NCHARTS; c++)
		printf(" %s.png/.svg", charts[c].name);
	printf("\n");
	free(gp);
	free(out);
	return 0;
}

const struct cmd cmd_plot = {
	.name = "plot",
	.usage = "plot RECORDING [DIR]",
	.help =
"Draw a recording's time series (umkit record) as charts, each a PNG and\n"
"an SVG drawn by gnuplot, in DIR (default RECORDING/plots): memory\n"
"(meminfo), the MGLRU generations' anon and file pages (lru_gen),\n"
"compaction and reclaim counters (vmstat, since the first snapshot).  The\n"
"data files (NAME.dat) and the gnuplot script (plot.gp) stay beside them.\n"
"\n"
"Exit status: 0 the charts were drawn; 125 a bad argument, not a\n"
"recording, or gnuplot failed (the message names which).\n"
"\n"
"Example:\n"
"  umkit record lab rec --for 20 && umkit plot rec",
	.min_args = 1,
	.max_args = 2,
	.exec = plot_main,
};
