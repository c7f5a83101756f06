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
 * Files: this one (the backup's side, the messages, peers coming and
 * going, set-up), replica_home.c (the home's side), takeover.c (the
 * failover).
 *
 * No failback: a node with a backup homes nothing before its backup told
 * it (FAILOVER, sent to every peer that comes up) whether it was taken
 * over.  If it was, it homes none of its units again.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/slab.h>
#include <linux/highmem.h>
#include <linux/delay.h>
#include "../node/node.h"
#include "durable.h"
#include "replica.h"
#include "../selftest/selftest.h"

/* A REPLICA or REPLICA_SYNC waiting for the backup's worker. */
struct replica_in {
	struct list_head link;
	u64 unit;
	u64 ts;
	u32 seq;
	bool sync;
	u8 data[];	/* PAGE_SIZE for a REPLICA */
};

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
	if (READ_ONCE(r->link) == DDSM_LINK_LOST && !READ_ONCE(r->resyncing) &&
	    replica_peer_up(n, replica_backup(n)) &&
	    time_after(jiffies, READ_ONCE(r->resync_end) + DDSM_RESYNC_AGAIN))
		replica_queue(r, &r->resync);
	queue_delayed_work(system_wq, &r->watch, HZ);
}

static void ack_replicas(struct ddsm_node *n, u32 seq, int err)
{
	replica_send_simple(n, DDSM_MSG_REPLICA_ACK, replica_pred(n), seq, 0,
			    err ? EIO : 0);
}

/* Persist the batch, then acknowledge everything up to @last. */
static void put_batch(struct ddsm_node *n, const u64 *units,
		      const void *const *data, const u64 *ts, u32 k, u32 last)
{
	struct ddsm_replica *r = &n->replica;
	int err = 0;

	if (k) {
		if (ddsm_test_replica_delay_ms())
			msleep(ddsm_test_replica_delay_ms());
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
	r->in_nr = 0;
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
				replica_pred(n));
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
	/* Bounded by the home's window (replica_home.c), not by this side. */
	if (++r->in_nr > r->in_peak)
		r->in_peak = r->in_nr;
	queue_work(system_unbound_wq, &r->work);
	spin_unlock(&r->lock);
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
		ddsm_replica_acked(n, m);
		break;
	case DDSM_MSG_FAILOVER:
		ddsm_replica_notice_rx(n, m);
		break;
	case DDSM_MSG_COPIES_DONE:
		ddsm_replica_copies_done(n, m->src);
		break;
	}
}

void ddsm_replica_peer(struct ddsm_node *n, u32 node, bool up)
{
	struct ddsm_replica *r = &n->replica;

	if (!replica_enabled(n))
		return;
	if (up) {
		/* Everyone learns from us whether we serve our predecessor. */
		ddsm_replica_notice(n, node);
		if (node == replica_backup(n))
			replica_queue(r, &r->resync);
		return;
	}
	if (node == replica_backup(n)) {
		ddsm_replica_degrade(n, "is down", true);
		/*
		 * What was in flight went with the connection, and the link is
		 * lost, so no promise waits on those acks: the window starts
		 * afresh for the resync that comes with the next "up".
		 */
		spin_lock(&r->lock);
		WRITE_ONCE(r->acked, r->sent);
		spin_unlock(&r->lock);
		wake_up_all(&r->wait);
	}
	if (node == replica_pred(n)) {
		/* Whether the replica holds what the predecessor made durable. */
		WRITE_ONCE(r->pred_synced_down, READ_ONCE(r->pred_synced));
		WRITE_ONCE(r->pred_synced, false);
		/* Without rejoin a node declared dead never comes back. */
		if (!n->params.rejoin_ms)
			replica_queue(r, &r->takeover);
	}
	ddsm_replica_copies_done(n, node);
}

/* Serving a predecessor known from pmem (a takeover before a restart). */
static void init_from_pmem(struct ddsm_node *n)
{
	if (n->space.failover & BIT_ULL(replica_pred(n)))
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
	INIT_WORK(&r->takeover, ddsm_replica_takeover_work);
	INIT_DELAYED_WORK(&r->holding_work, ddsm_replica_holding_timeout);
	INIT_DELAYED_WORK(&r->watch, watch_work);
}

/* A new build: after ddsm_persist_mount, before the transport starts. */
void ddsm_replica_start(struct ddsm_node *n)
{
	struct ddsm_replica *r = &n->replica;

	r->sent = 0;
	r->acked = 0;
	r->sync_pending = false;
	/* Home-only until the backup has been resynced: a new link. */
	r->link = DDSM_LINK_LOST;
	r->was_synced = false;
	r->pred_synced = false;
	r->pred_synced_down = false;
	r->took_over = false;
	r->holding = false;
	r->copies_wait = 0;
	r->home_open = !replica_enabled(n);
	r->stopping = false;
	atomic64_set(&r->bytes, 0);
	atomic64_set(&r->nr_sent, 0);
	atomic64_set(&r->nr_acked, 0);
	atomic64_set(&r->nr_recv, 0);
	atomic64_set(&r->nr_degraded, 0);
	atomic64_set(&r->nr_resyncs, 0);
	atomic64_set(&r->nr_failovers, 0);
	atomic64_set(&r->nr_window_waits, 0);
	atomic64_set(&r->nr_window_full, 0);
	r->in_nr = 0;
	r->in_peak = 0;
	r->resync_end = jiffies;
	r->resyncing = false;
	init_from_pmem(n);
}

/* The transport is there: watch over the backup's sync from now on. */
void ddsm_replica_run(struct ddsm_node *n)
{
	if (replica_enabled(n))
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
	r->in_nr = 0;
}
