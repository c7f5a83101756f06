// SPDX-License-Identifier: GPL-2.0
/*
 * A false death costs time, not data (tests/vm/rejoin/guest.sh).  Units are
 * interleaved (unit u is homed on node u % N); each node W owns, dirty, K
 * units homed on every other node H, filled with a pattern of (W, unit).
 *
 *   ddsm-test-rejoin fill N ME
 *	write this node's units; they stay modified here.
 *   ddsm-test-rejoin read-owned N ME VICTIM
 *	read the units VICTIM owns (homed here and elsewhere) while it is
 *	declared dead: each read waits until VICTIM is back and has returned
 *	its copy, then must see VICTIM's pattern; no SIGBUS.
 *   ddsm-test-rejoin check N ME
 *	read every node's units and compare with its pattern.
 *
 * TAP lines; exit 0 iff all ok, 3 on SIGBUS.
 */
#include "test_common.h"

#define UNIT		4096
#define WORDS		(UNIT / sizeof(uint64_t))
#define FIRST_UNIT	8192	/* 32 MiB in: clear of the other tests */
#define K		4	/* units per (owner, home) pair */

static int nodes;
static uint64_t base;	/* FIRST_UNIT rounded up to a multiple of nodes */

/* The k-th unit owned by @w and homed on @h (h != w). */
static uint64_t unit_of(int w, int h, int k)
{
	return base + (uint64_t)(w * K + k) * nodes + h;
}

static uint64_t pattern(int w, uint64_t unit, size_t i)
{
	uint64_t x = ((uint64_t)w << 56) ^ (unit << 20) ^ i;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	return x ^ (x >> 29);
}

static uint64_t *unit_ptr(char *win, uint64_t unit)
{
	return (uint64_t *)(win + (unit - base) * UNIT);
}

static void fill(char *win, int me)
{
	int h, k;
	size_t i;

	for (h = 0; h < nodes; h++)
		for (k = 0; k < K && h != me; k++) {
			uint64_t u = unit_of(me, h, k);
			uint64_t *p = unit_ptr(win, u);

			for (i = 0; i < WORDS; i++)
				p[i] = pattern(me, u, i);
		}
	tap(1, "wrote %d units homed on the other nodes", K * (nodes - 1));
}

/* Units of owner @w whose content is wrong; the first one is reported. */
static int bad_units(char *win, int w, double *slowest_ms)
{
	int h, k, bad = 0;
	size_t i;

	for (h = 0; h < nodes; h++)
		for (k = 0; k < K && h != w; k++) {
			uint64_t u = unit_of(w, h, k);
			uint64_t *p = unit_ptr(win, u);
			uint64_t t0 = now_ns();
			uint64_t first = p[0];
			double ms = (now_ns() - t0) / 1e6;

			if (slowest_ms && ms > *slowest_ms)
				*slowest_ms = ms;
			for (i = 0; i < WORDS; i++)
				if ((i ? p[i] : first) != pattern(w, u, i))
					break;
			if (i < WORDS && !bad++)
				printf("# unit %llu (owner node%d, home node%d) word %zu: %#llx\n",
				       (unsigned long long)u, w, h, i,
				       (unsigned long long)p[i]);
		}
	return bad;
}

int main(int argc, char **argv)
{
	char *win;
	struct ddsm d;
	int me, w;

	if (argc < 4)
		return 2;
	nodes = (int)parse_ul(argv[2], "N");
	me = (int)parse_ul(argv[3], "ME");
	tap_node = me;
	if (nodes < 2 || nodes > 16 || me >= nodes)
		return 2;
	if (ddsm_open(&d, NULL)) {
		perror("ddsm_open");
		return 1;
	}
	base = (FIRST_UNIT + nodes - 1) / nodes * nodes;
	win = map_window(&d, base * UNIT,
			 (size_t)nodes * K * nodes * UNIT);
	if (!strcmp(argv[1], "fill")) {
		fill(win, me);
	} else if (!strcmp(argv[1], "read-owned") && argc == 5) {
		int victim = (int)parse_ul(argv[4], "VICTIM");
		double slowest = 0;
		int bad = bad_units(win, victim, &slowest);

		tap(!bad, "node%d's %d units read while it was declared dead: %d wrong",
		    victim, K * (nodes - 1), bad);
		printf("# slowest first read of a node%d unit: %.0f ms\n",
		       victim, slowest);
		printf("rejoin-wait-ms %.0f\n", slowest);
	} else if (!strcmp(argv[1], "check")) {
		for (w = 0; w < nodes; w++) {
			int bad = bad_units(win, w, NULL);

			tap(!bad, "node%d's %d units hold its pattern (%d wrong)",
			    w, K * (nodes - 1), bad);
		}
	} else {
		return 2;
	}
	return tap_failed ? 1 : 0;
}
