// SPDX-License-Identifier: GPL-2.0
/*
 * Latency histogram (hist.h).  Bucket index: values below 2^5 map to
 * themselves; above, the top 6 significant bits select the bucket
 * within the value's power of two.
 */
#include <math.h>
#include <stdio.h>
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

/* Bucket @i holds @lo .. @lo + @width - 1 nanoseconds. */
static void hist_range(unsigned int i, uint64_t *lo, uint64_t *width)
{
	unsigned int octave = i >> HIST_SUB_BITS, shift;

	if (!octave) {
		*lo = i;
		*width = 1;
		return;
	}
	shift = octave - 1;
	*lo = (uint64_t)((i & (SUB - 1)) + SUB) << shift;
	*width = 1ULL << shift;
}

/* The middle of bucket @i's range, in nanoseconds. */
static double hist_value(unsigned int i)
{
	uint64_t lo, width;

	hist_range(i, &lo, &width);
	return (double)lo + ((double)width - 1) / 2;
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

/* Whether bucket @i ends a group of @g (the last group may be short). */
static int hist_group_end(unsigned int i, unsigned int g)
{
	return i % g == g - 1 || i == HIST_BUCKETS - 1;
}

/* Non-empty groups of @g buckets. */
static unsigned int hist_groups(const struct hist *h, unsigned int g)
{
	unsigned int i, groups = 0, filled = 0;

	for (i = 0; i < HIST_BUCKETS; i++) {
		filled |= h->count[i] != 0;
		if (hist_group_end(i, g)) {
			groups += filled;
			filled = 0;
		}
	}
	return groups;
}

void hist_print_cdf(FILE *f, const struct hist *h, unsigned int max_pts)
{
	unsigned int g = SUB / 8, i, filled = 0, last = 0;
	uint64_t seen = 0, lo, width, edge;
	const char *sep = "";

	if (!h->n)
		return;
	while (g < HIST_BUCKETS && hist_groups(h, g) > max_pts)
		g *= 2;
	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += h->count[i];
		if (h->count[i]) {
			filled = 1;
			last = i;
		}
		if (!hist_group_end(i, g) || !filled)
			continue;
		filled = 0;
		/* Tighter than the group's edge: its last value's bucket's. */
		hist_range(last, &lo, &width);
		edge = lo + width - 1;
		if (edge > h->max_ns)
			edge = h->max_ns;
		fprintf(f, "%s%.4g:%.6g", sep, edge / 1e3,
			(double)seen / (double)h->n);
		sep = ",";
	}
}
