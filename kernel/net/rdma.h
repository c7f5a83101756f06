/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private state of the RDMA transport (rdma*.c) and its self-test
 * (selftest/rdma.c).  Nothing else outside kernel/net/ includes this.
 *
 * One RC connection per pair of nodes: the node with the higher id
 * connects, the lower one accepts, so two nodes never race to build two.
 * Each connection has its own PD, CQ, receive ring, send slots and its
 * own registration of the frame pool, so a peer's rkey dies with its
 * connection.
 */
#ifndef DDSM_NET_RDMA_H
#define DDSM_NET_RDMA_H

#include <linux/types.h>
#include <linux/in.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/completion.h>
#include <linux/wait.h>
#include <linux/atomic.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/ib_cm.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/timer.h>
#include "transport.h"
#include "wire.h"
#include "auth.h"
#include "rdma_credit.h"

#define RDMA_TX_SLOTS		64	/* send buffers per connection */
#define RDMA_TX_CTRL_SLOTS	2	/* of which only control messages use */
#define RDMA_MAX_FRAMES		512	/* rxe's fast-registration page list */
#define RDMA_MAX_IOS		64	/* one-sided transfers in flight */
#define RDMA_SQ_DEPTH		(RDMA_TX_SLOTS + RDMA_MAX_IOS + 4)
#define RDMA_CQ_DEPTH		(RDMA_RX_DEPTH + RDMA_SQ_DEPTH + 8)
#define RDMA_CM_TIMEOUT_MS	2000
/*
 * QP local ACK timeout, 4.096 us * 2^14 = 67 ms: how long a lost packet
 * stalls the connection before it is sent again.  rdma_cm's default for
 * RoCE (~0.5-1 s) let a few losses in a row on a lossy link silence a
 * live peer for seconds, longer than half of peer_timeout_ms.
 */
#define RDMA_ACK_TIMEOUT	14
/*
 * How long an established connection may wait for the peer's HELLO.  On
 * soft-RoCE the acceptor's QP becomes ready to send only when the CM's
 * RTU arrives (rxe raises no COMM_EST); a lost RTU is recovered by the
 * CM resending its REP after ~4.3 s (CMA_CM_RESPONSE_TIMEOUT 20), so a
 * live peer can be mute for that long before its HELLO.  Not a death:
 * the core has not been told "up"; the connection is just started again.
 */
#define RDMA_HELLO_WAIT_MS	15000
#define RDMA_TXQ_RESERVE	256	/* queued messages that never wait for memory */
/*
 * Messages for a peer that was never up here wait for it (rdma_tx.c):
 * at most this many, for at most RDMA_EARLY_WAIT_FACTOR times
 * peer_timeout_ms (RDMA_HELLO_WAIT_MS at least) after the first.
 */
#define RDMA_EARLY_MAX		4096
/*
 * The send queue's bounds per peer (rdma_tx.c, "The send queue"): a
 * sender that may wait does so once RDMA_TXQ_WAIT messages are queued;
 * the delivery threads never wait, and at RDMA_TXQ_MAX their send takes
 * the connection down instead.
 */
#define RDMA_TXQ_WAIT		1024
#define RDMA_TXQ_MAX		4096
#define RDMA_EARLY_WAIT_FACTOR	4
#define RDMA_PROBE_BYTES	8
#define RDMA_ITEM_SIZE		(sizeof(struct rdma_txq_item) + RDMA_MAX_PAYLOAD)

struct rdma_conn;

/*
 * What the delivery thread hands to the core: a received message,
 * a connection's "up" and, once it is drained, its "down" and release.
 */
enum rdma_event_kind {
	RDMA_EV_MSG = 1,
	RDMA_EV_UP,
	RDMA_EV_DOWN,
	RDMA_EV_EARLY_DOWN,	/* a never-up peer's messages could not go */
};

struct rdma_event {
	struct list_head node;
	enum rdma_event_kind kind;
};

struct rdma_rx {
	struct ib_cqe cqe;
	struct rdma_conn *conn;
	struct rdma_event ev;	/* on the delivery queue, or parked */
	u32 byte_len;
	void *buf;		/* RDMA_SLOT_SIZE */
	u64 dma;
	struct page *page;	/* data of RDMA_HF_PAGE messages */
	u64 page_dma;
};

