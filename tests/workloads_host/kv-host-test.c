// SPDX-License-Identifier: GPL-2.0
/*
 * kv-host-test: the kv table and the key choosers on the build host,
 * over anonymous shared memory (a memfd), no ddsm needed.
 *
 * usage: kv-host-test [DIR]  (DIR: where ddsm-ycsb and ddsm-micro are;
 *                            default: this program's directory)
 *
 * For two layouts (hashed, one bucket per unit; direct, three buckets
 * packed per group, spread over 4 homes) four threads run puts, gets,
 * read-modify-writes and deletes at once:
 *   counted keys 1..COUNTED are loaded first, never deleted, updated by
 *     everybody (zipfian, so buckets are fought over); every thread
 *     tallies its successful updates per key;
 *   churn keys above them are inserted and deleted, each by one owner
 *     thread that knows what it should find at the end;
 *   every read goes through a second, PROT_READ mapping of the memfd:
 *     a reader that stored anything (even the byte already there) would
 *     fault, and the test would end "not ok".
 * Then: every counted key is at version 1 + the sum of the tallies, every
 * churn key as its owner left it, every value and checksum right, a scan
 * finds exactly those records, and a read-only pass through the writable
 * mapping leaves every byte as it was.  Also: lock and seqlock waits time
 * out, a full bucket says -ENOSPC, corruption says -EBADMSG, kv_attach()
 * refuses a bad header; the zipfian generator's rank 0 and 1 frequencies
 * match 1/zeta(n) and 0.5^theta/zeta(n), uniform covers every item,
 * scrambled and latest stay in range, FNV-1a and the histogram (its
 * quantiles and CDF) are right.
 *
 * Last, ddsm-ycsb and ddsm-micro each run on 3 emulated nodes (wl.h: 3
 * processes over one fresh file), with fixed operation counts and for a
 * time (ddsm-micro's replay of its traces to each thread's count), and
 * must pass all their checks.  That tests the programs' phases and
 * verification, not ddsm.
 *
 * Output: TAP lines, then "N passed, N failed"; exit 0 iff none failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hist.h"
#include "hosttest.h"
#include "kv.h"
#include "zipf.h"

#define NTHREADS	4
#define COUNTED		2000
#define CHURN		400
#define NKEYS		(COUNTED + CHURN)
#define OPS		40000


/* A store through the read-only view: the readers broke their promise. */
static void segv_handler(int sig, siginfo_t *si, void *ctx)
{
	char buf[128];
	int len;

	(void)sig;
	(void)ctx;
	len = snprintf(buf, sizeof(buf),
		       "not ok - a reader stored at %p (read-only view)\n",
		       si->si_addr);
	if (write(1, buf, (size_t)len) < 0)
		_exit(1);
	_exit(1);
}

/* The same memfd mapped read-write and read-only. */
struct views {
	char *rw, *ro;
	size_t len;
};

