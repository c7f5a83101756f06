/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cross-node synchronisation in ddsm memory for the multi-node tests,
 * built only on plain loads/stores and __atomic builtins, so it works
 * between nodes exactly as it does between cores.
 *
 * A struct dsm_sync lives in a window of DSM_SYNC_UNITS(n) units:
 *   unit 0        arrival counter of the central barrier
 *   unit 1        generation of the central barrier, run words
 *   units 2..n+1  one epoch flag per node, each in its own unit and
 *                 (with the interleave policy) homed on the node that
 *                 writes it
 *
 * dsm_barrier(): central generation (sense-reversing) barrier: one
 *   LOCK XADD per node on a shared word, the last arriver bumps the
 *   generation the others spin on.  Robust to being re-run in the same
 *   module session as long as the previous run finished its barriers.
 * dsm_flagbar(): cheaper, contention-free barrier: node k stores its
 *   epoch in its own flag unit and waits until every flag reaches it.
 *   dsm_sync_init() takes the flags' starting values after a central
 *   barrier, so leftovers from an earlier run do no harm.
 *
 * Every wait is bounded by s->timeout seconds: the functions return -1
 * on timeout instead of hanging.
 */
#ifndef DSM_SYNC_H
#define DSM_SYNC_H

#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "libddsm.h"

#define DSM_UNIT		((size_t)DDSM_UNIT_SIZE)
#define DSM_WORDS_PER_UNIT	(DSM_UNIT / sizeof(uint64_t))
#define DSM_SYNC_UNITS(n)	(2 + (size_t)(n))

static inline double dsm_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct dsm_sync {
	volatile uint64_t *count;	/* central barrier arrivals */
	volatile uint64_t *gen;		/* central barrier generation */
	volatile uint64_t *run;		/* gen + 8 words: free for callers */
	volatile uint64_t *flag[DDSM_MAX_NODES];
	uint64_t flag_base[DDSM_MAX_NODES];
	uint64_t epoch;
	int me, n;
	double timeout;			/* seconds per wait */
	uint64_t spins;			/* waits that had to spin (info) */
};

/*
 * Wait until @cond holds: first poll with sched_yield() (each guest has
 * one vCPU: the kernel's protocol work must get to run), then sleep
 * between polls so that a waiting guest does not burn a host core that
 * the other TCG guests need (100 us for the first second, 1 ms after).
 * Gives -1 after s->timeout seconds.
 */
#define DSM_WAIT_UNTIL(s, cond)						\
	({								\
		double __t0 = 0;					\
		unsigned __i = 0;					\
		int __ret = 0;						\
		while (!(cond)) {					\
			if (++__i < 64) {				\
				sched_yield();				\
				continue;				\
			}						\
			double __t = dsm_now();				\
			if (!__t0)					\
				__t0 = __t;				\
			else if (__t - __t0 > (s)->timeout) {		\
				__ret = -1;				\
				break;					\
			}						\
			usleep(__t - __t0 < 1 ? 100 : 1000);		\
		}							\
		__ret;							\
	})

static inline int dsm_barrier(struct dsm_sync *s)
{
	uint64_t g = __atomic_load_n(s->gen, __ATOMIC_ACQUIRE);

	if (__atomic_fetch_add(s->count, 1, __ATOMIC_SEQ_CST) ==
	    (uint64_t)s->n - 1) {
		__atomic_store_n(s->count, 0, __ATOMIC_RELAXED);
		__atomic_store_n(s->gen, g + 1, __ATOMIC_SEQ_CST);
		return 0;
	}
	return DSM_WAIT_UNTIL(s, __atomic_load_n(s->gen, __ATOMIC_ACQUIRE) != g);
}

/* Flag barrier among nodes 0 .. @m - 1 only (the others skip it). */
static inline int dsm_flagbar_n(struct dsm_sync *s, int m)
{
	int j;

	s->epoch++;
	__atomic_store_n(s->flag[s->me], s->flag_base[s->me] + s->epoch,
			 __ATOMIC_SEQ_CST);
	for (j = 0; j < m; j++) {
		volatile uint64_t *f = s->flag[j];
		uint64_t want = s->flag_base[j] + s->epoch;

		if (j == s->me)
			continue;
		if (DSM_WAIT_UNTIL(s, __atomic_load_n(f, __ATOMIC_ACQUIRE) >= want))
			return -1;
	}
	return 0;
}

static inline int dsm_flagbar(struct dsm_sync *s)
{
	return dsm_flagbar_n(s, s->n);
}

/*
 * Take the flags' current values as the new epoch 0, after the nodes used
 * dsm_flagbar_n() with different counts.  Collective (two central barriers).
 */
static inline int dsm_flag_resync(struct dsm_sync *s)
{
	int k;

	if (dsm_barrier(s))
		return -1;
	for (k = 0; k < s->n; k++)
		s->flag_base[k] = __atomic_load_n(s->flag[k], __ATOMIC_ACQUIRE);
	s->epoch = 0;
	/* Nobody writes a flag before everybody has read them all. */
	return dsm_barrier(s);
}

/*
 * @base: mapped window of DSM_SYNC_UNITS(n) units whose first unit has
 * global unit number @base_unit (used to home each flag on its writer).
 * Ends with two central barriers: call it on every node at once.
 */
static inline int dsm_sync_init(struct dsm_sync *s, void *base,
				uint64_t base_unit, int me, int n,
				double timeout)
{
	char *b = base;
	int k;

	memset(s, 0, sizeof(*s));
	s->me = me;
	s->n = n;
	s->timeout = timeout;
	s->count = (volatile uint64_t *)b;
	s->gen = (volatile uint64_t *)(b + DSM_UNIT);
	s->run = s->gen + 8;
	for (k = 0; k < n; k++) {
		uint64_t first = base_unit + 2;
		uint64_t u = first + ((uint64_t)k + n - first % n) % n;

		s->flag[k] = (volatile uint64_t *)(b + (u - base_unit) * DSM_UNIT);
	}
	return dsm_flag_resync(s);
}

/* splitmix64: the data patterns and the litmus jitter. */
static inline uint64_t dsm_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

#endif /* DSM_SYNC_H */
