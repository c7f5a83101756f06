// SPDX-License-Identifier: GPL-2.0
#include "dir.h"

#define NODE_BIT(n)	(1ULL << (n))

void ddsm_dir_init(struct ddsm_dir *d, const struct ddsm_space *space,
		   struct ddsm_dir_entry *entries, u64 nr_entries,
		   struct ddsm_dir_wait *pool, u32 pool_size)
{
	u32 i;

	memset(d, 0, sizeof(*d));
	d->space = space;
	d->entries = entries;
	d->nr_entries = nr_entries;
	d->pool = pool;
	d->pool_size = pool_size;
	for (i = 0; i < pool_size; i++)
		pool[i].next = i + 2 <= pool_size ? i + 2 : 0;
	d->free = pool_size ? 1 : 0;
	d->migrate = true;
	d->handoff = true;
}

/* lost_from of a unit held for a takeover's handover (ddsm_dir_hold). */
#define DDSM_DIR_FROM_ANY	0xff

static struct ddsm_dir_entry *entry_of(const struct ddsm_dir *d, u64 unit)
{
	u64 idx;

	if (!ddsm_unit_valid(d->space, unit) ||
	    ddsm_unit_home(d->space, unit) != d->space->node_id)
		return NULL;
	idx = ddsm_unit_local_index(d->space, unit);
	return idx < d->nr_entries ? &d->entries[idx] : NULL;
}

const struct ddsm_dir_entry *ddsm_dir_entry(const struct ddsm_dir *d,
					    u64 unit)
{
	return entry_of(d, unit);
}

static void reply_msg(struct ddsm_dir *d, const struct ddsm_msg *req,
		      u8 type, u8 flags, u16 acks, u8 state, u64 others,
		      struct ddsm_msg *out)
{
	struct ddsm_msg m = {
		.type = type,
		.flags = type == DDSM_MSG_ACK ? flags | DDSM_MF_GRANT : flags,
		.copyset = others,
		.state = state,
		.src = (u16)d->space->node_id,
		.dst = req->requester,
		.requester = req->requester,
		.acks = acks,
		.seq = req->seq,
		.unit = req->unit,
	};

	*out = m;
}

static void nack(struct ddsm_dir *d, const struct ddsm_msg *req, u8 err,
		 struct ddsm_actions *acts)
{
	struct ddsm_msg m = {
		.type = DDSM_MSG_NACK,
		.err = err,
		.src = (u16)d->space->node_id,
		.dst = req->requester,
		.requester = req->requester,
		.seq = req->seq,
		.unit = req->unit,
	};

	d->stats.nacked++;
	ddsm_act_send(acts, &m);
}

static void reply(struct ddsm_dir *d, const struct ddsm_msg *req, u8 type,
		  u8 flags, u16 acks, u8 state, u64 others,
		  struct ddsm_actions *acts)
{
	struct ddsm_msg m;

	reply_msg(d, req, type, flags, acks, state, others, &m);
	ddsm_act_send(acts, &m);
}

/*
 * Home's grant.  One that fetches from an owner (@e in M) of a WB unit
 * waits for the owner's writeback (handle_writeback sends it): were the
 * requester granted M first, it could evict the unit before the
 * writeback is in, and its EVICT_MODIFIED, queued behind the write lock,
 * would come to be served with no data.  A GATE unit's grant goes once
 * home's image is durable.
 */
static void grant_reply(struct ddsm_dir *d, struct ddsm_dir_entry *e,
			const struct ddsm_msg *req, u8 flags, u16 acks,
			u64 others, struct ddsm_actions *acts)
{
	struct ddsm_msg m;

	if (e->state == DDSM_G_M && (e->persist & DDSM_DIR_P_WB)) {
		e->gdefer = 1;
		e->gflags = flags;
		return;
	}
	if (!(e->persist & DDSM_DIR_P_GATE)) {
		reply(d, req, DDSM_MSG_ACK, flags, acks, e->state, others,
		      acts);
		return;
	}
	reply_msg(d, req, DDSM_MSG_ACK, flags, acks, e->state, others, &m);
	d->stats.durable_grants++;
	ddsm_act_send_durable(acts, &m);
}

/* The deferred grant of the write-locked event (see grant_reply). */
static void send_deferred_grant(struct ddsm_dir *d, struct ddsm_dir_entry *e,
				u64 unit, bool durable,
				struct ddsm_actions *acts)
{
	struct ddsm_msg req = {
		.requester = e->wholder, .seq = e->wseq, .unit = unit,
	};
	struct ddsm_msg m;