static void views_map(struct views *v, size_t len)
{
	int fd = memfd_create("kv-host-test", MFD_CLOEXEC);

	if (fd < 0 || ftruncate(fd, (off_t)len)) {
		perror("memfd");
		exit(1);
	}
	v->len = len;
	v->rw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	v->ro = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (v->rw == MAP_FAILED || v->ro == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	close(fd);
}

static void views_unmap(struct views *v)
{
	munmap(v->rw, v->len);
	munmap(v->ro, v->len);
}

/* ---- concurrent operations ---- */

struct worker {
	pthread_t th;
	int id;
	const struct kv_table *rw, *ro;
	struct wl_rng rng;
	struct zipf z;
	uint32_t changes[COUNTED];	/* successful puts and rmws */
	uint64_t seen[COUNTED];		/* highest version read */
	uint8_t present[CHURN];		/* owned churn keys' state */
	uint64_t version[CHURN];
	uint64_t bad, errors, full;
	uint64_t buf[1024];
};

/*
 * Through the read-only view.  A counted key's versions never go down (a
 * churn key's start again at 1 when it is deleted and inserted).
 */
static void do_get(struct worker *w, uint64_t key)
{
	uint64_t ver;
	int r = kv_get(w->ro, key, w->buf, &ver);

	if (r == -ENOENT && key > COUNTED)
		return;
	if (r || !kv_value_is_pattern(w->ro, key, ver, w->buf) ||
	    (key <= COUNTED && ver < w->seen[key - 1])) {
		if (w->bad++ < 3)
			printf("# thread%d: get %" PRIu64 ": %d, version %" PRIu64 "\n",
			       w->id, key, r, r ? 0 : ver);
		return;
	}
	if (key <= COUNTED)
		w->seen[key - 1] = ver;
}

static void do_update(struct worker *w, uint64_t key, int rmw)
{
	int64_t v = rmw ? kv_rmw(w->rw, key, kv_rmw_pattern, (void *)w->rw) :
			  kv_put(w->rw, key, NULL);

	if (v > 0)
		w->changes[key - 1]++;
	else
		w->errors++;
}

/* Churn key @i (owned): delete it or put it, knowing what must happen. */
static void do_churn(struct worker *w, uint64_t i)
{
	uint64_t key = COUNTED + 1 + i;
	int64_t v;

	if (w->present[i] && wl_rng_below(&w->rng, 2)) {
		if (kv_delete(w->rw, key))
			w->errors++;
		w->present[i] = 0;
		return;
	}
	v = kv_put(w->rw, key, NULL);
	if (v == -ENOSPC && !w->present[i]) {
		w->full++;
		return;
	}
	if (v != (int64_t)(w->present[i] ? w->version[i] + 1 : 1))
		w->bad++;
	w->present[i] = v > 0;
	w->version[i] = v > 0 ? (uint64_t)v : 0;
}

static void one_op(struct worker *w)
{
	uint64_t u = wl_rng_below(&w->rng, 100);
	uint64_t hot = 1 + zipf_next(&w->z, &w->rng);
	uint64_t mine = wl_rng_below(&w->rng, CHURN / NTHREADS) * NTHREADS +
			(uint64_t)w->id;

	if (u < 40)
		do_get(w, hot);
	else if (u < 50)
		do_get(w, COUNTED + 1 + wl_rng_below(&w->rng, CHURN));
	else if (u < 75)
		do_update(w, hot, 0);
	else if (u < 90)
		do_update(w, hot, 1);
	else
		do_churn(w, mine);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int i;

	for (i = 0; i < OPS; i++)
		one_op(w);
	return NULL;
}

/* ---- checks after the run ---- */

struct scan_acc {
	uint64_t slots, bad;
	const uint64_t *want;
};

static int scan_one(const struct kv_table *t, const struct kv_slot *s,
		    void *arg)
{
	struct scan_acc *a = arg;

	a->slots++;
	if (s->key > NKEYS || kv_verify_slot(t, s) ||
	    !kv_value_is_pattern(t, s->key, s->version, s->value) ||
	    s->version != a->want[s->key - 1])
		a->bad++;
	return 0;
}

/* want[key - 1]: the version each key must have, 0 if absent. */
static void expected(struct worker *w, uint64_t *want)
{
	uint64_t k;
	int i;

	for (k = 0; k < COUNTED; k++) {
		want[k] = 1;
		for (i = 0; i < NTHREADS; i++)
			want[k] += w[i].changes[k];
	}
	for (k = 0; k < CHURN; k++) {
		struct worker *o = &w[k % NTHREADS];

		want[COUNTED + k] = o->present[k] ? o->version[k] : 0;
	}
}

static void check_final(const char *name, const struct kv_table *ro,
			const uint64_t *want)
{
	struct scan_acc a = { .want = want };
	uint64_t k, ver, bad = 0, present = 0, buf[1024];
	int64_t r;

	for (k = 1; k <= NKEYS; k++) {
		r = kv_get(ro, k, buf, &ver);
		if (!want[k - 1] ? r != -ENOENT :
		    r || ver != want[k - 1] ||
		    !kv_value_is_pattern(ro, k, ver, buf))
			bad++;
		present += !!want[k - 1];
	}
	check(!bad, "%s: all %d keys at their exact versions with right values (%" PRIu64 " wrong)",
	      name, NKEYS, bad);
	r = kv_scan(ro, scan_one, &a);
	check(r == (int64_t)present && a.slots == present && !a.bad,
	      "%s: scan finds exactly the %" PRIu64 " records, checksums right (%" PRIu64 " bad)",
	      name, present, a.bad);
}

/* A full read pass through the writable view changes no byte. */
static void check_no_store(const char *name, const struct kv_table *rw)
{
	struct scan_acc a = { 0 };
	uint64_t k, ver, buf[1024];
	char *copy = malloc(rw->total_bytes);
	uint64_t *want = calloc(NKEYS, sizeof(*want));

	if (!copy || !want)
		exit(1);
	memcpy(copy, rw->base, rw->total_bytes);
	for (k = 1; k <= NKEYS; k++)
		kv_get(rw, k, buf, &ver);
	a.want = want;
	kv_scan(rw, scan_one, &a);
	check(!memcmp(copy, rw->base, rw->total_bytes),
	      "%s: gets and a scan leave every byte of the table unchanged",
	      name);
	free(copy);
	free(want);
}

static void load(const struct kv_table *t)
{
	uint64_t k, bad = 0;

	for (k = 1; k <= COUNTED; k++)
		bad += kv_put(t, k, NULL) != 1;
	check(!bad, "loaded %d keys at version 1 (%" PRIu64 " failed)",
	      COUNTED, bad);
}

static void run_threads(struct worker *w, const struct kv_table *rw,
			const struct kv_table *ro)
{
	uint64_t bad = 0, errors = 0, full = 0;
	int i;

	for (i = 0; i < NTHREADS; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].id = i;
		w[i].rw = rw;
		w[i].ro = ro;
		wl_rng_seed(&w[i].rng, 42 + (uint64_t)i);
		zipf_init(&w[i].z, COUNTED, ZIPF_THETA);
		if (pthread_create(&w[i].th, NULL, worker_main, &w[i]))
			exit(1);
	}
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(w[i].th, NULL);
		bad += w[i].bad;
		errors += w[i].errors;
		full += w[i].full;
	}
	check(!bad && !errors,
	      "%d threads x %d ops: reads consistent (%" PRIu64 " bad), no failure (%" PRIu64 "), %" PRIu64 " inserts found their bucket full",
	      NTHREADS, OPS, bad, errors, full);
}

