// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the directory and the cache together.  A small in-test cluster
 * runs the real kernel/proto code: per-pair FIFO channels (as RC queue
 * pairs give), frames holding one u64 "value" per unit, and the actions
 * carried out as the module does.  Scripted cases pin each transition and
 * the races of design.md section 3; a seeded random walk checks the
 * single-writer and data-value invariants after every step.
 */
#include <kunit/test.h>
#include "../../kernel/proto/dir.h"
#include "../../kernel/proto/cache.h"

#define SIM_NODES	4
#define SIM_UNITS	4
#define SIM_QLEN	64
#define SIM_POOL	16

struct sim_item {
	struct ddsm_msg msg;
	u64 data;
};

struct sim_chan {
	struct sim_item q[SIM_QLEN];
	u32 head, len;
};

struct sim_node {
	struct ddsm_space space;
	struct ddsm_dir dir;
	struct ddsm_cache cache;
	struct ddsm_dir_entry entries[SIM_UNITS];
	struct ddsm_dir_wait pool[SIM_POOL];
	struct ddsm_cline lines[SIM_UNITS];
	u64 frame[SIM_UNITS];
	u32 zaps[SIM_UNITS];
	u32 wakes[SIM_UNITS];
	u32 frees[SIM_UNITS];
	int errors;		/* -EPROTO returns */
};

struct sim {
	struct kunit *test;
	u32 nodes, units;
	struct sim_node n[SIM_NODES];
	struct sim_chan ch[SIM_NODES][SIM_NODES];
	struct ddsm_action abuf[DDSM_MAX_ACTIONS];
	u64 truth[SIM_UNITS];	/* value of the last store to each unit */
	u32 sent[DDSM_MSG_NR];
	u32 overflow;
};

static struct sim *sim_new(struct kunit *test, u32 nodes, u32 units,
			   u32 pool)
{
	struct sim *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->test = test;
	s->nodes = nodes;
	s->units = units;
	for (i = 0; i < nodes; i++) {
		struct sim_node *n = &s->n[i];

		KUNIT_ASSERT_EQ(test, 0,
				ddsm_space_init(&n->space, units * 4096ULL,
						nodes, i, DDSM_HOME_INTERLEAVE));
		ddsm_dir_init(&n->dir, &n->space, n->entries,
			      ddsm_space_units_homed(&n->space, i), n->pool,
			      pool);
		ddsm_cache_init(&n->cache, &n->space, n->lines);
	}
	return s;
}

static u32 home(struct sim *s, u64 unit)
{
	return ddsm_unit_home(&s->n[0].space, unit);
}

static const struct ddsm_dir_entry *dentry(struct sim *s, u64 unit)
{
	return ddsm_dir_entry(&s->n[home(s, unit)].dir, unit);
}

static u8 cstate(struct sim *s, u32 node, u64 unit)
{
	return s->n[node].lines[unit].state;
}