struct rdma_tx {
	struct ib_cqe cqe;
	struct rdma_conn *conn;
	struct ib_send_wr wr;	/* kept here so queued sends post as a chain */
	struct ib_sge sge[2];
	void *buf;
	u64 dma;
	struct page *page;	/* pinned while the send is in flight */
	u64 page_dma;
	u32 page_len;		/* bytes of it mapped and sent */
	bool in_use;
};

/* Queued message waiting for a credit and a send slot. */
struct rdma_txq_item {
	struct list_head node;
	u8 type;
	u8 flags;		/* RDMA_HF_WANT_PAGE; RDMA_HF_PAGE is implied by page */
	u16 len;
	u64 cookie;
	struct page *page;
	u32 page_off, page_len;	/* the part of @page sent */
	u8 payload[];
};

/* A one-sided page transfer in flight. */
struct rdma_io {
	struct ib_cqe cqe;
	struct rdma_conn *conn;
	u64 dma;
	bool write;
	int status;
	void (*done)(struct rdma_io *io);
	void *arg;
	struct list_head node;
};

struct rdma_peer;

/*
 * A connection's life: one state, changed only by rdma_conn_move()
 * (rdma_conn.c), which refuses and logs a move not drawn here, as rtrs
 * and nvmet-rdma do.  Under peer->lock; the CM handler peeks at DYING
 * without it.  The core hears "up" from UP on; control messages flow
 * from ESTABLISHED to UP (rdma_conn_live()).
 *
 *   CONNECTING --ESTABLISHED--> ESTABLISHED --our HELLO--> HELLO_SENT
 *       | peer's HELLO              | peer's HELLO              | peer's HELLO
 *       v                           v                           v
 *   EARLY_HELLO --ESTABLISHED--> HELLO_IN ----our HELLO----> HELLOS
 *                                   | no key          no key |  | key: our AUTH
 *                                   +---------> UP <---------+  v
 *                                               ^           AUTH_WAIT
 *                            peer's frame pool  +- AUTHED <-----+ peer's AUTH
 *   any but DYING ---------------------------------------------> DYING
 *
 * The peer's HELLO may beat ESTABLISHED here (the acceptor hears it
 * before the CM's RTU).  Without a key, our HELLO carries the frame pool's
 * rkey and leaves once the pool is registered, after ESTABLISHED, and
 * nothing waits for it.  With a key, the first HELLO carries only our
 * nonce and leaves at ESTABLISHED; the pool is registered for remote
 * access only at AUTHED, and its rkey goes in a second HELLO
 * (RDMA_HELLO_KEYS): a peer that has not proved the key never learns it,
 * and UP waits for the peer's (@keys_in).
 */
enum rdma_conn_state {
	RDMA_CONN_CONNECTING,	/* rdma_cm's handshake */
	RDMA_CONN_EARLY_HELLO,	/* the peer's HELLO came first */
	RDMA_CONN_ESTABLISHED,	/* control messages flow, frames registering */
	RDMA_CONN_HELLO_SENT,	/* ours out, the peer's awaited */
	RDMA_CONN_HELLO_IN,	/* the peer's in, ours not out yet */
	RDMA_CONN_HELLOS,	/* both: with a key, our AUTH to send */
	RDMA_CONN_AUTH_WAIT,	/* our AUTH out, the peer's awaited */
	RDMA_CONN_AUTHED,	/* the peer proved the key: up follows */
	RDMA_CONN_UP,		/* the core's "up" queued (deliver_up()) */
	RDMA_CONN_DYING,	/* failed: released in the background */
	RDMA_CONN_NR_STATES
};

/* First member of every cm_id context, so the CM handler can tell them apart. */
enum rdma_ctx_kind {
	RDMA_KIND_LISTEN = 1,
	RDMA_KIND_CONN,
};

struct rdma_conn {
	enum rdma_ctx_kind kind;
	struct rdma_peer *peer;
	struct rdma_cm_id *cm_id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_mr *mr;		/* the frame pool, for this peer only */
	struct sg_table frames_sgt;
	int frames_mapped;		/* DMA-mapped entries */
	u32 ios;			/* one-sided transfers in flight */
	struct ib_cqe reg_cqe;
	struct rdma_rx rx[RDMA_RX_DEPTH];
	struct rdma_tx tx[RDMA_TX_SLOTS];
	u32 tx_used;
	struct work_struct release_work;
	struct work_struct up_work;	/* queues "up", after earlier downs */
	struct rdma_event up_ev, down_ev;

