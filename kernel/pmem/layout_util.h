/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside pmem/: the small helpers layout.c and log.c share to encode and
 * check what they put on the media.
 */
#ifndef DDSM_PMEM_LAYOUT_UTIL_H
#define DDSM_PMEM_LAYOUT_UTIL_H

#include "layout.h"

static inline u64 pm_round_up(u64 x, u64 align)
{
	return (x + align - 1) & ~(align - 1);
}

static inline bool pm_aligned(u64 x)
{
	return !(x & (DDSM_PM_BLOCK - 1));
}

/* Is [off, off + len) a byte range of one unit? */
static inline bool unit_range_ok(u32 off, u32 len)
{
	return off <= DDSM_PM_UNIT_SIZE && len <= DDSM_PM_UNIT_SIZE - off;
}

/*
 * CRC32C of @len bytes at @p in which the 4-byte CRC field at offset
 * @hole counts as zero.
 */
static inline u32 crc_with_hole(u32 crc, const void *p, size_t len, size_t hole)
{
	static const u8 zero[4];
	const u8 *b = p;

	crc = ddsm_crc32c(crc, b, hole);
	crc = ddsm_crc32c(crc, zero, sizeof(zero));
	return ddsm_crc32c(crc, b + hole + sizeof(zero),
			   len - hole - sizeof(zero));
}

#endif /* DDSM_PMEM_LAYOUT_UTIL_H */
