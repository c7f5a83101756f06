// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA transport, liveness: slow is not dead.
 *
 * A timer (softirq, so no busy thread or workqueue can hold it back)
 * sends heartbeats on idle connections and watches every peer.  A peer
 * silent for half of peer_timeout_ms is suspected, and probed with a
 * small RDMA READ of its frame pool: the peer's NIC answers that without
 * any of its software running, so a node that is alive but busy (its CPU
 * taken, its delivery thread behind) answers, while a dead or frozen one
 * does not.  Declared dead: a probe unanswered for half of
 * peer_timeout_ms, a probe that fails, or, with probes answered, silence
 * for RDMA_MUTE_FACTOR times peer_timeout_ms (the node's NIC works but
 * its ddsm does not).  Every decision is logged with its evidence.
 *
 * The judge can be the slow one: a guest paused by its host, or one whose
 * softirqs ran seconds behind, finds every peer silent on its first tick
 * back, while the heartbeats and probe answers that would clear them wait
 * in its own receive queues (the timer softirq runs before NET_RX and the
 * completions).  A tick that runs later than a quarter of peer_timeout_ms
 * therefore judges no one: it suspects no one new, and the suspicions
 * already open start again from it.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/jiffies.h>
#include "rdma.h"
#include "trace_net.h"

#define RDMA_MUTE_FACTOR	4

static void post_probe(struct rdma_peer *peer, struct rdma_conn *conn)
{
	struct ib_rdma_wr wr = {};
	const struct ib_send_wr *bad;
	struct ib_sge sge;

	if (!conn->keys_in || conn->probe_inflight || !conn->probe_buf)
		return;
	sge.addr = conn->probe_dma;
	sge.length = RDMA_PROBE_BYTES;
	sge.lkey = conn->pd->local_dma_lkey;
	conn->probe_cqe.done = rdma_probe_done;
	wr.wr.opcode = IB_WR_RDMA_READ;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.wr_cqe = &conn->probe_cqe;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.remote_addr = peer->remote_iova;
	wr.rkey = peer->remote_rkey;
	if (ib_post_send(conn->cm_id->qp, &wr.wr, &bad))
		return;
	conn->probe_inflight = true;
	conn->probe_posted = jiffies;
}

void rdma_probe_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rdma_conn *conn = container_of(wc->wr_cqe, struct rdma_conn,
					      probe_cqe);
	struct rdma_peer *peer = conn->peer;

	spin_lock_bh(&peer->lock);
	conn->probe_inflight = false;
	if (wc->status == IB_WC_SUCCESS) {
		if (peer->conn == conn) {
			if (peer->suspect_since &&
			    (!peer->probe_ok ||
			     time_before(peer->probe_ok, peer->suspect_since)))
				pr_info("node %u (%s) slow, not dead: no message for %u ms, but its NIC answered a probe in %u ms\n",
					peer->node, peer->addr_str,
					jiffies_to_msecs(jiffies - peer->last_rx),
					jiffies_to_msecs(jiffies -
							 conn->probe_posted));
			peer->probe_ok = jiffies;
			atomic64_inc(&peer->probes_ok);
		}
	} else if (wc->status != IB_WC_WR_FLUSH_ERR) {
		pr_warn("node %u (%s) dead: no heartbeat for %u ms and its NIC failed a probe: %s\n",
			peer->node, peer->addr_str,
			jiffies_to_msecs(jiffies - peer->last_rx),
			ib_wc_status_msg(wc->status));
		atomic64_inc(&peer->deaths);
		rdma_conn_fail(conn, DDSM_PEER_DEAD, "probe failed");
	}
	spin_unlock_bh(&peer->lock);
}

