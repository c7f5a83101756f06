/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The only interface the rest of ddsm sees of the network: send a control
 * message, optionally with one unit of data, to a node; receive through a
 * callback.  Implementations: loop.c (in-module, one node and self-sends),
 * rdma.c (rdma_cm and ib_core, in a later change).  A transport moves
 * bytes and never interprets protocol state.
 */
#ifndef DDSM_NET_TRANSPORT_H
#define DDSM_NET_TRANSPORT_H

#include <linux/errno.h>
#include <linux/types.h>
#include <linux/mm_types.h>
#include <linux/in.h>
#include <uapi/linux/ddsm.h>

struct ddsm_transport;

/*
 * Called in process context, in the order each sender sent; calls for
 * different senders may run concurrently; a peer's "down" comes after
 * every message of its incarnation and before any of the next one.  @data
 * holds the data that travelled with the message (NULL if none): its
 * first @data_len bytes (1..PAGE_SIZE), the rest of the page undefined;
 * only borrowed for the call.
 */
typedef void (*ddsm_recv_fn)(void *ctx, u32 from, const void *buf, u32 len,
			     struct page *data, u32 data_len);

/*
 * A peer came up, or went down (declared dead, disconnected, unloading).
 * Process context; every transfer pending on a downed peer has already
 * completed with an error.
 */
typedef void (*ddsm_peer_fn)(void *ctx, u32 node, bool up);

struct ddsm_transport_ops {
	const char *name;
	/*
	 * Queue @len bytes of @buf (and @data_len bytes of the page at
	 * @data from @data_off, 1..PAGE_SIZE inside the page, if @data is
	 * not NULL) for node @dst; they arrive at the start of the
	 * receiver's page.  Process context: may wait for memory, never fails for
	 * lack of it, and never drops a message on a live connection (a
	 * connection that cannot carry it goes down instead, and the peer
	 * event tells the core).  Fails at once if @dst is not up.  A
	 * bounded queue: a caller other than the delivery thread may wait
	 * for room (docs/transport.md, "The send queue").  The
	 * caller may reuse @buf at once; the frame at @data must stay
	 * allocated until the message is delivered.
	 */
	int (*send)(struct ddsm_transport *t, u32 dst, const void *buf,
		    u32 len, struct page *data, u32 data_off, u32 data_len);
	/* Fill the out fields of @info for node @info->index. */
	void (*peer_info)(struct ddsm_transport *t, struct ddsm_peer_info *info);
	/* Where node @node stands now (DDSM_PEER_SELF for this node). */
	enum ddsm_peer_state (*peer_state)(struct ddsm_transport *t, u32 node);
	/* Stop delivering, drop what is queued, free @t. */
	void (*destroy)(struct ddsm_transport *t);
};

struct ddsm_transport {
	const struct ddsm_transport_ops *ops;
	ddsm_recv_fn recv;
	ddsm_peer_fn peer_event;
	void *ctx;
	u32 self;
};

struct ddsm_transport *ddsm_loop_create(u32 self, ddsm_recv_fn recv,
					void *ctx);
/* Is the caller @t's delivery thread (a loop transport's)? */
bool ddsm_loop_delivering(struct ddsm_transport *t);

/*
 * Priority of the delivery threads (loop.c, rdma_rx.c): SCHED_FIFO if
 * set (module parameter rt_delivery), else the highest normal priority.
 * Read when a thread starts.
 */
extern bool ddsm_rt_delivery;
void ddsm_delivery_priority(void);

struct ddsm_rdma_config {
	u32 self;
	u32 nr_nodes;
	struct sockaddr_in addrs[DDSM_MAX_NODES];	/* index = node id */
	/* Checked at load: 10.., 2 x heartbeat_ms.., 10.. (node/params.c) */
	unsigned int heartbeat_ms;
	unsigned int peer_timeout_ms;
	unsigned int reconnect_ms;
	u32 frames;			/* registered frame pool, in pages */
	bool inject;			/* debugfs message injector */
	struct dentry *debugfs;		/* where the self-test files go */
	const u8 *auth_key;		/* cluster secret, or NULL (auth.h) */
	u32 auth_key_len;
	/* The global space: a peer that sees another one is refused. */
	u64 space_size;
	u32 home_policy;
};

struct ddsm_transport *ddsm_rdma_create(const struct ddsm_rdma_config *cfg,
					ddsm_recv_fn recv,
					ddsm_peer_fn peer_event, void *ctx);

static inline enum ddsm_peer_state
ddsm_transport_peer_state(struct ddsm_transport *t, u32 node)
{
	return t->ops->peer_state(t, node);
}

static inline int ddsm_transport_send(struct ddsm_transport *t, u32 dst,
				      const void *buf, u32 len,
				      struct page *data, u32 data_off,
				      u32 data_len)
{
	if (data && (!data_len || data_off > PAGE_SIZE ||
		     data_len > PAGE_SIZE - data_off))
		return -EINVAL;
	return t->ops->send(t, dst, buf, len, data, data_off, data_len);
}

#endif /* DDSM_NET_TRANSPORT_H */
