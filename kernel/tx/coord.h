/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside tx/: what the coordinator's files share (slots.c, owed.c,
 * read.c, readv.c, commit.c, coord.c).  Nothing outside tx/ includes it.
 * Each file calls only the ones listed before it here, and home.c calls
 * slots.c alone, so the wing has no circle of files (tools/layout-check.py).
 */
#ifndef DDSM_TX_COORD_H
#define DDSM_TX_COORD_H

#include <linux/jiffies.h>
#include "../node/node.h"
#include "tx.h"

static inline u64 txid_of(const struct ddsm_tx *t)
{
	return ddsm_txid_pack(t->c.id);
}

static inline u32 tx_self(struct ddsm_node *n)
{
	return n->space.node_id;
}

static inline long wait_ms(void)
{
	return msecs_to_jiffies(ddsm_fault_timeout_ms());
}

/* What every transaction message of @txid to @home names. */
static inline struct ddsm_msg tx_msg(struct ddsm_node *n, u8 type, u32 home,
				     u64 unit, u64 txid)
{
	return (struct ddsm_msg){
		.type = type,
		.src = (u16)tx_self(n),
		.dst = (u16)home,
		.requester = (u16)tx_self(n),
		.unit = unit,
		.copyset = txid,
	};
}

/* The part of an access [gaddr, +len) that falls in one unit. */
struct ddsm_txpart {
	u64 gaddr;		/* where it starts */
	u64 unit;
	u32 off;		/* in the unit */
	u32 len;
	u32 first, last;	/* lines of the unit it covers */
};

/*
 * The part of [@gaddr, +@len) at byte @done of it; the caller adds
 * p->len to @done for the next.
 */
static inline void part_at(u64 gaddr, u32 len, u32 done, struct ddsm_txpart *p)
{
	p->gaddr = gaddr + done;
	p->unit = ddsm_gaddr_unit(p->gaddr);
	p->off = p->gaddr & (DDSM_UNIT_SIZE - 1);
	p->len = min_t(u32, len - done, DDSM_UNIT_SIZE - p->off);
	p->first = p->off >> DDSM_LINE_SHIFT;
	p->last = (p->off + p->len - 1) >> DDSM_LINE_SHIFT;
}

/* slots.c */
void ddsm_tx_doom(struct ddsm_txs *ts, struct ddsm_tx *t, u8 reason);
/* A home's answer to the Intend; txs->lock held. */
void ddsm_tx_answered(struct ddsm_txs *ts, struct ddsm_tx *t, u32 home,
		      bool ack);
/* @data_len bytes of @data (an Intend's payload) go with it. */
int ddsm_tx_send(struct ddsm_node *n, struct ddsm_tx *t, u8 type, u32 home,
		 u64 unit, u16 lines, struct page *data, u32 data_len);

/* owed.c */
/* A Validation to @home deferred?  txs->lock held. */
bool ddsm_tx_owe(struct ddsm_txs *ts, u32 home, u64 txid, u64 unit);
/* Send alone what is owed to @home (U32_MAX: to every home). */
void ddsm_tx_pay_owed(struct ddsm_node *n, u32 home);
/* Up to @max Validations owed to @home (U32_MAX: any) handed to @fn. */
u32 ddsm_tx_drain_owed(struct ddsm_node *n, u32 home, u32 max,
		       void (*fn)(struct ddsm_node *n,
				  const struct ddsm_txowed *o, void *arg),
		       void *arg);

/* read.c */
/* Note that the transaction involves @unit's home; returns the home. */
u32 ddsm_tx_touch(struct ddsm_node *n, struct ddsm_tx *t, u64 unit);
/* One home read of lines [first, last] of @unit into t->reply. */
int ddsm_tx_read_once(struct ddsm_node *n, struct ddsm_tx *t, u64 unit,
		      u32 first, u32 last);
void ddsm_tx_note_fp(struct ddsm_tx *t, u64 unit, u32 first, u32 last);
int ddsm_tx_read_unit(struct ddsm_node *n, struct ddsm_tx *t, u64 unit,
		      u32 first, u32 last, bool *early);
int ddsm_tx_read_failed(struct ddsm_tx *t, int ret, u8 *reason);
int ddsm_tx_do_read(struct ddsm_node *n, struct ddsm_tx *t, u64 gaddr,
		    u8 *buf, u32 len, u64 *again, u8 *reason);

/* commit.c */
int ddsm_tx_do_commit(struct ddsm_node *n, struct ddsm_tx **tp, u8 *reason);
/* Abort: the homes forget it (their tombstones go too). */
void ddsm_tx_do_abort(struct ddsm_node *n, struct ddsm_tx **tp, u8 reason);
/* Commits whose callers gave up (detached): set up, stopped, freed. */
void ddsm_tx_commit_init(struct ddsm_txs *ts);
void ddsm_tx_commit_stop(struct ddsm_txs *ts);
void ddsm_tx_commit_free(struct ddsm_txs *ts);

/* coord.c */
/* A read or write of [@gaddr, +@len): inside one transactional region? */
int ddsm_tx_check_access(struct ddsm_node *n, u64 gaddr, u32 len,
			 bool write);
/* A doomed transaction: aborted now, @reason says why. */
bool ddsm_tx_ended(struct ddsm_node *n, struct ddsm_tx **tp, u32 *reason);

#endif /* DDSM_TX_COORD_H */
