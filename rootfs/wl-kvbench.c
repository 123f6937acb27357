/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wl-kvbench.c - kvbench: seed 000's memcached + memtier_benchmark case in
 * one process.
 *
 * A key-value store (a hash index over items of key + value, in anonymous
 * memory or in a file mapping) is first loaded with every key, as memtier
 * does with --ratio=1:0 -n allkeys; then THREADS clients run gets and sets
 * in the asked ratio on keys drawn from a pattern (uniform, Gaussian,
 * hot/cold or sequential) for a time or operation budget.  Each operation
 * is timed with the TSC (clock_gettime is a system call under UML), and
 * the result gives ops/s and latency percentiles.  Every get checks the
 * whole value against what its key and version say it must hold, so a
 * page lost or mixed up by reclaim or swap fails the run.
 *
 * Sized over guest memory (--size 200%), the cold items are reclaimed:
 * MGLRU ages and evicts, and anonymous pages go to zram swap.  Values are
 * compressible by default (memtier's default data is too); --random makes
 * a share of each value incompressible.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "wl.h"

#define KEY_MAX		16	/* "kv:" and up to 10 digits, NUL-padded */
#define NSTRIPES	4096	/* item locks, as memcached's item lock table */

enum { P_UNIFORM, P_GAUSSIAN, P_HOTCOLD, P_SEQUENTIAL };
static const char *const patterns[] = {
	"uniform", "gaussian", "hotcold", "sequential", NULL
};

static long long	o_keys, o_size = 64LL << 20, o_value = 1024, o_threads = 1;
static long long	o_ops, o_random, o_seed = 1;
static double		o_time = 5, o_hold;
static int		o_pattern, o_hot[2] = { 20, 80 }, o_ratio[2] = { 1, 10 };
static int		o_pin, o_populate;
static const char	*o_file;

/* One item: header, then the value (words of 8 bytes). */
struct item {
	uint64_t	key;		/* key index */
	uint64_t	version;	/* bumped by every set */
	char		name[KEY_MAX];	/* the key as a client sends it */
	uint64_t	value[];
};

struct slot {
	uint64_t	hash;
	uint64_t	item;		/* item index + 1; 0 = empty */
};

static struct {
	unsigned char	*items;
	size_t		 item_size, nkeys, value_words, random_words;
	struct slot	*index;
	size_t		 index_mask;
	unsigned char	 locks[NSTRIPES];
	uint64_t	 deadline_tsc;
	uint64_t	 ops_per_thread;
	double		 gauss_mean, gauss_sd;
	size_t		 hot_keys;
	unsigned	 hot_ops_pct, set_share, share_total;
} kv;

struct client {
	pthread_t	 th;
	int		 id;
	uint64_t	 rng, ops, gets, sets, cursor, lo, hi;
	struct wl_hist	 hist;
};

/* The key's name as a client would send it: "kv:" and the decimal index. */
static size_t
key_name(uint64_t k, char *buf)
{
	char	tmp[24];
	size_t	n = 0, i;

	do {
		tmp[n++] = (char)('0' + k % 10);
		k /= 10;
	} while (k != 0);
	memcpy(buf, "kv:", 3);
	for (i = 0; i < n; i++)
		buf[3 + i] = tmp[n - 1 - i];
	memset(buf + 3 + n, 0, KEY_MAX - 3 - n);
	return 3 + n;
}

/* FNV-1a over the key name. */
static uint64_t
key_hash(const char *s, size_t n)
{
	uint64_t	h = 0xcbf29ce484222325ULL;

	while (n-- > 0)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h;
}

/* Item number i. */
static struct item *
item_at(uint64_t i)
{
	return (struct item *)(kv.items + i * kv.item_size);
}

/* Find a key's item through the index (the server's lookup). */
static struct item *
lookup(uint64_t k)
{
	char		 name[KEY_MAX];
	size_t		 n = key_name(k, name), i;
	uint64_t	 h = key_hash(name, n);
	struct item	*it;

	for (i = h & kv.index_mask;; i = (i + 1) & kv.index_mask) {
		if (kv.index[i].item == 0)
			wl_failx("key %s missing from the index", name);
		if (kv.index[i].hash != h)
			continue;
		it = item_at(kv.index[i].item - 1);
		if (memcmp(it->name, name, KEY_MAX) == 0)
			return it;
	}
}

/* Lock and unlock an item's stripe. */
static void
lock(uint64_t k)
{
	while (__atomic_test_and_set(&kv.locks[k % NSTRIPES], __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
}

static void
unlock(uint64_t k)
{
	__atomic_clear(&kv.locks[k % NSTRIPES], __ATOMIC_RELEASE);
}

/* Word w of the value of key k at version v. */
static inline uint64_t
value_word(uint64_t k, uint64_t v, size_t w)
{
	uint64_t	s;

	if (w < kv.random_words) {
		s = (k << 20) ^ (v << 44) ^ w;
		return wl_rand(&s);
	}
	/* The compressible part: one byte repeated, as memtier's 'x' data. */
	return 0x0101010101010101ULL * ((k + v) & 0xff);
}

/* A set: write a new version of the whole value. */
static void
op_set(struct item *it)
{
	uint64_t	v;
	size_t		w;

	lock(it->key);
	v = ++it->version;
	for (w = 0; w < kv.value_words; w++)
		it->value[w] = value_word(it->key, v, w);
	unlock(it->key);
}

/* A get: read the whole value and check it; returns a checksum. */
static uint64_t
op_get(struct item *it)
{
	uint64_t	v, sum = 0, x;
	size_t		w;

	lock(it->key);
	v = it->version;
	for (w = 0; w < kv.value_words; w++) {
		x = it->value[w];
		if (x != value_word(it->key, v, w))
			wl_failx("key %s version %llu: word %zu is %#llx, not %#llx: "
			    "memory corrupted", it->name, (unsigned long long)v, w,
			    (unsigned long long)x,
			    (unsigned long long)value_word(it->key, v, w));
		sum += x;
	}
	unlock(it->key);
	return sum;
}

/* The next key of a client's pattern. */
static uint64_t
pick(struct client *c)
{
	uint64_t	r, n = kv.nkeys;
	double		z;
	long long	k;
	int		i;

	switch (o_pattern) {
	case P_GAUSSIAN:
		/* Irwin-Hall: 12 uniforms sum to ~N(6, 1); no libm needed. */
		do {
			for (z = -6, i = 0; i < 12; i++)
				z += (double)(wl_rand(&c->rng) >> 11) * 0x1p-53;
			k = (long long)(kv.gauss_mean + z * kv.gauss_sd);
		} while (k < 0 || (uint64_t)k >= n);
		return (uint64_t)k;
	case P_HOTCOLD:
		r = wl_rand(&c->rng);
		if (r % 100 < kv.hot_ops_pct || kv.hot_keys == n)
			return (r >> 8) % kv.hot_keys;
		return kv.hot_keys + (r >> 8) % (n - kv.hot_keys);
	case P_SEQUENTIAL:
		r = c->cursor++;
		if (c->cursor >= c->hi)
			c->cursor = c->lo;
		return r;
	default:
		return wl_rand(&c->rng) % n;
	}
}

/* Load: set every key of this client's share, in key order. */
static void *
load_main(void *arg)
{
	struct client	*c = arg;
	uint64_t	 k;
	struct item	*it;

	if (o_pin)
		wl_pin(c->id % wl_ncpus());
	for (k = c->lo; k < c->hi; k++) {
		it = item_at(k);
		it->key = k;
		it->version = 0;
		key_name(k, it->name);
		op_set(it);
	}
	return NULL;
}

/* A client: operations until the budget is spent. */
static void *
client_main(void *arg)
{
	struct client	*c = arg;
	struct item	*it;
	uint64_t	 t0, t1, sum = 0;
	int		 i;

	if (o_pin)
		wl_pin(c->id % wl_ncpus());
	for (;;) {
		for (i = 0; i < 64; i++) {
			t0 = wl_tsc();
			it = lookup(pick(c));
			if (wl_rand(&c->rng) % kv.share_total < kv.set_share) {
				op_set(it);
				c->sets++;
			} else {
				sum += op_get(it);
				c->gets++;
			}
			t1 = wl_tsc();
			wl_hist_add(&c->hist, t1 - t0);
		}
		c->ops += 64;
		if (kv.ops_per_thread ? c->ops >= kv.ops_per_thread :
		    wl_tsc() >= kv.deadline_tsc)
			break;
	}
	__asm__ __volatile__("" : : "r" (sum));
	return NULL;
}

/* Run one phase on every client and wait for it. */
static void
run_clients(struct client *c, void *(*fn)(void *))
{
	int	i, e;

	for (i = 0; i < o_threads; i++)
		if ((e = pthread_create(&c[i].th, NULL, fn, &c[i])) != 0) {
			errno = e;
			wl_fail("cannot start thread %d", i);
		}
	for (i = 0; i < o_threads; i++)
		pthread_join(c[i].th, NULL);
}

/* Map the item store: anonymous memory, or --file (unlinked at once). */
static void
map_store(size_t bytes)
{
	int	fd;

	if (o_file == NULL) {
		kv.items = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
		    (o_populate ? MAP_POPULATE : 0), -1, 0);
		if (kv.items == MAP_FAILED)
			wl_fail("cannot map %zu bytes of anonymous memory", bytes);
		return;
	}
	if ((fd = open(o_file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0)
		wl_fail("--file %s", o_file);
	/* The mapping keeps the file: nothing is left behind, however we end. */
	unlink(o_file);
	if (ftruncate(fd, (off_t)bytes) < 0)
		wl_fail("--file %s: cannot size it to %zu bytes", o_file, bytes);
	kv.items = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED |
	    (o_populate ? MAP_POPULATE : 0), fd, 0);
	if (kv.items == MAP_FAILED)
		wl_fail("--file %s: cannot map it", o_file);
	close(fd);
}

/* Build the index: every key hashed to its item (items in key order). */
static void
build_index(void)
{
	char		name[KEY_MAX];
	size_t		size = 1, k, i, n;
	uint64_t	h;

	while (size < kv.nkeys * 2)
		size <<= 1;
	kv.index = mmap(NULL, size * sizeof *kv.index, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (kv.index == MAP_FAILED)
		wl_fail("cannot map the index (%zu slots)", size);
	kv.index_mask = size - 1;
	for (k = 0; k < kv.nkeys; k++) {
		n = key_name(k, name);
		h = key_hash(name, n);
		for (i = h & kv.index_mask; kv.index[i].item != 0;
		    i = (i + 1) & kv.index_mask)
			;
		kv.index[i].hash = h;
		kv.index[i].item = k + 1;
	}
}

/* The minor page faults of this process so far. */
static long long
minflt(void)
{
	struct rusage	ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		wl_fail("getrusage");
	return ru.ru_minflt;
}

/* kvbench's main. */
static int
kv_run(void)
{
	struct client	*c;
	struct wl_hist	*all;
	uint64_t	 t0, t1, l0, l1, ops = 0, gets = 0, sets = 0, per;
	long long	 in0, out0, swap, flt0, faults;
	double		 tpu, secs;
	size_t		 bytes;
	int		 i;

	if (o_value % 8 != 0)
		wl_usage("--value-size %lld: want a multiple of 8", o_value);
	kv.nkeys = o_keys > 0 ? (size_t)o_keys : (size_t)(o_size / o_value);
	if (kv.nkeys < (size_t)o_threads)
		wl_usage("--size %lld: fewer keys (%zu) than threads", o_size, kv.nkeys);
	if (o_ratio[0] + o_ratio[1] == 0)
		wl_usage("--ratio 0:0: want at least one set or get");
	if (o_hot[0] < 1 || o_hot[0] > 100 || o_hot[1] > 100)
		wl_usage("--hot %d:%d: want KEYS_PCT:OPS_PCT, KEYS_PCT from 1 to 100",
		    o_hot[0], o_hot[1]);
	kv.value_words = o_value / 8;
	kv.random_words = kv.value_words * o_random / 100;
	kv.item_size = sizeof(struct item) + o_value;
	kv.set_share = o_ratio[0];
	kv.share_total = o_ratio[0] + o_ratio[1];
	kv.gauss_mean = kv.nkeys / 2.0;
	kv.gauss_sd = kv.nkeys / 6.0;	/* memtier's default deviation */
	kv.hot_keys = kv.nkeys * o_hot[0] / 100;
	if (kv.hot_keys == 0)
		kv.hot_keys = 1;
	kv.hot_ops_pct = o_hot[1];
	bytes = kv.nkeys * kv.item_size;
	tpu = wl_tsc_per_us();

	map_store(bytes);
	build_index();
	c = wl_alloc(o_threads * sizeof *c);
	per = kv.nkeys / o_threads;
	for (i = 0; i < o_threads; i++) {
		c[i].id = i;
		c[i].rng = (uint64_t)o_seed * 0x9e3779b97f4a7c15ULL + i;
		c[i].lo = per * i;
		c[i].hi = i == o_threads - 1 ? kv.nkeys : per * (i + 1);
		c[i].cursor = c[i].lo;
	}

	flt0 = minflt();
	l0 = wl_now_ns();
	run_clients(c, load_main);
	l1 = wl_now_ns();
	faults = minflt() - flt0;

	in0 = wl_vmstat("pswpin");
	out0 = wl_vmstat("pswpout");
	kv.ops_per_thread = o_ops > 0 ? (uint64_t)((o_ops + o_threads - 1) / o_threads) : 0;
	t0 = wl_now_ns();
	kv.deadline_tsc = wl_tsc() + (uint64_t)(o_time * 1e6 * tpu);
	run_clients(c, client_main);
	t1 = wl_now_ns();
	swap = wl_meminfo("SwapTotal") - wl_meminfo("SwapFree");

	all = wl_alloc(sizeof *all);
	for (i = 0; i < o_threads; i++) {
		wl_hist_merge(all, &c[i].hist);
		ops += c[i].ops;
		gets += c[i].gets;
		sets += c[i].sets;
	}
	secs = (t1 - t0) / 1e9;
	wl_out_begin();
	wl_out_str("pattern", patterns[o_pattern]);
	wl_out_str("store", o_file ? "file" : "anon");
	wl_out_int("keys", (long long)kv.nkeys);
	wl_out_int("value_bytes", o_value);
	wl_out_int("store_mb", (long long)(bytes >> 20));
	wl_out_int("threads", o_threads);
	wl_out_num("load_s", (l1 - l0) / 1e9, 3);
	wl_out_int("load_faults", faults);
	wl_out_int("ops", (long long)ops);
	wl_out_int("gets", (long long)gets);
	wl_out_int("sets", (long long)sets);
	wl_out_num("seconds", secs, 3);
	wl_out_num("ops_per_s", ops / secs, 0);
	wl_out_num("p50_us", wl_hist_pct(all, 50) / tpu, 2);
	wl_out_num("p99_us", wl_hist_pct(all, 99) / tpu, 2);
	wl_out_num("p999_us", wl_hist_pct(all, 99.9) / tpu, 2);
	wl_out_int("swapin_pages", wl_vmstat("pswpin") - in0);
	wl_out_int("swapout_pages", wl_vmstat("pswpout") - out0);
	wl_out_int("swap_used_mb", swap >> 20);
	wl_out_end();
	/* The store stays mapped: a view or a check reads its counters. */
	wl_hold(o_hold);
	return 0;
}

static const struct wl_opt kv_opts[] = {
	{ "size", WL_SIZE, &o_size, "SIZE", "data set: keys x value size, like "
	  "256M or 200% of guest memory (default 64M)", 4096, 0, NULL, WL_PCT },
	{ "keys", WL_INT, &o_keys, "N", "number of keys instead of --size",
	  1, 1LL << 31, NULL, 0 },
	{ "value-size", WL_SIZE, &o_value, "BYTES", "value size, a multiple of 8 "
	  "(default 1024, memtier -d)", 16, 1 << 20, NULL, 0 },
	{ "threads", WL_INT, &o_threads, "N", "client threads (default 1)",
	  1, 64, NULL, 0 },
	{ "pattern", WL_CHOICE, &o_pattern, "P", "key pattern: uniform, gaussian "
	  "(mean mid, sd keys/6), hotcold, sequential (default uniform)",
	  0, 0, patterns, 0 },
	{ "hot", WL_PAIR, &o_hot, "K:O", "hotcold: K% of the keys get O% of the "
	  "operations (default 20:80)", 0, 100, NULL, 0 },
	{ "ratio", WL_PAIR, &o_ratio, "S:G", "sets to gets (default 1:10, "
	  "memtier's)", 0, 1000000, NULL, 0 },
	{ "time", WL_SECS, &o_time, "SECONDS", "run time after the load "
	  "(default 5)", 0, 86400, NULL, 0 },
	{ "hold", WL_SECS, &o_hold, "SECONDS", "after the report, keep the "
	  "store mapped this long (or until SIGTERM; default 0)", 0, 86400,
	  NULL, 0 },
	{ "ops", WL_INT, &o_ops, "N", "stop after N operations instead of "
	  "--time", 1, 1LL << 50, NULL, 0 },
	{ "random", WL_INT, &o_random, "PCT", "incompressible share of each "
	  "value (default 0)", 0, 100, NULL, 0 },
	{ "file", WL_STR, &o_file, "PATH", "keep the items in a new file "
	  "(e.g. on /mnt/disk), not anonymous memory", 0, 0, NULL, 0 },
	{ "pin", WL_FLAG, &o_pin, NULL, "pin client i to CPU i mod CPUs",
	  0, 0, NULL, 0 },
	{ "populate", WL_FLAG, &o_populate, NULL, "map the store with "
	  "MAP_POPULATE: its pages are faulted in by one mmap() before the "
	  "load instead of one fault each", 0, 0, NULL, 0 },
	{ "seed", WL_INT, &o_seed, "N", "random seed (default 1)", 0,
	  1LL << 62, NULL, 0 },
	{ NULL, 0, NULL, NULL, NULL, 0, 0, NULL, 0 }
};

const struct wl_prog wl_kvbench = {
	.name = "kvbench",
	.summary =
"A key-value store and its clients in one process (seed 000: memcached\n"
"driven by memtier_benchmark).  Loads every key, then runs gets and sets\n"
"on keys from a pattern for --time or --ops; prints ops/s and latency\n"
"percentiles.  Each get checks its whole value.  Sized over guest memory,\n"
"it drives MGLRU aging and eviction into zram swap.",
	.example =
"  kvbench --size 64M --time 2\n"
"  kvbench --size 200% --pattern gaussian --threads 2 --time 10 --json\n"
"  kvbench --size 512M --file /mnt/disk/kv --pattern hotcold --hot 10:90",
	.opts = kv_opts,
	.run = kv_run,
};
