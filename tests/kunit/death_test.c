// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a node dies.  The in-test cluster of proto_test.c (per-pair FIFO
 * channels, one u64 "value" per frame, the actions carried out as the
 * module does) plus what a death means for the module:
 *  - the node stops: what it sent to itself and what others sent it is
 *    lost, later sends to it vanish;
 *  - what it sent to a survivor before dying may still be delivered until
 *    that survivor detects the death (dsim_detect), which runs exactly
 *    kernel/core/rx.c peer_down() and tears the connection down;
 *  - after that, a survivor's send to it fails, and a fault whose request
 *    cannot be sent fails its event (kernel/core/access.c).
 * Scripted cases; tools/model explores every interleaving of the same.
 */
#include <kunit/test.h>
#include "../../kernel/proto/dir.h"
#include "../../kernel/proto/cache.h"

#define DS_NODES	3
#define DS_UNITS	6
#define DS_QLEN		32
#define DS_POOL		16

struct dsim_item {
	struct ddsm_msg msg;
	u64 data;
};

struct dsim_chan {
	struct dsim_item q[DS_QLEN];
	u32 head, len;
};

struct dsim_node {
	struct ddsm_space space;
	struct ddsm_dir dir;
	struct ddsm_cache cache;
	struct ddsm_dir_entry entries[DS_UNITS];
	struct ddsm_dir_wait pool[DS_POOL];
	struct ddsm_cline lines[DS_UNITS];
	u64 frame[DS_UNITS];
	u32 zaps[DS_UNITS];
	u32 wakes[DS_UNITS];
	u32 frees[DS_UNITS];
	int errors;		/* -EPROTO returns */
	bool send_failed;
};

struct dsim {
	struct kunit *test;
	u32 nodes, units;
	u32 alive;		/* bitmask */
	struct dsim_node n[DS_NODES];
	struct dsim_chan ch[DS_NODES][DS_NODES];
	struct ddsm_action abuf[DDSM_MAX_ACTIONS];
	u32 sent[DDSM_MSG_NR];
	u32 to_dead;		/* sends to a dead node (vanished or refused) */
	u32 overflow;
};

static struct dsim *dsim_new(struct kunit *test, u32 nodes, u32 units)
{
	struct dsim *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->test = test;
	s->nodes = nodes;
	s->units = units;
	s->alive = (1u << nodes) - 1;
	for (i = 0; i < nodes; i++) {
		struct dsim_node *n = &s->n[i];

		KUNIT_ASSERT_EQ(test, 0,
				ddsm_space_init(&n->space, units * 4096ULL,
						nodes, i, DDSM_HOME_INTERLEAVE));
		ddsm_dir_init(&n->dir, &n->space, n->entries,
			      ddsm_space_units_homed(&n->space, i), n->pool,
			      DS_POOL);
		ddsm_cache_init(&n->cache, &n->space, n->lines);
	}
	return s;
}

static const struct ddsm_dir_entry *dsim_entry(struct dsim *s, u64 unit)
{
	u32 h = ddsm_unit_home(&s->n[0].space, unit);

	return ddsm_dir_entry(&s->n[h].dir, unit);
}

static struct ddsm_cline *dsim_line(struct dsim *s, u32 node, u64 unit)
{
	return &s->n[node].lines[unit];
}

static void dsim_actions(struct dsim *s, u32 node, struct ddsm_actions *acts,
			 u64 data)
{
	struct dsim_node *n = &s->n[node];
	u32 i;

	s->overflow += acts->overflow;
	for (i = 0; i < acts->n; i++) {
		struct ddsm_action *a = &acts->a[i];
		struct dsim_chan *c;
		u32 dst = a->msg.dst;

		switch (a->type) {
		case DDSM_ACT_SEND:
			KUNIT_ASSERT_EQ(s->test, (u32)a->msg.src, node);
			KUNIT_ASSERT_LT(s->test, dst, s->nodes);
			s->sent[a->msg.type]++;
			if (n->cache.dead & BIT_ULL(dst)) {
				/* Torn down: the transport refuses. */
				n->send_failed = true;
				s->to_dead++;
				break;
			}
			if (!(s->alive & (1u << dst))) {
				s->to_dead++;	/* vanishes */
				break;
			}
			c = &s->ch[node][dst];
			KUNIT_ASSERT_LT(s->test, c->len, (u32)DS_QLEN);
			c->q[(c->head + c->len) % DS_QLEN].msg = a->msg;
			c->q[(c->head + c->len) % DS_QLEN].data =
				n->frame[a->msg.unit];
			c->len++;
			break;
		case DDSM_ACT_STORE:
			n->frame[a->unit] = data;
			break;
		case DDSM_ACT_ZAP:
			n->zaps[a->unit]++;
			break;
		case DDSM_ACT_WAKE:
			n->wakes[a->unit]++;
			break;
		case DDSM_ACT_FREE_FRAME:
			n->frees[a->unit]++;
			break;
		}
	}
}