static void layout_test(const char *name, const struct kv_params *p)
{
	static struct worker w[NTHREADS];
	static uint64_t want[NKEYS];
	struct kv_table rw, ro;
	struct views v;
	uint64_t len = kv_bytes(p);
	int r;

	check(len > 0, "%s: kv_bytes %" PRIu64, name, len);
	views_map(&v, len);
	r = kv_init(&rw, v.rw, len, p);
	check(!r, "%s: kv_init: %d", name, r);
	r = kv_attach(&ro, v.ro, len);
	check(!r, "%s: kv_attach on the read-only view: %d", name, r);
	if (!len || r)
		return;
	/* A bug that leaves a lock held should fail the test, not hang it. */
	rw.timeout = 10;
	ro.timeout = 10;
	load(&rw);
	run_threads(w, &rw, &ro);
	expected(w, want);
	check_final(name, &ro, want);
	check_no_store(name, &rw);
	views_unmap(&v);
}

/* ---- edge cases ---- */

static void edge_tests(void)
{
	struct kv_params p = { .nr_buckets = 10, .slots = 2, .value_size = 64,
			       .pack = 1, .flags = KV_F_DIRECT, .nr_nodes = 1 };
	uint64_t len = kv_bytes(&p), buf[8], ver;
	struct kv_table t, t2;
	struct kv_bucket *b;
	char *mem = calloc(1, len);
	struct kv_slot *s;

	if (!mem || kv_init(&t, mem, len, &p))
		exit(1);
	/* Keys 1, 11, 21 share bucket 0 of 2 slots. */
	check(kv_put(&t, 1, NULL) == 1 && kv_put(&t, 11, NULL) == 1 &&
	      kv_put(&t, 21, NULL) == -ENOSPC, "a full bucket says -ENOSPC");
	check(kv_put(&t, 1, NULL) == 2 && kv_delete(&t, 1) == 0 &&
	      kv_get(&t, 1, buf, &ver) == -ENOENT &&
	      kv_put(&t, 21, NULL) == 1 && kv_put(&t, 1, NULL) == -ENOSPC,
	      "overwrite +1, delete frees the slot for another key");
	check(kv_delete(&t, 5) == -ENOENT && kv_put(&t, 0, NULL) == -EINVAL,
	      "delete of a missing key -ENOENT, key 0 -EINVAL");
	b = kv_bucket_at(&t, 0);
	s = (struct kv_slot *)((char *)b + 16);
	s->value[3] ^= 1;
	check(kv_get(&t, s->key, buf, &ver) == -EBADMSG &&
	      kv_verify_slot(&t, s) == -EBADMSG,
	      "a flipped bit is -EBADMSG from kv_get and kv_verify_slot");
	s->value[3] ^= 1;
	t.timeout = 0.05;
	b->lock = 99;
	check(kv_put(&t, 11, NULL) == -ETIMEDOUT, "a lock never released times out");
	b->lock = 0;
	b->seq++;
	check(kv_get(&t, 11, buf, &ver) == -ETIMEDOUT, "an odd seq that stays odd times out");
	b->seq++;
	check(kv_get(&t, 11, buf, &ver) == 0 && ver == 1, "and the bucket works again");
	((struct kv_header *)mem)->nr_groups++;
	check(kv_attach(&t2, mem, len) == -EINVAL, "kv_attach refuses inconsistent geometry");
	((struct kv_header *)mem)->magic = 0;
	check(kv_attach(&t2, mem, len) == -EPROTO, "kv_attach refuses a bad magic");
	free(mem);
}

