/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data of a HADES Intend-to-commit (issue 13): the writes a
 * transaction made at one home, travelling in the message's one data
 * page.  A home keeps the page until Validation applies it or an Abort
 * drops it, so the committed copy is never touched before the commit is
 * decided.
 *
 * Layout, little endian: a header (the participants: every home of the
 * transaction, so that survivors of a dead coordinator know whom to ask),
 * then records, each 8-byte aligned: the global address, the length, and
 * the bytes.  A transaction whose writes at one home do not fit in one
 * page cannot commit (-E2BIG): that is the cap, documented in
 * docs/transactions.md.
 *
 * Pure code: the page is a buffer of DDSM_TXP_SIZE bytes.
 */
#ifndef DDSM_PROTO_TXPACK_H
#define DDSM_PROTO_TXPACK_H

#include "../lib/shim.h"
#include "space.h"
#include "txhome.h"

#define DDSM_TXP_SIZE	DDSM_PROTO_UNIT_SIZE
#define DDSM_TXP_MAX_RECS	64

struct ddsm_txp_hdr {
	__le64 participants;
	__le32 nr;		/* records */
	__le32 used;		/* bytes of the page in use, header included */
};

struct ddsm_txp_rec {
	__le64 gaddr;
	__le32 len;
	__le32 reserved;
	/* then @len bytes, padded to 8 */
};

/* An empty payload for a transaction involving @participants. */
void ddsm_txp_init(void *page, u64 participants);
/* Append a write; -E2BIG when it does not fit (or too many records). */
int ddsm_txp_add(void *page, u64 gaddr, const void *data, u32 len);

/* One record, as ddsm_txp_next() walks them. */
struct ddsm_txp_it {
	u32 pos;
	u32 left;
	u64 gaddr;
	u32 len;
	const u8 *data;
};

/*
 * Check a received payload of @size bytes (the rest of the page is not
 * the sender's): every record inside them, not empty, inside @s, inside
 * one unit, and every unit homed on this node.  0, or -EINVAL.
 */
int ddsm_txp_check(const struct ddsm_space *s, const void *page, u32 size);
u64 ddsm_txp_participants(const void *page);
/* Bytes of the page in use, header included: what an Intend sends. */
u32 ddsm_txp_used(const void *page);
/* Start a walk; ddsm_txp_next() then fills @it until it returns false. */
void ddsm_txp_first(const void *page, struct ddsm_txp_it *it);
bool ddsm_txp_next(const void *page, struct ddsm_txp_it *it);

/*
 * The lines the payload writes, as at most @max sorted, merged ranges
 * for ddsm_txh_intend(): the number of ranges, or -E2BIG.
 */
int ddsm_txp_ranges(const void *page, struct ddsm_tx_range *r, u32 max);

#endif /* DDSM_PROTO_TXPACK_H */
