// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA transport: rdma_cm connections and ib_core verbs.
 *
 * Control messages travel by SEND into pre-posted receives, with a
 * 4 KiB unit in a second SGE when the message carries data.  Credits keep
 * a peer's receive ring from overrunning: every message returns the
 * receives its sender has reposted, and RDMA_CREDIT_RESERVE credits are
 * kept for messages that only return credits or prove liveness.  All
 * messages queued for a peer are posted as one chain.  One-sided page
 * transfers (RDMA READ/WRITE) reach only the peer's registered frame pool,
 * through an rkey that is valid on that one connection.
 *
 * Completions run in a workqueue (IB_POLL_WORKQUEUE), never in softirq,
 * because delivering a message may zap PTEs, which sleeps.
 *
 * Liveness: a node that sends nothing for heartbeat_ms sends a heartbeat;
 * a peer heard from for peer_timeout_ms is declared dead, its connection
 * torn down (flushing every pending transfer with an error) and the core
 * told.  The higher id of a pair reconnects every reconnect_ms; the lower
 * one accepts and replaces a stale connection.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/inet.h>
#include <linux/jiffies.h>
#include <linux/scatterlist.h>
#include <linux/mm.h>
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

static void set_state(struct rdma_peer *peer, enum ddsm_peer_state state)
{
	if (peer->state == state)
		return;
	trace_ddsm_peer_state(peer->node, peer_state_names[peer->state],
			      peer_state_names[state]);
	peer->state = state;
}

static void conn_fail(struct rdma_conn *conn, enum ddsm_peer_state state,
		      const char *why);

/* ---- send side ---------------------------------------------------- */

static struct rdma_tx *get_tx_slot(struct rdma_conn *conn)
{
	int i;

	for (i = 0; i < RDMA_TX_SLOTS; i++)
		if (!conn->tx[i].in_use)
			return &conn->tx[i];
	return NULL;
}

/*
 * Fill @slot from @it.  Returns false if the unit could not be mapped;
 * the item is then dropped.
 */
static bool fill_tx(struct rdma_peer *peer, struct rdma_conn *conn,
		    struct rdma_tx *slot, struct rdma_txq_item *it)
{
	struct ib_device *dev = conn->cm_id->device;
	struct rdma_hdr *h = slot->buf;

	h->magic = RDMA_HDR_MAGIC;
	h->type = it->type;
	h->flags = (it->page ? RDMA_HF_PAGE : 0) | it->flags;
	h->rsvd = 0;
	h->credits = cpu_to_le16(peer->credits_owed);
	h->len = cpu_to_le16(it->len);
	h->cookie = cpu_to_le64(it->cookie);
	memcpy(h + 1, it->payload, it->len);

	/*
	 * With a unit behind it the header SGE is sent whole, so the unit
	 * lands exactly in the receiver's page SGE.
	 */
	memset((u8 *)(h + 1) + it->len, 0,
	       RDMA_SLOT_SIZE - sizeof(*h) - it->len);
	slot->sge[0].addr = slot->dma;
	slot->sge[0].length = it->page ? RDMA_SLOT_SIZE : sizeof(*h) + it->len;
	ib_dma_sync_single_for_device(dev, slot->dma, RDMA_SLOT_SIZE,
				      DMA_TO_DEVICE);
	slot->sge[0].lkey = conn->pd->local_dma_lkey;
	slot->wr.num_sge = 1;
	slot->page = NULL;
	if (it->page) {
		slot->page_dma = ib_dma_map_page(dev, it->page, 0, PAGE_SIZE,
						 DMA_TO_DEVICE);
		if (ib_dma_mapping_error(dev, slot->page_dma))
			return false;
		slot->page = it->page;	/* the item's reference moves here */
		it->page = NULL;
		slot->sge[1].addr = slot->page_dma;
		slot->sge[1].length = PAGE_SIZE;
		slot->sge[1].lkey = conn->pd->local_dma_lkey;
		slot->wr.num_sge = 2;
	}
	slot->wr.next = NULL;
	slot->wr.opcode = IB_WR_SEND;
	slot->wr.send_flags = IB_SEND_SIGNALED;
	slot->wr.wr_cqe = &slot->cqe;
	slot->wr.sg_list = slot->sge;
	slot->in_use = true;
	peer->credits_owed = 0;
	return true;
}

