// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA transport, send side: protocol messages queue per peer in order
 * and go out as one chain when credits allow; control messages (credit
 * returns and heartbeats) never queue, so they cannot wait behind a
 * protocol message that waits for credits (rules in rdma_credit.h).
 *
 * A message on a live connection is never dropped: the queue's items
 * come from a mempool that waits for memory rather than fail, and any
 * other failure to post tears the connection down, so the core hears
 * "down" for everything it had sent there and settles it.
 *
 * The send queue (issue 16's contract, docs/transport.md) is bounded per
 * peer.  A sender that may wait does so once RDMA_TXQ_WAIT messages are
 * queued, until the queue drains below it; a queue that does not move
 * for peer_timeout_ms while it waits is a stuck connection, taken down.
 * The delivery threads never wait: a message they send answers one they
 * deliver, and the peer's answers to ours wait behind that delivery, so
 * two nodes waiting for each other's room would never move.  They queue
 * past RDMA_TXQ_WAIT, and at RDMA_TXQ_MAX their send takes the
 * connection down instead: bounded, and never a silent drop.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/slab.h>
#include <linux/mm.h>
#include "rdma.h"
#include "trace_net.h"

/*
 * Pool items come back with whatever their last use left in them: the
 * page reference at least must be clear, or freeing an item that was
 * never filled in (a connection replaced meanwhile) drops a page that is
 * not ours.  KASAN caught exactly that in rdma_send_on (make check-debug).
 */
struct rdma_txq_item *rdma_item_alloc(struct rdma_tp *tp, gfp_t gfp)
{
	struct rdma_txq_item *it = mempool_alloc(tp->txq_pool, gfp);

	if (it)
		it->page = NULL;
	return it;
}

static void rdma_send_done(struct ib_cq *cq, struct ib_wc *wc);

/* @nr more messages in @peer's send queue.  With peer->lock. */
static void txq_added(struct rdma_peer *peer, u32 nr)
{
	peer->txq_nr += nr;
	if (peer->txq_nr > peer->txq_peak)
		peer->txq_peak = peer->txq_nr;
}

/* Senders waiting for room go on once there is.  With peer->lock. */
void rdma_txq_wake(struct rdma_peer *peer)
{
	if (peer->txq_nr < RDMA_TXQ_WAIT && wq_has_sleeper(&peer->txq_room))
		wake_up_all(&peer->txq_room);
}

static struct rdma_tx *get_tx_slot(struct rdma_conn *conn, bool ctrl)
{
	int i;

	if (conn->tx_used >= RDMA_TX_SLOTS ||
	    (!ctrl && conn->tx_used >= RDMA_TX_SLOTS - RDMA_TX_CTRL_SLOTS))
		return NULL;
	for (i = 0; i < RDMA_TX_SLOTS; i++)
		if (!conn->tx[i].in_use)
			return &conn->tx[i];
	return NULL;
}

static void put_tx_slot(struct rdma_conn *conn, struct rdma_tx *slot)
{
	if (slot->page) {
		ib_dma_unmap_page(conn->cm_id->device, slot->page_dma,
				  slot->page_len, DMA_TO_DEVICE);
		put_page(slot->page);
		slot->page = NULL;
	}
	slot->in_use = false;
	conn->tx_used--;
}

/*
 * Fill @slot with a header and @len bytes of @payload, and @page_len
 * bytes from @page_off of the page at *@page if not NULL (its reference
 * moves to the slot).  The header reports every receive reposted so far.
 * False if the page could not be DMA-mapped.
 */
static bool fill_tx(struct rdma_conn *conn, struct rdma_tx *slot, u8 type,
		    u8 flags, u64 cookie, const void *payload, u16 len,
		    struct page **page, u32 page_off, u32 page_len)
{
	struct ib_device *dev = conn->cm_id->device;
	struct rdma_hdr *h = slot->buf;
	bool with_page = page && *page;

	h->magic = RDMA_HDR_MAGIC;
	h->type = type;
	h->flags = (with_page ? RDMA_HF_PAGE : 0) | flags;
	h->rsvd = 0;
	h->credits = cpu_to_le16(conn->credits_owed);
	h->len = cpu_to_le16(len);
	h->cookie = cpu_to_le64(cookie);
	if (len)
		memcpy(h + 1, payload, len);

	/*
	 * With data behind it the header SGE is sent whole, so the data
	 * lands at the start of the receiver's page SGE.
	 */
	memset((u8 *)(h + 1) + len, 0, RDMA_SLOT_SIZE - sizeof(*h) - len);
	slot->sge[0].addr = slot->dma;
	slot->sge[0].length = with_page ? RDMA_SLOT_SIZE : sizeof(*h) + len;
	ib_dma_sync_single_for_device(dev, slot->dma, RDMA_SLOT_SIZE,
				      DMA_TO_DEVICE);
	slot->sge[0].lkey = conn->pd->local_dma_lkey;
	slot->wr.num_sge = 1;
	slot->page = NULL;
	if (with_page) {
		slot->page_dma = ib_dma_map_page(dev, *page, page_off,
						 page_len, DMA_TO_DEVICE);
		if (ib_dma_mapping_error(dev, slot->page_dma))
			return false;
		slot->page = *page;
		slot->page_len = page_len;
		*page = NULL;
		slot->sge[1].addr = slot->page_dma;
		slot->sge[1].length = page_len;
		slot->sge[1].lkey = conn->pd->local_dma_lkey;
		slot->wr.num_sge = 2;
	}
	slot->wr.next = NULL;
	slot->wr.opcode = IB_WR_SEND;
	slot->wr.send_flags = IB_SEND_SIGNALED;
	slot->cqe.done = rdma_send_done;
	slot->wr.wr_cqe = &slot->cqe;
	slot->wr.sg_list = slot->sge;
	slot->in_use = true;
	conn->tx_used++;
	conn->credits--;
	conn->credits_owed = 0;
	return true;
}

static void account_send(struct rdma_peer *peer, struct rdma_tx *slot,
			 u8 type, u16 len)
{
	atomic64_inc(&peer->msgs_sent);
	atomic64_add(slot->sge[0].length + (slot->page ? slot->page_len : 0),
		     &peer->bytes_sent);
	trace_ddsm_net_send(peer->node, type, len, !!slot->page);
}

/*
 * Post @first.. as one chain.  A failed post leaves the work requests
 * from @bad on unposted: their slots are freed here, because no
 * completion will ever come for them, and the connection goes down.
 */
static void post_chain(struct rdma_peer *peer, struct rdma_conn *conn,
		       struct ib_send_wr *first)
{
	const struct ib_send_wr *bad = NULL;
	const struct ib_send_wr *wr;
	int ret;

	peer->last_tx = jiffies;
	ret = ib_post_send(conn->cm_id->qp, first, &bad);
	if (!ret)
		return;
	for (wr = bad; wr; wr = wr->next) {
		struct rdma_tx *slot = container_of(wr, struct rdma_tx, wr);

		put_tx_slot(conn, slot);
	}
	pr_err_ratelimited("node %u: post send failed: %d\n", peer->node, ret);
	rdma_conn_fail(conn, DDSM_PEER_DOWN, "post send failed");
}

/*
 * A control message goes ahead of everything queued when credits must
 * flow back or the peer has heard nothing for a heartbeat interval.
 */
static struct ib_send_wr *make_ctrl(struct rdma_peer *peer,
				    struct rdma_conn *conn)
{
	struct rdma_tp *tp = peer->tp;
	bool idle = time_after(jiffies, peer->last_tx +
			       msecs_to_jiffies(tp->heartbeat_ms));
	struct rdma_tx *slot;
	u8 type;

	/* A protocol message about to go reports credits and liveness. */
	if (!list_empty(&peer->txq) && rdma_credit_may_send_msg(conn->credits))
		return NULL;
	if (!rdma_credit_want_ctrl(conn->credits_owed, idle) ||
	    !rdma_credit_may_send_ctrl(conn->credits, conn->credits_owed))
		return NULL;
	slot = get_tx_slot(conn, true);
	if (!slot)
		return NULL;
	type = conn->credits_owed >= RDMA_CREDIT_RETURN ? RDMA_T_CREDIT :
							  RDMA_T_HEARTBEAT;
	fill_tx(conn, slot, type, 0, 0, NULL, 0, NULL, 0, 0);
	account_send(peer, slot, type, 0);
	atomic64_inc(&peer->ctrl_sent);
	return &slot->wr;
}

/*
 * Post what the credits and slots allow, as one chain: first a control
 * message if one is due, then queued messages in order.  With peer->lock
 * held; any context.
 */
void rdma_kick_tx(struct rdma_peer *peer)
{
	struct rdma_conn *conn = peer->conn;
	struct ib_send_wr *first, *last;
	struct rdma_txq_item *it, *tmp;

	if (!conn || !rdma_conn_live(conn))
		return;
	first = make_ctrl(peer, conn);
	last = first;
	list_for_each_entry_safe(it, tmp, &peer->txq, node) {
		struct rdma_tx *slot;

		if (!rdma_credit_may_send_msg(conn->credits))
			break;
		slot = get_tx_slot(conn, false);
		if (!slot)
			break;
		list_del(&it->node);
		peer->txq_nr--;
		peer->txq_moved++;
		if (!fill_tx(conn, slot, it->type, it->flags, it->cookie,
			     it->payload, it->len, &it->page, it->page_off,
			     it->page_len)) {
			/* Nothing may overtake it: the connection goes. */
			rdma_item_free(peer->tp, it);
			if (first)
				post_chain(peer, conn, first);
			rdma_conn_fail(conn, DDSM_PEER_DOWN,
				       "cannot map a unit for sending");
			return;
		}
		account_send(peer, slot, it->type, it->len);
		if (last)
			last->next = &slot->wr;
		else
			first = &slot->wr;
		last = &slot->wr;
		rdma_item_free(peer->tp, it);
	}
	if (first)
		post_chain(peer, conn, first);
	rdma_txq_wake(peer);
}

/*
 * Sends before a peer is up (issue 15).  At startup a node may have to
 * send to a peer it has no connection to yet: an owner answering a
 * request its home forwarded, from a requester that is connected to the
 * home but not to the owner yet.  Failing such a send would drop the
 * answer with no "down" to follow, since the core never heard the peer
 * was up, and the unit would stay wedged.  So a protocol message for a
 * peer that was never up here waits for it, and goes first once it is;
 * if it is not up within the bound, or too many wait, they are dropped
 * together with a "down" for the peer, which settles what they were
 * part of as for any peer that went away.  Never a silent drop.  A peer
 * that was up and went down already had its "down": sends to it fail
 * at once, as before.  With peer->lock held.
 */
static int queue_early(struct rdma_peer *peer, struct rdma_txq_item *it)
{
	if (peer->ever_up || READ_ONCE(peer->tp->stopping))
		return -ENOTCONN;
	if (peer->early_nr >= RDMA_EARLY_MAX) {
		rdma_early_expire(peer);
		return -ENOTCONN;
	}
	if (!peer->early_nr++)
		peer->early_since = jiffies;
	list_add_tail(&it->node, &peer->early);
	atomic64_inc(&peer->early_msgs);
	return 0;
}

void rdma_early_expire(struct rdma_peer *peer)
{
	struct rdma_txq_item *it, *tmp;
	u32 nr = 0;

	list_for_each_entry_safe(it, tmp, &peer->early, node) {
		list_del(&it->node);
		rdma_item_free(peer->tp, it);
		nr++;
	}
	atomic64_add(nr, &peer->early_dropped);
	pr_warn("node %u (%s) not up %u ms after the first of %u messages for it: dropped, the node is taken for down\n",
		peer->node, peer->addr_str,
		jiffies_to_msecs(jiffies - peer->early_since), nr);
	peer->early_nr = 0;
	if (!peer->early_down_queued) {
		peer->early_down_queued = true;
		rdma_queue_event(peer->tp, &peer->early_down);
	}
}

/* The core is told "up" now: the messages that waited go first. */
void rdma_early_release(struct rdma_peer *peer)
{
	peer->ever_up = true;
	list_splice_tail_init(&peer->early, &peer->txq);
	txq_added(peer, peer->early_nr);
	peer->early_nr = 0;
}

/* Unload: what still waits for a peer that never came. */
void rdma_early_free(struct rdma_peer *peer)
{
	struct rdma_txq_item *it, *tmp;

	list_for_each_entry_safe(it, tmp, &peer->early, node) {
		list_del(&it->node);
		atomic64_inc(&peer->early_dropped);
		rdma_item_free(peer->tp, it);
	}
	peer->early_nr = 0;
}

/*
 * Queue @it for @peer's live connection, or refuse it.  A full queue
 * (RDMA_TXQ_MAX) takes the connection down.  With peer->lock.
 */
int rdma_queue_locked(struct rdma_peer *peer, struct rdma_txq_item *it)
{
	struct rdma_conn *conn = peer->conn;

	if (it->type == RDMA_T_MSG && peer->state != DDSM_PEER_UP)
		return queue_early(peer, it);
	if (!conn || !rdma_conn_live(conn))
		return -ENOTCONN;
	if (peer->txq_nr >= RDMA_TXQ_MAX) {
		atomic64_inc(&peer->txq_overflows);
		pr_warn_ratelimited("node %u (%s): %u messages queued and no room: the connection goes down\n",
				    peer->node, peer->addr_str, peer->txq_nr);
		rdma_conn_fail(conn, DDSM_PEER_DOWN, "send queue full");
		return -ENOTCONN;
	}
	list_add_tail(&it->node, &peer->txq);
	txq_added(peer, 1);
	rdma_kick_tx(peer);
	return 0;
}

/* Could a sender waiting for room go on?  Read without peer->lock. */
static bool txq_room(struct rdma_peer *peer)
{
	return READ_ONCE(peer->txq_nr) < RDMA_TXQ_WAIT ||
	       READ_ONCE(peer->state) != DDSM_PEER_UP ||
	       READ_ONCE(peer->tp->stopping);
}

/*
 * A sender that may wait: until the queue has room, as long as it moves.
 * One that does not move for peer_timeout_ms while the peer is up (its
 * heartbeats bypass the queue) is a stuck connection: taken down, and
 * the sender goes on to fail as for any peer that went down.  A fatal
 * signal ends the wait but not the send, which the hard bound still
 * covers.
 */
static void wait_room(struct rdma_peer *peer)
{
	unsigned long timeout = msecs_to_jiffies(peer->tp->peer_timeout_ms);
	u32 moved;
	long left;

	if (txq_room(peer))
		return;
	atomic64_inc(&peer->txq_waits);
	trace_ddsm_net_txq_wait(peer->node, READ_ONCE(peer->txq_nr));
	do {
		moved = READ_ONCE(peer->txq_moved);
		left = wait_event_killable_timeout(peer->txq_room,
						   txq_room(peer), timeout);
		if (left)
			return;
	} while (READ_ONCE(peer->txq_moved) != moved);
	spin_lock_bh(&peer->lock);
	if (peer->conn && !txq_room(peer)) {
		atomic64_inc(&peer->txq_overflows);
		pr_warn("node %u (%s): %u messages queued, none sent for %u ms: the connection goes down\n",
			peer->node, peer->addr_str, peer->txq_nr,
			peer->tp->peer_timeout_ms);
		rdma_conn_fail(peer->conn, DDSM_PEER_DOWN,
			       "send queue stuck");
	}
	spin_unlock_bh(&peer->lock);
}

/* The delivery threads' sends (rdma_rx.c, loop.c) must not wait. */
static bool may_wait(struct rdma_tp *tp)
{
	return current != tp->rx_thread && !ddsm_loop_delivering(tp->loop);
}

/*
 * Queue one message.  In process context the item pool waits for memory;
 * in atomic context a failed allocation takes the connection down, so a
 * message is never silently lost on a live connection.
 */
static int send_item(struct rdma_tp *tp, u32 dst, u8 type, u8 flags,
		     u64 cookie, const void *payload, u16 len,
		     struct page *page, u32 page_off, u32 page_len)
{
	struct rdma_peer *peer = &tp->peers[dst];
	struct rdma_txq_item *it;
	int ret;

	if (len > RDMA_MAX_PAYLOAD)
		return -EMSGSIZE;
	it = rdma_item_alloc(tp, GFP_NOIO);
	if (!it) {
		spin_lock_bh(&peer->lock);
		if (peer->conn)
			rdma_conn_fail(peer->conn, DDSM_PEER_DOWN,
				       "out of memory for a message");
		spin_unlock_bh(&peer->lock);
		return -ENOMEM;
	}
	it->type = type;
	it->flags = flags;
	it->len = len;
	it->cookie = cookie;
	it->page = page;
	it->page_off = page_off;
	it->page_len = page_len;
	if (page)
		get_page(page);
	memcpy(it->payload, payload, len);
	if (may_wait(tp))
		wait_room(peer);
	spin_lock_bh(&peer->lock);
	ret = rdma_queue_locked(peer, it);
	spin_unlock_bh(&peer->lock);
	if (ret)
		rdma_item_free(tp, it);
	return ret;
}

int ddsm_rdma_send_raw(struct rdma_tp *tp, u32 dst, u8 type, u8 flags,
		       u64 cookie, const void *payload, u16 len,
		       struct page *page)
{
	if (dst >= tp->nr_nodes || dst == tp->t.self)
		return -EINVAL;
	return send_item(tp, dst, type, flags, cookie, payload, len, page, 0,
			 PAGE_SIZE);
}

int ddsm_rdma_send_msg(struct rdma_tp *tp, u32 dst, const void *payload,
		       u16 len, struct page *page, u32 page_off, u32 page_len)
{
	return send_item(tp, dst, RDMA_T_MSG, 0, 0, payload, len, page,
			 page_off, page_len);
}

/*
 * A handshake message straight onto @conn, ahead of anything queued:
 * a pending newcomer (rdma.h) has no queue of its own, and a fresh
 * connection has all its credits.  With peer->lock held; false if no
 * control slot or credit is left.
 */
bool rdma_post_ctrl_locked(struct rdma_conn *conn, u8 type,
			   const void *payload, u16 len)
{
	struct rdma_peer *peer = conn->peer;
	struct rdma_tx *slot;

	if (!rdma_conn_live(conn) ||
	    !rdma_credit_may_send_ctrl(conn->credits, conn->credits_owed))
		return false;
	slot = get_tx_slot(conn, true);
	if (!slot)
		return false;
	fill_tx(conn, slot, type, 0, 0, payload, len, NULL, 0, 0);
	account_send(peer, slot, type, len);
	post_chain(peer, conn, &slot->wr);
	return true;
}

/*
 * A transport message that belongs to @conn only (HELLO, AUTH); any
 * context.  Dropped if @conn is no longer the peer's or its newcomer; a
 * live connection busy with traffic (the second HELLO may follow "up")
 * queues it behind what waits.
 */
void rdma_send_on(struct rdma_conn *conn, u8 type, const void *payload,
		  u16 len)
{
	struct rdma_peer *peer = conn->peer;
	struct rdma_txq_item *it = NULL;

	spin_lock_bh(&peer->lock);
	if (!rdma_conn_ours(peer, conn))
		goto out;
	/* Nothing overtakes what waits: the second HELLO follows the AUTH. */
	if ((peer->conn != conn || list_empty(&peer->txq)) &&
	    rdma_post_ctrl_locked(conn, type, payload, len))
		goto out;
	if (peer->conn == conn)
		it = rdma_item_alloc(peer->tp, GFP_ATOMIC);
	if (!it) {
		rdma_conn_fail(conn, DDSM_PEER_DOWN,
			       "no room for a handshake message");
		goto out;
	}
	it->type = type;
	it->flags = 0;
	it->len = len;
	it->cookie = 0;
	it->page = NULL;
	memcpy(it->payload, payload, len);
	if (!rdma_queue_locked(peer, it))
		it = NULL;
out:
	spin_unlock_bh(&peer->lock);
	if (it)
		rdma_item_free(peer->tp, it);
}

static void rdma_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rdma_tx *slot = container_of(wc->wr_cqe, struct rdma_tx, cqe);
	struct rdma_conn *conn = slot->conn;
	struct rdma_peer *peer = conn->peer;

	spin_lock_bh(&peer->lock);
	put_tx_slot(conn, slot);
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_warn_ratelimited("node %u: send failed: %s\n",
					    peer->node,
					    ib_wc_status_msg(wc->status));
		rdma_conn_fail(conn, DDSM_PEER_DOWN, "send failed");
	} else if (peer->conn == conn) {
		rdma_kick_tx(peer);
	}
	spin_unlock_bh(&peer->lock);
}
