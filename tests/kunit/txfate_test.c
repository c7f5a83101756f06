// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: what becomes of a commit when something fails in the middle
 * (kernel/proto/txfate.c, and txcoord.c's lost connections).  Whole
 * histories with failures are the model checker's (tools/model/txwire.c).
 */
#include <kunit/test.h>
#include "../../kernel/proto/txfate.h"
#include "../../kernel/proto/txcoord.h"

/* The coordinator remembers each decision of a slot, 64 epochs back. */
static void txfate_memory(struct kunit *test)
{
	struct ddsm_txmem m = { 0 };

	KUNIT_EXPECT_EQ(test, (int)DDSM_TXF_C_NONE, (int)ddsm_txmem_answer(&m, 5, 0));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXF_C_RUNNING, (int)ddsm_txmem_answer(&m, 5, 5));
	ddsm_txmem_note(&m, 5, true);
	ddsm_txmem_note(&m, 6, false);
	/* 7 ended in doubt: never noted. */
	ddsm_txmem_note(&m, 8, true);
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXF_C_COMMITTED, (int)ddsm_txmem_answer(&m, 5, 0));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXF_C_ABORTED, (int)ddsm_txmem_answer(&m, 6, 0));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXF_C_NONE, (int)ddsm_txmem_answer(&m, 7, 0));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXF_C_COMMITTED, (int)ddsm_txmem_answer(&m, 8, 9));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXF_C_RUNNING, (int)ddsm_txmem_answer(&m, 9, 9));
	/* Its doubt settled later: a late note of an older epoch. */
	ddsm_txmem_note(&m, 7, true);
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXF_C_COMMITTED, (int)ddsm_txmem_answer(&m, 7, 0));
	ddsm_txmem_note(&m, 8 + DDSM_TXMEM_SPAN, false);
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXF_C_NONE, (int)ddsm_txmem_answer(&m, 8, 0));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXF_C_ABORTED,
			(int)ddsm_txmem_answer(&m, 8 + DDSM_TXMEM_SPAN, 0));
	/* Epochs wrap: 0xffffffff is before 1. */
	m = (struct ddsm_txmem){ 0 };
	ddsm_txmem_note(&m, 0xffffffff, true);
	ddsm_txmem_note(&m, 1, false);
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXF_C_COMMITTED,
			(int)ddsm_txmem_answer(&m, 0xffffffff, 0));
}

/*
 * Node 1 holds a commit of nodes {0, 1, 2} coordinated by node 0: every
 * participant but itself and the coordinator's node must hold the lock
 * for "forward" without an applied one; one that will never hold it, or
 * the coordinator's abort, is "back".
 */
