// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA transport: rdma_cm connections, their setup and teardown.
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
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/inet.h>
#include <linux/jiffies.h>
#include <linux/scatterlist.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <net/net_namespace.h>
#include "rdma.h"
#define CREATE_TRACE_POINTS
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

/* ---- one-sided page transfers ------------------------------------- */

static void io_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rdma_io *io = container_of(wc->wr_cqe, struct rdma_io, cqe);
	struct rdma_conn *conn = io->conn;
	struct rdma_peer *peer = conn->peer;

	ib_dma_unmap_page(conn->cm_id->device, io->dma, PAGE_SIZE,
			  io->write ? DMA_TO_DEVICE : DMA_FROM_DEVICE);
	spin_lock_bh(&peer->lock);
	list_del(&io->node);
	conn->ios--;
	if (wc->status == IB_WC_SUCCESS) {
		atomic64_add(PAGE_SIZE, io->write ? &peer->bytes_sent :
						    &peer->bytes_recv);
	} else if (wc->status != IB_WC_WR_FLUSH_ERR) {
		pr_warn_ratelimited("node %u: RDMA %s failed: %s\n",
				    peer->node, io->write ? "WRITE" : "READ",
				    ib_wc_status_msg(wc->status));
		rdma_conn_fail(conn, DDSM_PEER_DOWN, "RDMA transfer failed");
	}
	spin_unlock_bh(&peer->lock);
	io->status = wc->status == IB_WC_SUCCESS ? 0 : -EIO;
	io->done(io);
}

int ddsm_rdma_page_io(struct rdma_tp *tp, u32 dst, bool write, u32 local,
		      u32 remote, struct rdma_io *io)
{
	struct ib_rdma_wr wr = {};
	const struct ib_send_wr *bad;
	struct rdma_peer *peer;
	struct rdma_conn *conn;
	struct ib_device *dev;
	struct ib_sge sge;
	int ret = 0;

	if (dst >= tp->nr_nodes || dst == tp->t.self || local >= tp->nr_frames)
		return -EINVAL;
	peer = &tp->peers[dst];
	spin_lock_bh(&peer->lock);
	conn = peer->conn;
	if (peer->state != DDSM_PEER_UP || !conn || !conn->established ||
	    conn->dying || !peer->remote_ready) {
		ret = -ENOTCONN;
		goto out;
	}
	if (remote >= peer->remote_frames) {
		ret = -ERANGE;
		goto out;
	}
	if (conn->ios >= RDMA_MAX_IOS) {
		ret = -EBUSY;
		goto out;
	}
	dev = conn->cm_id->device;
	io->conn = conn;
	io->write = write;
	io->dma = ib_dma_map_page(dev, tp->frames[local], 0, PAGE_SIZE,
				  write ? DMA_TO_DEVICE : DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(dev, io->dma)) {
		ret = -ENOMEM;
		goto out;
	}
	io->cqe.done = io_done;
	sge.addr = io->dma;
	sge.length = PAGE_SIZE;
	sge.lkey = conn->pd->local_dma_lkey;
	wr.wr.opcode = write ? IB_WR_RDMA_WRITE : IB_WR_RDMA_READ;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.wr_cqe = &io->cqe;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.remote_addr = peer->remote_iova + (u64)remote * PAGE_SIZE;
	wr.rkey = peer->remote_rkey;
	list_add_tail(&io->node, &peer->ios);
	conn->ios++;
	ret = ib_post_send(conn->cm_id->qp, &wr.wr, &bad);
	if (ret) {
		list_del(&io->node);
		conn->ios--;
		ib_dma_unmap_page(dev, io->dma, PAGE_SIZE,
				  write ? DMA_TO_DEVICE : DMA_FROM_DEVICE);
	}
out:
	spin_unlock_bh(&peer->lock);
	return ret;
}

/* ---- connection setup and teardown -------------------------------- */