	e->gdefer = 0;
	reply_msg(d, &req, DDSM_MSG_ACK, e->gflags, 2, DDSM_G_M,
		  NODE_BIT(e->owner), &m);
	if (durable) {
		d->stats.durable_grants++;
		ddsm_act_send_durable(acts, &m);
	} else {
		ddsm_act_send(acts, &m);
	}
}

/* Send @type to @node on behalf of the requester of @req. */
static void forward(struct ddsm_dir *d, const struct ddsm_msg *req, u8 type,
		    u16 node, u16 acks, struct ddsm_actions *acts)
{
	struct ddsm_msg m = {
		.type = type,
		.src = (u16)d->space->node_id,
		.dst = node,
		.requester = req->requester,
		.acks = acks,
		.seq = req->seq,
		.unit = req->unit,
	};

	ddsm_act_send(acts, &m);
}

static bool is_request(u8 type)
{
	return type >= DDSM_MSG_READ_MISS && type <= DDSM_MSG_EVICT_MODIFIED;
}

/* May @m be granted now, ignoring the queue? */
static bool lock_free_for(const struct ddsm_dir_entry *e,
			  const struct ddsm_msg *m)
{
	if (e->wlocked)
		return false;
	/* Readers share the lock unless they must fetch from an owner. */
	if (m->type == DDSM_MSG_READ_MISS && e->state != DDSM_G_M)
		return true;
	return !e->rlocks;
}

static void write_lock(struct ddsm_dir_entry *e, const struct ddsm_msg *m)
{
	e->wlocked = 1;
	e->wholder = m->requester;
	e->wseq = m->seq;
	e->wtype = m->type;
	e->wb_pending = 0;
	e->unlock_seen = 0;
	e->handoff = 0;
}

/*
 * May the write-locked event of @m end when home's own cache has sent the
 * unit, without the requester's UNLOCK (dir.h, "Hand-off")?
 */
static bool hands_off(const struct ddsm_dir *d,
		      const struct ddsm_dir_entry *e, const struct ddsm_msg *m)
{
	return d->handoff && e->state == DDSM_G_M &&
	       e->owner == d->space->node_id && m->requester != e->owner &&
	       !e->persist;
}

/*
 * Take the unit from its owner for the write-locked event of @m.  A WB
 * unit's owner writes the data back to home too, and the event ends only
 * once it is in.  Returns the flags for the grant.
 */
static u8 fetch_inv(struct ddsm_dir *d, struct ddsm_dir_entry *e,
		    const struct ddsm_msg *m, struct ddsm_actions *acts)
{
	struct ddsm_msg f = {
		.type = DDSM_MSG_FETCH_INV,
		.src = (u16)d->space->node_id,
		.dst = e->owner,
		.requester = m->requester,
		.acks = 2,
		.seq = m->seq,
		.unit = m->unit,
	};

	if (e->persist & DDSM_DIR_P_WB) {
		f.flags = DDSM_MF_WB;
		e->wb_pending = 1;
	}
	if (hands_off(d, e, m)) {
		f.flags |= DDSM_MF_HANDOFF;
		e->handoff = 1;
		d->stats.handoffs++;
	}
	ddsm_act_send(acts, &f);
	return f.flags & DDSM_MF_HANDOFF;
}

static void grant_read(struct ddsm_dir *d, struct ddsm_dir_entry *e,
		       const struct ddsm_msg *m, struct ddsm_actions *acts)
{
	u8 flags;

	if (e->state == DDSM_G_M && e->migratory && d->migrate) {
		/* Outcome, failure and death as for a write miss. */
		write_lock(e, m);
		e->wtype = DDSM_MSG_WRITE_MISS;
		d->stats.excl_reads++;
		flags = fetch_inv(d, e, m, acts);
		grant_reply(d, e, m, DDSM_MF_EXCL | flags, 2, NODE_BIT(e->owner),
			    acts);
		return;
	}
	if (e->state == DDSM_G_M) {
		/* Owner supplies the data and writes it back; we wait for both. */
		write_lock(e, m);
		e->wb_pending = 1;
		forward(d, m, DDSM_MSG_FETCH, e->owner, 2, acts);
		grant_reply(d, e, m, 0, 2, NODE_BIT(e->owner), acts);
		return;
	}
	e->rlocks |= NODE_BIT(m->requester);
	grant_reply(d, e, m, DDSM_MF_DATA, 1, 0, acts);
}

