// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the message codec and validator.  Every field a peer controls is
 * corrupted in turn and must be refused with the right reason.
 */
#include <kunit/test.h>
#include "../../kernel/proto/msg.h"
#include "../../kernel/proto/txfate.h"
#include "../../kernel/proto/txid.h"

#define NODES	3
#define UNITS	16

struct msg_ctx {
	struct ddsm_space s;	/* node 1 of 3, interleaved: unit u homed on u % 3 */
	struct ddsm_wire_msg w;
	struct ddsm_msg m;
};

static int msg_init(struct kunit *test)
{
	struct msg_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_EQ(test, 0, ddsm_space_init(&c->s, UNITS * 4096ULL, NODES,
						 1, DDSM_HOME_INTERLEAVE));
	test->priv = c;
	return 0;
}

/* A READ_MISS from node 2 to node 1 for unit 4 (homed on node 1). */
static struct ddsm_msg good_request(void)
{
	struct ddsm_msg m = {
		.type = DDSM_MSG_READ_MISS, .src = 2, .dst = 1, .requester = 2,
		.seq = 7, .unit = 4,
	};
	return m;
}

static enum ddsm_msg_verdict roundtrip(struct msg_ctx *c,
				       const struct ddsm_msg *m, u32 from)
{
	ddsm_msg_encode(m, &c->w);
	return ddsm_msg_decode(&c->s, from, &c->w, sizeof(c->w), &c->m);
}

static void msg_roundtrip_keeps_fields(struct kunit *test)
{
	struct msg_ctx *c = test->priv;
	struct ddsm_msg m = {
		.type = DDSM_MSG_ACK, .flags = DDSM_MF_DATA, .state = DDSM_G_S,
		.src = 0, .dst = 1, .requester = 1, .acks = 3, .seq = 0xfffffffe,
		.unit = UNITS - 1, .copyset = 0x5,
	};

	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 0));
	KUNIT_EXPECT_EQ(test, 0, memcmp(&m, &c->m, sizeof(m)));
	/* The wire format is ABI between nodes: its size must not drift. */
	KUNIT_EXPECT_EQ(test, (u32)40, (u32)DDSM_WIRE_SIZE);
}

static void msg_rejects_bad_length(struct kunit *test)
{
	struct msg_ctx *c = test->priv;
	struct ddsm_msg m = good_request();

	ddsm_msg_encode(&m, &c->w);
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_LENGTH,
			ddsm_msg_decode(&c->s, 2, &c->w, sizeof(c->w) - 1, &c->m));
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_LENGTH,
			ddsm_msg_decode(&c->s, 2, &c->w, 0, &c->m));
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_LENGTH,
			ddsm_msg_decode(&c->s, 2, &c->w, sizeof(c->w) + 1, &c->m));
}

static void msg_rejects_bad_header(struct kunit *test)
{
	struct msg_ctx *c = test->priv;
	struct ddsm_msg m = good_request();
	struct ddsm_wire_msg w;

	ddsm_msg_encode(&m, &w);
	c->w = w;
	c->w.magic ^= 0xff;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_HEADER,
			ddsm_msg_decode(&c->s, 2, &c->w, sizeof(c->w), &c->m));
	c->w = w;
	c->w.version++;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_HEADER,
			ddsm_msg_decode(&c->s, 2, &c->w, sizeof(c->w), &c->m));
	c->w = w;
	c->w.reserved0 = cpu_to_le16(1);
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_HEADER,
			ddsm_msg_decode(&c->s, 2, &c->w, sizeof(c->w), &c->m));
	c->w = w;
	c->w.reserved1 = cpu_to_le32(1);
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_HEADER,
			ddsm_msg_decode(&c->s, 2, &c->w, sizeof(c->w), &c->m));
}

static void msg_rejects_bad_type(struct kunit *test)
{
	struct msg_ctx *c = test->priv;
	struct ddsm_msg m = good_request();

	m.type = DDSM_MSG_INVALID;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_TYPE, roundtrip(c, &m, 2));
	m.type = DDSM_MSG_NR;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_TYPE, roundtrip(c, &m, 2));
	m.type = 0xff;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_TYPE, roundtrip(c, &m, 2));
}

