/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency histogram: log-linear buckets (32 per power of two, so any
 * value is reported within 3%), fixed size, no allocation, one per thread
 * and merged at the end.  Values in nanoseconds.
 */
#ifndef WL_HIST_H
#define WL_HIST_H

#include <stdint.h>
#include <stdio.h>

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
/*
 * The CDF as "US:FRAC,US:FRAC,..." on @f (no newline; nothing when
 * empty): FRAC of the values were at most US microseconds, one point per
 * non-empty group of buckets, the groups 1/8 of a power of two wide, or
 * wider (doubling) until there are at most @max_pts of them.  A point's
 * US is the upper edge of its group's last non-empty bucket (or the
 * maximum), so the CDF is never read off a bucket the values missed.
 */
void hist_print_cdf(FILE *f, const struct hist *h, unsigned int max_pts);

#endif /* WL_HIST_H */
