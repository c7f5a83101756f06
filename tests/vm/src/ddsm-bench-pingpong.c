// SPDX-License-Identifier: GPL-2.0
/*
 * ddsm-bench-pingpong: ownership transfers between two nodes whose threads
 * wait by spinning, the way spin locks, barriers and flags wait.  Node 0
 * and node 1 take turns on one word: each spins until the other has
 * stored its turn, then stores the next one.  Every store moves the unit
 * (M) to the writer, every spin read after the other's store faults it
 * back, so one round trip is two ownership transfers.
 *
 * usage: ddsm-bench-pingpong [-r ROUNDS] [-w WARMUP] [-u UNIT] [-P] NODE_ID
 *   -r  timed round trips (default 500)
 *   -w  untimed round trips first (default 20)
 *   -u  the unit to use (default 100; its home is wherever the cluster's
 *       home policy puts it)
 *   -P  spin without the PAUSE instruction
 * Nodes other than 0 and 1 exit at once.
 *
 * Output on node 0:
 *   bench pingpong ROUNDS MEDIAN_US P90_US P99_US MIN_US   (per round trip)
 * A benchmark, not a test: exit 1 only if a turn comes out of order (a
 * coherence error) or a wait passes 60 s.
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

#define WAIT_LIMIT_NS	(60ull * 1000000000ull)

static bool use_pause = true;

/* Spin until *@word is @want; exit 1 on a value out of order. */
static void spin_for(volatile uint64_t *word, uint64_t want)
{
	uint64_t t0 = now_ns(), v;
	unsigned int n = 0;

	while ((v = __atomic_load_n(word, __ATOMIC_ACQUIRE)) != want) {
		if (v > want) {
			printf("not ok - node%d: turn %" PRIu64 " seen while waiting for %" PRIu64 "\n",
			       tap_node, v, want);
			exit(1);
		}
		if (use_pause)
			__builtin_ia32_pause();
		if (!(++n & 0xffff) && now_ns() - t0 > WAIT_LIMIT_NS) {
			printf("not ok - node%d: turn %" PRIu64 " not seen after 60 s (word %" PRIu64 ")\n",
			       tap_node, want, v);
			exit(1);
		}
	}
}

int main(int argc, char **argv)
{
	unsigned long rounds = 500, warmup = 20, unit = 100, me, i;
	volatile uint64_t *word;
	uint64_t *rtt;
	struct ddsm d;
	int opt;

	while ((opt = getopt(argc, argv, "r:w:u:P")) != -1) {
		switch (opt) {
		case 'P':
			use_pause = false;
			break;
		case 'r':
			rounds = parse_ul(optarg, "rounds");
			break;
		case 'w':
			warmup = parse_ul(optarg, "warmup");
			break;
		case 'u':
			unit = parse_ul(optarg, "unit");
			break;
		default:
			fprintf(stderr, "usage: %s [-r ROUNDS] [-w WARMUP] [-u UNIT] [-P] NODE_ID\n",
				argv[0]);
			return 2;
		}
	}
	if (optind + 1 != argc || !rounds) {
		fprintf(stderr, "usage: %s [-r ROUNDS] [-w WARMUP] [-u UNIT] [-P] NODE_ID\n",
			argv[0]);
		return 2;
	}
	me = parse_ul(argv[optind], "node id");
	tap_node = (int)me;
	if (me > 1)
		return 0;
	rtt = calloc(rounds, sizeof(*rtt));
	if (!rtt || ddsm_open(&d, NULL)) {
		perror("ddsm_open");
		return 1;
	}
	word = (volatile uint64_t *)map_window(&d, unit * DDSM_UNIT_SIZE,
					       DDSM_UNIT_SIZE);

	/* Turn 2k is node 0's to take, 2k + 1 node 1's. */
	for (i = 0; i < warmup + rounds; i++) {
		uint64_t t0;

		if (me == 0) {
			spin_for(word, 2 * i);
			t0 = now_ns();
			__atomic_store_n(word, 2 * i + 1, __ATOMIC_RELEASE);
			spin_for(word, 2 * i + 2);
			if (i >= warmup)
				rtt[i - warmup] = now_ns() - t0;
		} else {
			spin_for(word, 2 * i + 1);
			__atomic_store_n(word, 2 * i + 2, __ATOMIC_RELEASE);
		}
	}
	if (me == 0) {
		qsort(rtt, rounds, sizeof(*rtt), cmp_u64);
		printf("bench pingpong %lu %.1f %.1f %.1f %.1f\n", rounds,
		       rtt[rounds / 2] / 1e3, rtt[rounds * 9 / 10] / 1e3,
		       rtt[rounds * 99 / 100] / 1e3, rtt[0] / 1e3);
	}
	printf("ok - node%d: %lu round trips, every turn in order\n",
	       tap_node, warmup + rounds);
	return 0;
}
