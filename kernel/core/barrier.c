// SPDX-License-Identifier: GPL-2.0
/*
 * The Scope barrier (issue 12): DDSM_IOC_PERSIST, msync(MS_SYNC) and fsync
 * return once what this node wrote in the range is durable at its homes.
 *
 * A unit homed elsewhere that this node holds dirty (M) goes back to its
 * home first, by the eviction the cache already knows (EVICT_MODIFIED
 * carries the data and updates home memory), and then a PERSIST follows
 * it on the same connection, so the home has stored the data by the time
 * it reads the PERSIST.  The home makes the unit durable (persist.c) and
 * answers PERSIST_ACK; the barrier waits for every answer, bounded by
 * fault_timeout_ms.  These are MINOS's persist messages: they change no
 * coherence state, and the directory never sees them.
 *
 * Not covered: a unit this node wrote and lost to another writer before
 * the barrier.  Its newest data, this node's stores included, is then in
 * the other node's copy and becomes durable when that copy goes home
 * (docs/persistency.md).
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/slab.h>
#include "ddsm.h"

struct persist_req {
	struct list_head link;
	u64 unit;
	u32 seq;
	u16 requester;
};

static void send_persist_msg(struct ddsm_node *n, u8 type, u64 unit,
			     u16 dst, u16 requester, u32 seq, u8 err,
			     int *ret)
{
	struct ddsm_action buf[1];
	struct ddsm_actions acts;
	struct ddsm_msg m = {
		.type = type,
		.err = err,
		.src = (u16)n->space.node_id,
		.dst = dst,
		.requester = requester,
		.seq = seq,
		.unit = unit,
	};
	int r;

	ddsm_actions_init(&acts, buf, ARRAY_SIZE(buf));
	ddsm_act_send(&acts, &m);
	r = ddsm_run_actions(n, &acts, NULL);
	if (ret)
		*ret = r;
}

/* Home side: answer every PERSIST queued so far, after one persist pass. */
static void serve_persists(struct work_struct *w)
{
	struct ddsm_barrier *b = container_of(w, struct ddsm_barrier, work);
	struct ddsm_node *n = container_of(b, struct ddsm_node, barrier);
	struct persist_req *req, *tmp;
	u64 lo = U64_MAX, hi = 0;
	LIST_HEAD(reqs);
	int err;
	u8 why;

	spin_lock(&b->lock);
	list_splice_init(&b->reqs, &reqs);
	spin_unlock(&b->lock);
	if (list_empty(&reqs))
		return;
	list_for_each_entry(req, &reqs, link) {
		lo = min(lo, req->unit);
		hi = max(hi, req->unit);
	}
	/* One pass over the span: dirty units of no request cost no harm. */
	err = ddsm_persist_range(n, ddsm_unit_gaddr(lo),
				 ddsm_unit_gaddr(hi - lo + 1));
	why = err == -ENODEV ? ENODEV : err ? EIO : 0;
	list_for_each_entry_safe(req, tmp, &reqs, link) {
		send_persist_msg(n, DDSM_MSG_PERSIST_ACK, req->unit,
				 req->requester, req->requester, req->seq, why,
				 NULL);
		list_del(&req->link);
		kfree(req);
	}
	atomic64_inc(&n->stats.persist_served);
}

static void barrier_acked(struct ddsm_node *n, const struct ddsm_msg *m)
{
	struct ddsm_barrier *b = &n->barrier;

	/* An answer to a barrier that already gave up: nobody waits. */
	if (m->seq != READ_ONCE(b->seq))
		return;
	if (m->err)
		cmpxchg(&b->err, 0, -(int)m->err);
	if (atomic_dec_and_test(&b->pending))
		wake_up_all(&b->wait);
}

