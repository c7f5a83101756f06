// SPDX-License-Identifier: GPL-2.0
/*
 * A task SIGKILLed in the middle of a fault must leave nothing behind:
 * no directory lock held, no line stuck in a transient state.
 *
 *   ddsm-test-sigkill kill N UNITS KILLS
 *	(on a node with a small cache, so every access is a protocol fault)
 *	KILLS times: fork a child that writes across UNITS units homed on
 *	node 0 of N, SIGKILL it after a random 0-20 ms, reap it.  Then write
 *	a pattern over every unit (each must succeed: nothing stuck) and
 *	raise a flag for the checker.
 *   ddsm-test-sigkill check N UNITS
 *	(another node) wait for the flag, read every unit, compare.
 *   ddsm-test-sigkill wait N UNITS
 *	(the home) wait until the checker is done.
 * Units used: 0, N, 2N, ... (homed on node 0); the flag is unit 1.
 * TAP lines; exit 0 iff all ok.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "libddsm.h"

#define WORDS	(4096 / sizeof(long))
#define MAGIC	0x5157ULL

static int failed;

static void tap(int ok, const char *what)
{
	printf("%s - %s\n", ok ? "ok" : "not ok", what);
	fflush(stdout);
	failed |= !ok;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long pattern(long k)
{
	return (long)(MAGIC << 32) + k;
}

static int do_kill(volatile long *p, long n, long units, long kills)
{
	struct ddsm_status st0, st;
	struct ddsm d;
	long i, k, bad = 0;
	char what[160];
	double t0;

	ddsm_open(&d, NULL);
	ddsm_status(&d, &st0);
	srand(getpid());
	for (i = 0; i < kills; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			for (long round = 0;; round++)
				for (k = 0; k < units; k++)
					p[k * n * WORDS] = round;
		}
		usleep(rand() % 20000);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	ddsm_status(&d, &st);
	/* A fault abandoned by its dying task is counted in fault_kills. */
	snprintf(what, sizeof(what),
		 "%ld faulting tasks SIGKILLed at random points, %llu of them inside a fault",
		 kills, (unsigned long long)(st.fault_kills - st0.fault_kills));
	tap(st.fault_kills > st0.fault_kills, what);
	/* Every unit must still be writable: no lock or line left behind. */
	t0 = now();
	for (k = 0; k < units; k++)
		p[k * n * WORDS] = pattern(k);
	snprintf(what, sizeof(what), "all %ld units written afterwards in %.1f s", units,
		 now() - t0);
	tap(1, what);
	__atomic_store_n(&p[1 * WORDS], 1, __ATOMIC_SEQ_CST);
	t0 = now();
	while (__atomic_load_n(&p[1 * WORDS], __ATOMIC_SEQ_CST) == 1 &&
	       now() - t0 < 120)
		usleep(20000);
	tap(p[1 * WORDS] == 2, "the checker on another node saw every value");
	for (k = 0; k < units; k++)
		bad += p[k * n * WORDS] != pattern(k);
	snprintf(what, sizeof(what), "values read back here: %ld wrong", bad);
	tap(!bad, what);
	ddsm_status(&d, &st);
	snprintf(what, sizeof(what), "no fault timed out (%llu)",
		 (unsigned long long)(st.fault_timeouts - st0.fault_timeouts));
	tap(st.fault_timeouts == st0.fault_timeouts, what);
	return failed;
}

/* The home: wait until the checker is done, so its log is complete. */
static int do_wait(volatile long *p)
{
	double t0 = now();

	while (__atomic_load_n(&p[1 * WORDS], __ATOMIC_SEQ_CST) < 2 &&
	       now() - t0 < 600)
		usleep(100000);
	tap(p[1 * WORDS] == 2, "home: the test finished and the checker agreed");
	return failed;
}

static int do_check(volatile long *p, long n, long units)
{
	long k, bad = 0;
	char what[160];
	double t0 = now();

	while (__atomic_load_n(&p[1 * WORDS], __ATOMIC_SEQ_CST) != 1 &&
	       now() - t0 < 600)
		usleep(50000);
	tap(p[1 * WORDS] == 1, "the killer node finished");
	for (k = 0; k < units; k++)
		bad += p[k * n * WORDS] != pattern(k);
	snprintf(what, sizeof(what), "%ld units read from another node: %ld wrong", units, bad);
	tap(!bad, what);
	__atomic_store_n(&p[1 * WORDS], bad ? 3 : 2, __ATOMIC_SEQ_CST);
	sleep(2);
	return failed;
}

int main(int argc, char **argv)
{
	volatile long *p;
	struct ddsm d;
	long n, units;

	if (argc < 4)
		return 2;
	n = atol(argv[2]);
	units = atol(argv[3]);
	if (n < 2 || units < 1 || ddsm_open(&d, NULL))
		return 2;
	p = ddsm_map(&d, 0, (size_t)units * n * 4096, PROT_READ | PROT_WRITE);
	if (!p) {
		perror("ddsm_map");
		return 1;
	}
	if (!strcmp(argv[1], "kill") && argc == 5)
		return do_kill(p, n, units, atol(argv[4]));
	if (!strcmp(argv[1], "check"))
		return do_check(p, n, units);
	if (!strcmp(argv[1], "wait"))
		return do_wait(p);
	return 2;
}
