// SPDX-License-Identifier: GPL-2.0
/*
 * Eviction under a small frame pool: write a pattern over UNITS units
 * (most homed on other nodes), read every unit back, rewrite with a second
 * pattern, read again.  Run on a node loaded with cache_frames=LIMIT: every
 * value must survive being evicted to its home and fetched again, and the
 * node must report evictions while never holding far more than LIMIT
 * cache frames.
 * Usage: ddsm-test-evict UNITS LIMIT
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/mman.h>
#include "libddsm.h"

#define WORDS	(4096 / sizeof(uint64_t))

static int failed;

static void tap(int ok, const char *what)
{
	printf("%s - %s\n", ok ? "ok" : "not ok", what);
	failed |= !ok;
}

static uint64_t pattern(uint64_t unit, uint64_t word, uint64_t round)
{
	return (unit << 32) ^ (word * 2654435761u) ^ (round << 60);
}

/* Writes touch three words per unit: first, middle, last. */
static void write_pass(volatile uint64_t *p, uint64_t units, uint64_t round)
{
	uint64_t u;

	for (u = 0; u < units; u++) {
		p[u * WORDS] = pattern(u, 0, round);
		p[u * WORDS + WORDS / 2] = pattern(u, WORDS / 2, round);
		p[u * WORDS + WORDS - 1] = pattern(u, WORDS - 1, round);
	}
}

static uint64_t read_pass(volatile uint64_t *p, uint64_t units,
			  uint64_t round)
{
	uint64_t u, bad = 0;

	for (u = 0; u < units; u++) {
		bad += p[u * WORDS] != pattern(u, 0, round);
		bad += p[u * WORDS + WORDS / 2] != pattern(u, WORDS / 2, round);
		bad += p[u * WORDS + WORDS - 1] != pattern(u, WORDS - 1, round);
	}
	return bad;
}

int main(int argc, char **argv)
{
	struct ddsm_status st0, st;
	volatile uint64_t *p;
	uint64_t units, limit, bad, round;
	struct ddsm d;
	char what[160];
	time_t t0;

	if (argc != 3)
		return 2;
	units = strtoull(argv[1], NULL, 0);
	limit = strtoull(argv[2], NULL, 0);
	if (ddsm_open(&d, NULL) || ddsm_status(&d, &st0)) {
		perror("ddsm");
		return 1;
	}
	tap(st0.frames_limit == limit, "the node runs with the frame limit asked for");
	p = ddsm_map(&d, 0, units * 4096, PROT_READ | PROT_WRITE);
	if (!p) {
		perror("ddsm_map");
		return 1;
	}
	t0 = time(NULL);
	for (round = 1; round <= 2; round++) {
		write_pass(p, units, round);
		bad = read_pass(p, units, round);
		snprintf(what, sizeof(what),
			 "round %llu: %llu units written then re-read, %llu wrong words",
			 (unsigned long long)round, (unsigned long long)units,
			 (unsigned long long)bad);
		tap(bad == 0, what);
	}
	if (ddsm_status(&d, &st)) {
		perror("status");
		return 1;
	}
	snprintf(what, sizeof(what), "evictions counted: %llu (at least %llu expected)",
		 (unsigned long long)(st.evictions - st0.evictions),
		 (unsigned long long)(units / 2));
	tap(st.evictions - st0.evictions >= units / 2, what);
	/* Soft limit: faults in flight may overshoot by a few frames. */
	snprintf(what, sizeof(what), "cache frames held: %llu (limit %llu)",
		 (unsigned long long)st.cache_frames,
		 (unsigned long long)limit);
	tap(st.cache_frames <= limit + 8, what);
	tap(st.fault_errors == st0.fault_errors, "no fault failed");
	printf("# %llu units x 2 rounds in %ld s, %llu evictions\n",
	       (unsigned long long)units, (long)(time(NULL) - t0),
	       (unsigned long long)(st.evictions - st0.evictions));
	ddsm_unmap(&d, (void *)p, units * 4096);
	ddsm_close(&d);
	return failed;
}