static void placement_tests(void)
{
	struct kv_params p = {
		.nr_buckets = 100, .slots = 4, .value_size = 1024, .pack = 1,
		.flags = 0, .nr_nodes = 2,
	};
	struct kv_table t;
	char *mem;
	uint64_t b, len, homes_bad = 0;

	/* 4 x 1048 bytes: 2 units a bucket; contiguous, all start even. */
	len = kv_bytes(&p);
	mem = calloc(1, len + (p.nr_buckets + 1) * KV_UNIT);
	if (!mem || kv_init(&t, mem, len, &p))
		exit(1);
	check(t.stride_bytes == 2 * KV_UNIT, "contiguous: stride 2 units");
	p.flags = KV_F_SPREAD;
	len = kv_bytes(&p);
	if (kv_init(&t, mem, len, &p))
		exit(1);
	for (b = 0; b + 1 < p.nr_buckets; b++) {
		uint64_t u0 = ((char *)kv_bucket_at(&t, b) - mem) / KV_UNIT;
		uint64_t u1 = ((char *)kv_bucket_at(&t, b + 1) - mem) / KV_UNIT;

		homes_bad += u0 % 2 == u1 % 2;
	}
	check(t.stride_bytes == 3 * KV_UNIT && !homes_bad,
	      "spread: stride 3 units, consecutive buckets on different homes (%" PRIu64 " not)",
	      homes_bad);
	p.flags = 0;
	p.pack = 3;
	p.value_size = 64;
	if (kv_init(&t, mem, kv_bytes(&p), &p))
		exit(1);
	check((char *)kv_bucket_at(&t, 1) - (char *)kv_bucket_at(&t, 0) ==
	      (long)t.bucket_size &&
	      ((char *)kv_bucket_at(&t, 3) - mem) % KV_UNIT == 0,
	      "pack 3: three buckets back to back, the fourth on a new unit");
	free(mem);
}