static void reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rdma_conn *conn = container_of(wc->wr_cqe, struct rdma_conn,
					      reg_cqe);
	struct rdma_peer *peer = conn->peer;
	struct rdma_tp *tp = peer->tp;
	struct rdma_hello hello = {
		.node_id = cpu_to_le32(tp->t.self),
		.nr_frames = cpu_to_le32(tp->nr_frames),
		.rkey = cpu_to_le32(conn->mr->rkey),
		.flags = cpu_to_le32(ddsm_auth_on(&tp->auth) ?
				     RDMA_HELLO_AUTH : 0),
		.iova = cpu_to_le64(conn->mr->iova),
		.space_size = cpu_to_le64(tp->space_size),
		.home_policy = cpu_to_le32(tp->home_policy),
	};

	memcpy(hello.nonce, conn->nonce, sizeof(hello.nonce));
	if (wc->status == IB_WC_SUCCESS) {
		rdma_send_on(conn, RDMA_T_HELLO, &hello, sizeof(hello));
		spin_lock_bh(&peer->lock);
		conn->hello_sent = true;
		spin_unlock_bh(&peer->lock);
		rdma_auth_answer(conn);
		return;
	}
	spin_lock_bh(&peer->lock);
	if (wc->status != IB_WC_WR_FLUSH_ERR)
		pr_err("node %u: frame registration failed: %s\n",
		       peer->node, ib_wc_status_msg(wc->status));
	rdma_conn_fail(conn, DDSM_PEER_DOWN, "registration failed");
	spin_unlock_bh(&peer->lock);
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