	/* Under peer->lock: this connection's own flow control. */
	u32 credits;			/* sends we may still post */
	u32 credits_owed;		/* receives reposted, not yet told */

	/*
	 * Liveness probe: a small RDMA READ that the peer's NIC answers
	 * without its software, to tell a slow peer from a dead one.
	 */
	struct ib_cqe probe_cqe;
	void *probe_buf;
	u64 probe_dma;
	bool probe_inflight;		/* under peer->lock */
	unsigned long probe_posted;	/* jiffies */

	/*
	 * Under tp->evq_lock, the delivery thread's own: messages that
	 * arrived before the core was told "up" wait here, so an
	 * incarnation's cleanup always runs before its successor's first
	 * message.  @announced: the core heard "up" (deliver_up()), even if
	 * the connection was dying by then, so it must hear "down".
	 */
	struct list_head parked;
	bool announced;
	enum rdma_conn_state state;	/* rdma_conn_move() only */
	/*
	 * Authentication (auth.h), under peer->lock: our HELLO's nonce and
	 * the peer's (valid from its HELLO on, rdma_conn_hello_in()).
	 */
	u8 nonce[RDMA_NONCE_SIZE];
	u8 peer_nonce[RDMA_NONCE_SIZE];
	bool keys_in;			/* the peer's frame pool arrived */
	unsigned long established_at;	/* jiffies */
	unsigned long born;		/* jiffies: allocated */
};

/* Established and not failed: control messages may flow. */
static inline bool rdma_conn_live(const struct rdma_conn *conn)
{
	return conn->state >= RDMA_CONN_ESTABLISHED &&
	       conn->state <= RDMA_CONN_UP;
}

/* The peer's HELLO (its rkey, frames and nonce) arrived on @conn. */
static inline bool rdma_conn_hello_in(const struct rdma_conn *conn)
{
	switch (conn->state) {
	case RDMA_CONN_EARLY_HELLO:
	case RDMA_CONN_HELLO_IN:
	case RDMA_CONN_HELLOS:
	case RDMA_CONN_AUTH_WAIT:
	case RDMA_CONN_AUTHED:
	case RDMA_CONN_UP:
		return true;
	default:
		return false;
	}
}

struct rdma_tp;

struct rdma_peer {
	struct rdma_tp *tp;
	u32 node;
	struct sockaddr_in addr;
	char addr_str[24];

	spinlock_t lock;		/* everything below */
	enum ddsm_peer_state state;
	struct rdma_conn *conn;		/* the live connection, if any */
	/*
	 * With a cluster key, a connection request while @conn is
	 * authenticated does not replace it at once: the newcomer waits here
	 * until it proves the key too (rdma_cm.c), so a host that merely
	 * holds a node's address cannot cut it off.  It carries the
	 * handshake only (HELLO, AUTH) and never touches the fields below.
	 */
	struct rdma_conn *pending;
	struct list_head txq;
	u32 txq_nr;			/* messages in txq */
	u32 txq_peak;			/* most ever in txq */
	u32 txq_moved;			/* messages taken from txq, ever */
	wait_queue_head_t txq_room;	/* senders waiting below RDMA_TXQ_WAIT */
	/*
	 * Protocol messages for a peer the core was never told "up" about:
	 * they wait here until it is (then they go first), or are dropped
	 * with a "down" for the core (rdma_tx.c, "Sends before a peer is up").
	 */
	struct list_head early;
	u32 early_nr;
	unsigned long early_since;	/* jiffies of the oldest */
	bool ever_up;			/* the core was told "up" once */
	bool early_down_queued;
	struct rdma_event early_down;
	struct list_head ios;		/* page transfers in flight */
	/* From conn's HELLO with RDMA_HELLO_KEYS, valid while conn->keys_in. */
	u32 remote_rkey;
	u64 remote_iova;
	u32 remote_frames;
	unsigned long last_rx;		/* jiffies: last message */
	unsigned long last_tx;
	unsigned long suspect_since;	/* jiffies; 0 if not suspected */
	unsigned long probe_ok;		/* jiffies of the last answered probe */
	unsigned long next_connect;	/* jiffies: earliest retry */

