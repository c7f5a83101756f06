// SPDX-License-Identifier: GPL-2.0
/*
 * ddsm-test-pmodel: what a region's persistency model makes durable.
 *
 * usage: ddsm-test-pmodel write SEED
 *        ddsm-test-pmodel check SCOPE_SEED EVENTUAL_SEED
 * The area is AREA_UNITS units from global address AREA_BASE: its first
 * half is expected to be a Scope region, its second half an Eventual one
 * (the caller sets them on every node first, with ddsmctl region).
 *  write: this node stores the pattern of SEED into every unit of the
 *         area it homes itself, and calls no barrier; the home flusher
 *         persists the Eventual half within pmem_flush_ms, and nothing
 *         persists the Scope half.
 *  check: (after a crash) this node reads the whole area: the Scope half
 *         must hold SCOPE_SEED's pattern and the Eventual half
 *         EVENTUAL_SEED's (seed 0: zeros, never written durably).
 * Both start and end with a barrier of every node, so that no node
 * unloads while another still reads units it homes.
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
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "libddsm.h"
#include "test_common.h"
#include "dsm_sync.h"

#define AREA_BASE	(4ULL << 20)
#define AREA_UNITS	256
#define HALF_WORDS	(AREA_UNITS / 2 * DSM_WORDS_PER_UNIT)
/* Barrier words of a write and of a check: units no earlier boot used. */
#define SYNC_WRITE	((AREA_BASE >> 12) + AREA_UNITS)
#define SYNC_CHECK	(SYNC_WRITE + 16)

static uint64_t expected(uint64_t seed, uint64_t i)
{
	return seed ? dsm_mix64(seed * 0x100000001b3ULL + i) : 0;
}

static void check_half(const volatile uint64_t *a, uint64_t seed, int me,
		       const char *what)
{
	uint64_t i, bad = 0, first = 0;

	for (i = 0; i < HALF_WORDS; i++) {
		if (a[i] != expected(seed, i) && !bad++)
			first = i;
	}
	if (bad)
		tap(0, "%s half: %" PRIu64 " of %" PRIu64 " words are not seed %" PRIu64 "'s, first in unit %" PRIu64,
		    what, bad, (uint64_t)HALF_WORDS, seed,
		    first / DSM_WORDS_PER_UNIT);
	else
		tap(1, "%s half holds seed %" PRIu64 "'s pattern on node%d",
		    what, seed, me);
}

int main(int argc, char **argv)
{
	volatile uint64_t *area;
	struct ddsm_home_query q;
	uint64_t u, i, written = 0, sync_unit;
	struct dsm_sync s;
	struct ddsm d;
	void *sync;
	int me;
	bool wr = argc == 3 && !strcmp(argv[1], "write");
	bool ck = argc == 4 && !strcmp(argv[1], "check");

	if (!wr && !ck) {
		fprintf(stderr, "usage: %s write SEED | check SCOPE_SEED EVENTUAL_SEED\n",
			argv[0]);
		return 2;
	}
	if (ddsm_open(&d, NULL)) {
		perror("ddsm_open");
		return 1;
	}
	me = d.node_id;
	tap_node = me;
	sync_unit = wr ? SYNC_WRITE : SYNC_CHECK;
	sync = ddsm_map(&d, sync_unit * DSM_UNIT, DSM_SYNC_UNITS(d.nr_nodes) *
			DSM_UNIT, PROT_READ | PROT_WRITE);
	if (!sync)
		tap_bail("mapping the barrier words: %s", strerror(errno));
	area = (volatile uint64_t *)map_window(&d, AREA_BASE,
					       AREA_UNITS * DSM_UNIT);
	if (dsm_sync_init(&s, sync, sync_unit, me, d.nr_nodes, 120))
		tap_bail("first barrier timed out");
	if (wr) {
		uint64_t seed = parse_ul(argv[2], "seed");

		for (u = 0; u < AREA_UNITS; u++) {
			uint64_t w0 = u * DSM_WORDS_PER_UNIT;
			uint64_t half = u < AREA_UNITS / 2 ? 0 : HALF_WORDS;

			if (ddsm_home(&d, AREA_BASE + u * DSM_UNIT, &q))
				tap_bail("ddsm_home: %s", strerror(errno));
			if (q.home != (uint32_t)me)
				continue;
			for (i = 0; i < DSM_WORDS_PER_UNIT; i++)
				area[w0 + i] = expected(seed, w0 - half + i);
			written++;
		}
		tap(written > 0, "node%d wrote the %" PRIu64 " units of the area it homes",
		    me, written);
	} else {
		check_half(area, parse_ul(argv[2], "scope seed"), me, "Scope");
		check_half(area + HALF_WORDS, parse_ul(argv[3], "eventual seed"),
			   me, "Eventual");
	}
	if (dsm_barrier(&s))
		tap_bail("last barrier timed out");
	return tap_failed ? 1 : 0;
}