static bool dsim_deliver(struct dsim *s, u32 src, u32 dst)
{
	struct dsim_chan *c = &s->ch[src][dst];
	struct dsim_node *n = &s->n[dst];
	struct ddsm_wire_msg w;
	struct ddsm_actions acts;
	struct dsim_item it;
	struct ddsm_msg m;
	int ret;

	if (!c->len)
		return false;
	KUNIT_ASSERT_TRUE(s->test, s->alive & (1u << dst));
	it = c->q[c->head];
	c->head = (c->head + 1) % DS_QLEN;
	c->len--;

	ddsm_msg_encode(&it.msg, &w);
	KUNIT_ASSERT_EQ(s->test, DDSM_MSG_OK,
			ddsm_msg_decode(&n->space, src, &w, sizeof(w), &m));
	ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
	if (ddsm_msg_to_home(m.type))
		ret = ddsm_dir_handle(&n->dir, &m, &acts);
	else
		ret = ddsm_cache_handle(&n->cache, &m, &acts);
	if (ret)
		n->errors++;
	dsim_actions(s, dst, &acts, it.data);
	return true;
}

static u32 dsim_run(struct dsim *s)
{
	u32 delivered = 0, i, j;
	bool any;

	do {
		any = false;
		for (i = 0; i < s->nodes; i++)
			for (j = 0; j < s->nodes; j++)
				if (dsim_deliver(s, i, j)) {
					any = true;
					delivered++;
				}
		KUNIT_ASSERT_LT(s->test, delivered, 10000U);
	} while (any);
	return delivered;
}

/* One fault as ddsm_access() takes it: a request that cannot go out fails. */
static enum ddsm_fault_result dsim_fault(struct dsim *s, u32 node, u64 unit,
					 bool write)
{
	struct dsim_node *n = &s->n[node];
	struct ddsm_actions acts;
	enum ddsm_fault_result r;

	ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
	r = ddsm_cache_fault(&n->cache, unit, write, &acts);
	n->send_failed = false;
	dsim_actions(s, node, &acts, 0);
	if (n->send_failed) {
		ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
		ddsm_cache_home_lost(&n->cache, unit, EHOSTDOWN, &acts);
		dsim_actions(s, node, &acts, 0);
	}
	return r;
}

static void dsim_access(struct dsim *s, u32 node, u64 unit, bool write)
{
	int tries;

	for (tries = 0; tries < 10; tries++) {
		enum ddsm_fault_result r = dsim_fault(s, node, unit, write);

		if (r == DDSM_FAULT_MAP_RW || (!write && r == DDSM_FAULT_MAP_RO))
			return;
		dsim_run(s);
	}
	KUNIT_FAIL(s->test, "node %u never got %s access to unit %llu", node,
		   write ? "write" : "read", unit);
}

static void dsim_store(struct dsim *s, u32 node, u64 unit, u64 v)
{
	dsim_access(s, node, unit, true);
	s->n[node].frame[unit] = v;
}

static u64 dsim_load(struct dsim *s, u32 node, u64 unit)
{
	dsim_access(s, node, unit, false);
	return s->n[node].frame[unit];
}

/* @node dies: its own channels and everything sent to it are lost. */
static void dsim_kill(struct dsim *s, u32 node)
{
	u32 i;

	s->alive &= ~(1u << node);
	for (i = 0; i < s->nodes; i++) {
		s->ch[i][node].len = 0;
		if (!(s->alive & (1u << i)))
			s->ch[node][i].len = 0;
	}
}

/* @node learns that @dead is gone: kernel/core/rx.c peer_down(). */
static void dsim_detect(struct dsim *s, u32 node, u32 dead)
{
	struct dsim_node *n = &s->n[node];
	struct ddsm_actions acts;
	u64 unit;

	KUNIT_ASSERT_FALSE(s->test, s->alive & (1u << dead));
	s->ch[dead][node].len = 0;
	ddsm_dir_node_dead(&n->dir, dead);
	ddsm_cache_node_dead(&n->cache, dead);
	for (unit = 0; unit < s->units; unit++) {
		ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
		if (ddsm_unit_home(&n->space, unit) == node)
			ddsm_dir_reclaim(&n->dir, unit, dead, &acts);
		ddsm_cache_peer_lost(&n->cache, unit, dead, &acts);
		dsim_actions(s, node, &acts, 0);
	}
}