static void run_actions(struct sim *s, u32 node, struct ddsm_actions *acts,
			u64 data)
{
	u32 i;

	s->overflow += acts->overflow;
	for (i = 0; i < acts->n; i++) {
		struct ddsm_action *a = &acts->a[i];
		struct sim_node *n = &s->n[node];
		struct sim_chan *c;

		switch (a->type) {
		case DDSM_ACT_SEND:
			KUNIT_ASSERT_EQ(s->test, (u32)a->msg.src, node);
			KUNIT_ASSERT_LT(s->test, (u32)a->msg.dst, s->nodes);
			c = &s->ch[node][a->msg.dst];
			KUNIT_ASSERT_LT(s->test, c->len, (u32)SIM_QLEN);
			c->q[(c->head + c->len) % SIM_QLEN].msg = a->msg;
			c->q[(c->head + c->len) % SIM_QLEN].data =
				n->frame[a->msg.unit];
			c->len++;
			s->sent[a->msg.type]++;
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

/* Deliver the oldest message on src -> dst through the codec. */
static bool sim_deliver(struct sim *s, u32 src, u32 dst)
{
	struct sim_chan *c = &s->ch[src][dst];
	struct sim_node *n = &s->n[dst];
	struct ddsm_wire_msg w;
	struct ddsm_actions acts;
	struct sim_item it;
	struct ddsm_msg m;
	int ret;

	if (!c->len)
		return false;
	it = c->q[c->head];
	c->head = (c->head + 1) % SIM_QLEN;
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
	run_actions(s, dst, &acts, it.data);
	return true;
}

/* Deliver everything, pairs in a fixed order; returns messages delivered. */
static u32 sim_run(struct sim *s)
{
	u32 delivered = 0, i, j;
	bool any;

	do {
		any = false;
		for (i = 0; i < s->nodes; i++)
			for (j = 0; j < s->nodes; j++)
				if (sim_deliver(s, i, j)) {
					any = true;
					delivered++;
				}
		KUNIT_ASSERT_LT(s->test, delivered, 100000U);
	} while (any);
	return delivered;
}

static enum ddsm_fault_result sim_fault(struct sim *s, u32 node, u64 unit,
					bool write)
{
	struct ddsm_actions acts;
	enum ddsm_fault_result r;

	ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
	r = ddsm_cache_fault(&s->n[node].cache, unit, write, &acts);
	run_actions(s, node, &acts, 0);
	return r;
}

/* Fault until the access is allowed, delivering in between. */
static void sim_access(struct sim *s, u32 node, u64 unit, bool write)
{
	int tries;

	for (tries = 0; tries < 10; tries++) {
		enum ddsm_fault_result r = sim_fault(s, node, unit, write);

		if (r == DDSM_FAULT_MAP_RW || (!write && r == DDSM_FAULT_MAP_RO))
			return;
		sim_run(s);
	}
	KUNIT_FAIL(s->test, "node %u never got %s access to unit %llu", node,
		   write ? "write" : "read", unit);
}

static void sim_store(struct sim *s, u32 node, u64 unit, u64 v)
{
	sim_access(s, node, unit, true);
	KUNIT_ASSERT_EQ(s->test, cstate(s, node, unit), (u8)DDSM_C_M);
	s->n[node].frame[unit] = v;
	s->truth[unit] = v;
}

static u64 sim_load(struct sim *s, u32 node, u64 unit)
{
	sim_access(s, node, unit, false);
	return s->n[node].frame[unit];
}

static u64 holders(struct sim *s, u64 unit)
{
	u64 set = 0;
	u32 i;

	for (i = 0; i < s->nodes; i++)
		if (cstate(s, i, unit) == DDSM_C_S ||
		    cstate(s, i, unit) == DDSM_C_M)
			set |= 1ULL << i;
	return set;
}

static bool readable(u8 st)
{
	return st == DDSM_C_S || st == DDSM_C_M || st == DDSM_C_SM_AD;
}

/* Single writer, multiple readers, and every readable copy is current. */
static void check_invariants(struct sim *s)
{
	u64 u;
	u32 i;

	for (u = 0; u < s->units; u++) {
		u32 writers = 0, readers = 0;

		for (i = 0; i < s->nodes; i++) {
			u8 st = cstate(s, i, u);

			if (st == DDSM_C_M)
				writers++;
			else if (readable(st))
				readers++;
			if (readable(st))
				KUNIT_EXPECT_EQ_MSG(s->test, s->n[i].frame[u],
						    s->truth[u],
						    "node %u unit %llu state %s",
						    i, u, ddsm_cstate_name(st));
		}
		KUNIT_EXPECT_LE(s->test, writers, 1U);
		if (writers)
			KUNIT_EXPECT_EQ(s->test, readers, 0U);
	}
}

/* Once no message is in flight, the directory matches the caches. */
static void check_quiescent(struct sim *s)
{
	u64 u;
	u32 i;

	for (u = 0; u < s->units; u++) {
		const struct ddsm_dir_entry *e = dentry(s, u);

		KUNIT_EXPECT_EQ(s->test, e->copyset, holders(s, u));
		KUNIT_EXPECT_EQ(s->test, (u32)e->wlocked, 0U);
		KUNIT_EXPECT_EQ(s->test, e->rlocks, 0ULL);
		KUNIT_EXPECT_EQ(s->test, e->qhead, 0U);
		if (e->state != DDSM_G_M)
			KUNIT_EXPECT_EQ(s->test, s->n[home(s, u)].frame[u],
					s->truth[u]);
		for (i = 0; i < s->nodes; i++)
			KUNIT_EXPECT_TRUE(s->test,
					  ddsm_cstate_stable(cstate(s, i, u)));
	}
	for (i = 0; i < s->nodes; i++)
		KUNIT_EXPECT_EQ(s->test, s->n[i].errors, 0);
	KUNIT_EXPECT_EQ(s->test, s->overflow, 0U);
}

static void proto_one_node_read_then_upgrade(struct kunit *test)
{
	struct sim *s = sim_new(test, 1, 2, SIM_POOL);

	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 0, 1, false));
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_IS_D, cstate(s, 0, 1));
	/* Coalescing: a second fault while the first is in flight sends nothing. */
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 0, 1, false));
	KUNIT_EXPECT_EQ(test, 1U, s->sent[DDSM_MSG_READ_MISS]);
	KUNIT_EXPECT_EQ(test, 3U, sim_run(s));	/* READ_MISS, ACK, UNLOCK */
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_S, cstate(s, 0, 1));
	KUNIT_EXPECT_EQ(test, 1U, s->n[0].wakes[1]);
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_MAP_RO, sim_fault(s, 0, 1, false));
	KUNIT_EXPECT_EQ(test, (u8)DDSM_G_S, dentry(s, 1)->state);

	sim_store(s, 0, 1, 42);
	KUNIT_EXPECT_EQ(test, 1U, s->sent[DDSM_MSG_WRITE_SHARED]);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_G_M, dentry(s, 1)->state);
	KUNIT_EXPECT_EQ(test, (u16)0, dentry(s, 1)->owner);
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_MAP_RW, sim_fault(s, 0, 1, false));
	KUNIT_EXPECT_EQ(test, 42ULL, sim_load(s, 0, 1));
	check_quiescent(s);
}

