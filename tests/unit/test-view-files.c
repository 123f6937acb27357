/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit test: the files each TUI view reads, its declared table
 * (struct view .files) and uml/link/record.files stay in step.  Each view
 * updates on the fixture root with every key it takes pressed once (the
 * lru view's t reads lru_gen_full); every file it reads must match its
 * table, every table entry must be read and be a line of
 * uml/link/record.files, and every line there must be read by a view or be
 * nameable by a value spec (values_files): a recording replays what the
 * TUI and the lab checks read, and keeps nothing else.
 */
#include "tui-test.h"
#include "recfmt.h"
#include "tui.h"
#include "values.h"

#define MAX_FILES	32

static const struct view *current;
static bool used[8][MAX_FILES];
static int vi;

/* The table of v as a file set. */
static struct rec_files
table_of(const struct view *v)
{
	static char		*pats[MAX_FILES];
	struct rec_files	 fs = { 0, pats };

	for (; v->files && v->files[fs.n]; fs.n++) {
		assert_true(fs.n < MAX_FILES);
		pats[fs.n] = (char *)v->files[fs.n];
	}
	return fs;
}

/* Source hook: a read must match the current view's table. */
static void
on_read(const char *rel, void *arg)
{
	struct rec_files	fs = table_of(current);
	bool			hit = false;

	for (int i = 0; i < fs.n; i++) {
		struct rec_files	one = { 1, &fs.pat[i] };

		if (rec_files_match(&one, rel))
			used[vi][i] = hit = true;
	}
	if (!hit)
		fail_msg("view %s read %s, which its .files table does not list",
		    current->name, rel);
	(void)arg;
}

/* Update v, then again after each key it takes. */
static void
exercise(struct source *src, const struct view *v)
{
	struct ctx	c = { .src = src };

	current = v;
	v->init();
	for (int ch = 0; ch <= 127; ch++) {
		if (ch && !v->key(ch))
			continue;
		source_tick(src);
		c.now_ms = source_now_ms(src);
		v->update(&c);
	}
}

/* Views against their tables and the tables against record.files. */
static void
test_view_files(void **st)
{
	const char		*top = getenv("UMKIT_TOP");
	struct rec_files	 recorded = { 0 };
	const struct view	*views[8];
	char			 root[1024], err[REC_ERR_LEN], *text;
	struct source		 src;
	unsigned		 line;
	size_t			 len;
	int			 nv = 0;

	snprintf(root, sizeof(root), "%s/tests/fixtures/guest", top ? top : ".");
	text = top_file("uml/link/record.files", &len);
	assert_int_equal(rec_files_parse(text, len, &recorded, &line, err, sizeof(err)), 0);
	free(text);
	source_open(&src, root);
	src.on_read = on_read;
	for (int i = 0; i < ndata_views; i++)
		views[nv++] = data_views[i];
	views[nv++] = &view_help;
	for (vi = 0; vi < nv; vi++) {
		struct rec_files	fs;

		exercise(&src, views[vi]);
		fs = table_of(views[vi]);
		for (int i = 0; i < fs.n; i++) {
			if (!used[vi][i])
				fail_msg("view %s lists %s but never read it", views[vi]->name,
				    fs.pat[i]);
			if (!rec_files_has(&recorded, fs.pat[i]))
				fail_msg("uml/link/record.files lacks %s, which view %s reads",
				    fs.pat[i], views[vi]->name);
		}
	}
	for (int k = 0; k < recorded.n; k++) {
		bool	known = false;

		for (vi = 0; vi < nv && !known; vi++) {
			struct rec_files	fs = table_of(views[vi]);

			for (int i = 0; i < fs.n; i++)
				known |= !strcmp(fs.pat[i], recorded.pat[k]);
		}
		for (int i = 0; values_files[i]; i++)
			known |= !strcmp(values_files[i], recorded.pat[k]);
		if (!known)
			fail_msg("uml/link/record.files keeps %s, which no view reads and no value "
			    "names", recorded.pat[k]);
	}
	rec_files_free(&recorded);
	close(src.dirfd);
	free(src.root);
	(void)st;
}

/* Run the view-files tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_view_files),
	};

	return cmocka_run_group_tests_name("view-files", tests, NULL, NULL);
}
