// SPDX-License-Identifier: GPL-2.0
/*
 * Backup homes (issue 12, nr_backups=1; docs/persistency.md "Backup
 * homes"): the units placed on node h are also kept durable on its backup
 * b = (h + 1) % N, which takes them over once h died and stayed away.
 *
 * Home side: every image the home makes durable goes to b in a REPLICA
 * (persist.c sends it under p->lock, so the images of a unit leave in
 * timestamp order); b makes it durable in its replica slot with the
 * home's timestamp and answers REPLICA_ACK.  What the home promises
 * (barriers, gated grants, durable writes) waits for every image sent so
 * far to be acknowledged, outside p->lock: two nodes that back each other
 * up would otherwise wait for each other's lock.  A backup that is down,
 * or does not answer within fault_timeout_ms, degrades the pair to
 * home-only until a resync (every image, then REPLICA_SYNC) is through.
 *
 * Backup side: images are queued from the receive path and persisted by
 * a worker, in arrival order, in batches.  At a takeover (below) the
 * replica slots become home slots.
 *
 * Failover: decided by the backup alone, when its predecessor's rejoin
 * window closes with it still away (at once without rejoin), and only if
 * the replica was in sync when the predecessor went down.  The backup
 * records it on pmem first, then under rx_lock turns its replica slots
 * into home frames, moves its own dirty copies of those units in, holds
 * their directory entries (requests answered EAGAIN), sets the failover
 * mask and tells every live node (FAILOVER).  Each of them sets the mask,
 * hands its dirty copies of the units to the backup (EVICT_MODIFIED) and
 * sends COPIES_DONE behind them on the same connection; the backup
 * serves the units once every one did, or fault_timeout_ms passed, so no
 * replica image is served while a newer dirty copy is on its way.
 *
 * No failback: a node with a backup homes nothing before its backup told
 * it (FAILOVER, sent to every peer that comes up) whether it was taken
 * over.  If it was, it homes none of its units again.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/slab.h>
#include <linux/highmem.h>
#include "../node/node.h"
#include "../node/trace.h"
#include "../proto/dir.h"

/* A REPLICA or REPLICA_SYNC waiting for the backup's worker. */
struct replica_in {
	struct list_head link;
	u64 unit;
	u64 ts;
	u32 seq;
	bool sync;
	u8 data[];	/* PAGE_SIZE for a REPLICA */
};

static bool seq_reached(u32 acked, u32 ticket)
{
	return (s32)(acked - ticket) >= 0;
}

static bool enabled(const struct ddsm_node *n)
{
	return n->space.nr_backups && n->space.nr_nodes >= 2;
}

static u32 backup_node(const struct ddsm_node *n)
{
	return ddsm_space_backup_of(&n->space, n->space.node_id);
}

static u32 pred_node(const struct ddsm_node *n)
{
	return ddsm_space_pred_of(&n->space, n->space.node_id);
}

static bool peer_up(struct ddsm_node *n, u32 node)
{
	enum ddsm_peer_state st;

	if (!n->tp)
		return false;
	st = ddsm_transport_peer_state(n->tp, node);
	return st == DDSM_PEER_UP || st == DDSM_PEER_SELF;
}

static int send_simple(struct ddsm_node *n, u8 type, u32 dst, u32 seq,
		       u64 copyset, u8 err)
{
	struct ddsm_msg m = {
		.type = type,
		.err = err,
		.src = (u16)n->space.node_id,
		.dst = (u16)dst,
		.requester = type == DDSM_MSG_REPLICA_ACK ? (u16)dst :
			     (u16)n->space.node_id,
		.seq = seq,
		.copyset = copyset,
	};

	return ddsm_send_msg(n, &m, NULL);
}

/*
 * Go on without the backup: what the home promises is durable here only
 * until a resync is through.  @lost: images may be missing there (a send
 * failed, the backup went down), so only a resync ends it.
 */
