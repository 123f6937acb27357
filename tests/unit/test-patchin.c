/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test-patchin.c - unit tests of the patch input parser (uml/patch/patchin.c):
 * SHA-256 against known digests, every input form of the smoke fixture
 * giving one hash, mbox threads (order, cover letter, replies, missing
 * and doubled parts, versions), quoted-printable and ">From " escapes,
 * and paths that leave the tree.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "patch/patchin.h"
#include "util.h"

#define FIX	TOP "/tests/fixtures/smoke"

/* A one-hunk diff of file f adding line add. */
static char *
mkdiff(const char *f, const char *add)
{
	return xasprintf("diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n"
	    "@@ -1,2 +1,3 @@\n one\n+%s\n two\n", f, f, f, f, add);
}

/* A mail of an mbox with subject and body. */
static char *
mkmail(const char *subject, const char *body)
{
	return xasprintf("From x@y Mon Sep 17 00:00:00 2001\nFrom: x <x@y>\n"
	    "Subject: %s\n\nmessage text\n---\n%s\n", subject, body);
}

/* Parse and select buf; returns the rc, err filled. */
static int
sel(const char *buf, struct pset *out, char *err)
{
	struct pset	in;

	pset_init(&in);
	pset_init(out);
	patchin_buf(&in, "t", buf, strlen(buf));
	return pset_select(&in, out, NULL, err, 512);
}

