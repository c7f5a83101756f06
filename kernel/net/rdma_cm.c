// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA transport: the connection manager's side (rdma.c says the
 * whole).  The higher id of a pair connects (rdma_start_connect()), the
 * lower one listens and accepts, checking everything about a request
 * first; each cm_id's events move its connection on or fail it.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/slab.h>
#include <linux/inet.h>
#include <linux/jiffies.h>
#include <net/net_namespace.h>
#include "rdma.h"
#include "trace_net.h"

/*
 * A returning peer replaces whatever we still hold for it, but with a
 * cluster key an authenticated connection stays until the newcomer proves
 * the key too (rdma_hello.c promote()): anyone on the segment can claim
 * the peer's address.  One newcomer at a time.
 */
static void adopt(struct rdma_tp *tp, struct rdma_peer *peer,
		  struct rdma_conn *conn)
{
	struct rdma_conn *old;

	spin_lock_bh(&peer->lock);
	old = peer->conn;
	/* It proved nothing in its turn: one more attempt refused. */
	if (peer->pending)
		rdma_auth_refuse(peer, peer->pending,
				 "replaced by a newer request before it proved the key");
	if (old && ddsm_auth_on(&tp->auth) &&
	    (old->state == RDMA_CONN_AUTHED || old->state == RDMA_CONN_UP)) {
		peer->pending = conn;
		pr_info_ratelimited("node %u (%s): a new connection request; the authenticated one stays until it proves the key\n",
				    peer->node, peer->addr_str);
	} else {
		if (old)
			rdma_conn_fail(old, DDSM_PEER_DOWN,
				       "replaced by a new connection");
		peer->conn = conn;
		rdma_set_state(peer, DDSM_PEER_CONNECTING);
	}
	spin_unlock_bh(&peer->lock);
}

/* The accept failed: @conn, never used, leaves the peer's slots. */
static void unadopt(struct rdma_peer *peer, struct rdma_conn *conn)
{
	spin_lock_bh(&peer->lock);
	if (peer->conn == conn) {
		peer->conn = NULL;
		rdma_set_state(peer, DDSM_PEER_DOWN);
	} else if (peer->pending == conn) {
		peer->pending = NULL;
	}
	spin_unlock_bh(&peer->lock);
}

/* The lower id accepts; everything about the request is checked first. */
static int on_connect_request(struct rdma_tp *tp, struct rdma_cm_id *id,
			      struct rdma_cm_event *ev)
{
	struct sockaddr_in *src = (struct sockaddr_in *)&id->route.addr.dst_addr;
	struct rdma_conn_param param = {};
	struct rdma_peer *peer;
	struct rdma_conn *conn;
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
	conn = rdma_conn_alloc(peer);
	if (!conn)
		goto reject;
	conn->cm_id = id;
	id->context = conn;

	adopt(tp, peer, conn);
	ret = rdma_set_ack_timeout(id, RDMA_ACK_TIMEOUT);
	if (!ret)
		ret = rdma_conn_setup(conn);
	if (!ret)
		ret = rdma_rx_post_ring(conn);
	if (!ret) {
		param.rnr_retry_count = 7;
		param.retry_count = 7;
		param.responder_resources = 1;
		param.initiator_depth = 1;
		ret = rdma_accept(id, &param);
	}
	if (ret) {
		pr_warn("node %u: cannot accept: %d\n", node, ret);
		unadopt(peer, conn);
		/* The CM destroys @id itself when we return non-zero. */
		rdma_conn_free_resources(conn);
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

	ret = rdma_conn_setup(conn);
	if (!ret)
		ret = rdma_rx_post_ring(conn);
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
	if (READ_ONCE(conn->state) == RDMA_CONN_DYING &&
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
		rdma_conn_established(conn);
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
		/*
		 * A newcomer whose handshake never completed (a host claiming
		 * the peer's address does not get our answers once the
		 * neighbour entry points at the real peer) is an attempt
		 * refused, and counted as one.
		 */
		if (peer->pending == conn)
			rdma_auth_refuse(peer, conn,
					 "a new connection request ended before it proved the key");
		else
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

	conn = rdma_conn_alloc(peer);
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