static void degrade(struct ddsm_node *n, const char *why, bool lost)
{
	struct ddsm_replica *r = &n->replica;
	bool first;

	spin_lock(&r->lock);
	/* Unloading: the transport is going, nobody waits any more. */
	first = !r->degraded && !r->stopping;
	r->degraded = true;
	if (lost) {
		r->synced = false;
		/* An answer to a resync begun before is no proof now. */
		r->sync_pending = false;
	}
	spin_unlock(&r->lock);
	wake_up_all(&r->wait);
	/* A backup still there missed an image: give it all again. */
	if (lost && !READ_ONCE(r->stopping) && peer_up(n, backup_node(n)))
		queue_work(system_unbound_wq, &r->resync);
	if (first && r->was_synced) {
		atomic64_inc(&r->nr_degraded);
		pr_warn("backup node %u %s: durable on this home only until it is resynced\n",
			backup_node(n), why);
	}
}

u32 ddsm_replica_ticket(struct ddsm_node *n)
{
	return READ_ONCE(n->replica.sent);
}

int ddsm_replica_send(struct ddsm_node *n, u64 unit, u64 ts, const void *img)
{
	struct ddsm_replica *r = &n->replica;
	struct page *page;
	struct ddsm_msg m = {
		.type = DDSM_MSG_REPLICA,
		.flags = DDSM_MF_DATA,
		.src = (u16)n->space.node_id,
		.dst = (u16)backup_node(n),
		.requester = (u16)n->space.node_id,
		.unit = unit,
		.copyset = ts,
	};
	int ret;

	if (!enabled(n) || READ_ONCE(r->stopping))
		return 0;
	/* No failback: units taken over from us are not ours to replicate. */
	if (ddsm_unit_home(&n->space, unit) != n->space.node_id)
		return 0;
	if (!peer_up(n, m.dst)) {
		degrade(n, "is down", true);
		return -ENOTCONN;
	}
	/* The transport holds its own reference until the send is done. */
	page = alloc_page(GFP_KERNEL);
	if (!page) {
		degrade(n, "could not be sent an image (no memory)", true);
		return -ENOMEM;
	}
	memcpy_to_page(page, 0, img, PAGE_SIZE);
	m.seq = r->sent + 1;
	ret = ddsm_send_msg(n, &m, page);
	put_page(page);
	if (ret) {
		degrade(n, "is unreachable", true);
		return ret;
	}
	WRITE_ONCE(r->sent, m.seq);
	atomic64_inc(&r->nr_sent);
	atomic64_add(PAGE_SIZE, &r->bytes);
	return 0;
}

/* The end of a resync; under p->lock like the images before it. */
void ddsm_replica_send_sync(struct ddsm_node *n)
{
	struct ddsm_replica *r = &n->replica;
	u32 seq = r->sent + 1;

	if (!enabled(n))
		return;
	if (send_simple(n, DDSM_MSG_REPLICA_SYNC, backup_node(n), seq, 0, 0)) {
		degrade(n, "is unreachable", true);
		return;
	}
	/*
	 * A resync still unanswered keeps its marker: with nothing lost
	 * since (that would have cleared sync_pending), its answer proves as
	 * much, and a backup slower than the watch's retries still gets
	 * there.
	 */
	spin_lock(&r->lock);
	if (!r->sync_pending) {
		r->sync_seq = seq;
		r->sync_pending = true;
	}
	spin_unlock(&r->lock);
	WRITE_ONCE(r->sent, seq);
}

static bool waited_enough(struct ddsm_node *n, u32 ticket)
{
	struct ddsm_replica *r = &n->replica;

	return seq_reached(READ_ONCE(r->acked), ticket) ||
	       READ_ONCE(r->degraded) || READ_ONCE(r->stopping) ||
	       !peer_up(n, backup_node(n));
}