static void invalidate_sharers(struct ddsm_dir *d, const struct ddsm_msg *m,
			       u64 sharers, u16 acks,
			       struct ddsm_actions *acts)
{
	u32 n;

	for (n = 0; sharers; n++, sharers >>= 1)
		if (sharers & 1)
			forward(d, m, DDSM_MSG_INV, (u16)n, acks, acts);
}

static void grant_write(struct ddsm_dir *d, struct ddsm_dir_entry *e,
			const struct ddsm_msg *m, struct ddsm_actions *acts)
{
	u64 rbit = NODE_BIT(m->requester);
	u64 others = e->copyset & ~rbit;
	u16 acks = (u16)(hweight64(others) + 1);

	/*
	 * Read from the last writer, now written by the reader, nobody else
	 * sharing: the unit moves from node to node.
	 */
	if (d->migrate && m->type == DDSM_MSG_WRITE_SHARED &&
	    e->state == DDSM_G_S &&
	    e->owner != m->requester && e->copyset == (rbit | NODE_BIT(e->owner)))
		e->migratory = 1;
	write_lock(e, m);
	if (e->state == DDSM_G_M) {
		u8 flags = fetch_inv(d, e, m, acts);

		grant_reply(d, e, m, flags, 2, NODE_BIT(e->owner), acts);
		return;
	}
	invalidate_sharers(d, m, others, acks, acts);
	/*
	 * An upgrade that is still a sharer needs no data.  One that was
	 * invalidated while it waited in the queue has become a write miss.
	 */
	if (m->type == DDSM_MSG_WRITE_SHARED && (e->copyset & rbit))
		grant_reply(d, e, m, 0, acks, others, acts);
	else
		grant_reply(d, e, m, DDSM_MF_DATA, acks, others, acts);
}

/* The only current copy of @e's unit may be with @node, declared dead. */
static void mark_lost(struct ddsm_dir *d, struct ddsm_dir_entry *e, u32 node)
{
	if (e->lost)
		return;
	d->stats.lost++;
	e->lost = 1;
	e->lost_from = d->rejoin && node < DDSM_PROTO_MAX_NODES ? node + 1 : 0;
}

static void grant_evict(struct ddsm_dir *d, struct ddsm_dir_entry *e,
			const struct ddsm_msg *m, struct ddsm_actions *acts)
{
	u64 rbit = NODE_BIT(m->requester);

	if (m->type == DDSM_MSG_EVICT_MODIFIED && e->state == DDSM_G_M &&
	    e->owner == m->requester) {
		/* The only current copy: keep its data. */
		ddsm_act_add(acts, DDSM_ACT_STORE, m->unit);
		e->copyset = 0;
		e->state = DDSM_G_U;
	} else if (m->type == DDSM_MSG_EVICT_MODIFIED && e->lost &&
		   (e->lost_from == m->requester + 1 ||
		    e->lost_from == DDSM_DIR_FROM_ANY)) {
		/*
		 * Back from a false death with the copy it owned: nobody was
		 * granted the unit since it was lost, so this is current.
		 */
		ddsm_act_add(acts, DDSM_ACT_STORE, m->unit);
		e->lost = 0;
		e->lost_from = 0;
		e->copyset = 0;
		e->state = DDSM_G_U;
		d->stats.restored++;
	} else if (e->state == DDSM_G_S && (e->copyset & rbit)) {
		/*
		 * A clean drop, or a dirty one overtaken by a FETCH that already
		 * wrote the data back.
		 */
		e->copyset &= ~rbit;
		if (!e->copyset)
			e->state = DDSM_G_U;
	}
	/* Otherwise an INV or FETCH_INV already took the copy: just confirm. */
	reply(d, m, DDSM_MSG_EVICT_ACK, 0, 0, e->state, 0, acts);
}

