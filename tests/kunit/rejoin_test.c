// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a false death costs time, not data (kernel/core/rejoin.c).  A
 * node declared dead while alive keeps its dirty copies of units homed at
 * the nodes it lost (DDSM_C_MO); the home marks the units it owned lost
 * with a note of it and answers EAGAIN; when the two meet again the copy
 * comes back and the unit is usable with the data it held.  Once the
 * window closes, the unit is lost for good, and a copy that is no longer
 * current is never written back.
 */
#include "proto_sim.h"

/* Node 1 owns unit 0 (home 0) dirty when 0 and 1 lose each other. */
static struct sim *owner_cut_off(struct kunit *test)
{
	struct sim *s = sim_new(test, 3, 3, SIM_POOL);

	sim_enable_rejoin(s);
	sim_store(s, 1, 0, 7);
	sim_cut(s, 0, 1);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_MO, sim_line(s, 1, 0)->state);
	KUNIT_EXPECT_EQ(test, 0U, s->n[1].frees[0]);
	KUNIT_EXPECT_EQ(test, 1U, s->n[1].zaps[0]);
	KUNIT_EXPECT_EQ(test, 7ULL, s->n[1].frame[0]);
	KUNIT_EXPECT_EQ(test, (u8)1, dentry(s, 0)->lost);
	KUNIT_EXPECT_EQ(test, (u8)2, dentry(s, 0)->lost_from);
	return s;
}

static void rejoin_owner_brings_unit_back(struct kunit *test)
{
	struct sim *s = owner_cut_off(test);

	/* Meanwhile everyone, home included, is told to ask again. */
	sim_expect_fail(s, 2, 0, false, EAGAIN);
	sim_expect_fail(s, 0, 0, true, EAGAIN);
	/* A local access on the orphan waits; it is not mapped. */
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 1, 0, false));

	sim_peer_up(s, 0, 1);
	sim_peer_up(s, 1, 0);
	sim_run(s);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, sim_line(s, 1, 0)->state);
	KUNIT_EXPECT_EQ(test, 1U, s->n[1].frees[0]);
	KUNIT_EXPECT_EQ(test, (u8)0, dentry(s, 0)->lost);
	KUNIT_EXPECT_EQ(test, 1ULL, s->n[0].dir.stats.restored);
	KUNIT_EXPECT_EQ(test, 7ULL, s->n[0].frame[0]);
	KUNIT_EXPECT_EQ(test, 7ULL, sim_load(s, 2, 0));
	KUNIT_EXPECT_EQ(test, 7ULL, sim_load(s, 1, 0));
	sim_store(s, 1, 0, 8);
	KUNIT_EXPECT_EQ(test, 8ULL, sim_load(s, 0, 0));
	check_invariants(s);
	sim_settled(s);
	check_quiescent(s);
}

static void rejoin_window_closed_unit_stays_lost(struct kunit *test)
{
	struct sim *s = owner_cut_off(test);
	struct ddsm_actions acts;

	/* rejoin_ms passed: home forgets, the owner drops its copy. */
	ddsm_dir_forget(&s->n[0].dir, 0, 1);
	ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
	KUNIT_EXPECT_TRUE(test,
			  ddsm_cache_drop_orphan(&s->n[1].cache, 0, &acts));
	run_actions(s, 1, &acts, 0);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, sim_line(s, 1, 0)->state);
	KUNIT_EXPECT_EQ(test, (u8)EHOSTDOWN, sim_line(s, 1, 0)->err);
	KUNIT_EXPECT_EQ(test, 1U, s->n[1].frees[0]);
	KUNIT_EXPECT_EQ(test, 1ULL, s->n[1].cache.stats.orphans_dropped);
	sim_expect_fail(s, 2, 0, false, EIO);

	sim_peer_up(s, 0, 1);
	sim_peer_up(s, 1, 0);
	sim_run(s);
	sim_expect_fail(s, 1, 0, false, EIO);
	sim_expect_fail(s, 0, 0, true, EIO);
	KUNIT_EXPECT_EQ(test, 0ULL, s->n[0].dir.stats.restored);
	sim_settled(s);
}

/* Home closed its window but the owner still had the copy: not taken. */
static void rejoin_late_copy_not_taken(struct kunit *test)
{
	struct sim *s = owner_cut_off(test);

	ddsm_dir_forget(&s->n[0].dir, 0, 1);
	sim_peer_up(s, 0, 1);
	sim_peer_up(s, 1, 0);
	sim_run(s);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, sim_line(s, 1, 0)->state);
	KUNIT_EXPECT_EQ(test, 0ULL, s->n[0].frame[0]);
	sim_expect_fail(s, 2, 0, false, EIO);
	sim_settled(s);
}

/*
 * The owner's eviction reached home but the EVICT_ACK was lost with the
 * connection: its orphan is an old copy once another node has written.
 * Handing it back must not overwrite the newer value.
 */
static void rejoin_stale_copy_never_written_back(struct kunit *test)
{
	struct sim *s = sim_new(test, 3, 3, SIM_POOL);
	struct ddsm_actions acts;

	sim_enable_rejoin(s);
	sim_store(s, 1, 0, 7);
	ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
	KUNIT_ASSERT_EQ(test, 0, ddsm_cache_evict(&s->n[1].cache, 0, &acts));
	run_actions(s, 1, &acts, 0);
	KUNIT_EXPECT_TRUE(test, sim_deliver(s, 1, 0));	/* home keeps 7 */
	sim_cut(s, 0, 1);				/* EVICT_ACK lost */
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_MO, sim_line(s, 1, 0)->state);
	KUNIT_EXPECT_EQ(test, (u8)0, dentry(s, 0)->lost);

	sim_store(s, 2, 0, 9);
	sim_peer_up(s, 0, 1);
	sim_peer_up(s, 1, 0);
	sim_run(s);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, sim_line(s, 1, 0)->state);
	KUNIT_EXPECT_EQ(test, 0ULL, s->n[0].dir.stats.restored);
	KUNIT_EXPECT_EQ(test, 9ULL, sim_load(s, 1, 0));
	KUNIT_EXPECT_EQ(test, 9ULL, sim_load(s, 0, 0));
	check_invariants(s);
	sim_settled(s);
	check_quiescent(s);
}

/* Without rejoin_ms the old semantics hold: dropped at once, EIO. */
static void rejoin_off_loses_at_once(struct kunit *test)
{
	struct sim *s = sim_new(test, 3, 3, SIM_POOL);

	sim_store(s, 1, 0, 7);
	sim_cut(s, 0, 1);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, sim_line(s, 1, 0)->state);
	KUNIT_EXPECT_EQ(test, 1U, s->n[1].frees[0]);
	KUNIT_EXPECT_EQ(test, (u8)0, dentry(s, 0)->lost_from);
	sim_expect_fail(s, 2, 0, false, EIO);
	sim_settled(s);
}

static struct kunit_case rejoin_cases[] = {
	KUNIT_CASE(rejoin_owner_brings_unit_back),
	KUNIT_CASE(rejoin_window_closed_unit_stays_lost),
	KUNIT_CASE(rejoin_late_copy_not_taken),
	KUNIT_CASE(rejoin_stale_copy_never_written_back),
	KUNIT_CASE(rejoin_off_loses_at_once),
	{}
};

static struct kunit_suite rejoin_suite = {
	.name = "ddsm_rejoin",
	.test_cases = rejoin_cases,
};

kunit_test_suite(rejoin_suite);

MODULE_LICENSE("GPL");
