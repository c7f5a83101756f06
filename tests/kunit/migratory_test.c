// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: migratory sharing (kernel/proto/dir.h).  A unit that nodes read
 * and then write one after another is handed over in M on the read, so
 * the write that follows sends nothing; a copy handed over before its
 * holder wrote it turns that off, and readers share the unit again.
 */
#include "proto_sim.h"

static u32 sent_total(struct sim *s)
{
	u32 t, sum = 0;

	for (t = 0; t < DDSM_MSG_NR; t++)
		sum += s->sent[t];
	return sum;
}

/*
 * Unit 0 (home 0): node 1 writes it, node 2 reads it from node 1 and then
 * writes it, the pattern that marks it migratory.
 */
static struct sim *migrating_unit(struct kunit *test)
{
	struct sim *s = sim_new(test, 3, 3, SIM_POOL);

	sim_store(s, 1, 0, 1);
	KUNIT_EXPECT_EQ(test, 1ULL, sim_load(s, 2, 0));
	sim_store(s, 2, 0, 2);
	KUNIT_EXPECT_EQ(test, 1U, s->sent[DDSM_MSG_WRITE_SHARED]);
	KUNIT_EXPECT_TRUE(test, dentry(s, 0)->migratory);
	return s;
}

static void migratory_read_then_write_is_one_transfer(struct kunit *test)
{
	struct sim *s = migrating_unit(test);
	u32 before;

	KUNIT_EXPECT_EQ(test, 2ULL, sim_load(s, 1, 0));
	KUNIT_EXPECT_EQ(test, 1ULL, s->n[0].dir.stats.excl_reads);
	KUNIT_EXPECT_EQ(test, 1U, s->sent[DDSM_MSG_FETCH_INV]);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_M, cstate(s, 1, 0));
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, cstate(s, 2, 0));
	/* Mapped read-only, so the write that follows is seen ... */
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_MAP_RO, sim_fault(s, 1, 0, false));
	before = sent_total(s);
	sim_store(s, 1, 0, 3);
	/* ... and costs no message. */
	KUNIT_EXPECT_EQ(test, before, sent_total(s));
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_MAP_RW, sim_fault(s, 1, 0, false));

	/* The next reader gets it in M too, with the value written. */
	KUNIT_EXPECT_EQ(test, 3ULL, sim_load(s, 2, 0));
	KUNIT_EXPECT_EQ(test, 2ULL, s->n[0].dir.stats.excl_reads);
	KUNIT_EXPECT_EQ(test, 1U, s->sent[DDSM_MSG_WRITE_SHARED]);
	KUNIT_EXPECT_TRUE(test, dentry(s, 0)->migratory);
	check_invariants(s);
	check_quiescent(s);
}

static void migratory_unwritten_copy_turns_it_off(struct kunit *test)
{
	struct sim *s = migrating_unit(test);

	/* Node 1 takes it in M by reading, and only reads. */
	KUNIT_EXPECT_EQ(test, 2ULL, sim_load(s, 1, 0));
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_M, cstate(s, 1, 0));
	/* Node 2 reads too: still exclusive, but the copy came back clean. */
	KUNIT_EXPECT_EQ(test, 2ULL, sim_load(s, 2, 0));
	KUNIT_EXPECT_EQ(test, 2ULL, s->n[0].dir.stats.excl_reads);
	KUNIT_EXPECT_FALSE(test, dentry(s, 0)->migratory);
	/* From now on readers share it. */
	KUNIT_EXPECT_EQ(test, 2ULL, sim_load(s, 1, 0));
	KUNIT_EXPECT_EQ(test, 2ULL, s->n[0].dir.stats.excl_reads);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_S, cstate(s, 1, 0));
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_S, cstate(s, 2, 0));
	KUNIT_EXPECT_EQ(test, 2ULL, s->n[0].frame[0]);
	check_invariants(s);
	check_quiescent(s);
}

static void migratory_not_for_producer_consumer(struct kunit *test)
{
	struct sim *s = sim_new(test, 3, 3, SIM_POOL);

	/* Node 1 writes again after node 2 read: a producer, not a migration. */
	sim_store(s, 1, 0, 1);
	KUNIT_EXPECT_EQ(test, 1ULL, sim_load(s, 2, 0));
	sim_store(s, 1, 0, 2);
	KUNIT_EXPECT_FALSE(test, dentry(s, 0)->migratory);
	/* Nor with a third copy around. */
	KUNIT_EXPECT_EQ(test, 2ULL, sim_load(s, 2, 0));
	KUNIT_EXPECT_EQ(test, 2ULL, sim_load(s, 0, 0));
	sim_store(s, 2, 0, 3);
	KUNIT_EXPECT_FALSE(test, dentry(s, 0)->migratory);
	KUNIT_EXPECT_EQ(test, 3ULL, sim_load(s, 1, 0));
	KUNIT_EXPECT_EQ(test, 0ULL, s->n[0].dir.stats.excl_reads);
	check_invariants(s);
	check_quiescent(s);
}

static void migratory_off_by_parameter(struct kunit *test)
{
	struct sim *s = sim_new(test, 3, 3, SIM_POOL);

	s->n[0].dir.migrate = false;
	sim_store(s, 1, 0, 1);
	KUNIT_EXPECT_EQ(test, 1ULL, sim_load(s, 2, 0));
	sim_store(s, 2, 0, 2);
	KUNIT_EXPECT_EQ(test, 2ULL, sim_load(s, 1, 0));
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_S, cstate(s, 1, 0));
	KUNIT_EXPECT_EQ(test, 0ULL, s->n[0].dir.stats.excl_reads);
	check_quiescent(s);
}

/* The old owner dies before its data reaches the exclusive reader. */
static void migratory_owner_dies_mid_transfer(struct kunit *test)
{
	struct sim *s = migrating_unit(test);

	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 1, 0, false));
	KUNIT_EXPECT_TRUE(test, sim_deliver(s, 1, 0));	/* READ_MISS */
	sim_kill(s, 2);
	sim_detect(s, 0, 2);
	sim_detect(s, 1, 2);
	sim_run(s);
	sim_settled(s);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, cstate(s, 1, 0));
	KUNIT_EXPECT_EQ(test, (u8)EHOSTDOWN, sim_line(s, 1, 0)->err);
	/* Node 2 held the only current copy: lost, as for a write. */
	KUNIT_EXPECT_TRUE(test, dentry(s, 0)->lost);
}

static struct kunit_case migratory_cases[] = {
	KUNIT_CASE(migratory_read_then_write_is_one_transfer),
	KUNIT_CASE(migratory_unwritten_copy_turns_it_off),
	KUNIT_CASE(migratory_not_for_producer_consumer),
	KUNIT_CASE(migratory_off_by_parameter),
	KUNIT_CASE(migratory_owner_dies_mid_transfer),
	{}
};

static struct kunit_suite migratory_suite = {
	.name = "ddsm_migratory",
	.test_cases = migratory_cases,
};

kunit_test_suite(migratory_suite);

MODULE_LICENSE("GPL");
