/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the explorers share to remember the states they have seen: a hash
 * of a state's bytes and an open-addressing set of those hashes (a table
 * of 2^k u64 slots, 0 meaning free, so a hash is never 0).  Two states
 * with one hash are taken for one; at 2^24 slots and a few million states
 * that is unlikely, not impossible (docs/model-checker.md).
 */
#ifndef DDSM_MODEL_HASHSET_H
#define DDSM_MODEL_HASHSET_H

#include <string.h>

/* Mix @len bytes at @p into @x, eight at a time where it can. */
static inline u64 model_mix(u64 x, const void *p, size_t len)
{
	const u8 *b = p;
	u64 v;

	for (; len >= 8; len -= 8, b += 8) {
		memcpy(&v, b, 8);
		x = (x ^ v) * 0x9E3779B97F4A7C15ULL;
		x ^= x >> 29;
	}
	for (; len; len--, b++)
		x = (x ^ *b) * 0x100000001b3ULL;
	return x;
}

/* Is @hv (not 0) in @set of @mask + 1 slots?  If not, put it there (@add). */
static inline bool model_in_set(u64 *set, u64 mask, u64 hv, bool add)
{
	u64 i = hv & mask;

	while (set[i]) {
		if (set[i] == hv)
			return true;
		i = (i + 1) & mask;
	}
	if (add)
		set[i] = hv;
	return false;
}

#endif