static void declare_dead(struct rdma_peer *peer, struct rdma_conn *conn,
			 const char *evidence)
{
	struct rdma_txq_item *it;
	u32 queued = 0;

	list_for_each_entry(it, &peer->txq, node)
		queued++;
	pr_warn("node %u (%s) dead: no heartbeat for %u ms, %s; credits %u, %u queued, last probe answered %u ms ago\n",
		peer->node, peer->addr_str,
		jiffies_to_msecs(jiffies - peer->last_rx), evidence,
		conn->credits, queued,
		peer->probe_ok ? jiffies_to_msecs(jiffies - peer->probe_ok) :
				 0);
	atomic64_inc(&peer->deaths);
	rdma_conn_fail(conn, DDSM_PEER_DEAD, "no heartbeat");
}

/* Suspect, probe, declare.  With peer->lock held. */
static void watch_peer(struct rdma_peer *peer, struct rdma_conn *conn,
		       bool stalled)
{
	unsigned long timeout = msecs_to_jiffies(peer->tp->peer_timeout_ms);
	unsigned long now = jiffies;

	if (!rdma_conn_hello_in(conn)) {
		/* Still being set up: not up for the core, so not dead. */
		if (time_after(now, conn->established_at +
			       msecs_to_jiffies(max(RDMA_HELLO_WAIT_MS,
						    peer->tp->peer_timeout_ms)))) {
			atomic64_inc(&peer->setup_timeouts);
			pr_info("node %u (%s): no HELLO %u ms after the connection was established; connecting again\n",
				peer->node, peer->addr_str,
				jiffies_to_msecs(now - conn->established_at));
			rdma_conn_fail(conn, DDSM_PEER_DOWN, "no HELLO");
		}
		return;
	}
	if (time_before_eq(now, peer->last_rx + timeout / 2))
		return;
	if (stalled) {
		/* Not evidence about the peer: see the top of this file. */
		if (peer->suspect_since) {
			peer->suspect_since = now ?: 1;
			trace_ddsm_peer_state(peer->node, "suspect",
					      "suspect again");
		}
		return;
	}
	if (!peer->suspect_since) {
		peer->suspect_since = now ?: 1;
		atomic64_inc(&peer->suspicions);
		trace_ddsm_peer_state(peer->node, "up", "suspect");
		pr_info_ratelimited("node %u (%s) suspected: no message for %u ms, credits %u; probing\n",
				    peer->node, peer->addr_str,
				    jiffies_to_msecs(now - peer->last_rx),
				    conn->credits);
		post_probe(peer, conn);
		return;
	}
	if (conn->probe_inflight) {
		/*
		 * A probe of an earlier suspicion may still be out (a lossy
		 * link retransmits it): it gets half a timeout from this
		 * suspicion, not from when it was posted.
		 */
		unsigned long since = time_after(peer->suspect_since,
						 conn->probe_posted) ?
				      peer->suspect_since : conn->probe_posted;

		if (time_after(now, since + timeout / 2))
			declare_dead(peer, conn, "probe READ unanswered");
		return;
	}
	if (time_after(now, peer->last_rx + RDMA_MUTE_FACTOR * timeout)) {
		declare_dead(peer, conn, "its NIC answers probes but its ddsm is mute");
		return;
	}
	post_probe(peer, conn);
}

/* How long messages wait for a peer that was never up (rdma_tx.c). */
static unsigned long early_wait(struct rdma_tp *tp)
{
	return msecs_to_jiffies(max_t(unsigned int, RDMA_HELLO_WAIT_MS,
				      RDMA_EARLY_WAIT_FACTOR *
				      tp->peer_timeout_ms));
}

/*
 * Whether this tick ran so late that this node, not its peers, was the
 * silent one.  tick_due is 0 until the first tick has armed the next.
 */
static bool tick_stalled(struct rdma_tp *tp)
{
	unsigned long late;

	if (!tp->tick_due || time_before_eq(jiffies, tp->tick_due))
		return false;
	late = jiffies - tp->tick_due;
	if (late <= msecs_to_jiffies(tp->peer_timeout_ms / 4))
		return false;
	pr_info_ratelimited("liveness tick ran %u ms late (this node was paused or starved): no peer is judged on it, suspicions start again\n",
			    jiffies_to_msecs(late));
	return true;
}