static void txfate_doubt(struct kunit *test)
{
	struct ddsm_txdoubt d;

	ddsm_txd_start(&d, 0x7, 1, 0);
	KUNIT_EXPECT_EQ(test, 0x5ULL, ddsm_txd_to_ask(&d));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_V_WAIT,
			(int)ddsm_txd_take(&d, 0, DDSM_TXH_O_LOCKED, DDSM_TXF_C_RUNNING));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_V_WAIT,
			(int)ddsm_txd_take(&d, 2, DDSM_TXH_O_UNKNOWN, DDSM_TXF_C_NONE));
	KUNIT_EXPECT_EQ(test, 0x4ULL, ddsm_txd_to_ask(&d));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_V_FORWARD,
			(int)ddsm_txd_take(&d, 2, DDSM_TXH_O_IN_DOUBT, DDSM_TXF_C_NONE));
	KUNIT_EXPECT_EQ(test, 0ULL, ddsm_txd_to_ask(&d));
	/* Decided: later answers change nothing. */
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_V_FORWARD,
			(int)ddsm_txd_take(&d, 0, DDSM_TXH_O_NOT, DDSM_TXF_C_ABORTED));

	ddsm_txd_start(&d, 0x7, 1, 0);
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_V_BACK,
			(int)ddsm_txd_take(&d, 2, DDSM_TXH_O_NOT, DDSM_TXF_C_NONE));
	ddsm_txd_start(&d, 0x7, 1, 0);
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_V_BACK,
			(int)ddsm_txd_take(&d, 0, DDSM_TXH_O_LOCKED, DDSM_TXF_C_ABORTED));
	ddsm_txd_start(&d, 0x7, 1, 0);
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_V_FORWARD,
			(int)ddsm_txd_take(&d, 0, DDSM_TXH_O_NONE, DDSM_TXF_C_COMMITTED));
	ddsm_txd_start(&d, 0x7, 1, 0);
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_V_FORWARD,
			(int)ddsm_txd_take(&d, 2, DDSM_TXH_O_VALIDATED, DDSM_TXF_C_NONE));
	/* A node not asked is not heard. */
	ddsm_txd_start(&d, 0x7, 1, 0);
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_V_WAIT,
			(int)ddsm_txd_take(&d, 3, DDSM_TXH_O_NOT, DDSM_TXF_C_ABORTED));

	/* Only this home and the coordinator's node: every one holds it. */
	ddsm_txd_start(&d, 0x3, 1, 0);
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_V_FORWARD, (int)ddsm_txd_verdict(&d));
	/* A coordinator that homes none of it, one other participant. */
	ddsm_txd_start(&d, 0x6, 1, 0);
	KUNIT_EXPECT_EQ(test, 0x5ULL, ddsm_txd_to_ask(&d));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_V_FORWARD,
			(int)ddsm_txd_take(&d, 2, DDSM_TXH_O_LOCKED, DDSM_TXF_C_NONE));
	/* The coordinator's own part in doubt (it gave up waiting). */
	ddsm_txd_start(&d, 0x3, 0, 0);
	KUNIT_EXPECT_EQ(test, 0x2ULL, ddsm_txd_to_ask(&d));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_V_BACK,
			(int)ddsm_txd_take(&d, 1, DDSM_TXH_O_NOT, DDSM_TXF_C_NONE));

	KUNIT_EXPECT_TRUE(test, ddsm_txf_valid(ddsm_txf_pack(DDSM_TXH_O_NONE,
							     DDSM_TXF_C_RUNNING)));
	KUNIT_EXPECT_FALSE(test, ddsm_txf_valid(0));
	KUNIT_EXPECT_FALSE(test, ddsm_txf_valid(ddsm_txf_pack(DDSM_TXH_O_NR, 0)));
	KUNIT_EXPECT_FALSE(test, ddsm_txf_valid(ddsm_txf_pack(1, DDSM_TXF_C_NR)));
}

/*
 * A connection lost while a transaction runs aborts it; while it commits,
 * the Intend goes again once the home is back, and nothing is decided.
 */
static void txfate_lost(struct kunit *test)
{
	struct ddsm_txc t = { 0 };
	u64 to;

	ddsm_txc_begin(&t, 0, 9, 1);
	ddsm_txc_touch(&t, 1);
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXC_RUNNING, ddsm_txc_lost(&t, 2));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXC_ABORTED, ddsm_txc_lost(&t, 1));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXC_LOST, (int)t.why);

	ddsm_txc_begin(&t, 0, 9, 1);
	ddsm_txc_touch(&t, 0);
	ddsm_txc_touch(&t, 1);
	ddsm_txc_touch(&t, 2);
	KUNIT_EXPECT_EQ(test, 0, ddsm_txc_commit(&t, &to));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXC_COMMITTING,
			ddsm_txc_answer(&t, ddsm_txid_pack(t.id), 0, true));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXC_COMMITTING,
			ddsm_txc_answer(&t, ddsm_txid_pack(t.id), 2, true));
	KUNIT_EXPECT_FALSE(test, ddsm_txc_back(&t, 1));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXC_COMMITTING, ddsm_txc_lost(&t, 1));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXC_COMMITTING, ddsm_txc_lost(&t, 2));
	KUNIT_EXPECT_FALSE(test, ddsm_txc_back(&t, 2));	/* it had answered */
	KUNIT_EXPECT_TRUE(test, ddsm_txc_back(&t, 1));
	KUNIT_EXPECT_FALSE(test, ddsm_txc_back(&t, 1));	/* once per loss */
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXC_COMMITTED,
			ddsm_txc_answer(&t, ddsm_txid_pack(t.id), 1, true));
	/* An incarnation starts its slots anew; the same one goes on. */
	ddsm_txc_begin(&t, 0, 9, 1);
	KUNIT_EXPECT_EQ(test, 3u, t.id.epoch);
	ddsm_txc_begin(&t, 0, 10, 1);
	KUNIT_EXPECT_EQ(test, 1u, t.id.epoch);
	KUNIT_EXPECT_EQ(test, 10, (int)t.id.gen);
}

static struct kunit_case txfate_cases[] = {
	KUNIT_CASE(txfate_memory),
	KUNIT_CASE(txfate_doubt),
	KUNIT_CASE(txfate_lost),
	{}
};

static struct kunit_suite txfate_suite = {
	.name = "ddsm_txfate",
	.test_cases = txfate_cases,
};

kunit_test_suite(txfate_suite);

MODULE_LICENSE("GPL");
