/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * repro.h - umkit reproduce: each seed thread's own table beside the
 * kit's figures, measured under the thread's conditions.
 *
 * A seed (seeds.c) is one variant kernel and one guest script,
 * rootfs/repro-SEED.sh, that runs the thread's settings ("columns")
 * interleaved in one boot through the variant's runtime switches and
 * prints, per column and round,
 *
 *	repro: COLUMN KEY=VALUE KEY=VALUE ...
 *
 * and, once, "repro-info: TEXT" lines that give context.  The seed's rows
 * each name a KEY and the thread's own figure per column.  The engine
 * (repro.c) boots the kernel N times per boot group (a CPU count and the
 * script's arguments), reads the lines (repro-out.c: guest output is
 * untrusted: bounded, names checked, unknown columns refused), and prints
 * per row the thread's figures beside the kit's mean, spread, % change,
 * its 95% interval and Welch's p adjusted with Holm-Bonferroni across the
 * seed's comparisons (stats.h, as umkit compare), and whether the kit's
 * change goes the thread's way and is larger than the spread.
 */
#ifndef UMKIT_REPRO_H
#define UMKIT_REPRO_H

#include <stdio.h>

#define REPRO_MAX_COLS		6
#define REPRO_MAX_ROWS		20
#define REPRO_MAX_GROUPS	6
#define REPRO_MAX_SAMPLES	2048	/* per row and column */
#define REPRO_MAX_INFO		24	/* repro-info lines kept */
#define REPRO_INFO_LEN		160	/* characters of one */
#define REPRO_NAME_MAX		32	/* a COLUMN or KEY: [a-z0-9_], 1-32 */

/* A group of boots: the guest's CPUs and the script's arguments. */
struct repro_boot {
	int		 cpus;		/* 0 ends the list */
	const char	*args;		/* the default run's */
	const char	*quick_args;	/* --quick's */
};

/* One row of the thread's table and the kit's KEY that stands for it. */
struct repro_row {
	const char	*name;		/* the thread's row name; NULL ends */
	const char	*key;		/* the guest's KEY */
	const char	*unit;		/* of the kit's figure */
	int		 lower_better;
	int		 group;		/* the boots it comes from (boot[]) */
	/* The thread's figure per column, as the thread prints it (a
	 * number first; a k/M/G suffix scales it); NULL: none. */
	const char	*thread[REPRO_MAX_COLS];
	/* Why UML cannot show the row as the thread did, and which
	 * in-kernel figure stands for it; NULL when it can. */
	const char	*note;
};

struct repro_seed {
	const char	*id;		/* "000"; NULL ends repro_seeds[] */
	const char	*file;		/* the thread in ../shared/seeds/ */
	const char	*title;
	const char	*thread_setup;	/* the thread's benchmark and machine */
	const char	*kit_setup;	/* what the kit runs instead */
	const char	*variant;
	const char	*script;	/* the guest command, repro-SEED */
	int		 mem_mb;	/* guest memory (0: exec's default) */
	const char	*disk;		/* exec -d (NULL: its default) */
	int		 timeout;	/* seconds per boot */
	int		 boots, quick_boots;	/* per group */
	const char	*col[REPRO_MAX_COLS];	/* the guest's, baseline first */
	const char	*thread_col[REPRO_MAX_COLS];	/* the thread's names */
	/* The column each column is compared with (0: the first). */
	int		 base[REPRO_MAX_COLS];
	struct repro_boot boot[REPRO_MAX_GROUPS];
	struct repro_row row[REPRO_MAX_ROWS];
};

extern const struct repro_seed repro_seeds[];

/* The seed called id ("002", or "2"), or NULL. */
const struct repro_seed *repro_find(const char *id);

/* The samples of one seed's run. */
struct repro_data {
	const struct repro_seed	*s;
	double		*v[REPRO_MAX_ROWS][REPRO_MAX_COLS];	/* allocated */
	int		 n[REPRO_MAX_ROWS][REPRO_MAX_COLS];
	char		*info[REPRO_MAX_INFO];	/* repro-info lines, printable */
	int		 info_g[REPRO_MAX_INFO];	/* the boot group of each */
	int		 ninfo;
	int		 refused;	/* result lines or pairs not read */
	int		 boots;		/* boots run, all groups */
	int		 quick;
	double		 secs;		/* the whole run's wall time */
	char		*host;		/* bench_host_id() */
	char		*from;		/* the file it was read from, or NULL */
};