static void msg_rejects_bad_flags(struct kunit *test)
{
	struct msg_ctx *c = test->priv;
	struct ddsm_msg m = good_request();

	m.flags = 0x80;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_FLAGS, roundtrip(c, &m, 2));
	/* WB belongs on a FETCH_INV only. */
	m.flags = DDSM_MF_WB;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_FLAGS, roundtrip(c, &m, 2));
	m.flags = 0;
	/* A request never carries data... */
	m.flags = DDSM_MF_DATA;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_FLAGS, roundtrip(c, &m, 2));
	/* ...and a writeback always does. */
	m = good_request();
	m.type = DDSM_MSG_WRITEBACK;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_FLAGS, roundtrip(c, &m, 2));
	m.flags = DDSM_MF_DATA;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 2));
}

static void msg_rejects_bad_unit(struct kunit *test)
{
	struct msg_ctx *c = test->priv;
	struct ddsm_msg m = good_request();

	m.unit = UNITS;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_UNIT, roundtrip(c, &m, 2));
	m.unit = ~0ULL;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_UNIT, roundtrip(c, &m, 2));
}

static void msg_rejects_bad_nodes(struct kunit *test)
{
	struct msg_ctx *c = test->priv;
	struct ddsm_msg m = good_request();

	/* The transport says it came from node 0, the header says 2. */
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	m.dst = 0;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 2));
	m = good_request();
	m.src = NODES;
	m.requester = NODES;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, NODES));
	/* A request for a unit homed elsewhere (unit 5 lives on node 2). */
	m = good_request();
	m.unit = 5;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 2));
	/* A request on behalf of another node. */
	m = good_request();
	m.requester = 0;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 2));
	/* An INV that does not come from the unit's home (unit 5: node 2). */
	m = good_request();
	m.type = DDSM_MSG_INV;
	m.unit = 5;
	m.src = 0;
	m.requester = 0;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	m.src = 2;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 2));
	/* An ACK for somebody else's event. */
	m = good_request();
	m.type = DDSM_MSG_ACK;
	m.acks = 1;
	m.requester = 2;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 2));
	m.requester = 1;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 2));
}

static void msg_rejects_bad_fields(struct kunit *test)
{
	struct msg_ctx *c = test->priv;
	struct ddsm_msg m = good_request();

	m.state = DDSM_G_M + 1;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_FIELD, roundtrip(c, &m, 2));
	m = good_request();
	m.copyset = 1ULL << NODES;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_FIELD, roundtrip(c, &m, 2));
	m = good_request();
	m.acks = NODES + 2;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_FIELD, roundtrip(c, &m, 2));
	/* An ACK must count at least itself. */
	m = good_request();
	m.type = DDSM_MSG_ACK;
	m.requester = 1;
	m.acks = 0;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_FIELD, roundtrip(c, &m, 2));
	/* A NACK needs a reason, and nothing else may carry one. */
	m = good_request();
	m.type = DDSM_MSG_NACK;
	m.src = 1;
	m.requester = 1;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_FIELD, roundtrip(c, &m, 1));
	m.err = EBUSY;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 1));
	m = good_request();
	m.err = EBUSY;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_FIELD, roundtrip(c, &m, 2));
}

/* PERSIST goes to the unit's home from its requester; the answer back. */
static void msg_persist_roles(struct kunit *test)
{
	struct msg_ctx *c = test->priv;
	struct ddsm_msg m = good_request();

	m.type = DDSM_MSG_PERSIST;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 2));
	KUNIT_EXPECT_TRUE(test, ddsm_msg_is_persist(c->m.type));
	KUNIT_EXPECT_FALSE(test, ddsm_msg_to_home(c->m.type));
	/* Not homed here (unit 5 lives on node 2). */
	m.unit = 5;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 2));
	/* On someone else's behalf. */
	m = good_request();
	m.type = DDSM_MSG_PERSIST;
	m.requester = 0;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 2));
	/* No data, and no reason on the request. */
	m.requester = 2;
	m.flags = DDSM_MF_DATA;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_FLAGS, roundtrip(c, &m, 2));
	m.flags = 0;
	m.err = EIO;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_FIELD, roundtrip(c, &m, 2));

	/* The answer: from the unit's home (node 0 for unit 3) to us. */
	m = good_request();
	m.type = DDSM_MSG_PERSIST_ACK;
	m.unit = 3;
	m.src = 0;
	m.requester = 1;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 0));
	m.err = EIO;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 0));
	KUNIT_EXPECT_EQ(test, EIO, (int)c->m.err);
	/* Only the home answers, and only to its requester. */
	m.src = 2;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 2));
	m.src = 0;
	m.requester = 2;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
}

