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
 * (docs/persistency.md).  Except with DDSM_PERSIST_ALL in the models whose
 * transfers write the data back home (Read-Enforced, Synchronous,
 * Strict): the writeback is ahead of the PERSIST on the same connection,
 * or the home had it before, so the home's image holds this node's stores.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/slab.h>
#include "../node/node.h"

/*
 * Work for the home's persist pass: a PERSIST to answer, or a grant that
 * goes once its unit is durable (DDSM_ACT_SEND_DURABLE).
 */
struct persist_req {
	struct list_head link;
	struct ddsm_msg reply;
	bool grant;
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
	r = ddsm_node_run_actions(n, &acts, NULL);
	if (ret)
		*ret = r;
}

/*
 * Home side: after one persist pass, answer every PERSIST queued so far
 * and send every grant that waited for it.  A grant goes even when the
 * media failed (coherence does not wait on a broken NVDIMM); the failure
 * is logged and counted.  After a power failure played by pmem_check the
 * node is off: nothing goes, as nothing would from a machine without
 * power, and the requesters wait as for a dead home.
 */
static void serve_persists(struct work_struct *w)
{
	struct ddsm_barrier *b = container_of(w, struct ddsm_barrier, work);
	struct ddsm_node *n = container_of(b, struct ddsm_node, barrier);
	struct persist_req *req, *tmp;
	struct ddsm_action buf[1];
	struct ddsm_actions acts;
	u64 lo = U64_MAX, hi = 0, *units;
	LIST_HEAD(reqs);
	u32 nr = 0;
	bool off;
	int err;
	u8 why;

	spin_lock(&b->lock);
	list_splice_init(&b->reqs, &reqs);
	spin_unlock(&b->lock);
	if (list_empty(&reqs))
		return;
	list_for_each_entry(req, &reqs, link) {
		lo = min(lo, req->reply.unit);
		hi = max(hi, req->reply.unit);
		nr++;
	}
	/*
	 * The units asked for, in batches; without memory for the list, one
	 * pass over their span (dirty units of no request cost only time).
	 */
	units = kmalloc_array(nr, sizeof(*units), GFP_KERNEL);
	if (units) {
		nr = 0;
		list_for_each_entry(req, &reqs, link)
			units[nr++] = req->reply.unit;
		err = ddsm_persist_units(n, units, nr);
		kfree(units);
	} else {
		err = ddsm_persist_range(n, ddsm_unit_gaddr(lo),
					 ddsm_unit_gaddr(hi - lo + 1));
	}
	why = err == -ENODEV ? ENODEV : err ? EIO : 0;
	/* A simulated power failure: a node without power sends nothing. */
	off = err && ddsm_persist_crashed(n);
	list_for_each_entry_safe(req, tmp, &reqs, link) {
		if (off) {
			atomic64_inc(&n->stats.durable_errors);
			list_del(&req->link);
			kfree(req);
			continue;
		}
		if (!req->grant) {
			req->reply.err = why;
		} else if (why) {
			atomic64_inc(&n->stats.durable_errors);
			pr_err_ratelimited("unit %llu granted to node %u before it was durable: %d\n",
					   req->reply.unit, req->reply.dst,
					   err);
		}
		ddsm_actions_init(&acts, buf, ARRAY_SIZE(buf));
		ddsm_act_send(&acts, &req->reply);
		ddsm_node_run_actions(n, &acts, NULL);
		list_del(&req->link);
		kfree(req);
	}
	atomic64_inc(&n->stats.persist_served);
}

/* Queue @req for the worker; false (and @req freed) once stopping. */
static bool queue_persist(struct ddsm_node *n, struct persist_req *req)
{
	struct ddsm_barrier *b = &n->barrier;
	bool stopping;

	spin_lock(&b->lock);
	stopping = b->stopping;
	if (!stopping) {
		list_add_tail(&req->link, &b->reqs);
		/* Under the lock: quiesce's cancel comes after, never before. */
		queue_work(system_unbound_wq, &b->work);
	}
	spin_unlock(&b->lock);
	if (stopping)
		kfree(req);
	return !stopping;
}

