/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The requester side: what this node holds of each unit, and the event it
 * has in flight.  Stable states I, S, M; transient states name what the
 * line still waits for (D = data, A = ACKs), as in the textbook MSI
 * controllers:
 *   IS_D   read miss sent, waiting for data
 *   IM_AD  write miss sent (or an upgrade lost its copy), data and ACKs
 *   SM_AD  upgrade sent, ACKs (the copy is still valid and readable)
 *   SI_A   clean eviction sent, waiting for EVICT_ACK
 *   MI_A   dirty eviction sent, waiting for EVICT_ACK; the frame stays
 *          until then because a FETCH may still pick this node to supply
 *   MO     orphan: a dirty copy (M or MI_A) whose home went away while
 *          @keep_orphans; unmapped and kept, because a home that comes
 *          back (a false death) has it marked lost and waits for it
 * Every transient state accepts INV/FETCH, so a forwarded request never
 * waits behind a local fault.
 *
 * Forward progress: a miss or upgrade that completes leaves the line held
 * (@hold): the UNLOCK that lets home serve the next request for the unit
 * waits until the access that asked for it has been performed
 * (ddsm_cache_release, from the fault path or, for an access that never
 * comes back, a timer).  Without it, a faulting thread woken after the
 * grant can lose the unit to the next forwarded FETCH_INV before it runs,
 * every time, while the receive path outruns it.
 *
 * A hand-off (dir.h) has no UNLOCK to defer: home moves on as soon as its
 * own cache has sent the data, and a FETCH or FETCH_INV for the unit may
 * reach this node while the line is still held.  It is kept in the line
 * (@dtype) and served once the hold ends: ddsm_cache_release sends the
 * node a DDSM_MSG_RUN_DEFERRED, so that the request runs on the receive
 * path after all, behind the access grace like any other.
 */
#ifndef DDSM_PROTO_CACHE_H
#define DDSM_PROTO_CACHE_H

#include "action.h"

enum ddsm_cstate {
	DDSM_C_I = 0,
	DDSM_C_S,
	DDSM_C_M,
	DDSM_C_IS_D,
	DDSM_C_IM_AD,
	DDSM_C_SM_AD,
	DDSM_C_SI_A,
	DDSM_C_MI_A,
	DDSM_C_MO,
	DDSM_C_NR,
};

struct ddsm_cline {
	u64 expect;	/* nodes home said will ACK, besides home itself */
	u64 acked;	/* nodes whose ACK arrived, home's grant excluded */
	u32 seq;	/* this node's current or last event on the unit, never 0 */
	u32 gen;	/* bumped each time this node loses a right to the unit */
	u16 acks_need;	/* 0 until the first ACK says */
	u16 acks_got;
	u8 state;	/* enum ddsm_cstate */
	u8 have_data;
	u8 err;		/* positive errno if the last event failed */
	u8 granted;	/* home's own ACK arrived */
	u8 hold;	/* done, UNLOCK deferred until the access is performed */
	/* IS_D granted M (migratory), or M so granted and not yet written */
	u8 excl_clean;
	u8 got_clean;	/* this event's data came from such a copy */
	u8 handoff;	/* home's grant said DDSM_MF_HANDOFF: no UNLOCK */
	/*
	 * A FETCH or FETCH_INV that arrived while a hand-off's line was
	 * held, kept until the hold ends (0: none); its fields.
	 */
	u8 dtype;
	u8 dflags;
	u16 dreq;
	u16 dacks;
	u32 dseq;
};

/* Updated only by ddsm_cache_handle(), which its caller serialises. */
struct ddsm_cache_stats {
	u64 acks;
	u64 invalidations;
	u64 fetches;
	u64 nacks;
	u64 proto_errors;
	u64 orphans;		/* dirty copies kept when their home went away */
	u64 orphans_returned;	/* ... and handed back when it returned */
	u64 orphans_dropped;	/* ... and given up when it stayed away */
	u64 deferred;		/* forwarded requests kept for a held line */
};

struct ddsm_cache {
	const struct ddsm_space *space;
	struct ddsm_cline *lines;	/* one per unit of the space */
	u64 dead;			/* nodes declared dead, not back yet */
	bool keep_orphans;		/* see DDSM_C_MO */
	struct ddsm_cache_stats stats;
};

enum ddsm_fault_result {
	DDSM_FAULT_MAP_RO,	/* map the local frame read-only */
	DDSM_FAULT_MAP_RW,	/* map it writable */
	DDSM_FAULT_WAIT,	/* an event is in flight: wait for its WAKE */
};

