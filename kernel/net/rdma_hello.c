// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA transport: the handshake between "established" and "up" (rdma.c
 * says the whole).  Without a cluster key, once the CM says established
 * this connection's registration of the frame pool is posted, and when it
 * completes our HELLO (the rkey, our nonce) goes out.  With a key our
 * HELLO (the nonce only) goes out at once; each side signs the other's
 * nonce (AUTH), and only a verified AUTH registers the pool for remote
 * access and sends its rkey in a second HELLO, so a peer that cannot
 * prove the key never gets one; the core hears "up" once the peer's has
 * come too (rdma_maybe_up(), rdma_conn.c).  The peer's HELLO must
 * describe the same global space.  A verified AUTH on a pending newcomer
 * (rdma.h) makes it the peer's connection.  The receive side (rdma_rx.c)
 * hands HELLO and AUTH here; rdma_live.c refuses a peer whose AUTH is
 * late.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/string.h>
#include "rdma.h"

static void rdma_auth_answer(struct rdma_conn *conn);

/* With peer->lock held: the peer may not join; it retries, we log again. */
static void rdma_refuse(struct rdma_peer *peer, struct rdma_conn *conn,
			const char *why)
{
	pr_warn_ratelimited("node %u (%s) refused: %s\n", peer->node,
			    peer->addr_str, why);
	rdma_conn_fail(conn, DDSM_PEER_DOWN, "refused");
}

/* With peer->lock held: the peer failed authentication. */
void rdma_auth_refuse(struct rdma_peer *peer, struct rdma_conn *conn,
		      const char *why)
{
	atomic64_inc(&peer->auth_failures);
	rdma_refuse(peer, conn, why);
}

/* With peer->lock held: does the peer see the same global space? */
static bool same_space(struct rdma_peer *peer, struct rdma_conn *conn,
		       const struct rdma_hello *h)
{
	struct rdma_tp *tp = peer->tp;
	u64 size = le64_to_cpu(h->space_size);
	u32 policy = le32_to_cpu(h->home_policy);
	char why[160];

	if (size == tp->space_size && policy == tp->home_policy)
		return true;
	snprintf(why, sizeof(why),
		 "its space is size=%llu home_policy=%u, ours size=%llu home_policy=%u",
		 size, policy, tp->space_size, tp->home_policy);
	rdma_refuse(peer, conn, why);
	return false;
}

/* With peer->lock held: the peer's frame pool, for probes and transfers. */
static void take_keys(struct rdma_peer *peer, struct rdma_conn *conn,
		      const struct rdma_hello *h)
{
	peer->remote_rkey = le32_to_cpu(h->rkey);
	peer->remote_iova = le64_to_cpu(h->iova);
	peer->remote_frames = le32_to_cpu(h->nr_frames);
	conn->keys_in = true;
}

/*
 * With a key, the second HELLO: the frame pool of a peer that proved the
 * key, once we saw its AUTH verify (it sends the pool only after ours
 * did, and its AUTH went first).  With peer->lock held.
 */
static void pool_hello(struct rdma_peer *peer, struct rdma_conn *conn,
		       const struct rdma_hello *h, bool keys)
{
	if (!keys)
		return;		/* a HELLO again changes nothing */
	if (peer->conn == conn && !conn->keys_in &&
	    conn->state == RDMA_CONN_AUTHED) {
		take_keys(peer, conn, h);
		rdma_maybe_up(conn);
	} else {
		rdma_auth_refuse(peer, conn, "a frame pool out of place");
	}
}

/* The peer's HELLO: the next state (a HELLO again changes none). */
static void hello_in(struct rdma_conn *conn)
{
	switch (conn->state) {
	case RDMA_CONN_CONNECTING:
		rdma_conn_move(conn, RDMA_CONN_EARLY_HELLO);
		break;
	case RDMA_CONN_ESTABLISHED:
		rdma_conn_move(conn, RDMA_CONN_HELLO_IN);
		break;
	case RDMA_CONN_HELLO_SENT:
		rdma_conn_move(conn, RDMA_CONN_HELLOS);
		break;
	default:
		break;
	}
}

