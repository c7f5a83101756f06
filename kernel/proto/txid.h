/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transaction ids (issue 13; HADES gap G4): a transaction is named by its
 * coordinator node, the node's incarnation, the slot it runs in there and
 * the slot's epoch, which grows each time the slot is reused, so that a
 * message about an older transaction (a late squash, Ack or Validation)
 * can never be taken for the slot's current one.  The incarnation
 * (@gen, random and never 0 for each load of the module) tells a
 * transaction of a coordinator that restarted from one of its new life:
 * the new one knows nothing of the old one's decisions and must not
 * answer for them (txfate.h).  Packed into a u64 for the wire: node in
 * bits 48-63, incarnation in 40-47, slot in 32-39, epoch in 0-31.  Epoch 0
 * is never used, so the id 0 names no transaction.
 */
#ifndef DDSM_PROTO_TXID_H
#define DDSM_PROTO_TXID_H

#include "../lib/shim.h"

struct ddsm_txid {
	u16 node;
	u8 gen;
	u8 slot;
	u32 epoch;
};

#define DDSM_TXID_SLOTS	256	/* slots an id can name */

static inline u64 ddsm_txid_pack(struct ddsm_txid t)
{
	return (u64)t.node << 48 | (u64)t.gen << 40 | (u64)t.slot << 32 |
	       t.epoch;
}

static inline struct ddsm_txid ddsm_txid_unpack(u64 v)
{
	struct ddsm_txid t = {
		.node = (u16)(v >> 48),
		.gen = (u8)(v >> 40),
		.slot = (u8)(v >> 32),
		.epoch = (u32)v,
	};

	return t;
}

static inline bool ddsm_txid_same(struct ddsm_txid a, struct ddsm_txid b)
{
	return a.node == b.node && a.gen == b.gen && a.slot == b.slot &&
	       a.epoch == b.epoch;
}

/* The slot's next epoch: never 0, so a zeroed id matches nothing. */
static inline u32 ddsm_txid_next_epoch(u32 epoch)
{
	return epoch + 1 ? epoch + 1 : 1;
}

#endif /* DDSM_PROTO_TXID_H */