void ddsm_replica_wait(struct ddsm_node *n, u32 ticket)
{
	struct ddsm_replica *r = &n->replica;
	long left;

	if (!enabled(n) || seq_reached(READ_ONCE(r->acked), ticket))
		return;
	left = wait_event_killable_timeout(r->wait, waited_enough(n, ticket),
					   msecs_to_jiffies(ddsm_fault_timeout_ms()));
	/* A dying caller: nobody is left to be promised anything. */
	if (left == -ERESTARTSYS)
		return;
	if (seq_reached(READ_ONCE(r->acked), ticket) || READ_ONCE(r->degraded))
		return;
	if (!peer_up(n, backup_node(n)))
		degrade(n, "is down", true);
	else if (!left)
		degrade(n, "did not answer in time", false);
}

static void home_acked(struct ddsm_node *n, const struct ddsm_msg *m)
{
	struct ddsm_replica *r = &n->replica;
	bool synced_now = false;

	if (m->err) {
		degrade(n, "failed to persist an image", true);
		return;
	}
	spin_lock(&r->lock);
	if (!seq_reached(r->acked, m->seq)) {
		atomic64_add(m->seq - r->acked, &r->nr_acked);
		WRITE_ONCE(r->acked, m->seq);
	}
	if (r->sync_pending && seq_reached(m->seq, r->sync_seq)) {
		r->sync_pending = false;
		r->synced = true;
		synced_now = true;
	}
	/* Caught up with everything sent while in sync: whole again. */
	if (r->synced && r->acked == READ_ONCE(r->sent))
		r->degraded = false;
	spin_unlock(&r->lock);
	wake_up_all(&r->wait);
	if (synced_now) {
		r->was_synced = true;
		atomic64_inc(&r->nr_resyncs);
		pr_info("backup node %u in sync\n", backup_node(n));
	}
}

static void resync_work(struct work_struct *w)
{
	struct ddsm_replica *r = container_of(w, struct ddsm_replica, resync);
	struct ddsm_node *n = container_of(r, struct ddsm_node, replica);

	if (READ_ONCE(r->stopping))
		return;
	WRITE_ONCE(r->resyncing, true);
	ddsm_persist_resync(n);
	WRITE_ONCE(r->resync_end, jiffies);
	WRITE_ONCE(r->resyncing, false);
}

/*
 * Once a second: a backup that is up but still not in sync three seconds
 * after the last resync ended gets another.  A resync's last message or
 * its answer can be lost when the connection flaps (a frozen node
 * declaring everyone dead as it resumes), and nothing else would ask
 * again until the next reconnection.
 */
#define DDSM_RESYNC_AGAIN	(3 * HZ)

static void watch_work(struct work_struct *w)
{
	struct ddsm_replica *r = container_of(to_delayed_work(w),
					      struct ddsm_replica, watch);
	struct ddsm_node *n = container_of(r, struct ddsm_node, replica);

	if (READ_ONCE(r->stopping))
		return;
	if (!READ_ONCE(r->synced) && !READ_ONCE(r->resyncing) &&
	    peer_up(n, backup_node(n)) &&
	    time_after(jiffies, READ_ONCE(r->resync_end) + DDSM_RESYNC_AGAIN))
		queue_work(system_unbound_wq, &r->resync);
	queue_delayed_work(system_wq, &r->watch, HZ);
}

/* ---------------------------------------------------------------------- */
/* Backup side. */

static void ack_replicas(struct ddsm_node *n, u32 seq, int err)
{
	send_simple(n, DDSM_MSG_REPLICA_ACK, pred_node(n), seq, 0,
		    err ? EIO : 0);
}

/* Persist the batch, then acknowledge everything up to @last. */
static void put_batch(struct ddsm_node *n, const u64 *units,
		      const void *const *data, const u64 *ts, u32 k, u32 last)
{
	struct ddsm_replica *r = &n->replica;
	int err = 0;

	if (k) {
		err = ddsm_persist_replica_put(n, units, data, ts, k);
		if (err)
			WRITE_ONCE(r->pred_synced, false);
		else
			atomic64_add(k, &r->nr_recv);
	}
	ack_replicas(n, last, err);
}