/* A HELLO: the peer's frames, its nonce, and whether it has a key. */
void rdma_handle_hello(struct rdma_peer *peer, struct rdma_conn *conn,
		       const void *p, u16 len)
{
	const struct rdma_hello *h = p;
	struct rdma_tp *tp = peer->tp;
	bool ours = ddsm_auth_on(&tp->auth), theirs, keys;

	if (ddsm_wire_hello_check(p, len, peer->node, RDMA_MAX_FRAMES)) {
		atomic64_inc(&peer->drops);
		return;
	}
	theirs = le32_to_cpu(h->flags) & RDMA_HELLO_AUTH;
	keys = le32_to_cpu(h->flags) & RDMA_HELLO_KEYS;
	spin_lock_bh(&peer->lock);
	if (!rdma_conn_ours(peer, conn)) {
		spin_unlock_bh(&peer->lock);
		return;
	}
	if (rdma_conn_hello_in(conn)) {
		pool_hello(peer, conn, h, keys);
		spin_unlock_bh(&peer->lock);
		return;
	}
	if (!same_space(peer, conn, h)) {
		spin_unlock_bh(&peer->lock);
		return;
	}
	if (theirs != ours) {
		rdma_auth_refuse(peer, conn, ours ?
				 "it has no cluster key (auth_key)" :
				 "it has a cluster key and this node has none");
	} else if (keys == ours) {
		rdma_auth_refuse(peer, conn, ours ?
				 "its frame pool came before it proved the key" :
				 "its HELLO has no frame pool");
	} else {
		if (keys)
			take_keys(peer, conn, h);
		memcpy(conn->peer_nonce, h->nonce, sizeof(conn->peer_nonce));
		hello_in(conn);
		rdma_maybe_up(conn);
	}
	spin_unlock_bh(&peer->lock);
	rdma_auth_answer(conn);
}

/*
 * Prove the key: sign the peer's fresh nonce (with ours and both ids).
 * Once we have its nonce and our HELLO has gone out (the peer needs our
 * nonce to check the answer, and the acceptor may hear the peer's HELLO
 * before its own side of the connection is established).
 */
static void rdma_auth_answer(struct rdma_conn *conn)
{
	struct rdma_peer *peer = conn->peer;
	struct rdma_tp *tp = peer->tp;
	u8 nonce[RDMA_NONCE_SIZE];
	struct rdma_auth a;
	bool go = false;

	if (!ddsm_auth_on(&tp->auth))
		return;
	spin_lock_bh(&peer->lock);
	if (rdma_conn_ours(peer, conn) && conn->state == RDMA_CONN_HELLOS) {
		rdma_conn_move(conn, RDMA_CONN_AUTH_WAIT);
		memcpy(nonce, conn->peer_nonce, sizeof(nonce));
		go = true;
	}
	spin_unlock_bh(&peer->lock);
	if (go && !ddsm_auth_mac(&tp->auth, tp->t.self, peer->node, nonce,
				 conn->nonce, a.mac))
		rdma_send_on(conn, RDMA_T_AUTH, &a, sizeof(a));
	memzero_explicit(&a, sizeof(a));
}

/* Our HELLO: our nonce, and with @keys the frame pool's rkey. */
static void fill_hello(struct rdma_conn *conn, struct rdma_hello *hello,
		       bool keys)
{
	struct rdma_tp *tp = conn->peer->tp;
	u32 flags = ddsm_auth_on(&tp->auth) ? RDMA_HELLO_AUTH : 0;

	memset(hello, 0, sizeof(*hello));
	hello->node_id = cpu_to_le32(tp->t.self);
	if (keys) {
		flags |= RDMA_HELLO_KEYS;
		hello->nr_frames = cpu_to_le32(tp->nr_frames);
		hello->rkey = cpu_to_le32(conn->mr->rkey);
		hello->iova = cpu_to_le64(conn->mr->iova);
	}
	hello->flags = cpu_to_le32(flags);
	memcpy(hello->nonce, conn->nonce, sizeof(hello->nonce));
	hello->space_size = cpu_to_le64(tp->space_size);
	hello->home_policy = cpu_to_le32(tp->home_policy);
}

/* Our first HELLO is out: the next state.  With peer->lock held. */
static void hello_out(struct rdma_conn *conn)
{
	/* Up already (no key) or failed: nothing waits for ours. */
	if (conn->state == RDMA_CONN_ESTABLISHED)
		rdma_conn_move(conn, RDMA_CONN_HELLO_SENT);
	else if (conn->state == RDMA_CONN_HELLO_IN)
		rdma_conn_move(conn, RDMA_CONN_HELLOS);
}

/*
 * The frame pool is registered for this connection: its rkey goes out,
 * in our only HELLO without a key, in our second one with a key (after
 * the peer's AUTH verified).
 */
static void reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rdma_conn *conn = container_of(wc->wr_cqe, struct rdma_conn,
					      reg_cqe);
	struct rdma_peer *peer = conn->peer;
	struct rdma_hello hello;

	if (wc->status == IB_WC_SUCCESS) {
		fill_hello(conn, &hello, true);
		rdma_send_on(conn, RDMA_T_HELLO, &hello, sizeof(hello));
		if (!ddsm_auth_on(&peer->tp->auth)) {
			spin_lock_bh(&peer->lock);
			hello_out(conn);
			spin_unlock_bh(&peer->lock);
		}
		return;
	}
	spin_lock_bh(&peer->lock);
	if (wc->status != IB_WC_WR_FLUSH_ERR)
		pr_err("node %u: frame registration failed: %s\n",
		       peer->node, ib_wc_status_msg(wc->status));
	rdma_conn_fail(conn, DDSM_PEER_DOWN, "registration failed");
	spin_unlock_bh(&peer->lock);
}

