// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: what the persistency models ask of the directory (kernel/proto/
 * dir.h, DDSM_DIR_P_*).  Read-Enforced and Synchronous units (WB | GATE)
 * reach another node only once the version is on the home's pmem; Strict
 * units (WB) have every transfer write the data back home; the default
 * (0) is the plain protocol.  The simulated home persists its frame when
 * it carries out DDSM_ACT_SEND_DURABLE, as kernel/core/barrier.c does
 * before it sends.
 */
#include "proto_sim.h"

#define P_GATED	(DDSM_DIR_P_WB | DDSM_DIR_P_GATE)

static struct sim *persist_sim(struct kunit *test, u8 flags)
{
	struct sim *s = sim_new(test, 3, 3, SIM_POOL);
	u64 u;

	for (u = 0; u < s->units; u++)
		ddsm_dir_set_persist(&s->n[home(s, u)].dir, u, flags);
	return s;
}

/*
 * MINOS's read rule: no node but the last writer may read a version that
 * is not durable.
 */
static void check_gate(struct sim *s, u64 unit, u32 writer)
{
	u32 i;

	for (i = 0; i < s->nodes; i++) {
		u8 st = cstate(s, i, unit);

		if (i == writer || (st != DDSM_C_S && st != DDSM_C_M))
			continue;
		KUNIT_EXPECT_EQ_MSG(s->test, s->durable[unit], s->truth[unit],
				    "node %u reads unit %llu (%s) before it is durable",
				    i, unit, ddsm_cstate_name(st));
	}
}

/* Deliver one message at a time, checking the gate after each. */
static void run_gated(struct sim *s, u64 unit, u32 writer)
{
	bool any;
	u32 i, j, n = 0;

	do {
		any = false;
		for (i = 0; i < s->nodes; i++)
			for (j = 0; j < s->nodes; j++)
				if (sim_deliver(s, i, j)) {
					any = true;
					check_gate(s, unit, writer);
					n++;
				}
		KUNIT_ASSERT_LT(s->test, n, 10000U);
	} while (any);
}

static void gated_access(struct sim *s, u32 node, u64 unit, bool write,
			 u32 writer)
{
	int tries;

	for (tries = 0; tries < 10; tries++) {
		enum ddsm_fault_result r = sim_fault(s, node, unit, write);

		check_gate(s, unit, writer);
		if (r == DDSM_FAULT_MAP_RW || (!write && r == DDSM_FAULT_MAP_RO))
			return;
		run_gated(s, unit, writer);
	}
	KUNIT_FAIL(s->test, "node %u never got unit %llu", node, unit);
}

/* Unit 0 is homed on node 0; node 1 writes it, node 2 reads it. */
static void persist_gate_read_from_owner(struct kunit *test)
{
	struct sim *s = persist_sim(test, P_GATED);

	sim_store(s, 1, 0, 99);
	KUNIT_EXPECT_EQ(test, 0ULL, s->durable[0]);
	gated_access(s, 2, 0, false, 1);
	KUNIT_EXPECT_EQ(test, 99ULL, s->n[2].frame[0]);
	KUNIT_EXPECT_EQ(test, 99ULL, s->durable[0]);
	KUNIT_EXPECT_EQ(test, 1U, s->sent[DDSM_MSG_FETCH]);
	KUNIT_EXPECT_EQ(test, 1U, s->sent[DDSM_MSG_WRITEBACK]);
	KUNIT_EXPECT_GE(test, s->n[0].dir.stats.durable_grants, 2ULL);
	check_quiescent(s);
}

