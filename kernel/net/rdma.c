// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA transport: the transport's ops, and making and unmaking it.
 *
 * Control messages travel by SEND into pre-posted receives, with a 4 KiB
 * unit in a second SGE when the message carries data, under credit flow
 * control (rdma_tx.c, rdma_credit.h); received messages reach the core
 * through one delivery thread (rdma_rx.c); liveness is watched by a timer
 * that suspects, probes and only then declares a peer dead (rdma_live.c).
 * One-sided page transfers (RDMA READ/WRITE) reach only the peer's
 * registered frame pool, through an rkey valid on that one connection.
 *
 * Completions are polled in softirq (IB_POLL_SOFTIRQ); nothing there
 * sleeps: work that may sleep (the core, connection teardown) runs in the
 * delivery thread or on the ordered workqueue.
 *
 * The higher id of a pair connects and reconnects every reconnect_ms; the
 * lower one accepts and replaces a stale connection.  A connection's life
 * as the core sees it: "up" is queued on the ordered workqueue after the
 * release of any earlier connection to the same peer, whose "down" was
 * queued first, so an incarnation's cleanup always runs before its
 * successor's first message.
 *
 * Files, each calling only the ones after it (docs/design.md, "Layers"):
 * this one; rdma_live.c (the timer, reconnecting); rdma_cm.c (rdma_cm
 * events, connecting, accepting, listening); rdma_rx.c (receives, the
 * delivery thread); rdma_hello.c (HELLO and AUTH, between established
 * and "up"); rdma_tx.c (sends, credits); rdma_conn.c (a connection's
 * verbs resources, its state, its failure and its "up"); trace_net.c
 * (the tracepoints).  rdma_io.c: one-sided transfers, self-test build.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include "rdma.h"

static void rdma_peer_info(struct ddsm_transport *t,
			   struct ddsm_peer_info *info)
{
	struct rdma_tp *tp = to_rdma(t);
	struct rdma_peer *peer;

	if (info->index == t->self) {
		tp->loop->ops->peer_info(tp->loop, info);
		info->node_id = t->self;
		strscpy(info->addr, tp->peers[t->self].addr_str,
			sizeof(info->addr));
		return;
	}
	peer = &tp->peers[info->index];
	info->node_id = peer->node;
	info->state = READ_ONCE(peer->state);
	info->msgs_sent = atomic64_read(&peer->msgs_sent);
	info->msgs_recv = atomic64_read(&peer->msgs_recv);
	info->bytes_sent = atomic64_read(&peer->bytes_sent);
	info->bytes_recv = atomic64_read(&peer->bytes_recv);
	info->drops = atomic64_read(&peer->drops);
	info->retries = atomic64_read(&peer->retries);
	info->deaths = atomic64_read(&peer->deaths);
	info->suspicions = atomic64_read(&peer->suspicions);
	info->probes_ok = atomic64_read(&peer->probes_ok);
	info->ctrl_sent = atomic64_read(&peer->ctrl_sent);
	info->auth_failures = atomic64_read(&peer->auth_failures);
	info->setup_timeouts = atomic64_read(&peer->setup_timeouts);
	info->txq_peak = READ_ONCE(peer->txq_peak);
	info->txq_waits = atomic64_read(&peer->txq_waits);
	info->txq_overflows = atomic64_read(&peer->txq_overflows);
	strscpy(info->addr, peer->addr_str, sizeof(info->addr));
}

static void free_frames(struct rdma_tp *tp)
{
	u32 i;

	if (!tp->frames)
		return;
	for (i = 0; i < tp->nr_frames; i++)
		if (tp->frames[i])
			__free_page(tp->frames[i]);
	kfree(tp->frames);
}