static int post_reg(struct rdma_conn *conn);

/* A connection just became the peer's: its silence counts from now. */
static void fresh_liveness(struct rdma_peer *peer)
{
	peer->last_rx = jiffies;
	peer->last_tx = jiffies;
	peer->suspect_since = 0;
	peer->probe_ok = 0;
}

/*
 * A newcomer proved the key: it replaces the connection it waited behind,
 * whose "down" reaches the core before this one's "up" (both go through
 * the same ordered workqueue).  With peer->lock held.
 */
static void promote(struct rdma_peer *peer, struct rdma_conn *conn)
{
	peer->pending = NULL;
	if (peer->conn)
		rdma_conn_fail(peer->conn, DDSM_PEER_DOWN,
			       "replaced by an authenticated connection");
	peer->conn = conn;
	rdma_set_state(peer, DDSM_PEER_CONNECTING);
	fresh_liveness(peer);
}

/*
 * The peer's proof: verified, the frame pool is registered for it and its
 * rkey sent (reg_done()); the core hears "up" once the peer's has come.
 */
void rdma_handle_auth(struct rdma_peer *peer, struct rdma_conn *conn,
		      const void *p, u16 len)
{
	const struct rdma_auth *a = p;
	struct rdma_tp *tp = peer->tp;

	spin_lock_bh(&peer->lock);
	if (!rdma_conn_ours(peer, conn)) {
		spin_unlock_bh(&peer->lock);
		return;
	}
	/*
	 * Only after both HELLOs and our AUTH: the peer cannot sign our
	 * nonce before our HELLO, and this CQ handles its AUTH only after
	 * reg_done() or rdma_handle_hello() moved us on from there.
	 */
	if (!ddsm_auth_on(&tp->auth) || len != sizeof(*a) ||
	    conn->state != RDMA_CONN_AUTH_WAIT) {
		rdma_auth_refuse(peer, conn, "an AUTH out of place");
	} else if (!ddsm_auth_verify(&tp->auth, peer->node, tp->t.self,
				     conn->nonce, conn->peer_nonce, a->mac)) {
		rdma_auth_refuse(peer, conn,
				 "authentication failed (its AUTH does not verify: another key)");
	} else {
		rdma_conn_move(conn, RDMA_CONN_AUTHED);
		pr_info("node %u (%s) authenticated\n", peer->node,
			peer->addr_str);
		if (peer->pending == conn)
			promote(peer, conn);
		if (post_reg(conn))
			rdma_conn_fail(conn, DDSM_PEER_DOWN,
				       "cannot register frames");
	}
	spin_unlock_bh(&peer->lock);
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

/*
 * Established: control traffic may flow (HELLO, credits, heartbeats);
 * protocol messages wait until the core has been told "up".
 */
void rdma_conn_established(struct rdma_conn *conn)
{
	struct rdma_peer *peer = conn->peer;
	struct rdma_hello hello;

	spin_lock_bh(&peer->lock);
	if (!rdma_conn_ours(peer, conn) ||
	    !rdma_conn_move(conn, conn->state == RDMA_CONN_EARLY_HELLO ?
				  RDMA_CONN_HELLO_IN : RDMA_CONN_ESTABLISHED)) {
		spin_unlock_bh(&peer->lock);
		return;
	}
	conn->established_at = jiffies;
	conn->credits = RDMA_RX_DEPTH;
	conn->credits_owed = 0;
	if (peer->conn == conn)
		fresh_liveness(peer);
	if (!ddsm_auth_on(&peer->tp->auth)) {
		if (post_reg(conn))
			rdma_conn_fail(conn, DDSM_PEER_DOWN,
				       "cannot register frames");
		else
			rdma_maybe_up(conn); /* the acceptor may have its HELLO */
	} else {
		/*
		 * Our nonce at once, under the lock, so that the peer's
		 * HELLO and AUTH find the state that follows it.
		 */
		fill_hello(conn, &hello, false);
		if (rdma_post_ctrl_locked(conn, RDMA_T_HELLO, &hello,
					  sizeof(hello)))
			hello_out(conn);
		else
			rdma_conn_fail(conn, DDSM_PEER_DOWN,
				       "no room for our HELLO");
	}
	spin_unlock_bh(&peer->lock);
	rdma_auth_answer(conn);
}
