// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the hand-off (kernel/proto/dir.h).  When a unit's home owns it
 * and another node asks, home's own cache ends the event when it sends
 * the data; the requester sends no UNLOCK, keeps a request that reaches
 * it while its line is held, and serves it when the hold ends.
 */
#include "proto_sim.h"

/* Unit 0 is homed on node 0; node 0 writes it, so home owns it in M. */
static struct sim *home_owns(struct kunit *test, bool keep_holds)
{
	struct sim *s = sim_new(test, 3, 3, SIM_POOL);

	s->keep_holds = keep_holds;
	sim_store(s, 0, 0, 10);
	if (keep_holds) {
		struct ddsm_action buf[2];
		struct ddsm_actions acts;

		ddsm_actions_init(&acts, buf, ARRAY_SIZE(buf));
		ddsm_cache_release(&s->n[0].cache, 0, &acts);
		run_actions(s, 0, &acts, 0);
		sim_run(s);
	}
	KUNIT_EXPECT_EQ(test, (u8)DDSM_G_M, dentry(s, 0)->state);
	KUNIT_EXPECT_EQ(test, (u16)0, dentry(s, 0)->owner);
	return s;
}

static void release(struct sim *s, u32 node, u64 unit)
{
	struct ddsm_action buf[2];
	struct ddsm_actions acts;

	ddsm_actions_init(&acts, buf, ARRAY_SIZE(buf));
	KUNIT_EXPECT_TRUE(s->test,
			  ddsm_cache_release(&s->n[node].cache, unit, &acts));
	run_actions(s, node, &acts, 0);
}

static void handoff_requester_sends_no_unlock(struct kunit *test)
{
	struct sim *s = home_owns(test, false);
	u32 unlocks = s->sent[DDSM_MSG_UNLOCK];

	sim_store(s, 1, 0, 11);
	KUNIT_EXPECT_EQ(test, 1ULL, s->n[0].dir.stats.handoffs);
	/* One UNLOCK, home's cache's for node 1, none from node 1. */
	KUNIT_EXPECT_EQ(test, unlocks + 1, s->sent[DDSM_MSG_UNLOCK]);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, cstate(s, 0, 0));
	KUNIT_EXPECT_EQ(test, (u16)1, dentry(s, 0)->owner);
	KUNIT_EXPECT_EQ(test, 11ULL, sim_load(s, 0, 0));
	check_invariants(s);
	check_quiescent(s);
}

static void handoff_keeps_a_forward_until_the_hold_ends(struct kunit *test)
{
	struct sim *s = home_owns(test, true);
	struct ddsm_actions acts;

	sim_fault(s, 1, 0, true);
	sim_run(s);
	KUNIT_ASSERT_EQ(test, (u8)DDSM_C_M, cstate(s, 1, 0));
	KUNIT_EXPECT_TRUE(test, sim_line(s, 1, 0)->hold);
	/* Home is free at once: node 2's miss is forwarded to node 1 ... */
	KUNIT_EXPECT_EQ(test, (u32)0, (u32)dentry(s, 0)->wlocked);
	ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
	ddsm_cache_fault(&s->n[2].cache, 0, false, &acts);
	run_actions(s, 2, &acts, 0);
	sim_run(s);
	/* ... which keeps it: its access has not run yet. */
	KUNIT_EXPECT_EQ(test, 1ULL, s->n[1].cache.stats.deferred);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_M, cstate(s, 1, 0));
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_IS_D, cstate(s, 2, 0));
	s->n[1].frame[0] = 12;
	s->truth[0] = 12;
	/* The access ran: the kept request is served, with the new value. */
	release(s, 1, 0);
	KUNIT_EXPECT_EQ(test, 1U, s->sent[DDSM_MSG_RUN_DEFERRED]);
	sim_run(s);
	KUNIT_EXPECT_TRUE(test, sim_line(s, 2, 0)->hold);
	release(s, 2, 0);
	sim_run(s);
	KUNIT_EXPECT_EQ(test, 12ULL, s->n[2].frame[0]);
	KUNIT_EXPECT_NE(test, (u8)DDSM_C_M, cstate(s, 1, 0));
	check_invariants(s);
	check_quiescent(s);
}

