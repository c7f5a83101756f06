/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest test and benchmark programs: TAP lines
 * (node-tagged, counted), a SIGBUS reporter that names the global address,
 * strict number parsing, a monotonic clock and a u64 comparator.
 *
 * Set tap_node to this node's id before the first line; map_window()
 * maps a window read-write and reports a SIGBUS inside it by global
 * address.
 */
#ifndef DDSM_TEST_COMMON_H
#define DDSM_TEST_COMMON_H

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include "libddsm.h"

static int tap_node = -1;	/* < 0: lines carry no node tag */
static int tap_checks;		/* lines printed */
static int tap_failed;		/* "not ok" lines printed */

static inline void tap(int good, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void tap(int good, const char *fmt, ...)
{
	va_list ap;

	tap_checks++;
	if (!good)
		tap_failed++;
	printf("%sok - ", good ? "" : "not ");
	if (tap_node >= 0)
		printf("node%d: ", tap_node);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* A "not ok" line, "Bail out!", exit 1: the run cannot go on. */
static inline void tap_bail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
static inline void tap_bail(const char *fmt, ...)
{
	va_list ap;

	printf("not ok - node%d: ", tap_node);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\nBail out! node%d\n", tap_node);
	fflush(stdout);
	exit(1);
}

/* Where the mapping starts, and the global address it maps there. */
static char *sigbus_base;
static uint64_t sigbus_gaddr;

/* Async-signal-safe: one preformatted line, then exit 3. */
static inline void sigbus_handler(int sig, siginfo_t *si, void *ctx)
{
	char buf[160];
	int len;

	(void)sig;
	(void)ctx;
	len = snprintf(buf, sizeof(buf),
		       "not ok - node%d: SIGBUS at %p (DSM offset 0x%llx)\n",
		       tap_node, si->si_addr,
		       (unsigned long long)((char *)si->si_addr - sigbus_base +
					    sigbus_gaddr));
	if (write(1, buf, len) < 0)
		_exit(3);
	_exit(3);
}

static inline void sigbus_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sigbus_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGBUS, &sa, NULL);
}

/* Map @len bytes at global address @gaddr read-write, or exit 1. */
static inline char *map_window(struct ddsm *d, uint64_t gaddr, size_t len)
{
	char *win = ddsm_map(d, gaddr, len, PROT_READ | PROT_WRITE);

	if (!win) {
		perror("ddsm_map");
		exit(1);
	}
	sigbus_base = win;
	sigbus_gaddr = gaddr;
	sigbus_install();
	return win;
}

/* @s as a whole unsigned number, or exit 2 naming @what. */
static inline unsigned long parse_ul(const char *s, const char *what)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end) {
		fprintf(stderr, "bad %s: %s\n", what, s);
		exit(2);
	}
	return v;
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#endif /* DDSM_TEST_COMMON_H */
