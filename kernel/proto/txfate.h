/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What becomes of a commit when something fails in the middle of it
 * (issue 15, docs/transactions.md "The commit rule").
 *
 * The decision is that every participant holds the lock.  A coordinator
 * takes the lock at its own node first (when it is a participant) and
 * sends Intend-to-commit to the others only then; it commits once every
 * participant ACKed, and aborts only when one refused (a NACK, or a squash
 * from a home that will refuse), never because an answer is late or a
 * connection went down: it then waits for the connection and sends the
 * Intend again, which a home answers from what it holds or remembers.  So
 * "every participant holds the lock" happens if and only if the commit
 * does, and it is stable: a lock is given up only by its Validation, its
 * Abort (sent only after a refusal) or a verdict below.
 *
 * A home that holds a commit and lost its coordinator (a connection down,
 * the node paused, dead or restarted) never rolls it back on its own.  It
 * asks the coordinator's node and every other participant, again while
 * answers are missing, and decides:
 *  - forward if a participant applied it or the coordinator committed it,
 *    or if every participant besides itself and the coordinator's node
 *    holds the lock (the coordinator's own part was locked before any
 *    Intend left it, and stays so until a decision);
 *  - back if a participant will never hold it (it refused, aborted it,
 *    or was asked before the Intend came and now refuses it: a tombstone)
 *    or the coordinator aborted it;
 *  - else it waits: nothing is decided by a timeout.
 *
 * The coordinator remembers its decisions per slot (struct ddsm_txmem)
 * so that it can answer for a commit whose Validation was lost with a
 * connection.  A coordinator that restarted answers nothing for its old
 * life (txid.h, the incarnation).
 *
 * Pure code: the caller serialises, sends and applies.
 */
#ifndef DDSM_PROTO_TXFATE_H
#define DDSM_PROTO_TXFATE_H

#include "txhome.h"

/* A coordinator's answer about one of its transactions. */
enum ddsm_txf_coord {
	DDSM_TXF_C_NONE = 0,	/* not the coordinator, or it does not know */
	DDSM_TXF_C_COMMITTED,	/* every participant ACKed */
	DDSM_TXF_C_ABORTED,	/* a participant refused, or it never committed */
	DDSM_TXF_C_RUNNING,	/* undecided: ask again */
	DDSM_TXF_C_NR,
};

/*
 * The decisions of one slot: bit i of @decided is epoch @top - i, decided
 * (and @committed when it committed).  An epoch the coordinator gave up
 * waiting for (its caller was told "in doubt") is not decided until its
 * homes' answers come.
 */
struct ddsm_txmem {
	u32 top;
	u64 decided;
	u64 committed;
};

#define DDSM_TXMEM_SPAN	64	/* epochs a slot remembers */

void ddsm_txmem_note(struct ddsm_txmem *m, u32 epoch, bool committed);

/*
 * The coordinator's answer about epoch @epoch of a slot whose memory is
 * @m.  @running: the epoch the slot runs now and has not decided (0: none).
 */
enum ddsm_txf_coord ddsm_txmem_answer(const struct ddsm_txmem *m, u32 epoch,
				      u32 running);

/* A home's doubt about a commit it holds locked. */
struct ddsm_txdoubt {
	u64 need;	/* participants whose lock makes "every one holds it" */
	u64 locked;	/* ... that answered they hold it */
	u64 ask;	/* nodes asked each round: participants and coordinator */
	u8 verdict;	/* enum ddsm_txh_verdict */
};

/*
 * Begin doubting a commit of @participants (the nodes of its Intend),
 * held here at @self, whose coordinator is node @coord.
 */
void ddsm_txd_start(struct ddsm_txdoubt *d, u64 participants, u32 self,
		    u32 coord);

/*
 * Node @from answered: @home, its part (enum ddsm_txh_outcome), and
 * @coord, the coordinator's answer when @from is the coordinator's node
 * (enum ddsm_txf_coord).  Returns the verdict so far.  An answer that
 * says nothing (unknown, running) changes nothing; a node not asked is
 * ignored.
 */
enum ddsm_txh_verdict ddsm_txd_take(struct ddsm_txdoubt *d, u32 from,
				    u8 home, u8 coord);

static inline enum ddsm_txh_verdict
ddsm_txd_verdict(const struct ddsm_txdoubt *d)
{
	return (enum ddsm_txh_verdict)d->verdict;
}

/* The nodes to ask again: every one asked whose lock is still unknown. */
static inline u64 ddsm_txd_to_ask(const struct ddsm_txdoubt *d)
{
	return d->verdict == DDSM_TXH_V_WAIT ? d->ask & ~d->locked : 0;
}

/*
 * Pack a TX_OUTCOME's answer (its msg.h @acks) and unpack it: the home's
 * part in the low byte, the coordinator's in the high one.
 */
static inline u16 ddsm_txf_pack(u8 home, u8 coord)
{
	return (u16)(home | coord << 8);
}

static inline bool ddsm_txf_valid(u16 acks)
{
	return (acks & 0xff) < DDSM_TXH_O_NR && (acks >> 8) < DDSM_TXF_C_NR &&
	       acks;
}

#endif /* DDSM_PROTO_TXFATE_H */