/* ---- key choosers ---- */

static void zipf_tests(void)
{
	enum { N = 1000, DRAWS = 400000 };
	static uint64_t hits[N];
	double zeta = zipf_zeta(N, ZIPF_THETA), p0, p1;
	uint64_t i, r, out = 0, covered = 0, best = 0;
	struct wl_rng rng;
	struct zipf z;

	wl_rng_seed(&rng, 7);
	zipf_init(&z, N, ZIPF_THETA);
	for (i = 0; i < DRAWS; i++) {
		r = zipf_next(&z, &rng);
		if (r >= N)
			out++;
		else
			hits[r]++;
	}
	p0 = (double)hits[0] / DRAWS;
	p1 = (double)hits[1] / DRAWS;
	check(!out, "zipfian ranks in [0, %d)", N);
	check(fabs(p0 * zeta - 1) < 0.02,
	      "zipfian rank 0: %.4f, theory 1/zeta(1000, 0.99) = %.4f",
	      p0, 1 / zeta);
	check(fabs(p1 * zeta / pow(0.5, ZIPF_THETA) - 1) < 0.03,
	      "zipfian rank 1: %.4f, theory %.4f", p1,
	      pow(0.5, ZIPF_THETA) / zeta);
	check(hits[0] > hits[9] && hits[9] > hits[99] && hits[99] > hits[999],
	      "zipfian decreasing: %" PRIu64 " > %" PRIu64 " > %" PRIu64 " > %" PRIu64,
	      hits[0], hits[9], hits[99], hits[999]);

	memset(hits, 0, sizeof(hits));
	for (i = 0, out = 0; i < 20 * N; i++) {
		r = wl_rng_below(&rng, N);
		if (r >= N)
			out++;
		else if (!hits[r]++)
			covered++;
	}
	check(!out && covered == N, "uniform covers all %d items (%" PRIu64 ")",
	      N, covered);

	memset(hits, 0, sizeof(hits));
	zipf_scrambled_init(&z);
	for (i = 0, out = 0; i < DRAWS; i++) {
		r = zipf_scrambled_next(&z, &rng, N);
		if (r >= N)
			out++;
		else
			hits[r]++;
	}
	for (i = 0; i < N; i++)
		best = hits[i] > best ? hits[i] : best;
	check(!out && best > 0.95 * DRAWS / ZIPF_SCRAMBLE_ZETAN &&
	      hits[0] < best,
	      "scrambled: in range, hottest key %.4f >= 1/zeta(10^10) = %.4f, not key 0",
	      (double)best / DRAWS, 1 / ZIPF_SCRAMBLE_ZETAN);

	zipf_init(&z, 100, ZIPF_THETA);
	for (i = 0, out = 0, best = 0; i < 10000; i++) {
		uint64_t newest = 100 + i / 10;

		r = zipf_latest_next(&z, &rng, newest);
		out += r < 1 || r > newest;
		best += r == newest;
	}
	check(!out && best > 10000 / zipf_zeta(1100, ZIPF_THETA),
	      "latest: in [1, newest] as newest grows, newest drawn %" PRIu64 " times",
	      best);
	check(wl_fnv64(0) == 0x573807cdd7e5c63bULL &&
	      wl_fnv64(0x0102030405060708ULL) == 0x0c6d4496e17859d5ULL,
	      "FNV-1a 64 with YCSB's byte order and abs()");
}

/*
 * The CDF of @h, 1..100000 us uniform: at most 60 points, rising, the
 * last at 100 ms and 1, and each point's fraction exact for its value.
 */