static void free_item(struct rdma_txq_item *it)
{
	if (it->page)
		put_page(it->page);
	kfree(it);
}

/*
 * Post every queued message the credits and slots allow, as one chain.
 * Called with peer->lock held.
 */
static void kick_tx(struct rdma_peer *peer)
{
	struct rdma_conn *conn = peer->conn;
	struct ib_send_wr *first = NULL, *last = NULL;
	const struct ib_send_wr *bad;
	struct rdma_txq_item *it, *tmp;
	int ret;

	if (!conn || !conn->established || conn->dying)
		return;
	list_for_each_entry_safe(it, tmp, &peer->txq, node) {
		bool small = it->type == RDMA_T_CREDIT ||
			     it->type == RDMA_T_HEARTBEAT;
		u32 need = small ? 1 : RDMA_CREDIT_RESERVE + 1;
		struct rdma_tx *slot;

		if (peer->credits < need)
			break;
		slot = get_tx_slot(conn);
		if (!slot)
			break;
		list_del(&it->node);
		if (!fill_tx(peer, conn, slot, it)) {
			atomic64_inc(&peer->drops);
			free_item(it);
			continue;
		}
		peer->credits--;
		atomic64_inc(&peer->msgs_sent);
		atomic64_add(slot->sge[0].length +
			     (slot->page ? PAGE_SIZE : 0), &peer->bytes_sent);
		trace_ddsm_net_send(peer->node, it->type, it->len,
				    !!slot->page);
		if (last)
			last->next = &slot->wr;
		else
			first = &slot->wr;
		last = &slot->wr;
		kfree(it);
	}
	if (!first)
		return;
	peer->last_tx = jiffies;
	ret = ib_post_send(conn->cm_id->qp, first, &bad);
	if (ret) {
		pr_err_ratelimited("node %u: post send failed: %d\n",
				   peer->node, ret);
		conn_fail(conn, DDSM_PEER_DOWN, "post send failed");
	}
}

/* Queue one message; with peer->lock held. */
static int queue_locked(struct rdma_peer *peer, u8 type, u8 flags,
			u64 cookie, const void *payload, u16 len,
			struct page *page)
{
	struct rdma_txq_item *it;

	if (len > RDMA_MAX_PAYLOAD)
		return -EMSGSIZE;
	if (peer->state != DDSM_PEER_UP || !peer->conn)
		return -ENOTCONN;
	it = kmalloc(struct_size(it, payload, len), GFP_ATOMIC);
	if (!it)
		return -ENOMEM;
	it->type = type;
	it->flags = flags;
	it->len = len;
	it->cookie = cookie;
	it->page = page;
	if (page)
		get_page(page);
	memcpy(it->payload, payload, len);
	list_add_tail(&it->node, &peer->txq);
	kick_tx(peer);
	return 0;
}

int ddsm_rdma_send_raw(struct rdma_tp *tp, u32 dst, u8 type, u8 flags,
		       u64 cookie, const void *payload, u16 len,
		       struct page *page)
{
	struct rdma_peer *peer;
	int ret;

	if (dst >= tp->nr_nodes || dst == tp->t.self)
		return -EINVAL;
	peer = &tp->peers[dst];
	spin_lock_bh(&peer->lock);
	ret = queue_locked(peer, type, flags, cookie, payload, len, page);
	spin_unlock_bh(&peer->lock);
	return ret;
}

static int rdma_send(struct ddsm_transport *t, u32 dst, const void *buf,
		     u32 len, struct page *data)
{
	struct rdma_tp *tp = to_rdma(t);
	struct rdma_peer *peer;
	int ret;

	if (dst == t->self)
		return ddsm_transport_send(tp->loop, dst, buf, len, data);
	if (dst >= tp->nr_nodes)
		return -EINVAL;
	peer = &tp->peers[dst];
	spin_lock_bh(&peer->lock);
	ret = queue_locked(peer, RDMA_T_MSG, 0, 0, buf, len, data);
	spin_unlock_bh(&peer->lock);
	if (ret)
		atomic64_inc(&peer->retries);
	return ret;
}

