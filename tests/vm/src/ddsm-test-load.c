// SPDX-License-Identifier: GPL-2.0
/*
 * ddsm-test-load: sustained mixed traffic on every node at once, with
 * every result checked exactly at the end.
 *
 * usage: ddsm-test-load NODE_ID NR_NODES SECONDS
 *
 * Four threads per node run for SECONDS:
 *   xadd    LOCK XADD on 64 shared counters in 16 units, tallying its own
 *           increments per counter;
 *   lock    a CMPXCHG spin lock (pause, then yield) guarding a plain
 *           counter pair that only the holder touches;
 *   mailbox rewrites this node's 16 mailbox units under a seqlock with a
 *           pattern derived from (node, box, version), and reads other
 *           nodes' mailboxes, checking every stable snapshot word by word;
 *   scan    reads a 4 MiB region that node 0 filled at the start, which
 *           with a small cache_frames keeps evicting and refetching units.
 * Then each node publishes its tallies, and every node checks: each
 * counter equals the sum of all nodes' increments, the guarded counter
 * equals the sum of all acquisitions and was never seen torn, no mailbox
 * snapshot and no scanned word was wrong.
 * TAP lines; exit 0 iff all ok.  A SIGBUS ends the program (exit 3).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "libddsm.h"
#include "dsm_sync.h"
#include "test_common.h"

#define NCTR		64
#define CTR_UNITS	16
#define BOXES		16	/* mailboxes per node */
#define MAX_NODES	8
#define SCAN_UNITS	1024	/* a multiple of 64: see fill_scan_region() */

/* Global layout (units), away from the other tests' regions. */
#define BASE_UNIT	16384			/* 64 MiB */
#define SYNC_OFF	0			/* DSM_SYNC_UNITS(n) <= 10 */
#define CTR_OFF		16
#define LOCK_OFF	(CTR_OFF + CTR_UNITS)	/* the lock word */
#define GUARD_OFF	(LOCK_OFF + 1)		/* what it guards */
#define TALLY_OFF	(GUARD_OFF + 1)		/* one unit per node */
#define MBOX_OFF	(TALLY_OFF + MAX_NODES)
#define SCAN_OFF	(MBOX_OFF + MAX_NODES * BOXES)
#define WIN_UNITS	(SCAN_OFF + SCAN_UNITS)

/* Tally unit words. */
#define T_CTR		0			/* NCTR words */
#define T_LOCKS		(T_CTR + NCTR)
#define T_VALID		(T_LOCKS + 1)

static char *win;
static int me, nodes;
static double deadline;
static struct dsm_sync s;

static uint64_t tally_ctr[NCTR];
static uint64_t tally_locks, torn_seen, lock_stuck;
static uint64_t box_writes, box_reads, box_stable, box_bad;
static uint64_t scan_reads, scan_bad;

static volatile uint64_t *unit_words(uint64_t off)
{
	return (volatile uint64_t *)(win + off * DSM_UNIT);
}

/* Counter k: unit k % 16, its own 64-byte line. */
static volatile uint64_t *counter(int k)
{
	return unit_words(CTR_OFF + k % CTR_UNITS) + (k / CTR_UNITS) * 8;
}

static bool running(void)
{
	return dsm_now() < deadline;
}

static void *xadd_thread(void *arg)
{
	uint64_t i = 0;

	(void)arg;
	while (running()) {
		int k = (int)(i++ % NCTR);

		__atomic_fetch_add(counter(k), 1, __ATOMIC_SEQ_CST);
		tally_ctr[k]++;
	}
	return NULL;
}

static void *lock_thread(void *arg)
{
	volatile uint64_t *lock = unit_words(LOCK_OFF);
	volatile uint64_t *guard = unit_words(GUARD_OFF);

	(void)arg;
	while (running()) {
		uint64_t free = 0, tries = 0;

		while (!__atomic_compare_exchange_n(lock, &free,
						    (uint64_t)me + 1, false,
						    __ATOMIC_ACQUIRE,
						    __ATOMIC_RELAXED)) {
			free = 0;
			if (++tries % 256) {
				__builtin_ia32_pause();
				continue;
			}
			sched_yield();
			/* A holder that died would keep it for ever. */
			if (dsm_now() > deadline + 120) {
				lock_stuck = __atomic_load_n(lock,
							     __ATOMIC_RELAXED);
				return NULL;
			}
		}
		/* Plain accesses: only the holder may touch them. */
		if (guard[0] != guard[1])
			torn_seen++;
		guard[0] = guard[0] + 1;
		guard[1] = guard[0];
		tally_locks++;
		__atomic_store_n(lock, 0, __ATOMIC_RELEASE);
	}
	return NULL;
}

