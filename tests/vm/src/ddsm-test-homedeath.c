// SPDX-License-Identifier: GPL-2.0
/*
 * What a node sees when the home of some units dies.  Units are
 * interleaved: unit u is homed on node u % N.
 *
 *   ddsm-test-homedeath loop VICTIM N
 *	fault on fresh units homed on VICTIM, one after another, until one
 *	raises SIGBUS; print how long after the last good fault that came
 *	(the kill happens in between), exit 0 on SIGBUS, 1 after 120 s.
 *   ddsm-test-homedeath after VICTIM N ME
 *	with VICTIM gone: a fresh unit and an already cached unit homed on
 *	VICTIM both raise SIGBUS at once; units homed on the survivors still
 *	work across nodes (each survivor writes into a unit homed on another
 *	survivor and reads the other's value; an atomic counter reaches
 *	100 x survivors).  TAP lines; exit 0 iff all ok.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include "libddsm.h"

#define UNIT		4096
#define WORDS		(UNIT / sizeof(long))
#define SPAN_UNITS	4096	/* mapped window: 16 MiB */
#define CACHED_UNITS	8	/* the first 8 VICTIM units: touched before */

static sigjmp_buf jb;
static volatile sig_atomic_t got_sigbus;
static int failed;

static void on_sigbus(int sig)
{
	(void)sig;
	got_sigbus = 1;
	siglongjmp(jb, 1);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void tap(int ok, const char *what)
{
	printf("%s - %s\n", ok ? "ok" : "not ok", what);
	fflush(stdout);
	failed |= !ok;
}

/* Read one word of @unit; 1 if that raised SIGBUS. */
static int read_faults(volatile long *p, long unit)
{
	got_sigbus = 0;
	if (sigsetjmp(jb, 1) == 0)
		(void)p[unit * WORDS];
	return got_sigbus;
}

static int do_loop(volatile long *p, int victim, int n)
{
	double last = now_ms(), t0 = last;
	long k;

	/* The first units were cached before the kill; start past them. */
	for (k = CACHED_UNITS; k < SPAN_UNITS / n; k++) {
		long unit = victim + k * n;

		if (read_faults(p, unit)) {
			printf("# SIGBUS on unit %ld, %.0f ms after the last good fault\n",
			       unit, now_ms() - last);
			printf("homedeath-sigbus-ms %.0f\n", now_ms() - last);
			return 0;
		}
		last = now_ms();
		if (k == CACHED_UNITS + 1) {
			printf("# faulting\n");
			fflush(stdout);
		}
		if (last - t0 > 120000)
			break;
		usleep(20000);
	}
	printf("# no SIGBUS\n");
	return 1;
}

static int do_after(volatile long *p, int victim, int n, int me)
{
	int other = -1, first = -1, i, survivors = 0;
	volatile long *counter;
	char what[160];
	double t0;

	for (i = 0; i < n; i++)
		if (i != victim) {
			survivors++;
			if (first < 0)
				first = i;
			if (i != me && other < 0)
				other = i;
		}
	/* One counter for all survivors, homed on the first of them. */
	counter = &p[(2 * n + first) * WORDS];
	t0 = now_ms();
	snprintf(what, sizeof(what), "a fresh unit homed on dead node%d raises SIGBUS",
		 victim);
	tap(read_faults(p, victim + (SPAN_UNITS / n - 1) * n), what);
	snprintf(what, sizeof(what), "a unit homed on node%d that was cached before raises SIGBUS",
		 victim);
	tap(read_faults(p, victim), what);
	snprintf(what, sizeof(what), "both in %.0f ms (no wait for a timeout)",
		 now_ms() - t0);
	tap(now_ms() - t0 < 1000, what);

	/* Survivors: unit (other + n) is homed on @other. */
	p[(other + n) * WORDS + me] = 1000 + me;
	t0 = now_ms();
	while (p[(me + n) * WORDS + other] != 1000 + other &&
	       now_ms() - t0 < 30000)
		usleep(10000);
	snprintf(what, sizeof(what), "node%d and node%d still share data", me, other);
	tap(p[(me + n) * WORDS + other] == 1000 + other, what);
	for (i = 0; i < 100; i++)
		__atomic_fetch_add(counter, 1, __ATOMIC_SEQ_CST);
	t0 = now_ms();
	while (*counter < 100 * survivors && now_ms() - t0 < 30000)
		usleep(10000);
	snprintf(what, sizeof(what), "atomic counter on a survivor's unit reaches %d (got %ld)",
		 100 * survivors, *counter);
	tap(*counter == 100 * survivors, what);
	sleep(2);	/* let the other survivor finish reading */
	return failed;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	volatile long *p;
	struct ddsm d;
	int victim, n;

	if (argc < 4)
		return 2;
	victim = atoi(argv[2]);
	n = atoi(argv[3]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigaction(SIGBUS, &sa, NULL);
	if (ddsm_open(&d, NULL)) {
		perror("ddsm_open");
		return 1;
	}
	p = ddsm_map(&d, 0, (size_t)SPAN_UNITS * UNIT, PROT_READ | PROT_WRITE);
	if (!p) {
		perror("ddsm_map");
		return 1;
	}
	if (!strcmp(argv[1], "touch")) {
		int k;

		/* Cache some of VICTIM's units: read most, write one. */
		for (k = 0; k < CACHED_UNITS; k++)
			(void)p[(victim + k * n) * WORDS];
		p[(victim + (CACHED_UNITS - 1) * n) * WORDS + 1] = 7;
		return 0;
	}
	if (!strcmp(argv[1], "loop"))
		return do_loop(p, victim, n);
	if (!strcmp(argv[1], "after") && argc == 5)
		return do_after(p, victim, n, atoi(argv[4]));
	return 2;
}