static void send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rdma_tx *slot = container_of(wc->wr_cqe, struct rdma_tx, cqe);
	struct rdma_conn *conn = slot->conn;
	struct rdma_peer *peer = conn->peer;

	if (slot->page) {
		ib_dma_unmap_page(conn->cm_id->device, slot->page_dma,
				  PAGE_SIZE, DMA_TO_DEVICE);
		put_page(slot->page);
		slot->page = NULL;
	}
	spin_lock_bh(&peer->lock);
	slot->in_use = false;
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_warn_ratelimited("node %u: send failed: %s\n",
					    peer->node,
					    ib_wc_status_msg(wc->status));
		conn_fail(conn, DDSM_PEER_DOWN, "send failed");
	} else {
		kick_tx(peer);
	}
	spin_unlock_bh(&peer->lock);
}

/* ---- receive side ------------------------------------------------- */

static void recv_done(struct ib_cq *cq, struct ib_wc *wc);

static int post_recv(struct rdma_conn *conn, struct rdma_rx *rx)
{
	struct ib_recv_wr wr = {}, *bad;
	struct ib_sge sge[2];

	sge[0].addr = rx->dma;
	sge[0].length = RDMA_SLOT_SIZE;
	sge[0].lkey = conn->pd->local_dma_lkey;
	sge[1].addr = rx->page_dma;
	sge[1].length = PAGE_SIZE;
	sge[1].lkey = conn->pd->local_dma_lkey;
	rx->cqe.done = recv_done;
	wr.wr_cqe = &rx->cqe;
	wr.sg_list = sge;
	wr.num_sge = 2;
	return ib_post_recv(conn->cm_id->qp, &wr, (const struct ib_recv_wr **)&bad);
}

static void handle_hello(struct rdma_peer *peer, const void *p, u16 len)
{
	const struct rdma_hello *h = p;

	if (ddsm_wire_hello_check(p, len, peer->node, RDMA_MAX_FRAMES)) {
		atomic64_inc(&peer->drops);
		return;
	}
	spin_lock_bh(&peer->lock);
	peer->remote_rkey = le32_to_cpu(h->rkey);
	peer->remote_iova = le64_to_cpu(h->iova);
	peer->remote_frames = le32_to_cpu(h->nr_frames);
	peer->remote_ready = true;
	spin_unlock_bh(&peer->lock);
}

static void recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rdma_rx *rx = container_of(wc->wr_cqe, struct rdma_rx, cqe);
	struct rdma_conn *conn = rx->conn;
	struct rdma_peer *peer = conn->peer;
	struct rdma_tp *tp = peer->tp;
	struct ib_device *dev = conn->cm_id->device;
	struct rdma_hdr *h = rx->buf;
	u16 len;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			pr_warn_ratelimited("node %u: receive failed: %s\n",
					    peer->node,
					    ib_wc_status_msg(wc->status));
			spin_lock_bh(&peer->lock);
			conn_fail(conn, DDSM_PEER_DOWN, "receive failed");
			spin_unlock_bh(&peer->lock);
		}
		return;
	}
	ib_dma_sync_single_for_cpu(dev, rx->dma, RDMA_SLOT_SIZE,
				   DMA_FROM_DEVICE);
	len = le16_to_cpu(h->len);
	if (!ddsm_wire_hdr_valid(h, wc->byte_len)) {
		atomic64_inc(&peer->drops);
		trace_ddsm_net_drop(peer->node, h->type, wc->byte_len);
		pr_warn_ratelimited("node %u: dropped malformed transport message (%u bytes)\n",
				    peer->node, wc->byte_len);
		goto repost;
	}

	atomic64_inc(&peer->msgs_recv);
	atomic64_add(wc->byte_len, &peer->bytes_recv);
	trace_ddsm_net_recv(peer->node, h->type, len,
			    !!(h->flags & RDMA_HF_PAGE));
	spin_lock_bh(&peer->lock);
	peer->last_rx = jiffies;
	peer->credits += le16_to_cpu(h->credits);
	if (peer->credits > RDMA_RX_DEPTH) {
		/* A peer that hands out more credits than receives exist lies. */
		peer->credits = RDMA_RX_DEPTH;
		atomic64_inc(&peer->drops);
	}
	kick_tx(peer);
	spin_unlock_bh(&peer->lock);

	if (h->flags & RDMA_HF_PAGE)
		ib_dma_sync_single_for_cpu(dev, rx->page_dma, PAGE_SIZE,
					   DMA_FROM_DEVICE);
	switch (h->type) {
	case RDMA_T_HELLO:
		handle_hello(peer, h + 1, len);
		break;
	case RDMA_T_MSG:
		tp->t.recv(tp->t.ctx, peer->node, h + 1, len,
			   (h->flags & RDMA_HF_PAGE) ? rx->page : NULL);
		break;
	case RDMA_T_PING:
		/* A unit asked for is the first pattern frame (rdma_test.c). */
		ddsm_rdma_send_raw(tp, peer->node, RDMA_T_PONG, 0,
				   le64_to_cpu(h->cookie), h + 1, len,
				   (h->flags & RDMA_HF_WANT_PAGE) &&
				   tp->nr_frames ? tp->frames[0] : NULL);
		break;
	case RDMA_T_PONG:
		ddsm_rdma_test_pong(tp, peer->node, le64_to_cpu(h->cookie),
				    h + 1, len,
				    (h->flags & RDMA_HF_PAGE) ? rx->page : NULL);
		break;
	default:	/* CREDIT, HEARTBEAT: the header said it all */
		break;
	}

