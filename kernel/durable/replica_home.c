// SPDX-License-Identifier: GPL-2.0
/*
 * Backup homes, the home's side (replica.c says the whole): each image
 * made durable here goes to the backup in a REPLICA, in timestamp order
 * per unit (persist.c sends under p->lock); what the home promises waits
 * for the backup's REPLICA_ACKs, outside p->lock.  A backup that is down
 * or does not answer degrades the pair to home-only until a resync
 * (replica.c) is through.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/highmem.h>
#include <linux/slab.h>
#include "../node/node.h"
#include "../node/trace.h"
#include "durable.h"
#include "replica.h"

static const char *const link_names[] = {
	[DDSM_LINK_LOST] = "lost",
	[DDSM_LINK_BEHIND] = "behind",
	[DDSM_LINK_SYNCED] = "synced",
};

/* The moves durable.h draws: from each state, where it may go. */
static const u8 link_moves[DDSM_LINK_NR_STATES] = {
	[DDSM_LINK_LOST] = BIT(DDSM_LINK_BEHIND),
	[DDSM_LINK_BEHIND] = BIT(DDSM_LINK_SYNCED) | BIT(DDSM_LINK_LOST),
	[DDSM_LINK_SYNCED] = BIT(DDSM_LINK_BEHIND) | BIT(DDSM_LINK_LOST),
};

/*
 * Under r->lock.  A move not in link_moves[] is a bug in the caller's
 * check: refused, so promises stay home-only rather than wait on a
 * backup that was never shown to be in sync.
 */
static bool replica_link_move(struct ddsm_node *n, enum ddsm_replica_link to)
{
	struct ddsm_replica *r = &n->replica;
	enum ddsm_replica_link from = r->link;

	if (!(link_moves[from] & BIT(to))) {
		trace_ddsm_replica_link(replica_backup(n), link_names[from],
					"refused");
		pr_warn_ratelimited("backup node %u: link %s -> %s refused\n",
				    replica_backup(n), link_names[from],
				    link_names[to]);
		return false;
	}
	trace_ddsm_replica_link(replica_backup(n), link_names[from],
				link_names[to]);
	WRITE_ONCE(r->link, to);
	return true;
}

/*
 * Go on without the backup: what the home promises is durable here only
 * until a resync is through.  @lost: images may be missing there (a send
 * failed, the backup went down), so only a resync ends it.
 */
void ddsm_replica_degrade(struct ddsm_node *n, const char *why, bool lost)
{
	struct ddsm_replica *r = &n->replica;
	bool first;

	spin_lock(&r->lock);
	/* Unloading: the transport is going, nobody waits any more. */
	first = r->link == DDSM_LINK_SYNCED && !r->stopping;
	if (lost) {
		if (r->link != DDSM_LINK_LOST)
			replica_link_move(n, DDSM_LINK_LOST);
		/* An answer to a resync begun before is no proof now. */
		r->sync_pending = false;
	} else if (r->link == DDSM_LINK_SYNCED) {
		replica_link_move(n, DDSM_LINK_BEHIND);
	}
	spin_unlock(&r->lock);
	wake_up_all(&r->wait);
	/* A backup still there missed an image: give it all again. */
	if (lost && replica_peer_up(n, replica_backup(n)))
		replica_queue(r, &r->resync);
	if (first && r->was_synced) {
		atomic64_inc(&r->nr_degraded);
		pr_warn("backup node %u %s: durable on this home only until it is resynced\n",
			replica_backup(n), why);
	}
}

u32 ddsm_replica_ticket(struct ddsm_node *n)
{
	return READ_ONCE(n->replica.sent);
}

/*
 * The window (issue 16): a home has at most DDSM_REPLICA_WINDOW images
 * unacknowledged, so a slow backup bounds what waits in this node's send
 * queue and in the backup's worker queue, whatever the space's size.
 * No backup to send to (none, down, unloading): nothing to wait for.
 */
u32 ddsm_replica_window_free(struct ddsm_node *n)
{
	struct ddsm_replica *r = &n->replica;
	u32 out = READ_ONCE(r->sent) - READ_ONCE(r->acked);

	if (!replica_enabled(n) || READ_ONCE(r->stopping) ||
	    !replica_peer_up(n, replica_backup(n)))
		return DDSM_REPLICA_WINDOW;
	return out < DDSM_REPLICA_WINDOW ? DDSM_REPLICA_WINDOW - out : 0;
}

void ddsm_replica_wait_window(struct ddsm_node *n, u32 need)
{
	struct ddsm_replica *r = &n->replica;

	if (ddsm_replica_window_free(n) >= need)
		return;
	atomic64_inc(&r->nr_window_waits);
	/* Bounded: a backup that does not answer is degraded by the send. */
	wait_event_killable_timeout(r->wait,
				    ddsm_replica_window_free(n) >= need,
				    msecs_to_jiffies(ddsm_fault_timeout_ms()));
}

