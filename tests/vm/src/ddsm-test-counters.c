// SPDX-License-Identifier: GPL-2.0
/*
 * Atomic counters across nodes, run on every node at once.
 *
 * Phase 1: on every node THREADS threads each do ROUNDS LOCK XADDs on one
 * shared word; after a DSM barrier every node checks the total is exactly
 * nodes * THREADS * ROUNDS.
 * Phase 2: the same with NCTR counters spread over CTR_UNITS units:
 * increment k of every thread goes to counter k % NCTR, so each counter's
 * final value is known exactly; every node checks every counter and the sum.
 *
 * Usage: ddsm-test-counters [ROUNDS]      (default 10000)
 * Output: TAP-like "ok - ..." / "not ok - ..."; exit 0 iff all ok.
 */
#include <errno.h>
#include <pthread.h>
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

#define THREADS		2
#define NCTR		64
#define CTR_UNITS	16
#define TIMEOUT_S	120

/* Global layout (units), away from the other tests' regions. */
#define BASE_UNIT	256			/* 1 MiB */
#define SYNC_OFF	0			/* DSM_SYNC_UNITS(n) <= 66 */
#define ONE_OFF		80			/* the single counter */
#define CTRS_OFF	96			/* CTR_UNITS units */
#define WIN_UNITS	(CTRS_OFF + CTR_UNITS)

static char *win;
static long rounds = 10000;
static int me = -1;

static volatile uint64_t *one_counter(void)
{
	return (volatile uint64_t *)(win + ONE_OFF * DSM_UNIT);
}

/* Counter k: unit k % CTR_UNITS, its own 64-byte line inside the unit. */
static volatile uint64_t *counter(int k)
{
	return (volatile uint64_t *)(win + (CTRS_OFF + k % CTR_UNITS) * DSM_UNIT +
				     (k / CTR_UNITS) * 64);
}

static void *one_worker(void *arg)
{
	volatile uint64_t *c = one_counter();
	long k;

	(void)arg;
	for (k = 0; k < rounds; k++)
		__atomic_fetch_add(c, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static void *many_worker(void *arg)
{
	long k;

	(void)arg;
	for (k = 0; k < rounds; k++)
		__atomic_fetch_add(counter(k % NCTR), 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* Run THREADS copies of @fn, timing them. */
static int run_threads(void *(*fn)(void *), double *secs)
{
	pthread_t t[THREADS];
	double t0 = dsm_now();
	int i, err;

	for (i = 0; i < THREADS; i++) {
		err = pthread_create(&t[i], NULL, fn, NULL);
		if (err) {
			errno = err;
			perror("pthread_create");
			return -1;
		}
	}
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	*secs = dsm_now() - t0;
	return 0;
}

/* Protocol work this node did since the last call (informative). */
static void faults_since(struct ddsm *d, const char *phase)
{
	static struct ddsm_status last;
	struct ddsm_status st;

	if (ddsm_status(d, &st))
		return;
	if (phase)
		printf("# node%d: %s: %llu read faults, %llu write faults, "
		       "%llu upgrades, %llu messages sent\n", me, phase,
		       (unsigned long long)(st.faults_read - last.faults_read),
		       (unsigned long long)(st.faults_write - last.faults_write),
		       (unsigned long long)(st.upgrades - last.upgrades),
		       (unsigned long long)(st.msgs_sent - last.msgs_sent));
	last = st;
}

int main(int argc, char **argv)
{
	struct dsm_sync s;
	struct ddsm d;
	uint64_t want, sum, v;
	double t_all, secs, tb;
	int n, k, bad;

	if (argc > 1)
		rounds = atol(argv[1]);
	if (rounds <= 0)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (ddsm_open(&d, NULL)) {
		perror("ddsm_open");
		return 1;
	}
	me = d.node_id;
	tap_node = me;
	n = d.nr_nodes;
	win = map_window(&d, BASE_UNIT * DSM_UNIT, WIN_UNITS * DSM_UNIT);
	t_all = dsm_now();
	if (dsm_sync_init(&s, win + SYNC_OFF * DSM_UNIT, BASE_UNIT + SYNC_OFF,
			  me, n, TIMEOUT_S))
		tap_bail("initial barrier timed out");

	/* Node 0 clears the counters (a re-run starts from what was left). */
	if (me == 0) {
		*one_counter() = 0;
		for (k = 0; k < NCTR; k++)
			*counter(k) = 0;
	}
	if (dsm_barrier(&s))
		tap_bail("barrier after reset timed out");

	/* Phase 1: one word. */
	faults_since(&d, NULL);
	want = (uint64_t)n * THREADS * rounds;
	if (run_threads(one_worker, &secs))
		tap_bail("pthread_create");
	tb = dsm_now();
	if (dsm_barrier(&s))
		tap_bail("barrier after one-counter phase timed out");
	tb = dsm_now() - tb;
	v = *one_counter();
	printf("# node%d: %d threads x %ld LOCK XADD on one word: %.2f s, "
	       "then %.2f s in the barrier\n", me, THREADS, rounds, secs, tb);
	faults_since(&d, "one counter");
	tap(v == want, "one shared counter = %llu (want %llu = %d nodes x %d threads x %ld)",
	       (unsigned long long)v, (unsigned long long)want, n, THREADS,
	       rounds);

	/* Phase 2: NCTR counters over CTR_UNITS units. */
	if (run_threads(many_worker, &secs))
		tap_bail("pthread_create");
	tb = dsm_now();
	if (dsm_barrier(&s))
		tap_bail("barrier after many-counter phase timed out");
	tb = dsm_now() - tb;
	printf("# node%d: %d threads x %ld LOCK XADD over %d counters in %d units: "
	       "%.2f s, then %.2f s in the barrier\n", me, THREADS, rounds,
	       NCTR, CTR_UNITS, secs, tb);
	faults_since(&d, "64 counters");
	sum = 0;
	bad = 0;
	for (k = 0; k < NCTR; k++) {
		/* Thread increments k, k + NCTR, ... below rounds. */
		uint64_t per = rounds / NCTR + (k < rounds % NCTR);

		v = *counter(k);
		sum += v;
		want = (uint64_t)n * THREADS * per;
		if (v != want) {
			if (bad++ < 8)
				printf("# node%d: counter %d = %llu, want %llu\n",
				       me, k, (unsigned long long)v,
				       (unsigned long long)want);
		}
	}
	tap(!bad, "%d of %d counters exact", NCTR - bad, NCTR);
	want = (uint64_t)n * THREADS * rounds;
	tap(sum == want, "sum of %d counters = %llu (want %llu)", NCTR,
	       (unsigned long long)sum, (unsigned long long)want);

	/* Nobody unmaps while a peer still reads its units. */
	if (dsm_barrier(&s))
		tap_bail("final barrier timed out");
	printf("# node%d: counters done in %.2f s\n", me, dsm_now() - t_all);
	ddsm_unmap(&d, win, WIN_UNITS * DSM_UNIT);
	ddsm_close(&d);
	return tap_failed ? 1 : 0;
}