static int post_reg(struct rdma_conn *conn)
{
	struct ib_reg_wr wr = {};
	const struct ib_send_wr *bad;

	ib_update_fast_reg_key(conn->mr, ib_inc_rkey(conn->mr->rkey));
	conn->reg_cqe.done = reg_done;
	wr.wr.opcode = IB_WR_REG_MR;
	wr.wr.wr_cqe = &conn->reg_cqe;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.mr = conn->mr;
	wr.key = conn->mr->rkey;
	/* Peers may read and write frames, nothing else of this node. */
	wr.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
		    IB_ACCESS_REMOTE_WRITE;
	return ib_post_send(conn->cm_id->qp, &wr.wr, &bad);
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
		tx->cqe.done = rdma_send_done;
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

/* Everything a connection needs before rdma_connect/rdma_accept. */
static int conn_setup(struct rdma_conn *conn)
{
	struct rdma_cm_id *id = conn->cm_id;
	struct ib_qp_init_attr attr = {};
	int i, ret;

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
	for (i = 0; i < RDMA_RX_DEPTH; i++) {
		ret = rdma_post_recv(conn, &conn->rx[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* Verbs resources of @conn, not its cm_id.  Safe in a CM handler. */
static void conn_free_resources(struct rdma_conn *conn)
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
		conn_free_resources(conn);
		rdma_destroy_id(id);
	}
	kfree(conn);
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

	if (conn->dying)
		return;
	conn->dying = true;
	if (peer->conn == conn) {
		peer->conn = NULL;
		peer->remote_ready = false;
		peer->suspect_since = 0;
		if (conn->established && state != DDSM_PEER_DEAD)
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

	if (peer->conn != conn || conn->dying || !conn->established ||
	    !peer->remote_ready || conn->up_queued)
		return;
	if (ddsm_auth_on(&tp->auth) && !conn->authed)
		return;
	conn->up_queued = true;
	queue_work(tp->wq, &conn->up_work);
}

static struct rdma_conn *conn_alloc(struct rdma_peer *peer)
{
	struct rdma_conn *conn = kzalloc(sizeof(*conn), GFP_KERNEL);

	if (!conn)
		return NULL;
	conn->kind = RDMA_KIND_CONN;
	conn->peer = peer;
	get_random_bytes(conn->nonce, sizeof(conn->nonce));
	INIT_LIST_HEAD(&conn->parked);
	INIT_WORK(&conn->release_work, conn_release);
	INIT_WORK(&conn->up_work, conn_up_work);
	return conn;
}

/*
 * Established: control traffic may flow (HELLO, credits, heartbeats);
 * protocol messages wait until the core has been told "up".
 */
static void conn_established(struct rdma_conn *conn)
{
	struct rdma_peer *peer = conn->peer;
	int ret;

	spin_lock_bh(&peer->lock);
	if (conn->dying || peer->conn != conn) {
		spin_unlock_bh(&peer->lock);
		return;
	}
	conn->established = true;
	conn->established_at = jiffies;
	conn->credits = RDMA_RX_DEPTH;
	conn->credits_owed = 0;
	peer->last_rx = jiffies;
	peer->last_tx = jiffies;
	peer->suspect_since = 0;
	peer->probe_ok = 0;
	ret = post_reg(conn);
	if (ret)
		rdma_conn_fail(conn, DDSM_PEER_DOWN, "cannot register frames");
	else
		rdma_maybe_up(conn);	/* the acceptor may have its HELLO */
	spin_unlock_bh(&peer->lock);
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

static int cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);

/* The lower id accepts; everything about the request is checked first. */
static int on_connect_request(struct rdma_tp *tp, struct rdma_cm_id *id,
			      struct rdma_cm_event *ev)
{
	struct sockaddr_in *src = (struct sockaddr_in *)&id->route.addr.dst_addr;
	struct rdma_conn_param param = {};
	struct rdma_peer *peer;
	struct rdma_conn *conn, *old;
	u32 node;
	int ret;

	if (tp->stopping)
		goto reject;
	ret = ddsm_wire_conn_req_check(ev->param.conn.private_data,
				       ev->param.conn.private_data_len,
				       tp->t.self, tp->nr_nodes);
	if (ret < 0) {
		pr_warn_ratelimited("refused connection from %pISc: %s\n", src,
				    ret == -EPERM ? "not a node that connects here" :
						    "malformed request");
		goto reject;
	}
	node = ret;
	if (src->sin_family != AF_INET ||
	    src->sin_addr.s_addr != tp->peers[node].addr.sin_addr.s_addr) {
		pr_warn_ratelimited("refused connection from %pISc claiming node %u: not its configured address\n",
				    src, node);
		goto reject;
	}
	peer = &tp->peers[node];
	conn = conn_alloc(peer);
	if (!conn)
		goto reject;
	conn->cm_id = id;
	id->context = conn;

	/* A returning peer replaces whatever we still hold for it. */
	spin_lock_bh(&peer->lock);
	old = peer->conn;
	if (old)
		rdma_conn_fail(old, DDSM_PEER_DOWN, "replaced by a new connection");
	peer->conn = conn;
	rdma_set_state(peer, DDSM_PEER_CONNECTING);
	spin_unlock_bh(&peer->lock);

	ret = rdma_set_ack_timeout(id, RDMA_ACK_TIMEOUT);
	if (!ret)
		ret = conn_setup(conn);
	if (!ret) {
		param.rnr_retry_count = 7;
		param.retry_count = 7;
		param.responder_resources = 1;
		param.initiator_depth = 1;
		ret = rdma_accept(id, &param);
	}
	if (ret) {
		pr_warn("node %u: cannot accept: %d\n", node, ret);
		spin_lock_bh(&peer->lock);
		if (peer->conn == conn) {
			peer->conn = NULL;
			rdma_set_state(peer, DDSM_PEER_DOWN);
		}
		spin_unlock_bh(&peer->lock);
		/* The CM destroys @id itself when we return non-zero. */
		conn_free_resources(conn);
		kfree(conn);
		return ret;
	}
	return 0;

reject:
	rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
	return -ECONNREFUSED;
}

static int on_route_resolved(struct rdma_conn *conn)
{
	struct rdma_tp *tp = conn->peer->tp;
	struct rdma_conn_req req = {
		.magic = cpu_to_le32(RDMA_CONN_MAGIC),
		.version = cpu_to_le16(RDMA_CONN_VERSION),
		.node_id = cpu_to_le16(tp->t.self),
		.nr_nodes = cpu_to_le16(tp->nr_nodes),
	};
	struct rdma_conn_param param = {
		.private_data = &req,
		.private_data_len = sizeof(req),
		.rnr_retry_count = 7,
		.retry_count = 7,
		.responder_resources = 1,
		.initiator_depth = 1,
	};
	int ret;

	ret = conn_setup(conn);
	if (ret)
		return ret;
	return rdma_connect_locked(conn->cm_id, &param);
}

/*
 * The device under the listener is going away (`rdma link delete`): the
 * CM may only finish removing it once the id is gone, so let the CM
 * destroy it now (non-zero return) unless unloading already took it, and
 * listen again from the connect work when an address works again.
 */
static int on_listener_removed(struct rdma_tp *tp, struct rdma_cm_id *id)
{
	bool ours;

	spin_lock_bh(&tp->listen_lock);
	ours = tp->listen_id == id;
	if (ours) {
		tp->listen_id = NULL;
		WRITE_ONCE(tp->listen_lost, true);
	}
	spin_unlock_bh(&tp->listen_lock);
	if (ours)
		pr_warn("RDMA device of the listener removed; will listen again when %s works\n",
			tp->peers[tp->t.self].addr_str);
	return ours ? 1 : 0;
}

static int cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	enum rdma_ctx_kind *kind = id->context;
	struct rdma_conn *conn;
	struct rdma_peer *peer;
	int ret = 0;

	if (*kind == RDMA_KIND_LISTEN) {
		struct rdma_listener *l = id->context;

		/* New ids inherit the listener's context until we set theirs. */
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
			return on_connect_request(l->tp, id, ev);
		if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
			return on_listener_removed(l->tp, id);
		return 0;
	}
	conn = id->context;
	peer = conn->peer;
	trace_ddsm_net_cm(peer->node, rdma_event_msg(ev->event), ev->status);

	/* A connection already failing gets no further setup. */
	if (READ_ONCE(conn->dying) &&
	    (ev->event == RDMA_CM_EVENT_ADDR_RESOLVED ||
	     ev->event == RDMA_CM_EVENT_ROUTE_RESOLVED ||
	     ev->event == RDMA_CM_EVENT_ESTABLISHED))
		return 0;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = rdma_resolve_route(id, RDMA_CM_TIMEOUT_MS);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		ret = on_route_resolved(conn);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		conn_established(conn);
		return 0;
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		spin_lock_bh(&peer->lock);
		rdma_conn_fail(conn, DDSM_PEER_DOWN,
			       rdma_event_msg(ev->event));
		spin_unlock_bh(&peer->lock);
		return 0;
	default:
		return 0;
	}
	if (ret) {
		spin_lock_bh(&peer->lock);
		rdma_conn_fail(conn, DDSM_PEER_DOWN, "connect failed");
		spin_unlock_bh(&peer->lock);
	}
	/* The release work destroys the id; never ask the CM to. */
	return 0;
}

void rdma_start_connect(struct rdma_peer *peer)
{
	struct rdma_tp *tp = peer->tp;
	struct sockaddr_in src = tp->peers[tp->t.self].addr;
	struct rdma_cm_id *id;
	struct rdma_conn *conn;
	int ret;

	conn = conn_alloc(peer);
	if (!conn)
		return;
	id = rdma_create_id(&init_net, cm_handler, conn, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id)) {
		kfree(conn);
		return;
	}
	conn->cm_id = id;
	/* Before route resolution: it also sets RoCE's packet lifetime. */
	rdma_set_ack_timeout(id, RDMA_ACK_TIMEOUT);
	spin_lock_bh(&peer->lock);
	if (peer->conn || tp->stopping) {
		spin_unlock_bh(&peer->lock);
		rdma_destroy_id(id);
		kfree(conn);
		return;
	}
	peer->conn = conn;
	rdma_set_state(peer, DDSM_PEER_CONNECTING);
	peer->next_connect = jiffies + msecs_to_jiffies(tp->reconnect_ms);
	spin_unlock_bh(&peer->lock);

	src.sin_port = 0;
	ret = rdma_resolve_addr(id, (struct sockaddr *)&src,
				(struct sockaddr *)&peer->addr,
				RDMA_CM_TIMEOUT_MS);
	if (ret) {
		spin_lock_bh(&peer->lock);
		rdma_conn_fail(conn, DDSM_PEER_DOWN,
			       "address resolution failed");
		spin_unlock_bh(&peer->lock);
	}
}

/* ---- transport ops ------------------------------------------------- */

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
		if (peer->conn)
			rdma_conn_fail(peer->conn, DDSM_PEER_DOWN, "unloading");
		spin_unlock_bh(&peer->lock);
	}
	/* Every release has queued its "down"; then deliver them all. */
	destroy_workqueue(tp->wq);
	rdma_rx_stop(tp);
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

