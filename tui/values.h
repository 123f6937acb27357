/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * values.h - named values read from a root directory through the
 * parsers: what lab checks compare and shell tests print (umkit-value).
 *
 * A root is a directory laid out like / : a live mirror (run/NAME/mnt),
 * one snapshot of a recording (DIR/snap/SEQ), a fixture tree, or / on a
 * Linux host.  A value is named by a spec (docs/values.md has the table
 * with examples):
 *
 *   spec   := source [ "[" args "]" ] [ "." key ]
 *   args   := arg { "," arg }        arg := NAME "=" VALUE | VALUE
 *
 *   vmstat.KEY                 proc/vmstat counter KEY
 *   meminfo.KEY                proc/meminfo field KEY (kB as printed)
 *   lru_gen.FIELD              sys/kernel/debug/lru_gen; FIELD is
 *                              max_seq, min_seq, gens (how many), anon or
 *                              file (pages), or memcg (the id of the one
 *                              memcg picked); summed over memcgs and nodes
 *                              unless args pick them: memcg=ID or
 *                              memcg=/PATH, node=N; seq=N|min|max picks
 *                              one generation (anon, file)
 *   lru_gen_full.FIELD         sys/kernel/debug/lru_gen_full: the fields
 *                              above and, summed over tiers and types
 *                              unless tier=N, type=anon|file pick them:
 *                              refaulted, evicted, protected (older
 *                              generations' "rep" rows), avg_refaulted,
 *                              avg_total (the youngest's "RT" rows)
 *   zoneinfo[ZONE].KEY         proc/zoneinfo, zone ZONE of node 0
 *                              (zoneinfo[node=N,zone=Z].KEY); KEY is
 *                              free, min, low, high, boost, promo,
 *                              spanned, present, managed, cma, start_pfn,
 *                              a zone counter (nr_free_pages, ...) or a
 *                              node counter; without a zone: summed over
 *                              all zones (node counters: over nodes)
 *   buddyinfo[ZONE].ORDER      proc/buddyinfo free blocks of ORDER;
 *                              .pages: free pages (sum of n << order);
 *                              without a zone: summed over zones
 *   extfrag[ZONE].ORDER        debugfs extfrag/extfrag_index (-1 .. 1)
 *   unusable[ZONE].ORDER       debugfs extfrag/unusable_index (0 .. 1)
 *   pagetypeinfo[ZONE,type=T].ORDER  free blocks of migrate type T
 *   pagetypeinfo[ZONE].TYPE    pageblocks of migrate type TYPE
 *   pagetypeinfo.pageblock_order, pagetypeinfo.pages_per_block
 *   memory.stat[CGROUP].KEY    sys/fs/cgroup/CGROUP/memory.stat
 *                              (memory.stat.KEY: the root cgroup)
 *   status[PID].KEY            proc/PID/status: Pid, Threads, VmRSS,
 *                              RssAnon, RssFile, RssShmem, VmSwap (kB);
 *                              status[name=COMM]: the lowest pid named so
 *   statm[PID].KEY             proc/PID/statm: size, resident, shared,
 *                              text, lib, data, dt (pages); name= too
 *   psi[some|full].KEY         proc/pressure/memory: avg10, avg60,
 *                              avg300, total (us)
 *   cpustat.KEY                proc/stat's cpu line: user, nice, system,
 *                              idle, iowait, irq, softirq, steal; ncpus
 *   uptime                     proc/uptime: seconds since boot
 *   trace.count[EVENT]         events named EVENT in tracing/trace
 *   file[PATH]                 the first number in root/PATH
 *
 * ZONE, CGROUP, PID, EVENT and PATH may also be given as zone=, cgroup=,
 * pid=, event=, path=.  PATH and CGROUP stay under the root: no '..'.
 *
 * Errors are one line that starts with the spec and says what was wrong:
 * "lru_gen.max_sq: unknown field 'max_sq' (want max_seq, min_seq, gens,
 * anon, file, memcg)", "vmstat.nr_bogus: proc/vmstat has no 'nr_bogus'",
 * "zoneinfo[Normal].free: proc/zoneinfo: No such file or directory".
 * A file the parser does not fully understand is an error too (its
 * message names the file and line): a check never reads half a file.
 *
 * Part of libumkit-parse (parse.h says why it lives in tui/).  Values are
 * doubles: exact for integers below 2^53, which every counter of a lab
 * guest is.
 */
#ifndef UMKIT_VALUES_H
#define UMKIT_VALUES_H

#include <stddef.h>

#define VALUE_ERR_LEN	320

struct values;

/*
 * Open a root for reading values.  Files are read on first use and kept,
 * so all values read before values_refresh() come from one read of each
 * file (two counters of vmstat are from the same moment).  NULL with err
 * set when root is not a directory, or is a whole recording ("DIR is a
 * recording: name one snapshot, DIR/snap/SEQ").
 */
struct values	*values_open(const char *root, char *err, size_t errlen);
/* Read the value spec names into *out: 0, or -1 with err set. */
int		 values_get(struct values *, const char *spec, double *out,
	    char *err, size_t errlen);
/* Forget the files read so far: the next values_get reads afresh. */
void		 values_refresh(struct values *);
/* Close the root and free everything. */
void		 values_close(struct values *);
/* Call fn for each root-relative file read from now on (tests use it to
 * check the file table below against what is really read). */
void		 values_on_read(struct values *, void (*fn)(const char *rel, void *),
	    void *arg);

/* Check a spec's syntax without reading anything (lab --check): 0, or
 * -1 with the same error values_get would give for the spec itself. */
int	values_check(const char *spec, char *err, size_t errlen);
/* values_open + values_get + values_close for one value. */
int	values_read(const char *root, const char *spec, double *out,
	    char *err, size_t errlen);
/* Print a value as umkit-value does: integers without a fraction,
 * others with up to 15 significant digits. */
void	values_format(char *out, size_t n, double v);

/* The root-relative files (glob patterns) a spec can name, except
 * file[PATH], NULL-terminated: a recording must keep them
 * (uml/link/record.files; a test compares the two). */
extern const char *const values_files[];

#endif
