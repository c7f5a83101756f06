// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA transport, receive side (HELLO and AUTH: rdma_hello.c).
 *
 * Completions are polled in softirq: there a message proves its sender
 * alive, returns its credits, and control messages are consumed and their
 * receives reposted at once.  Everything for the core (protocol messages,
 * a peer's "up" and "down") goes through one queue to one delivery thread
 * at real-time priority, in arrival order.  So neither liveness nor credit
 * returns wait for the core, which may sleep (zapping PTEs), and a user
 * thread spinning on the same CPU does not hold delivery back for a time
 * slice.  A message's receive is reposted only once the core is done with
 * it, which is what keeps a slow core from being overrun.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/string.h>
#include "rdma.h"
#include "trace_net.h"

static void recv_done(struct ib_cq *cq, struct ib_wc *wc);

int rdma_post_recv(struct rdma_conn *conn, struct rdma_rx *rx)
{
	struct ib_recv_wr wr = {};
	const struct ib_recv_wr *bad;
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
	return ib_post_recv(conn->cm_id->qp, &wr, &bad);
}

/*
 * Give @rx back to the peer.  Under peer->lock and only while @conn is
 * live, so a repost can never race with the drain of a dying connection.
 */
static void repost(struct rdma_conn *conn, struct rdma_rx *rx)
{
	struct rdma_peer *peer = conn->peer;

	spin_lock_bh(&peer->lock);
	if (conn->state != RDMA_CONN_DYING) {
		if (rdma_post_recv(conn, rx)) {
			rdma_conn_fail(conn, DDSM_PEER_DOWN,
				       "cannot post a receive");
		} else {
			conn->credits_owed++;
			rdma_kick_tx(peer);
		}
	}
	spin_unlock_bh(&peer->lock);
}

/*
 * Every receive of a connection set up (rdma_conn_setup()), before
 * rdma_connect or rdma_accept: the peer's first credits.
 */
int rdma_rx_post_ring(struct rdma_conn *conn)
{
	int i, ret;

	for (i = 0; i < RDMA_RX_DEPTH; i++) {
		ret = rdma_post_recv(conn, &conn->rx[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* A message for the core: queued, or parked until the core hears "up". */
static void queue_msg(struct rdma_tp *tp, struct rdma_conn *conn,
		      struct rdma_rx *rx)
{
	bool wake;

	rx->ev.kind = RDMA_EV_MSG;
	spin_lock_bh(&tp->evq_lock);
	wake = conn->announced;
	list_add_tail(&rx->ev.node, wake ? &tp->evq : &conn->parked);
	spin_unlock_bh(&tp->evq_lock);
	if (wake)
		wake_up(&tp->evq_wait);
}

/*
 * A message arrived on @conn: the credits it returns, and for the peer's
 * connection, proof of life.  An old connection's credits and news never
 * apply to a new one; a pending newcomer's (rdma.h) are its own, and say
 * nothing about whether the peer's connection lives.
 */
static void heard_on(struct rdma_peer *peer, struct rdma_conn *conn,
		     u16 returned)
{
	u32 credits;

	spin_lock_bh(&peer->lock);
	if (!rdma_conn_ours(peer, conn))
		goto out;
	if (peer->conn == conn) {
		if (peer->suspect_since)
			pr_info("node %u (%s) heard again after %u ms: not dead\n",
				peer->node, peer->addr_str,
				jiffies_to_msecs(jiffies - peer->last_rx));
		peer->last_rx = jiffies;
		peer->suspect_since = 0;
	}
	credits = conn->credits + returned;
	if (credits > RDMA_RX_DEPTH) {
		/* A peer that hands out more than exists lies. */
		credits = RDMA_RX_DEPTH;
		atomic64_inc(&peer->drops);
	}
	conn->credits = credits;
	rdma_kick_tx(peer);
out:
	spin_unlock_bh(&peer->lock);
}

/* Softirq: liveness, credits and control messages; the rest is queued. */
static void recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rdma_rx *rx = container_of(wc->wr_cqe, struct rdma_rx, cqe);
	struct rdma_conn *conn = rx->conn;
	struct rdma_peer *peer = conn->peer;
	struct rdma_tp *tp = peer->tp;
	struct ib_device *dev = conn->cm_id->device;
	struct rdma_hdr *h = rx->buf;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			pr_warn_ratelimited("node %u: receive failed: %s\n",
					    peer->node,
					    ib_wc_status_msg(wc->status));
			spin_lock_bh(&peer->lock);
			rdma_conn_fail(conn, DDSM_PEER_DOWN, "receive failed");
			spin_unlock_bh(&peer->lock);
		}
		return;
	}
	ib_dma_sync_single_for_cpu(dev, rx->dma, RDMA_SLOT_SIZE,
				   DMA_FROM_DEVICE);
	if (!ddsm_wire_hdr_valid(h, wc->byte_len)) {
		atomic64_inc(&peer->drops);
		trace_ddsm_net_drop(peer->node, h->type, wc->byte_len);
		pr_warn_ratelimited("node %u: dropped malformed transport message (%u bytes)\n",
				    peer->node, wc->byte_len);
		repost(conn, rx);
		return;
	}
	atomic64_inc(&peer->msgs_recv);
	atomic64_add(wc->byte_len, &peer->bytes_recv);
	trace_ddsm_net_recv(peer->node, h->type, le16_to_cpu(h->len),
			    !!(h->flags & RDMA_HF_PAGE));

	heard_on(peer, conn, le16_to_cpu(h->credits));

	switch (h->type) {
	case RDMA_T_MSG:
	case RDMA_T_PING:
	case RDMA_T_PONG:
		if (h->flags & RDMA_HF_PAGE)
			ib_dma_sync_single_for_cpu(dev, rx->page_dma, PAGE_SIZE,
						   DMA_FROM_DEVICE);
		rx->byte_len = wc->byte_len;
		queue_msg(tp, conn, rx);
		return;
	case RDMA_T_HELLO:
		rdma_handle_hello(peer, conn, h + 1, le16_to_cpu(h->len));
		break;
	case RDMA_T_AUTH:
		rdma_handle_auth(peer, conn, h + 1, le16_to_cpu(h->len));
		break;
	default:	/* CREDIT, HEARTBEAT: the header said it all */
		break;
	}
	repost(conn, rx);
}

static void deliver_msg(struct rdma_tp *tp, struct rdma_rx *rx)
{
	struct rdma_conn *conn = rx->conn;
	struct rdma_peer *peer = conn->peer;
	struct rdma_hdr *h = rx->buf;
	struct page *page = (h->flags & RDMA_HF_PAGE) ? rx->page : NULL;
	u16 len = le16_to_cpu(h->len);

	switch (h->type) {
	case RDMA_T_MSG:
		tp->t.recv(tp->t.ctx, peer->node, h + 1, len, page,
			   page ? rx->byte_len - RDMA_SLOT_SIZE : 0);
		break;
	case RDMA_T_PING:
		/* A unit asked for is the first pattern frame (selftest/rdma.c). */
		ddsm_rdma_send_raw(tp, peer->node, RDMA_T_PONG, 0,
				   le64_to_cpu(h->cookie), h + 1, len,
				   (h->flags & RDMA_HF_WANT_PAGE) &&
				   tp->nr_frames ? tp->frames[0] : NULL);
		break;
	case RDMA_T_PONG:
		ddsm_rdma_test_pong(tp, peer->node, le64_to_cpu(h->cookie),
				    h + 1, len, page);
		break;
	}
	repost(conn, rx);
}

/*
 * The core hears "up" only after the previous connection's "down" (same
 * ordered workqueue, same queue); then the messages that arrived first.
 */
static void deliver_up(struct rdma_tp *tp, struct rdma_conn *conn)
{
	struct rdma_peer *peer = conn->peer;
	bool live;

	spin_lock_bh(&peer->lock);
	live = peer->conn == conn && conn->state != RDMA_CONN_DYING;
	if (live) {
		rdma_set_state(peer, DDSM_PEER_UP);
		rdma_early_release(peer);
		rdma_kick_tx(peer);
	}
	spin_unlock_bh(&peer->lock);
	if (live)
		pr_info("node %u (%s) up\n", peer->node, peer->addr_str);
	if (tp->t.peer_event)
		tp->t.peer_event(tp->t.ctx, peer->node, true);

	spin_lock_bh(&tp->evq_lock);
	conn->announced = true;
	list_splice_init(&conn->parked, &tp->evq);
	spin_unlock_bh(&tp->evq_lock);
}

/* After every message the connection delivered: tell the core, free it. */
static void deliver_down(struct rdma_tp *tp, struct rdma_conn *conn)
{
	struct rdma_peer *peer = conn->peer;

	/* Parked messages were never the core's business. */
	spin_lock_bh(&tp->evq_lock);
	INIT_LIST_HEAD(&conn->parked);
	spin_unlock_bh(&tp->evq_lock);
	if (conn->announced) {
		ddsm_rdma_test_peer_down(tp, peer->node);
		if (tp->t.peer_event)
			tp->t.peer_event(tp->t.ctx, peer->node, false);
	}
	rdma_conn_destroy(conn);
}

/*
 * Messages for a peer that never came up were dropped (rdma_tx.c): the
 * core settles what they were part of as for a peer that went away.  A
 * peer told "up" since has had its messages go, and needs no "down".
 */
static void deliver_early_down(struct rdma_tp *tp, struct rdma_peer *peer)
{
	bool tell;

	spin_lock_bh(&peer->lock);
	peer->early_down_queued = false;
	tell = !peer->ever_up;
	spin_unlock_bh(&peer->lock);
	if (tell && tp->t.peer_event)
		tp->t.peer_event(tp->t.ctx, peer->node, false);
}

static struct rdma_event *next_event(struct rdma_tp *tp)
{
	struct rdma_event *ev;

	spin_lock_bh(&tp->evq_lock);
	ev = list_first_entry_or_null(&tp->evq, struct rdma_event, node);
	if (ev)
		list_del(&ev->node);
	spin_unlock_bh(&tp->evq_lock);
	return ev;
}

static bool evq_busy(struct rdma_tp *tp)
{
	bool busy;

	spin_lock_bh(&tp->evq_lock);
	busy = !list_empty(&tp->evq);
	spin_unlock_bh(&tp->evq_lock);
	return busy;
}

/* Runs until stopped and everything queued is delivered. */
static int rx_thread(void *arg)
{
	struct rdma_tp *tp = arg;
	struct rdma_event *ev;

	ddsm_delivery_priority();
	for (;;) {
		ev = next_event(tp);
		if (!ev) {
			if (kthread_should_stop())
				break;
			wait_event_interruptible(tp->evq_wait,
						 evq_busy(tp) ||
						 kthread_should_stop());
			continue;
		}
		switch (ev->kind) {
		case RDMA_EV_MSG:
			deliver_msg(tp, container_of(ev, struct rdma_rx, ev));
			break;
		case RDMA_EV_UP:
			deliver_up(tp, container_of(ev, struct rdma_conn,
						    up_ev));
			break;
		case RDMA_EV_EARLY_DOWN:
			deliver_early_down(tp, container_of(ev, struct rdma_peer,
							    early_down));
			break;
		case RDMA_EV_DOWN:
			deliver_down(tp, container_of(ev, struct rdma_conn,
						      down_ev));
			break;
		}
		cond_resched();
	}
	return 0;
}

int rdma_rx_start(struct rdma_tp *tp)
{
	struct task_struct *t;

	t = kthread_run(rx_thread, tp, "ddsm_rx/%u", tp->t.self);
	if (IS_ERR(t))
		return PTR_ERR(t);
	tp->rx_thread = t;
	return 0;
}

/* Once nothing can queue events any more; delivers what is left first. */
void rdma_rx_stop(struct rdma_tp *tp)
{
	if (tp->rx_thread)
		kthread_stop(tp->rx_thread);
	tp->rx_thread = NULL;
}
