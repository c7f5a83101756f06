// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a backup home takes a dead home's units over (nr_backups = 1,
 * kernel/core/replica.c).  The protocol part, in a simulated cluster:
 * node 1 (units 1 and 4) dies with dirty copies of its units at the
 * survivors; its backup, node 2, loads its replica images into home
 * memory, moves its own dirty copy in, holds the units (EAGAIN), and the
 * other survivor hands its dirty copy over with an EVICT_MODIFIED that the
 * held entry takes from any node.  Once released, every node reads the
 * newest data: a dirty copy where there was one, else the replica image.
 */
#include "proto_sim.h"

#define VICTIM	1U
#define BACKUP	2U
#define OTHER	0U

/* Every node with a backup home: local arrays sized for own + pred. */
static struct sim *sim_backups(struct kunit *test)
{
	struct sim *s = sim_new(test, 3, 6, SIM_POOL);
	u32 i;

	for (i = 0; i < s->nodes; i++) {
		struct sim_node *n = &s->n[i];

		n->space.nr_backups = 1;
		memset(n->entries, 0, sizeof(n->entries));
		KUNIT_ASSERT_LE(test, ddsm_space_local_units(&n->space),
				(u64)SIM_UNITS);
		ddsm_dir_init(&n->dir, &n->space, n->entries,
			      ddsm_space_local_units(&n->space), n->pool,
			      SIM_POOL);
	}
	sim_enable_rejoin(s);
	return s;
}

/* What replica.c's takeover does at @b for the units placed on @dead. */
static void sim_takeover(struct sim *s, u32 b, u32 dead, const u64 *replica)
{
	struct sim_node *n = &s->n[b];
	u64 u;

	for (u = 0; u < s->units; u++) {
		struct ddsm_cline *l = &n->lines[u];

		if (ddsm_unit_placed(&n->space, u) != dead)
			continue;
		/* Our own dirty copy is newer than the replica image. */
		if (l->state != DDSM_C_MO)
			n->frame[u] = replica[u];
		l->state = DDSM_C_I;
		ddsm_dir_hold(&n->dir, u);
	}
	n->space.failover |= BIT_ULL(dead);
}

/* A survivor's FAILOVER notice: route to @b, hand the dirty copies over. */
static void sim_notice(struct sim *s, u32 node, u32 dead)
{
	struct sim_node *n = &s->n[node];
	struct ddsm_actions acts;
	u64 u;

	n->space.failover |= BIT_ULL(dead);
	for (u = 0; u < s->units; u++) {
		if (ddsm_unit_placed(&n->space, u) != dead)
			continue;
		ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
		ddsm_cache_rejoin(&n->cache, u, &acts);
		run_actions(s, node, &acts, 0);
	}
}

static void sim_release(struct sim *s, u32 b, u32 dead)
{
	u64 u;

	for (u = 0; u < s->units; u++)
		if (ddsm_unit_placed(&s->n[b].space, u) == dead)
			ddsm_dir_release_hold(&s->n[b].dir, u);
}

static void failover_serves_newest(struct kunit *test)
{
	struct sim *s = sim_backups(test);
	u64 replica[6] = { 0, 10, 0, 0, 40, 0 };
	u32 i;

	/* Dirty copies of the victim's units at both survivors. */
	sim_store(s, OTHER, 1, 11);
	sim_store(s, BACKUP, 4, 44);
	/* Clean copies elsewhere, and a unit of another home. */
	sim_store(s, OTHER, 0, 5);
	KUNIT_EXPECT_EQ(test, 5ULL, sim_load(s, BACKUP, 0));

	sim_kill(s, VICTIM);
	sim_detect(s, OTHER, VICTIM);
	sim_detect(s, BACKUP, VICTIM);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_MO, cstate(s, OTHER, 1));
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_MO, cstate(s, BACKUP, 4));

	sim_takeover(s, BACKUP, VICTIM, replica);
	KUNIT_EXPECT_EQ(test, BACKUP, ddsm_unit_home(&s->n[BACKUP].space, 1));
	KUNIT_EXPECT_EQ(test, 0U, ddsm_unit_home(&s->n[BACKUP].space, 0));
	/* Held: the backup itself is told to ask again. */
	sim_expect_fail(s, BACKUP, 1, false, EAGAIN);

	/* The other survivor hears of it and hands its copy over. */
	sim_notice(s, OTHER, VICTIM);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_MI_A, cstate(s, OTHER, 1));
	sim_run(s);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, cstate(s, OTHER, 1));
	KUNIT_EXPECT_EQ(test, 11ULL, s->n[BACKUP].frame[1]);
	KUNIT_EXPECT_EQ(test, 1ULL, s->n[BACKUP].dir.stats.restored);
	/* Unit 4 (the backup's own copy moved in) still waits for release. */
	sim_expect_fail(s, OTHER, 4, false, EAGAIN);

	sim_release(s, BACKUP, VICTIM);
	KUNIT_EXPECT_EQ(test, 11ULL, sim_load(s, OTHER, 1));
	KUNIT_EXPECT_EQ(test, 11ULL, sim_load(s, BACKUP, 1));
	KUNIT_EXPECT_EQ(test, 44ULL, sim_load(s, OTHER, 4));
	sim_store(s, OTHER, 4, 45);
	KUNIT_EXPECT_EQ(test, 45ULL, sim_load(s, BACKUP, 4));
	KUNIT_EXPECT_EQ(test, 5ULL, sim_load(s, OTHER, 0));
	check_invariants(s);
	sim_settled(s);
	for (i = 0; i < s->nodes; i++)
		KUNIT_EXPECT_EQ(test, 0, s->n[i].errors);
}