/* Nothing in flight, no survivor waits, nobody returned -EPROTO. */
static void dsim_settled(struct dsim *s)
{
	u32 i, j;
	u64 u;

	for (i = 0; i < s->nodes; i++)
		for (j = 0; j < s->nodes; j++)
			KUNIT_EXPECT_EQ(s->test, s->ch[i][j].len, 0U);
	for (i = 0; i < s->nodes; i++) {
		if (!(s->alive & (1u << i)))
			continue;
		KUNIT_EXPECT_EQ_MSG(s->test, s->n[i].errors, 0, "node %u", i);
		for (u = 0; u < s->units; u++)
			KUNIT_EXPECT_TRUE_MSG(s->test,
					      ddsm_cstate_stable(s->n[i].lines[u].state),
					      "node %u unit %llu is %s", i, u,
					      ddsm_cstate_name(s->n[i].lines[u].state));
	}
	KUNIT_EXPECT_EQ(s->test, s->overflow, 0U);
}

/* A new access by @node to @unit fails with @err and leaves the line I. */
static void dsim_expect_fail(struct dsim *s, u32 node, u64 unit, bool write,
			     u8 err)
{
	KUNIT_EXPECT_EQ(s->test, DDSM_FAULT_WAIT,
			dsim_fault(s, node, unit, write));
	dsim_run(s);
	KUNIT_EXPECT_EQ(s->test, (u8)DDSM_C_I, dsim_line(s, node, unit)->state);
	KUNIT_EXPECT_EQ(s->test, err, dsim_line(s, node, unit)->err);
}

/*
 * A sharer dies while a writer waits for its INV ACK: its copy died with
 * it, which is as good as the ACK, in whichever order the writer and the
 * home learn of it.
 */
static void death_sharer_dies_writer_completes(struct kunit *test)
{
	int order;

	for (order = 0; order < 2; order++) {
		struct dsim *s = dsim_new(test, 3, 3);	/* unit 0 homed on 0 */
		const struct ddsm_dir_entry *e = dsim_entry(s, 0);

		dsim_store(s, 0, 0, 5);
		KUNIT_EXPECT_EQ(test, 5ULL, dsim_load(s, 1, 0));
		KUNIT_EXPECT_EQ(test, 5ULL, dsim_load(s, 2, 0));
		/* Node 2 upgrades: INV to 0 and 1, the grant names both. */
		KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, dsim_fault(s, 2, 0, true));
		KUNIT_EXPECT_TRUE(test, dsim_deliver(s, 2, 0));
		KUNIT_EXPECT_TRUE(test, dsim_deliver(s, 0, 2));	/* grant */
		KUNIT_EXPECT_TRUE(test, dsim_deliver(s, 0, 0));	/* INV to home */
		KUNIT_EXPECT_TRUE(test, dsim_deliver(s, 0, 2));	/* home's INV ACK */
		KUNIT_EXPECT_EQ(test, (u8)DDSM_C_SM_AD, dsim_line(s, 2, 0)->state);
		KUNIT_EXPECT_EQ(test, BIT_ULL(0) | BIT_ULL(1),
				dsim_line(s, 2, 0)->expect);
		dsim_kill(s, 1);		/* the INV to node 1 is lost */
		if (order) {
			dsim_detect(s, 0, 1);
			KUNIT_EXPECT_EQ(test, (u8)DDSM_C_SM_AD,
					dsim_line(s, 2, 0)->state);
			dsim_detect(s, 2, 1);
		} else {
			dsim_detect(s, 2, 1);
			dsim_detect(s, 0, 1);
		}
		dsim_run(s);
		KUNIT_EXPECT_EQ(test, (u8)DDSM_C_M, dsim_line(s, 2, 0)->state);
		KUNIT_EXPECT_EQ(test, (u8)0, dsim_line(s, 2, 0)->err);
		KUNIT_EXPECT_EQ(test, (u8)DDSM_G_M, e->state);
		KUNIT_EXPECT_EQ(test, (u16)2, e->owner);
		KUNIT_EXPECT_EQ(test, BIT_ULL(2), e->copyset);
		KUNIT_EXPECT_EQ(test, (u8)0, e->lost);
		KUNIT_EXPECT_EQ(test, (u8)0, e->wlocked);
		KUNIT_EXPECT_EQ(test, DDSM_FAULT_MAP_RW, dsim_fault(s, 2, 0, true));
		dsim_store(s, 2, 0, 6);
		KUNIT_EXPECT_EQ(test, 6ULL, dsim_load(s, 0, 0));
		dsim_settled(s);
	}
}

