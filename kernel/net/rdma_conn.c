// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA transport: one connection's life (rdma.c says the whole).  Its
 * verbs resources (PD, CQ, QP, receive ring, send slots, its own
 * registration of the frame pool), set up before rdma_connect or
 * rdma_accept and freed after its drain; its failure, which always
 * releases it in the background; and its "up" to the core, once it is
 * established, the peer's HELLO is in and, with a key, the peer proved
 * it.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/slab.h>
#include <linux/jiffies.h>
#include <linux/scatterlist.h>
#include <linux/mm.h>
#include <linux/random.h>
#include "rdma.h"
#include "trace_net.h"

static const char *const peer_state_names[] = {
	[DDSM_PEER_SELF] = "self",
	[DDSM_PEER_DOWN] = "down",
	[DDSM_PEER_CONNECTING] = "connecting",
	[DDSM_PEER_UP] = "up",
	[DDSM_PEER_DEAD] = "dead",
};

void rdma_set_state(struct rdma_peer *peer, enum ddsm_peer_state state)
{
	if (peer->state == state)
		return;
	trace_ddsm_peer_state(peer->node, peer_state_names[peer->state],
			      peer_state_names[state]);
	peer->state = state;
}

static const char *const conn_state_names[] = {
	[RDMA_CONN_CONNECTING] = "connecting",
	[RDMA_CONN_EARLY_HELLO] = "early_hello",
	[RDMA_CONN_ESTABLISHED] = "established",
	[RDMA_CONN_HELLO_SENT] = "hello_sent",
	[RDMA_CONN_HELLO_IN] = "hello_in",
	[RDMA_CONN_HELLOS] = "hellos",
	[RDMA_CONN_AUTH_WAIT] = "auth_wait",
	[RDMA_CONN_AUTHED] = "authed",
	[RDMA_CONN_UP] = "up",
	[RDMA_CONN_DYING] = "dying",
};

#define TO(s)	BIT(RDMA_CONN_##s)
/* The moves rdma.h draws: from each state, where it may go. */
static const u16 conn_moves[RDMA_CONN_NR_STATES] = {
	[RDMA_CONN_CONNECTING] = TO(EARLY_HELLO) | TO(ESTABLISHED) | TO(DYING),
	[RDMA_CONN_EARLY_HELLO] = TO(HELLO_IN) | TO(DYING),
	[RDMA_CONN_ESTABLISHED] = TO(HELLO_SENT) | TO(HELLO_IN) | TO(DYING),
	[RDMA_CONN_HELLO_SENT] = TO(HELLOS) | TO(DYING),
	[RDMA_CONN_HELLO_IN] = TO(HELLOS) | TO(UP) | TO(DYING),
	[RDMA_CONN_HELLOS] = TO(AUTH_WAIT) | TO(UP) | TO(DYING),
	[RDMA_CONN_AUTH_WAIT] = TO(AUTHED) | TO(DYING),
	[RDMA_CONN_AUTHED] = TO(UP) | TO(DYING),
	[RDMA_CONN_UP] = TO(DYING),
	[RDMA_CONN_DYING] = 0,
};

#undef TO

/*
 * With peer->lock held.  A move not in conn_moves[] is a bug in the
 * caller's check: refused, so the connection stays where it was and
 * fails its setup timeouts rather than run half set up.
 */
bool rdma_conn_move(struct rdma_conn *conn, enum rdma_conn_state to)
{
	enum rdma_conn_state from = conn->state;

	if (!(conn_moves[from] & BIT(to))) {
		trace_ddsm_conn_state(conn->peer->node, conn_state_names[from],
				      "refused");
		pr_warn_ratelimited("node %u: connection state %s -> %s refused\n",
				    conn->peer->node, conn_state_names[from],
				    conn_state_names[to]);
		return false;
	}
	trace_ddsm_conn_state(conn->peer->node, conn_state_names[from],
			      conn_state_names[to]);
	/* The CM handler reads it without the lock. */
	WRITE_ONCE(conn->state, to);
	return true;
}

static int register_frames(struct rdma_conn *conn)
{
	struct rdma_tp *tp = conn->peer->tp;
	struct ib_device *dev = conn->cm_id->device;
	struct scatterlist *sg;
	int i, nents, n;

	if (sg_alloc_table(&conn->frames_sgt, tp->nr_frames, GFP_KERNEL))
		return -ENOMEM;
	for_each_sg(conn->frames_sgt.sgl, sg, tp->nr_frames, i)
		sg_set_page(sg, tp->frames[i], PAGE_SIZE, 0);
	nents = ib_dma_map_sg(dev, conn->frames_sgt.sgl, tp->nr_frames,
			      DMA_BIDIRECTIONAL);
	if (!nents)
		return -ENOMEM;
	conn->frames_mapped = nents;
	conn->mr = ib_alloc_mr(conn->pd, IB_MR_TYPE_MEM_REG, tp->nr_frames);
	if (IS_ERR(conn->mr)) {
		int ret = PTR_ERR(conn->mr);

		conn->mr = NULL;
		return ret;
	}
	n = ib_map_mr_sg(conn->mr, conn->frames_sgt.sgl, nents, NULL,
			 PAGE_SIZE);
	if (n != nents)
		return n < 0 ? n : -EINVAL;
	return 0;
}