repost:
	if (post_recv(conn, rx)) {
		spin_lock_bh(&peer->lock);
		conn_fail(conn, DDSM_PEER_DOWN, "repost failed");
		spin_unlock_bh(&peer->lock);
		return;
	}
	spin_lock_bh(&peer->lock);
	if (++peer->credits_owed >= RDMA_RX_DEPTH / 2 &&
	    list_empty(&peer->txq))
		queue_locked(peer, RDMA_T_CREDIT, 0, 0, NULL, 0, NULL);
	spin_unlock_bh(&peer->lock);
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
		conn_fail(conn, DDSM_PEER_DOWN, "RDMA transfer failed");
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
		.iova = cpu_to_le64(conn->mr->iova),
	};

	spin_lock_bh(&peer->lock);
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_err("node %u: frame registration failed: %s\n",
			       peer->node, ib_wc_status_msg(wc->status));
		conn_fail(conn, DDSM_PEER_DOWN, "registration failed");
	} else if (peer->conn == conn) {
		queue_locked(peer, RDMA_T_HELLO, 0, 0, &hello, sizeof(hello),
			     NULL);
	}
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
		tx->cqe.done = send_done;
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
			       IB_POLL_WORKQUEUE);
	if (IS_ERR(conn->cq)) {
		ret = PTR_ERR(conn->cq);
		conn->cq = NULL;
		return ret;
	}
	attr.send_cq = conn->cq;
	attr.recv_cq = conn->cq;
	attr.cap.max_send_wr = RDMA_TX_SLOTS + RDMA_MAX_IOS + 2;
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
	for (i = 0; i < RDMA_RX_DEPTH; i++) {
		ret = post_recv(conn, &conn->rx[i]);
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
	if (conn->pd)
		ib_dealloc_pd(conn->pd);
}

/* Tear a connection down; process context, never its own CM handler. */
static void conn_release(struct work_struct *work)
{
	struct rdma_conn *conn = container_of(work, struct rdma_conn,
					      release_work);
	struct rdma_peer *peer = conn->peer;
	struct rdma_tp *tp = peer->tp;
	struct rdma_cm_id *id = conn->cm_id;
	bool was_up = conn->established;

	/* Same ordered queue: an up_work queued before us has already run. */
	if (id) {
		rdma_disconnect(id);
		/* Flushes every pending receive, send and transfer with an error. */
		if (id->qp)
			ib_drain_qp(id->qp);
		conn_free_resources(conn);
		rdma_destroy_id(id);
	}
	kfree(conn);
	if (was_up) {
		ddsm_rdma_test_peer_down(tp, peer->node);
		if (tp->t.peer_event)
			tp->t.peer_event(tp->t.ctx, peer->node, false);
	}
}