/* With a key: @conn has been up to peer_timeout_ms without a valid AUTH. */
static bool auth_overdue(struct rdma_tp *tp, struct rdma_conn *conn)
{
	return conn && rdma_conn_live(conn) && ddsm_auth_on(&tp->auth) &&
	       conn->state < RDMA_CONN_AUTHED &&
	       time_after(jiffies, conn->established_at +
			  msecs_to_jiffies(tp->peer_timeout_ms));
}

/*
 * A newcomer has peer_timeout_ms to prove the key, counted from its
 * request while the connection manager's handshake has not completed:
 * one whose answers go to the real peer (a host that took its address)
 * would otherwise wait for the CM's retries, a minute or more.
 */
static bool newcomer_overdue(struct rdma_tp *tp, struct rdma_conn *conn)
{
	if (!conn || conn->state == RDMA_CONN_DYING)
		return false;
	if (rdma_conn_live(conn))
		return auth_overdue(tp, conn);
	return time_after(jiffies, conn->born +
			  msecs_to_jiffies(tp->peer_timeout_ms));
}

void rdma_tick(struct timer_list *t)
{
	struct rdma_tp *tp = from_timer(tp, t, tick);
	bool stalled = tick_stalled(tp);
	bool connect = false;
	u32 i;

	for (i = 0; i < tp->nr_nodes; i++) {
		struct rdma_peer *peer = &tp->peers[i];
		struct rdma_conn *conn;

		if (i == tp->t.self)
			continue;
		spin_lock_bh(&peer->lock);
		if (peer->early_nr &&
		    time_after(jiffies, peer->early_since + early_wait(tp)))
			rdma_early_expire(peer);
		/* A newcomer that never proves the key is not kept either. */
		if (newcomer_overdue(tp, peer->pending))
			rdma_auth_refuse(peer, peer->pending,
					 "no valid AUTH in time");
		conn = peer->conn;
		if (auth_overdue(tp, conn)) {
			/* A peer that never proves the key is not kept. */
			rdma_auth_refuse(peer, conn, "no valid AUTH in time");
		} else if (conn && rdma_conn_live(conn)) {
			watch_peer(peer, conn, stalled);
			/* A heartbeat, if nothing went out for an interval. */
			if (peer->conn == conn)
				rdma_kick_tx(peer);
		} else if (!conn && i < tp->t.self &&
			   time_after_eq(jiffies, peer->next_connect)) {
			connect = true;
		}
		spin_unlock_bh(&peer->lock);
	}
	if (READ_ONCE(tp->listen_lost))
		connect = true;
	if (READ_ONCE(tp->stopping))
		return;
	if (connect)
		queue_work(tp->wq, &tp->connect_work);
	tp->tick_due = jiffies + msecs_to_jiffies(tp->heartbeat_ms);
	mod_timer(&tp->tick, tp->tick_due);
}

/* Process context: what the timer cannot do itself. */
void rdma_connect_work(struct work_struct *work)
{
	struct rdma_tp *tp = container_of(work, struct rdma_tp, connect_work);
	u32 i;

	if (READ_ONCE(tp->stopping))
		return;
	if (READ_ONCE(tp->listen_lost) && !rdma_listen_start(tp)) {
		WRITE_ONCE(tp->listen_lost, false);
		pr_info("listening again on %s\n",
			tp->peers[tp->t.self].addr_str);
	}
	for (i = 0; i < tp->t.self; i++) {
		struct rdma_peer *peer = &tp->peers[i];
		bool connect;

		spin_lock_bh(&peer->lock);
		connect = !peer->conn &&
			  time_after_eq(jiffies, peer->next_connect);
		spin_unlock_bh(&peer->lock);
		if (connect)
			rdma_start_connect(peer);
	}
}