static void grant(struct ddsm_dir *d, struct ddsm_dir_entry *e,
		  const struct ddsm_msg *m, struct ddsm_actions *acts)
{
	u64 rbit = NODE_BIT(m->requester);

	d->stats.granted++;
	if (e->lost && m->type != DDSM_MSG_EVICT_SHARED &&
	    m->type != DDSM_MSG_EVICT_MODIFIED) {
		/* Its data may come back with the node that holds it. */
		nack(d, m, e->lost_from ? EAGAIN : EIO, acts);
		return;
	}
	switch (m->type) {
	case DDSM_MSG_READ_MISS:
	case DDSM_MSG_WRITE_MISS:
		/* Explicit evictions keep the copyset exact: a miss from a member is a bug. */
		if (e->copyset & rbit) {
			d->stats.proto_errors++;
			nack(d, m, EPROTO, acts);
			return;
		}
		if (m->type == DDSM_MSG_READ_MISS)
			grant_read(d, e, m, acts);
		else
			grant_write(d, e, m, acts);
		return;
	case DDSM_MSG_WRITE_SHARED:
		if (e->state == DDSM_G_M && e->owner == m->requester) {
			d->stats.proto_errors++;
			nack(d, m, EPROTO, acts);
			return;
		}
		grant_write(d, e, m, acts);
		return;
	case DDSM_MSG_EVICT_SHARED:
	case DDSM_MSG_EVICT_MODIFIED:
		grant_evict(d, e, m, acts);
		return;
	}
}

static void enqueue(struct ddsm_dir *d, struct ddsm_dir_entry *e,
		    const struct ddsm_msg *m, struct ddsm_actions *acts)
{
	struct ddsm_dir_wait *w;
	u32 slot = d->free;

	if (!slot) {
		nack(d, m, EBUSY, acts);
		return;
	}
	w = &d->pool[slot - 1];
	d->free = w->next;
	d->pool_used++;
	w->msg = *m;
	w->next = 0;
	if (e->qtail)
		d->pool[e->qtail - 1].next = slot;
	else
		e->qhead = slot;
	e->qtail = slot;
	d->stats.queued++;
}

/* Grant queued requests, oldest first, for as long as the lock allows. */
static void drain(struct ddsm_dir *d, struct ddsm_dir_entry *e,
		  struct ddsm_actions *acts)
{
	while (e->qhead) {
		u32 slot = e->qhead;
		struct ddsm_dir_wait *w = &d->pool[slot - 1];
		struct ddsm_msg m;

		if (!lock_free_for(e, &w->msg))
			break;
		m = w->msg;
		e->qhead = w->next;
		if (!e->qhead)
			e->qtail = 0;
		w->next = d->free;
		d->free = slot;
		d->pool_used--;
		grant(d, e, &m, acts);
	}
}

/*
 * The write-locked event is over: install its outcome and release.  The
 * requester's UNLOCK said whether it got what it asked for; dead nodes
 * never enter the outcome.
 */
static void write_unlock(struct ddsm_dir *d, struct ddsm_dir_entry *e,
			 struct ddsm_actions *acts)
{
	u64 rbit = e->unlock_ok ? NODE_BIT(e->wholder) : 0;

	if (e->wtype == DDSM_MSG_READ_MISS) {
		/* The old owner kept a clean copy and wrote it back. */
		e->copyset = (NODE_BIT(e->owner) | rbit) & ~d->dead;
		e->state = e->copyset ? DDSM_G_S : DDSM_G_U;
	} else if (rbit) {
		/* The writer holds the only current copy, even of a lost unit. */
		e->copyset = rbit;
		e->owner = e->wholder;
		e->state = DDSM_G_M;
		e->lost = 0;
		e->lost_from = 0;
	} else {
		/* A failed write: every other copy was already taken. */
		if (e->state == DDSM_G_M && !(e->persist & DDSM_DIR_P_WB)) {
			/*
			 * Taken from an owner (FETCH_INV) whose data never
			 * reached the requester: it died with the owner.  A WB
			 * owner's data came home (the write lock waited for it,
			 * or the owner's death marked the unit lost).
			 */
			mark_lost(d, e, e->owner);
		}
		e->copyset = 0;
		e->state = DDSM_G_U;
	}
	if (e->lost) {
		e->copyset = 0;
		e->state = DDSM_G_U;
	}
	e->wlocked = 0;
	e->wb_pending = 0;
	e->unlock_seen = 0;
	e->gdefer = 0;
	e->handoff = 0;
	drain(d, e, acts);
}