static void replica_worker(struct work_struct *w)
{
	struct ddsm_replica *r = container_of(w, struct ddsm_replica, work);
	struct ddsm_node *n = container_of(r, struct ddsm_node, replica);
	u64 units[DDSM_REPLICA_BATCH], ts[DDSM_REPLICA_BATCH];
	const void *data[DDSM_REPLICA_BATCH];
	struct replica_in *in, *tmp;
	LIST_HEAD(todo);
	bool due = false;	/* seqs up to @last to acknowledge */
	u32 k = 0, i, last = 0;

	spin_lock(&r->lock);
	list_splice_init(&r->in, &todo);
	spin_unlock(&r->lock);

	/*
	 * In arrival order; an ACK covers every seq up to its own, so it
	 * goes only once everything before it is durable.
	 */
	list_for_each_entry(in, &todo, link) {
		bool flush = in->sync || k == DDSM_REPLICA_BATCH;

		for (i = 0; !flush && i < k; i++)
			flush = units[i] == in->unit;	/* distinct per batch */
		if (flush && due) {
			put_batch(n, units, data, ts, k, last);
			k = 0;
			due = false;
		}
		last = in->seq;
		due = true;
		if (in->sync) {
			/* Everything the home holds is here now. */
			WRITE_ONCE(r->pred_synced, true);
			put_batch(n, NULL, NULL, NULL, 0, last);
			due = false;
			pr_info("replica of node %u's units in sync\n",
				pred_node(n));
			continue;
		}
		/* Taken over: the predecessor's images are stale from now. */
		if (ddsm_unit_home(&n->space, in->unit) == n->space.node_id)
			continue;
		units[k] = in->unit;
		ts[k] = in->ts;
		data[k] = in->data;
		k++;
	}
	if (due)
		put_batch(n, units, data, ts, k, last);
	list_for_each_entry_safe(in, tmp, &todo, link) {
		list_del(&in->link);
		kfree(in);
	}
}

static void queue_in(struct ddsm_node *n, const struct ddsm_msg *m,
		     struct page *data)
{
	struct ddsm_replica *r = &n->replica;
	struct replica_in *in;
	bool sync = m->type == DDSM_MSG_REPLICA_SYNC;

	in = kmalloc(sizeof(*in) + (sync ? 0 : PAGE_SIZE), GFP_KERNEL);
	if (!in) {
		/* Not durable here: the home degrades and resyncs later. */
		ack_replicas(n, m->seq, -ENOMEM);
		return;
	}
	in->unit = m->unit;
	in->ts = m->copyset;
	in->seq = m->seq;
	in->sync = sync;
	if (!sync) {
		memcpy_from_page(in->data, data, 0, PAGE_SIZE);
		atomic64_add(PAGE_SIZE, &r->bytes);
	}
	spin_lock(&r->lock);
	if (r->stopping) {
		spin_unlock(&r->lock);
		kfree(in);
		return;
	}
	list_add_tail(&in->link, &r->in);
	spin_unlock(&r->lock);
	queue_work(system_unbound_wq, &r->work);
}

/* ---------------------------------------------------------------------- */
/* Failover. */

bool ddsm_replica_gated(struct ddsm_node *n, const struct ddsm_msg *m)
{
	if (!enabled(n) || READ_ONCE(n->replica.home_open))
		return false;
	if (m->type != DDSM_MSG_READ_MISS && m->type != DDSM_MSG_WRITE_MISS &&
	    m->type != DDSM_MSG_WRITE_SHARED)
		return false;
	return ddsm_unit_placed(&n->space, m->unit) == n->space.node_id;
}

/* The predecessor's units, held since the takeover, may be served now. */
static void holding_release(struct ddsm_node *n, const char *why)
{
	struct ddsm_replica *r = &n->replica;
	u32 pred = pred_node(n);
	u64 idx, homed = ddsm_space_units_homed(&n->space, pred);

	mutex_lock(&n->rx_lock);
	if (!r->holding) {
		mutex_unlock(&n->rx_lock);
		return;
	}
	r->holding = false;
	r->copies_wait = 0;
	for (idx = 0; idx < homed; idx++) {
		ddsm_dir_release_hold(&n->dir,
				      ddsm_space_home_unit(&n->space, pred, idx));
		if (!(idx & 1023))
			cond_resched();
	}
	mutex_unlock(&n->rx_lock);
	wake_up_all(&n->peer_wait);
	pr_info("serving node %u's units (%s)\n", pred, why);
}