/* Random bytes almost never pass; none may pass with a wrong length. */
static void msg_survives_garbage(struct kunit *test)
{
	struct msg_ctx *c = test->priv;
	u8 buf[DDSM_WIRE_SIZE];
	u32 seed = 12345, i, j, ok = 0;

	for (i = 0; i < 20000; i++) {
		for (j = 0; j < sizeof(buf); j++) {
			seed = seed * 1103515245 + 12345;
			buf[j] = seed >> 16;
		}
		if (ddsm_msg_decode(&c->s, seed % NODES, buf, sizeof(buf),
				    &c->m) == DDSM_MSG_OK)
			ok++;
	}
	/* The magic byte alone lets through at most 1/256. */
	KUNIT_EXPECT_LT(test, ok, 20000U / 256 + 1);
	KUNIT_EXPECT_EQ(test, ok, 0U);
}

static void msg_names(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, "READ_MISS",
			   ddsm_msg_type_name(DDSM_MSG_READ_MISS));
	KUNIT_EXPECT_STREQ(test, "?", ddsm_msg_type_name(200));
	KUNIT_EXPECT_STREQ(test, "bad unit",
			   ddsm_msg_verdict_name(DDSM_MSG_BAD_UNIT));
}

/*
 * Backup homes: node 1 backs up node 0 (whose units are u % 3 == 0) and is
 * backed up by node 2.  Nothing of it is accepted without nr_backups.
 */
static void msg_replica_roles(struct kunit *test)
{
	struct msg_ctx *c = test->priv;
	struct ddsm_msg m = {
		.type = DDSM_MSG_REPLICA, .flags = DDSM_MF_DATA, .src = 0,
		.dst = 1, .requester = 0, .seq = 9, .unit = 3,
		.copyset = 0xffffffffffULL,	/* a timestamp, not a node set */
	};

	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	c->s.nr_backups = 1;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 0));
	KUNIT_EXPECT_EQ(test, 0xffffffffffULL, c->m.copyset);
	KUNIT_EXPECT_TRUE(test, ddsm_msg_is_replica(c->m.type));
	KUNIT_EXPECT_FALSE(test, ddsm_msg_is_persist(c->m.type));
	KUNIT_EXPECT_FALSE(test, ddsm_msg_to_home(c->m.type));
	/* Only images of the sender's own units, only to its backup. */
	m.unit = 4;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	m.unit = 5;
	m.src = 2;
	m.requester = 2;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 2));
	/* The image travels with it. */
	m.unit = 3;
	m.src = 0;
	m.requester = 0;
	m.flags = 0;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_FLAGS, roundtrip(c, &m, 0));

	/* Node 2, our backup, acknowledges ours, with a reason or not. */
	m = (struct ddsm_msg){ .type = DDSM_MSG_REPLICA_ACK, .src = 2,
			       .dst = 1, .requester = 1, .seq = 9, .err = EIO };
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 2));
	m.src = 0;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));

	/* The end of a resync, from our predecessor only. */
	m = (struct ddsm_msg){ .type = DDSM_MSG_REPLICA_SYNC, .src = 0,
			       .dst = 1, .requester = 0, .seq = 10 };
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 0));
	m.src = 2;
	m.requester = 2;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 2));

	/* A notice names at most the sender's predecessor. */
	m = (struct ddsm_msg){ .type = DDSM_MSG_FAILOVER, .src = 2, .dst = 1,
			       .requester = 2, .copyset = BIT_ULL(1) };
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 2));
	m.copyset = 0;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 2));
	m.copyset = BIT_ULL(0);
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 2));
	m.copyset = BIT_ULL(1);
	m.err = EIO;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_FIELD, roundtrip(c, &m, 2));

	m = (struct ddsm_msg){ .type = DDSM_MSG_COPIES_DONE, .src = 0,
			       .dst = 1, .requester = 0 };
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 0));
	m.requester = 2;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
}

/*
 * HADES transactions: requests from the coordinator (the txid's node) to
 * the home of @unit, answers back; TX_READ's lines stay in the unit; a
 * reply carries data or an errno, a NACK an errno, nothing else one.
 */
