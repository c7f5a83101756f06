/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HADES's Bloom filters (issue 13, ../shared notes hades.md section 3),
 * over 64-byte line numbers (global address >> 6), with the paper's sizes:
 *
 *  - a read filter of 1024 bits, also the size of each remote read and
 *    write filter (the NIC's): two hash functions, the low and the high
 *    half of the line's CRC32C (the paper does not give k; its Table IV
 *    fits k = 2);
 *  - a write filter in two sections tested together: 512 bits indexed by
 *    the line's CRC32C (WrBF1) and 4096 bits indexed by the line number
 *    itself, modulo 4096 (WrBF2, the paper's "LLC set index"), which also
 *    lets a committer find its own lines by scanning the set bits.
 *
 * Filters are cleared whole (at commit or squash), never per element; a
 * false positive is a conflict like a true one (a spurious squash or lock
 * denial), so a test of a line inserted is never false and a test of a
 * line not inserted is false only with the filter's false-positive rate,
 * which KUnit measures (tests/kunit/bloom_test.c).
 */
#ifndef DDSM_PROTO_BLOOM_H
#define DDSM_PROTO_BLOOM_H

#include "../lib/shim.h"

#define DDSM_BF_BITS		1024
#define DDSM_BF_WR1_BITS	512
#define DDSM_BF_WR2_BITS	4096
#define DDSM_LINE_SHIFT		6	/* 64-byte lines */

/* Read filters, and the remote filters a home keeps per transaction. */
struct ddsm_bf {
	u64 w[DDSM_BF_BITS / 64];
};

/* The core write filter: both sections must hit. */
struct ddsm_bf_wr {
	u64 crc[DDSM_BF_WR1_BITS / 64];
	u64 idx[DDSM_BF_WR2_BITS / 64];
};

static inline u64 ddsm_line_of(u64 gaddr)
{
	return gaddr >> DDSM_LINE_SHIFT;
}

void ddsm_bf_clear(struct ddsm_bf *f);
void ddsm_bf_add(struct ddsm_bf *f, u64 line);
bool ddsm_bf_test(const struct ddsm_bf *f, u64 line);
/* Every line of [@first, @last] (a range read or written as one). */
void ddsm_bf_add_range(struct ddsm_bf *f, u64 first, u64 last);
bool ddsm_bf_empty(const struct ddsm_bf *f);

void ddsm_bf_wr_clear(struct ddsm_bf_wr *f);
void ddsm_bf_wr_add(struct ddsm_bf_wr *f, u64 line);
bool ddsm_bf_wr_test(const struct ddsm_bf_wr *f, u64 line);

/*
 * The lines of WrBF2 that may hold @f's writes, in order: the next set
 * bit at or after @from, or DDSM_BF_WR2_BITS.  A line @line was written
 * only if its bit (line % DDSM_BF_WR2_BITS) is set.
 */
u32 ddsm_bf_wr_next(const struct ddsm_bf_wr *f, u32 from);

/* Bits set, for reports and for the occupancy a test expects. */
u32 ddsm_bf_weight(const struct ddsm_bf *f);

#endif /* DDSM_PROTO_BLOOM_H */
