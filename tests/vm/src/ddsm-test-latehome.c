// SPDX-License-Identifier: GPL-2.0
/*
 * ddsm-test-latehome: a fault on a unit whose home has not loaded ddsm
 * yet waits for it instead of failing, and does not hold the process's
 * mmap_lock while it waits.
 *
 * usage: ddsm-test-latehome NODE_ID NR_NODES LATE_NODE
 * Run right after insmod, while LATE_NODE is still without ddsm.  A
 * thread reads and then writes a unit homed on LATE_NODE; meanwhile the
 * main thread times mmap + munmap of anonymous memory, which needs
 * mmap_lock for writing.  Checks: the read returns 0 and the write
 * sticks (no SIGBUS), the fault did wait (the home was late), and no
 * munmap took more than a second during that wait.
 *
 * usage: ddsm-test-latehome NODE_ID NR_NODES LATE_NODE --sigbus-within MS
 * Another unit homed on LATE_NODE must raise SIGBUS within MS ms (the
 * caller lowered fault_timeout_ms at run time first).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include "libddsm.h"
#include "test_common.h"

static sigjmp_buf bus_jb;

static void bus_jump(int sig)
{
	(void)sig;
	siglongjmp(bus_jb, 1);
}

/* Read a unit homed on @late: it must give SIGBUS within @ms. */
static int sigbus_within(struct ddsm *d, unsigned long unit, unsigned long ms)
{
	volatile uint64_t *p = (volatile uint64_t *)
		map_window(d, unit * DDSM_UNIT_SIZE, DDSM_UNIT_SIZE);
	struct sigaction sa;
	uint64_t t0;
	int bus = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = bus_jump;
	sigaction(SIGBUS, &sa, NULL);
	t0 = now_ns();
	if (sigsetjmp(bus_jb, 1) == 0)
		(void)*p;
	else
		bus = 1;
	tap(bus && now_ns() - t0 < ms * 1000000ull,
	    "a fault on late unit %lu got SIGBUS within %lu ms: %s after %.2f s",
	    unit, ms, bus ? "SIGBUS" : "no SIGBUS", (now_ns() - t0) / 1e9);
	return tap_failed ? 1 : 0;
}

static volatile uint64_t *word;
static volatile bool fault_done;
static uint64_t fault_ns, seen;

static void *toucher(void *arg)
{
	uint64_t t0 = now_ns();

	(void)arg;
	seen = *word;		/* waits for the late home */
	*word = 0x1a7e0000u + (uint64_t)tap_node;
	fault_ns = now_ns() - t0;
	__atomic_store_n(&fault_done, true, __ATOMIC_RELEASE);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long me, nodes, late, unit;
	uint64_t worst = 0, t0, dt;
	unsigned int rounds = 0;
	pthread_t th;
	struct ddsm d;
	char *win;

	if (argc != 4 && !(argc == 6 && !strcmp(argv[4], "--sigbus-within"))) {
		fprintf(stderr, "usage: %s NODE_ID NR_NODES LATE_NODE\n",
			argv[0]);
		return 2;
	}
	me = parse_ul(argv[1], "node id");
	nodes = parse_ul(argv[2], "node count");
	late = parse_ul(argv[3], "late node");
	tap_node = (int)me;
	if (!nodes || late >= nodes || me == late) {
		fprintf(stderr, "bad node ids\n");
		return 2;
	}
	if (ddsm_open(&d, NULL)) {
		perror("ddsm_open");
		return 1;
	}
	if (argc == 6)
		return sigbus_within(&d, late + nodes * (40 + me),
				     parse_ul(argv[5], "ms"));
	/* A unit homed on the late node (interleave), one per reader. */
	unit = late + nodes * (8 + me);
	win = map_window(&d, unit * DDSM_UNIT_SIZE, DDSM_UNIT_SIZE);
	word = (volatile uint64_t *)win;

	if (pthread_create(&th, NULL, toucher, NULL)) {
		perror("pthread_create");
		return 1;
	}
	while (!__atomic_load_n(&fault_done, __ATOMIC_ACQUIRE)) {
		void *p;

		usleep(100000);
		t0 = now_ns();
		p = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		((char *)p)[0] = 1;
		munmap(p, 1 << 16);
		dt = now_ns() - t0;
		if (!__atomic_load_n(&fault_done, __ATOMIC_ACQUIRE)) {
			rounds++;
			if (dt > worst)
				worst = dt;
		}
	}
	pthread_join(th, NULL);

	tap(seen == 0, "the late home's unit %lu reads 0 (got %#" PRIx64 ")",
	    unit, seen);
	tap(*word == 0x1a7e0000u + me, "the write to it sticks");
	tap(fault_ns > 1000000000ull,
	    "the fault waited for the home: %.2f s", fault_ns / 1e9);
	tap(rounds > 0 && worst < 1000000000ull,
	    "mmap+munmap during the wait: %u rounds, slowest %.3f s (< 1 s)",
	    rounds, worst / 1e9);
	return tap_failed ? 1 : 0;
}
