// SPDX-License-Identifier: GPL-2.0
/*
 * ddsm-bench-gap: how much an I->S read miss served by the home costs
 * depending on how long the nodes were idle before it.  perftest's
 * ib_read_lat, the reference of ddsm-bench-transitions, times a loop of
 * back-to-back READs on a busy-polling client; a fault after an idle
 * pause also pays for waking vCPUs and cold caches on every node it
 * involves.  This times the same transition with a pause of GAP_US before
 * each access (0: back to back), so the difference shows.
 *
 * usage: ddsm-bench-gap [-n N] [-s START_UNIT] HOME GAP_US...
 *   N loads per gap (default 100), each of a never-touched unit homed on
 *   HOME, searched upward from START_UNIT (default 4096); every load must
 *   return 0.
 *
 * Output: "bench gap GAP_US N MEDIAN_US P90_US MIN_US" per gap; exit 1 on
 * a wrong value or too few fresh units.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "libddsm.h"
#include "test_common.h"

int main(int argc, char **argv)
{
	unsigned long n = 100, start = 4096;
	uint64_t unit, nr_units, *ns;
	volatile uint64_t *space;
	struct ddsm dd;
	int opt, home, a, bad = 0;

	while ((opt = getopt(argc, argv, "n:s:")) != -1) {
		switch (opt) {
		case 'n': n = parse_ul(optarg, "-n"); break;
		case 's': start = parse_ul(optarg, "-s"); break;
		default:
			fprintf(stderr, "usage: %s [-n N] [-s START_UNIT] HOME GAP_US...\n", argv[0]);
			return 2;
		}
	}
	if (argc - optind < 2 || !n)
		return 2;
	home = (int)parse_ul(argv[optind], "home");
	ns = calloc(n, sizeof(*ns));
	if (!ns || ddsm_open(&dd, NULL)) {
		perror("ddsm-bench-gap");
		return 1;
	}
	nr_units = dd.size / dd.unit_size;
	space = ddsm_map(&dd, 0, dd.size, PROT_READ | PROT_WRITE);
	if (!space) {
		perror("ddsm_map");
		return 1;
	}
	unit = start;
	for (a = optind + 1; a < argc; a++) {
		unsigned long gap = parse_ul(argv[a], "gap"), i;

		for (i = 0; i < n; i++) {
			struct ddsm_home_query q;
			uint64_t t0, v;

			for (;; unit++) {
				if (unit >= nr_units) {
					fprintf(stderr, "ddsm-bench-gap: out of units\n");
					return 1;
				}
				if (ddsm_home(&dd, unit * dd.unit_size, &q)) {
					perror("ddsm_home");
					return 1;
				}
				if ((int)q.home == home && q.state == DDSM_UNIT_I)
					break;
			}
			if (gap)
				usleep(gap);
			t0 = now_ns();
			v = space[unit * (dd.unit_size / sizeof(uint64_t))];
			ns[i] = now_ns() - t0;
			if (v) {
				printf("bench MISMATCH gap: unit %" PRIu64 " read %#" PRIx64 ", want 0\n",
				       unit, v);
				bad++;
			}
			unit++;
		}
		qsort(ns, n, sizeof(*ns), cmp_u64);
		printf("bench gap %lu %lu %.1f %.1f %.1f\n", gap, n,
		       ns[(n - 1) / 2] / 1e3, ns[(9 * n + 9) / 10 - 1] / 1e3,
		       ns[0] / 1e3);
	}
	ddsm_unmap(&dd, (void *)space, dd.size);
	ddsm_close(&dd);
	return bad ? 1 : 0;
}