static void proto_write_miss_from_unshared(struct kunit *test)
{
	struct sim *s = sim_new(test, 2, 2, SIM_POOL);

	sim_store(s, 1, 0, 7);		/* unit 0 is homed on node 0 */
	KUNIT_EXPECT_EQ(test, 1U, s->sent[DDSM_MSG_WRITE_MISS]);
	KUNIT_EXPECT_EQ(test, 0U, s->sent[DDSM_MSG_INV]);
	KUNIT_EXPECT_EQ(test, 1ULL << 1, dentry(s, 0)->copyset);
	check_quiescent(s);
}

static void proto_read_from_owner_writes_back(struct kunit *test)
{
	struct sim *s = sim_new(test, 3, 3, SIM_POOL);

	sim_store(s, 1, 0, 99);
	KUNIT_EXPECT_EQ(test, 99ULL, sim_load(s, 2, 0));
	KUNIT_EXPECT_EQ(test, 1U, s->sent[DDSM_MSG_FETCH]);
	KUNIT_EXPECT_EQ(test, 1U, s->sent[DDSM_MSG_WRITEBACK]);
	/* M -> S: the old owner keeps a read-only copy, home is current. */
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_S, cstate(s, 1, 0));
	KUNIT_EXPECT_EQ(test, 1U, s->n[1].zaps[0]);
	KUNIT_EXPECT_EQ(test, 99ULL, s->n[0].frame[0]);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_G_S, dentry(s, 0)->state);
	check_quiescent(s);
}

static void proto_write_invalidates_all_sharers(struct kunit *test)
{
	struct sim *s = sim_new(test, 4, 4, SIM_POOL);
	u32 i;

	for (i = 0; i < 3; i++)
		sim_load(s, i, 3);	/* unit 3 is homed on node 3 */
	sim_store(s, 3, 3, 5);
	KUNIT_EXPECT_EQ(test, 3U, s->sent[DDSM_MSG_INV]);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, cstate(s, i, 3));
		KUNIT_EXPECT_EQ(test, 1U, s->n[i].zaps[3]);
	}
	/* Three INV ACKs plus home's grant. */
	KUNIT_EXPECT_EQ(test, 4U, s->sent[DDSM_MSG_ACK] - 3);
	check_quiescent(s);
}