static void rdma_destroy(struct ddsm_transport *t)
{
	struct rdma_tp *tp = to_rdma(t);
	struct rdma_cm_id *listen_id;
	u32 i;

	WRITE_ONCE(tp->stopping, true);
	del_timer_sync(&tp->tick);
	cancel_work_sync(&tp->connect_work);
	spin_lock_bh(&tp->listen_lock);
	listen_id = tp->listen_id;
	tp->listen_id = NULL;
	spin_unlock_bh(&tp->listen_lock);
	if (listen_id)
		rdma_destroy_id(listen_id);
	for (i = 0; i < tp->nr_nodes; i++) {
		struct rdma_peer *peer = &tp->peers[i];

		spin_lock_bh(&peer->lock);
		if (peer->pending)
			rdma_conn_fail(peer->pending, DDSM_PEER_DOWN,
				       "unloading");
		if (peer->conn)
			rdma_conn_fail(peer->conn, DDSM_PEER_DOWN, "unloading");
		spin_unlock_bh(&peer->lock);
	}
	/* Every release has queued its "down"; then deliver them all. */
	destroy_workqueue(tp->wq);
	rdma_rx_stop(tp);
	for (i = 0; i < tp->nr_nodes; i++)
		rdma_early_free(&tp->peers[i]);
	ddsm_rdma_test_exit(tp);
	tp->loop->ops->destroy(tp->loop);
	mempool_destroy(tp->txq_pool);
	free_frames(tp);
	ddsm_auth_free(&tp->auth);
	kfree(tp);
}

static int rdma_send(struct ddsm_transport *t, u32 dst, const void *buf,
		     u32 len, struct page *data, u32 data_off, u32 data_len)
{
	struct rdma_tp *tp = to_rdma(t);
	int ret;

	if (dst == t->self)
		return ddsm_transport_send(tp->loop, dst, buf, len, data,
					   data_off, data_len);
	if (dst >= tp->nr_nodes)
		return -EINVAL;
	ret = ddsm_rdma_send_msg(tp, dst, buf, len, data, data_off, data_len);
	if (ret)
		atomic64_inc(&tp->peers[dst].retries);
	return ret;
}

static enum ddsm_peer_state rdma_peer_state(struct ddsm_transport *t,
					    u32 node)
{
	struct rdma_tp *tp = to_rdma(t);

	if (node >= tp->nr_nodes)
		return DDSM_PEER_DEAD;
	return READ_ONCE(tp->peers[node].state);
}

static const struct ddsm_transport_ops rdma_ops = {
	.name = "rdma",
	.send = rdma_send,
	.peer_info = rdma_peer_info,
	.peer_state = rdma_peer_state,
	.destroy = rdma_destroy,
};

static int alloc_frames(struct rdma_tp *tp, u32 nr)
{
	u32 i;

	tp->frames = kcalloc(nr, sizeof(*tp->frames), GFP_KERNEL);
	if (!tp->frames)
		return -ENOMEM;
	tp->nr_frames = nr;
	for (i = 0; i < nr; i++) {
		tp->frames[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!tp->frames[i])
			return -ENOMEM;
	}
	return 0;
}

/*
 * The transport's settings from @cfg, its timer, work and queues, and
 * every peer down (this node: self) with its address and queues ready.
 */