static void free_buffers(struct rdma_conn *conn)
{
	struct ib_device *dev = conn->cm_id->device;
	int i;

	for (i = 0; i < RDMA_RX_DEPTH; i++) {
		struct rdma_rx *rx = &conn->rx[i];

		if (rx->buf) {
			ib_dma_unmap_single(dev, rx->dma, RDMA_SLOT_SIZE,
					    DMA_FROM_DEVICE);
			kfree(rx->buf);
		}
		if (rx->page) {
			ib_dma_unmap_page(dev, rx->page_dma, PAGE_SIZE,
					  DMA_FROM_DEVICE);
			__free_page(rx->page);
		}
	}
	for (i = 0; i < RDMA_TX_SLOTS; i++) {
		struct rdma_tx *tx = &conn->tx[i];

		if (tx->buf) {
			ib_dma_unmap_single(dev, tx->dma, RDMA_SLOT_SIZE,
					    DMA_TO_DEVICE);
			kfree(tx->buf);
		}
	}
}

static int alloc_buffers(struct rdma_conn *conn)
{
	struct ib_device *dev = conn->cm_id->device;
	int i;

	for (i = 0; i < RDMA_RX_DEPTH; i++) {
		struct rdma_rx *rx = &conn->rx[i];

		rx->conn = conn;
		rx->buf = kzalloc(RDMA_SLOT_SIZE, GFP_KERNEL);
		rx->page = alloc_page(GFP_KERNEL);
		if (!rx->buf || !rx->page)
			return -ENOMEM;
		rx->dma = ib_dma_map_single(dev, rx->buf, RDMA_SLOT_SIZE,
					    DMA_FROM_DEVICE);
		rx->page_dma = ib_dma_map_page(dev, rx->page, 0, PAGE_SIZE,
					       DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(dev, rx->dma) ||
		    ib_dma_mapping_error(dev, rx->page_dma))
			return -ENOMEM;
	}
	for (i = 0; i < RDMA_TX_SLOTS; i++) {
		struct rdma_tx *tx = &conn->tx[i];

		tx->conn = conn;
		tx->buf = kzalloc(RDMA_SLOT_SIZE, GFP_KERNEL);
		if (!tx->buf)
			return -ENOMEM;
		tx->dma = ib_dma_map_single(dev, tx->buf, RDMA_SLOT_SIZE,
					    DMA_TO_DEVICE);
		if (ib_dma_mapping_error(dev, tx->dma))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Everything a connection needs before rdma_connect/rdma_accept; its
 * receives are posted next (rdma_rx_post_ring(), the CM side does both).
 */
int rdma_conn_setup(struct rdma_conn *conn)
{
	struct rdma_cm_id *id = conn->cm_id;
	struct ib_qp_init_attr attr = {};
	int ret;

	conn->pd = ib_alloc_pd(id->device, 0);
	if (IS_ERR(conn->pd)) {
		ret = PTR_ERR(conn->pd);
		conn->pd = NULL;
		return ret;
	}
	conn->cq = ib_alloc_cq(id->device, conn, RDMA_CQ_DEPTH, 0,
			       IB_POLL_SOFTIRQ);
	if (IS_ERR(conn->cq)) {
		ret = PTR_ERR(conn->cq);
		conn->cq = NULL;
		return ret;
	}
	attr.send_cq = conn->cq;
	attr.recv_cq = conn->cq;
	attr.cap.max_send_wr = RDMA_SQ_DEPTH;
	attr.cap.max_recv_wr = RDMA_RX_DEPTH;
	attr.cap.max_send_sge = 2;
	attr.cap.max_recv_sge = 2;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.qp_type = IB_QPT_RC;
	ret = rdma_create_qp(id, conn->pd, &attr);
	if (ret)
		return ret;
	ret = alloc_buffers(conn);
	if (ret)
		return ret;
	ret = register_frames(conn);
	if (ret)
		return ret;
	conn->probe_buf = kzalloc(RDMA_PROBE_BYTES, GFP_KERNEL);
	if (!conn->probe_buf)
		return -ENOMEM;
	conn->probe_dma = ib_dma_map_single(id->device, conn->probe_buf,
					    RDMA_PROBE_BYTES, DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(id->device, conn->probe_dma)) {
		kfree(conn->probe_buf);
		conn->probe_buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Verbs resources of @conn, not its cm_id.  Safe in a CM handler. */
void rdma_conn_free_resources(struct rdma_conn *conn)
{
	struct rdma_cm_id *id = conn->cm_id;
	struct rdma_tp *tp = conn->peer->tp;

	if (conn->mr)
		ib_dereg_mr(conn->mr);
	if (conn->frames_mapped)
		ib_dma_unmap_sg(id->device, conn->frames_sgt.sgl,
				tp->nr_frames, DMA_BIDIRECTIONAL);
	sg_free_table(&conn->frames_sgt);
	/* QP before CQ: the CQ's poll work must never see a freed QP's WCs. */
	if (id->qp)
		rdma_destroy_qp(id);
	if (conn->cq)
		ib_free_cq(conn->cq);
	if (id->device)
		free_buffers(conn);
	if (conn->probe_buf) {
		ib_dma_unmap_single(id->device, conn->probe_dma,
				    RDMA_PROBE_BYTES, DMA_FROM_DEVICE);
		kfree(conn->probe_buf);
	}
	if (conn->pd)
		ib_dealloc_pd(conn->pd);
}

/*
 * Stop a connection: process context, never its own CM handler.  Once
 * every pending receive, send and transfer has been flushed, its "down"
 * is queued behind the messages it delivered; the delivery thread then
 * tells the core and frees it (rdma_conn_destroy).
 */
static void conn_release(struct work_struct *work)
{
	struct rdma_conn *conn = container_of(work, struct rdma_conn,
					      release_work);
	struct rdma_cm_id *id = conn->cm_id;

	if (id) {
		rdma_disconnect(id);
		if (id->qp)
			ib_drain_qp(id->qp);
	}
	conn->down_ev.kind = RDMA_EV_DOWN;
	rdma_queue_event(conn->peer->tp, &conn->down_ev);
}

void rdma_conn_destroy(struct rdma_conn *conn)
{
	struct rdma_cm_id *id = conn->cm_id;

	if (id) {
		rdma_conn_free_resources(conn);
		rdma_destroy_id(id);
	}
	kfree(conn);
}

/* Free what is queued; with peer->lock, when the connection goes. */
void rdma_drop_txq(struct rdma_peer *peer)
{
	struct rdma_txq_item *it, *tmp;

	list_for_each_entry_safe(it, tmp, &peer->txq, node) {
		list_del(&it->node);
		atomic64_inc(&peer->drops);
		rdma_item_free(peer->tp, it);
	}
	peer->txq_nr = 0;
	/* A waiting sender learns that the peer went down. */
	wake_up_all(&peer->txq_room);
}

/*
 * Stop using @conn and release it in the background.  With peer->lock
 * held.  Queued messages go with it; the core hears "down" for them and
 * settles whatever they were part of (docs/transport.md).
 */
void rdma_conn_fail(struct rdma_conn *conn, enum ddsm_peer_state state,
		    const char *why)
{
	struct rdma_peer *peer = conn->peer;
	struct rdma_tp *tp = peer->tp;
	bool was_live = rdma_conn_live(conn);

	if (conn->state == RDMA_CONN_DYING)
		return;
	rdma_conn_move(conn, RDMA_CONN_DYING);
	if (peer->pending == conn)
		peer->pending = NULL;
	if (peer->conn == conn) {
		peer->conn = NULL;
		peer->suspect_since = 0;
		peer->remote_rkey = 0;
		peer->remote_iova = 0;
		peer->remote_frames = 0;
		if (was_live && state != DDSM_PEER_DEAD)
			pr_info("node %u (%s) down: %s\n", peer->node,
				peer->addr_str, why);
		rdma_set_state(peer, state);
		peer->next_connect = jiffies +
				     msecs_to_jiffies(tp->reconnect_ms);
		rdma_drop_txq(peer);
	}
	queue_work(tp->wq, &conn->release_work);
}

static void conn_up_work(struct work_struct *work);

/*
 * The core hears "up" once the connection is established here and the
 * peer's HELLO has arrived (and, with a cluster key, its AUTH verified):
 * before that nothing can be sent to it, and a connection that never
 * gets that far is not the core's business.  With peer->lock held.
 */
void rdma_maybe_up(struct rdma_conn *conn)
{
	struct rdma_peer *peer = conn->peer;
	struct rdma_tp *tp = peer->tp;
	bool ready;

	if (peer->conn != conn)
		return;
	if (ddsm_auth_on(&tp->auth))
		ready = conn->state == RDMA_CONN_AUTHED && conn->keys_in;
	else
		ready = conn->state == RDMA_CONN_HELLO_IN ||
			conn->state == RDMA_CONN_HELLOS;
	if (ready && rdma_conn_move(conn, RDMA_CONN_UP))
		queue_work(tp->wq, &conn->up_work);
}

struct rdma_conn *rdma_conn_alloc(struct rdma_peer *peer)
{
	struct rdma_conn *conn = kzalloc(sizeof(*conn), GFP_KERNEL);

	if (!conn)
		return NULL;
	conn->kind = RDMA_KIND_CONN;
	conn->peer = peer;
	conn->born = jiffies;
	get_random_bytes(conn->nonce, sizeof(conn->nonce));
	INIT_LIST_HEAD(&conn->parked);
	INIT_WORK(&conn->release_work, conn_release);
	INIT_WORK(&conn->up_work, conn_up_work);
	return conn;
}

/*
 * On the same ordered workqueue as the release of any earlier connection
 * to this peer, so its "up" is queued after that one's "down".
 */
static void conn_up_work(struct work_struct *work)
{
	struct rdma_conn *conn = container_of(work, struct rdma_conn, up_work);

	conn->up_ev.kind = RDMA_EV_UP;
	rdma_queue_event(conn->peer->tp, &conn->up_ev);
}
