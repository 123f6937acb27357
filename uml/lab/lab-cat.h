/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-cat.h - the labs the kit knows: labs/NN-name.lab (or $UMKIT_LABS),
 * found by number, name or path, loaded with the kit's variants and
 * kernel keys (labs/kernel-keys) as the validation context, listed and
 * checked.
 */
#ifndef UMKIT_LAB_CAT_H
#define UMKIT_LAB_CAT_H

struct lab;

/* The .lab files of the labs directory, sorted (each and *out allocated). */
int	 lab_files(char ***out);
/* A lab by number (2, 02), name (02-mglru, mglru) or path; exits if none. */
char	*lab_resolve(const char *arg);
/* Load a lab, or print its FILE:LINE errors and return NULL. */
struct lab *lab_open(const char *path);
/* umkit lab --list: one line per lab; 0, or LAB_EXIT_FILE for a bad one. */
int	 lab_list(void);
/* Let any lab have gdb steps (umkit lab --trust; lab.h's lab_env). */
void	 lab_trust_all(void);
/* umkit lab --check: validate labs without booting; 0 or LAB_EXIT_FILE. */
int	 lab_check(int argc, char **argv);
/* umkit lab --seal FILE: the sealed lab on stdout (lab-key.h). */
int	 lab_seal(const char *path);

#endif