/* Known SHA-256 digests (FIPS 180-2 examples). */
static void
t_sha256(void **state)
{
	char	hex[65], *m;

	patchin_sha256("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	patchin_sha256("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	patchin_sha256(m, strlen(m), hex);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

/* The same change as a file, a quilt dir, a format-patch dir and a thread. */
static void
t_forms_same_hash(void **state)
{
	const char	*in[] = { FIX "/good.patch", FIX "/quilt", FIX "/fp",
	    FIX "/thread.mbox" };
	char		 err[512], hex[65], first[65];
	struct pset	 ps;
	int		 i;

	for (i = 0; i < 4; i++) {
		pset_init(&ps);
		assert_int_equal(patchin_path(in[i], &ps, NULL, err, sizeof err), 0);
		assert_int_equal(ps.n, 1);
		assert_int_equal(ps.v[0].nfiles, 1);
		assert_string_equal(ps.v[0].files[0], "mm/vmscan.c");
		assert_int_equal(ps.v[0].nhunks, 1);
		assert_null(strstr(ps.v[0].diff, "\nindex "));
		assert_non_null(strstr(ps.v[0].diff, "+\tpr_info(\"umkit-smoke: kswapd_init runs"));
		pset_hash(&ps, hex);
		if (i == 0)
			memcpy(first, hex, sizeof hex);
		assert_string_equal(hex, first);
		pset_free(&ps);
	}
}

/* A thread: cover letter and replies skipped, parts put in order. */
static void
t_thread_order(void **state)
{
	char		 err[512], *d1 = mkdiff("mm/a.c", "1"), *d2 = mkdiff("mm/b.c", "2");
	char		*m0 = mkmail("[PATCH 0/2] cover", "no diff"),
	    *m2 = mkmail("[PATCH 2/2] two", d2),
	    *r = mkmail("Re: [PATCH 1/2] one", d2),
	    *m1 = mkmail("[PATCH 1/2] one", d1), *all;
	struct pset	 ps;

	all = xasprintf("%s\n%s\n%s\n%s", m0, m2, r, m1);
	assert_int_equal(sel(all, &ps, err), 0);
	assert_int_equal(ps.n, 2);
	assert_string_equal(ps.v[0].files[0], "mm/a.c");
	assert_string_equal(ps.v[1].files[0], "mm/b.c");
	assert_int_equal(ps.v[1].num, 2);
	pset_free(&ps);
	free(all);
	/* Part 2 missing: refused, naming it. */
	all = xasprintf("%s\n%s", m0, m1);
	assert_int_equal(sel(all, &ps, err), -1);
	assert_non_null(strstr(err, "[PATCH 2/2] is missing"));
	free(all);
	/* Part 1 twice. */
	all = xasprintf("%s\n%s\n%s", m1, m1, m2);
	assert_int_equal(sel(all, &ps, err), -1);
	assert_non_null(strstr(err, "twice"));
	free(all);
	free(d1); free(d2); free(m0); free(m1); free(m2); free(r);
}

/* A v2 series in the same thread as v1: v2 wins. */
static void
t_versions(void **state)
{
	char		 err[512], *d1 = mkdiff("mm/a.c", "old"), *d2 = mkdiff("mm/a.c", "new");
	char		*a = mkmail("[PATCH 1/1] x", d1), *b = mkmail("[PATCH v2 1/1] x", d2);
	char		*all = xasprintf("%s\n%s", a, b);
	struct pset	 ps;

	assert_int_equal(sel(all, &ps, err), 0);
	assert_int_equal(ps.n, 1);
	assert_non_null(strstr(ps.v[0].diff, "+new"));
	pset_free(&ps);
	free(all); free(a); free(b); free(d1); free(d2);
}

/* Quoted-printable bodies and mboxrd ">From " escapes are undone. */
static void
t_qp_from(void **state)
{
	const char	*m =
	    "From x@y Mon Sep 17 00:00:00 2001\nSubject: [PATCH] q\n"
	    "Content-Transfer-Encoding: quoted-printable\n\n"
	    "text\n>From here\n---\ndiff --git a/mm/a.c b/mm/a.c\n--- a/mm/a.c\n"
	    "+++ b/mm/a.c\n@@ -1,2 +1,3 @@\n one\n+x =3D 1;=09/* long =\nline */\n two\n";
	char		 err[512];
	struct pset	 ps;

	assert_int_equal(sel(m, &ps, err), 0);
	assert_int_equal(ps.n, 1);
	assert_non_null(strstr(ps.v[0].diff, "+x = 1;\t/* long line */\n"));
	pset_free(&ps);
}

/* MIME: a multipart mail's base64 patch attachment, with an HTML part and
 * a signature left out, is the same diff as the plain one; bad base64 is
 * an error. */
static void
t_mime(void **state)
{
	const char	*plain = "--- a/mm/a.c\n+++ b/mm/a.c\n@@ -1,2 +1,3 @@\n one\n+x = 1;\n two\n";
	const char	*m =
	    "From x@y Mon Sep 17 00:00:00 2001\nSubject: [PATCH] m\n"
	    "MIME-Version: 1.0\n"
	    "Content-Type: multipart/mixed;\n boundary=\"=-=b0=-=\"\n\n"
	    "This is a multi-part message in MIME format.\n"
	    "--=-=b0=-=\nContent-Type: multipart/alternative; boundary=alt\n\n"
	    "--alt\nContent-Type: text/plain; charset=utf-8\n"
	    "Content-Transfer-Encoding: quoted-printable\n\nThe fix=2E\n"
	    "--alt\nContent-Type: text/html\n\n<p>--- a/mm/b.c</p>\n--alt--\n"
	    "--=-=b0=-=\nContent-Type: text/x-patch; name=\"0001-m.patch\"\n"
	    "Content-Transfer-Encoding: base64\n"
	    "Content-Disposition: attachment; filename=\"0001-m.patch\"\n\n"
	    "LS0tIGEvbW0vYS5jCisrKyBiL21tL2EuYwpAQCAt\nMSwyICsxLDMgQEAKIG9uZQoreCA9IDE7CiB0d28K\n\n"
	    "--=-=b0=-=\nContent-Type: application/pgp-signature\n\n"
	    "-----BEGIN PGP SIGNATURE-----\n+++ b/mm/c.c\n--=-=b0=-=--\n";
	char		 err[512], h1[65], h2[65], *bad;
	struct pset	 ps;

	assert_int_equal(sel(m, &ps, err), 0);
	assert_int_equal(ps.n, 1);
	assert_string_equal(ps.v[0].diff, plain);
	pset_hash(&ps, h1);
	pset_free(&ps);
	assert_int_equal(sel(plain, &ps, err), 0);
	pset_hash(&ps, h2);
	pset_free(&ps);
	assert_string_equal(h1, h2);
	bad = xstrdup("Subject: [PATCH] b\nContent-Transfer-Encoding: base64\n\n"
	    "LS0t*IGEvbW0vYS5j\n");
	assert_int_equal(sel(bad, &ps, err), -1);
	assert_non_null(strstr(err, "base64"));
	free(bad);
}

/* CRLF mail and a trimmed empty context line give the same diff. */
static void
t_crlf_blank(void **state)
{
	const char	*a = "--- a/mm/a.c\r\n+++ b/mm/a.c\r\n@@ -1,2 +1,3 @@\r\n \r\n+x\r\n two\r\n";
	const char	*b = "--- a/mm/a.c\n+++ b/mm/a.c\n@@ -1,2 +1,3 @@\n\n+x\n two\n";
	char		 err[512], h1[65], h2[65];
	struct pset	 ps;

	assert_int_equal(sel(a, &ps, err), 0);
	pset_hash(&ps, h1);
	pset_free(&ps);
	assert_int_equal(sel(b, &ps, err), 0);
	pset_hash(&ps, h2);
	pset_free(&ps);
	assert_string_equal(h1, h2);
}

/* Paths that leave the tree, absolute ones, no prefix: refused. */
static void
t_paths(void **state)
{
	const char	*bad[] = {
	    "--- a/../etc/passwd\n+++ b/../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n",
	    "--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n",
	    "--- a/mm/x.c\n+++ b/mm/../../x.c\n@@ -1 +1 @@\n-a\n+b\n",
	    "--- x.c\n+++ x.c\n@@ -1 +1 @@\n-a\n+b\n",
	    "diff --git a/x b/y\nrename from ../x\nrename to y\n",
	    NULL };
	char		err[512];
	struct pset	ps;
	int		i;

	for (i = 0; bad[i] != NULL; i++) {
		assert_int_equal(sel(bad[i], &ps, err), -1);
		assert_true(strstr(err, "leaves the tree") || strstr(err, "absolute") ||
		    strstr(err, "prefix"));
	}
	/* /dev/null is fine: a new file. */
	assert_int_equal(sel("--- /dev/null\n+++ b/mm/new.c\n@@ -0,0 +1 @@\n+x\n",
	    &ps, err), 0);
	assert_string_equal(ps.v[0].files[0], "mm/new.c");
	pset_free(&ps);
}

/* A hunk that ends early and text without a diff. */
static void
t_malformed(void **state)
{
	char		err[512];
	struct pset	ps;

	assert_int_equal(sel("--- a/mm/a.c\n+++ b/mm/a.c\n@@ -1,3 +1,3 @@\n a\n", &ps, err), -1);
	assert_non_null(strstr(err, "hunk #1 ends early"));
	assert_int_equal(sel("just text\n", &ps, err), -1);
	assert_non_null(strstr(err, "no patch found"));
	assert_int_equal(sel("", &ps, err), -1);
}

/* The variant directory: series naming each patch, the diffs, sources. */
static void
t_write(void **state)
{
	char		err[512], dir[] = "/tmp/test-patchin-XXXXXX", *v, *p, *t;
	struct pset	ps;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(sel("--- a/mm/a.c\n+++ b/mm/a.c\n@@ -1 +1 @@\n-a\n+b\n", &ps, err), 0);
	v = xasprintf("%s/v", dir);
	assert_int_equal(pset_write(&ps, v, "CONFIG_X=y\n", err, sizeof err), 0);
	p = xasprintf("%s/series", v);
	assert_non_null(strstr(t = read_text(p), "\n0001.patch\n"));
	free(t);
	free(p);
	p = xasprintf("%s/0001.patch", v);
	assert_string_equal(t = read_text(p), ps.v[0].diff);
	free(t);
	free(p);
	p = xasprintf("%s/config", v);
	assert_string_equal(t = read_text(p), "CONFIG_X=y\n");
	free(t);
	free(p);
	/* An existing directory is kept. */
	assert_int_equal(pset_write(&ps, v, NULL, err, sizeof err), 0);
	pset_free(&ps);
	assert_int_equal(rm_tree(dir), 0);
	free(v);
}

/* A thread with a part missing: refused, or with partial the parts there,
 * the missing ones named. */
static void
t_partial(void **state)
{
	char		 err[512], *d1 = mkdiff("mm/a.c", "1"), *d3 = mkdiff("mm/c.c", "3");
	char		*m1 = mkmail("[PATCH 1/3] one", d1), *m3 = mkmail("[PATCH 3/3] three", d3);
	char		*all = xasprintf("%s\n%s", m3, m1);
	struct pselect	 ps_sel = { .partial = 1 };
	struct pset	 in, ps;

	assert_int_equal(sel(all, &ps, err), -1);
	assert_string_equal(err, "the series of 3 is incomplete: [PATCH 2/3] is missing "
	    "(--partial takes the parts that are there)");
	pset_free(&ps);
	pset_init(&in);
	pset_init(&ps);
	patchin_buf(&in, "t", all, strlen(all));
	assert_int_equal(pset_select(&in, &ps, &ps_sel, err, sizeof err), 0);
	assert_int_equal(ps.n, 2);
	assert_string_equal(ps.v[0].files[0], "mm/a.c");
	assert_string_equal(ps.v[1].files[0], "mm/c.c");
	assert_string_equal(ps_sel.missing, "[PATCH 2/3] of the series of 3");
	pset_free(&ps);
	free(all);
	free(m1);
	free(m3);
	free(d1);
	free(d3);
	(void)state;
}

/* Files the user named: given 2/2 then a plain diff then 1/2, the series
 * goes in n/m order where its first part was, the plain one keeps its
 * place; with 1/2 alone, 2/2 is named as not given. */
static void
t_files(void **state)
{
	char		 err[512], *d1 = mkdiff("mm/a.c", "1"), *d2 = mkdiff("mm/b.c", "2");
	char		*dp = mkdiff("mm/p.c", "p");
	char		*m1 = mkmail("[PATCH 1/2] one", d1), *m2 = mkmail("[PATCH 2/2] two", d2);
	struct pselect	 fsel = { .partial = 1, .files = 1 };
	struct pset	 in, ps;

	pset_init(&in);
	pset_init(&ps);
	patchin_buf(&in, "0002.patch", m2, strlen(m2));
	patchin_buf(&in, "plain.diff", dp, strlen(dp));
	patchin_buf(&in, "0001.patch", m1, strlen(m1));
	assert_int_equal(pset_select(&in, &ps, &fsel, err, sizeof err), 0);
	assert_int_equal(ps.n, 3);
	assert_string_equal(ps.v[0].files[0], "mm/a.c");
	assert_string_equal(ps.v[1].files[0], "mm/b.c");
	assert_string_equal(ps.v[2].files[0], "mm/p.c");
	assert_string_equal(fsel.missing, "");
	pset_free(&ps);

	pset_init(&in);
	pset_init(&ps);
	patchin_buf(&in, "0001.patch", m1, strlen(m1));
	assert_int_equal(pset_select(&in, &ps, &fsel, err, sizeof err), 0);
	assert_int_equal(ps.n, 1);
	assert_string_equal(fsel.missing, "[PATCH 2/2] of the series of 2");
	pset_free(&ps);

	/* without files, the mix is refused as before */
	pset_init(&in);
	pset_init(&ps);
	patchin_buf(&in, "0001.patch", m1, strlen(m1));
	patchin_buf(&in, "plain.diff", dp, strlen(dp));
	assert_int_equal(pset_select(&in, &ps, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "mixes numbered"));
	pset_free(&ps);
	free(m1);
	free(m2);
	free(d1);
	free(d2);
	free(dp);
	(void)state;
}

/* Run the patchin tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_sha256),
		cmocka_unit_test(t_forms_same_hash),
		cmocka_unit_test(t_thread_order),
		cmocka_unit_test(t_partial),
		cmocka_unit_test(t_files),
		cmocka_unit_test(t_versions),
		cmocka_unit_test(t_qp_from),
		cmocka_unit_test(t_mime),
		cmocka_unit_test(t_crlf_blank),
		cmocka_unit_test(t_paths),
		cmocka_unit_test(t_malformed),
		cmocka_unit_test(t_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