int ddsm_replica_send(struct ddsm_node *n, u64 unit, u64 ts, const void *img)
{
	struct ddsm_replica *r = &n->replica;
	struct page *page;
	struct ddsm_msg m = {
		.type = DDSM_MSG_REPLICA,
		.flags = DDSM_MF_DATA,
		.src = (u16)n->space.node_id,
		.dst = (u16)replica_backup(n),
		.requester = (u16)n->space.node_id,
		.unit = unit,
		.copyset = ts,
	};
	int ret;

	if (!replica_enabled(n) || READ_ONCE(r->stopping))
		return 0;
	/* No failback: units taken over from us are not ours to replicate. */
	if (ddsm_unit_home(&n->space, unit) != n->space.node_id)
		return 0;
	if (!replica_peer_up(n, m.dst)) {
		ddsm_replica_degrade(n, "is down", true);
		return -ENOTCONN;
	}
	/* Never more out than the window: it gets every image again later. */
	if (!ddsm_replica_window_free(n)) {
		atomic64_inc(&r->nr_window_full);
		ddsm_replica_degrade(n, "is too slow (its window is full)", true);
		return -EBUSY;
	}
	/* The transport holds its own reference until the send is done. */
	page = alloc_page(GFP_KERNEL);
	if (!page) {
		ddsm_replica_degrade(n, "could not be sent an image (no memory)", true);
		return -ENOMEM;
	}
	memcpy_to_page(page, 0, img, PAGE_SIZE);
	m.seq = r->sent + 1;
	ret = ddsm_node_send(n, &m, page);
	put_page(page);
	if (ret) {
		ddsm_replica_degrade(n, "is unreachable", true);
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

	if (!replica_enabled(n))
		return;
	if (replica_send_simple(n, DDSM_MSG_REPLICA_SYNC, replica_backup(n), seq, 0, 0)) {
		ddsm_replica_degrade(n, "is unreachable", true);
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

	return replica_seq_reached(READ_ONCE(r->acked), ticket) ||
	       READ_ONCE(r->link) != DDSM_LINK_SYNCED ||
	       READ_ONCE(r->stopping) ||
	       !replica_peer_up(n, replica_backup(n));
}

void ddsm_replica_wait(struct ddsm_node *n, u32 ticket)
{
	struct ddsm_replica *r = &n->replica;
	long left;

	if (!replica_enabled(n) || replica_seq_reached(READ_ONCE(r->acked), ticket))
		return;
	left = wait_event_killable_timeout(r->wait, waited_enough(n, ticket),
					   msecs_to_jiffies(ddsm_fault_timeout_ms()));
	/* A dying caller: nobody is left to be promised anything. */
	if (left == -ERESTARTSYS)
		return;
	if (replica_seq_reached(READ_ONCE(r->acked), ticket) ||
	    READ_ONCE(r->link) != DDSM_LINK_SYNCED)
		return;
	if (!replica_peer_up(n, replica_backup(n)))
		ddsm_replica_degrade(n, "is down", true);
	else if (!left)
		ddsm_replica_degrade(n, "did not answer in time", false);
}

void ddsm_replica_acked(struct ddsm_node *n, const struct ddsm_msg *m)
{
	struct ddsm_replica *r = &n->replica;
	bool synced_now = false;

	if (m->err) {
		ddsm_replica_degrade(n, "failed to persist an image", true);
		return;
	}
	spin_lock(&r->lock);
	if (!replica_seq_reached(r->acked, m->seq)) {
		atomic64_add(m->seq - r->acked, &r->nr_acked);
		WRITE_ONCE(r->acked, m->seq);
	}
	if (r->sync_pending && replica_seq_reached(m->seq, r->sync_seq)) {
		r->sync_pending = false;
		if (r->link == DDSM_LINK_LOST)
			replica_link_move(n, DDSM_LINK_BEHIND);
		synced_now = true;
	}
	/* Caught up with everything sent while in sync: whole again. */
	if (r->link == DDSM_LINK_BEHIND && r->acked == READ_ONCE(r->sent))
		replica_link_move(n, DDSM_LINK_SYNCED);
	spin_unlock(&r->lock);
	wake_up_all(&r->wait);
	if (synced_now) {
		r->was_synced = true;
		atomic64_inc(&r->nr_resyncs);
		pr_info("backup node %u in sync\n", replica_backup(n));
	}
}

void ddsm_replica_status(struct ddsm_node *n, struct ddsm_pmem_status *s)
{
	struct ddsm_replica *r = &n->replica;

	if (!replica_enabled(n))
		return;
	s->flags |= DDSM_PMEM_BACKUP;
	if (READ_ONCE(r->link) == DDSM_LINK_SYNCED)
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
	s->replica_window_waits = atomic64_read(&r->nr_window_waits);
	s->replica_window_full = atomic64_read(&r->nr_window_full);
	s->replica_in_peak = READ_ONCE(r->in_peak);
}
