// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the RDMA transport's framing (kernel/net/wire.c).  Every field a
 * peer controls is corrupted in turn and must be refused.
 */
#include <kunit/test.h>
#include "../../kernel/net/wire.h"

static struct rdma_hdr good_hdr(u8 type, u16 len)
{
	struct rdma_hdr h = {
		.magic = RDMA_HDR_MAGIC,
		.type = type,
		.len = cpu_to_le16(len),
	};
	return h;
}

static void wire_hdr_accepts(struct kunit *test)
{
	struct rdma_hdr h = good_hdr(RDMA_T_MSG, 40);

	KUNIT_EXPECT_TRUE(test, ddsm_wire_hdr_valid(&h, sizeof(h) + 40));
	h = good_hdr(RDMA_T_CREDIT, 0);
	KUNIT_EXPECT_TRUE(test, ddsm_wire_hdr_valid(&h, sizeof(h)));
	h = good_hdr(RDMA_T_MSG, 40);
	h.flags = RDMA_HF_PAGE;
	KUNIT_EXPECT_TRUE(test, ddsm_wire_hdr_valid(&h, RDMA_SLOT_SIZE +
						    RDMA_UNIT_SIZE));
	/* A protocol message's data may be shorter: a transaction's lines. */
	KUNIT_EXPECT_TRUE(test, ddsm_wire_hdr_valid(&h, RDMA_SLOT_SIZE + 1));
	KUNIT_EXPECT_TRUE(test, ddsm_wire_hdr_valid(&h, RDMA_SLOT_SIZE + 320));
	KUNIT_EXPECT_TRUE(test, ddsm_wire_hdr_valid(&h, RDMA_SLOT_SIZE +
						    RDMA_UNIT_SIZE - 1));
	h = good_hdr(RDMA_T_PING, RDMA_MAX_PAYLOAD);
	KUNIT_EXPECT_TRUE(test, ddsm_wire_hdr_valid(&h, RDMA_SLOT_SIZE));
	/* The self-test's rpc: a PING asking for a unit, a PONG with one. */
	h = good_hdr(RDMA_T_PING, 8);
	h.flags = RDMA_HF_WANT_PAGE;
	KUNIT_EXPECT_TRUE(test, ddsm_wire_hdr_valid(&h, sizeof(h) + 8));
	h = good_hdr(RDMA_T_PONG, 8);
	h.flags = RDMA_HF_PAGE;
	KUNIT_EXPECT_TRUE(test, ddsm_wire_hdr_valid(&h, RDMA_SLOT_SIZE +
						    RDMA_UNIT_SIZE));
}

