// SPDX-License-Identifier: GPL-2.0
#include "cache.h"

void ddsm_cache_init(struct ddsm_cache *c, const struct ddsm_space *space,
		     struct ddsm_cline *lines)
{
	memset(c, 0, sizeof(*c));
	c->space = space;
	c->lines = lines;
}

static u16 self(const struct ddsm_cache *c)
{
	return (u16)c->space->node_id;
}

static u16 home_of(const struct ddsm_cache *c, u64 unit)
{
	return (u16)ddsm_unit_home(c->space, unit);
}

static void unlock(struct ddsm_cache *c, struct ddsm_cline *l, u64 unit,
		   struct ddsm_actions *acts);

/* The hold is over: the kept request runs next (DDSM_MSG_RUN_DEFERRED). */
static void run_deferred_later(struct ddsm_cache *c, u64 unit,
			       struct ddsm_actions *acts)
{
	struct ddsm_msg m = {
		.type = DDSM_MSG_RUN_DEFERRED,
		.src = self(c),
		.dst = self(c),
		.requester = self(c),
		.unit = unit,
	};

	ddsm_act_send(acts, &m);
}

/* Begin a new event on @l: a request of @type to the unit's home. */
static void start_event(struct ddsm_cache *c, struct ddsm_cline *l, u64 unit,
			u8 type, u8 flags, u8 new_state,
			struct ddsm_actions *acts)
{
	struct ddsm_msg m = {
		.type = type,
		.flags = flags,
		.src = self(c),
		.dst = home_of(c, unit),
		.requester = self(c),
		.unit = unit,
	};

	/* A new access on a held line: the one it was held for is done. */
	if (l->hold) {
		l->hold = 0;
		if (l->handoff && l->dtype)
			run_deferred_later(c, unit, acts);
		else if (!(c->dead & BIT_ULL(home_of(c, unit))))
			unlock(c, l, unit, acts);
	}
	/* Zero is never an event number, so a zeroed line matches nothing. */
	if (++l->seq == 0)
		l->seq = 1;
	l->acks_need = 0;
	l->acks_got = 0;
	l->have_data = 0;
	l->err = 0;
	l->granted = 0;
	l->hold = 0;
	l->excl_clean = 0;
	l->got_clean = 0;
	l->handoff = 0;
	l->expect = 0;
	l->acked = 0;
	l->state = new_state;
	m.seq = l->seq;
	ddsm_act_send(acts, &m);
}

enum ddsm_fault_result ddsm_cache_fault(struct ddsm_cache *c, u64 unit,
					bool write, struct ddsm_actions *acts)
{
	struct ddsm_cline *l = &c->lines[unit];

	switch (l->state) {
	case DDSM_C_M:
		/* Home learns whether a migratory copy was written. */
		if (!write && l->excl_clean)
			return DDSM_FAULT_MAP_RO;
		l->excl_clean = 0;
		return DDSM_FAULT_MAP_RW;
	case DDSM_C_S:
		if (!write)
			return DDSM_FAULT_MAP_RO;
		start_event(c, l, unit, DDSM_MSG_WRITE_SHARED, 0, DDSM_C_SM_AD,
			    acts);
		return DDSM_FAULT_WAIT;
	case DDSM_C_I:
		if (write)
			start_event(c, l, unit, DDSM_MSG_WRITE_MISS, 0,
				    DDSM_C_IM_AD, acts);
		else
			start_event(c, l, unit, DDSM_MSG_READ_MISS, 0,
				    DDSM_C_IS_D, acts);
		return DDSM_FAULT_WAIT;
	case DDSM_C_SM_AD:
		/* The old copy stays readable until someone invalidates it. */
		return write ? DDSM_FAULT_WAIT : DDSM_FAULT_MAP_RO;
	default:
		return DDSM_FAULT_WAIT;
	}
}

int ddsm_cache_evict(struct ddsm_cache *c, u64 unit,
		     struct ddsm_actions *acts)
{
	struct ddsm_cline *l = &c->lines[unit];