/*
 * The M owner dies while a reader waits for its FETCH data: the reader
 * fails with EHOSTDOWN, the unit is lost, every later request gets EIO.
 */
static void death_owner_dies_reader_fails(struct kunit *test)
{
	struct dsim *s = dsim_new(test, 3, 3);
	const struct ddsm_dir_entry *e = dsim_entry(s, 0);

	dsim_store(s, 1, 0, 7);
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, dsim_fault(s, 2, 0, false));
	KUNIT_EXPECT_TRUE(test, dsim_deliver(s, 2, 0));	/* FETCH to 1, grant */
	dsim_kill(s, 1);
	KUNIT_EXPECT_TRUE(test, dsim_deliver(s, 0, 2));	/* grant: wait for 1 */
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_IS_D, dsim_line(s, 2, 0)->state);
	KUNIT_EXPECT_EQ(test, 0U, s->n[2].wakes[0]);
	dsim_detect(s, 2, 1);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, dsim_line(s, 2, 0)->state);
	KUNIT_EXPECT_EQ(test, (u8)EHOSTDOWN, dsim_line(s, 2, 0)->err);
	KUNIT_EXPECT_EQ(test, 1U, s->n[2].wakes[0]);
	/* Its UNLOCK still releases home's lock, reporting the failure. */
	KUNIT_EXPECT_EQ(test, 2U, s->sent[DDSM_MSG_UNLOCK]);
	dsim_detect(s, 0, 1);
	KUNIT_EXPECT_EQ(test, (u8)1, e->lost);
	KUNIT_EXPECT_EQ(test, 1ULL, s->n[0].dir.stats.lost);
	dsim_run(s);				/* the failed reader's UNLOCK */
	KUNIT_EXPECT_EQ(test, (u8)0, e->wlocked);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_G_U, e->state);
	KUNIT_EXPECT_EQ(test, 0ULL, e->copyset);
	/* Home memory is stale: nobody may read it, home included. */
	dsim_expect_fail(s, 2, 0, false, EIO);
	dsim_expect_fail(s, 2, 0, true, EIO);
	dsim_expect_fail(s, 0, 0, false, EIO);
	KUNIT_EXPECT_EQ(test, (u8)1, e->lost);
	dsim_settled(s);
}

/*
 * The requester holding the write lock dies.  Home releases the lock; a
 * write may have happened on the dead node, so the unit is lost.
 */
static void death_write_lock_holder_dies(struct kunit *test)
{
	struct dsim *s = dsim_new(test, 3, 3);
	const struct ddsm_dir_entry *e = dsim_entry(s, 0);

	dsim_load(s, 2, 0);
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, dsim_fault(s, 1, 0, true));
	KUNIT_EXPECT_TRUE(test, dsim_deliver(s, 1, 0));	/* INV to 2, grant */
	KUNIT_EXPECT_EQ(test, (u8)1, e->wlocked);
	dsim_kill(s, 1);
	dsim_detect(s, 0, 1);
	KUNIT_EXPECT_EQ(test, (u8)0, e->wlocked);
	KUNIT_EXPECT_EQ(test, (u8)1, e->lost);
	dsim_run(s);				/* node 2 drops its copy */
	dsim_detect(s, 2, 1);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, dsim_line(s, 2, 0)->state);
	dsim_expect_fail(s, 2, 0, false, EIO);
	dsim_expect_fail(s, 0, 0, true, EIO);
	dsim_settled(s);
}

/*
 * The same for a read from the owner: nothing was written, the owner
 * writes back and keeps its copy, the unit is not lost, in either order
 * of the writeback and the detection.
 */