static void proto_upgrade_race_loser_becomes_write_miss(struct kunit *test)
{
	struct sim *s = sim_new(test, 3, 3, SIM_POOL);

	sim_load(s, 1, 0);
	sim_load(s, 2, 0);
	/* Both upgrade at once; node 1's request reaches home first. */
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 1, 0, true));
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 2, 0, true));
	KUNIT_EXPECT_TRUE(test, sim_deliver(s, 1, 0));	/* granted */
	KUNIT_EXPECT_TRUE(test, sim_deliver(s, 2, 0));	/* queued */
	KUNIT_EXPECT_EQ(test, dentry(s, 0)->qhead != 0, true);
	/* Node 2 still reads its old copy until the INV lands. */
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_MAP_RO, sim_fault(s, 2, 0, false));
	KUNIT_EXPECT_TRUE(test, sim_deliver(s, 0, 2));	/* INV */
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_IM_AD, cstate(s, 2, 0));
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 2, 0, false));
	sim_run(s);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, cstate(s, 1, 0));
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_M, cstate(s, 2, 0));
	KUNIT_EXPECT_EQ(test, 1U, s->sent[DDSM_MSG_FETCH_INV]);
	s->truth[0] = 0;
	check_invariants(s);
	check_quiescent(s);
}

static void proto_queue_is_fifo(struct kunit *test)
{
	struct sim *s = sim_new(test, 4, 4, SIM_POOL);

	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 1, 0, true));
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 2, 0, true));
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 3, 0, false));
	sim_deliver(s, 1, 0);
	sim_deliver(s, 2, 0);
	sim_deliver(s, 3, 0);
	KUNIT_EXPECT_EQ(test, 2U, s->n[0].dir.pool_used);
	sim_run(s);
	/* 1 wrote, then 2 took it from 1, then 3 read from 2. */
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, cstate(s, 1, 0));
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_S, cstate(s, 2, 0));
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_S, cstate(s, 3, 0));
	KUNIT_EXPECT_EQ(test, 0U, s->n[0].dir.pool_used);
	check_quiescent(s);
}

static void proto_full_pool_nacks(struct kunit *test)
{
	struct sim *s = sim_new(test, 3, 3, 0);

	sim_fault(s, 1, 0, true);
	sim_fault(s, 2, 0, true);
	sim_deliver(s, 1, 0);
	sim_deliver(s, 2, 0);	/* no slot: NACK */
	KUNIT_EXPECT_EQ(test, 1U, s->sent[DDSM_MSG_NACK]);
	sim_run(s);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, cstate(s, 2, 0));
	KUNIT_EXPECT_EQ(test, (u8)EBUSY, s->n[2].lines[0].err);
	KUNIT_EXPECT_EQ(test, 1U, s->n[2].wakes[0]);
	/* A retry succeeds once the unit is free. */
	sim_store(s, 2, 0, 3);
	check_quiescent(s);
}

static void proto_evictions(struct kunit *test)
{
	struct sim *s = sim_new(test, 3, 3, SIM_POOL);
	struct ddsm_actions acts;

	sim_store(s, 1, 0, 11);
	ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
	KUNIT_EXPECT_EQ(test, 0, ddsm_cache_evict(&s->n[1].cache, 0, &acts));
	KUNIT_EXPECT_EQ(test, (u32)DDSM_ACT_ZAP, (u32)acts.a[0].type);
	run_actions(s, 1, &acts, 0);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_MI_A, cstate(s, 1, 0));
	sim_run(s);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, cstate(s, 1, 0));
	KUNIT_EXPECT_EQ(test, 1U, s->n[1].frees[0]);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_G_U, dentry(s, 0)->state);
	KUNIT_EXPECT_EQ(test, 11ULL, s->n[0].frame[0]);

	sim_load(s, 2, 0);
	ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
	KUNIT_EXPECT_EQ(test, 0, ddsm_cache_evict(&s->n[2].cache, 0, &acts));
	run_actions(s, 2, &acts, 0);
	sim_run(s);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_G_U, dentry(s, 0)->state);
	/* Nothing to evict, or busy: refused. */
	ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
	KUNIT_EXPECT_EQ(test, -EBUSY, ddsm_cache_evict(&s->n[2].cache, 0, &acts));
	check_quiescent(s);
}