static void msg_tx_roles(struct kunit *test)
{
	struct msg_ctx *c = test->priv;
	struct ddsm_txid id = { .node = 2, .slot = 5, .epoch = 9 };
	struct ddsm_msg m = {
		.type = DDSM_MSG_TX_READ, .src = 2, .dst = 1, .requester = 2,
		.acks = ddsm_tx_read_lines(3, 7), .seq = 1, .unit = 4,
		.copyset = ddsm_txid_pack(id),
	};

	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 2));
	KUNIT_EXPECT_EQ(test, 0, memcmp(&m, &c->m, sizeof(m)));
	m.acks = ddsm_tx_read_lines(7, 3);		/* first > last */
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 2));
	m.acks = ddsm_tx_read_lines(3, 64);		/* past the unit */
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 2));
	m.acks = ddsm_tx_read_lines(0, 63);
	m.unit = 5;					/* homed on node 2 */
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 2));
	m.unit = 4;
	m.copyset = ddsm_txid_pack(id) & ~0xffffffffULL;	/* epoch 0 */
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 2));
	id.node = 0;					/* not the sender's */
	m.copyset = ddsm_txid_pack(id);
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 2));
	id.node = 2;
	m.copyset = ddsm_txid_pack(id);
	m.flags = DDSM_MF_DATA;				/* a read carries none */
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_FLAGS, roundtrip(c, &m, 2));
	m.flags = DDSM_MF_PIN;				/* the fallback's read */
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 2));
	m.flags = 0;
	m.err = 5;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 2));
	m.err = 0;

	/* An Intend needs its page. */
	m.type = DDSM_MSG_TX_INTEND;
	m.acks = 0;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_FLAGS, roundtrip(c, &m, 2));
	m.flags = DDSM_MF_DATA;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 2));
	m.flags = DDSM_MF_DATA | DDSM_MF_PIN;		/* reads only */
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_FLAGS, roundtrip(c, &m, 2));
	m.flags = DDSM_MF_DATA;
	m.acks = 1;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 2));

	/* Batched reads: their entries are data, so the request needs it. */
	m.type = DDSM_MSG_TX_READ_MANY;
	m.acks = 0;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 2));
	m.flags = 0;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_FLAGS, roundtrip(c, &m, 2));
	m.flags = DDSM_MF_DATA | DDSM_MF_PIN;		/* single reads only */
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_FLAGS, roundtrip(c, &m, 2));
	m.flags = DDSM_MF_DATA;
	m.acks = ddsm_tx_read_lines(0, 1);		/* lines are per entry */
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 2));
	m.acks = 0;

	/* Answers: from the home of @unit (node 0 for unit 3) to us. */
	id.node = 1;
	m = (struct ddsm_msg){
		.type = DDSM_MSG_TX_READ_REPLY, .flags = DDSM_MF_DATA,
		.src = 0, .dst = 1, .requester = 1, .seq = 1, .unit = 3,
		.copyset = ddsm_txid_pack(id),
	};
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 0));
	/* The data names its lines, as the read did. */
	m.acks = ddsm_tx_read_lines(3, 7);
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 0));
	m.acks = ddsm_tx_read_lines(7, 3);
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	m.acks = ddsm_tx_read_lines(3, 64);
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	m.acks = 0;
	m.err = EAGAIN;					/* data and errno */
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	m.flags = 0;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 0));
	m.acks = ddsm_tx_read_lines(3, 7);		/* no data, no lines */
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	m.acks = 0;
	m.err = 0;					/* neither */
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	/* A batch's answer: data, or why none was served; never both. */
	m.type = DDSM_MSG_TX_READ_MANY_REPLY;
	m.flags = DDSM_MF_DATA;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 0));
	m.acks = ddsm_tx_read_lines(0, 1);
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	m.acks = 0;
	m.err = ENOMEM;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	m.flags = 0;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 0));
	m.err = 0;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	m.type = DDSM_MSG_TX_NACK;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	m.err = EBUSY;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 0));
	m.type = DDSM_MSG_TX_ACK;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	m.err = 0;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 0));
	m.type = DDSM_MSG_TX_SQUASH;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 0));
	m.unit = 4;					/* not the sender's */
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	m.unit = 3;
	id.node = 2;					/* not our transaction */
	m.copyset = ddsm_txid_pack(id);
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	KUNIT_EXPECT_STREQ(test, "TX_SQUASH",
			   ddsm_msg_type_name(DDSM_MSG_TX_SQUASH));

	/*
	 * Between a participant in doubt and another node, about node 2's
	 * transaction: unit 3 is node 0's.  The coordinator's node may ask
	 * and be asked too (txfate.h).
	 */
	m = (struct ddsm_msg){
		.type = DDSM_MSG_TX_QUERY, .src = 0, .dst = 1, .requester = 0,
		.unit = 3, .copyset = ddsm_txid_pack(id),
	};
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 0));
	m.acks = 1;					/* asked as a participant */
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 0));
	m.unit = 4;					/* not the asker's */
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	m.unit = 3;
	m.acks = DDSM_TXH_O_NOT;			/* a question has no answer */
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	m.acks = 0;
	id.node = 0;					/* the asker's own */
	m.copyset = ddsm_txid_pack(id);
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 0));
	id.node = 1;					/* ours */
	m.copyset = ddsm_txid_pack(id);
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 0));
	id.node = 9;					/* no such node */
	m.copyset = ddsm_txid_pack(id);
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	id.node = 2;
	m = (struct ddsm_msg){
		.type = DDSM_MSG_TX_OUTCOME, .src = 0, .dst = 1, .requester = 1,
		.unit = 4, .acks = ddsm_txf_pack(DDSM_TXH_O_VALIDATED,
						 DDSM_TXF_C_NONE),
		.copyset = ddsm_txid_pack(id),
	};
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 0));
	m.acks = ddsm_txf_pack(DDSM_TXH_O_NONE, DDSM_TXF_C_COMMITTED);
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK, roundtrip(c, &m, 0));
	m.acks = 0;					/* no answer */
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	m.acks = DDSM_TXH_O_NR;
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	m.acks = ddsm_txf_pack(DDSM_TXH_O_NOT, DDSM_TXF_C_NR);
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	m.acks = DDSM_TXH_O_NOT;
	m.unit = 3;					/* not ours */
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE, roundtrip(c, &m, 0));
	KUNIT_EXPECT_STREQ(test, "TX_OUTCOME",
			   ddsm_msg_type_name(DDSM_MSG_TX_OUTCOME));
}

