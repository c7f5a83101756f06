// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a node dies.  The in-test cluster of proto_test.c (per-pair FIFO
 * channels, one u64 "value" per frame, the actions carried out as the
 * module does) plus what a death means for the module:
 *  - the node stops: what it sent to itself and what others sent it is
 *    lost, later sends to it vanish;
 *  - what it sent to a survivor before dying may still be delivered until
 *    that survivor detects the death (sim_detect), which runs exactly
 *    kernel/core/rx.c peer_down() and tears the connection down;
 *  - after that, a survivor's send to it fails, and a fault whose request
 *    cannot be sent fails its event (kernel/core/access.c).
 * Scripted cases; tools/model explores every interleaving of the same.
 */
#include "proto_sim.h"

/*
 * A sharer dies while a writer waits for its INV ACK: its copy died with
 * it, which is as good as the ACK, in whichever order the writer and the
 * home learn of it.
 */
static void death_sharer_dies_writer_completes(struct kunit *test)
{
	int order;

	for (order = 0; order < 2; order++) {
		struct sim *s = sim_new(test, 3, 3, SIM_POOL);	/* unit 0 homed on 0 */
		const struct ddsm_dir_entry *e = dentry(s, 0);

		sim_store(s, 0, 0, 5);
		KUNIT_EXPECT_EQ(test, 5ULL, sim_load(s, 1, 0));
		KUNIT_EXPECT_EQ(test, 5ULL, sim_load(s, 2, 0));
		/* Node 2 upgrades: INV to 0 and 1, the grant names both. */
		KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 2, 0, true));
		KUNIT_EXPECT_TRUE(test, sim_deliver(s, 2, 0));
		KUNIT_EXPECT_TRUE(test, sim_deliver(s, 0, 2));	/* grant */
		KUNIT_EXPECT_TRUE(test, sim_deliver(s, 0, 0));	/* INV to home */
		KUNIT_EXPECT_TRUE(test, sim_deliver(s, 0, 2));	/* home's INV ACK */
		KUNIT_EXPECT_EQ(test, (u8)DDSM_C_SM_AD, sim_line(s, 2, 0)->state);
		KUNIT_EXPECT_EQ(test, BIT_ULL(0) | BIT_ULL(1),
				sim_line(s, 2, 0)->expect);
		sim_kill(s, 1);		/* the INV to node 1 is lost */
		if (order) {
			sim_detect(s, 0, 1);
			KUNIT_EXPECT_EQ(test, (u8)DDSM_C_SM_AD,
					sim_line(s, 2, 0)->state);
			sim_detect(s, 2, 1);
		} else {
			sim_detect(s, 2, 1);
			sim_detect(s, 0, 1);
		}
		sim_run(s);
		KUNIT_EXPECT_EQ(test, (u8)DDSM_C_M, sim_line(s, 2, 0)->state);
		KUNIT_EXPECT_EQ(test, (u8)0, sim_line(s, 2, 0)->err);
		KUNIT_EXPECT_EQ(test, (u8)DDSM_G_M, e->state);
		KUNIT_EXPECT_EQ(test, (u16)2, e->owner);
		KUNIT_EXPECT_EQ(test, BIT_ULL(2), e->copyset);
		KUNIT_EXPECT_EQ(test, (u8)0, e->lost);
		KUNIT_EXPECT_EQ(test, (u8)0, e->wlocked);
		KUNIT_EXPECT_EQ(test, DDSM_FAULT_MAP_RW, sim_fault(s, 2, 0, true));
		sim_store(s, 2, 0, 6);
		KUNIT_EXPECT_EQ(test, 6ULL, sim_load(s, 0, 0));
		sim_settled(s);
	}
}

/*
 * The M owner dies while a reader waits for its FETCH data: the reader
 * fails with EHOSTDOWN, the unit is lost, every later request gets EIO.
 */
