// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the directory and the cache together.  A small in-test cluster
 * runs the real kernel/proto code: per-pair FIFO channels (as RC queue
 * pairs give), frames holding one u64 "value" per unit, and the actions
 * carried out as the module does.  Scripted cases pin each transition and
 * the races of design.md section 3; a seeded random walk checks the
 * single-writer and data-value invariants after every step.
 */
#include "proto_sim.h"

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
		/* An invalid copy's frame goes: cache_frames is a real bound. */
		KUNIT_EXPECT_EQ(test, 1U, s->n[i].frees[3]);
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

/* Queue a message that @src never had reason to send. */
static void sim_forge(struct sim *s, u32 src, u32 dst, const struct ddsm_msg *m)
{
	struct sim_chan *c = &s->ch[src][dst];

	c->q[(c->head + c->len) % SIM_QLEN].msg = *m;
	c->q[(c->head + c->len) % SIM_QLEN].data = 0;
	c->len++;
}

/*
 * An ACK from a node home never named must not stand in for a sharer's:
 * before the grant it is discounted when the grant names the sharers.
 * (A grant from anyone but home never gets past the decoder.)
 */
static void proto_ack_from_stranger(struct kunit *test)
{
	struct sim *s = sim_new(test, 4, 4, SIM_POOL);
	struct ddsm_msg m = {
		.type = DDSM_MSG_ACK,
		.src = 3,
		.dst = 1,
		.requester = 1,
		.acks = 2,
		.unit = 0,
	};

	sim_load(s, 2, 0);		/* unit 0: home node 0, node 2 shares */
	KUNIT_ASSERT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 1, 0, true));
	m.seq = sim_line(s, 1, 0)->seq;
	sim_forge(s, 3, 1, &m);		/* node 3 shares nothing */
	sim_deliver(s, 3, 1);
	sim_deliver(s, 1, 0);		/* WRITE_MISS: INV to node 2, grant */
	sim_deliver(s, 0, 1);		/* the grant, before node 2's ACK */
	KUNIT_EXPECT_NE(test, (u8)DDSM_C_M, cstate(s, 1, 0));
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_S, cstate(s, 2, 0));
	KUNIT_EXPECT_EQ(test, 1ULL, s->n[1].cache.stats.proto_errors);
	sim_run(s);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_M, cstate(s, 1, 0));
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, cstate(s, 2, 0));
	KUNIT_EXPECT_EQ(test, 0, s->n[1].errors);
}

/*
 * Forward progress: a completed miss keeps home locked until the access
 * that asked for it has run, so a competing request queued at home cannot
 * take the unit away first (before: the FETCH_INV went out with the
 * grant's UNLOCK and node 1 was back in I without ever storing).
 */
static void proto_hold_until_access(struct kunit *test)
{
	struct sim *s = sim_new(test, 3, 3, SIM_POOL);
	struct ddsm_actions acts;

	s->keep_holds = true;
	KUNIT_ASSERT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 1, 0, true));
	KUNIT_ASSERT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 2, 0, true));
	sim_run(s);
	/* Node 1 asked first and got it; node 2's request waits at home. */
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_M, cstate(s, 1, 0));
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_IM_AD, cstate(s, 2, 0));
	KUNIT_EXPECT_TRUE(test, sim_line(s, 1, 0)->hold);
	KUNIT_EXPECT_EQ(test, 1U, s->holds);
	/* Held lines are not evicted: home waits for their UNLOCK. */
	ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
	KUNIT_EXPECT_EQ(test, -EBUSY, ddsm_cache_evict(&s->n[1].cache, 0, &acts));

	/* The woken fault maps and stores, then releases. */
	KUNIT_ASSERT_EQ(test, DDSM_FAULT_MAP_RW, sim_fault(s, 1, 0, true));
	s->n[1].frame[0] = 7;
	s->truth[0] = 7;
	ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
	KUNIT_EXPECT_TRUE(test, ddsm_cache_release(&s->n[1].cache, 0, &acts));
	KUNIT_EXPECT_FALSE(test, ddsm_cache_release(&s->n[1].cache, 0, &acts));
	run_actions(s, 1, &acts, 0);
	sim_run(s);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, cstate(s, 1, 0));
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_M, cstate(s, 2, 0));
	KUNIT_EXPECT_EQ(test, 7ULL, s->n[2].frame[0]);

	/* A new event on a held line sends the old UNLOCK first. */
	KUNIT_ASSERT_EQ(test, DDSM_FAULT_MAP_RW, sim_fault(s, 2, 0, true));
	ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
	ddsm_cache_release(&s->n[2].cache, 0, &acts);
	run_actions(s, 2, &acts, 0);
	sim_run(s);
	KUNIT_ASSERT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 1, 0, false));
	sim_run(s);
	KUNIT_ASSERT_EQ(test, (u8)DDSM_C_S, cstate(s, 1, 0));
	KUNIT_ASSERT_TRUE(test, sim_line(s, 1, 0)->hold);
	KUNIT_ASSERT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 1, 0, true));
	KUNIT_EXPECT_FALSE(test, sim_line(s, 1, 0)->hold);
	sim_run(s);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_M, cstate(s, 1, 0));
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, cstate(s, 2, 0));
	KUNIT_EXPECT_EQ(test, 0, s->n[0].errors + s->n[1].errors +
			s->n[2].errors);
}

static struct kunit_case proto_cases[] = {
	KUNIT_CASE(proto_hold_until_access),
	KUNIT_CASE(proto_ack_from_stranger),
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