static void holding_timeout(struct work_struct *w)
{
	struct ddsm_replica *r = container_of(to_delayed_work(w),
					      struct ddsm_replica, holding_work);
	struct ddsm_node *n = container_of(r, struct ddsm_node, replica);

	holding_release(n, "handover bound passed");
}

/* @node handed over what it had (or died): maybe serve now. */
static void copies_done(struct ddsm_node *n, u32 node)
{
	struct ddsm_replica *r = &n->replica;
	bool all;

	mutex_lock(&n->rx_lock);
	r->copies_wait &= ~BIT_ULL(node);
	all = r->holding && !r->copies_wait;
	mutex_unlock(&n->rx_lock);
	if (all) {
		cancel_delayed_work(&r->holding_work);
		holding_release(n, "every live node handed its dirty copies over");
	}
}

static void send_notice(struct ddsm_node *n, u32 dst)
{
	u64 mask = READ_ONCE(n->replica.took_over) ? BIT_ULL(pred_node(n)) : 0;

	send_simple(n, DDSM_MSG_FAILOVER, dst, 0, mask, 0);
}

/*
 * Take the predecessor's units over.  Returns true if this node serves
 * them (now or already).  Process context, no lock held.
 */
bool ddsm_replica_takeover(struct ddsm_node *n)
{
	struct ddsm_replica *r = &n->replica;
	u32 pred = pred_node(n), self = n->space.node_id, i;
	u64 idx, own, homed, moved = 0, loaded = 0, wait = 0;
	unsigned long *dirty;
	int err;

	/* Unloading: the peers' deaths are our own leaving. */
	if (!enabled(n) || !n->persist || READ_ONCE(r->stopping))
		return false;
	mutex_lock(&r->takeover_lock);
	if (r->took_over) {
		mutex_unlock(&r->takeover_lock);
		return true;
	}
	if (peer_up(n, pred)) {
		mutex_unlock(&r->takeover_lock);
		return false;
	}
	if (!READ_ONCE(r->pred_synced_down)) {
		mutex_unlock(&r->takeover_lock);
		pr_err("node %u stayed away, but its replica here was not in sync when it went down: its units are not taken over\n",
		       pred);
		return false;
	}
	/* On pmem first: a restart must never give the units back. */
	err = ddsm_persist_mark_takeover(n);
	if (err) {
		mutex_unlock(&r->takeover_lock);
		pr_err("node %u stayed away; recording the takeover failed (%d): its units are not taken over\n",
		       pred, err);
		return false;
	}

	/*
	 * Every image the predecessor sent is in its slot before we read
	 * them: its death came after all its messages, and the worker may
	 * still be putting the last ones.
	 */
	flush_work(&r->work);
	own = ddsm_space_units_homed(&n->space, self);
	homed = ddsm_space_units_homed(&n->space, pred);
	dirty = bitmap_zalloc(homed, GFP_KERNEL);
	if (!dirty) {
		mutex_unlock(&r->takeover_lock);
		pr_err("node %u stayed away; no memory to take its units over\n",
		       pred);
		return false;
	}
	/*
	 * The replica images into home frames first, outside rx_lock (the
	 * store's lock comes before it): nothing maps or fills these frames
	 * before the mask below says the units are homed here.
	 */
	for (idx = 0; idx < homed; idx++) {
		struct page *home = ddsm_frame_get_local(n, own + idx);

		if (!home) {
			pr_err("no memory for node %u's unit %llu: it reads as zeros\n",
			       pred, ddsm_space_home_unit(&n->space, pred, idx));
			continue;
		}
		loaded += !ddsm_persist_load_slot(n, own + idx, home);
		if (!(idx & 1023))
			cond_resched();
	}
	mutex_lock(&n->rx_lock);
	for (idx = 0; idx < homed; idx++) {
		u64 unit = ddsm_space_home_unit(&n->space, pred, idx);
		struct mutex *cl = ddsm_cl_lock(n, unit);
		struct ddsm_cline *l = ddsm_cache_line(&n->cache, unit);
		struct page *home, *copy;

		home = ddsm_frame_get_local(n, own + idx);
		if (!home)
			continue;
		mutex_lock(cl);
		/* Our own dirty copy is newer than any image of it. */
		copy = ddsm_frame_cache_peek(n, unit);
		if (l->state == DDSM_C_MO || l->state == DDSM_C_M ||
		    l->state == DDSM_C_MI_A) {
			if (copy) {
				copy_highpage(home, copy);
				set_bit(idx, dirty);
				moved++;
			}
		}
		if (l->state != DDSM_C_I)
			ddsm_mm_zap(n, unit);
		l->state = DDSM_C_I;
		l->hold = 0;
		ddsm_frame_cache_drop(n, unit);
		ddsm_dir_hold(&n->dir, unit);
		mutex_unlock(cl);
		if (!(idx & 1023))
			cond_resched();
	}
	WRITE_ONCE(n->space.failover, n->space.failover | BIT_ULL(pred));
	/* Every moved copy is a write epoch pmem has not seen. */
	for_each_set_bit(idx, dirty, homed)
		ddsm_persist_dirty(n, ddsm_space_home_unit(&n->space, pred,
							   idx));
	for (i = 0; i < n->space.nr_nodes; i++)
		if (i != self && i != pred && peer_up(n, i))
			wait |= BIT_ULL(i);
	r->copies_wait = wait;
	r->holding = true;
	WRITE_ONCE(r->took_over, true);
	mutex_unlock(&n->rx_lock);
	mutex_unlock(&r->takeover_lock);
	bitmap_free(dirty);
	/* Held units are granted to nobody yet: their models go in first. */
	ddsm_persist_models(n);

	atomic64_inc(&r->nr_failovers);
	trace_ddsm_takeover(pred, loaded, moved, wait);
	pr_warn("node %u stayed away: took its units over (%llu images from the replica, %llu dirty copies of ours); no failback\n",
		pred, loaded, moved);
	for (i = 0; i < n->space.nr_nodes; i++)
		if (wait & BIT_ULL(i))
			send_notice(n, i);
	wake_up_all(&n->peer_wait);
	if (wait)
		mod_delayed_work(system_wq, &r->holding_work,
				 msecs_to_jiffies(ddsm_fault_timeout_ms()));
	else
		holding_release(n, "no other live node");
	return true;
}