static void death_owner_dies_reader_fails(struct kunit *test)
{
	struct sim *s = sim_new(test, 3, 3, SIM_POOL);
	const struct ddsm_dir_entry *e = dentry(s, 0);

	sim_store(s, 1, 0, 7);
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 2, 0, false));
	KUNIT_EXPECT_TRUE(test, sim_deliver(s, 2, 0));	/* FETCH to 1, grant */
	sim_kill(s, 1);
	KUNIT_EXPECT_TRUE(test, sim_deliver(s, 0, 2));	/* grant: wait for 1 */
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_IS_D, sim_line(s, 2, 0)->state);
	KUNIT_EXPECT_EQ(test, 0U, s->n[2].wakes[0]);
	sim_detect(s, 2, 1);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, sim_line(s, 2, 0)->state);
	KUNIT_EXPECT_EQ(test, (u8)EHOSTDOWN, sim_line(s, 2, 0)->err);
	KUNIT_EXPECT_EQ(test, 1U, s->n[2].wakes[0]);
	/* Its UNLOCK still releases home's lock, reporting the failure. */
	KUNIT_EXPECT_EQ(test, 2U, s->sent[DDSM_MSG_UNLOCK]);
	sim_detect(s, 0, 1);
	KUNIT_EXPECT_EQ(test, (u8)1, e->lost);
	KUNIT_EXPECT_EQ(test, 1ULL, s->n[0].dir.stats.lost);
	sim_run(s);				/* the failed reader's UNLOCK */
	KUNIT_EXPECT_EQ(test, (u8)0, e->wlocked);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_G_U, e->state);
	KUNIT_EXPECT_EQ(test, 0ULL, e->copyset);
	/* Home memory is stale: nobody may read it, home included. */
	sim_expect_fail(s, 2, 0, false, EIO);
	sim_expect_fail(s, 2, 0, true, EIO);
	sim_expect_fail(s, 0, 0, false, EIO);
	KUNIT_EXPECT_EQ(test, (u8)1, e->lost);
	sim_settled(s);
}

/*
 * The requester holding the write lock dies.  Home releases the lock; a
 * write may have happened on the dead node, so the unit is lost.
 */
static void death_write_lock_holder_dies(struct kunit *test)
{
	struct sim *s = sim_new(test, 3, 3, SIM_POOL);
	const struct ddsm_dir_entry *e = dentry(s, 0);

	sim_load(s, 2, 0);
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 1, 0, true));
	KUNIT_EXPECT_TRUE(test, sim_deliver(s, 1, 0));	/* INV to 2, grant */
	KUNIT_EXPECT_EQ(test, (u8)1, e->wlocked);
	sim_kill(s, 1);
	sim_detect(s, 0, 1);
	KUNIT_EXPECT_EQ(test, (u8)0, e->wlocked);
	KUNIT_EXPECT_EQ(test, (u8)1, e->lost);
	sim_run(s);				/* node 2 drops its copy */
	sim_detect(s, 2, 1);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, sim_line(s, 2, 0)->state);
	sim_expect_fail(s, 2, 0, false, EIO);
	sim_expect_fail(s, 0, 0, true, EIO);
	sim_settled(s);
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
		struct sim *s = sim_new(test, 3, 3, SIM_POOL);
		const struct ddsm_dir_entry *e = dentry(s, 0);

		sim_store(s, 2, 0, 5);
		KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 1, 0, false));
		KUNIT_EXPECT_TRUE(test, sim_deliver(s, 1, 0));	/* FETCH to 2 */
		sim_kill(s, 1);
		if (order) {
			sim_run(s);	/* writeback in, data to 1 vanishes */
			KUNIT_EXPECT_EQ(test, (u8)1, e->wlocked);
			sim_detect(s, 0, 1);
		} else {
			sim_detect(s, 0, 1);
			/* Still waiting for the writeback. */
			KUNIT_EXPECT_EQ(test, (u8)1, e->wlocked);
			sim_run(s);
		}
		sim_detect(s, 2, 1);
		KUNIT_EXPECT_EQ(test, (u8)0, e->wlocked);
		KUNIT_EXPECT_EQ(test, (u8)0, e->lost);
		KUNIT_EXPECT_EQ(test, (u8)DDSM_G_S, e->state);
		KUNIT_EXPECT_EQ(test, BIT_ULL(2), e->copyset);
		KUNIT_EXPECT_EQ(test, (u8)DDSM_C_S, sim_line(s, 2, 0)->state);
		KUNIT_EXPECT_EQ(test, 5ULL, s->n[0].frame[0]);
		KUNIT_EXPECT_EQ(test, 5ULL, sim_load(s, 0, 0));
		sim_store(s, 0, 0, 8);
		KUNIT_EXPECT_EQ(test, 8ULL, sim_load(s, 2, 0));
		sim_settled(s);
	}
}

/*
 * The home dies: every pending event on its units fails, stable copies of
 * them are dropped, later faults fail at once; other units are untouched.
 */
