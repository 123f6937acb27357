/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-cat.c - finding, loading, listing and checking labs (lab-cat.h).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab.h"
#include "lab-batch.h"
#include "lab-cat.h"
#include "lab-key.h"
#include "util.h"

/* The labs directory. */
static char *
labs_dir(void)
{
	const char	*e = getenv("UMKIT_LABS");

	return e != NULL ? xstrdup(e) : top_path("labs");
}

static bool	trust_all;

/* umkit lab --trust: gdb steps in any lab (lab-cat.h). */
void
lab_trust_all(void)
{
	trust_all = true;
}

/* The validation context: variants from patches/, the kit's own labs. */
static struct lab_env
lab_env(void)
{
	static char		*pd;
	static struct lab_env	 e;
	char			 err[512], *kp, *ld;

	e.trust_all = trust_all;
	if (pd == NULL) {
		ld = top_path("labs");
		e.trusted_dir = realpath(ld, NULL);
		free(ld);
		pd = getenv("UMKIT_PATCHES") ? xstrdup(getenv("UMKIT_PATCHES")) :
		    top_path("patches");
		e.patches_dir = pd;
		if (getenv("UMKIT_PATCHES") == NULL)
			e.own_patches_dir = kit()->own_patches;
		kp = getenv("UMKIT_KERNEL_KEYS") ? xstrdup(getenv("UMKIT_KERNEL_KEYS")) :
		    top_path("labs/kernel-keys");
		if (lab_keys_load(kp, &e, err, sizeof err) < 0)
			fatalx("%s", err);
		free(kp);
	}
	return e;
}

/* The .lab files of the labs directory, sorted. */
int
lab_files(char ***out)
{
	struct dirent	**nl;
	char		 *dir = labs_dir(), **v = NULL;
	int		  n, i, k = 0;
	size_t		  l;

	if ((n = scandir(dir, &nl, NULL, alphasort)) < 0)
		fatal("%s", dir);
	for (i = 0; i < n; i++) {
		l = strlen(nl[i]->d_name);
		if (nl[i]->d_name[0] != '.' && l > 4 &&
		    strcmp(nl[i]->d_name + l - 4, ".lab") == 0) {
			v = xrealloc(v, (k + 1) * sizeof *v);
			v[k++] = xasprintf("%s/%s", dir, nl[i]->d_name);
		}
		free(nl[i]);
	}
	free(nl);
	free(dir);
	*out = v;
	return k;
}

/* A lab by number (2, 02), name (02-mglru, mglru) or path. */
char *
lab_resolve(const char *arg)
{
	char	**f, *found = NULL, *base;
	int	  n, i, hits = 0;
	size_t	  al = strlen(arg);
	long	  num = -1;
	char	 *end;

	if (strchr(arg, '/') != NULL || (al > 4 && strcmp(arg + al - 4, ".lab") == 0)) {
		if (access(arg, R_OK) < 0)
			fatal("%s", arg);
		return xstrdup(arg);
	}
	num = strtol(arg, &end, 10);
	if (*end != '\0')
		num = -1;
	n = lab_files(&f);
	for (i = 0; i < n; i++) {
		base = strrchr(f[i], '/') + 1;
		if ((num >= 0 && strtol(base, NULL, 10) == num && base[0] >= '0' &&
		    base[0] <= '9') ||
		    strncmp(base, arg, al) == 0 ||
		    (strchr(base, '-') && strncmp(strchr(base, '-') + 1, arg, al) == 0)) {
			if (found == NULL)
				found = xstrdup(f[i]);
			hits++;
		}
	}
	for (i = 0; i < n; i++)
		free(f[i]);
	free(f);
	if (hits == 0)
		fatalx("no lab '%s' (see 'umkit lab --list')", arg);
	if (hits > 1)
		fatalx("'%s' names more than one lab (see 'umkit lab --list')", arg);
	return found;
}

/* Load a lab or print its errors; NULL on error. */
struct lab *
lab_open(const char *path)
{
	struct lab_env	 env = lab_env();
	char		*errs;
	struct lab	*l = lab_load(path, &env, &errs);

	if (l == NULL) {
		fputs(errs, stderr);
		free(errs);
	}
	return l;
}

/* umkit lab --list */
int
lab_list(void)
{
	char		**f;
	struct lab	 *l;
	int		  n, i, j, rc = 0, checks, pts;
	char		  vars[128];

	n = lab_files(&f);
	printf("%-18s %4s  %-12s %-22s %s\n", "LAB", "MIN", "LEVEL", "VARIANTS", "TITLE");
	for (i = 0; i < n; i++) {
		if ((l = lab_open(f[i])) == NULL) {
			rc = LAB_EXIT_FILE;
			continue;
		}
		vars[0] = '\0';
		for (j = 0; j < l->nvariants; j++)
			snprintf(vars + strlen(vars), sizeof vars - strlen(vars), "%s%s",
			    j ? "," : "", l->variants[j]);
		pts = lab_points(l, &checks);
		printf("%-18s %4d  %-12s %-22s %s (%d steps, %d checks, %d points)\n",
		    l->name, l->minutes, l->level ? l->level : "-", vars, l->title,
		    l->nsteps, checks, pts);
		lab_free(l);
		free(f[i]);
	}
	free(f);
	return rc;
}

/* umkit lab --check FILE...: validate without booting. */
int
lab_check(int argc, char **argv)
{
	struct lab	*l;
	int		 i, rc = 0, checks;

	for (i = 0; i < argc; i++) {
		char	*p = lab_resolve(argv[i]);

		if ((l = lab_open(p)) == NULL) {
			rc = LAB_EXIT_FILE;
		} else {
			int	sp, kp;

			lab_points(l, &checks);
			lab_points_split(l, &sp, &kp);
			if (l->warns != NULL)
				fputs(l->warns, stderr);
			printf("%s: ok (%d steps, %d checks; %d points from the "
			    "student, %d from the kit's checks)\n", p, l->nsteps,
			    checks, sp, kp);
			lab_free(l);
		}
		free(p);
	}
	return rc;
}

/* umkit lab --seal FILE: the lab with its choice answers and their
 * explanations sealed (lab-key.c), on stdout; what make install ships. */
int
lab_seal(const char *path)
{
	struct lab	*l;
	char		*text;

	if ((l = lab_open(path)) == NULL)
		return LAB_EXIT_FILE;
	if ((text = read_text(path)) == NULL) {
		warnmsg("%s: %s", path, strerror(errno));
		lab_free(l);
		return LAB_EXIT_FILE;
	}
	lab_seal_file(l->name, text, stdout);
	free(text);
	lab_free(l);
	return fflush(stdout) == 0 ? 0 : LAB_EXIT_FILE;
}