	/* A held line is about to be used, and home still waits for it. */
	if (l->hold)
		return -EBUSY;
	/* Zap before the EVICT leaves, so no store lands after the drop. */
	if (l->state == DDSM_C_S) {
		l->gen++;
		ddsm_act_add(acts, DDSM_ACT_ZAP, unit);
		start_event(c, l, unit, DDSM_MSG_EVICT_SHARED, 0, DDSM_C_SI_A,
			    acts);
		return 0;
	}
	if (l->state == DDSM_C_M) {
		l->gen++;
		ddsm_act_add(acts, DDSM_ACT_ZAP, unit);
		start_event(c, l, unit, DDSM_MSG_EVICT_MODIFIED, DDSM_MF_DATA,
			    DDSM_C_MI_A, acts);
		return 0;
	}
	return -EBUSY;
}

/* Reply to the requester named in a forwarded message. */
static void ack_requester(struct ddsm_cache *c, const struct ddsm_msg *fwd,
			  u8 flags, struct ddsm_actions *acts)
{
	struct ddsm_msg m = {
		.type = DDSM_MSG_ACK,
		.flags = flags,
		.src = self(c),
		.dst = fwd->requester,
		.requester = fwd->requester,
		.acks = fwd->acks,
		.seq = fwd->seq,
		.unit = fwd->unit,
	};

	ddsm_act_send(acts, &m);
}

static void writeback(struct ddsm_cache *c, const struct ddsm_msg *fwd,
		      struct ddsm_actions *acts)
{
	struct ddsm_msg m = {
		.type = DDSM_MSG_WRITEBACK,
		.flags = DDSM_MF_DATA,
		.src = self(c),
		.dst = home_of(c, fwd->unit),
		.requester = fwd->requester,
		.seq = fwd->seq,
		.unit = fwd->unit,
	};

	ddsm_act_send(acts, &m);
}

static void unlock(struct ddsm_cache *c, struct ddsm_cline *l, u64 unit,
		   struct ddsm_actions *acts)
{
	/* The state tells home whether we got what we asked for (U: no). */
	struct ddsm_msg m = {
		.type = DDSM_MSG_UNLOCK,
		.flags = l->got_clean ? DDSM_MF_CLEAN : 0,
		.state = l->state == DDSM_C_M ? DDSM_G_M :
			 l->state == DDSM_C_S ? DDSM_G_S : DDSM_G_U,
		.src = self(c),
		.dst = home_of(c, unit),
		.requester = self(c),
		.seq = l->seq,
		.unit = unit,
	};

	/* Home's own cache ended a hand-off for us. */
	if (l->handoff)
		return;

	ddsm_act_send(acts, &m);
}

static bool waiting_for_acks(u8 state)
{
	return state == DDSM_C_IS_D || state == DDSM_C_IM_AD ||
	       state == DDSM_C_SM_AD;
}

static void finish(struct ddsm_cache *c, struct ddsm_cline *l, u64 unit,
		   struct ddsm_actions *acts)
{
	if (l->acks_got < l->acks_need)
		return;
	if (!l->have_data && l->state != DDSM_C_SM_AD) {
		/* Every ACK in and no data: a peer broke the protocol. */
		c->stats.proto_errors++;
		l->err = EPROTO;
		l->state = DDSM_C_I;
		l->excl_clean = 0;
		/* Release home's lock even on failure, or the unit stays locked. */
		unlock(c, l, unit, acts);
	} else {
		l->state = l->state == DDSM_C_IS_D && !l->excl_clean ?
			   DDSM_C_S : DDSM_C_M;
		/* Home stays locked until the waiting access has run. */
		l->hold = 1;
		ddsm_act_add(acts, DDSM_ACT_HOLD, unit);
	}
	ddsm_act_add(acts, DDSM_ACT_WAKE, unit);
}

bool ddsm_cache_release(struct ddsm_cache *c, u64 unit,
			struct ddsm_actions *acts)
{
	struct ddsm_cline *l = &c->lines[unit];

	if (!l->hold)
		return false;
	l->hold = 0;
	/* No home left to unlock: the line was dropped when it died. */
	if (c->dead & BIT_ULL(home_of(c, unit)))
		return false;
	if (l->handoff) {
		if (l->dtype)
			run_deferred_later(c, unit, acts);
		return true;
	}
	unlock(c, l, unit, acts);
	return true;
}

/*
 * @node, which the event on @l waits for, is dead.  If it was to supply
 * the data (the grant came without data and it is the only one expected),
 * the event fails; otherwise its copy died with it, which is as good as
 * its ACK.  Returns true if the line changed.
 */
