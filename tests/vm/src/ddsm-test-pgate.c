// SPDX-License-Identifier: GPL-2.0
/*
 * ddsm-test-pgate: what Read-Enforced, Synchronous and Strict promise
 * across a crash, next to Eventual, with the home flusher off
 * (pmem_flush_ms large), so that nothing is durable unless a model made it.
 *
 * usage: ddsm-test-pgate write SEED | check SEED
 * The area is 4 quarters of QUNITS units from AREA_BASE, which the caller
 * sets on every node first: read_enf, sync, strict, eventual.  Node w
 * writes, in every quarter, the units homed on node w+1; node w+2 (the
 * reader) reads them afterwards.
 *  write: read_enf: w stores; the reader reads (each unit becomes
 *           durable before the reader gets it).
 *         sync: w writes each unit with ddsm_write_durable().
 *         strict: w stores; the reader reads (the unit leaves w, which
 *           keeps a read-only copy); then w's durable-write barrier
 *           (DDSM_PERSIST_ALL) must still make w's stores durable.
 *         eventual (the control): as strict, but with the plain barrier,
 *           which sends nothing for a unit w no longer holds dirty: not
 *           durable, and lost in the crash that follows.
 *  check: (after the crash) every node reads the whole area: the first
 *         three quarters hold SEED's pattern; the eventual one must miss
 *         some of it (else the test could not tell a model from luck).
 * Barriers of every node start and end each run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "libddsm.h"
#include "test_common.h"
#include "dsm_sync.h"

#define AREA_BASE	(6ULL << 20)
#define QUNITS		64
#define AREA_UNITS	(4 * QUNITS)
#define QWORDS		((uint64_t)QUNITS * DSM_WORDS_PER_UNIT)
#define SYNC_WRITE	((7ULL << 20) >> 12)
#define SYNC_CHECK	(SYNC_WRITE + 16)

enum { Q_RENF, Q_SYNC, Q_STRICT, Q_EVENTUAL, Q_NR };
static const char *const qname[Q_NR] = {
	"read_enf", "sync", "strict", "eventual",
};

static struct ddsm d;
static volatile uint64_t *area;
static int me, nn;

static uint64_t expected(uint64_t seed, uint64_t i)
{
	return dsm_mix64(seed * 0x100000001b3ULL + i);
}

static uint32_t home_of(uint64_t unit)
{
	struct ddsm_home_query q;

	if (ddsm_home(&d, AREA_BASE + unit * DSM_UNIT, &q))
		tap_bail("ddsm_home: %s", strerror(errno));
	return q.home;
}

static void fill(uint64_t *buf, uint64_t seed, uint64_t unit)
{
	uint64_t i, w0 = unit * DSM_WORDS_PER_UNIT;

	for (i = 0; i < DSM_WORDS_PER_UNIT; i++)
		buf[i] = expected(seed, w0 + i);
}

/* Is unit @k of quarter @q homed on @home? */
static bool mine(int q, uint64_t k, int home)
{
	return home_of((uint64_t)q * QUNITS + k) == (uint32_t)home;
}

static int persist(uint64_t unit, uint32_t flags)
{
	struct ddsm_persist_arg a = {
		.gaddr = AREA_BASE + unit * DSM_UNIT,
		.len = DSM_UNIT,
		.flags = flags,
	};

	return ioctl(d.fd, DDSM_IOC_PERSIST, &a);
}

