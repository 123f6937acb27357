/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-key.h - sealed answers and explanations of an installed lab, and
 * the MAC of a result file (lab-key.c says how and what it stops).
 */
#ifndef UMKIT_LAB_KEY_H
#define UMKIT_LAB_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lab.h"

#define LAB_MAC_HEX	64

/* answer=K of question q ('a' ask, 'w' why) of lab's step, sealed. */
void	 lab_seal_answer(const char *lab, const char *step, char q, char k,
	    char out[LAB_SEAL_HEX + 1]);
/* The one of keys[0..n) whose seal is sealed, or 0. */
char	 lab_seal_which(const char *lab, const char *step, char q,
	    const char *keys, int n, const char *sealed);
/* A text sealed under the right answer: "#HEX" (allocated). */
char	*lab_seal_text(const char *lab, const char *step, char q, char right,
	    const char *label, const char *text);
/* Its text again (allocated), or NULL. */
char	*lab_unseal_text(const char *lab, const char *step, char q, char right,
	    const char *label, const char *sealed);
/* The lab file's text (lab: its name) sealed, to out. */
void	 lab_seal_file(const char *lab, const char *text, FILE *out);
/* HMAC-SHA256 of data under key, hex. */
void	 lab_mac(const char *key, const char *data, size_t n,
	    char out[LAB_MAC_HEX + 1]);

#endif