/*
 * Stop using @conn and release it in the background.  With peer->lock
 * held.  Queued messages are dropped: the protocol times out and retries
 * at its own level, it never assumes the transport kept a message.
 */
static void conn_fail(struct rdma_conn *conn, enum ddsm_peer_state state,
		      const char *why)
{
	struct rdma_peer *peer = conn->peer;
	struct rdma_tp *tp = peer->tp;
	struct rdma_txq_item *it, *tmp;

	if (conn->dying)
		return;
	conn->dying = true;
	if (peer->conn == conn) {
		peer->conn = NULL;
		peer->remote_ready = false;
		if (conn->established)
			pr_info("node %u (%s) %s: %s\n", peer->node,
				peer->addr_str,
				state == DDSM_PEER_DEAD ? "dead" : "down", why);
		set_state(peer, state);
		peer->next_connect = jiffies +
				     msecs_to_jiffies(tp->reconnect_ms);
		list_for_each_entry_safe(it, tmp, &peer->txq, node) {
			list_del(&it->node);
			atomic64_inc(&peer->drops);
			free_item(it);
		}
	}
	queue_work(tp->wq, &conn->release_work);
}

static void conn_up_work(struct work_struct *work);

static struct rdma_conn *conn_alloc(struct rdma_peer *peer)
{
	struct rdma_conn *conn = kzalloc(sizeof(*conn), GFP_KERNEL);

	if (!conn)
		return NULL;
	conn->kind = RDMA_KIND_CONN;
	conn->peer = peer;
	INIT_WORK(&conn->release_work, conn_release);
	INIT_WORK(&conn->up_work, conn_up_work);
	return conn;
}

static void conn_established(struct rdma_conn *conn)
{
	struct rdma_peer *peer = conn->peer;
	struct rdma_tp *tp = peer->tp;
	int ret;

	spin_lock_bh(&peer->lock);
	if (conn->dying || peer->conn != conn) {
		spin_unlock_bh(&peer->lock);
		return;
	}
	conn->established = true;
	peer->credits = RDMA_RX_DEPTH;
	peer->credits_owed = 0;
	peer->last_rx = jiffies;
	peer->last_tx = jiffies;
	set_state(peer, DDSM_PEER_UP);
	ret = post_reg(conn);
	if (ret)
		conn_fail(conn, DDSM_PEER_DOWN, "cannot register frames");
	if (!ret)
		queue_work(tp->wq, &conn->up_work);
	spin_unlock_bh(&peer->lock);
}

/*
 * On the same ordered workqueue as the release of any earlier connection
 * to this peer, so the core always sees its "down" before the next "up".
 */
static void conn_up_work(struct work_struct *work)
{
	struct rdma_conn *conn = container_of(work, struct rdma_conn, up_work);
	struct rdma_peer *peer = conn->peer;
	struct rdma_tp *tp = peer->tp;

	pr_info("node %u (%s) up\n", peer->node, peer->addr_str);
	if (tp->t.peer_event)
		tp->t.peer_event(tp->t.ctx, peer->node, true);
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
		conn_fail(old, DDSM_PEER_DOWN, "replaced by a new connection");
	peer->conn = conn;
	set_state(peer, DDSM_PEER_CONNECTING);
	spin_unlock_bh(&peer->lock);

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
			set_state(peer, DDSM_PEER_DOWN);
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
			pr_warn("RDMA device of the listener removed\n");
		return 0;
	}
	conn = id->context;
	peer = conn->peer;
	trace_ddsm_net_cm(peer->node, rdma_event_msg(ev->event), ev->status);

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
		conn_fail(conn, DDSM_PEER_DOWN, rdma_event_msg(ev->event));
		spin_unlock_bh(&peer->lock);
		return 0;
	default:
		return 0;
	}
	if (ret) {
		spin_lock_bh(&peer->lock);
		conn_fail(conn, DDSM_PEER_DOWN, "connect failed");
		spin_unlock_bh(&peer->lock);
	}
	/* The release work destroys the id; never ask the CM to. */
	return 0;
}

