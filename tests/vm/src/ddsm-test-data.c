// SPDX-License-Identifier: GPL-2.0
/*
 * Bulk data across nodes, run on every node at once (node A = 0, node C =
 * the last one, B = everybody in between):
 *
 *  1. A writes a 1 MiB buffer with a pattern seeded by the run id and
 *     publishes its checksum in DSM memory.
 *  2. Every other node reads the buffer; its checksum must equal A's and
 *     the one computed from the seed alone, and every word must match.
 *  3. C rewrites the buffer with a second pattern and publishes its sum.
 *  4. Every node but C reads it back and checks it the same way.
 *  5. False sharing: all nodes at once write interleaved words of a second
 *     1 MiB buffer (node k writes word i iff i % nodes == k), so every unit
 *     has concurrent writers on every node; then every node checks every
 *     word (a lost or torn update shows up here).
 *
 * DSM barriers separate the phases; every wait is bounded.
 * Usage: ddsm-test-data [RUN_ID]   (default: node 0 picks one)
 * Output: TAP-like "ok - ..." / "not ok - ..."; exit 0 iff all ok.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "libddsm.h"
#include "dsm_sync.h"
#include "test_common.h"

#define BUF_BYTES	(1 << 20)
#define BUF_WORDS	(BUF_BYTES / sizeof(uint64_t))
#define TIMEOUT_S	120

/* Global layout (units). */
#define BASE_UNIT	1024			/* 4 MiB */
#define SYNC_OFF	0
#define CTL_OFF		80
#define BUF_OFF		128
#define STRIPE_OFF	(BUF_OFF + BUF_BYTES / DSM_UNIT)
#define WIN_UNITS	(STRIPE_OFF + BUF_BYTES / DSM_UNIT)

/* Control words in the CTL unit, each on its own line. */
enum { CTL_SEED = 0, CTL_SUM_A = 8, CTL_SUM_C = 16 };

static char *win;
static int me = -1;

static volatile uint64_t *ctl(int word)
{
	return (volatile uint64_t *)(win + CTL_OFF * DSM_UNIT) + word;
}

static inline uint64_t pattern(uint64_t seed, size_t i)
{
	return dsm_mix64(seed * 0x100000001b3ULL + i);
}

/* FNV-1a over 64-bit words: order and position sensitive. */
static inline uint64_t fold(uint64_t h, uint64_t w)
{
	return (h ^ w) * 0x100000001b3ULL;
}
#define FOLD_INIT 0xcbf29ce484222325ULL

static uint64_t expected_sum(uint64_t seed)
{
	uint64_t h = FOLD_INIT;
	size_t i;

	for (i = 0; i < BUF_WORDS; i++)
		h = fold(h, pattern(seed, i));
	return h;
}

static uint64_t fill(volatile uint64_t *buf, uint64_t seed)
{
	uint64_t h = FOLD_INIT, w;
	size_t i;

	for (i = 0; i < BUF_WORDS; i++) {
		w = pattern(seed, i);
		buf[i] = w;
		h = fold(h, w);
	}
	return h;
}

/* Read the buffer once: checksum, and word-by-word against the pattern. */
static void verify(volatile uint64_t *buf, uint64_t seed, uint64_t published,
		   const char *what)
{
	uint64_t h = FOLD_INIT, w, indep;
	size_t i, bad = 0, first = 0;
	double t0 = dsm_now();

	for (i = 0; i < BUF_WORDS; i++) {
		w = buf[i];
		h = fold(h, w);
		if (w != pattern(seed, i) && !bad++)
			first = i;
	}
	t0 = dsm_now() - t0;
	indep = expected_sum(seed);
	printf("# node%d: read %s (1 MiB) in %.2f s: sum %016llx, published "
	       "%016llx, from seed %016llx\n", me, what, t0,
	       (unsigned long long)h, (unsigned long long)published,
	       (unsigned long long)indep);
	if (bad)
		printf("# node%d: %zu bad words, first at byte 0x%zx (unit %zu): "
		       "%016llx, want %016llx\n", me, bad, first * 8,
		       first * 8 / DSM_UNIT, (unsigned long long)buf[first],
		       (unsigned long long)pattern(seed, first));
	tap(h == published, "%s: checksum equals the writer's", what);
	tap(h == indep, "%s: checksum equals the one computed from the seed",
	       what);
	tap(!bad, "%s: all %zu words match", what, (size_t)BUF_WORDS);
}

