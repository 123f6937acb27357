/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests: the value layer (tui/values.c) on the fixture root and on
 * small trees built here: every source, the qualifiers, the errors, the
 * syntax check, the per-root cache and the file table. */
#include <sys/stat.h>

#include "tui-test.h"
#include "tui-fixture.h"
#include "recfmt.h"
#include "values.h"

static char root[64];		/* a tree built by setup() */
static char fx[1024];		/* the fixture root */

/* Write root/rel, making its directories. */
static void
put(const char *rel, const char *text)
{
	char	 path[512], *s;
	FILE	*f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The fixture root and a tree with what the fixture lacks. */
static int
setup(void **st)
{
	const char	*top = getenv("UMKIT_TOP");

	snprintf(fx, sizeof(fx), "%s/tests/fixtures/guest", top ? top : ".");
	snprintf(root, sizeof(root), "/tmp/umkit-values-XXXXXX");
	assert_non_null(mkdtemp(root));
	put("proc/uptime", "12.50 20.00\n");
	put("sys/fs/cgroup/memory.stat", "anon 4096\nfile 8192\n");
	put("sys/fs/cgroup/lab/memory.stat", "anon 123\nfile 0\n");
	put("sys/kernel/debug/lru_gen",
	    "memcg 1 /\n node 0\n 2 10 100 1\n 3 5 200 2\n"
	    " node 1\n 7 10 10 0\n 8 5 20 0\n 9 1 30 0\n"
	    "memcg 5 /lab\n node 0\n 4 3 1000 0x\n 5 2 2000 7\n");
	put("proc/buddyinfo", "Node 0, zone   Normal  1  2  3\nNode 1, zone   Normal  4  0  1\n");
	put("proc/7/status", "Name:\tworker\nPid:\t7\nThreads:\t3\nVmRSS:\t 100 kB\n");
	put("proc/9/status", "Name:\tworker\nPid:\t9\nThreads:\t1\nVmRSS:\t 900 kB\n");
	put("proc/7/statm", "10 5 1 1 0 3 0\n");
	put("proc/vmstat", "pgfault 5\nbroken\n");
	(void)st;
	return 0;
}

/* Remove the tree. */
static int
teardown(void **st)
{
	char	cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	(void)st;
	return 0;
}

/* The value of spec under dir; the test fails on an error. */
static double
val(const char *dir, const char *spec)
{
	char	err[VALUE_ERR_LEN] = "";
	double	v = -12345;

	if (values_read(dir, spec, &v, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	return v;
}

/* The error of spec under dir; the test fails when it reads a value. */
static const char *
error(const char *dir, const char *spec)
{
	static char	err[VALUE_ERR_LEN];
	double		v;

	err[0] = '\0';
	if (values_read(dir, spec, &v, err, sizeof(err)) == 0)
		fail_msg("%s read %g, wanted an error", spec, v);
	return err;
}

/* One value of each source, as the fixture's files print them. */
static void
test_fixture_values(void **st)
{
	assert_true(val(fx, "vmstat.compact_migrate_scanned") == FX_MIGRATE_SCANNED);
	assert_true(val(fx, "vmstat.compact_free_scanned") == FX_FREE_SCANNED);
	assert_true(val(fx, "meminfo.MemTotal") == FX_MEMTOTAL);
	assert_true(val(fx, "meminfo.Active(anon)") == FX_ACTIVE_ANON);
	assert_true(val(fx, "lru_gen.max_seq") == FX_LG_MAX_SEQ);
	assert_true(val(fx, "lru_gen.min_seq") == FX_LG_MIN_SEQ);
	assert_true(val(fx, "lru_gen.gens") == FX_LG_NGENS);
	assert_true(val(fx, "lru_gen[seq=4].anon") == FX_LG_ROW_ANON);
	assert_true(val(fx, "lru_gen[memcg=1,node=0,seq=4].file") == FX_LG_ROW_FILE);
	assert_true(val(fx, "lru_gen[memcg=/].max_seq") == FX_LG_MAX_SEQ);
	assert_true(val(fx, "lru_gen_full.max_seq") == FX_LG_MAX_SEQ);
	assert_true(val(fx, "lru_gen_full.refaulted") == 0);
	assert_true(val(fx, "zoneinfo[Normal].free") == FX_ZI_FREE);
	assert_true(val(fx, "zoneinfo[Normal].min") == FX_ZI_MIN);
	assert_true(val(fx, "zoneinfo[node=0,zone=Normal].managed") == FX_ZI_MANAGED);
	assert_true(val(fx, "zoneinfo[Normal].spanned") == FX_ZI_SPANNED);
	assert_true(val(fx, "zoneinfo[Normal].start_pfn") == FX_ZI_START);
	/* a node counter, from the zone that carries the node's stats */
	assert_true(val(fx, "zoneinfo[Movable].nr_inactive_anon") ==
	    val(fx, "zoneinfo[Normal].nr_inactive_anon"));
	assert_true(val(fx, "buddyinfo[Normal].0") == FX_BI_ORDER0);
	assert_true(val(fx, "buddyinfo[Normal].10") == FX_BI_ORDER10);
	assert_true(val(fx, "extfrag[Normal].0") == FX_EF_ORDER0 / 1000.0);
	assert_true(val(fx, "extfrag[Normal].10") == FX_EF_ORDER10 / 1000.0);
	assert_true(val(fx, "unusable[Normal].10") == 0.09);
	assert_true(val(fx, "pagetypeinfo.pageblock_order") == FX_PB_ORDER);
	assert_true(val(fx, "pagetypeinfo[Normal,type=Movable].0") == FX_PT_MOVABLE_O0);
	assert_true(val(fx, "pagetypeinfo[Normal].Unmovable") == FX_PT_BLOCKS_UNMOV);
	assert_true(val(fx, "pagetypeinfo[zone=Normal].Movable") == FX_PT_BLOCKS_MOV);
	assert_true(val(fx, "status[1].RssAnon") == FX_PID1_ANON);
	assert_true(val(fx, "status[pid=1].RssFile") == FX_PID1_FILE);
	assert_true(val(fx, "status[name=init].Pid") == 1);
	assert_true(val(fx, "statm[1].resident") * 4 == FX_PID1_ANON + FX_PID1_FILE);
	assert_true(val(fx, "psi[some].total") == FX_PSI_SOME_TOTAL);
	assert_true(val(fx, "cpustat.ncpus") == FX_NCPUS);
	assert_true(val(fx, "trace.count[mm_compaction_begin]") == FX_TR_BEGINS);
	assert_true(val(fx, "trace.count[event=mm_compaction_end]") == FX_TR_BEGINS);
	assert_true(val(fx, "trace.count[no_such_event]") == 0);
	assert_true(val(fx, "file[sys/kernel/mm/lru_gen/min_ttl_ms]") == 0);
	assert_true(val(fx, "file[/sys/kernel/mm/lru_gen/enabled]") == 1);	/* 0x0001 */
	(void)st;
}

/* Sums and picks over memcgs, nodes and generations. */
static void
test_lru_gen_sums(void **st)
{
	assert_true(val(root, "lru_gen.max_seq") == 3 + 9 + 5);
	/* generation 4 of memcg 5: file gone (x), anon not: min_seq is 4 */
	assert_true(val(root, "lru_gen.min_seq") == 2 + 7 + 4);
	assert_true(val(root, "lru_gen.gens") == 7);
	assert_true(val(root, "lru_gen.anon") == 100 + 200 + 10 + 20 + 30 + 1000 + 2000);
	assert_true(val(root, "lru_gen[memcg=1].anon") == 360);
	assert_true(val(root, "lru_gen[memcg=/lab].anon") == 3000);
	assert_true(val(root, "lru_gen[memcg=/lab/].file") == 7);
	assert_true(val(root, "lru_gen[node=1].max_seq") == 9);
	assert_true(val(root, "lru_gen[memcg=1,node=0].max_seq") == 3);
	assert_true(val(root, "lru_gen[node=0,seq=max].anon") == 200 + 2000);
	assert_true(val(root, "lru_gen[seq=min].anon") == 100 + 10 + 1000);
	assert_true(val(root, "lru_gen[seq=8].anon") == 20);
	assert_true(val(root, "lru_gen[seq=8].gens") == 1);
	assert_true(val(root, "lru_gen[memcg=/lab].memcg") == 5);
	assert_true(val(fx, "lru_gen.memcg") == FX_LG_MEMCG0_ID);
	assert_string_equal(error(root, "lru_gen.memcg"),
	    "lru_gen.memcg: 2 memcgs in sys/kernel/debug/lru_gen: pick one "
	    "(memcg=/PATH)");
	(void)st;
}

/* Zones of several nodes; cgroups; processes by name; plain files. */
static void
test_other_sources(void **st)
{
	assert_true(val(root, "buddyinfo[Normal].0") == 1);
	assert_true(val(root, "buddyinfo[Normal,node=1].0") == 4);
	assert_true(val(root, "buddyinfo[node=1].pages") == 4 + 4);
	assert_true(val(root, "buddyinfo.2") == 3 + 1);
	assert_true(val(root, "buddyinfo.pages") == 1 + 4 + 12 + 4 + 4);
	assert_true(val(root, "memory.stat.file") == 8192);
	assert_true(val(root, "memory.stat[/].anon") == 4096);
	assert_true(val(root, "memory.stat[lab].anon") == 123);
	assert_true(val(root, "memory.stat[cgroup=/lab].file") == 0);
	assert_true(val(root, "status[name=worker].VmRSS") == 100);	/* lowest pid */
	assert_true(val(root, "status[9].Threads") == 1);
	assert_true(val(root, "statm[name=worker].data") == 3);
	assert_true(val(root, "uptime") == 12.5);
	assert_true(val(root, "file[proc/uptime]") == 12.5);
	/* kv[]: "KEY VALUE" and "KEY: VALUE" lines of any file */
	assert_true(val(fx, "kv[proc/meminfo].MemTotal") > 0);
	assert_true(val(fx, "kv[proc/vmstat].pgfault") == val(fx, "vmstat.pgfault"));
	(void)st;
}

/* Errors start with the spec and say what was wrong. */
static void
test_errors(void **st)
{
	assert_string_equal(error(fx, "lru_gen.max_sq"), "lru_gen.max_sq: unknown field "
	    "'max_sq' (want max_seq, min_seq, gens, anon, file, memcg)");
	assert_string_equal(error(fx, "vmstat.nr_bogus"),
	    "vmstat.nr_bogus: proc/vmstat has no 'nr_bogus'");
	assert_string_equal(error(fx, "zoneinfo[Bogus].free"), "zoneinfo[Bogus].free: no zone "
	    "'Bogus' on node 0 in proc/zoneinfo (zones: Normal, Movable)");
	assert_string_equal(error(fx, "lru_gen[memcg=7].max_seq"), "lru_gen[memcg=7].max_seq: "
	    "no memcg 7 in sys/kernel/debug/lru_gen (memcgs: 1 /)");
	assert_string_equal(error(fx, "lru_gen[seq=9].anon"),
	    "lru_gen[seq=9].anon: no generation 9 in sys/kernel/debug/lru_gen");
	assert_string_equal(error(fx, "buddyinfo[Normal].11"),
	    "buddyinfo[Normal].11: order 11 is not in proc/buddyinfo (0..10)");
	assert_string_equal(error(fx, "status[name=nope].Pid"),
	    "status[name=nope].Pid: no process named 'nope' under proc");
	assert_string_equal(error(fx, "file[../../etc/passwd]"),
	    "file[../../etc/passwd]: ../../etc/passwd: '..' would leave the root");
	assert_string_equal(error(fx, "uptime"),
	    "uptime: proc/uptime: No such file or directory");
	assert_string_equal(error(fx, "lru_gen.refaulted"), "lru_gen.refaulted: unknown field "
	    "'refaulted' (want max_seq, min_seq, gens, anon, file, memcg)");
	assert_string_equal(error(root, "lru_gen_full.refaulted"), "lru_gen_full.refaulted: "
	    "sys/kernel/debug/lru_gen_full: No such file or directory");
	/* a file the parser does not fully understand is not read half */
	assert_string_equal(error(root, "vmstat.pgfault"), "vmstat.pgfault: proc/vmstat: "
	    "line 2: expected 'name value' in vmstat");
	assert_string_equal(error(root, "file[proc/7]"), "file[proc/7]: proc/7: Is a directory");
	assert_string_equal(error(fx, "kv[proc/vmstat].nr_bogus"),
	    "kv[proc/vmstat].nr_bogus: no 'nr_bogus' line in proc/vmstat");
	assert_string_equal(error(fx, "kv[proc/zoneinfo].pages"),
	    "kv[proc/zoneinfo].pages: proc/zoneinfo: 'pages' is not followed by a number");
	assert_string_equal(error("/nonexistent-umkit", "vmstat.x"),
	    "/nonexistent-umkit: No such file or directory");
	(void)st;
}

/* Syntax errors come from values_check too, without reading anything. */
static void
test_check(void **st)
{
	static const char *const good[] = {
		"vmstat.anything", "meminfo.Active(file)", "lru_gen[memcg=/a/b,node=1].anon",
		"lru_gen_full[type=file,tier=2,seq=min].protected", "zoneinfo.nr_free_pages",
		"zoneinfo[DMA32].low", "buddyinfo.pages", "extfrag[Normal,node=1].3",
		"pagetypeinfo[Normal,type=Movable].10", "pagetypeinfo.pages_per_block",
		"memory.stat[a/b].pgfault", "status[name=my prog].VmSwap", "statm[42].dt",
		"psi[full].avg300", "cpustat.steal", "uptime", "trace.count[sched_switch]",
		"file[proc/sys/vm/swappiness]", "file[path=a,b=c]",
	};
	static const struct { const char *spec, *err; } bad[] = {
		{ "", ": empty source (want vmstat, meminfo, lru_gen_full, lru_gen, zoneinfo, "
		  "buddyinfo, extfrag, unusable, pagetypeinfo, memory.stat, status, statm, psi, "
		  "cpustat, uptime, trace.count, file, kv)" },
		{ "vmstat", "vmstat: missing .KEY (want vmstat.KEY)" },
		{ "vmstat.", "vmstat.: empty key after '.' (want vmstat.KEY)" },
		{ "vmstat[x].y", "vmstat[x].y: vmstat takes no [...] (want vmstat.KEY)" },
		{ "lru_gen[memcg=1", "lru_gen[memcg=1: missing ']'" },
		{ "lru_gen[].anon", "lru_gen[].anon: empty [] (want lru_gen[memcg=ID|/PATH,"
		  "node=N,seq=N|min|max].FIELD)" },
		{ "lru_gen[node=x].anon", "lru_gen[node=x].anon: bad node 'x'" },
		{ "lru_gen[memcg=a].anon", "lru_gen[memcg=a].anon: bad memcg 'a'" },
		{ "lru_gen[node=1,node=2].anon", "lru_gen[node=1,node=2].anon: node= given twice" },
		{ "lru_gen[seq=max].min_seq",
		  "lru_gen[seq=max].min_seq: seq= picks a generation: not with min_seq" },
		{ "lru_gen_full[tier=1].anon", "lru_gen_full[tier=1].anon: tier= goes with "
		  "refaulted, evicted, protected, avg_refaulted or avg_total" },
		{ "lru_gen_full[type=slab].evicted",
		  "lru_gen_full[type=slab].evicted: type 'slab' (want anon or file)" },
		{ "extfrag.1", "extfrag.1: name a zone (want extfrag[ZONE,node=N].ORDER)" },
		{ "buddyinfo.x", "buddyinfo.x: 'x' is not a page order (want 0..15 or pages)" },
		{ "unusable[Normal].16",
		  "unusable[Normal].16: '16' is not a page order (want 0..15)" },
		/* 18 digits: atoi wrapped them to a negative index (fuzz-values) */
		{ "pagetypeinfo[Normal,type=Movable].000000800000800000",
		  "pagetypeinfo[Normal,type=Movable].000000800000800000: '000000800000800000' "
		  "is not a page order (want 0..15)" },
		{ "buddyinfo[Normal].4294967296",
		  "buddyinfo[Normal].4294967296: '4294967296' is not a page order (want 0..15 "
		  "or pages)" },
		{ "lru_gen[node=4294967296].anon",
		  "lru_gen[node=4294967296].anon: bad node '4294967296'" },
		{ "status.Pid", "status.Pid: name a process (want status[PID|name=COMM].FIELD)" },
		{ "status[1,name=x].Pid", "status[1,name=x].Pid: a pid or a name, not both" },
		{ "status[1].VmRss", "status[1].VmRss: unknown field 'VmRss' (want Pid, Threads, "
		  "VmRSS, RssAnon, RssFile, RssShmem, VmSwap)" },
		{ "psi[half].avg10", "psi[half].avg10: 'half' (want some or full)" },
		{ "uptime.s", "uptime.s: uptime takes no key (want uptime)" },
		{ "trace.count", "trace.count: missing [...] (want trace.count[EVENT])" },
		{ "trace.count[a b]", "trace.count[a b]: bad event 'a b'" },
		{ "file[]", "file[]: empty [] (want file[PATH])" },
		{ "file[a/../../b]", "file[a/../../b]: a/../../b: '..' would leave the root" },
		{ "memory.stat[..].anon", "memory.stat[..].anon: ..: '..' would leave the root" },
		{ "vmstat.a b", "vmstat.a b: bad key 'a b'" },
		{ "zoneinfo[Normal]x", "zoneinfo[Normal]x: unexpected 'x' (want zoneinfo[ZONE,"
		  "node=N].KEY)" },
		{ "lru_gen[color=red].anon", "lru_gen[color=red].anon: unknown argument 'color' "
		  "(want lru_gen[memcg=ID|/PATH,node=N,seq=N|min|max].FIELD)" },
	};
	char	err[VALUE_ERR_LEN], err2[VALUE_ERR_LEN];
	double	v;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (values_check(good[i], err, sizeof(err)) < 0)
			fail_msg("%s", err);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(values_check(bad[i].spec, err, sizeof(err)), -1);
		assert_string_equal(err, bad[i].err);
		/* reading gives the same error before touching any file */
		assert_int_equal(values_read(root, bad[i].spec, &v, err2, sizeof(err2)), -1);
		assert_string_equal(err2, bad[i].err);
	}
	(void)st;
}

/* Collect what values read, to compare with the file table. */
static void
note_read(const char *rel, void *arg)
{
	struct rec_files	*seen = arg;

	seen->pat = realloc(seen->pat, (size_t)(seen->n + 1) * sizeof(char *));
	seen->pat[seen->n++] = strdup(rel);
}

/* Files are read once until values_refresh(); every file read is in
 * values_files, and values_files is in uml/link/record.files. */
static void
test_cache_and_files(void **st)
{
	struct rec_files	 table = { 0 }, seen = { 0 }, recorded = { 0 };
	char			 err[VALUE_ERR_LEN], *text;
	struct values		*v = values_open(root, err, sizeof(err));
	unsigned		 line;
	size_t			 len;
	double			 x;

	assert_non_null(v);
	values_on_read(v, note_read, &seen);
	assert_int_equal(values_get(v, "memory.stat.anon", &x, err, sizeof(err)), 0);
	put("sys/fs/cgroup/memory.stat", "anon 1\nfile 2\n");
	assert_int_equal(values_get(v, "memory.stat.file", &x, err, sizeof(err)), 0);
	assert_true(x == 8192);			/* the same read */
	assert_int_equal(seen.n, 1);
	values_refresh(v);
	assert_int_equal(values_get(v, "memory.stat.file", &x, err, sizeof(err)), 0);
	assert_true(x == 2);
	assert_int_equal(seen.n, 2);
	values_close(v);
	put("sys/fs/cgroup/memory.stat", "anon 4096\nfile 8192\n");

	/* everything test_fixture_values reads, through one handle */
	v = values_open(fx, err, sizeof(err));
	values_on_read(v, note_read, &seen);
	for (const char *const *sp = (const char *const[]){
		"vmstat.pgfault", "meminfo.MemFree", "lru_gen.anon", "lru_gen_full.evicted",
		"zoneinfo.nr_free_pages", "buddyinfo.pages", "extfrag[Normal].1",
		"unusable[Normal].1", "pagetypeinfo.pageblock_order", "status[name=init].Pid",
		"statm[1].size", "psi[some].avg10", "cpustat.user",
		"trace.count[mm_compaction_end]", NULL }; *sp; sp++)
		if (values_get(v, *sp, &x, err, sizeof(err)) < 0)
			fail_msg("%s", err);
	values_close(v);
	for (int i = 0; values_files[i]; i++)
		note_read(values_files[i], &table);
	for (int i = 0; i < seen.n; i++)
		if (!rec_files_match(&table, seen.pat[i]))
			fail_msg("values read %s, which values_files does not list", seen.pat[i]);
	text = top_file("uml/link/record.files", &len);
	assert_int_equal(rec_files_parse(text, len, &recorded, &line, err, sizeof(err)), 0);
	for (int i = 0; values_files[i]; i++)
		if (!rec_files_has(&recorded, values_files[i]))
			fail_msg("uml/link/record.files lacks %s, which a value can name", values_files[i]);
	free(text);
	rec_files_free(&recorded);
	rec_files_free(&seen);
	rec_files_free(&table);
	(void)st;
}

/* A whole recording is not a root; one snapshot is. */
static void
test_recording_root(void **st)
{
	char	err[VALUE_ERR_LEN], rec[128];
	double	x;

	snprintf(rec, sizeof(rec), "%s/rec", root);
	put("rec/umkit-recording", "umkit-recording 1\n");
	put("rec/snap/000000/proc/uptime", "3.25 1.00\n");
	assert_int_equal(values_read(rec, "uptime", &x, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/rec is a recording: name one snapshot, "));
	assert_non_null(strstr(err, "/rec/snap/SEQ"));
	strcat(rec, "/snap/000000");
	assert_true(val(rec, "uptime") == 3.25);
	(void)st;
}

/* Integers print without a fraction. */
static void
test_format(void **st)
{
	char	out[64];

	values_format(out, sizeof(out), 27094);
	assert_string_equal(out, "27094");
	values_format(out, sizeof(out), -1);
	assert_string_equal(out, "-1");
	values_format(out, sizeof(out), 0.09);
	assert_string_equal(out, "0.09");
	values_format(out, sizeof(out), 9007199254740992.0);
	assert_string_equal(out, "9007199254740992");
	(void)st;
}

/* Run the values tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_values),
		cmocka_unit_test(test_lru_gen_sums),
		cmocka_unit_test(test_other_sources),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_cache_and_files),
		cmocka_unit_test(test_recording_root),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests_name("values", tests, setup, teardown);
}