void ddsm_send_durable(struct ddsm_node *n, const struct ddsm_msg *m)
{
	struct ddsm_action buf[1];
	struct ddsm_actions acts;
	struct persist_req *req;

	req = kmalloc(sizeof(*req), GFP_KERNEL);
	if (req) {
		req->reply = *m;
		req->grant = true;
		/* Stopping: the node is leaving, and its peers see it go. */
		queue_persist(n, req);
		return;
	}
	/* As for a failed media: late durability beats a stuck unit. */
	atomic64_inc(&n->stats.durable_errors);
	pr_err_ratelimited("unit %llu granted to node %u before it was durable: -ENOMEM\n",
			   m->unit, m->dst);
	ddsm_actions_init(&acts, buf, ARRAY_SIZE(buf));
	ddsm_act_send(&acts, m);
	ddsm_node_run_actions(n, &acts, NULL);
}

static void barrier_acked(struct ddsm_node *n, const struct ddsm_msg *m)
{
	struct ddsm_barrier *b = &n->barrier;

	/* An answer to a barrier that already gave up: nobody waits. */
	if (m->seq != READ_ONCE(b->seq))
		return;
	if (m->err)
		cmpxchg(&b->err, 0, -(int)m->err);
	/* The last answer, or room in the window again. */
	switch (atomic_dec_return(&b->pending)) {
	case 0:
	case DDSM_PERSIST_WINDOW:
		wake_up_all(&b->wait);
	}
}

/*
 * At most DDSM_PERSIST_WINDOW PERSISTs out at once (issue 16): what a
 * home queues for the barriers of all its peers is bounded, however
 * large the range.  @b->pending counts the barrier's own reference too.
 */
static int window_room(struct ddsm_barrier *b, unsigned int ms)
{
	long left;

	if (atomic_read(&b->pending) <= DDSM_PERSIST_WINDOW)
		return 0;
	left = wait_event_killable_timeout(b->wait,
					   atomic_read(&b->pending) <=
					   DDSM_PERSIST_WINDOW ||
					   READ_ONCE(b->home_died),
					   msecs_to_jiffies(ms));
	if (left == -ERESTARTSYS)
		return -EINTR;
	if (READ_ONCE(b->home_died))
		return -EHOSTDOWN;
	return left ? 0 : -ETIMEDOUT;
}

void ddsm_barrier_rx(struct ddsm_node *n, const struct ddsm_msg *m)
{
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
	req->reply = (struct ddsm_msg){
		.type = DDSM_MSG_PERSIST_ACK,
		.src = (u16)n->space.node_id,
		.dst = m->requester,
		.requester = m->requester,
		.seq = m->seq,
		.unit = m->unit,
	};
	req->grant = false;
	queue_persist(n, req);
}

/*
 * A unit not held dirty here (any more): what this node sent its home
 * about it must be ahead of the PERSIST.  An eviction on its way is in
 * once its EVICT_ACK is; a writeback the receive path sent for a FETCH is
 * out once the receive path lets go of rx_lock, under which it handled
 * the FETCH and sent the writeback.  Returns 0, -ETIMEDOUT (the eviction
 * is still out) or -EHOSTDOWN (a dirty copy whose home went away: kept
 * for its return, not durable).
 */
static int settle_unit(struct ddsm_node *n, u64 unit, unsigned int ms)
{
	struct ddsm_cline *l = ddsm_cache_line(&n->cache, unit);
	u8 st;

	wait_event_timeout(*ddsm_cl_wait(n, unit),
			   READ_ONCE(l->state) != DDSM_C_MI_A &&
			   READ_ONCE(l->state) != DDSM_C_SI_A,
			   msecs_to_jiffies(ms));
	mutex_lock(&n->rx_lock);
	mutex_unlock(&n->rx_lock);
	st = READ_ONCE(l->state);
	if (st == DDSM_C_MO)
		return -EHOSTDOWN;
	return st == DDSM_C_MI_A || st == DDSM_C_SI_A ? -ETIMEDOUT : 0;
}

