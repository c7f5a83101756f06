/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency histogram: log-linear buckets (32 per power of two, so any
 * value is reported within 3%), fixed size, no allocation, one per thread
 * and merged at the end.  Values in nanoseconds.
 */
#ifndef WL_HIST_H
#define WL_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS	5
#define HIST_BUCKETS	((64 - HIST_SUB_BITS + 1) << HIST_SUB_BITS)

struct hist {
	uint64_t n;
	uint64_t sum_ns;
	uint64_t max_ns;
	uint64_t count[HIST_BUCKETS];
};

void hist_add(struct hist *h, uint64_t ns);
void hist_merge(struct hist *dst, const struct hist *src);
/* The @q quantile (0 < q <= 1) in microseconds; 0 when empty. */
double hist_quantile_us(const struct hist *h, double q);
double hist_mean_us(const struct hist *h);

#endif /* WL_HIST_H */
