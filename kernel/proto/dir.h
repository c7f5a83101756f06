/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The home directory: FlowCC's lock-check-forward run in software at the
 * unit's home (Concordia-base).  One entry per unit homed here holds the
 * global state (U/S/M), the copyset, the owner, a reader/writer lock and a
 * FIFO of requests waiting for that lock.  Conflicting requests queue
 * instead of being NACKed; NACK is left for a full wait pool and for
 * requests that break the protocol.
 *
 * Requester-driven completion: the home grants and forwards, the
 * requester collects ACKs and sends UNLOCK.  Differences from the paper,
 * all because the lock and the memory live together here:
 *  - home serves U and S reads from its own frame (S copies are clean);
 *  - every grant includes one ACK from home that tells the requester how
 *    many ACKs to expect in all;
 *  - the new state and copyset are computed at home on UNLOCK;
 *  - M -> S waits for the old owner's WRITEBACK as well as the UNLOCK, so
 *    home memory is current before the next request is served;
 *  - evictions complete at home at once (no UNLOCK), under the FIFO.
 *
 * Migratory sharing (Stenstrom et al., ISCA'93): a unit that one node
 * reads from the last writer and then upgrades, while they are its only
 * two copies, is marked migratory; a READ_MISS for it in M is then served
 * as a write (FETCH_INV, grant with DDSM_MF_EXCL), so the read-then-write
 * that hands a lock word or a flag from node to node is one transfer, not
 * a read miss plus an upgrade.  The guess costs time, never coherence: an
 * exclusive copy handed on before its holder wrote it (DDSM_MF_CLEAN on
 * the next UNLOCK) unmarks the unit, and readers share it again.
 *
 * Hand-off: when home's own node owns the unit (M) and another node asks
 * for it, home's grant and home's cache's data travel to the requester on
 * the same ordered channel, so whatever home sends it next for the unit
 * arrives after both.  The event then ends at home as soon as home's
 * cache has sent the data (that cache sends the UNLOCK, DDSM_MF_HANDOFF),
 * not one message later when the requester's UNLOCK would arrive; the
 * requester, whose access may not have run yet, keeps a FETCH or
 * FETCH_INV that reaches it while its line is held and serves it when the
 * hold ends (cache.h).  A spin-waiting pair of nodes, one of them the
 * unit's home, hands the unit over in two one-way messages instead of
 * three.  Not for units with a persistency model (their writeback and
 * gate need the UNLOCK's ordering).
 *
 * Persistency (issue 12, docs/persistency.md): a unit whose model persists
 * every transfer (DDSM_DIR_P_WB: Read-Enforced, Synchronous, Strict) has
 * its owner write the data back to home on FETCH_INV too, so home memory,
 * and from it pmem, holds every version that leaves a node; the grant of
 * such a transfer waits for that writeback.  A unit whose
 * model lets nobody see a version before it is durable (DDSM_DIR_P_GATE:
 * Read-Enforced, Synchronous) gets its grants through
 * DDSM_ACT_SEND_DURABLE, and a grant that fetches from an owner waits for
 * the owner's writeback: the requester, which cannot use the unit before
 * home's grant, sees only versions already on pmem.  MINOS's rule that
 * reads wait for persistency, with home as the one place that persists.
 */
#ifndef DDSM_PROTO_DIR_H
#define DDSM_PROTO_DIR_H

#include "action.h"

struct ddsm_dir_entry {
	u64 copyset;	/* nodes holding a copy (S) or the owner (M) */
	u64 rlocks;	/* nodes holding the read lock */
	u32 wseq;	/* write-lock holder's event */
	u32 qhead;	/* waiting requests: pool index + 1, 0 = none */
	u32 qtail;
	u16 owner;	/* M: the owner */
	u16 wholder;	/* write-lock holder */
	u8 state;	/* enum ddsm_gstate */
	u8 wlocked;
	u8 wtype;	/* request type that holds the write lock */
	u8 wb_pending;	/* M -> S: old owner's WRITEBACK not in yet */
	u8 unlock_seen;	/* M -> S: requester's UNLOCK in, writeback not */
	u8 lost;	/* the only current copy died with its node: EIO */
	u8 unlock_ok;	/* the write-lock holder's UNLOCK reported success */
	u8 lost_from;	/* lost with this node + 1, which may bring it back */
	u8 migratory;	/* reads in M are granted exclusively */
	u8 persist;	/* DDSM_DIR_P_*: what the unit's model asks */
	u8 gdefer;	/* GATE: the grant waits for the owner's writeback */
	u8 gflags;	/* ... and carries these flags */
	u8 handoff;	/* the write-locked event is a hand-off */
};

#define DDSM_DIR_P_WB	0x01	/* transfers from an owner write back to home */
#define DDSM_DIR_P_GATE	0x02	/* grants wait until home's image is durable */

struct ddsm_dir_wait {
	struct ddsm_msg msg;
	u32 next;	/* pool index + 1, 0 = end */
};

struct ddsm_dir_stats {
	u64 granted;
	u64 queued;
	u64 nacked;
	u64 unlocks;
	u64 proto_errors;	/* messages that make no sense in the entry's state */
	u64 lost;		/* units whose only current copy died */
	u64 restored;		/* lost units a returning node brought back */
	u64 excl_reads;		/* READ_MISSes granted M (migratory) */
	u64 durable_grants;	/* grants sent once the unit was durable */
	u64 handoffs;		/* events home's own cache ended (hand-off) */
};

struct ddsm_dir {
	const struct ddsm_space *space;
	struct ddsm_dir_entry *entries;
	u64 nr_entries;
	struct ddsm_dir_wait *pool;
	u32 pool_size;
	u32 free;		/* free list: pool index + 1 */
	u32 pool_used;
	u64 dead;		/* nodes declared dead and not back yet */
	bool rejoin;		/* a node declared dead may return with its data */
	bool migrate;		/* migratory sharing (above); on after init */
	bool handoff;		/* hand-off (above); on after init */
	struct ddsm_dir_stats stats;
};

/*
 * @entries: ddsm_space_local_units(space) zeroed entries;
 * @pool: @pool_size wait slots (contents ignored).
 */
void ddsm_dir_init(struct ddsm_dir *d, const struct ddsm_space *space,
		   struct ddsm_dir_entry *entries, u64 nr_entries,
		   struct ddsm_dir_wait *pool, u32 pool_size);

/*
 * Handle one validated home-side message.  Returns 0, or -EPROTO when the
 * message made no sense in the entry's state (it was counted, answered if
 * a requester waits on it, and the entry was left consistent).
 */
int ddsm_dir_handle(struct ddsm_dir *d, const struct ddsm_msg *m,
		    struct ddsm_actions *acts);

/*
 * @node was declared dead: from now on it is never counted in an outcome.
 * Then, unit by unit (ddsm_dir_reclaim): release every lock it held, take
 * it out of every copyset, drop its queued requests, and mark units whose
 * only current copy it may have held as lost.  A lost unit refuses every
 * request with EIO; nodes that still hold a copy keep it, frozen, since
 * nobody can be granted a conflicting one.
 */
void ddsm_dir_node_dead(struct ddsm_dir *d, u32 node);
/* The per-unit part of the above, so callers bound the actions per call. */
void ddsm_dir_reclaim(struct ddsm_dir *d, u64 unit, u32 node,
		      struct ddsm_actions *acts);
/* @node is back (a new incarnation, or the same one after a false death). */
void ddsm_dir_node_up(struct ddsm_dir *d, u32 node);

/*
 * Rejoin (@d->rejoin): a node declared dead may have been alive all along
 * (frozen, partitioned) and still hold the only current copy of units it
 * owned.  Such a unit is lost with a note of that node: requests for it
 * are refused with EAGAIN (retry within your bound) instead of EIO, and
 * the node's dirty eviction of it (EVICT_MODIFIED, sent when it is back)
 * restores the data and the unit.  ddsm_dir_forget() closes the window
 * for one unit: from then on it is lost for good (EIO).
 */
void ddsm_dir_forget(struct ddsm_dir *d, u64 unit, u32 node);

/*
 * Backup homes: a unit just taken over is held until every node handed
 * over its dirty copy (docs/persistency.md): requests for it are refused
 * with EAGAIN, and a dirty eviction from any node restores it (the only
 * current copy: the dead home granted one owner at most).  Release lets
 * the unit be served from home memory (the replica image).
 */
void ddsm_dir_hold(struct ddsm_dir *d, u64 unit);
void ddsm_dir_release_hold(struct ddsm_dir *d, u64 unit);

/*
 * What @unit's persistency model asks of the directory (DDSM_DIR_P_*).
 * Set before the unit is first granted; 0 (the default) is today's
 * protocol.
 */
void ddsm_dir_set_persist(struct ddsm_dir *d, u64 unit, u8 flags);

/* The entry of a unit homed here, or NULL. */
const struct ddsm_dir_entry *ddsm_dir_entry(const struct ddsm_dir *d,
					    u64 unit);

#endif /* DDSM_PROTO_DIR_H */