/*
 * Must a PERSIST for @unit (homed elsewhere) follow?  A dirty copy goes
 * home first (the eviction carries it); one already on its way is waited
 * for; with DDSM_PERSIST_ALL a unit not held is persisted at home all the
 * same.  A dirty copy whose home is gone makes the barrier fail.
 */
static int barrier_unit(struct ddsm_node *n, u64 unit, u32 flags,
			unsigned int ms)
{
	u8 st = READ_ONCE(ddsm_cache_line(&n->cache, unit)->state);

	if (st == DDSM_C_M && ddsm_node_evict(n, unit, false, false))
		return 1;
	st = READ_ONCE(ddsm_cache_line(&n->cache, unit)->state);
	if (st == DDSM_C_MO)
		return -EHOSTDOWN;
	if (st != DDSM_C_MI_A && !(flags & DDSM_PERSIST_ALL))
		return 0;
	return settle_unit(n, unit, ms) ?: 1;
}

/* Every PERSIST_ACK of the barrier, within @ms; 0 or the errno. */
static int wait_answers(struct ddsm_barrier *b, unsigned int ms)
{
	long left;

	left = wait_event_killable_timeout(b->wait,
					   !atomic_read(&b->pending) ||
					   READ_ONCE(b->home_died),
					   msecs_to_jiffies(ms));
	if (left == -ERESTARTSYS)
		return -EINTR;
	if (atomic_read(&b->pending) && READ_ONCE(b->home_died))
		return -EHOSTDOWN;
	if (!left && atomic_read(&b->pending))
		return -ETIMEDOUT;
	return 0;
}

int ddsm_barrier(struct ddsm_node *n, u64 gaddr, u64 len, u32 flags)
{
	struct ddsm_barrier *b = &n->barrier;
	unsigned int timeout_ms = ddsm_fault_timeout_ms();
	u64 unit, first, end, sent = 0;
	int ret, err = 0;
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
	WRITE_ONCE(b->homes, 0);
	WRITE_ONCE(b->home_died, false);
	atomic_set(&b->pending, 1);	/* ours, dropped after the sends */
	WRITE_ONCE(b->seq, seq);
	for (unit = first; unit < end; unit++) {
		u32 home = ddsm_unit_home(&n->space, unit);

		/* A whole 64 GiB space is 16M units to look at. */
		if (!(unit & 1023))
			cond_resched();
		if (home == n->space.node_id)
			continue;
		ret = barrier_unit(n, unit, flags, timeout_ms);
		if (ret <= 0) {
			err = err ?: ret;
			continue;
		}
		ret = window_room(b, timeout_ms);
		if (ret) {
			err = err ?: ret;
			break;
		}
		atomic_inc(&b->pending);
		/* Before the send: its death may come right after it. */
		if (!(b->homes & BIT_ULL(home)))
			WRITE_ONCE(b->homes, b->homes | BIT_ULL(home));
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
	if (!atomic_dec_and_test(&b->pending))
		err = err ?: wait_answers(b, timeout_ms);
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

void ddsm_barrier_peer_down(struct ddsm_node *n, u32 node)
{
	struct ddsm_barrier *b = &n->barrier;

	/*
	 * Its answer will never come: do not make the caller wait for
	 * fault_timeout_ms (a backup home may serve the units soon, and a
	 * durable write that failed is tried again there).
	 */
	if (node < DDSM_MAX_NODES && (READ_ONCE(b->homes) & BIT_ULL(node))) {
		WRITE_ONCE(b->home_died, true);
		wake_up_all(&b->wait);
	}
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

void ddsm_barrier_quiesce(struct ddsm_node *n)
{
	struct ddsm_barrier *b = &n->barrier;

	spin_lock(&b->lock);
	b->stopping = true;
	spin_unlock(&b->lock);
	cancel_work_sync(&b->work);
}

void ddsm_barrier_resume(struct ddsm_node *n)
{
	struct ddsm_barrier *b = &n->barrier;

	spin_lock(&b->lock);
	b->stopping = false;
	spin_unlock(&b->lock);
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
