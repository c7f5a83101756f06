// SPDX-License-Identifier: GPL-2.0
/*
 * Cross-node sharing through /dev/ddsm, run on every node at once:
 * node i stores 100 + i in a unit homed on node i + 1, all nodes then read
 * every such unit until they see all values (bounded), and finally each
 * node adds 100 to one shared counter with atomic increments; the total
 * must reach 100 * nodes everywhere.
 * Usage: ddsm-test-xnode NODE_ID NR_NODES
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include "libddsm.h"

#define WORDS_PER_UNIT	(4096 / sizeof(long))
#define ROUNDS		100
#define TIMEOUT_S	60

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	volatile long *p;
	struct ddsm d;
	int me, n, i, seen = 0;
	double t0;

	if (argc != 3)
		return 2;
	me = atoi(argv[1]);
	n = atoi(argv[2]);
	if (n < 1 || me < 0 || me >= n)
		return 2;
	if (ddsm_open(&d, NULL)) {
		perror("ddsm_open");
		return 1;
	}
	/* Units 0..n-1 (interleaved: unit u is homed on node u % n), plus
	 * unit n for the counter.
	 */
	p = ddsm_map(&d, 0, (n + 1) * 4096, PROT_READ | PROT_WRITE);
	if (!p) {
		perror("ddsm_map");
		return 1;
	}
	p[((me + 1) % n) * WORDS_PER_UNIT] = 100 + me;
	t0 = now();
	while (seen != n && now() - t0 < TIMEOUT_S) {
		seen = 0;
		for (i = 0; i < n; i++)
			seen += p[((i + 1) % n) * WORDS_PER_UNIT] == 100 + i;
		if (seen != n)
			usleep(10000);
	}
	printf("# node %d sees %d of %d values\n", me, seen, n);
	if (seen != n)
		return 1;
	for (i = 0; i < ROUNDS; i++)
		__atomic_fetch_add(&p[n * WORDS_PER_UNIT], 1, __ATOMIC_SEQ_CST);
	t0 = now();
	while (p[n * WORDS_PER_UNIT] < (long)ROUNDS * n &&
	       now() - t0 < TIMEOUT_S)
		usleep(10000);
	printf("# node %d counter %ld (want %d)\n", me,
	       p[n * WORDS_PER_UNIT], ROUNDS * n);
	if (p[n * WORDS_PER_UNIT] != (long)ROUNDS * n)
		return 1;
	/* Stay mapped until the others are done reading our units. */
	sleep(2);
	ddsm_unmap(&d, (void *)p, (n + 1) * 4096);
	ddsm_close(&d);
	return 0;
}