static void death_read_lock_holder_dies(struct kunit *test)
{
	int order;

	for (order = 0; order < 2; order++) {
		struct dsim *s = dsim_new(test, 3, 3);
		const struct ddsm_dir_entry *e = dsim_entry(s, 0);

		dsim_store(s, 2, 0, 5);
		KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, dsim_fault(s, 1, 0, false));
		KUNIT_EXPECT_TRUE(test, dsim_deliver(s, 1, 0));	/* FETCH to 2 */
		dsim_kill(s, 1);
		if (order) {
			dsim_run(s);	/* writeback in, data to 1 vanishes */
			KUNIT_EXPECT_EQ(test, (u8)1, e->wlocked);
			dsim_detect(s, 0, 1);
		} else {
			dsim_detect(s, 0, 1);
			/* Still waiting for the writeback. */
			KUNIT_EXPECT_EQ(test, (u8)1, e->wlocked);
			dsim_run(s);
		}
		dsim_detect(s, 2, 1);
		KUNIT_EXPECT_EQ(test, (u8)0, e->wlocked);
		KUNIT_EXPECT_EQ(test, (u8)0, e->lost);
		KUNIT_EXPECT_EQ(test, (u8)DDSM_G_S, e->state);
		KUNIT_EXPECT_EQ(test, BIT_ULL(2), e->copyset);
		KUNIT_EXPECT_EQ(test, (u8)DDSM_C_S, dsim_line(s, 2, 0)->state);
		KUNIT_EXPECT_EQ(test, 5ULL, s->n[0].frame[0]);
		KUNIT_EXPECT_EQ(test, 5ULL, dsim_load(s, 0, 0));
		dsim_store(s, 0, 0, 8);
		KUNIT_EXPECT_EQ(test, 8ULL, dsim_load(s, 2, 0));
		dsim_settled(s);
	}
}

/*
 * The home dies: every pending event on its units fails, stable copies of
 * them are dropped, later faults fail at once; other units are untouched.
 */
static void death_home_dies(struct kunit *test)
{
	/* Units 0 and 3 homed on node 0, 1 and 4 on node 1, 2 and 5 on 2. */
	struct dsim *s = dsim_new(test, 3, 6);

	dsim_load(s, 1, 0);
	dsim_load(s, 2, 0);
	dsim_store(s, 2, 3, 4);
	dsim_store(s, 1, 2, 9);
	KUNIT_EXPECT_EQ(test, 9ULL, dsim_load(s, 2, 2));
	/* In flight when node 0 dies: an upgrade and a read miss. */
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, dsim_fault(s, 2, 0, true));
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, dsim_fault(s, 1, 3, false));
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_SM_AD, dsim_line(s, 2, 0)->state);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_IS_D, dsim_line(s, 1, 3)->state);
	dsim_kill(s, 0);
	dsim_detect(s, 1, 0);
	dsim_detect(s, 2, 0);
	/* Pending events fail. */
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, dsim_line(s, 2, 0)->state);
	KUNIT_EXPECT_EQ(test, (u8)EHOSTDOWN, dsim_line(s, 2, 0)->err);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, dsim_line(s, 1, 3)->state);
	KUNIT_EXPECT_EQ(test, (u8)EHOSTDOWN, dsim_line(s, 1, 3)->err);
	KUNIT_EXPECT_EQ(test, 1U, s->n[1].wakes[3]);
	/* Stable copies are dropped: S of unit 0, M of unit 3. */
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, dsim_line(s, 1, 0)->state);
	KUNIT_EXPECT_EQ(test, 1U, s->n[1].frees[0]);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, dsim_line(s, 2, 3)->state);
	KUNIT_EXPECT_EQ(test, 1U, s->n[2].frees[3]);
	/* Units homed elsewhere keep their copies and their data. */
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_S, dsim_line(s, 1, 2)->state);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_S, dsim_line(s, 2, 2)->state);
	dsim_store(s, 2, 2, 10);
	KUNIT_EXPECT_EQ(test, 10ULL, dsim_load(s, 1, 2));
	/* A new fault on a unit of the dead home fails without waiting. */
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, dsim_fault(s, 1, 0, true));
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, dsim_line(s, 1, 0)->state);
	KUNIT_EXPECT_EQ(test, (u8)EHOSTDOWN, dsim_line(s, 1, 0)->err);
	dsim_run(s);
	dsim_settled(s);
}