int main(int argc, char **argv)
{
	volatile uint64_t *buf, *stripe;
	struct dsm_sync s;
	struct ddsm d;
	uint64_t seed, seed2, seed3, h;
	double t0, t_all;
	size_t i, bad, first;
	int n, a = 0, c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (ddsm_open(&d, NULL)) {
		perror("ddsm_open");
		return 1;
	}
	me = d.node_id;
	tap_node = me;
	n = d.nr_nodes;
	c = n - 1;
	if (n < 2) {
		printf("not ok - node%d: ddsm-test-data needs 2 nodes or more\n", me);
		return 1;
	}
	win = map_window(&d, BASE_UNIT * DSM_UNIT, WIN_UNITS * DSM_UNIT);
	buf = (volatile uint64_t *)(win + BUF_OFF * DSM_UNIT);
	stripe = (volatile uint64_t *)(win + STRIPE_OFF * DSM_UNIT);
	t_all = dsm_now();
	if (dsm_sync_init(&s, win + SYNC_OFF * DSM_UNIT, BASE_UNIT + SYNC_OFF,
			  me, n, TIMEOUT_S))
		tap_bail("initial barrier timed out");

	/* The run id: from the command line, or node 0 picks it. */
	if (me == a) {
		seed = argc > 1 ? strtoull(argv[1], NULL, 0) :
		       dsm_mix64((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32));
		if (!seed)
			seed = 1;
		*ctl(CTL_SEED) = seed;
	}
	if (dsm_barrier(&s))
		tap_bail("barrier after the run id timed out");
	seed = *ctl(CTL_SEED);
	seed2 = dsm_mix64(seed ^ 0xc0ffee);
	seed3 = dsm_mix64(seed ^ 0x5712e);
	printf("# node%d: run id %016llx\n", me, (unsigned long long)seed);

	/* 1: A writes. */
	if (me == a) {
		t0 = dsm_now();
		h = fill(buf, seed);
		*ctl(CTL_SUM_A) = h;
		printf("# node%d: wrote pattern 1 (1 MiB) in %.2f s, sum %016llx\n",
		       me, dsm_now() - t0, (unsigned long long)h);
	}
	if (dsm_barrier(&s))
		tap_bail("barrier after A's write timed out");

	/* 2: everybody else reads. */
	if (me != a)
		verify(buf, seed, *ctl(CTL_SUM_A), "pattern 1 written by node 0");
	if (dsm_barrier(&s))
		tap_bail("barrier after the first reads timed out");

	/* 3: C rewrites. */
	if (me == c) {
		t0 = dsm_now();
		h = fill(buf, seed2);
		*ctl(CTL_SUM_C) = h;
		printf("# node%d: wrote pattern 2 (1 MiB) in %.2f s, sum %016llx\n",
		       me, dsm_now() - t0, (unsigned long long)h);
	}
	if (dsm_barrier(&s))
		tap_bail("barrier after C's write timed out");

	/* 4: everybody but C reads it back. */
	if (me != c) {
		char what[64];

		snprintf(what, sizeof(what), "pattern 2 written by node %d", c);
		verify(buf, seed2, *ctl(CTL_SUM_C), what);
	}
	if (dsm_barrier(&s))
		tap_bail("barrier after the second reads timed out");

	/* 5: interleaved writers on every unit. */
	t0 = dsm_now();
	for (i = me; i < BUF_WORDS; i += n)
		stripe[i] = pattern(seed3, i);
	printf("# node%d: wrote every %dth word of 1 MiB (false sharing) in %.2f s\n",
	       me, n, dsm_now() - t0);
	if (dsm_barrier(&s))
		tap_bail("barrier after the false-sharing writes timed out");
	t0 = dsm_now();
	for (i = 0, bad = 0, first = 0; i < BUF_WORDS; i++)
		if (stripe[i] != pattern(seed3, i) && !bad++)
			first = i;
	printf("# node%d: read it back in %.2f s\n", me, dsm_now() - t0);
	if (bad)
		printf("# node%d: %zu bad words, first at byte 0x%zx (unit %zu, "
		       "written by node %zu): %016llx, want %016llx\n", me, bad,
		       first * 8, first * 8 / DSM_UNIT, first % n,
		       (unsigned long long)stripe[first],
		       (unsigned long long)pattern(seed3, first));
	tap(!bad, "false sharing: all %zu words written by %d nodes at once "
	       "are there", (size_t)BUF_WORDS, n);

	if (dsm_barrier(&s))
		tap_bail("final barrier timed out");
	printf("# node%d: data done in %.2f s\n", me, dsm_now() - t_all);
	ddsm_unmap(&d, win, WIN_UNITS * DSM_UNIT);
	ddsm_close(&d);
	return tap_failed ? 1 : 0;
}
