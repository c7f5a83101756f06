/* SPDX-License-Identifier: GPL-2.0 */
/*
 * READV's reads at one home in one request and one answer (TX_READ_MANY,
 * TX_READ_MANY_REPLY): the data of both messages.  A home serves the
 * entries in order, each as it serves a TX_READ (tx/home.c), so a
 * batch is the same as its reads arriving one after the other: nothing
 * in the protocol changes, only the number of messages.
 *
 * Request, little endian: a header (the number of entries and of
 * Validations), then per entry a unit and its first and last line, then
 * the ids of the transactions whose Validation rides along: the
 * coordinator's earlier commits at this home, sent with its next request
 * instead of alone.  The home applies them first, in order, as if their
 * TX_VALIDATEs had arrived just before, so a batch is still the messages
 * it replaces arriving back to back.  Answer: a header (the
 * number of entries and each one's errno, 0 or positive), then the lines
 * of every entry that succeeded, in order, packed.  The lines of all the
 * entries together must fit in the answer's page (DDSM_TXB_MAX_LINES);
 * the coordinator splits its reads so.
 *
 * Pure code: the pages are buffers of DDSM_TXB_SIZE bytes.
 */
#ifndef DDSM_PROTO_TXBATCH_H
#define DDSM_PROTO_TXBATCH_H

#include "../lib/shim.h"
#include "space.h"
#include "txid.h"

#define DDSM_TXB_SIZE		DDSM_PROTO_UNIT_SIZE
#define DDSM_TXB_MAX		16	/* entries, DDSM_TX_READV_MAX */
#define DDSM_TXB_MAX_VAL	32	/* Validations riding along */
#define DDSM_TXB_LINE		64

struct ddsm_txb_req_hdr {
	u8 nr;
	u8 nval;
	u8 reserved[6];
};

struct ddsm_txb_entry {
	__le64 unit;
	u8 first, last;
	u8 reserved[6];
};

/* One line's worth, so that the lines after it stay line-aligned. */
struct ddsm_txb_ans_hdr {
	u8 nr;
	u8 err[DDSM_TXB_MAX];
	u8 reserved[DDSM_TXB_LINE - 1 - DDSM_TXB_MAX];
};

/* Lines every answer can carry: a page less its header. */
#define DDSM_TXB_MAX_LINES \
	((DDSM_TXB_SIZE - sizeof(struct ddsm_txb_ans_hdr)) / DDSM_TXB_LINE)

/* One read of a batch. */
struct ddsm_txb_read {
	u64 unit;
	u32 first, last;
};

/* The request's bytes for @nr entries and @nval Validations. */
static inline u32 ddsm_txb_req_len(u32 nr, u32 nval)
{
	return sizeof(struct ddsm_txb_req_hdr) +
	       nr * sizeof(struct ddsm_txb_entry) + nval * sizeof(__le64);
}

/*
 * Coordinator: the request for @nr reads (1..DDSM_TXB_MAX) with the
 * Validations of @val (0..DDSM_TXB_MAX_VAL): its length.
 */
u32 ddsm_txb_req_build(void *page, const struct ddsm_txb_read *r, u32 nr,
		       const u64 *val, u32 nval);

/*
 * Home: check a request of @len bytes: 1..DDSM_TXB_MAX entries and
 * 0..DDSM_TXB_MAX_VAL Validations, exactly @len bytes, lines inside
 * their unit, every unit inside @s and homed on this node, their lines
 * together within DDSM_TXB_MAX_LINES.  The number of entries, or
 * -EINVAL.
 */
int ddsm_txb_req_check(const struct ddsm_space *s, const void *page,
		       u32 len);
/* Entry @i of a checked request. */
void ddsm_txb_req_entry(const void *page, u32 i, struct ddsm_txb_read *r);
/*
 * Home: the number of Validations a request of @len bytes carries, or
 * -EINVAL unless its counts and length agree.  A request whose reads
 * ddsm_txb_req_check() refuses may still carry well-formed Validations:
 * they are decisions already taken, and a home that dropped them would
 * keep their lines locked.
 */
int ddsm_txb_req_nval(const void *page, u32 len);
/* The @i-th Validation's transaction id (i below the number above). */
u64 ddsm_txb_req_val(const void *page, u32 i);
/*
 * Of the @nr Validations @val that node @src's request carried, keep, in
 * order, only those of @src's own transactions (a standalone Validation
 * is checked so by msg.c): any peer could otherwise release another
 * coordinator's lock.  Returns how many were kept.
 */
u32 ddsm_txb_own_vals(u64 *val, u32 nr, u32 src);

/* Home: an answer to @nr entries, their lines from ddsm_txb_ans_len(0). */
void ddsm_txb_ans_init(void *page, u32 nr);
/* Entry @i's outcome: 0, or a negative errno (its lines are not sent). */
void ddsm_txb_ans_set(void *page, u32 i, int err);

/* Bytes of an answer carrying @lines lines. */
static inline u32 ddsm_txb_ans_len(u32 lines)
{
	return sizeof(struct ddsm_txb_ans_hdr) + lines * DDSM_TXB_LINE;
}

/*
 * Coordinator: check an answer of @len bytes to the @nr reads @r asked:
 * as many entries, and exactly the lines of those that succeeded.  Fills
 * @err[i] (0 or a negative errno) and, for an entry that succeeded,
 * @off[i], where its lines start.  0, or -EPROTO.
 */
int ddsm_txb_ans_check(const void *page, u32 len,
		       const struct ddsm_txb_read *r, u32 nr, int *err,
		       u32 *off);

#endif /* DDSM_PROTO_TXBATCH_H */