static bool ack_lost(struct ddsm_cache *c, struct ddsm_cline *l, u64 unit,
		     u32 node, struct ddsm_actions *acts)
{
	bool needs_data = l->state != DDSM_C_SM_AD && !l->have_data;

	l->acked |= BIT_ULL(node);
	if (needs_data && l->expect == BIT_ULL(node)) {
		l->err = EHOSTDOWN;
		l->state = DDSM_C_I;
		/* Still release home's lock, reporting the failure. */
		unlock(c, l, unit, acts);
		ddsm_act_add(acts, DDSM_ACT_WAKE, unit);
		return true;
	}
	l->acks_got++;
	finish(c, l, unit, acts);
	return true;
}

/* Nodes that died before the grant told us the event waits for them. */
static void settle_dead(struct ddsm_cache *c, struct ddsm_cline *l, u64 unit,
			struct ddsm_actions *acts)
{
	u32 node;

	for (node = 0; node < c->space->nr_nodes; node++) {
		if (!waiting_for_acks(l->state))
			return;
		if (l->expect & c->dead & ~l->acked & BIT_ULL(node))
			ack_lost(c, l, unit, node, acts);
	}
}

static int handle_ack(struct ddsm_cache *c, struct ddsm_cline *l,
		      const struct ddsm_msg *m, struct ddsm_actions *acts)
{
	/*
	 * The event failed before home granted it (a NACK, or home died):
	 * an owner's data for it may still arrive, and is of no use.
	 */
	if (m->seq == l->seq && !waiting_for_acks(l->state) && l->err &&
	    !l->granted && !(m->flags & DDSM_MF_GRANT))
		return 0;
	if (m->seq != l->seq || !waiting_for_acks(l->state))
		goto bad;
	if (l->acks_need && l->acks_need != m->acks)
		goto bad;
	if ((m->flags & DDSM_MF_DATA) && l->have_data)
		goto bad;
	if (l->acks_got >= m->acks)
		goto bad;
	if ((m->flags & DDSM_MF_EXCL) && l->state != DDSM_C_IS_D)
		goto bad;

	/*
	 * Only home grants; once home has named the nodes that invalidate,
	 * only they may ACK.  An ACK from anyone else before the grant is
	 * discounted when the grant shows it was not expected, so it can
	 * never stand in for a sharer that still holds a copy.
	 */
	if (m->flags & DDSM_MF_GRANT) {
		u64 bogus = l->acked & ~m->copyset;

		if (l->granted || m->src != home_of(c, m->unit))
			goto bad;
		if (bogus) {
			c->stats.proto_errors++;
			l->acks_got -= hweight64(bogus);
			l->acked &= ~bogus;
		}
	} else if (l->acked & BIT_ULL(m->src)) {
		goto bad;
	} else if (l->granted && !(l->expect & BIT_ULL(m->src))) {
		goto bad;
	}

	c->stats.acks++;
	l->acks_need = m->acks;
	l->acks_got++;
	if (m->flags & DDSM_MF_DATA) {
		l->have_data = 1;
		ddsm_act_add(acts, DDSM_ACT_STORE, m->unit);
	}
	if (m->flags & DDSM_MF_CLEAN)
		l->got_clean = 1;
	if (m->flags & DDSM_MF_GRANT) {
		l->granted = 1;
		l->expect = m->copyset;
		l->excl_clean = !!(m->flags & DDSM_MF_EXCL);
		l->handoff = !!(m->flags & DDSM_MF_HANDOFF);
	} else {
		l->acked |= BIT_ULL(m->src);
	}
	finish(c, l, m->unit, acts);
	if (m->flags & DDSM_MF_GRANT)
		settle_dead(c, l, m->unit, acts);
	return 0;
bad:
	c->stats.proto_errors++;
	return -EPROTO;
}