	atomic64_t msgs_sent, msgs_recv, bytes_sent, bytes_recv;
	atomic64_t drops, retries, deaths;
	atomic64_t suspicions, probes_ok, ctrl_sent;
	atomic64_t auth_failures, setup_timeouts;
	atomic64_t early_msgs, early_dropped;
	atomic64_t txq_waits, txq_overflows;
};

struct rdma_listener {
	enum rdma_ctx_kind kind;
	struct rdma_tp *tp;
};

struct rdma_tp {
	struct ddsm_transport t;
	struct rdma_listener listener;
	struct ddsm_transport *loop;	/* messages to self */
	u32 nr_nodes;
	u16 port;
	struct rdma_peer peers[DDSM_MAX_NODES];
	struct rdma_cm_id *listen_id;
	struct workqueue_struct *wq;	/* ordered: connects, ups, releases */
	struct timer_list tick;		/* heartbeats, suspicion, deaths */
	unsigned long tick_due;		/* when the next tick should run */
	struct work_struct connect_work; /* reconnects and re-listening */
	mempool_t *txq_pool;
	bool stopping;
	spinlock_t listen_lock;		/* listen_id */
	bool listen_lost;		/* the device went away under it */

	/*
	 * Delivery: one high-priority thread hands messages and peer events
	 * to the core in arrival order, so neither the completion path nor
	 * liveness waits for the core, and a spinning user thread does not
	 * delay it by a time slice.
	 */
	struct task_struct *rx_thread;
	spinlock_t evq_lock;		/* evq, and every conn's parked list */
	struct list_head evq;
	wait_queue_head_t evq_wait;

	unsigned int heartbeat_ms;
	unsigned int peer_timeout_ms;
	unsigned int reconnect_ms;
	struct ddsm_auth auth;		/* the cluster key, if one was given */
	u64 space_size;			/* must match every peer's (HELLO) */
	u32 home_policy;

	/* Registered frame pool: the only memory peers can reach. */
	struct page **frames;
	u32 nr_frames;

	/* Self-test state (selftest/rdma.c), NULL without it. */
	struct rdma_test *test;
};

/*
 * @conn is @peer's connection or its pending newcomer, and not failed:
 * the handshake may continue on it.  With peer->lock held.
 */
static inline bool rdma_conn_ours(const struct rdma_peer *peer,
				  const struct rdma_conn *conn)
{
	return (peer->conn == conn || peer->pending == conn) &&
	       conn->state != RDMA_CONN_DYING;
}

static inline struct rdma_tp *to_rdma(struct ddsm_transport *t)
{
	return container_of(t, struct rdma_tp, t);
}

/* A queue item back to the pool (rdma_tx.c allocates them). */
static inline void rdma_item_free(struct rdma_tp *tp, struct rdma_txq_item *it)
{
	if (it->page)
		put_page(it->page);
	mempool_free(it, tp->txq_pool);
}

/* rdma_tx.c */
int ddsm_rdma_send_raw(struct rdma_tp *tp, u32 dst, u8 type, u8 flags,
		       u64 cookie, const void *payload, u16 len,
		       struct page *page);
int ddsm_rdma_send_msg(struct rdma_tp *tp, u32 dst, const void *payload,
		       u16 len, struct page *page, u32 page_off, u32 page_len);
void rdma_send_on(struct rdma_conn *conn, u8 type, const void *payload,
		  u16 len);
bool rdma_post_ctrl_locked(struct rdma_conn *conn, u8 type,
			   const void *payload, u16 len);
int rdma_queue_locked(struct rdma_peer *peer, struct rdma_txq_item *it);
struct rdma_txq_item *rdma_item_alloc(struct rdma_tp *tp, gfp_t gfp);
void rdma_kick_tx(struct rdma_peer *peer);
void rdma_txq_wake(struct rdma_peer *peer);
/* A never-up peer's early messages: given up (tick) or to go (up). */
void rdma_early_expire(struct rdma_peer *peer);
void rdma_early_release(struct rdma_peer *peer);
void rdma_early_free(struct rdma_peer *peer);

