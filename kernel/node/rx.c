// SPDX-License-Identifier: GPL-2.0
/*
 * The receive path: every message is decoded and validated before
 * anything trusts it, handed to the directory (home side), the cache
 * (requester side) or the wing it belongs to (tx/, durable/), and the
 * actions the protocol returns are carried out (send.c).  Peers coming
 * and going settle here too.
 */
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/printk.h>
#include "node.h"
#include "trace.h"
#include "../tx/tx.h"

/* Home memory for a request's unit must exist before home can serve it. */
static bool home_frame_ready(struct ddsm_node *n, const struct ddsm_msg *m)
{
	if (m->type != DDSM_MSG_READ_MISS && m->type != DDSM_MSG_WRITE_MISS &&
	    m->type != DDSM_MSG_WRITE_SHARED)
		return true;
	return !!ddsm_frame_get(n, m->unit, GFP_KERNEL);
}

/*
 * A coherence request for a unit of a transactional region: its data
 * must never be mapped (docs/transactions.md), whatever let a fault come
 * this far (an mmap racing the region's declaration elsewhere).
 */
static bool transactional(struct ddsm_node *n, const struct ddsm_msg *m)
{
	if (m->type != DDSM_MSG_READ_MISS && m->type != DDSM_MSG_WRITE_MISS &&
	    m->type != DDSM_MSG_WRITE_SHARED)
		return false;
	return ddsm_tx_region_overlaps(n, ddsm_unit_gaddr(m->unit),
				       DDSM_UNIT_SIZE);
}

static void refuse(struct ddsm_node *n, const struct ddsm_msg *req, u8 err,
		   struct ddsm_actions *acts)
{
	struct ddsm_msg m = {
		.type = DDSM_MSG_NACK,
		.err = err,
		.src = (u16)n->space.node_id,
		.dst = req->requester,
		.requester = req->requester,
		.seq = req->seq,
		.unit = req->unit,
	};

	ddsm_act_send(acts, &m);
}

/*
 * A fault that was granted @unit installed its PTE and released home, but
 * the instruction that faulted runs again only when its task next gets
 * the CPU.  On the unit's home, or on one vCPU, the request that takes the
 * unit away can be here first: this thread has real-time priority and
 * may have kept the task off the CPU since, for however long it took
 * (so the time since the grant says nothing).  The access would fault
 * again, for ever under contention.  So the first such request after a
 * grant sleeps grace_us, which lets the task run.
 */
#define DDSM_GRACE_WINDOW_NS	(20 * NSEC_PER_MSEC)

static void let_access_run(struct ddsm_node *n, const struct ddsm_msg *m)
{
	atomic64_t *mark = &n->cl_granted_ns[ddsm_cl_hash(m->unit)];
	u64 since = atomic64_read(mark);
	unsigned long us = ddsm_grace_us();
	u64 now;

	if (m->type != DDSM_MSG_INV && m->type != DDSM_MSG_FETCH &&
	    m->type != DDSM_MSG_FETCH_INV && m->type != DDSM_MSG_RUN_DEFERRED)
		return;
	if (!since || !us)
		return;
	now = ktime_get_ns();
	if (now - since < DDSM_GRACE_WINDOW_NS) {
		atomic64_inc(&n->stats.graces);
		usleep_range(us, us + 20);
		trace_ddsm_grace(m->unit, m->type, us, ktime_get_ns() - now);
	}
	atomic64_cmpxchg(mark, since, 0);
}

void ddsm_rx(void *ctx, u32 from, const void *buf, u32 len,
	     struct page *data, u32 data_len)
{
	struct ddsm_node *n = ctx;
	enum ddsm_msg_verdict v;
	struct ddsm_actions acts;
	struct ddsm_msg m;
	int ret;

	v = ddsm_msg_decode(&n->space, from, buf, len, &m);
	if (v == DDSM_MSG_OK && (!(m.flags & DDSM_MF_DATA) != !data ||
				 (data && !ddsm_msg_data_len_ok(&m, data_len))))
		v = DDSM_MSG_BAD_LENGTH;
	if (v != DDSM_MSG_OK) {
		atomic64_inc(&n->stats.msgs_dropped);
		atomic64_inc(&n->stats.drops[v]);
		trace_ddsm_msg_drop(from, v);
		pr_warn_ratelimited("ddsm: dropped message from node %u: %s\n",
				    from, ddsm_msg_verdict_name(v));
		return;
	}
	atomic64_inc(&n->stats.msgs_recv);
	trace_ddsm_msg_recv(&m);
	if (ddsm_msg_is_persist(m.type)) {
		ddsm_barrier_rx(n, &m);
		return;
	}
	if (ddsm_msg_is_replica(m.type)) {
		ddsm_replica_rx(n, &m, data);
		return;
	}
	if (ddsm_msg_is_tx(m.type)) {
		if (ddsm_msg_tx_to_home(m.type))
			ddsm_tx_home_rx(n, &m, data, data_len);
		else
			ddsm_tx_coord_rx(n, &m, data, data_len);
		return;
	}
	let_access_run(n, &m);