static void takeover_work(struct work_struct *w)
{
	struct ddsm_replica *r = container_of(w, struct ddsm_replica, takeover);
	struct ddsm_node *n = container_of(r, struct ddsm_node, replica);

	ddsm_replica_takeover(n);
}

/*
 * @owner (a node's own units) was taken over by its backup @by: route to
 * @by, hand it our dirty copies, and say we are done.
 */
static void apply_failover(struct ddsm_node *n, u32 owner, u32 by)
{
	u64 idx, homed = ddsm_space_units_homed(&n->space, owner), sent = 0;
	u32 self = n->space.node_id;
	bool mine = owner == self;

	mutex_lock(&n->rx_lock);
	if (n->space.failover & BIT_ULL(owner)) {
		mutex_unlock(&n->rx_lock);
		goto done;
	}
	WRITE_ONCE(n->space.failover, n->space.failover | BIT_ULL(owner));
	for (idx = 0; idx < homed; idx++) {
		u64 unit = ddsm_space_home_unit(&n->space, owner, idx);
		struct mutex *cl = ddsm_cl_lock(n, unit);
		struct ddsm_actions acts;

		ddsm_actions_init(&acts, n->rx_actions, DDSM_MAX_ACTIONS);
		mutex_lock(cl);
		if (mine) {
			/*
			 * Our own units, back from a restart or a death we
			 * did not see: nothing here is newer than what the
			 * backup serves; drop every mapping of them.
			 */
			ddsm_mm_zap(n, unit);
			ddsm_cache_line(&n->cache, unit)->state = DDSM_C_I;
			ddsm_cache_line(&n->cache, unit)->hold = 0;
		} else {
			sent += ddsm_cache_rejoin(&n->cache, unit, &acts);
		}
		mutex_unlock(cl);
		ddsm_run_actions(n, &acts, NULL);
		if (!(idx & 1023))
			cond_resched();
	}
	mutex_unlock(&n->rx_lock);
	wake_up_all(&n->peer_wait);
	if (mine)
		pr_warn("node %u took this node's units over while it was away: it homes none of them again (no failback)\n",
			by);
	else
		pr_info("node %u took node %u's units over: handed it %llu dirty copies\n",
			by, owner, sent);
done:
	/* Behind the evictions on the same connection. */
	if (!mine)
		send_simple(n, DDSM_MSG_COPIES_DONE, by, 0, 0, 0);
}