static void cdf_test(const struct hist *h)
{
	static struct hist empty;
	double us, frac, prev_us = 0, prev_frac = 0, worst = 0;
	char *buf = NULL, *p;
	size_t len = 0;
	int pts = 0, rising = 1, n;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		check(0, "histogram CDF: open_memstream");
		return;
	}
	hist_print_cdf(f, &empty, 60);
	fputc('|', f);
	hist_print_cdf(f, h, 60);
	fclose(f);
	for (p = buf + 1; sscanf(p, "%lf:%lf%n", &us, &frac, &n) == 2;
	     p += n + (p[n] == ',')) {
		pts++;
		rising &= us > prev_us && frac >= prev_frac;
		/* Printed with 4 digits: the value may be off by 0.05%. */
		if (fabs(frac - us / 1e5) > worst)
			worst = fabs(frac - us / 1e5);
		prev_us = us;
		prev_frac = frac;
	}
	check(buf[0] == '|' && !*p && pts >= 20 && pts <= 60 && rising &&
	      prev_us == 1e5 && prev_frac == 1 && worst < 1e-3,
	      "histogram CDF: %d points, rising, last %g us:%g, fractions within %.2g of exact",
	      pts, prev_us, prev_frac, worst);
	free(buf);
}

static void hist_tests(void)
{
	static struct hist h;
	uint64_t v;

	for (v = 1; v <= 100000; v++)
		hist_add(&h, v * 1000);	/* 1 us .. 100 ms */
	check(fabs(hist_quantile_us(&h, 0.5) / 50000 - 1) < 0.03 &&
	      fabs(hist_quantile_us(&h, 0.99) / 99000 - 1) < 0.03 &&
	      fabs(hist_mean_us(&h) / 50000.5 - 1) < 1e-9,
	      "histogram: p50 %.0f us, p99 %.0f us, mean %.1f us",
	      hist_quantile_us(&h, 0.5), hist_quantile_us(&h, 0.99),
	      hist_mean_us(&h));
	cdf_test(&h);
}


static void emu_tests(const char *dir)
{
	static const char *const ycsb_a[] = {
		"-w", "A", "-n", "2000", "-o", "3000", NULL
	};
	static const char *const ycsb_d[] = {
		"-w", "D", "-n", "1000", "-s", "0.1", "-t", "2", NULL
	};
	static const char *const micro_ops[] = { "-o", "2000", NULL };
	static const char *const micro_secs[] = {
		"-s", "0.3", "-o", "500", "-t", "2", NULL
	};

	emu_check(dir, "ddsm-ycsb", ycsb_a, "bench ycsb-cdf node=0 wl=A");
	emu_check(dir, "ddsm-ycsb", ycsb_d, "bench ycsb-total wl=D");
	emu_check(dir, "ddsm-micro", micro_ops, "bench micro-total");
	emu_check(dir, "ddsm-micro", micro_secs, "secs_target=0.3");
}

int main(int argc, char **argv)
{
	struct kv_params hashed = {
		.slots = 8, .value_size = 64, .pack = 1, .nr_nodes = 1,
	};
	struct kv_params direct = {
		.slots = 3, .value_size = 1024, .pack = 3,
		.flags = KV_F_DIRECT | KV_F_SPREAD, .nr_nodes = 4,
	};
	struct sigaction sa;
	char buf[4096];

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = segv_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);

	hashed.nr_buckets = kv_buckets_for(NKEYS, hashed.slots, 0.25);
	direct.nr_buckets = kv_buckets_for(NKEYS, direct.slots, 1.0);
	layout_test("hashed pack 1", &hashed);
	layout_test("direct pack 3 spread", &direct);
	edge_tests();
	placement_tests();
	zipf_tests();
	hist_tests();
	emu_tests(ht_prog_dir(argc, argv, buf, sizeof(buf)));
	printf("%d passed, %d failed\n", ht_passed, ht_failed);
	return ht_failed ? 1 : 0;
}