static void write_phase(struct dsm_sync *s, uint64_t seed)
{
	uint64_t buf[DSM_WORDS_PER_UNIT], k, n[Q_NR] = { 0 }, bad = 0;
	int q, target = (me + 1) % nn, source = (me + nn - 1) % nn;
	int errs = 0;

	/* Writers: plain stores, except the durable writes of sync. */
	for (q = 0; q < Q_NR; q++) {
		for (k = 0; k < QUNITS; k++) {
			uint64_t unit = (uint64_t)q * QUNITS + k;

			if (!mine(q, k, target))
				continue;
			fill(buf, seed, unit);
			if (q == Q_SYNC) {
				if (ddsm_write_durable(&d, (void *)(area + unit *
						       DSM_WORDS_PER_UNIT),
						       AREA_BASE + unit * DSM_UNIT,
						       buf, sizeof(buf)))
					errs++;
			} else {
				memcpy((void *)(area + unit * DSM_WORDS_PER_UNIT),
				       buf, sizeof(buf));
			}
			n[q]++;
		}
	}
	tap(errs == 0 && n[Q_RENF] && n[Q_SYNC],
	    "node%d stored %" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 " units homed on node%d (%d durable writes failed)",
	    me, n[0], n[1], n[2], n[3], target, errs);
	if (dsm_barrier(s))
		tap_bail("barrier after the writes timed out");

	/* Readers: the units the node before the previous one wrote. */
	for (q = 0; q < Q_NR; q++) {
		if (q == Q_SYNC)
			continue;
		for (k = 0; k < QUNITS; k++) {
			uint64_t unit = (uint64_t)q * QUNITS + k, i;

			if (!mine(q, k, source))
				continue;
			for (i = 0; i < DSM_WORDS_PER_UNIT; i++)
				if (area[unit * DSM_WORDS_PER_UNIT + i] !=
				    expected(seed, unit * DSM_WORDS_PER_UNIT + i))
					bad++;
		}
	}
	tap(bad == 0, "node%d read what node%d wrote (%" PRIu64 " words wrong)",
	    me, (source + nn - 1) % nn, bad);
	if (dsm_barrier(s))
		tap_bail("barrier after the reads timed out");

	/* The writers' barriers: DDSM_PERSIST_ALL for strict, plain else. */
	errs = 0;
	for (q = Q_STRICT; q <= Q_EVENTUAL; q++)
		for (k = 0; k < QUNITS; k++)
			if (mine(q, k, target) &&
			    persist((uint64_t)q * QUNITS + k,
				    q == Q_STRICT ? DDSM_PERSIST_ALL : 0))
				errs++;
	tap(errs == 0, "node%d's barriers over its strict and eventual units returned 0 (%d failed)",
	    me, errs);
}

static void check_phase(uint64_t seed)
{
	uint64_t q, i, bad;

	for (q = 0; q < Q_NR; q++) {
		const volatile uint64_t *a = area + q * QWORDS;

		bad = 0;
		for (i = 0; i < QWORDS; i++)
			if (a[i] != expected(seed, q * QWORDS + i))
				bad++;
		if (q == Q_EVENTUAL)
			tap(bad > 0, "eventual control: %" PRIu64 " of %" PRIu64 " words lost on node%d (never promised: the barrier did not cover units taken by a reader)",
			    bad, QWORDS, me);
		else
			tap(bad == 0, "%s quarter survived the crash on node%d (%" PRIu64 " of %" PRIu64 " words wrong)",
			    qname[q], me, bad, QWORDS);
	}
}

int main(int argc, char **argv)
{
	bool wr = argc == 3 && !strcmp(argv[1], "write");
	bool ck = argc == 3 && !strcmp(argv[1], "check");
	uint64_t sync_unit;
	struct dsm_sync s;
	void *sync;

	if (!wr && !ck) {
		fprintf(stderr, "usage: %s write SEED | check SEED\n", argv[0]);
		return 2;
	}
	if (ddsm_open(&d, NULL)) {
		perror("ddsm_open");
		return 1;
	}
	me = d.node_id;
	nn = d.nr_nodes;
	tap_node = me;
	sync_unit = wr ? SYNC_WRITE : SYNC_CHECK;
	sync = ddsm_map(&d, sync_unit * DSM_UNIT, DSM_SYNC_UNITS(nn) * DSM_UNIT,
			PROT_READ | PROT_WRITE);
	if (!sync)
		tap_bail("mapping the barrier words: %s", strerror(errno));
	area = (volatile uint64_t *)map_window(&d, AREA_BASE,
					       AREA_UNITS * DSM_UNIT);
	if (dsm_sync_init(&s, sync, sync_unit, me, nn, 120))
		tap_bail("first barrier timed out");
	if (wr)
		write_phase(&s, parse_ul(argv[2], "seed"));
	else
		check_phase(parse_ul(argv[2], "seed"));
	if (dsm_barrier(&s))
		tap_bail("last barrier timed out");
	return tap_failed ? 1 : 0;
}