static int handle_inv(struct ddsm_cache *c, struct ddsm_cline *l,
		      const struct ddsm_msg *m, struct ddsm_actions *acts)
{
	int ret = 0;

	c->stats.invalidations++;
	switch (l->state) {
	case DDSM_C_S:
		l->state = DDSM_C_I;
		break;
	case DDSM_C_SM_AD:
		/* Our upgrade lost the race: home will now send us data. */
		l->state = DDSM_C_IM_AD;
		break;
	case DDSM_C_SI_A:
	case DDSM_C_MI_A:
		/*
		 * Already zapped and leaving.  MI_A is here when a FETCH made
		 * home count this node as a sharer before its EVICT arrived.
		 */
		break;
	default:
		c->stats.proto_errors++;
		ret = -EPROTO;
		break;
	}
	if (!ret && l->state != DDSM_C_SI_A && l->state != DDSM_C_MI_A) {
		l->gen++;
		ddsm_act_add(acts, DDSM_ACT_ZAP, m->unit);
	}
	/* An invalid copy is no use: its frame counts against cache_frames. */
	if (!ret && l->state == DDSM_C_I)
		ddsm_act_add(acts, DDSM_ACT_FREE_FRAME, m->unit);
	ack_requester(c, m, 0, acts);
	return ret;
}

/*
 * Home's own cache, asked for the unit by a hand-off (@fwd has
 * DDSM_MF_HANDOFF): its data is on the way, so end the event at home for
 * the requester (G_U: nothing was sent, the requester fails).
 */
static void end_handoff(struct ddsm_cache *c, const struct ddsm_msg *fwd,
			bool sent, bool clean, struct ddsm_actions *acts)
{
	struct ddsm_msg m = {
		.type = DDSM_MSG_UNLOCK,
		.flags = DDSM_MF_HANDOFF | (clean ? DDSM_MF_CLEAN : 0),
		.state = sent ? DDSM_G_M : DDSM_G_U,
		.src = self(c),
		.dst = self(c),
		.requester = fwd->requester,
		.seq = fwd->seq,
		.unit = fwd->unit,
	};

	if (fwd->flags & DDSM_MF_HANDOFF)
		ddsm_act_send(acts, &m);
}

/* A hand-off's line is held: keep @m for when the access has run. */
static int defer_fetch(struct ddsm_cache *c, struct ddsm_cline *l,
		       const struct ddsm_msg *m)
{
	if (l->dtype) {
		c->stats.proto_errors++;
		return -EPROTO;
	}
	c->stats.deferred++;
	l->dtype = m->type;
	l->dflags = m->flags;
	l->dreq = m->requester;
	l->dacks = m->acks;
	l->dseq = m->seq;
	return 0;
}

static int handle_fetch(struct ddsm_cache *c, struct ddsm_cline *l,
			const struct ddsm_msg *m, struct ddsm_actions *acts)
{
	bool inv = m->type == DDSM_MSG_FETCH_INV;
	bool clean = l->state == DDSM_C_M && l->excl_clean;

	if (l->hold && l->handoff && l->state == DDSM_C_M)
		return defer_fetch(c, l, m);
	c->stats.fetches++;
	if (l->state == DDSM_C_M) {
		l->excl_clean = 0;
		/* Zap first: the copy below must see every local store. */
		l->gen++;
		ddsm_act_add(acts, DDSM_ACT_ZAP, m->unit);
		l->state = inv ? DDSM_C_I : DDSM_C_S;
	} else if (l->state != DDSM_C_MI_A) {
		/* Nothing to supply; answer so the requester can fail cleanly. */
		c->stats.proto_errors++;
		ack_requester(c, m, 0, acts);
		end_handoff(c, m, false, false, acts);
		return -EPROTO;
	}
	if (!inv || (m->flags & DDSM_MF_WB))
		writeback(c, m, acts);
	ack_requester(c, m, clean ? DDSM_MF_DATA | DDSM_MF_CLEAN : DDSM_MF_DATA,
		      acts);
	end_handoff(c, m, true, clean, acts);
	if (inv && l->state == DDSM_C_I)
		ddsm_act_add(acts, DDSM_ACT_FREE_FRAME, m->unit);
	return 0;
}

static int handle_evict_ack(struct ddsm_cache *c, struct ddsm_cline *l,
			    const struct ddsm_msg *m,
			    struct ddsm_actions *acts)
{
	if (m->seq != l->seq ||
	    (l->state != DDSM_C_SI_A && l->state != DDSM_C_MI_A)) {
		c->stats.proto_errors++;
		return -EPROTO;
	}
	l->state = DDSM_C_I;
	/*
	 * Home answers an eviction only after the event it queued behind:
	 * a request kept for a hand-off belongs to an event that ended
	 * without us (its requester died).
	 */
	l->dtype = 0;
	ddsm_act_add(acts, DDSM_ACT_FREE_FRAME, m->unit);
	ddsm_act_add(acts, DDSM_ACT_WAKE, m->unit);
	return 0;
}

