// SPDX-License-Identifier: GPL-2.0
/*
 * ddsm-test-pmem: a pattern written across the cluster survives a restart.
 *
 * usage: ddsm-test-pmem PHASE VERIFY_SEED WRITE_SEED
 * Run on every node at once.  The area is AREA_UNITS units (1 MiB) from
 * global address 0; each boot of a series passes its own PHASE, so its
 * barrier words are in units no earlier boot used (they start at zero,
 * whatever pmem kept).
 *  1. VERIFY_SEED != 0: every node reads the whole area and checks it
 *     holds the pattern of VERIFY_SEED (written in an earlier boot).
 *  2. WRITE_SEED != 0: node k writes the pattern of WRITE_SEED into every
 *     8-unit block b with b % n == k (so mostly units homed elsewhere),
 *     and calls the Scope barrier (ddsm_persist) on the area: its dirty
 *     copies go to their homes, which make them durable.  Nothing else
 *     brings them home before the next boot checks them: no node reads
 *     the area back in this boot.
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

#define AREA_UNITS	256
#define BLOCK_UNITS	8
#define SYNC_BASE	AREA_UNITS	/* phase 0's barrier words follow the area */
#define SYNC_STRIDE	16
#define TIMEOUT_S	120.0

static uint64_t word_of(uint64_t seed, uint64_t i)
{
	return dsm_mix64(seed * 0x100000001b3ULL + i);
}

/* Check the whole area against @seed; one TAP line. */
static void verify(const volatile uint64_t *a, uint64_t seed, int me,
		   const char *what)
{
	uint64_t i, words = AREA_UNITS * DSM_WORDS_PER_UNIT, bad = 0;
	uint64_t first = 0;

	for (i = 0; i < words; i++) {
		if (a[i] != word_of(seed, i)) {
			if (!bad++)
				first = i;
		}
	}
	if (bad)
		tap(0, "%s: %" PRIu64 " of %" PRIu64 " words differ, first at byte %#" PRIx64 " (unit %" PRIu64 "): %#" PRIx64 " expected %#" PRIx64,
		    what, bad, words, first * 8, first / DSM_WORDS_PER_UNIT,
		    a[first], word_of(seed, first));
	else
		tap(1, "%s: all %" PRIu64 " words of seed %" PRIu64 " on node%d",
		    what, words, seed, me);
}

int main(int argc, char **argv)
{
	uint64_t phase, vseed, wseed, sync_unit, b, i, t0;
	volatile uint64_t *area;
	struct dsm_sync s;
	struct ddsm d;
	char *win;
	int me, n;

	if (argc != 4) {
		fprintf(stderr, "usage: %s PHASE VERIFY_SEED WRITE_SEED\n",
			argv[0]);
		return 2;
	}
	phase = parse_ul(argv[1], "phase");
	vseed = parse_ul(argv[2], "verify seed");
	wseed = parse_ul(argv[3], "write seed");
	if (ddsm_open(&d, NULL)) {
		perror("ddsm_open");
		return 1;
	}
	me = d.node_id;
	n = d.nr_nodes;
	tap_node = me;
	sync_unit = SYNC_BASE + phase * SYNC_STRIDE;
	if (SYNC_STRIDE < DSM_SYNC_UNITS(n) ||
	    (sync_unit + SYNC_STRIDE) * DSM_UNIT > d.size) {
		fprintf(stderr, "phase %" PRIu64 " does not fit\n", phase);
		return 2;
	}
	win = map_window(&d, 0, (sync_unit + SYNC_STRIDE) * DSM_UNIT);
	area = (volatile uint64_t *)win;
	if (dsm_sync_init(&s, win + sync_unit * DSM_UNIT, sync_unit, me, n,
			  TIMEOUT_S))
		tap_bail("initial barrier timed out");
	if (vseed)
		verify(area, vseed, me, "pattern of the earlier boot");
	if (dsm_barrier(&s))
		tap_bail("barrier after the first check timed out");
	if (wseed) {
		for (b = me; b < AREA_UNITS / BLOCK_UNITS; b += n) {
			uint64_t w0 = b * BLOCK_UNITS * DSM_WORDS_PER_UNIT;

			for (i = 0; i < BLOCK_UNITS * DSM_WORDS_PER_UNIT; i++)
				area[w0 + i] = word_of(wseed, w0 + i);
		}
		t0 = now_ns();
		if (ddsm_persist(&d, 0, AREA_UNITS * DSM_UNIT))
			tap(0, "ddsm_persist of the area: %s", strerror(errno));
		else
			tap(1, "ddsm_persist of the area on node%d (%.1f ms)",
			    me, (now_ns() - t0) / 1e6);
	}
	if (dsm_barrier(&s))
		tap_bail("last barrier timed out");
	printf("# node%d: phase %" PRIu64 " done\n", me, phase);
	return tap_failed ? 1 : 0;
}