static void notice_rx(struct ddsm_node *n, const struct ddsm_msg *m)
{
	u32 owner = ddsm_space_pred_of(&n->space, m->src);
	bool took = m->copyset & BIT_ULL(owner);

	if (took && owner != m->src)
		apply_failover(n, owner, m->src);
	/* Our backup's word on our own units: serve them, or never again. */
	if (m->src == backup_node(n) && !READ_ONCE(n->replica.home_open)) {
		if (!took) {
			WRITE_ONCE(n->replica.home_open, true);
			wake_up_all(&n->peer_wait);
		}
	}
}

void ddsm_replica_rx(struct ddsm_node *n, const struct ddsm_msg *m,
		     struct page *data)
{
	switch (m->type) {
	case DDSM_MSG_REPLICA:
	case DDSM_MSG_REPLICA_SYNC:
		queue_in(n, m, data);
		break;
	case DDSM_MSG_REPLICA_ACK:
		home_acked(n, m);
		break;
	case DDSM_MSG_FAILOVER:
		notice_rx(n, m);
		break;
	case DDSM_MSG_COPIES_DONE:
		copies_done(n, m->src);
		break;
	}
}

/* ---------------------------------------------------------------------- */
/* Peers coming and going. */

void ddsm_replica_peer(struct ddsm_node *n, u32 node, bool up)
{
	struct ddsm_replica *r = &n->replica;

	if (!enabled(n))
		return;
	if (up) {
		/* Everyone learns from us whether we serve our predecessor. */
		send_notice(n, node);
		if (node == backup_node(n) && !READ_ONCE(r->stopping))
			queue_work(system_unbound_wq, &r->resync);
		return;
	}
	if (node == backup_node(n))
		degrade(n, "is down", true);
	if (node == pred_node(n)) {
		/* Whether the replica holds what the predecessor made durable. */
		WRITE_ONCE(r->pred_synced_down, READ_ONCE(r->pred_synced));
		WRITE_ONCE(r->pred_synced, false);
		/* Without rejoin a node declared dead never comes back. */
		if (!n->params.rejoin_ms && !READ_ONCE(r->stopping))
			queue_work(system_unbound_wq, &r->takeover);
	}
	copies_done(n, node);
}

/*
 * Should a node keep its dirty copies of @node's units past the close of
 * its own window?  Yes while a backup that may still take them over is
 * alive (it decides at the close of its own window, which may come later).
 */
bool ddsm_replica_expecting(struct ddsm_node *n, u32 node)
{
	u32 b;

	if (!enabled(n) || (n->space.failover & BIT_ULL(node)))
		return false;
	b = ddsm_space_backup_of(&n->space, node);
	return b != n->space.node_id && peer_up(n, b);
}