static void wire_hdr_rejects(struct kunit *test)
{
	struct rdma_hdr h = good_hdr(RDMA_T_MSG, 40);
	u32 n = sizeof(h) + 40;

	KUNIT_EXPECT_FALSE(test, ddsm_wire_hdr_valid(&h, sizeof(h) - 1));
	KUNIT_EXPECT_FALSE(test, ddsm_wire_hdr_valid(&h, 0));
	KUNIT_EXPECT_FALSE(test, ddsm_wire_hdr_valid(&h, n - 1));
	KUNIT_EXPECT_FALSE(test, ddsm_wire_hdr_valid(&h, n + 1));
	h.magic ^= 1;
	KUNIT_EXPECT_FALSE(test, ddsm_wire_hdr_valid(&h, n));
	h = good_hdr(RDMA_T_MSG, 40);
	h.rsvd = 1;
	KUNIT_EXPECT_FALSE(test, ddsm_wire_hdr_valid(&h, n));
	h = good_hdr(0, 40);
	KUNIT_EXPECT_FALSE(test, ddsm_wire_hdr_valid(&h, n));
	h = good_hdr(RDMA_T_NR, 40);
	KUNIT_EXPECT_FALSE(test, ddsm_wire_hdr_valid(&h, n));
	h = good_hdr(99, 40);
	KUNIT_EXPECT_FALSE(test, ddsm_wire_hdr_valid(&h, n));
	h = good_hdr(RDMA_T_MSG, 40);
	h.flags = 0x80;
	KUNIT_EXPECT_FALSE(test, ddsm_wire_hdr_valid(&h, n));
	/* A length field longer than a slot, even if byte_len agrees. */
	h = good_hdr(RDMA_T_MSG, RDMA_MAX_PAYLOAD + 1);
	KUNIT_EXPECT_FALSE(test, ddsm_wire_hdr_valid(&h, sizeof(h) +
						     RDMA_MAX_PAYLOAD + 1));
	/* Data only travels with a protocol message or a PONG. */
	h = good_hdr(RDMA_T_PING, 8);
	h.flags = RDMA_HF_PAGE;
	KUNIT_EXPECT_FALSE(test, ddsm_wire_hdr_valid(&h, RDMA_SLOT_SIZE +
						     RDMA_UNIT_SIZE));
	h = good_hdr(RDMA_T_CREDIT, 0);
	h.flags = RDMA_HF_PAGE;
	KUNIT_EXPECT_FALSE(test, ddsm_wire_hdr_valid(&h, RDMA_SLOT_SIZE +
						     RDMA_UNIT_SIZE));
	/* Only a PING may ask for a unit, and it carries none itself. */
	h = good_hdr(RDMA_T_MSG, 40);
	h.flags = RDMA_HF_WANT_PAGE;
	KUNIT_EXPECT_FALSE(test, ddsm_wire_hdr_valid(&h, n));
	h = good_hdr(RDMA_T_PONG, 8);
	h.flags = RDMA_HF_WANT_PAGE;
	KUNIT_EXPECT_FALSE(test, ddsm_wire_hdr_valid(&h, sizeof(h) + 8));
	h = good_hdr(RDMA_T_PING, 8);
	h.flags = RDMA_HF_WANT_PAGE | RDMA_HF_PAGE;
	KUNIT_EXPECT_FALSE(test, ddsm_wire_hdr_valid(&h, RDMA_SLOT_SIZE +
						     RDMA_UNIT_SIZE));
	/* Data: at least a byte, at most a unit; a PONG's whole. */
	h = good_hdr(RDMA_T_MSG, 40);
	h.flags = RDMA_HF_PAGE;
	KUNIT_EXPECT_FALSE(test, ddsm_wire_hdr_valid(&h, RDMA_SLOT_SIZE));
	KUNIT_EXPECT_FALSE(test, ddsm_wire_hdr_valid(&h, RDMA_SLOT_SIZE +
						     RDMA_UNIT_SIZE + 1));
	KUNIT_EXPECT_FALSE(test, ddsm_wire_hdr_valid(&h, sizeof(h) + 40));
	h = good_hdr(RDMA_T_PONG, 8);
	h.flags = RDMA_HF_PAGE;
	KUNIT_EXPECT_FALSE(test, ddsm_wire_hdr_valid(&h, RDMA_SLOT_SIZE +
						     RDMA_UNIT_SIZE - 1));
	KUNIT_EXPECT_FALSE(test, ddsm_wire_hdr_valid(&h, RDMA_SLOT_SIZE + 64));
}

static struct rdma_conn_req good_req(u16 node, u16 nodes)
{
	struct rdma_conn_req r = {
		.magic = cpu_to_le32(RDMA_CONN_MAGIC),
		.version = cpu_to_le16(RDMA_CONN_VERSION),
		.node_id = cpu_to_le16(node),
		.nr_nodes = cpu_to_le16(nodes),
	};
	return r;
}