static void handoff_ends_at_the_requesters_eviction(struct kunit *test)
{
	struct sim *s = home_owns(test, false);
	struct ddsm_actions acts;

	ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
	ddsm_cache_fault(&s->n[1].cache, 0, true, &acts);
	run_actions(s, 1, &acts, 0);
	sim_deliver(s, 1, 0);		/* WRITE_MISS */
	sim_deliver(s, 0, 0);		/* FETCH_INV to home's own cache */
	/* Its UNLOCK for node 1 now waits on the loopback; node 1 gets M. */
	while (sim_deliver(s, 0, 1))
		;
	KUNIT_ASSERT_EQ(test, (u8)DDSM_C_M, cstate(s, 1, 0));
	s->n[1].frame[0] = 13;
	s->truth[0] = 13;
	ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
	KUNIT_ASSERT_EQ(test, 0, ddsm_cache_evict(&s->n[1].cache, 0, &acts));
	run_actions(s, 1, &acts, 0);
	/* The eviction overtakes the UNLOCK: its data is kept ... */
	sim_deliver(s, 1, 0);
	KUNIT_EXPECT_EQ(test, 13ULL, s->n[0].frame[0]);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_G_U, dentry(s, 0)->state);
	/* ... and the late UNLOCK is no error. */
	sim_run(s);
	KUNIT_EXPECT_EQ(test, 0, s->n[0].errors);
	KUNIT_EXPECT_EQ(test, 0ULL, s->n[0].dir.stats.proto_errors);
	check_invariants(s);
	check_quiescent(s);
}

static void handoff_off_waits_for_the_requester(struct kunit *test)
{
	struct sim *s = home_owns(test, false);
	u32 unlocks;

	s->n[0].dir.handoff = false;
	unlocks = s->sent[DDSM_MSG_UNLOCK];
	sim_store(s, 1, 0, 14);
	KUNIT_EXPECT_EQ(test, 0ULL, s->n[0].dir.stats.handoffs);
	KUNIT_EXPECT_EQ(test, unlocks + 1, s->sent[DDSM_MSG_UNLOCK]);
	KUNIT_EXPECT_EQ(test, 14ULL, sim_load(s, 2, 0));
	check_invariants(s);
	check_quiescent(s);
}

/* The kept request's requester died: home ended its event without it. */
static void handoff_forward_of_a_dead_requester(struct kunit *test)
{
	struct sim *s = home_owns(test, true);
	struct ddsm_actions acts;

	sim_fault(s, 1, 0, true);
	sim_run(s);
	ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
	ddsm_cache_fault(&s->n[2].cache, 0, true, &acts);
	run_actions(s, 2, &acts, 0);
	sim_run(s);
	KUNIT_ASSERT_EQ(test, 1ULL, s->n[1].cache.stats.deferred);
	sim_kill(s, 2);
	sim_detect(s, 0, 2);
	sim_detect(s, 1, 2);
	sim_run(s);
	release(s, 1, 0);
	sim_run(s);
	/* Node 1's data went to the dead node: the unit is lost at home. */
	KUNIT_EXPECT_TRUE(test, dentry(s, 0)->lost);
	KUNIT_EXPECT_EQ(test, 0, s->n[0].errors);
	KUNIT_EXPECT_EQ(test, 0, s->n[1].errors);
}

static struct kunit_case handoff_cases[] = {
	KUNIT_CASE(handoff_requester_sends_no_unlock),
	KUNIT_CASE(handoff_keeps_a_forward_until_the_hold_ends),
	KUNIT_CASE(handoff_ends_at_the_requesters_eviction),
	KUNIT_CASE(handoff_off_waits_for_the_requester),
	KUNIT_CASE(handoff_forward_of_a_dead_requester),
	{}
};

static struct kunit_suite handoff_suite = {
	.name = "ddsm_handoff",
	.test_cases = handoff_cases,
};

kunit_test_suite(handoff_suite);