static uint64_t box_word(int node, int box, uint64_t version, int w)
{
	return dsm_mix64(((uint64_t)node << 48) ^ ((uint64_t)box << 40) ^
			 (version << 12) ^ (uint64_t)w);
}

/* Word 0 is the seqlock: odd while the owner writes. */
static void box_write(int box, uint64_t version)
{
	volatile uint64_t *b = unit_words(MBOX_OFF + me * BOXES + box);
	int w;

	__atomic_store_n(&b[0], 2 * version + 1, __ATOMIC_RELEASE);
	for (w = 1; w < (int)DSM_WORDS_PER_UNIT; w++)
		b[w] = box_word(me, box, version, w);
	__atomic_store_n(&b[0], 2 * version + 2, __ATOMIC_RELEASE);
	box_writes++;
}

static void box_check(int node, int box)
{
	volatile uint64_t *b = unit_words(MBOX_OFF + node * BOXES + box);
	static uint64_t copy[DSM_WORDS_PER_UNIT];
	uint64_t seq1, seq2, version;
	int w, bad = 0;

	seq1 = __atomic_load_n(&b[0], __ATOMIC_ACQUIRE);
	for (w = 1; w < (int)DSM_WORDS_PER_UNIT; w++)
		copy[w] = b[w];
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	seq2 = __atomic_load_n(&b[0], __ATOMIC_ACQUIRE);
	box_reads++;
	if (seq1 != seq2 || (seq1 & 1) || !seq1)
		return;
	box_stable++;
	version = seq1 / 2 - 1;
	for (w = 1; w < (int)DSM_WORDS_PER_UNIT; w++)
		bad += copy[w] != box_word(node, box, version, w);
	if (bad && !box_bad++)
		printf("# node%d: mailbox %d of node%d version %" PRIu64 ": %d words wrong\n",
		       me, box, node, version, bad);
}

static void *mailbox_thread(void *arg)
{
	uint64_t version = 0, i = 0;

	(void)arg;
	while (running()) {
		box_write((int)(i % BOXES), version);
		if (i % BOXES == BOXES - 1)
			version++;
		box_check((int)((i / BOXES + me + 1) % nodes),
			  (int)((i * 7) % BOXES));
		i++;
	}
	return NULL;
}

static uint64_t scan_word(uint64_t unit, int w)
{
	return dsm_mix64((unit << 16) ^ (uint64_t)w ^ 0x5ca9);
}

static void *scan_thread(void *arg)
{
	uint64_t u = (uint64_t)me * 97;

	(void)arg;
	while (running()) {
		volatile uint64_t *p = unit_words(SCAN_OFF + u % SCAN_UNITS);
		int w = (int)(u % DSM_WORDS_PER_UNIT);

		if (p[w] != scan_word(u % SCAN_UNITS, w) && !scan_bad++)
			printf("# node%d: scan unit %" PRIu64 " word %d wrong\n",
			       me, u % SCAN_UNITS, w);
		scan_reads++;
		u += 13;
	}
	return NULL;
}

/*
 * Node 0 fills the scan region and counts the units done in run word 0,
 * tagged with the barrier generation so that a count left by an earlier
 * run in this module session does not count.
 */
static uint64_t fill_mark(uint64_t gen, uint64_t units)
{
	return gen << 32 | units;
}

static void fill_scan_region(uint64_t gen)
{
	uint64_t u;
	int w;

	for (u = 0; u < SCAN_UNITS; u++) {
		volatile uint64_t *p = unit_words(SCAN_OFF + u);

		for (w = 0; w < (int)DSM_WORDS_PER_UNIT; w++)
			p[w] = scan_word(u, w);
		/* Now and then: each store pulls the unit from the pollers. */
		if ((u + 1) % 64 == 0)
			__atomic_store_n(&s.run[0], fill_mark(gen, u + 1),
					 __ATOMIC_RELEASE);
	}
}

/*
 * The others wait for the fill as long as it moves: on a debug kernel
 * under a loaded host it takes longer than one barrier's timeout, and
 * slow is not stuck.  -1 once it has not moved for s.timeout seconds.
 */
static int wait_fill(uint64_t gen)
{
	uint64_t seen;

	do {
		seen = __atomic_load_n(&s.run[0], __ATOMIC_ACQUIRE);
		if (seen == fill_mark(gen, SCAN_UNITS))
			return 0;
	} while (!DSM_WAIT_UNTIL(&s, __atomic_load_n(&s.run[0],
						     __ATOMIC_ACQUIRE) != seen));
	return -1;
}

