/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests: the recording format module (tui/recfmt.c) that umkit
 * record writes and the TUI reads: header, index lines, snapshot names,
 * the file set's syntax and matching, and uml/link/record.files itself. */
#include "tui-test.h"
#include "recfmt.h"

/* A header written is read back the same; the text is what the doc says. */
static void
test_header(void **st)
{
	struct rec_header	h = { .every_ms = 200, .started_unix_ms = 1700000000123 }, g;
	char			text[5000], err[REC_ERR_LEN];
	int			n;

	snprintf(h.source, sizeof(h.source), "/work/run/lab/mnt");
	n = rec_header_format(text, sizeof(text), &h);
	assert_string_equal(text, "umkit-recording 1\nsource /work/run/lab/mnt\n"
	    "every_ms 200\nstarted_unix_ms 1700000000123\n");
	assert_int_equal(n, (int)strlen(text));
	assert_int_equal(rec_header_parse(text, (size_t)n, &g, err, sizeof(err)), 0);
	assert_int_equal(g.version, 1);
	assert_string_equal(g.source, h.source);
	assert_int_equal(g.every_ms, 200);
	assert_true(g.started_unix_ms == 1700000000123);
}

/* Unknown keys are ignored; another version or a bad number is refused. */
static void
test_header_errors(void **st)
{
	const char		later[] = "umkit-recording 1\nsource /x y\ncolour blue\nevery_ms 5\n";
	struct rec_header	g;
	char			err[REC_ERR_LEN];

	assert_int_equal(rec_header_parse(later, sizeof(later) - 1, &g, err, sizeof(err)), 0);
	assert_string_equal(g.source, "/x y");
	assert_int_equal(g.every_ms, 5);
	assert_int_equal(rec_header_parse("umkit-recording 2\n", 18, &g, err, sizeof(err)), -1);
	assert_string_equal(err, "unknown recording format (want 'umkit-recording 1')");
	assert_int_equal(rec_header_parse("", 0, &g, err, sizeof(err)), -1);
	assert_int_equal(rec_header_parse("umkit-recording 10\n", 19, &g, err, sizeof(err)), -1);
	assert_int_equal(rec_header_parse("umkit-recording 1\nevery_ms 2x\n", 30, &g, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "line 2: bad every_ms");
}

/* Index lines: six-digit seqs; lines not (yet) whole are not snapshots. */
static void
test_index(void **st)
{
	struct rec_snap	s = { 7, 1700000000000, 1400 }, *v = NULL;
	const char	text[] =
	    "000000 1700000000000 0\n"
	    "junk\n"
	    "1 1700000000200 200\n"		/* seq not six digits */
	    "000002 17000000004OO 400\n"	/* not a number */
	    "000003 1700000000600 600 9\n"	/* four fields */
	    "000004 1700000000800 800\n"
	    "000005 1700000001000 10";		/* being written */
	char		line[96];

	assert_int_equal(rec_index_format(line, sizeof(line), &s), 26);
	assert_string_equal(line, "000007 1700000000000 1400\n");
	assert_int_equal(rec_index_parse(line, strlen(line), &v), 1);
	assert_int_equal(v[0].seq, 7);
	assert_true(v[0].elapsed_ms == 1400);
	assert_int_equal(rec_index_parse(text, sizeof(text) - 1, &v), 2);
	assert_int_equal(v[0].seq, 0);
	assert_int_equal(v[1].seq, 4);
	assert_true(v[1].unix_ms == 1700000000800);
	assert_true(v[1].elapsed_ms == 800);
	assert_int_equal(rec_index_parse("", 0, &v), 0);
	free(v);
}

/* Snapshot directories and the temporary ones. */
static void
test_snap_names(void **st)
{
	char	rel[64];

	assert_string_equal(rec_snap_rel(rel, sizeof(rel), 0, false), "snap/000000");
	assert_string_equal(rec_snap_rel(rel, sizeof(rel), 42, true), "snap/.tmp-000042");
	assert_string_equal(rec_snap_rel(rel, sizeof(rel), REC_MAX_SEQ, false), "snap/999999");
}

/* The file set: comments and blanks go; bad lines are named. */
static void
test_files(void **st)
{
	const char		good[] = "# a comment\n\nproc/vmstat   # trailing\n\t proc/[0-9]*/status \n"
	    "sys/kernel/debug/lru_gen\r\n";
	struct rec_files	fs = { 0 };
	char			err[REC_ERR_LEN];
	unsigned		line;

	assert_int_equal(rec_files_parse(good, sizeof(good) - 1, &fs, &line, err,
	    sizeof(err)), 0);
	assert_int_equal(fs.n, 3);
	assert_string_equal(fs.pat[1], "proc/[0-9]*/status");
	assert_true(rec_files_has(&fs, "proc/vmstat"));
	assert_false(rec_files_has(&fs, "proc/vmstat "));
	assert_true(rec_files_match(&fs, "proc/42/status"));
	assert_false(rec_files_match(&fs, "proc/self/status"));
	assert_false(rec_files_match(&fs, "proc/42/task/42/status"));
	assert_true(rec_files_match(&fs, "sys/kernel/debug/lru_gen"));
	assert_false(rec_files_match(&fs, "sys/kernel/debug/lru_gen_full"));
	rec_files_free(&fs);

	assert_int_equal(rec_files_parse("proc/a\n/etc/passwd\n", 19, &fs, &line, err,
	    sizeof(err)), -1);
	assert_int_equal(line, 2);
	assert_string_equal(err, "absolute path (patterns are relative to the root): /etc/passwd");
	assert_int_equal(fs.n, 1);
	rec_files_free(&fs);
	assert_int_equal(rec_files_parse("proc/../../x\n", 13, &fs, &line, err, sizeof(err)), -1);
	assert_string_equal(err, "'..' would leave the root: proc/../../x");
	assert_int_equal(rec_files_parse("a b\n", 4, &fs, &line, err, sizeof(err)), -1);
	assert_string_equal(err, "expected one path or glob per line: a b");
	assert_null(rec_pattern_bad("proc/[0-9]*/status"));
	assert_string_equal(rec_pattern_bad("a/.."), "'..' would leave the root");
	rec_files_free(&fs);
}

/* The kit's own file set parses and holds what the TUI starts with. */
static void
test_record_files(void **st)
{
	struct rec_files	fs = { 0 };
	char			err[REC_ERR_LEN], *text;
	unsigned		line;
	size_t			len;

	text = top_file("uml/link/record.files", &len);
	assert_int_equal(rec_files_parse(text, len, &fs, &line, err, sizeof(err)), 0);
	assert_true(rec_files_match(&fs, "sys/kernel/debug/lru_gen"));
	assert_true(rec_files_match(&fs, "proc/1/status"));
	rec_files_free(&fs);
	free(text);
}

/* Run the recording format tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_header_errors),
		cmocka_unit_test(test_index),
		cmocka_unit_test(test_snap_names),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_record_files),
	};

	return cmocka_run_group_tests_name("recfmt", tests, NULL, NULL);
}
