// SPDX-License-Identifier: GPL-2.0
#include "bloom.h"
#include "../lib/crc32c.h"

static u32 line_crc(u64 line)
{
	__le64 v = cpu_to_le64(line);

	return ddsm_crc32c(0, &v, sizeof(v));
}

static void set_bit64(u64 *w, u32 bit)
{
	w[bit / 64] |= 1ULL << (bit % 64);
}

static bool test_bit64(const u64 *w, u32 bit)
{
	return w[bit / 64] & (1ULL << (bit % 64));
}

/* The two bit positions of @line in a 1024-bit filter. */
static void bf_bits(u64 line, u32 *b1, u32 *b2)
{
	u32 h = line_crc(line);

	*b1 = h % DDSM_BF_BITS;
	*b2 = (h >> 16) % DDSM_BF_BITS;
}

void ddsm_bf_clear(struct ddsm_bf *f)
{
	memset(f, 0, sizeof(*f));
}

void ddsm_bf_add(struct ddsm_bf *f, u64 line)
{
	u32 b1, b2;

	bf_bits(line, &b1, &b2);
	set_bit64(f->w, b1);
	set_bit64(f->w, b2);
}

bool ddsm_bf_test(const struct ddsm_bf *f, u64 line)
{
	u32 b1, b2;

	bf_bits(line, &b1, &b2);
	return test_bit64(f->w, b1) && test_bit64(f->w, b2);
}

void ddsm_bf_add_range(struct ddsm_bf *f, u64 first, u64 last)
{
	u64 line;

	for (line = first; line <= last && line >= first; line++)
		ddsm_bf_add(f, line);
}

bool ddsm_bf_empty(const struct ddsm_bf *f)
{
	u32 i;

	for (i = 0; i < DDSM_BF_BITS / 64; i++)
		if (f->w[i])
			return false;
	return true;
}

u32 ddsm_bf_weight(const struct ddsm_bf *f)
{
	u32 i, n = 0;

	for (i = 0; i < DDSM_BF_BITS / 64; i++)
		n += hweight64(f->w[i]);
	return n;
}

void ddsm_bf_wr_clear(struct ddsm_bf_wr *f)
{
	memset(f, 0, sizeof(*f));
}

void ddsm_bf_wr_add(struct ddsm_bf_wr *f, u64 line)
{
	set_bit64(f->crc, line_crc(line) % DDSM_BF_WR1_BITS);
	set_bit64(f->idx, line % DDSM_BF_WR2_BITS);
}

bool ddsm_bf_wr_test(const struct ddsm_bf_wr *f, u64 line)
{
	return test_bit64(f->idx, line % DDSM_BF_WR2_BITS) &&
	       test_bit64(f->crc, line_crc(line) % DDSM_BF_WR1_BITS);
}

u32 ddsm_bf_wr_next(const struct ddsm_bf_wr *f, u32 from)
{
	u32 bit;

	for (bit = from; bit < DDSM_BF_WR2_BITS; bit++) {
		u64 word = f->idx[bit / 64] >> (bit % 64);

		if (word)
			return bit + (u32)__builtin_ctzll(word);
		bit |= 63;	/* the rest of this word is clear */
	}
	return DDSM_BF_WR2_BITS;
}
