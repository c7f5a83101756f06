// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA transport: the handshake between "established" and "up" (rdma.c
 * says the whole).  Once the CM says established, this connection's
 * registration of the frame pool is posted; when it completes our HELLO
 * (the rkey, our nonce) goes out.  The peer's HELLO must describe the
 * same global space; with a cluster key each side then signs the other's
 * nonce (AUTH) and only a verified AUTH lets the core hear "up"
 * (rdma_maybe_up(), rdma_conn.c).  The receive side (rdma_rx.c) hands
 * HELLO and AUTH here; rdma_live.c refuses a peer whose AUTH is late.
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
	bool ours = ddsm_auth_on(&tp->auth), theirs, live;

	if (ddsm_wire_hello_check(p, len, peer->node, RDMA_MAX_FRAMES)) {
		atomic64_inc(&peer->drops);
		return;
	}
	theirs = le32_to_cpu(h->flags) & RDMA_HELLO_AUTH;
	spin_lock_bh(&peer->lock);
	live = peer->conn == conn && conn->state != RDMA_CONN_DYING;
	if (live && !same_space(peer, conn, h)) {
		spin_unlock_bh(&peer->lock);
		return;
	}
	if (live && theirs != ours) {
		rdma_auth_refuse(peer, conn, ours ?
				 "it has no cluster key (auth_key)" :
				 "it has a cluster key and this node has none");
	} else if (live) {
		peer->remote_rkey = le32_to_cpu(h->rkey);
		peer->remote_iova = le64_to_cpu(h->iova);
		peer->remote_frames = le32_to_cpu(h->nr_frames);
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
	if (peer->conn == conn && conn->state == RDMA_CONN_HELLOS) {
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

/*
 * The frame pool is registered for this connection: our HELLO (its rkey,
 * our nonce) goes out, and with the peer's in, our AUTH.
 */
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
		/* Up already (no key) or failed: nothing waits for ours. */
		if (conn->state == RDMA_CONN_ESTABLISHED)
			rdma_conn_move(conn, RDMA_CONN_HELLO_SENT);
		else if (conn->state == RDMA_CONN_HELLO_IN)
			rdma_conn_move(conn, RDMA_CONN_HELLOS);
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

/* The peer's proof: verified, the core may hear "up". */
void rdma_handle_auth(struct rdma_peer *peer, struct rdma_conn *conn,
		      const void *p, u16 len)
{
	const struct rdma_auth *a = p;
	struct rdma_tp *tp = peer->tp;

	spin_lock_bh(&peer->lock);
	if (peer->conn != conn || conn->state == RDMA_CONN_DYING) {
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
		rdma_maybe_up(conn);
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
	int ret;

	spin_lock_bh(&peer->lock);
	if (conn->state == RDMA_CONN_DYING || peer->conn != conn ||
	    !rdma_conn_move(conn, conn->state == RDMA_CONN_EARLY_HELLO ?
				  RDMA_CONN_HELLO_IN : RDMA_CONN_ESTABLISHED)) {
		spin_unlock_bh(&peer->lock);
		return;
	}
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