/* An owner evicting while a writer's FETCH_INV is on its way still supplies. */
static void proto_evict_races_fetch(struct kunit *test)
{
	struct sim *s = sim_new(test, 3, 3, SIM_POOL);
	struct ddsm_actions acts;

	sim_store(s, 1, 0, 21);
	sim_fault(s, 2, 0, true);
	sim_deliver(s, 2, 0);		/* home forwards FETCH_INV to node 1 */
	ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
	KUNIT_EXPECT_EQ(test, 0, ddsm_cache_evict(&s->n[1].cache, 0, &acts));
	run_actions(s, 1, &acts, 0);
	sim_run(s);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_M, cstate(s, 2, 0));
	KUNIT_EXPECT_EQ(test, 21ULL, s->n[2].frame[0]);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, cstate(s, 1, 0));
	check_quiescent(s);
}

static void proto_rejects_nonsense(struct kunit *test)
{
	struct sim *s = sim_new(test, 2, 2, SIM_POOL);
	struct ddsm_actions acts;
	struct ddsm_msg m = {
		.type = DDSM_MSG_UNLOCK, .src = 1, .dst = 0, .requester = 1,
		.seq = 5, .unit = 0,
	};

	ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_dir_handle(&s->n[0].dir, &m, &acts));
	KUNIT_EXPECT_EQ(test, 0U, acts.n);
	/* An INV to a node holding nothing is answered anyway. */
	m.type = DDSM_MSG_INV;
	m.src = 0;
	m.dst = 1;
	m.requester = 0;
	m.acks = 2;
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_cache_handle(&s->n[1].cache, &m, &acts));
	KUNIT_EXPECT_EQ(test, 1U, acts.n);
	KUNIT_EXPECT_EQ(test, (u32)DDSM_MSG_ACK, (u32)acts.a[0].msg.type);
	/* A stray ACK changes nothing. */
	ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
	m.type = DDSM_MSG_ACK;
	m.requester = 1;
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_cache_handle(&s->n[1].cache, &m, &acts));
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, cstate(s, 1, 0));
}

/*
 * Seeded random walk: faults, stores and evictions on random nodes, and
 * deliveries on random channels, with the invariants after every step.
 */
static void proto_random_walk(struct kunit *test)
{
	struct sim *s = sim_new(test, 3, 2, SIM_POOL);
	u32 seed = 0x5eed, step, stores = 0;
	u64 value = 1000;

	for (step = 0; step < 20000; step++) {
		u32 r, node, unit, what;

		seed = seed * 1664525 + 1013904223;
		r = seed >> 8;
		node = r % s->nodes;
		unit = (r / 4) % s->units;
		what = (r / 16) % 8;
		if (what == 0) {
			sim_fault(s, node, unit, false);
		} else if (what == 1) {
			if (sim_fault(s, node, unit, true) == DDSM_FAULT_MAP_RW) {
				s->n[node].frame[unit] = ++value;
				s->truth[unit] = value;
				stores++;
			}
		} else if (what == 2) {
			struct ddsm_actions acts;

			ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
			if (!ddsm_cache_evict(&s->n[node].cache, unit, &acts))
				run_actions(s, node, &acts, 0);
		} else {
			sim_deliver(s, node, (r / 128) % s->nodes);
		}
		check_invariants(s);
		if (test->status == KUNIT_FAILURE)
			return;
	}
	sim_run(s);
	check_invariants(s);
	check_quiescent(s);
	KUNIT_EXPECT_GT(test, stores, 100U);
}

static struct kunit_case proto_cases[] = {
	KUNIT_CASE(proto_one_node_read_then_upgrade),
	KUNIT_CASE(proto_write_miss_from_unshared),
	KUNIT_CASE(proto_read_from_owner_writes_back),
	KUNIT_CASE(proto_write_invalidates_all_sharers),
	KUNIT_CASE(proto_upgrade_race_loser_becomes_write_miss),
	KUNIT_CASE(proto_queue_is_fifo),
	KUNIT_CASE(proto_full_pool_nacks),
	KUNIT_CASE(proto_evictions),
	KUNIT_CASE(proto_evict_races_fetch),
	KUNIT_CASE(proto_rejects_nonsense),
	KUNIT_CASE(proto_random_walk),
	{}
};

static struct kunit_suite proto_suite = {
	.name = "ddsm_proto",
	.test_cases = proto_cases,
};

kunit_test_suite(proto_suite);

MODULE_LICENSE("GPL");