/* Serving a predecessor known from pmem (a takeover before a restart). */
static void init_from_pmem(struct ddsm_node *n)
{
	if (n->space.failover & BIT_ULL(pred_node(n)))
		n->replica.took_over = true;
}

void ddsm_replica_init(struct ddsm_node *n)
{
	struct ddsm_replica *r = &n->replica;

	spin_lock_init(&r->lock);
	mutex_init(&r->takeover_lock);
	init_waitqueue_head(&r->wait);
	INIT_LIST_HEAD(&r->in);
	INIT_WORK(&r->work, replica_worker);
	INIT_WORK(&r->resync, resync_work);
	INIT_WORK(&r->takeover, takeover_work);
	INIT_DELAYED_WORK(&r->holding_work, holding_timeout);
	INIT_DELAYED_WORK(&r->watch, watch_work);
}

/* A new build: after ddsm_persist_mount, before the transport starts. */
void ddsm_replica_start(struct ddsm_node *n)
{
	struct ddsm_replica *r = &n->replica;

	r->sent = 0;
	r->acked = 0;
	r->sync_pending = false;
	r->synced = false;
	r->was_synced = false;
	/* Home-only until the backup has been resynced. */
	r->degraded = true;
	r->pred_synced = false;
	r->pred_synced_down = false;
	r->took_over = false;
	r->holding = false;
	r->copies_wait = 0;
	r->home_open = !enabled(n);
	r->stopping = false;
	atomic64_set(&r->bytes, 0);
	atomic64_set(&r->nr_sent, 0);
	atomic64_set(&r->nr_acked, 0);
	atomic64_set(&r->nr_recv, 0);
	atomic64_set(&r->nr_degraded, 0);
	atomic64_set(&r->nr_resyncs, 0);
	atomic64_set(&r->nr_failovers, 0);
	r->resync_end = jiffies;
	r->resyncing = false;
	init_from_pmem(n);
}

/* The transport is there: watch over the backup's sync from now on. */
void ddsm_replica_run(struct ddsm_node *n)
{
	if (enabled(n))
		queue_delayed_work(system_wq, &n->replica.watch, HZ);
}

/* Before the transport goes: nothing more is sent from here. */
void ddsm_replica_quiesce(struct ddsm_node *n)
{
	struct ddsm_replica *r = &n->replica;

	spin_lock(&r->lock);
	r->stopping = true;
	spin_unlock(&r->lock);
	wake_up_all(&r->wait);
	cancel_delayed_work_sync(&r->watch);
	cancel_work_sync(&r->takeover);
	cancel_work_sync(&r->resync);
	cancel_delayed_work_sync(&r->holding_work);
	cancel_work_sync(&r->work);
}

/* After it: free what was queued and never persisted. */
void ddsm_replica_stop(struct ddsm_node *n)
{
	struct ddsm_replica *r = &n->replica;
	struct replica_in *in, *tmp;

	cancel_work_sync(&r->work);
	list_for_each_entry_safe(in, tmp, &r->in, link) {
		list_del(&in->link);
		kfree(in);
	}
}

void ddsm_replica_status(struct ddsm_node *n, struct ddsm_pmem_status *s)
{
	struct ddsm_replica *r = &n->replica;

	if (!enabled(n))
		return;
	s->flags |= DDSM_PMEM_BACKUP;
	if (READ_ONCE(r->synced) && !READ_ONCE(r->degraded))
		s->flags |= DDSM_PMEM_SYNCED;
	if (READ_ONCE(r->took_over))
		s->flags |= DDSM_PMEM_TOOK_OVER;
	s->replica_bytes = atomic64_read(&r->bytes);
	s->replica_sent = atomic64_read(&r->nr_sent);
	s->replica_acked = atomic64_read(&r->nr_acked);
	s->replica_recv = atomic64_read(&r->nr_recv);
	s->replica_degraded = atomic64_read(&r->nr_degraded);
	s->replica_resyncs = atomic64_read(&r->nr_resyncs);
	s->failovers = atomic64_read(&r->nr_failovers);
}
