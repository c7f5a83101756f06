// SPDX-License-Identifier: GPL-2.0
#include <linux/errno.h>
#include <asm/byteorder.h>
#include "wire.h"

bool ddsm_wire_hdr_valid(const struct rdma_hdr *h, u32 byte_len)
{
	u32 len;

	if (byte_len < sizeof(*h))
		return false;
	len = le16_to_cpu(h->len);
	if (h->magic != RDMA_HDR_MAGIC || h->rsvd || !h->type ||
	    h->type >= RDMA_T_NR ||
	    (h->flags & ~(RDMA_HF_PAGE | RDMA_HF_WANT_PAGE)) ||
	    len > RDMA_MAX_PAYLOAD)
		return false;
	if ((h->flags & RDMA_HF_WANT_PAGE) &&
	    (h->type != RDMA_T_PING || (h->flags & RDMA_HF_PAGE)))
		return false;
	/* A protocol message's data may be short; the self-test's is whole. */
	if (h->flags & RDMA_HF_PAGE)
		return (h->type == RDMA_T_MSG &&
			byte_len > RDMA_SLOT_SIZE &&
			byte_len <= RDMA_SLOT_SIZE + RDMA_UNIT_SIZE) ||
		       (h->type == RDMA_T_PONG &&
			byte_len == RDMA_SLOT_SIZE + RDMA_UNIT_SIZE);
	return byte_len == sizeof(*h) + len;
}

int ddsm_wire_conn_req_check(const void *data, u32 len, u32 self,
			     u32 nr_nodes)
{
	const struct rdma_conn_req *req = data;
	u32 node;

	if (!data || len < sizeof(*req) ||
	    le32_to_cpu(req->magic) != RDMA_CONN_MAGIC ||
	    le16_to_cpu(req->version) != RDMA_CONN_VERSION || req->rsvd ||
	    le16_to_cpu(req->nr_nodes) != nr_nodes)
		return -EPROTO;
	node = le16_to_cpu(req->node_id);
	if (node >= nr_nodes || node <= self)
		return -EPERM;
	return node;
}

int ddsm_wire_hello_check(const void *data, u32 len, u32 node,
			  u32 max_frames)
{
	const struct rdma_hello *h = data;

	u32 flags;

	if (len != sizeof(*h) || le32_to_cpu(h->node_id) != node || h->rsvd)
		return -EPROTO;
	flags = le32_to_cpu(h->flags);
	if (flags & ~(RDMA_HELLO_AUTH | RDMA_HELLO_KEYS))
		return -EPROTO;
	if (!(flags & RDMA_HELLO_KEYS))
		return h->nr_frames || h->rkey || h->iova ? -EPROTO : 0;
	if (!le32_to_cpu(h->nr_frames) ||
	    le32_to_cpu(h->nr_frames) > max_frames)
		return -EPROTO;
	return 0;
}