static void init_tp(struct rdma_tp *tp, const struct ddsm_rdma_config *cfg,
		    ddsm_recv_fn recv, ddsm_peer_fn peer_event, void *ctx)
{
	u32 i;

	tp->t.ops = &rdma_ops;
	tp->t.recv = recv;
	tp->t.peer_event = peer_event;
	tp->t.ctx = ctx;
	tp->t.self = cfg->self;
	tp->nr_nodes = cfg->nr_nodes;
	/* In range, checked at load (node/params.c), not raised here. */
	tp->heartbeat_ms = cfg->heartbeat_ms;
	tp->peer_timeout_ms = cfg->peer_timeout_ms;
	tp->reconnect_ms = cfg->reconnect_ms;
	tp->space_size = cfg->space_size;
	tp->home_policy = cfg->home_policy;
	for (i = 0; i < cfg->nr_nodes; i++) {
		struct rdma_peer *peer = &tp->peers[i];

		peer->tp = tp;
		peer->node = i;
		peer->addr = cfg->addrs[i];
		snprintf(peer->addr_str, sizeof(peer->addr_str), "%pI4:%u",
			 &peer->addr.sin_addr, ntohs(peer->addr.sin_port));
		spin_lock_init(&peer->lock);
		INIT_LIST_HEAD(&peer->txq);
		init_waitqueue_head(&peer->txq_room);
		INIT_LIST_HEAD(&peer->early);
		peer->early_down.kind = RDMA_EV_EARLY_DOWN;
		INIT_LIST_HEAD(&peer->ios);
		peer->state = i == cfg->self ? DDSM_PEER_SELF : DDSM_PEER_DOWN;
		peer->next_connect = jiffies;
		atomic64_set(&peer->msgs_sent, 0);
	}
	timer_setup(&tp->tick, rdma_tick, 0);
	INIT_WORK(&tp->connect_work, rdma_connect_work);
	spin_lock_init(&tp->listen_lock);
	spin_lock_init(&tp->evq_lock);
	INIT_LIST_HEAD(&tp->evq);
	init_waitqueue_head(&tp->evq_wait);
}

struct ddsm_transport *ddsm_rdma_create(const struct ddsm_rdma_config *cfg,
					ddsm_recv_fn recv, ddsm_peer_fn peer_event,
					void *ctx)
{
	struct rdma_tp *tp;
	int ret;

	if (cfg->nr_nodes < 2 || cfg->nr_nodes > DDSM_MAX_NODES ||
	    cfg->self >= cfg->nr_nodes || !cfg->frames ||
	    cfg->frames > RDMA_MAX_FRAMES)
		return ERR_PTR(-EINVAL);
	tp = kzalloc(sizeof(*tp), GFP_KERNEL);
	if (!tp)
		return ERR_PTR(-ENOMEM);
	init_tp(tp, cfg, recv, peer_event, ctx);
	if (cfg->auth_key) {
		ret = ddsm_auth_init(&tp->auth, cfg->auth_key,
				     cfg->auth_key_len);
		if (ret) {
			pr_err("cannot set up HMAC-SHA256 with the cluster key (%u bytes): %d\n",
			       cfg->auth_key_len, ret);
			kfree(tp);
			return ERR_PTR(ret);
		}
	}

	ret = alloc_frames(tp, cfg->frames);
	if (ret)
		goto err_frames;
	tp->txq_pool = mempool_create_kmalloc_pool(RDMA_TXQ_RESERVE,
						   RDMA_ITEM_SIZE);
	if (!tp->txq_pool) {
		ret = -ENOMEM;
		goto err_frames;
	}
	tp->loop = ddsm_loop_create(cfg->self, recv, ctx);
	if (!tp->loop) {
		ret = -ENOMEM;
		goto err_frames;
	}
	/* Ordered: a peer's "down" (release) always precedes its next "up". */
	tp->wq = alloc_ordered_workqueue("ddsm_rdma", WQ_MEM_RECLAIM);
	if (!tp->wq) {
		ret = -ENOMEM;
		goto err_loop;
	}
	ret = rdma_rx_start(tp);
	if (ret)
		goto err_wq;
	ret = ddsm_rdma_test_init(tp, cfg);
	if (ret)
		goto err_rx;
	ret = rdma_listen_start(tp);
	if (ret) {
		pr_err("cannot listen on %s: %d (is the address configured on an RDMA device?)\n",
		       tp->peers[cfg->self].addr_str, ret);
		goto err_test;
	}
	mod_timer(&tp->tick, jiffies);
	return &tp->t;

err_test:
	ddsm_rdma_test_exit(tp);
err_rx:
	rdma_rx_stop(tp);
err_wq:
	destroy_workqueue(tp->wq);
err_loop:
	tp->loop->ops->destroy(tp->loop);
err_frames:
	mempool_destroy(tp->txq_pool);
	free_frames(tp);
	ddsm_auth_free(&tp->auth);
	kfree(tp);
	return ERR_PTR(ret);
}