static int handle_unlock(struct ddsm_dir *d, struct ddsm_dir_entry *e,
			 const struct ddsm_msg *m, struct ddsm_actions *acts)
{
	u64 rbit = NODE_BIT(m->requester);
	bool mine = e->wlocked && e->wholder == m->requester &&
		    e->wseq == m->seq && !e->unlock_seen;

	d->stats.unlocks++;
	/*
	 * Home's cache ending a hand-off that already ended: its requester
	 * died (entry_node_dead) or evicted the unit (ddsm_dir_handle).
	 */
	if ((m->flags & DDSM_MF_HANDOFF) && !mine)
		return 0;
	if (mine) {
		e->unlock_ok = m->state != DDSM_G_U;
		/* The exclusive copy it took had not been written: not migratory. */
		if (m->flags & DDSM_MF_CLEAN)
			e->migratory = 0;
		if (e->wb_pending) {
			e->unlock_seen = 1;
			return 0;
		}
		write_unlock(d, e, acts);
		return 0;
	}
	if (!e->wlocked && (e->rlocks & rbit)) {
		e->rlocks &= ~rbit;
		/* A reader that failed (a protocol error) holds nothing. */
		if (m->state != DDSM_G_U) {
			e->copyset |= rbit;
			e->state = DDSM_G_S;
		}
		drain(d, e, acts);
		return 0;
	}
	d->stats.proto_errors++;
	return -EPROTO;
}

static int handle_writeback(struct ddsm_dir *d, struct ddsm_dir_entry *e,
			    const struct ddsm_msg *m, struct ddsm_actions *acts)
{
	if (!e->wlocked || !e->wb_pending || e->owner != m->src ||
	    e->wholder != m->requester || e->wseq != m->seq) {
		d->stats.proto_errors++;
		return -EPROTO;
	}
	ddsm_act_add(acts, DDSM_ACT_STORE, m->unit);
	e->wb_pending = 0;
	/* The version the requester gets is home's now: persist, then grant. */
	if (e->gdefer)
		send_deferred_grant(d, e, m->unit,
				    e->persist & DDSM_DIR_P_GATE, acts);
	if (e->unlock_seen)
		write_unlock(d, e, acts);
	return 0;
}

/* Drop every queued request of @node: a grant to it could never finish. */
static void purge_queue(struct ddsm_dir *d, struct ddsm_dir_entry *e,
			u32 node)
{
	u32 slot = e->qhead, prev = 0;

	while (slot) {
		struct ddsm_dir_wait *w = &d->pool[slot - 1];
		u32 next = w->next;

		if (w->msg.requester == node) {
			if (prev)
				d->pool[prev - 1].next = next;
			else
				e->qhead = next;
			if (e->qtail == slot)
				e->qtail = prev;
			w->next = d->free;
			d->free = slot;
			d->pool_used--;
		} else {
			prev = slot;
		}
		slot = next;
	}
}

/*
 * The owner the write-locked event fetches from died before its writeback
 * came home.  A GATE unit's requester may hold the owner's data already,
 * which is not durable and never will be: refuse the event (the unit is
 * lost) and finish it on the requester's behalf.  Otherwise the grant
 * goes, naming the owner, and the requester fails or keeps the data as
 * without a deferred grant.
 */
static void owner_died_before_writeback(struct ddsm_dir *d,
					struct ddsm_dir_entry *e, u64 unit,
					struct ddsm_actions *acts)
{
	struct ddsm_msg req = {
		.requester = e->wholder, .seq = e->wseq, .unit = unit,
	};

	if (!(e->persist & DDSM_DIR_P_GATE)) {
		send_deferred_grant(d, e, unit, false, acts);
		return;
	}
	e->gdefer = 0;
	nack(d, &req, e->lost_from ? EAGAIN : EIO, acts);
	e->unlock_seen = 1;
	e->unlock_ok = 0;
}

static void entry_node_dead(struct ddsm_dir *d, struct ddsm_dir_entry *e,
			    u64 unit, u32 node, struct ddsm_actions *acts)
{
	u64 bit = NODE_BIT(node);
	/* Its grant never left: it cannot have written. */
	bool never_granted = e->wlocked && e->wholder == node && e->gdefer;

	purge_queue(d, e, node);
	e->rlocks &= ~bit;
	if (never_granted)
		e->gdefer = 0;	/* nobody to grant to */
	if (e->copyset & bit) {
		if (e->state == DDSM_G_M) {
			/* Its dirty copy was the only current one. */
			mark_lost(d, e, node);
			if (e->gdefer)
				owner_died_before_writeback(d, e, unit, acts);
			e->copyset = 0;
			e->state = DDSM_G_U;
			/* A pending writeback from it will never come. */
			e->wb_pending = 0;
		} else {
			e->copyset &= ~bit;
			if (!e->copyset)
				e->state = DDSM_G_U;
		}
	}
	if (e->wlocked && e->wholder == node && !e->unlock_seen) {
		if (e->wtype != DDSM_MSG_READ_MISS && !never_granted) {
			/* It may have written before dying: nobody can tell. */
			mark_lost(d, e, node);
			e->wb_pending = 0;
		}
		/* Finish its event on its behalf, as failed. */
		e->unlock_seen = 1;
		e->unlock_ok = 0;
	}
	if (e->wlocked && e->unlock_seen && !e->wb_pending) {
		write_unlock(d, e, acts);
		return;
	}
	drain(d, e, acts);
}