static int handle_nack(struct ddsm_cache *c, struct ddsm_cline *l,
		       const struct ddsm_msg *m, struct ddsm_actions *acts)
{
	if (m->seq == l->seq &&
	    (l->state == DDSM_C_SI_A || l->state == DDSM_C_MI_A)) {
		/*
		 * Home had no room to queue the eviction: ask again.  Going
		 * back to S/M instead would be wrong, an INV may already have
		 * taken this node out of the copyset.  The frame is still held.
		 */
		bool dirty = l->state == DDSM_C_MI_A;

		c->stats.nacks++;
		start_event(c, l, m->unit,
			    dirty ? DDSM_MSG_EVICT_MODIFIED : DDSM_MSG_EVICT_SHARED,
			    dirty ? DDSM_MF_DATA : 0, l->state, acts);
		return 0;
	}
	/*
	 * Home refuses instead of granting, so never after its grant.  Other
	 * ACKs may be in: a Read-Enforced unit's owner sends its data before
	 * home grants, and home refuses if the owner dies before its
	 * writeback made that data durable.
	 */
	if (m->seq != l->seq || !waiting_for_acks(l->state) || l->granted) {
		c->stats.proto_errors++;
		return -EPROTO;
	}
	c->stats.nacks++;
	l->err = m->err;
	/* An upgrade that was not invalidated keeps its readable copy. */
	l->state = l->state == DDSM_C_SM_AD ? DDSM_C_S : DDSM_C_I;
	ddsm_act_add(acts, DDSM_ACT_WAKE, m->unit);
	return 0;
}

int ddsm_cache_run_deferred(struct ddsm_cache *c, u64 unit,
			    struct ddsm_actions *acts)
{
	struct ddsm_cline *l;
	struct ddsm_msg m;

	if (!ddsm_unit_valid(c->space, unit))
		return -EPROTO;
	l = &c->lines[unit];
	if (!l->dtype || l->hold)
		return 0;

	m = (struct ddsm_msg){
		.type = l->dtype,
		.flags = l->dflags,
		.src = home_of(c, unit),
		.dst = self(c),
		.requester = l->dreq,
		.acks = l->dacks,
		.seq = l->dseq,
		.unit = unit,
	};
	l->dtype = 0;
	return handle_fetch(c, l, &m, acts);
}

int ddsm_cache_handle(struct ddsm_cache *c, const struct ddsm_msg *m,
		      struct ddsm_actions *acts)
{
	struct ddsm_cline *l;

	if (!ddsm_unit_valid(c->space, m->unit)) {
		c->stats.proto_errors++;
		return -EPROTO;
	}
	l = &c->lines[m->unit];
	/*
	 * The unit's home is down: every event on it was failed when we
	 * learnt it (ddsm_cache_peer_lost) and new ones fail at once, so an
	 * ACK that still arrives (a sharer's INV ACK, an old owner's data)
	 * answers an event that is over.
	 */
	if (m->type == DDSM_MSG_ACK &&
	    (c->dead & BIT_ULL(home_of(c, m->unit))))
		return 0;
	switch (m->type) {
	case DDSM_MSG_RUN_DEFERRED:
		return ddsm_cache_run_deferred(c, m->unit, acts);
	case DDSM_MSG_ACK:
		return handle_ack(c, l, m, acts);
	case DDSM_MSG_INV:
		return handle_inv(c, l, m, acts);
	case DDSM_MSG_FETCH:
	case DDSM_MSG_FETCH_INV:
		return handle_fetch(c, l, m, acts);
	case DDSM_MSG_EVICT_ACK:
		return handle_evict_ack(c, l, m, acts);
	case DDSM_MSG_NACK:
		return handle_nack(c, l, m, acts);
	}
	c->stats.proto_errors++;
	return -EPROTO;
}

void ddsm_cache_node_dead(struct ddsm_cache *c, u32 node)
{
	if (node < DDSM_PROTO_MAX_NODES)
		c->dead |= BIT_ULL(node);
}