void	repro_data_init(struct repro_data *, const struct repro_seed *);
void	repro_data_free(struct repro_data *);
/*
 * Add the result lines of one boot of group g (out: the guest's stdout,
 * cut into lines in place) to d.  Lines not starting "repro: " or
 * "repro-info: " are skipped; a line with an unknown column, a bad name or
 * a value that is not a finite number counts in d->refused (its good pairs
 * are kept).  Returns the number of samples added.
 */
int	repro_parse_out(struct repro_data *d, int g, char *out);

/* One comparison: a row's column c against its base column (base[c]). */
struct repro_cmp {
	double	 mean[2], sd[2];
	int	 n[2];
	double	 change_pct, ci_lo, ci_hi, p, p_holm;
	double	 thread_pct;	/* the thread's change (NAN: no figures) */
	int	 dir;		/* 1 same way as the thread, -1 opposite,
				   0 no thread figure or no change */
	int	 beyond;	/* |difference| > the larger sd */
	int	 ok;		/* both sides have 2+ samples */
};

/* The comparisons of d: cmp[row][col] for col >= 1 against the column's
 * base, Holm across them all. */
void	repro_stats(const struct repro_data *d,
	    struct repro_cmp cmp[REPRO_MAX_ROWS][REPRO_MAX_COLS]);
/* The number in a thread figure ("120.69M" -> 1.2069e8), NAN if none. */
double	repro_thread_value(const char *fig);

/* Boots of s at a time for -j jobs on ncpu host CPUs: a host CPU per guest CPU. */
int	repro_jobs(const struct repro_seed *s, int jobs, int ncpu);
/* Run seed s: n boots per group (0: its default), quick: --quick; a
 * guest of several CPUs is not pinned, and repro_jobs() of them at once. */
int	repro_run(const struct repro_seed *s, int n, int quick, int jobs,
	    struct repro_data *d);
/* The table of d. */
void	repro_table(const struct repro_data *d, FILE *f);
/* d as a KTAP subtest block (indent: the nesting's spaces); 1 if ok. */
int	repro_ktap(const struct repro_data *d, FILE *f, int num);
/*
 * One line "reproduce: NAME=MEAN ... NAME_pct=CHANGE ..." (NAME: the
 * row's KEY, _cN for a row of a boot group at N CPUs other than the
 * first group's, then _COLUMN): what a lab's reproduce step reads as
 * result(reproduce.NAME).  _pct is the change against the first column.
 */
void	repro_results_line(const struct repro_data *d, FILE *f);
/*
 * Several seeds' data as one JSON file, whole or not at all; 0 or -1
 * (errno).  Each seed is an object with "format": REPRO_JSON_FORMAT, its
 * run's facts (host, quick, boots, secs, refused, info), and per row and
 * column the samples with the statistics computed from them.
 */
int	repro_json_write(const struct repro_data *d, int nd, const char *path);
#define REPRO_JSON_FORMAT	1
/* The same as a JSON array (repro-json.c; the caller decrefs it). */
struct json_t *repro_json(const struct repro_data *d, int nd);
/*
 * A stored run read back from the n bytes of buf (untrusted): at most
 * max seeds into d[], each initialised here.  Only the samples and the
 * run's facts are taken; rows and columns must be this kit's seed's, in
 * its order.  Returns the number of seeds, or -1 with a message in err
 * that says where (entry, row, column, sample) and nothing allocated.
 */
int	repro_json_parse(const char *buf, size_t n, struct repro_data *d,
	    int max, char *err, size_t len);
/* The same from a file (at most REPRO_FILE_MAX bytes, a regular file);
 * d->from is path.  -1 with "PATH: ..." in err. */
#define REPRO_FILE_MAX		(64 << 20)
int	repro_json_load(const char *path, struct repro_data *d, int max,
	    char *err, size_t len);
/* The runs of nf files, only seed want's unless it is NULL (none of it
 * is an error); the number kept, or -1 with "FILE: ..." in err and
 * nothing kept. */
int	repro_json_load_all(char **files, int nf, const struct repro_seed *want,
	    struct repro_data *d, int max, char *err, size_t len);

#endif