/* A write miss takes the unit from its owner: the data goes home too. */
static void persist_gate_write_from_owner(struct kunit *test)
{
	struct sim *s = persist_sim(test, P_GATED);

	sim_store(s, 1, 0, 5);
	gated_access(s, 2, 0, true, 1);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_M, cstate(s, 2, 0));
	KUNIT_EXPECT_EQ(test, 1U, s->sent[DDSM_MSG_FETCH_INV]);
	KUNIT_EXPECT_EQ(test, 1U, s->sent[DDSM_MSG_WRITEBACK]);
	KUNIT_EXPECT_EQ(test, 5ULL, s->durable[0]);
	KUNIT_EXPECT_EQ(test, 5ULL, s->n[0].frame[0]);
	s->n[2].frame[0] = 6;
	s->truth[0] = 6;
	/* And back: node 1 gets 6 only once 6 is durable. */
	gated_access(s, 1, 0, false, 2);
	KUNIT_EXPECT_EQ(test, 6ULL, s->n[1].frame[0]);
	KUNIT_EXPECT_EQ(test, 6ULL, s->durable[0]);
	check_quiescent(s);
}

/* The home itself reads and then writes a unit another node wrote. */
static void persist_gate_home_is_requester(struct kunit *test)
{
	struct sim *s = persist_sim(test, P_GATED);

	sim_store(s, 1, 0, 11);
	gated_access(s, 0, 0, false, 1);
	KUNIT_EXPECT_EQ(test, 11ULL, s->n[0].frame[0]);
	KUNIT_EXPECT_EQ(test, 11ULL, s->durable[0]);
	sim_store(s, 1, 0, 12);
	gated_access(s, 0, 0, true, 1);
	KUNIT_EXPECT_EQ(test, 12ULL, s->durable[0]);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_M, cstate(s, 0, 0));
	check_quiescent(s);
}

/* A dirty eviction leaves home memory newer than pmem: a read persists it. */
static void persist_gate_read_from_home(struct kunit *test)
{
	struct sim *s = persist_sim(test, P_GATED);
	struct ddsm_actions acts;

	sim_store(s, 1, 0, 7);
	ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
	KUNIT_ASSERT_EQ(test, 0,
			ddsm_cache_evict(&s->n[1].cache, 0, &acts));
	run_actions(s, 1, &acts, 0);
	sim_run(s);
	KUNIT_EXPECT_EQ(test, 7ULL, s->n[0].frame[0]);
	KUNIT_EXPECT_EQ(test, 0ULL, s->durable[0]);
	gated_access(s, 2, 0, false, 1);
	KUNIT_EXPECT_EQ(test, 7ULL, s->n[2].frame[0]);
	KUNIT_EXPECT_EQ(test, 7ULL, s->durable[0]);
	check_quiescent(s);
}

/* Strict: every transfer writes back, but grants do not wait. */
static void persist_strict_writes_back(struct kunit *test)
{
	struct sim *s = persist_sim(test, DDSM_DIR_P_WB);

	sim_store(s, 1, 0, 5);
	sim_store(s, 2, 0, 6);
	KUNIT_EXPECT_EQ(test, 1U, s->sent[DDSM_MSG_WRITEBACK]);
	KUNIT_EXPECT_EQ(test, 5ULL, s->n[0].frame[0]);
	KUNIT_EXPECT_EQ(test, 0U, s->persists);
	KUNIT_EXPECT_EQ(test, 0ULL, s->n[0].dir.stats.durable_grants);
	check_quiescent(s);
}

/* Eventual and Scope: the plain protocol, no writeback on FETCH_INV. */
static void persist_default_is_plain(struct kunit *test)
{
	struct sim *s = persist_sim(test, 0);

	sim_store(s, 1, 0, 5);
	sim_store(s, 2, 0, 6);
	KUNIT_EXPECT_EQ(test, 0U, s->sent[DDSM_MSG_WRITEBACK]);
	KUNIT_EXPECT_EQ(test, 0U, s->persists);
	check_quiescent(s);
}

/*
 * The owner dies before its writeback: the only copy of the last store
 * died with it, and what it may have sent the requester is not durable,
 * so home refuses the event (EIO: the unit is lost) instead of granting.
 * @delivered: the owner's data reached the requester first.
 */
