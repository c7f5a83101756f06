/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RDMA transport's own framing: the header in front of every SEND,
 * the rdma_cm private data of a connection request, and the HELLO that
 * carries a connection's frame-pool rkey.  Pure code (no ib_core) so that
 * KUnit checks every malformed case; rdma.c trusts nothing that has not
 * passed these checks.
 */
#ifndef DDSM_NET_WIRE_H
#define DDSM_NET_WIRE_H

#include <linux/types.h>

enum rdma_msg_type {
	RDMA_T_HELLO = 1,	/* first message: our frame pool's rkey */
	RDMA_T_MSG,		/* a protocol message for the recv callback */
	RDMA_T_CREDIT,		/* returns credits, nothing else */
	RDMA_T_HEARTBEAT,
	RDMA_T_PING,		/* self-test: echo the payload back */
	RDMA_T_PONG,
	RDMA_T_AUTH,		/* HMAC over the peer's HELLO nonce (auth.c) */
	RDMA_T_NR,
};

#define RDMA_HDR_MAGIC	0xd7
#define RDMA_HF_PAGE	0x01	/* data (up to a unit) in the second SGE */
#define RDMA_HF_WANT_PAGE 0x02	/* PING: answer with a unit (self-test rpc) */

struct rdma_hdr {
	u8 magic;
	u8 type;
	u8 flags;
	u8 rsvd;
	__le16 credits;		/* receives the sender has reposted for us */
	__le16 len;		/* payload bytes after the header */
	__le64 cookie;		/* PING/PONG: matches a reply to its request */
};

#define RDMA_SLOT_SIZE		256	/* header + inline payload */
#define RDMA_MAX_PAYLOAD	(RDMA_SLOT_SIZE - sizeof(struct rdma_hdr))
#define RDMA_UNIT_SIZE		4096

#define RDMA_NONCE_SIZE		16
#define RDMA_MAC_SIZE		32	/* HMAC-SHA256 */
#define RDMA_HELLO_AUTH		0x1	/* the sender has a cluster key */
/*
 * The HELLO carries the sender's frame pool (nr_frames, rkey, iova); else
 * those are 0.  With a cluster key the first HELLO may not: the pool is
 * registered for remote access, and its rkey sent in a second HELLO, only
 * once the peer has proved the key.
 */
#define RDMA_HELLO_KEYS		0x2

struct rdma_hello {
	__le32 node_id;
	__le32 nr_frames;
	__le32 rkey;
	__le32 flags;		/* RDMA_HELLO_AUTH, RDMA_HELLO_KEYS */
	__le64 iova;
	u8 nonce[RDMA_NONCE_SIZE];	/* fresh per connection: what AUTH signs */
	/* The global space as the sender sees it: both must agree. */
	__le64 space_size;
	__le32 home_policy;
	__le32 rsvd;
};

/* Proof of the cluster key: HMAC(key, "ddsm-auth-v1", from, to, nonces). */
struct rdma_auth {
	u8 mac[RDMA_MAC_SIZE];
};

/* rdma_cm private data on CONNECT_REQUEST. */
struct rdma_conn_req {
	__le32 magic;
	__le16 version;
	__le16 node_id;		/* the connecting node */
	__le16 nr_nodes;
	__le16 rsvd;
};

#define RDMA_CONN_MAGIC		0x6464736d
/*
 * 2: HELLO nonce and AUTH; 3: short data; 4: TX_READ_MANY's Validations;
 * 5: with a key, the frame pool's rkey only after AUTH (RDMA_HELLO_KEYS)
 */
#define RDMA_CONN_VERSION	5

/*
 * Is @h a well-formed header for a receive of @byte_len bytes?  A message
 * with data sends its header SGE whole (RDMA_SLOT_SIZE) so the data lands
 * at the start of the receiver's page SGE.  Data travels with protocol
 * messages (1 to RDMA_UNIT_SIZE bytes: a unit, or the lines a transaction
 * reads or writes) and with the self-test's answer to a PING that asked
 * for a unit (whole).
 */
bool ddsm_wire_hdr_valid(const struct rdma_hdr *h, u32 byte_len);

/*
 * Check a connection request from a node that claims @req->node_id.
 * Returns that id, or -EPROTO (malformed) / -EPERM (not a node that may
 * connect to @self: only higher ids connect, and only configured ones).
 */
int ddsm_wire_conn_req_check(const void *data, u32 len, u32 self,
			     u32 nr_nodes);

/* Check a HELLO from @node (flags and length included); 0 or -EPROTO. */
int ddsm_wire_hello_check(const void *data, u32 len, u32 node,
			  u32 max_frames);

#endif /* DDSM_NET_WIRE_H */
