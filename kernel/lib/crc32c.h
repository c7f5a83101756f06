/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CRC32C (Castagnoli): reflected polynomial 0x82F63B78, initial value ~0,
 * final xor ~0, the checksum iSCSI, ext4 and btrfs use.  Pure C with one
 * 256-entry table, so that the same source builds in the kernel, in the
 * KUnit UML kernel and in user space (see shim.h).
 *
 * Chaining: pass 0 to start, and the previous result to continue, so
 *   ddsm_crc32c(ddsm_crc32c(0, a, la), b, lb) == crc32c of a followed by b
 * and ddsm_crc32c(0, "123456789", 9) == 0xE3069283 (the standard check
 * value).  This differs from the kernel library's crc32c(), which takes and
 * returns the raw register (no initial or final inversion).
 */
#ifndef DDSM_LIB_CRC32C_H
#define DDSM_LIB_CRC32C_H

#include "shim.h"

#define DDSM_CRC32C_POLY	0x82F63B78U	/* reflected Castagnoli */
#define DDSM_CRC32C_CHECK	0xE3069283U	/* of the 9 bytes "123456789" */

/* table[i] = the CRC register after shifting byte i through it. */
extern const u32 ddsm_crc32c_table[256];

u32 ddsm_crc32c(u32 crc, const void *p, size_t len);

#endif /* DDSM_LIB_CRC32C_H */
