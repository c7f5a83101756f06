// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "libddsm.h"
static uint64_t now_ns(void) { struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts); return ts.tv_sec * 1000000000ull + ts.tv_nsec; }
static __attribute__((noinline)) uint64_t scan(const uint64_t *p, size_t w) { uint64_t s = 0; for (size_t i = 0; i < w; i++) s += p[i]; return s; }
static int cmp(const void *a, const void *b) { uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv)
{
	size_t len = 16 << 20; struct ddsm dd; uint64_t ns[3][15], sink = 0;
	const uint64_t *b[3];
	if (ddsm_open(&dd, NULL)) return 1;
	uint64_t *d = ddsm_map(&dd, argc > 1 ? atoll(argv[1]) : 0, len, PROT_READ | PROT_WRITE);
	for (size_t i = 0; i < len / 8; i += 512) d[i] = i;
	uint64_t *a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); memset(a, 1, len);
	uint64_t *a4 = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); madvise(a4, len, MADV_NOHUGEPAGE); memset(a4, 1, len);
	b[0] = d; b[1] = a; b[2] = a4;
	for (int k = 0; k < 3; k++) sink += scan(b[k], len / 8);
	for (int i = 0; i < 15; i++) for (int k = 0; k < 3; k++) { uint64_t t0 = now_ns(); sink += scan(b[k], len / 8); ns[k][i] = now_ns() - t0; }
	for (int k = 0; k < 3; k++) qsort(ns[k], 15, 8, cmp);
	printf("scan ddsm %.2f anon %.2f anon4k %.2f ms ratio %.3f %.3f (min %.3f %.3f) %lu\n", ns[0][7] / 1e6, ns[1][7] / 1e6, ns[2][7] / 1e6,
	       (double)ns[0][7] / ns[1][7], (double)ns[0][7] / ns[2][7], (double)ns[0][0] / ns[1][0], (double)ns[0][0] / ns[2][0], (unsigned long)(sink & 1));
	return 0;
}
