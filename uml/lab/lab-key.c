/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-key.c - the keys of a lab: sealed choice answers and explanations,
 * and the MAC of a result file.
 *
 * An installed kit ships its labs sealed (umkit lab --seal): a choice's
 * answer=K becomes answer=#HEX, HEX = HMAC-SHA256 under a fixed kit key of
 * "LAB\0STEP\0Q\0K" (Q: 'a' for ask, 'w' for why), cut to 128 bits; each
 * explanation becomes "#HEX", the text XORed with a SHA-256 keystream of
 * the same fields plus the right key, so it can be read only once the
 * right answer is known.  This keeps answers off the installed files; it
 * does not stop anyone who runs this code once per letter (docs/labs.md
 * says what it does and does not stop).
 *
 * A result file carries "mac": HMAC-SHA256 under $UMKIT_GRADE_KEY of its
 * JSON without the mac (compact, keys sorted), when that is set.
 */
#include <nettle/hmac.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab-key.h"
#include "util.h"

/* The kit's sealing key: public, it only keeps answers out of grep. */
static const char seal_key[] = "umkit lab seal v1";

/* Feed "LAB\0STEP\0Q\0K\0" (K 0: left out) to an HMAC. */
static void
seal_fields(struct hmac_sha256_ctx *h, const char *lab, const char *step,
    char q, char k)
{
	char	qk[4] = { q, '\0', k, '\0' };

	hmac_sha256_update(h, strlen(lab) + 1, (const uint8_t *)lab);
	hmac_sha256_update(h, strlen(step) + 1, (const uint8_t *)step);
	hmac_sha256_update(h, k ? 4 : 2, (const uint8_t *)qk);
}