void ddsm_barrier_rx(struct ddsm_node *n, const struct ddsm_msg *m)
{
	struct ddsm_barrier *b = &n->barrier;
	struct persist_req *req;

	if (m->type == DDSM_MSG_PERSIST_ACK) {
		barrier_acked(n, m);
		return;
	}
	req = kmalloc(sizeof(*req), GFP_KERNEL);
	if (!req) {
		send_persist_msg(n, DDSM_MSG_PERSIST_ACK, m->unit,
				 m->requester, m->requester, m->seq, ENOMEM,
				 NULL);
		return;
	}
	req->unit = m->unit;
	req->seq = m->seq;
	req->requester = m->requester;
	spin_lock(&b->lock);
	list_add_tail(&req->link, &b->reqs);
	spin_unlock(&b->lock);
	queue_work(system_unbound_wq, &b->work);
}

int ddsm_barrier(struct ddsm_node *n, u64 gaddr, u64 len)
{
	struct ddsm_barrier *b = &n->barrier;
	unsigned int timeout_ms = ddsm_fault_timeout_ms();
	u64 unit, first, end, sent = 0;
	int ret, err = 0;
	long left;
	u32 seq;

	/* Homes without pmem answer ENODEV; this node would have to too. */
	if (!n->persist)
		return -ENODEV;
	if (!len)
		return 0;
	first = ddsm_gaddr_unit(gaddr);
	end = ddsm_gaddr_unit(gaddr + len - 1) + 1;
	mutex_lock(&b->run);
	seq = READ_ONCE(b->seq) + 1;
	b->err = 0;
	atomic_set(&b->pending, 1);	/* ours, dropped after the sends */
	WRITE_ONCE(b->seq, seq);
	for (unit = first; unit < end; unit++) {
		u32 home = ddsm_unit_home(&n->space, unit);

		/* A whole 64 GiB space is 16M units to look at. */
		if (!(unit & 1023))
			cond_resched();
		if (home == n->space.node_id ||
		    READ_ONCE(ddsm_cache_line(&n->cache, unit)->state) !=
		    DDSM_C_M)
			continue;
		if (!ddsm_evict(n, unit, false))
			continue;
		atomic_inc(&b->pending);
		send_persist_msg(n, DDSM_MSG_PERSIST, unit, home,
				 n->space.node_id, seq, 0, &ret);
		if (ret) {
			atomic_dec(&b->pending);
			err = err ?: -EHOSTDOWN;
			continue;
		}
		sent++;
	}
	/* The units homed here, meanwhile. */
	ret = ddsm_persist_range(n, gaddr, len);
	if (ret)
		err = err ?: ret;
	if (!atomic_dec_and_test(&b->pending)) {
		left = wait_event_killable_timeout(b->wait,
						   !atomic_read(&b->pending),
						   msecs_to_jiffies(timeout_ms));
		if (left == -ERESTARTSYS)
			err = err ?: -EINTR;
		else if (!left && atomic_read(&b->pending))
			err = err ?: -ETIMEDOUT;
	}
	/* Late answers to this barrier are ignored from here on. */
	WRITE_ONCE(b->seq, seq + 1);
	err = err ?: READ_ONCE(b->err);
	mutex_unlock(&b->run);
	atomic64_add(sent, &n->stats.persist_sent);
	atomic64_inc(&n->stats.barriers);
	if (err)
		pr_warn_ratelimited("persist barrier over %llu units failed: %d\n",
				    end - first, err);
	return err;
}

void ddsm_barrier_init(struct ddsm_node *n)
{
	struct ddsm_barrier *b = &n->barrier;

	mutex_init(&b->run);
	spin_lock_init(&b->lock);
	INIT_LIST_HEAD(&b->reqs);
	INIT_WORK(&b->work, serve_persists);
	init_waitqueue_head(&b->wait);
	atomic_set(&b->pending, 0);
}

void ddsm_barrier_stop(struct ddsm_node *n)
{
	struct ddsm_barrier *b = &n->barrier;
	struct persist_req *req, *tmp;

	cancel_work_sync(&b->work);
	list_for_each_entry_safe(req, tmp, &b->reqs, link) {
		list_del(&req->link);
		kfree(req);
	}
}