static void wire_conn_req(struct kunit *test)
{
	struct rdma_conn_req r = good_req(2, 3);

	/* Node 1 accepts node 2; node 2 never accepts from 1 or itself. */
	KUNIT_EXPECT_EQ(test, 2, ddsm_wire_conn_req_check(&r, sizeof(r), 1, 3));
	KUNIT_EXPECT_EQ(test, -EPERM, ddsm_wire_conn_req_check(&r, sizeof(r), 2, 3));
	r = good_req(1, 3);
	KUNIT_EXPECT_EQ(test, -EPERM, ddsm_wire_conn_req_check(&r, sizeof(r), 2, 3));
	r = good_req(3, 3);
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_wire_conn_req_check(&r, sizeof(r), 0, 4));
	KUNIT_EXPECT_EQ(test, -EPERM, ddsm_wire_conn_req_check(&r, sizeof(r), 0, 3));
	/* Malformed: short, no data, wrong magic/version/reserved/size. */
	r = good_req(2, 3);
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_wire_conn_req_check(&r, sizeof(r) - 1, 1, 3));
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_wire_conn_req_check(NULL, 0, 1, 3));
	r.magic = cpu_to_le32(0);
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_wire_conn_req_check(&r, sizeof(r), 1, 3));
	r = good_req(2, 3);
	r.version = cpu_to_le16(RDMA_CONN_VERSION + 1);
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_wire_conn_req_check(&r, sizeof(r), 1, 3));
	/* Version 1 had no HELLO nonce: it cannot authenticate. */
	r.version = cpu_to_le16(1);
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_wire_conn_req_check(&r, sizeof(r), 1, 3));
	r = good_req(2, 3);
	r.rsvd = cpu_to_le16(1);
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_wire_conn_req_check(&r, sizeof(r), 1, 3));
	r = good_req(2, 4);
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_wire_conn_req_check(&r, sizeof(r), 1, 3));
}

static void wire_hello(struct kunit *test)
{
	struct rdma_hello h = {
		.node_id = cpu_to_le32(2),
		.nr_frames = cpu_to_le32(256),
		.rkey = cpu_to_le32(0x1234),
		.iova = cpu_to_le64(0x10000),
		.flags = cpu_to_le32(RDMA_HELLO_KEYS),
	};

	KUNIT_EXPECT_EQ(test, 0, ddsm_wire_hello_check(&h, sizeof(h), 2, 512));
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_wire_hello_check(&h, sizeof(h), 1, 512));
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_wire_hello_check(&h, sizeof(h) - 1, 2, 512));
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_wire_hello_check(&h, sizeof(h), 2, 255));
	h.nr_frames = 0;
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_wire_hello_check(&h, sizeof(h), 2, 512));
	h.nr_frames = cpu_to_le32(256);
	h.flags = cpu_to_le32(RDMA_HELLO_AUTH | RDMA_HELLO_KEYS);
	KUNIT_EXPECT_EQ(test, 0, ddsm_wire_hello_check(&h, sizeof(h), 2, 512));
	h.flags = cpu_to_le32(4);
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_wire_hello_check(&h, sizeof(h), 2, 512));
	/* Without KEYS, no frame pool: a keyed node's first HELLO. */
	h.flags = cpu_to_le32(RDMA_HELLO_AUTH);
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_wire_hello_check(&h, sizeof(h), 2, 512));
	h.nr_frames = 0;
	h.rkey = 0;
	h.iova = 0;
	KUNIT_EXPECT_EQ(test, 0, ddsm_wire_hello_check(&h, sizeof(h), 2, 512));
	h.rkey = cpu_to_le32(0x1234);
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_wire_hello_check(&h, sizeof(h), 2, 512));
	h.rkey = 0;
	h.iova = cpu_to_le64(0x10000);
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_wire_hello_check(&h, sizeof(h), 2, 512));
	h.nr_frames = cpu_to_le32(256);
	h.rkey = cpu_to_le32(0x1234);
	/* A version-1 HELLO (no nonce) is refused. */
	h.flags = cpu_to_le32(RDMA_HELLO_KEYS);
	KUNIT_EXPECT_EQ(test, -EPROTO,
			ddsm_wire_hello_check(&h, sizeof(h) - RDMA_NONCE_SIZE, 2, 512));
	h.rsvd = cpu_to_le32(1);
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_wire_hello_check(&h, sizeof(h), 2, 512));
}

static struct kunit_case wire_cases[] = {
	KUNIT_CASE(wire_hdr_accepts),
	KUNIT_CASE(wire_hdr_rejects),
	KUNIT_CASE(wire_conn_req),
	KUNIT_CASE(wire_hello),
	{}
};

static struct kunit_suite wire_suite = {
	.name = "ddsm_wire",
	.test_cases = wire_cases,
};

kunit_test_suite(wire_suite);

MODULE_LICENSE("GPL");