/* How much data each type may bring (core/rx.c checks it on receive). */
static void msg_data_len(struct kunit *test)
{
	struct ddsm_msg m = {
		.type = DDSM_MSG_TX_READ_REPLY, .flags = DDSM_MF_DATA,
		.acks = ddsm_tx_read_lines(3, 7),
	};

	KUNIT_EXPECT_TRUE(test, ddsm_msg_data_len_ok(&m, 5 * 64));
	KUNIT_EXPECT_FALSE(test, ddsm_msg_data_len_ok(&m, 4 * 64));
	KUNIT_EXPECT_FALSE(test, ddsm_msg_data_len_ok(&m, 5 * 64 + 1));
	KUNIT_EXPECT_FALSE(test, ddsm_msg_data_len_ok(&m, 4096));
	m.acks = ddsm_tx_read_lines(0, 63);
	KUNIT_EXPECT_TRUE(test, ddsm_msg_data_len_ok(&m, 4096));
	m.type = DDSM_MSG_TX_INTEND;
	m.acks = 0;
	KUNIT_EXPECT_TRUE(test, ddsm_msg_data_len_ok(&m, 1));
	KUNIT_EXPECT_TRUE(test, ddsm_msg_data_len_ok(&m, 4096));
	KUNIT_EXPECT_FALSE(test, ddsm_msg_data_len_ok(&m, 0));
	KUNIT_EXPECT_FALSE(test, ddsm_msg_data_len_ok(&m, 4097));
	/* The coherence protocol's units travel whole. */
	m.type = DDSM_MSG_ACK;
	KUNIT_EXPECT_TRUE(test, ddsm_msg_data_len_ok(&m, 4096));
	KUNIT_EXPECT_FALSE(test, ddsm_msg_data_len_ok(&m, 4095));
	KUNIT_EXPECT_FALSE(test, ddsm_msg_data_len_ok(&m, 320));
	m.type = DDSM_MSG_REPLICA;
	KUNIT_EXPECT_FALSE(test, ddsm_msg_data_len_ok(&m, 64));
}

static struct kunit_case msg_cases[] = {
	KUNIT_CASE(msg_roundtrip_keeps_fields),
	KUNIT_CASE(msg_rejects_bad_length),
	KUNIT_CASE(msg_rejects_bad_header),
	KUNIT_CASE(msg_rejects_bad_type),
	KUNIT_CASE(msg_rejects_bad_flags),
	KUNIT_CASE(msg_rejects_bad_unit),
	KUNIT_CASE(msg_rejects_bad_nodes),
	KUNIT_CASE(msg_rejects_bad_fields),
	KUNIT_CASE(msg_persist_roles),
	KUNIT_CASE(msg_replica_roles),
	KUNIT_CASE(msg_tx_roles),
	KUNIT_CASE(msg_data_len),
	KUNIT_CASE(msg_survives_garbage),
	KUNIT_CASE(msg_names),
	{}
};

static struct kunit_suite msg_suite = {
	.name = "ddsm_msg",
	.init = msg_init,
	.test_cases = msg_cases,
};

kunit_test_suite(msg_suite);

MODULE_LICENSE("GPL");