	mutex_lock(&n->rx_lock);
	ddsm_actions_init(&acts, n->rx_actions, DDSM_MAX_ACTIONS);
	if (ddsm_msg_to_home(m.type)) {
		if (ddsm_replica_gated(n, &m) ||
		    ddsm_unit_home(&n->space, m.unit) != n->space.node_id) {
			/*
			 * Not ours to serve before our backup said so, or
			 * any more since it took the unit over: ask again.
			 */
			refuse(n, &m, EAGAIN, &acts);
			ret = 0;
		} else if (transactional(n, &m)) {
			pr_warn_ratelimited("ddsm: node %u faulted on unit %llu of a transactional region: refused\n",
					    m.requester, m.unit);
			refuse(n, &m, EACCES, &acts);
			ret = 0;
		} else if (home_frame_ready(n, &m)) {
			ret = ddsm_dir_handle(&n->dir, &m, &acts);
		} else {
			refuse(n, &m, ENOMEM, &acts);
			ret = 0;
		}
	} else {
		struct mutex *cl = ddsm_cl_lock(n, m.unit);

		mutex_lock(cl);
		ret = ddsm_cache_handle(&n->cache, &m, &acts);
		ddsm_run_stores(n, &acts, data);
		mutex_unlock(cl);
	}
	if (ret) {
		atomic64_inc(&n->stats.proto_errors);
		pr_warn_ratelimited("ddsm: unexpected %s for unit %llu from node %u\n",
				    ddsm_msg_type_name(m.type), m.unit, m.src);
	}
	ddsm_run_actions(n, &acts, data);
	mutex_unlock(&n->rx_lock);
}

/*
 * A peer came back: a new incarnation that holds nothing, or the same one
 * after a false death, with dirty copies to return (rejoin.c).  Either
 * way it may take part in outcomes again.
 */
static void peer_up(struct ddsm_node *n, u32 node)
{
	atomic64_inc(&n->stats.peer_ups);
	mutex_lock(&n->rx_lock);
	ddsm_dir_node_up(&n->dir, node);
	ddsm_cache_node_up(&n->cache, node);
	ddsm_rejoin_up(n, node);
	mutex_unlock(&n->rx_lock);
	ddsm_tx_home_peer_up(n, node);
	ddsm_tx_coord_peer_up(n, node);
	ddsm_replica_peer(n, node, true);
	wake_up_all(&n->peer_wait);
}

/*
 * A peer went down (declared dead, disconnected, unloaded): whatever was
 * in flight to or from it is lost, so the protocol settles every unit it
 * touched: home-side locks and copyset bits it held, events here that
 * wait for its ACK or its data, and our copies of units it homes.
 */
static void peer_down(struct ddsm_node *n, u32 node)
{
	u64 unit, changed = 0;

	atomic64_inc(&n->stats.peer_downs);
	mutex_lock(&n->rx_lock);
	ddsm_dir_node_dead(&n->dir, node);
	ddsm_cache_node_dead(&n->cache, node);
	for (unit = 0; unit < n->space.nr_units; unit++) {
		struct mutex *cl = ddsm_cl_lock(n, unit);
		struct ddsm_actions acts;

		ddsm_actions_init(&acts, n->rx_actions, DDSM_MAX_ACTIONS);
		if (ddsm_unit_home(&n->space, unit) == n->space.node_id)
			ddsm_dir_reclaim(&n->dir, unit, node, &acts);
		mutex_lock(cl);
		changed += ddsm_cache_peer_lost(&n->cache, unit, node, &acts);
		mutex_unlock(cl);
		ddsm_run_actions(n, &acts, NULL);
		if (!(unit & 1023))
			cond_resched();
	}
	mutex_unlock(&n->rx_lock);
	ddsm_rejoin_down(n, node);
	ddsm_barrier_peer_down(n, node);
	ddsm_tx_home_peer_down(n, node);
	ddsm_tx_coord_peer_down(n, node);
	ddsm_replica_peer(n, node, false);
	pr_info("ddsm: node %u gone: %llu units settled, %llu units now lost here, %llu orphaned copies kept\n",
		node, changed, n->dir.stats.lost - n->dir.stats.restored,
		n->cache.stats.orphans - n->cache.stats.orphans_dropped -
		n->cache.stats.orphans_returned);
}

void ddsm_peer_event(void *ctx, u32 node, bool up)
{
	struct ddsm_node *n = ctx;

	if (node >= n->space.nr_nodes || node == n->space.node_id)
		return;
	if (up)
		peer_up(n, node);
	else
		peer_down(n, node);
}
