// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA transport: one-sided page transfers (RDMA READ and WRITE) into
 * the peer's registered frame pool, through the rkey of the one live
 * connection to it.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/mm.h>
#include "rdma.h"

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
	if (peer->state != DDSM_PEER_UP || !conn || !rdma_conn_live(conn) ||
	    !rdma_conn_hello_in(conn)) {
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