void ddsm_cache_init(struct ddsm_cache *c, const struct ddsm_space *space,
		     struct ddsm_cline *lines);

static inline struct ddsm_cline *ddsm_cache_line(struct ddsm_cache *c,
						 u64 unit)
{
	return &c->lines[unit];
}

static inline bool ddsm_cstate_stable(u8 state)
{
	return state == DDSM_C_I || state == DDSM_C_S || state == DDSM_C_M;
}

/*
 * A local access to @unit (validated by the caller).  Starts a miss or an
 * upgrade when needed (a SEND in @acts) and says whether the access can be
 * mapped now.
 */
enum ddsm_fault_result ddsm_cache_fault(struct ddsm_cache *c, u64 unit,
					bool write, struct ddsm_actions *acts);

/*
 * Start dropping this node's copy of @unit.  Returns 0 with the EVICT in
 * @acts, or -EBUSY when the line is in flight, held or holds nothing.
 */
int ddsm_cache_evict(struct ddsm_cache *c, u64 unit,
		     struct ddsm_actions *acts);

/*
 * A read was just mapped on @unit.  Does its hold last until the write
 * that follows?  Yes for a migratory copy (granted M on a read, not yet
 * written): releasing it now would let the next reader, whose request is
 * usually already queued at home, take the unit back before the store
 * that the read was for.  The caller bounds that wait with a timer.
 */
static inline bool ddsm_cache_hold_until_write(const struct ddsm_cache *c,
					       u64 unit)
{
	const struct ddsm_cline *l = &c->lines[unit];

	return l->hold && l->state == DDSM_C_M && l->excl_clean;
}

/*
 * The access that waited for @unit's last event has been performed (or
 * given up): send the UNLOCK that event deferred, if any.  Returns true
 * if one went out.
 */
/*
 * Serve the request kept for @unit's hand-off (DDSM_MSG_RUN_DEFERRED), if
 * the line still keeps one and is no longer held.  Returns as
 * ddsm_cache_handle.
 */
int ddsm_cache_run_deferred(struct ddsm_cache *c, u64 unit,
			    struct ddsm_actions *acts);

bool ddsm_cache_release(struct ddsm_cache *c, u64 unit,
			struct ddsm_actions *acts);

/*
 * Handle one validated cache-side message (ACK, INV, FETCH, FETCH_INV,
 * EVICT_ACK, NACK).  Returns 0, or -EPROTO for a message that makes no
 * sense in the line's state; the reply a peer waits for is sent anyway.
 */
int ddsm_cache_handle(struct ddsm_cache *c, const struct ddsm_msg *m,
		      struct ddsm_actions *acts);

/*
 * The home of @unit is back: give it the orphaned copy (an EVICT_MODIFIED
 * with the data; home keeps it if it lost the unit to this node, and
 * confirms either way).  Returns true if one went out.
 */
bool ddsm_cache_rejoin(struct ddsm_cache *c, u64 unit,
		       struct ddsm_actions *acts);

/*
 * The home of @unit stayed away too long: drop the orphaned copy.  An
 * access waiting for it fails with EHOSTDOWN.  Returns true if one was.
 */
bool ddsm_cache_drop_orphan(struct ddsm_cache *c, u64 unit,
			    struct ddsm_actions *acts);

/*
 * The unit's home is gone (dead, disconnected): fail whatever event this
 * node has in flight on @unit with @err.  Returns true if one was failed.
 * Stable lines are left alone; the fault path refuses new events.
 */
bool ddsm_cache_home_lost(struct ddsm_cache *c, u64 unit, u8 err,
			  struct ddsm_actions *acts);

/*
 * @node was declared dead (ddsm_cache_node_dead sets the mask first, then
 * the caller visits every unit with ddsm_cache_peer_lost): an event waiting
 * for its ACK counts it as given (its copy died with it) unless it was the
 * one to supply the data, which fails the event; everything homed on @node
 * is dropped, so later faults on those units fail instead of using a home
 * that cannot answer.  Returns true if the line changed.
 */
void ddsm_cache_node_dead(struct ddsm_cache *c, u32 node);
void ddsm_cache_node_up(struct ddsm_cache *c, u32 node);
bool ddsm_cache_peer_lost(struct ddsm_cache *c, u64 unit, u32 node,
			  struct ddsm_actions *acts);

const char *ddsm_cstate_name(u8 state);

#endif /* DDSM_PROTO_CACHE_H */
