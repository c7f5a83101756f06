/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HADES at a transaction's coordinator (issue 13; notes hades.md section
 * 2, "Commit at x"): which homes the transaction involves and where its
 * commit stands.  The coordinator sends Intend-to-commit to every home it
 * read or wrote at (a home where it only read must still be told: the
 * tombstone there, gap G3, is how a squash that raced with the commit is
 * noticed), collects one answer from each, and then:
 *  - every home ACKed: committed; it can no longer be squashed (each home
 *    holds its partial lock), and Validation with the updates goes to each;
 *  - a NACK, or a squash before the last ACK: aborted, and every involved
 *    home gets an Abort (which also clears the tombstones);
 *  - a home whose connection went down before it answered: nothing is
 *    decided; the Intend goes to it again once it is back (txfate.h: a
 *    commit is never aborted for a late answer, since every home may hold
 *    the lock already, which is the decision).
 * A squash after the last ACK cannot happen (a home that ACKed holds the
 * lock and dooms only running transactions) and is reported as a
 * protocol error.  After DDSM_TXC_SQUASH_LIMIT conflict aborts in a row
 * the caller runs the transaction the pessimistic way (the paper's
 * fallback).
 *
 * Pure code: the caller sends the messages the returned verdicts call for.
 */
#ifndef DDSM_PROTO_TXCOORD_H
#define DDSM_PROTO_TXCOORD_H

#include "../lib/shim.h"
#include "txid.h"

#define DDSM_TXC_SQUASH_LIMIT	8

enum ddsm_txc_state {
	DDSM_TXC_IDLE = 0,
	DDSM_TXC_RUNNING,	/* executing: reads at homes, writes buffered */
	DDSM_TXC_COMMITTING,	/* Intends sent, answers outstanding */
	DDSM_TXC_COMMITTED,	/* every home ACKed: send Validations */
	DDSM_TXC_ABORTED,	/* send Aborts to every involved home */
};

/* Why a transaction aborted. */
enum ddsm_txc_why {
	DDSM_TXC_OK = 0,
	DDSM_TXC_NACKED,	/* a home refused its Intend */
	DDSM_TXC_SQUASHED,	/* a committing writer squashed it */
	DDSM_TXC_USER,		/* the caller aborted */
	DDSM_TXC_LOST,		/* a home it read at went down before commit */
};

struct ddsm_txc {
	struct ddsm_txid id;
	u8 state;		/* enum ddsm_txc_state */
	u8 why;			/* enum ddsm_txc_why, once ABORTED */
	u64 involved;		/* homes read or written at */
	u64 pending;		/* homes whose answer to Intend is awaited */
	u64 resend;		/* ... whose connection went down since */
};

/*
 * A new transaction in slot @slot of @node in its incarnation @gen: the
 * slot's next epoch (@t holds the slot's last one).
 */
void ddsm_txc_begin(struct ddsm_txc *t, u16 node, u8 gen, u8 slot);
/* It read or wrote at @home. */
void ddsm_txc_touch(struct ddsm_txc *t, u32 home);
/*
 * Commit: the homes to send Intend-to-commit to (the involved ones), or
 * 0 when it touched none (it commits at once).  -EPROTO unless RUNNING.
 */
int ddsm_txc_commit(struct ddsm_txc *t, u64 *intend_to);
/*
 * @home answered the Intend: @ack true for an ACK, false for a NACK.
 * Returns the new state; COMMITTED or ABORTED tell the caller to send
 * Validations or Aborts to t->involved.  -EPROTO for an answer nobody
 * waits for (a stale epoch, a home not asked, a second answer).
 */
int ddsm_txc_answer(struct ddsm_txc *t, u64 txid, u32 home, bool ack);
/*
 * A home squashed @txid.  Returns ABORTED (send Aborts) when it applies,
 * the unchanged state when it is about an older epoch or an already
 * aborted transaction, -EPROTO after the last ACK.
 */
int ddsm_txc_squash(struct ddsm_txc *t, u64 txid);
/* The caller gives up; returns ABORTED (send Aborts) or -EPROTO. */
int ddsm_txc_abort(struct ddsm_txc *t);
/*
 * The connection to @home went down.  Returns ABORTED (send Aborts) for a
 * transaction still running that involves it (no Intend went out: it can
 * abort); while committing, an Intend @home has not answered is sent
 * again when it is back (ddsm_txc_back()); else the unchanged state.
 */
int ddsm_txc_lost(struct ddsm_txc *t, u32 home);
/* @home is back: send it the Intend again? */
bool ddsm_txc_back(struct ddsm_txc *t, u32 home);
/*
 * Run the next attempt pessimistically (locks in address order)?
 * @conflicts: conflict aborts in a row (squashed, NACKed, kept off a
 * locked line) that the caller counts where its attempts share a
 * footprint: per open file in ddsm.  A commit or the caller's own abort
 * ends the run.
 */
bool ddsm_txc_fallback(u32 conflicts);

#endif /* DDSM_PROTO_TXCOORD_H */