void ddsm_cache_node_up(struct ddsm_cache *c, u32 node)
{
	if (node < DDSM_PROTO_MAX_NODES)
		c->dead &= ~BIT_ULL(node);
}

bool ddsm_cache_peer_lost(struct ddsm_cache *c, u64 unit, u32 node,
			  struct ddsm_actions *acts)
{
	struct ddsm_cline *l = &c->lines[unit];

	if (ddsm_unit_home(c->space, unit) == node) {
		l->hold = 0;
		l->dtype = 0;
		if (ddsm_cache_home_lost(c, unit, EHOSTDOWN, acts))
			return true;
		if (l->state != DDSM_C_S && l->state != DDSM_C_M)
			return false;
		if (l->state == DDSM_C_M && c->keep_orphans) {
			/* Maybe the only current copy: keep it for home. */
			l->gen++;
			l->state = DDSM_C_MO;
			c->stats.orphans++;
			ddsm_act_add(acts, DDSM_ACT_ZAP, unit);
			return true;
		}
		/* No home to keep this copy coherent: drop it. */
		l->gen++;
		l->state = DDSM_C_I;
		ddsm_act_add(acts, DDSM_ACT_ZAP, unit);
		ddsm_act_add(acts, DDSM_ACT_FREE_FRAME, unit);
		return true;
	}
	if (waiting_for_acks(l->state) && l->granted &&
	    (l->expect & ~l->acked & BIT_ULL(node)))
		return ack_lost(c, l, unit, node, acts);
	return false;
}

bool ddsm_cache_home_lost(struct ddsm_cache *c, u64 unit, u8 err,
			  struct ddsm_actions *acts)
{
	struct ddsm_cline *l = &c->lines[unit];

	switch (l->state) {
	case DDSM_C_IS_D:
	case DDSM_C_IM_AD:
		l->state = DDSM_C_I;
		break;
	case DDSM_C_SM_AD:
		/* Nobody can confirm the copy is still current. */
		l->gen++;
		ddsm_act_add(acts, DDSM_ACT_ZAP, unit);
		l->state = DDSM_C_I;
		break;
	case DDSM_C_MI_A:
	case DDSM_C_SI_A:
		if (l->state == DDSM_C_MI_A && c->keep_orphans) {
			/* The data may never have reached home: keep it. */
			l->state = DDSM_C_MO;
			c->stats.orphans++;
			break;
		}
		l->state = DDSM_C_I;
		ddsm_act_add(acts, DDSM_ACT_FREE_FRAME, unit);
		break;
	default:
		return false;
	}
	l->err = err;
	ddsm_act_add(acts, DDSM_ACT_WAKE, unit);
	return true;
}

bool ddsm_cache_rejoin(struct ddsm_cache *c, u64 unit,
		       struct ddsm_actions *acts)
{
	struct ddsm_cline *l = &c->lines[unit];

	if (l->state != DDSM_C_MO || (c->dead & BIT_ULL(home_of(c, unit))))
		return false;
	c->stats.orphans_returned++;
	start_event(c, l, unit, DDSM_MSG_EVICT_MODIFIED, DDSM_MF_DATA,
		    DDSM_C_MI_A, acts);
	return true;
}

bool ddsm_cache_drop_orphan(struct ddsm_cache *c, u64 unit,
			    struct ddsm_actions *acts)
{
	struct ddsm_cline *l = &c->lines[unit];

	if (l->state != DDSM_C_MO)
		return false;
	c->stats.orphans_dropped++;
	l->state = DDSM_C_I;
	l->err = EHOSTDOWN;
	ddsm_act_add(acts, DDSM_ACT_FREE_FRAME, unit);
	ddsm_act_add(acts, DDSM_ACT_WAKE, unit);
	return true;
}

static const char *const cstate_names[DDSM_C_NR] = {
	[DDSM_C_I] = "I", [DDSM_C_S] = "S", [DDSM_C_M] = "M",
	[DDSM_C_IS_D] = "IS_D", [DDSM_C_IM_AD] = "IM_AD",
	[DDSM_C_SM_AD] = "SM_AD", [DDSM_C_SI_A] = "SI_A",
	[DDSM_C_MI_A] = "MI_A", [DDSM_C_MO] = "MO",
};

const char *ddsm_cstate_name(u8 state)
{
	return state < DDSM_C_NR ? cstate_names[state] : "?";
}