static void publish(void)
{
	volatile uint64_t *t = unit_words(TALLY_OFF + me);
	int k;

	for (k = 0; k < NCTR; k++)
		t[T_CTR + k] = tally_ctr[k];
	t[T_LOCKS] = tally_locks;
	__atomic_store_n(&t[T_VALID], 1, __ATOMIC_RELEASE);
}

static void verify(void)
{
	uint64_t want_locks = 0, bad_ctr = 0, total = 0;
	volatile uint64_t *guard = unit_words(GUARD_OFF);
	int k, j;

	for (k = 0; k < NCTR; k++) {
		uint64_t want = 0, got = *counter(k);

		for (j = 0; j < nodes; j++)
			want += unit_words(TALLY_OFF + j)[T_CTR + k];
		total += want;
		if (got != want && !bad_ctr++)
			printf("# node%d: counter %d = %" PRIu64 ", want %" PRIu64 "\n",
			       me, k, got, want);
	}
	for (j = 0; j < nodes; j++)
		want_locks += unit_words(TALLY_OFF + j)[T_LOCKS];
	tap(!bad_ctr, "%d counters exact (%" PRIu64 " LOCK XADDs from %d nodes)",
	    NCTR, total, nodes);
	tap(guard[0] == want_locks && guard[1] == want_locks,
	    "guarded counter = %" PRIu64 ", the sum of all acquisitions %" PRIu64,
	    guard[0], want_locks);
	tap(!torn_seen, "the lock holder never saw the guarded pair torn (%" PRIu64 ")",
	    torn_seen);
	tap(!lock_stuck, "the spin lock was always released (%s)",
	    lock_stuck ? "held for 120 s past the end" : "yes");
	tap(box_stable > 0 && !box_bad,
	    "%" PRIu64 " mailbox writes here; %" PRIu64 " of %" PRIu64 " snapshots of others' stable, %" PRIu64 " wrong",
	    box_writes, box_stable, box_reads, box_bad);
	tap(scan_reads > 0 && !scan_bad,
	    "%" PRIu64 " scanned words, %" PRIu64 " wrong", scan_reads, scan_bad);
}

int main(int argc, char **argv)
{
	pthread_t th[4];
	void *(*fn[4])(void *) = {
		xadd_thread, lock_thread, mailbox_thread, scan_thread
	};
	double seconds;
	struct ddsm d;
	uint64_t gen;
	int i;

	if (argc != 4) {
		fprintf(stderr, "usage: %s NODE_ID NR_NODES SECONDS\n", argv[0]);
		return 2;
	}
	me = (int)parse_ul(argv[1], "node id");
	nodes = (int)parse_ul(argv[2], "node count");
	seconds = (double)parse_ul(argv[3], "seconds");
	tap_node = me;
	if (nodes < 2 || nodes > MAX_NODES || me >= nodes) {
		fprintf(stderr, "2..%d nodes, node id below the count\n",
			MAX_NODES);
		return 2;
	}
	if (ddsm_open(&d, NULL)) {
		perror("ddsm_open");
		return 1;
	}
	win = map_window(&d, BASE_UNIT * DSM_UNIT, WIN_UNITS * DSM_UNIT);
	if (dsm_sync_init(&s, win + SYNC_OFF * DSM_UNIT, BASE_UNIT + SYNC_OFF,
			  me, nodes, 300))
		tap_bail("sync init");
	gen = __atomic_load_n(s.gen, __ATOMIC_ACQUIRE);
	if (me == 0)
		fill_scan_region(gen);
	else if (wait_fill(gen))
		tap_bail("the scan region's fill stopped moving");
	if (dsm_barrier(&s))
		tap_bail("barrier after the scan region was filled");

	deadline = dsm_now() + seconds;
	for (i = 0; i < 4; i++)
		if (pthread_create(&th[i], NULL, fn[i], NULL))
			tap_bail("pthread_create");
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	tap(1, "%.0f s of traffic: %" PRIu64 " lock acquisitions, %" PRIu64 " mailbox writes, %" PRIu64 " scanned words",
	    seconds, tally_locks, box_writes, scan_reads);

	if (dsm_barrier(&s))
		tap_bail("barrier after the traffic");
	publish();
	if (dsm_barrier(&s))
		tap_bail("barrier after publishing");
	verify();
	/* Nobody unmaps what others still read. */
	if (dsm_barrier(&s))
		tap_bail("final barrier");
	return tap_failed ? 1 : 0;
}
