// SPDX-License-Identifier: GPL-2.0
/*
 * Latency histogram (hist.h).  Bucket index: values below 2^5 map to
 * themselves; above, the top 6 significant bits select the bucket
 * within the value's power of two.
 */
#include <math.h>
#include "hist.h"

#define SUB	(1u << HIST_SUB_BITS)

static unsigned int hist_index(uint64_t v)
{
	unsigned int msb, shift;

	if (v < SUB)
		return (unsigned int)v;
	msb = 63 - __builtin_clzll(v);
	shift = msb - HIST_SUB_BITS;
	return ((shift + 1) << HIST_SUB_BITS) + (unsigned int)(v >> shift) -
	       SUB;
}

/* The middle of bucket @i's range, in nanoseconds. */
static double hist_value(unsigned int i)
{
	unsigned int octave = i >> HIST_SUB_BITS, shift;
	uint64_t lo;

	if (!octave)
		return i;
	shift = octave - 1;
	lo = (uint64_t)((i & (SUB - 1)) + SUB) << shift;
	return (double)lo + ((double)(1ULL << shift) - 1) / 2;
}

void hist_add(struct hist *h, uint64_t ns)
{
	h->count[hist_index(ns)]++;
	h->n++;
	h->sum_ns += ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	unsigned int i;

	for (i = 0; i < HIST_BUCKETS; i++)
		dst->count[i] += src->count[i];
	dst->n += src->n;
	dst->sum_ns += src->sum_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
}

double hist_quantile_us(const struct hist *h, double q)
{
	uint64_t rank, seen = 0;
	unsigned int i;

	if (!h->n)
		return 0;
	rank = (uint64_t)ceil(q * (double)h->n);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += h->count[i];
		if (seen >= rank)
			return hist_value(i) / 1e3;
	}
	return h->max_ns / 1e3;
}

double hist_mean_us(const struct hist *h)
{
	return h->n ? (double)h->sum_ns / (double)h->n / 1e3 : 0;
}