static void death_home_dies(struct kunit *test)
{
	/* Units 0 and 3 homed on node 0, 1 and 4 on node 1, 2 and 5 on 2. */
	struct sim *s = sim_new(test, 3, 6, SIM_POOL);

	sim_load(s, 1, 0);
	sim_load(s, 2, 0);
	sim_store(s, 2, 3, 4);
	sim_store(s, 1, 2, 9);
	KUNIT_EXPECT_EQ(test, 9ULL, sim_load(s, 2, 2));
	/* In flight when node 0 dies: an upgrade and a read miss. */
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 2, 0, true));
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 1, 3, false));
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_SM_AD, sim_line(s, 2, 0)->state);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_IS_D, sim_line(s, 1, 3)->state);
	sim_kill(s, 0);
	sim_detect(s, 1, 0);
	sim_detect(s, 2, 0);
	/* Pending events fail. */
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, sim_line(s, 2, 0)->state);
	KUNIT_EXPECT_EQ(test, (u8)EHOSTDOWN, sim_line(s, 2, 0)->err);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, sim_line(s, 1, 3)->state);
	KUNIT_EXPECT_EQ(test, (u8)EHOSTDOWN, sim_line(s, 1, 3)->err);
	KUNIT_EXPECT_EQ(test, 1U, s->n[1].wakes[3]);
	/* Stable copies are dropped: S of unit 0, M of unit 3. */
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, sim_line(s, 1, 0)->state);
	KUNIT_EXPECT_EQ(test, 1U, s->n[1].frees[0]);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, sim_line(s, 2, 3)->state);
	KUNIT_EXPECT_EQ(test, 1U, s->n[2].frees[3]);
	/* Units homed elsewhere keep their copies and their data. */
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_S, sim_line(s, 1, 2)->state);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_S, sim_line(s, 2, 2)->state);
	sim_store(s, 2, 2, 10);
	KUNIT_EXPECT_EQ(test, 10ULL, sim_load(s, 1, 2));
	/* A new fault on a unit of the dead home fails without waiting. */
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 1, 0, true));
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, sim_line(s, 1, 0)->state);
	KUNIT_EXPECT_EQ(test, (u8)EHOSTDOWN, sim_line(s, 1, 0)->err);
	sim_run(s);
	sim_settled(s);
}

/* A request the dead node had queued at home is dropped, never granted. */
static void death_queued_request_purged(struct kunit *test)
{
	struct sim *s = sim_new(test, 3, 3, SIM_POOL);
	const struct ddsm_dir_entry *e = dentry(s, 0);

	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 1, 0, true));
	KUNIT_EXPECT_TRUE(test, sim_deliver(s, 1, 0));	/* granted: wlocked */
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 2, 0, false));
	KUNIT_EXPECT_TRUE(test, sim_deliver(s, 2, 0));	/* queued */
	KUNIT_EXPECT_EQ(test, 1U, s->n[0].dir.pool_used);
	KUNIT_EXPECT_NE(test, 0U, e->qhead);
	sim_kill(s, 2);
	sim_detect(s, 0, 2);
	KUNIT_EXPECT_EQ(test, 0U, s->n[0].dir.pool_used);
	KUNIT_EXPECT_EQ(test, 0U, e->qhead);
	KUNIT_EXPECT_EQ(test, 0U, e->qtail);
	sim_detect(s, 1, 2);
	sim_run(s);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_M, sim_line(s, 1, 0)->state);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_G_M, e->state);
	KUNIT_EXPECT_EQ(test, BIT_ULL(1), e->copyset);
	/* Nothing was ever sent towards the dead node. */
	KUNIT_EXPECT_EQ(test, 0U, s->to_dead);
	/* The slot is free again: a new request queues and is granted. */
	sim_store(s, 0, 0, 3);
	KUNIT_EXPECT_EQ(test, 3ULL, sim_load(s, 1, 0));
	sim_settled(s);
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
	struct sim *s = sim_new(test, 3, 3, SIM_POOL);

	sim_load(s, 1, 0);
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 2, 0, true));
	KUNIT_EXPECT_TRUE(test, sim_deliver(s, 2, 0));	/* INV to 1, grant */
	KUNIT_EXPECT_TRUE(test, sim_deliver(s, 0, 1));	/* 1 ACKs to 2 */
	sim_kill(s, 0);
	sim_detect(s, 2, 0);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, sim_line(s, 2, 0)->state);
	KUNIT_EXPECT_EQ(test, (u8)EHOSTDOWN, sim_line(s, 2, 0)->err);
	KUNIT_EXPECT_TRUE(test, sim_deliver(s, 1, 2));	/* the late ACK */
	KUNIT_EXPECT_EQ(test, 0, s->n[2].errors);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, sim_line(s, 2, 0)->state);
	sim_detect(s, 1, 0);
	sim_settled(s);
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
	struct sim *s = sim_new(test, 3, 3, SIM_POOL);
	const struct ddsm_dir_entry *e = dentry(s, 0);

	sim_store(s, 1, 0, 7);
	sim_kill(s, 1);
	sim_detect(s, 2, 1);
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 2, 0, true));
	sim_run(s);		/* grant names 1, which 2 knows is dead */
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, sim_line(s, 2, 0)->state);
	KUNIT_EXPECT_EQ(test, (u8)EHOSTDOWN, sim_line(s, 2, 0)->err);
	sim_detect(s, 0, 1);
	KUNIT_EXPECT_EQ(test, (u8)1, e->lost);
	sim_expect_fail(s, 0, 0, false, EIO);
	sim_expect_fail(s, 2, 0, false, EIO);
	sim_settled(s);
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