/*
 * An event for the delivery thread (rdma_rx.c), behind everything queued
 * before it.  Here so that rdma_conn.c, which queues a connection's "up"
 * and "down", needs nothing of rdma_rx.c.
 */
static inline void rdma_queue_event(struct rdma_tp *tp, struct rdma_event *ev)
{
	spin_lock_bh(&tp->evq_lock);
	list_add_tail(&ev->node, &tp->evq);
	spin_unlock_bh(&tp->evq_lock);
	wake_up(&tp->evq_wait);
}

/* rdma_rx.c */
int rdma_post_recv(struct rdma_conn *conn, struct rdma_rx *rx);
/* Every receive of a connection just set up, before connect/accept. */
int rdma_rx_post_ring(struct rdma_conn *conn);
int rdma_rx_start(struct rdma_tp *tp);
void rdma_rx_stop(struct rdma_tp *tp);

/* rdma_hello.c: between established and "up" */
void rdma_auth_refuse(struct rdma_peer *peer, struct rdma_conn *conn,
		      const char *why);
void rdma_handle_hello(struct rdma_peer *peer, struct rdma_conn *conn,
		       const void *p, u16 len);
void rdma_handle_auth(struct rdma_peer *peer, struct rdma_conn *conn,
		      const void *p, u16 len);
/* RDMA_CM_EVENT_ESTABLISHED: control traffic may flow. */
void rdma_conn_established(struct rdma_conn *conn);
/* rdma_live.c */
void rdma_tick(struct timer_list *t);
void rdma_connect_work(struct work_struct *work);
void rdma_probe_done(struct ib_cq *cq, struct ib_wc *wc);

/* rdma_conn.c */
/* The only way @conn's state changes; false (and a log) if not allowed. */
bool rdma_conn_move(struct rdma_conn *conn, enum rdma_conn_state to);
void rdma_conn_fail(struct rdma_conn *conn, enum ddsm_peer_state state,
		    const char *why);
void rdma_drop_txq(struct rdma_peer *peer);
void rdma_set_state(struct rdma_peer *peer, enum ddsm_peer_state state);
void rdma_maybe_up(struct rdma_conn *conn);
void rdma_conn_destroy(struct rdma_conn *conn);
struct rdma_conn *rdma_conn_alloc(struct rdma_peer *peer);
/*
 * Everything a connection needs before rdma_connect/rdma_accept but its
 * posted receives (rdma_rx_post_ring()).
 */
int rdma_conn_setup(struct rdma_conn *conn);
/* Verbs resources of @conn, not its cm_id.  Safe in a CM handler. */
void rdma_conn_free_resources(struct rdma_conn *conn);

/* rdma_cm.c */
void rdma_start_connect(struct rdma_peer *peer);
int rdma_listen_start(struct rdma_tp *tp);

/* rdma_io.c */
int ddsm_rdma_page_io(struct rdma_tp *tp, u32 dst, bool write, u32 local,
		      u32 remote, struct rdma_io *io);

/*
 * selftest/rdma.c, in the self-test build only (selftest/selftest.h);
 * without it a node still answers a PING (any peer may test it) and
 * drops a PONG.
 */
struct rdma_test;
#ifdef DDSM_SELFTEST
int ddsm_rdma_test_init(struct rdma_tp *tp,
			const struct ddsm_rdma_config *cfg);
void ddsm_rdma_test_exit(struct rdma_tp *tp);
void ddsm_rdma_test_pong(struct rdma_tp *tp, u32 from, u64 cookie,
			 const void *payload, u16 len, struct page *page);
void ddsm_rdma_test_peer_down(struct rdma_tp *tp, u32 node);
#else
static inline int ddsm_rdma_test_init(struct rdma_tp *tp,
				      const struct ddsm_rdma_config *cfg)
{
	return 0;
}

static inline void ddsm_rdma_test_exit(struct rdma_tp *tp)
{
}

static inline void ddsm_rdma_test_pong(struct rdma_tp *tp, u32 from,
				       u64 cookie, const void *payload,
				       u16 len, struct page *page)
{
}

static inline void ddsm_rdma_test_peer_down(struct rdma_tp *tp, u32 node)
{
}
#endif

#endif /* DDSM_NET_RDMA_H */