int rdma_listen_start(struct rdma_tp *tp)
{
	struct sockaddr_in addr = tp->peers[tp->t.self].addr;
	struct rdma_cm_id *id;
	int ret;

	tp->listener.kind = RDMA_KIND_LISTEN;
	tp->listener.tp = tp;
	id = rdma_create_id(&init_net, cm_handler, &tp->listener, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = rdma_set_reuseaddr(id, 1);
	if (!ret)
		ret = rdma_bind_addr(id, (struct sockaddr *)&addr);
	if (!ret)
		ret = rdma_listen(id, 16);
	if (ret) {
		rdma_destroy_id(id);
		return ret;
	}
	spin_lock_bh(&tp->listen_lock);
	tp->listen_id = id;
	spin_unlock_bh(&tp->listen_lock);
	return 0;
}

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

struct ddsm_transport *ddsm_rdma_create(const struct ddsm_rdma_config *cfg,
					ddsm_recv_fn recv, ddsm_peer_fn peer_event,
					void *ctx)
{
	struct rdma_tp *tp;
	u32 i;
	int ret;

	if (cfg->nr_nodes < 2 || cfg->nr_nodes > DDSM_MAX_NODES ||
	    cfg->self >= cfg->nr_nodes || !cfg->frames ||
	    cfg->frames > RDMA_MAX_FRAMES)
		return ERR_PTR(-EINVAL);
	tp = kzalloc(sizeof(*tp), GFP_KERNEL);
	if (!tp)
		return ERR_PTR(-ENOMEM);
	tp->t.ops = &rdma_ops;
	tp->t.recv = recv;
	tp->t.peer_event = peer_event;
	tp->t.ctx = ctx;
	tp->t.self = cfg->self;
	tp->nr_nodes = cfg->nr_nodes;
	tp->heartbeat_ms = max(cfg->heartbeat_ms, 10U);
	tp->peer_timeout_ms = max(cfg->peer_timeout_ms, 2 * tp->heartbeat_ms);
	tp->reconnect_ms = max(cfg->reconnect_ms, 10U);
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
		INIT_LIST_HEAD(&peer->ios);
		peer->state = i == cfg->self ? DDSM_PEER_SELF : DDSM_PEER_DOWN;
		peer->next_connect = jiffies;
		atomic64_set(&peer->msgs_sent, 0);
	}
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
	timer_setup(&tp->tick, rdma_tick, 0);
	INIT_WORK(&tp->connect_work, rdma_connect_work);
	spin_lock_init(&tp->listen_lock);
	spin_lock_init(&tp->evq_lock);
	INIT_LIST_HEAD(&tp->evq);
	init_waitqueue_head(&tp->evq_wait);

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
