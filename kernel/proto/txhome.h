/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HADES at a home (issue 13; notes hades.md sections 2, 3 and 8): the
 * transactions that read or wrote lines homed here, and the partial
 * directory lock of those committing.  Run by the home for every
 * transaction, its own node's included (ddsm detects every conflict at
 * commit, the paper's lazy rule for conflicts that involve a remote
 * access; its eager local-local check is an optimisation left out).
 *
 * A transaction's reads come here (they are never served from a cached
 * copy) and go into its read filter; its writes stay with its coordinator
 * until commit.  At commit the coordinator sends Intend-to-commit to every
 * home it read or wrote at, with the lines it wrote there:
 *  - the home takes the partial lock: the written lines are probed against
 *    every locked transaction's read and write filters, and a hit squashes
 *    the committer (a NACK): it never waits, so there is no deadlock;
 *  - the written lines, all of them (gap G1: blind writes too), go into the
 *    committer's write filter, which the lock tests from now on;
 *  - every other running transaction whose filters hold a written line is
 *    doomed: its coordinator gets a squash, and the entry stays as a
 *    tombstone, so that its own Intend, maybe already on its way, gets a
 *    NACK (gap G3);
 *  - the home ACKs.
 * While the lock is held, a read of a line in its write set, and a commit
 * that writes a line in its read or write set, are refused.  Validation
 * (the updates applied by the caller) or an abort releases it.
 *
 * Ids carry an epoch (gap G4, txid.h): a message about an older
 * transaction of a slot never matches the slot's current one.
 *
 * Pure code: no locking (the caller serialises), no allocation (the
 * table is the caller's), no data (the caller copies it).
 */
#ifndef DDSM_PROTO_TXHOME_H
#define DDSM_PROTO_TXHOME_H

#include "bloom.h"
#include "txid.h"

enum ddsm_txh_state {
	DDSM_TXH_FREE = 0,
	DDSM_TXH_ACTIVE,	/* reading here, not committing */
	DDSM_TXH_LOCKED,	/* holds the partial lock: Acked */
	DDSM_TXH_DOOMED,	/* squashed: a tombstone until its abort */
};

/* A run of written lines, [first, last]. */
struct ddsm_tx_range {
	u64 first;
	u64 last;
};

#define DDSM_TXH_RANGES	16	/* written ranges a committer may hold here */
#define DDSM_TXH_PINS	8	/* pinned ranges a fallback transaction may hold */
/* Lines one read or one Intend may name: 256 KiB, bounding the probes. */
#define DDSM_TXH_MAX_LINES	4096

struct ddsm_txh_entry {
	u64 txid;		/* ddsm_txid_pack() */
	u8 state;		/* enum ddsm_txh_state */
	u8 nr_ranges;
	struct ddsm_bf rd;
	struct ddsm_bf wr;
	/* LOCKED: the exact written lines, so the lock is exact for them. */
	struct ddsm_tx_range ranges[DDSM_TXH_RANGES];
	/*
	 * The pessimistic fallback's lines (ddsm_txh_pin): nobody else reads
	 * or writes them until it ends, so it cannot be squashed on them.
	 */
	u8 nr_pins;
	struct ddsm_tx_range pins[DDSM_TXH_PINS];
};

struct ddsm_txh_stats {
	u64 reads;
	u64 reads_denied;	/* a locked writer holds a line: retry */
	u64 intends;
	u64 intends_nacked;	/* lock refused, or already doomed */
	u64 dooms;		/* running transactions squashed by a commit */
	u64 validations;
	u64 aborts;
	u64 full;		/* no free entry */
	u64 pins;		/* lines pinned by fallback transactions */
	u64 pins_denied;	/* ... refused: held by another, retry */
};

/*
 * What a home remembers of the transactions of one coordinator slot that
 * it decided: the newest epoch it saw decided (Validation, Abort or a
 * verdict), and which of the 64 epochs up to that one were validated;
 * the same for the incarnation before, so that a coordinator's restart
 * does not make its old commits unknown here at once.  A participant
 * that holds a commit in doubt asks the others what became of it
 * (txfate.h), and an entry freed at Validation must still answer.
 */
struct ddsm_txh_hist {
	u32 top;
	u64 validated;		/* bit i: epoch top - i was validated here */
	u8 gen;			/* the incarnation top and validated are of */
	u8 pgen;		/* the one before, and its history: */
	u32 ptop;
	u64 pvalidated;
};

/* A participant's answer to "what became of @txid here?" */
enum ddsm_txh_outcome {
	DDSM_TXH_O_NONE = 0,	/* not a participant (a coordinator's answer only) */
	DDSM_TXH_O_VALIDATED,	/* applied here: the commit happened */
	DDSM_TXH_O_LOCKED,	/* holds the lock, its coordinator up here */
	DDSM_TXH_O_IN_DOUBT,	/* holds the lock, its coordinator down here */
	DDSM_TXH_O_NOT,		/* never validated here, and now never will */
	DDSM_TXH_O_UNKNOWN,	/* cannot tell (no room, too old): ask again */
	DDSM_TXH_O_NR,
};

struct ddsm_txh {
	struct ddsm_txh_entry *e;
	u32 nr;
	struct ddsm_txh_hist *hist;	/* [node * hist_slots + slot] */
	u32 hist_nodes;
	u32 hist_slots;
	struct ddsm_txh_stats stats;
};

void ddsm_txh_init(struct ddsm_txh *h, struct ddsm_txh_entry *entries,
		   u32 nr);

/*
 * Transaction @txid reads lines [@first, @last] here.  0: read the
 * committed data now (the caller copies it under the same serialisation);
 * -EAGAIN: a committing transaction wrote one of them, retry; -ESTALE:
 * @txid was squashed here, abort it; -ENOSPC: no free entry (abort);
 * -E2BIG: more than DDSM_TXH_MAX_LINES lines.
 */
int ddsm_txh_read(struct ddsm_txh *h, u64 txid, u64 first, u64 last);

/*
 * The pessimistic fallback (after DDSM_TXC_SQUASH_LIMIT squashes, the
 * paper's "lock all of its data first"): @txid reads lines [@first,
 * @last] and pins them.  Until it ends, another transaction's read of a
 * pinned line is refused (-EAGAIN, retried) and so is its Intend to write
 * one (NACK), so @txid cannot be squashed on them; its own Intend ignores
 * the others' read filters on its pinned lines (nobody can have read them
 * since), so a filter's false positive cannot squash it either.  0: read
 * the data now; -EAGAIN: another transaction pinned one of them, or a
 * committing one holds one (in its writes or its read filter): retry;
 * -E2BIG: no room for another pinned range (read it without the pin);
 * else as ddsm_txh_read().  A coordinator pins in address order, so two
 * fallback transactions never wait for each other in a cycle.
 */
int ddsm_txh_pin(struct ddsm_txh *h, u64 txid, u64 first, u64 last);

/*
 * Intend-to-commit of @txid with the @nr ranges it wrote here (maybe
 * none: it only read here).  0: ACK, and the running transactions it
 * dooms are in @doomed (their txids, at most @max; *@nr_doomed says how
 * many, and more than @max were doomed only if it exceeds @max, which the
 * caller must treat as a bug).  An Intend sent again after a connection
 * went down (txfate.h) is answered from what the home holds: 0 again if
 * it holds the lock, -EALREADY (an ACK, nothing to keep) if the commit was
 * applied here meanwhile, -ESTALE if it was decided otherwise.
 * -EBUSY: the partial lock is refused (NACK, squash the committer);
 * -ESTALE: @txid was squashed here already (NACK); -E2BIG: more ranges
 * than an entry holds, or more than DDSM_TXH_MAX_LINES lines (NACK);
 * -ENOSPC.
 */
int ddsm_txh_intend(struct ddsm_txh *h, u64 txid,
		    const struct ddsm_tx_range *w, u32 nr,
		    u64 *doomed, u32 max, u32 *nr_doomed);

/*
 * Validation: @txid's updates may now be applied (by the caller, before
 * anything else runs here), and its lock is released.  -EALREADY when it
 * was applied here already (a verdict came first: apply nothing);
 * -EPROTO unless @txid holds the lock.
 */
int ddsm_txh_validate(struct ddsm_txh *h, u64 txid);

/* Abort: forget @txid (running, locked or a tombstone); 0 or -ENOENT. */
int ddsm_txh_abort(struct ddsm_txh *h, u64 txid);

/*
 * Give the home a decided-transaction history (zeroed by the caller,
 * @nodes x @slots entries); without one, ddsm_txh_outcome() knows only
 * the transactions it still holds.
 */
void ddsm_txh_set_hist(struct ddsm_txh *h, struct ddsm_txh_hist *hist,
		       u32 nodes, u32 slots);

/*
 * Another participant asks what became of @txid here; @coord_down says
 * whether its coordinator is down at this node.  A transaction this home
 * has not validated and still could (running, or its Intend not here
 * yet) is doomed first, so that a late Intend is NACKed and the answer
 * NOT stays true, even if its coordinator comes back; if no entry is free
 * for that tombstone the answer is UNKNOWN (ask again).
 */
enum ddsm_txh_outcome ddsm_txh_outcome(struct ddsm_txh *h, u64 txid,
				       bool coord_down);

/*
 * The verdict on a commit held in doubt (txfate.h decides it): wait, roll
 * forward (apply it) or roll back.
 */
enum ddsm_txh_verdict {
	DDSM_TXH_V_WAIT = 0,
	DDSM_TXH_V_FORWARD,
	DDSM_TXH_V_BACK,
};

/*
 * A verdict reached for @txid, locked here: its lock is released and the
 * history notes it (@forward: the caller applies its writes).  -EPROTO
 * unless @txid holds the lock.
 */
int ddsm_txh_decide(struct ddsm_txh *h, u64 txid, bool forward);

/* The entry of @txid, or NULL. */
const struct ddsm_txh_entry *ddsm_txh_find(const struct ddsm_txh *h,
					   u64 txid);

#endif /* DDSM_PROTO_TXHOME_H */