/* A request the dead node had queued at home is dropped, never granted. */
static void death_queued_request_purged(struct kunit *test)
{
	struct dsim *s = dsim_new(test, 3, 3);
	const struct ddsm_dir_entry *e = dsim_entry(s, 0);

	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, dsim_fault(s, 1, 0, true));
	KUNIT_EXPECT_TRUE(test, dsim_deliver(s, 1, 0));	/* granted: wlocked */
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, dsim_fault(s, 2, 0, false));
	KUNIT_EXPECT_TRUE(test, dsim_deliver(s, 2, 0));	/* queued */
	KUNIT_EXPECT_EQ(test, 1U, s->n[0].dir.pool_used);
	KUNIT_EXPECT_NE(test, 0U, e->qhead);
	dsim_kill(s, 2);
	dsim_detect(s, 0, 2);
	KUNIT_EXPECT_EQ(test, 0U, s->n[0].dir.pool_used);
	KUNIT_EXPECT_EQ(test, 0U, e->qhead);
	KUNIT_EXPECT_EQ(test, 0U, e->qtail);
	dsim_detect(s, 1, 2);
	dsim_run(s);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_M, dsim_line(s, 1, 0)->state);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_G_M, e->state);
	KUNIT_EXPECT_EQ(test, BIT_ULL(1), e->copyset);
	/* Nothing was ever sent towards the dead node. */
	KUNIT_EXPECT_EQ(test, 0U, s->to_dead);
	/* The slot is free again: a new request queues and is granted. */
	dsim_store(s, 0, 0, 3);
	KUNIT_EXPECT_EQ(test, 3ULL, dsim_load(s, 1, 0));
	dsim_settled(s);
}

/*
 * Found by tools/model (3x1, one node dies), see docs/model-checker.md.
 * The home dies after a sharer answered an INV: the writer fails its
 * event when it learns of the death, then the sharer's ACK arrives.  It
 * belongs to an event that is over and must be dropped quietly, not
 * counted as a protocol error.
 */
static void death_ack_after_home_died(struct kunit *test)
{
	struct dsim *s = dsim_new(test, 3, 3);

	dsim_load(s, 1, 0);
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, dsim_fault(s, 2, 0, true));
	KUNIT_EXPECT_TRUE(test, dsim_deliver(s, 2, 0));	/* INV to 1, grant */
	KUNIT_EXPECT_TRUE(test, dsim_deliver(s, 0, 1));	/* 1 ACKs to 2 */
	dsim_kill(s, 0);
	dsim_detect(s, 2, 0);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, dsim_line(s, 2, 0)->state);
	KUNIT_EXPECT_EQ(test, (u8)EHOSTDOWN, dsim_line(s, 2, 0)->err);
	KUNIT_EXPECT_TRUE(test, dsim_deliver(s, 1, 2));	/* the late ACK */
	KUNIT_EXPECT_EQ(test, 0, s->n[2].errors);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, dsim_line(s, 2, 0)->state);
	dsim_detect(s, 1, 0);
	dsim_settled(s);
}

/*
 * Found by tools/model (3x1, one node dies).  The writer learns that the
 * M owner died before home does: its write miss fails (the FETCH_INV
 * cannot be answered) and its UNLOCK reports the failure.  The only
 * current copy died with the owner, so the unit must be lost; serving
 * home memory would silently return an older value.
 */
static void death_failed_write_from_dead_owner_loses_unit(struct kunit *test)
{
	struct dsim *s = dsim_new(test, 3, 3);
	const struct ddsm_dir_entry *e = dsim_entry(s, 0);

	dsim_store(s, 1, 0, 7);
	dsim_kill(s, 1);
	dsim_detect(s, 2, 1);
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, dsim_fault(s, 2, 0, true));
	dsim_run(s);		/* grant names 1, which 2 knows is dead */
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, dsim_line(s, 2, 0)->state);
	KUNIT_EXPECT_EQ(test, (u8)EHOSTDOWN, dsim_line(s, 2, 0)->err);
	dsim_detect(s, 0, 1);
	KUNIT_EXPECT_EQ(test, (u8)1, e->lost);
	dsim_expect_fail(s, 0, 0, false, EIO);
	dsim_expect_fail(s, 2, 0, false, EIO);
	dsim_settled(s);
}

static struct kunit_case death_cases[] = {
	KUNIT_CASE(death_sharer_dies_writer_completes),
	KUNIT_CASE(death_owner_dies_reader_fails),
	KUNIT_CASE(death_write_lock_holder_dies),
	KUNIT_CASE(death_read_lock_holder_dies),
	KUNIT_CASE(death_home_dies),
	KUNIT_CASE(death_queued_request_purged),
	KUNIT_CASE(death_ack_after_home_died),
	KUNIT_CASE(death_failed_write_from_dead_owner_loses_unit),
	{}
};

static struct kunit_suite death_suite = {
	.name = "ddsm_death",
	.test_cases = death_cases,
};

kunit_test_suite(death_suite);

MODULE_LICENSE("GPL");