/* No dirty copy anywhere: the replica image is what the units hold. */
static void failover_replica_image(struct kunit *test)
{
	struct sim *s = sim_backups(test);
	u64 replica[6] = { 0, 10, 0, 0, 40, 0 };

	sim_store(s, OTHER, 1, 10);
	KUNIT_EXPECT_EQ(test, 10ULL, sim_load(s, VICTIM, 1));	/* back home */
	sim_kill(s, VICTIM);
	sim_detect(s, OTHER, VICTIM);
	sim_detect(s, BACKUP, VICTIM);
	sim_takeover(s, BACKUP, VICTIM, replica);
	sim_notice(s, OTHER, VICTIM);
	sim_run(s);
	KUNIT_EXPECT_EQ(test, 0ULL, s->n[BACKUP].dir.stats.restored);
	sim_release(s, BACKUP, VICTIM);
	KUNIT_EXPECT_EQ(test, 10ULL, sim_load(s, OTHER, 1));
	KUNIT_EXPECT_EQ(test, 40ULL, sim_load(s, BACKUP, 4));
	sim_settled(s);
}

/*
 * A miss that reaches the node a unit is placed on after its backup took
 * it over (a requester that did not know yet) passes the validator there
 * and is refused with EAGAIN by the caller (core/rx.c), so it is asked
 * again at the new home; other messages for it are still dropped.
 */
static void failover_old_home_miss_valid(struct kunit *test)
{
	struct ddsm_space sp;
	struct ddsm_wire_msg w;
	struct ddsm_msg m = {
		.type = DDSM_MSG_READ_MISS, .src = 0, .dst = 1, .requester = 0,
		.seq = 3, .unit = 4,
	}, out;

	KUNIT_ASSERT_EQ(test, 0, ddsm_space_init(&sp, 6 * 4096ULL, 3, 1,
						 DDSM_HOME_INTERLEAVE));
	sp.nr_backups = 1;
	sp.failover = BIT_ULL(1);
	ddsm_msg_encode(&m, &w);
	KUNIT_EXPECT_EQ(test, DDSM_MSG_OK,
			ddsm_msg_decode(&sp, 0, &w, sizeof(w), &out));
	KUNIT_EXPECT_NE(test, ddsm_unit_home(&sp, 4), 1U);
	m.type = DDSM_MSG_UNLOCK;
	ddsm_msg_encode(&m, &w);
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE,
			ddsm_msg_decode(&sp, 0, &w, sizeof(w), &out));
	sp.nr_backups = 0;
	m.type = DDSM_MSG_READ_MISS;
	ddsm_msg_encode(&m, &w);
	KUNIT_EXPECT_EQ(test, DDSM_MSG_BAD_NODE,
			ddsm_msg_decode(&sp, 0, &w, sizeof(w), &out));
}

static struct kunit_case failover_cases[] = {
	KUNIT_CASE(failover_serves_newest),
	KUNIT_CASE(failover_replica_image),
	KUNIT_CASE(failover_old_home_miss_valid),
	{}
};

static struct kunit_suite failover_suite = {
	.name = "ddsm_failover",
	.test_cases = failover_cases,
};

kunit_test_suite(failover_suite);

MODULE_LICENSE("GPL");