static void owner_dies(struct kunit *test, bool write, bool delivered)
{
	struct sim *s = persist_sim(test, P_GATED);
	u32 i;

	sim_store(s, 1, 0, 5);
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 2, 0, write));
	KUNIT_ASSERT_TRUE(test, sim_deliver(s, 2, 0));	/* the miss */
	KUNIT_EXPECT_EQ(test, 1U, s->sent[write ? DDSM_MSG_FETCH_INV :
					      DDSM_MSG_FETCH]);
	KUNIT_EXPECT_EQ(test, 1U, (u32)dentry(s, 0)->gdefer);
	if (delivered) {
		KUNIT_ASSERT_TRUE(test, sim_deliver(s, 0, 1));	/* FETCH* */
		KUNIT_ASSERT_TRUE(test, sim_deliver(s, 1, 2));	/* its data */
		KUNIT_EXPECT_TRUE(test, sim_line(s, 2, 0)->have_data);
	}
	sim_kill(s, 1);
	sim_detect(s, 0, 1);
	KUNIT_EXPECT_EQ(test, 0U, (u32)dentry(s, 0)->gdefer);
	KUNIT_EXPECT_EQ(test, 1U, s->sent[DDSM_MSG_NACK]);
	sim_detect(s, 2, 1);
	sim_run(s);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_C_I, cstate(s, 2, 0));
	KUNIT_EXPECT_EQ(test, (u8)EIO, sim_line(s, 2, 0)->err);
	KUNIT_EXPECT_EQ(test, 1U, (u32)dentry(s, 0)->lost);
	KUNIT_EXPECT_EQ(test, 0U, (u32)dentry(s, 0)->wlocked);
	for (i = 0; i < s->nodes; i++)
		KUNIT_EXPECT_EQ(test, s->n[i].errors, 0);
}

static void persist_gate_owner_dies(struct kunit *test)
{
	owner_dies(test, true, false);
}

static void persist_gate_owner_dies_after_data(struct kunit *test)
{
	owner_dies(test, false, true);
	owner_dies(test, true, true);
}

/* The requester dies before its deferred grant: the unit is not lost. */
static void persist_gate_requester_dies(struct kunit *test)
{
	struct sim *s = persist_sim(test, P_GATED);

	sim_store(s, 1, 0, 5);
	KUNIT_EXPECT_EQ(test, DDSM_FAULT_WAIT, sim_fault(s, 2, 0, true));
	KUNIT_ASSERT_TRUE(test, sim_deliver(s, 2, 0));	/* WRITE_MISS */
	sim_kill(s, 2);
	sim_detect(s, 0, 2);
	sim_detect(s, 1, 2);
	sim_run(s);			/* FETCH_INV, then the writeback */
	KUNIT_EXPECT_EQ(test, 0U, (u32)dentry(s, 0)->lost);
	KUNIT_EXPECT_EQ(test, 0U, (u32)dentry(s, 0)->wlocked);
	KUNIT_EXPECT_EQ(test, (u8)DDSM_G_U, dentry(s, 0)->state);
	KUNIT_EXPECT_EQ(test, 5ULL, s->n[0].frame[0]);
	KUNIT_EXPECT_EQ(test, 5ULL, sim_load(s, 1, 0));
}

static struct kunit_case persist_proto_cases[] = {
	KUNIT_CASE(persist_gate_read_from_owner),
	KUNIT_CASE(persist_gate_write_from_owner),
	KUNIT_CASE(persist_gate_read_from_home),
	KUNIT_CASE(persist_gate_home_is_requester),
	KUNIT_CASE(persist_strict_writes_back),
	KUNIT_CASE(persist_default_is_plain),
	KUNIT_CASE(persist_gate_owner_dies),
	KUNIT_CASE(persist_gate_owner_dies_after_data),
	KUNIT_CASE(persist_gate_requester_dies),
	{}
};

static struct kunit_suite persist_proto_suite = {
	.name = "ddsm_persist_proto",
	.test_cases = persist_proto_cases,
};

kunit_test_suite(persist_proto_suite);

MODULE_LICENSE("GPL");