void ddsm_dir_node_dead(struct ddsm_dir *d, u32 node)
{
	if (node < DDSM_PROTO_MAX_NODES)
		d->dead |= NODE_BIT(node);
}

void ddsm_dir_reclaim(struct ddsm_dir *d, u64 unit, u32 node,
		      struct ddsm_actions *acts)
{
	struct ddsm_dir_entry *e = entry_of(d, unit);

	if (e && node < DDSM_PROTO_MAX_NODES)
		entry_node_dead(d, e, unit, node, acts);
}

void ddsm_dir_set_persist(struct ddsm_dir *d, u64 unit, u8 flags)
{
	struct ddsm_dir_entry *e = entry_of(d, unit);

	if (e)
		e->persist = flags & (DDSM_DIR_P_WB | DDSM_DIR_P_GATE);
}

void ddsm_dir_forget(struct ddsm_dir *d, u64 unit, u32 node)
{
	struct ddsm_dir_entry *e = entry_of(d, unit);

	if (e && e->lost && e->lost_from == node + 1)
		e->lost_from = 0;
}

void ddsm_dir_node_up(struct ddsm_dir *d, u32 node)
{
	if (node < DDSM_PROTO_MAX_NODES)
		d->dead &= ~NODE_BIT(node);
}

int ddsm_dir_handle(struct ddsm_dir *d, const struct ddsm_msg *m,
		    struct ddsm_actions *acts)
{
	struct ddsm_dir_entry *e = entry_of(d, m->unit);

	if (!e) {
		d->stats.proto_errors++;
		return -EPROTO;
	}
	if (m->type == DDSM_MSG_UNLOCK)
		return handle_unlock(d, e, m, acts);
	if (m->type == DDSM_MSG_WRITEBACK)
		return handle_writeback(d, e, m, acts);
	if (!is_request(m->type)) {
		d->stats.proto_errors++;
		return -EPROTO;
	}
	/*
	 * A hand-off's requester evicting the unit has it: its event is
	 * over even if home's cache's UNLOCK for it is still on its way.
	 * The eviction then queues or goes like any other, with its data.
	 */
	if (m->type == DDSM_MSG_EVICT_MODIFIED && e->wlocked && e->handoff &&
	    e->wholder == m->requester && !e->unlock_seen) {
		e->unlock_ok = 1;
		write_unlock(d, e, acts);
	}
	/* FIFO: nobody overtakes a queued request. */
	if (e->qhead || !lock_free_for(e, m))
		enqueue(d, e, m, acts);
	else
		grant(d, e, m, acts);
	return 0;
}

/*
 * The entry at @unit's local index whether homed here yet or not: a
 * takeover holds the entries before the failover mask makes the units
 * ours, so that no request finds one unheld.
 */
static struct ddsm_dir_entry *local_entry(const struct ddsm_dir *d, u64 unit)
{
	u64 idx = ddsm_unit_local_index(d->space, unit);

	return idx < d->nr_entries ? &d->entries[idx] : NULL;
}

void ddsm_dir_hold(struct ddsm_dir *d, u64 unit)
{
	struct ddsm_dir_entry *e = local_entry(d, unit);

	if (!e)
		return;
	/*
	 * The entry was never used here (the unit was homed elsewhere), so
	 * it is U with no copies, locks or waiters.
	 */
	e->lost = 1;
	e->lost_from = DDSM_DIR_FROM_ANY;
}

void ddsm_dir_release_hold(struct ddsm_dir *d, u64 unit)
{
	struct ddsm_dir_entry *e = local_entry(d, unit);

	if (e && e->lost && e->lost_from == DDSM_DIR_FROM_ANY) {
		e->lost = 0;
		e->lost_from = 0;
	}
}