static void start_connect(struct rdma_peer *peer)
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
	spin_lock_bh(&peer->lock);
	if (peer->conn || tp->stopping) {
		spin_unlock_bh(&peer->lock);
		rdma_destroy_id(id);
		kfree(conn);
		return;
	}
	peer->conn = conn;
	set_state(peer, DDSM_PEER_CONNECTING);
	peer->next_connect = jiffies + msecs_to_jiffies(tp->reconnect_ms);
	spin_unlock_bh(&peer->lock);

	src.sin_port = 0;
	ret = rdma_resolve_addr(id, (struct sockaddr *)&src,
				(struct sockaddr *)&peer->addr,
				RDMA_CM_TIMEOUT_MS);
	if (ret) {
		spin_lock_bh(&peer->lock);
		conn_fail(conn, DDSM_PEER_DOWN, "address resolution failed");
		spin_unlock_bh(&peer->lock);
	}
}

/* Heartbeats out, deaths declared, reconnects started. */
static void tick(struct work_struct *work)
{
	struct rdma_tp *tp = container_of(to_delayed_work(work), struct rdma_tp,
					  tick);
	unsigned long hb = msecs_to_jiffies(tp->heartbeat_ms);
	unsigned long timeout = msecs_to_jiffies(tp->peer_timeout_ms);
	u32 i;

	for (i = 0; i < tp->nr_nodes; i++) {
		struct rdma_peer *peer = &tp->peers[i];
		bool connect = false;

		if (i == tp->t.self)
			continue;
		spin_lock_bh(&peer->lock);
		if (peer->state == DDSM_PEER_UP && peer->conn) {
			if (time_after(jiffies, peer->last_rx + timeout)) {
				atomic64_inc(&peer->deaths);
				conn_fail(peer->conn, DDSM_PEER_DEAD,
					  "no heartbeat");
			} else if (time_after(jiffies, peer->last_tx + hb)) {
				queue_locked(peer, RDMA_T_HEARTBEAT, 0, 0, NULL, 0,
					     NULL);
			}
		} else if (!peer->conn && i < tp->t.self &&
			   time_after_eq(jiffies, peer->next_connect)) {
			connect = true;
		}
		spin_unlock_bh(&peer->lock);
		if (connect && !tp->stopping)
			start_connect(peer);
	}
	if (!tp->stopping)
		queue_delayed_work(tp->wq, &tp->tick, hb);
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
	u32 i;

	tp->stopping = true;
	cancel_delayed_work_sync(&tp->tick);
	if (tp->listen_id)
		rdma_destroy_id(tp->listen_id);
	for (i = 0; i < tp->nr_nodes; i++) {
		struct rdma_peer *peer = &tp->peers[i];

		spin_lock_bh(&peer->lock);
		if (peer->conn)
			conn_fail(peer->conn, DDSM_PEER_DOWN, "unloading");
		spin_unlock_bh(&peer->lock);
	}
	/* Release works may queue nothing new: every conn is dying. */
	destroy_workqueue(tp->wq);
	ddsm_rdma_test_exit(tp);
	tp->loop->ops->destroy(tp->loop);
	free_frames(tp);
	kfree(tp);
}

static const struct ddsm_transport_ops rdma_ops = {
	.name = "rdma",
	.send = rdma_send,
	.peer_info = rdma_peer_info,
	.destroy = rdma_destroy,
};

static int listen_start(struct rdma_tp *tp)
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
	tp->listen_id = id;
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
	INIT_DELAYED_WORK(&tp->tick, tick);

	ret = alloc_frames(tp, cfg->frames);
	if (ret)
		goto err_frames;
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
	ret = ddsm_rdma_test_init(tp, cfg);
	if (ret)
		goto err_wq;
	ret = listen_start(tp);
	if (ret) {
		pr_err("cannot listen on %s: %d (is the address configured on an RDMA device?)\n",
		       tp->peers[cfg->self].addr_str, ret);
		goto err_test;
	}
	queue_delayed_work(tp->wq, &tp->tick, 0);
	return &tp->t;

err_test:
	ddsm_rdma_test_exit(tp);
err_wq:
	destroy_workqueue(tp->wq);
err_loop:
	tp->loop->ops->destroy(tp->loop);
err_frames:
	free_frames(tp);
	kfree(tp);
	return ERR_PTR(ret);
}