/* Lower-case hex of n bytes into out (2n + 1). */
static void
hex(char *out, const uint8_t *b, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* The sealed form of answer key k. */
void
lab_seal_answer(const char *lab, const char *step, char q, char k,
    char out[LAB_SEAL_HEX + 1])
{
	struct hmac_sha256_ctx	h;
	uint8_t			d[SHA256_DIGEST_SIZE];

	hmac_sha256_set_key(&h, sizeof seal_key - 1, (const uint8_t *)seal_key);
	seal_fields(&h, lab, step, q, k);
	hmac_sha256_digest(&h, sizeof d, d);
	hex(out, d, LAB_SEAL_HEX / 2);
}

/* Which of the keys in keys[] (n of them) seals to sealed; 0: none. */
char
lab_seal_which(const char *lab, const char *step, char q, const char *keys,
    int n, const char *sealed)
{
	char	h[LAB_SEAL_HEX + 1];
	int	i;

	for (i = 0; i < n; i++) {
		lab_seal_answer(lab, step, q, keys[i], h);
		if (strcmp(h, sealed) == 0)
			return keys[i];
	}
	return 0;
}

/* XOR text (n bytes) with the keystream of (lab, step, q, right, label). */
static void
keystream(const char *lab, const char *step, char q, char right,
    const char *label, uint8_t *text, size_t n)
{
	struct hmac_sha256_ctx	h;
	uint8_t			d[SHA256_DIGEST_SIZE], ctr[4];
	size_t			i, blk;

	for (blk = 0; blk * sizeof d < n; blk++) {
		hmac_sha256_set_key(&h, sizeof seal_key - 1, (const uint8_t *)seal_key);
		seal_fields(&h, lab, step, q, right);
		hmac_sha256_update(&h, strlen(label) + 1, (const uint8_t *)label);
		ctr[0] = (uint8_t)(blk >> 24);
		ctr[1] = (uint8_t)(blk >> 16);
		ctr[2] = (uint8_t)(blk >> 8);
		ctr[3] = (uint8_t)blk;
		hmac_sha256_update(&h, sizeof ctr, ctr);
		hmac_sha256_digest(&h, sizeof d, d);
		for (i = 0; i < sizeof d && blk * sizeof d + i < n; i++)
			text[blk * sizeof d + i] ^= d[i];
	}
}

/* "#HEX": text sealed under the right answer (label: "explain", "a" ...). */
char *
lab_seal_text(const char *lab, const char *step, char q, char right,
    const char *label, const char *text)
{
	size_t	 n = strlen(text);
	uint8_t	*b = xmalloc(n + 1);
	char	*out = xmalloc(2 * n + 2);

	memcpy(b, text, n);
	keystream(lab, step, q, right, label, b, n);
	out[0] = '#';
	hex(out + 1, b, n);
	out[2 * n + 1] = '\0';
	free(b);
	return out;
}

/* The text of a sealed "#HEX", or NULL when it is not one or not text. */
char *
lab_unseal_text(const char *lab, const char *step, char q, char right,
    const char *label, const char *sealed)
{
	size_t	 n, i;
	uint8_t	*b;
	unsigned int	 x;

	if (sealed[0] != '#' || (n = strlen(sealed + 1)) % 2 != 0)
		return NULL;
	n /= 2;
	b = xmalloc(n + 1);
	for (i = 0; i < n; i++) {
		if (sscanf(sealed + 1 + 2 * i, "%2x", &x) != 1) {
			free(b);
			return NULL;
		}
		b[i] = (uint8_t)x;
	}
	keystream(lab, step, q, right, label, b, n);
	b[n] = '\0';
	for (i = 0; i < n; i++)
		if (b[i] < 0x20 && b[i] != '\t') {
			free(b);
			return NULL;
		}
	return (char *)b;
}

/* HMAC-SHA256 of data under key, in hex (65 bytes). */
void
lab_mac(const char *key, const char *data, size_t n, char out[LAB_MAC_HEX + 1])
{
	struct hmac_sha256_ctx	h;
	uint8_t			d[SHA256_DIGEST_SIZE];

	hmac_sha256_set_key(&h, strlen(key), (const uint8_t *)key);
	hmac_sha256_update(&h, n, (const uint8_t *)data);
	hmac_sha256_digest(&h, sizeof d, d);
	hex(out, d, sizeof d);
}

/* ---- umkit lab --seal --------------------------------------------------- */

/* One explanation being gathered: its question, choice (0: the
 * question's own) and text, and whether it was written out yet. */
struct sealtext {
	char	*step;
	char	 q, choice, right;
	char	*text;
	bool	 done;
};

struct sealer {
	const char	*lab;
	struct sealtext	*t;
	int		 n;
	char		 step[64], q, right, choice;
};

/* The gathered text of (step, q, choice), made on first use. */
static struct sealtext *
seal_find(struct sealer *z, char choice)
{
	int	i;

	for (i = 0; i < z->n; i++)
		if (strcmp(z->t[i].step, z->step) == 0 && z->t[i].q == z->q &&
		    z->t[i].choice == choice)
			return &z->t[i];
	z->t = xrealloc(z->t, (z->n + 1) * sizeof *z->t);
	memset(&z->t[z->n], 0, sizeof z->t[z->n]);
	z->t[z->n].step = xstrdup(z->step);
	z->t[z->n].q = z->q;
	z->t[z->n].choice = choice;
	z->t[z->n].right = z->right;
	return &z->t[z->n++];
}

/* The first word of s (at most n - 1 bytes) into w; the rest after it. */
static const char *
seal_word(const char *s, char *w, size_t n)
{
	size_t	k;

	while (*s == ' ' || *s == '\t')
		s++;
	k = strcspn(s, " \t");
	snprintf(w, n, "%.*s", (int)(k < n ? k : n - 1), s);
	s += k;
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* Walk one line: keep the state; with out, write the line sealed. */
static void
seal_line(struct sealer *z, const char *line, FILE *out)
{
	char		 kw[64], w[256];
	const char	*rest = seal_word(line, kw, sizeof kw), *o, *ans;
	struct sealtext	*t;
	char		 h[LAB_SEAL_HEX + 1], *sealed;
	int		 ind = (int)strspn(line, " \t");

	if (strcmp(kw, "step") == 0) {
		seal_word(rest, z->step, sizeof z->step);
		z->q = 0;
	} else if ((strcmp(kw, "ask") == 0 || strcmp(kw, "why") == 0) &&
	    z->step[0] != '\0') {
		z->q = kw[0];
		z->right = 0;
		z->choice = 0;
		o = seal_word(rest, w, sizeof w);	/* choice | number */
		if (strcmp(w, "choice") == 0) {
			for (ans = o; (ans = strstr(ans, "answer=")) != NULL; ans += 7)
				if (ans == o || ans[-1] == ' ')
					break;
			if (ans != NULL && ans[7] >= 'a' && ans[7] <= 'z' &&
			    (ans[8] == ' ' || ans[8] == '\0')) {
				z->right = ans[7];
				if (out != NULL) {
					lab_seal_answer(z->lab, z->step, z->q == 'a' ?
					    'a' : 'w', z->right, h);
					fprintf(out, "%.*sanswer=#%s%s\n", (int)(ans - line),
					    line, h, ans + 8);
					return;
				}
			}
		}
	} else if (kw[1] == ')' && kw[2] == '\0' && kw[0] >= 'a' && kw[0] <= 'z')
		z->choice = kw[0];
	else if ((strcmp(kw, "explain") == 0 || strcmp(kw, "because") == 0) &&
	    z->q != 0 && z->right != 0 && (kw[0] == 'e' || z->choice != 0)) {
		t = seal_find(z, kw[0] == 'e' ? 0 : z->choice);
		if (out == NULL) {
			char	*n = t->text ? xasprintf("%s %s", t->text, rest) :
			    xstrdup(rest);

			free(t->text);
			t->text = n;
			return;
		}
		if (!t->done) {
			char	label[2] = { t->choice, '\0' };

			sealed = lab_seal_text(z->lab, z->step, z->q == 'a' ? 'a' : 'w',
			    t->right, t->choice ? label : "explain", t->text);
			fprintf(out, "%*s%s %s\n", ind, "", kw, sealed);
			free(sealed);
			t->done = true;
		}
		return;
	}
	if (out != NULL)
		fprintf(out, "%s\n", line);
}

/* Write the lab file text sealed to out: no plain choice answer, no
 * plain explanation of a choice question. */
void
lab_seal_file(const char *lab, const char *text, FILE *out)
{
	struct sealer	 z = { .lab = lab };
	const char	*p, *nl;
	char		*line;
	int		 pass, i;

	for (pass = 0; pass < 2; pass++) {
		z.step[0] = '\0';
		z.q = 0;
		for (p = text; *p != '\0'; p = nl ? nl + 1 : p + strlen(p)) {
			nl = strchr(p, '\n');
			line = xasprintf("%.*s", nl ? (int)(nl - p) : (int)strlen(p), p);
			seal_line(&z, line, pass ? out : NULL);
			free(line);
			if (nl == NULL)
				break;
		}
	}
	for (i = 0; i < z.n; i++) {
		free(z.t[i].step);
		free(z.t[i].text);
	}
	free(z.t);
}
