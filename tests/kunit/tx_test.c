// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: HADES's commit protocol in kernel/proto (txhome.c at the homes,
 * txcoord.c at the coordinators): the partial lock and the paper's gaps G1
 * (blind writes), G3 (a squash racing the Acks) and G4 (epochs).  Whole
 * histories, exhaustively and at random, are the model checker's
 * (tools/model/txexplore.c).
 */
#include <kunit/test.h>
#include "../../kernel/proto/txhome.h"
#include "../../kernel/proto/txcoord.h"

#define SLOTS	8
/* Transaction @s of node 0: slot @s, epoch 1 (one slot runs one at a time). */
#define TX(s)	((u64)(s) << 32 | 1)

/* A committer's locked lines refuse readers and other committers. */
static void tx_partial_lock(struct kunit *test)
{
	static struct ddsm_txh_entry ent[SLOTS];
	struct ddsm_txh h;
	struct ddsm_tx_range r = { 8, 9 };
	u64 doomed[2];
	u32 nd;

	ddsm_txh_init(&h, ent, SLOTS);
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_intend(&h, TX(1), &r, 1, doomed, 2, &nd));
	KUNIT_EXPECT_EQ(test, -EAGAIN, ddsm_txh_read(&h, TX(2), 9, 9));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_read(&h, TX(2), 10, 10));
	/* Writing a line the holder wrote: squashed, never waiting. */
	KUNIT_EXPECT_EQ(test, -EBUSY, ddsm_txh_intend(&h, TX(3), &r, 1, doomed, 2, &nd));
	KUNIT_EXPECT_EQ(test, -ESTALE, ddsm_txh_read(&h, TX(3), 1, 1));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_validate(&h, TX(1)));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_read(&h, TX(2), 9, 9));
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_txh_validate(&h, TX(1)));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_abort(&h, TX(3)));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_abort(&h, TX(2)));
}

/*
 * G1: two blind writers of the same line, neither read it: the second
 * Intend meets the first's lock, so they cannot commit in different
 * orders at different homes.
 */
static void tx_blind_writes(struct kunit *test)
{
	static struct ddsm_txh_entry ent[SLOTS];
	struct ddsm_txh h;
	struct ddsm_tx_range r = { 5, 5 };
	u64 doomed[2];
	u32 nd;

	ddsm_txh_init(&h, ent, SLOTS);
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_intend(&h, 1, &r, 1, doomed, 2, &nd));
	KUNIT_EXPECT_EQ(test, -EBUSY, ddsm_txh_intend(&h, 2, &r, 1, doomed, 2, &nd));
	KUNIT_EXPECT_EQ(test, 0U, nd);
}

/*
 * G3: a committer dooms a reader whose own Intend is on its way; the
 * reader's Intend meets the tombstone and is NACKed, and its
 * coordinator, which got the squash, aborts either way.
 */
static void tx_squash_races_ack(struct kunit *test)
{
	static struct ddsm_txh_entry ent[SLOTS];
	struct ddsm_txh h;
	struct ddsm_tx_range r = { 7, 7 };
	struct ddsm_txc reader = { 0 };
	u64 doomed[2], to, rid;
	u32 nd;

	ddsm_txh_init(&h, ent, SLOTS);
	ddsm_txc_begin(&reader, 1, 1, 0);
	rid = ddsm_txid_pack(reader.id);
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_read(&h, rid, 7, 7));
	ddsm_txc_touch(&reader, 0);
	KUNIT_EXPECT_EQ(test, 0, ddsm_txc_commit(&reader, &to));
	/* The writer's Intend gets here first. */
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_intend(&h, 99, &r, 1, doomed, 2, &nd));
	KUNIT_ASSERT_EQ(test, 1U, nd);
	KUNIT_EXPECT_EQ(test, rid, doomed[0]);
	KUNIT_EXPECT_EQ(test, -ESTALE, ddsm_txh_intend(&h, rid, NULL, 0, doomed, 2, &nd));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXC_ABORTED,
			ddsm_txc_answer(&reader, rid, 0, false));
	/* The squash, late: nothing more to do. */
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXC_ABORTED, ddsm_txc_squash(&reader, rid));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_abort(&h, rid));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_validate(&h, 99));
}

/* G4: a message about a slot's previous transaction matches nothing. */
static void tx_epochs(struct kunit *test)
{
	struct ddsm_txc t = { 0 };
	u64 old, to;
	u32 i;

	ddsm_txc_begin(&t, 2, 1, 3);
	old = ddsm_txid_pack(t.id);
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXC_ABORTED, ddsm_txc_abort(&t));
	ddsm_txc_begin(&t, 2, 1, 3);
	KUNIT_EXPECT_NE(test, old, ddsm_txid_pack(t.id));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXC_RUNNING, ddsm_txc_squash(&t, old));
	ddsm_txc_touch(&t, 4);
	KUNIT_EXPECT_EQ(test, 0, ddsm_txc_commit(&t, &to));
	KUNIT_EXPECT_EQ(test, BIT_ULL(4), to);
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_txc_answer(&t, old, 4, true));
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_txc_answer(&t, ddsm_txid_pack(t.id), 5, true));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXC_COMMITTED,
			ddsm_txc_answer(&t, ddsm_txid_pack(t.id), 4, true));
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_txc_squash(&t, ddsm_txid_pack(t.id)));
	/* Conflict aborts in a row lead to the pessimistic fallback. */
	for (i = 0; i < DDSM_TXC_SQUASH_LIMIT; i++)
		KUNIT_EXPECT_FALSE(test, ddsm_txc_fallback(i));
	KUNIT_EXPECT_TRUE(test, ddsm_txc_fallback(DDSM_TXC_SQUASH_LIMIT));
	KUNIT_EXPECT_TRUE(test, ddsm_txc_fallback(U32_MAX));
}

static u64 txid_at(u32 epoch)
{
	struct ddsm_txid id = { .node = 2, .slot = 1, .epoch = epoch };

	return ddsm_txid_pack(id);
}

/*
 * Coordinator death: what a participant answers a survivor that holds
 * the commit locked, and the survivor's verdict.  An answer must stay
 * true: NOT means this home never applies it, so a late Intend is NACKed.
 */
static void tx_outcome(struct kunit *test)
{
	static struct ddsm_txh_entry ent[SLOTS];
	static struct ddsm_txh_hist hist[4 * 4];
	struct ddsm_txh h;
	struct ddsm_tx_range r = { 8, 8 };
	u64 doomed[2];
	u32 nd;

	ddsm_txh_init(&h, ent, SLOTS);
	ddsm_txh_set_hist(&h, hist, 4, 4);
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_intend(&h, txid_at(5), &r, 1, doomed, 2, &nd));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_O_LOCKED,
			(int)ddsm_txh_outcome(&h, txid_at(5), false));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_O_IN_DOUBT,
			(int)ddsm_txh_outcome(&h, txid_at(5), true));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_validate(&h, txid_at(5)));
	/* Its entry is gone; the history answers. */
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_O_VALIDATED,
			(int)ddsm_txh_outcome(&h, txid_at(5), true));
	/* The slot's next two: 6 aborted here, 7 validated. */
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_intend(&h, txid_at(6), &r, 1, doomed, 2, &nd));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_abort(&h, txid_at(6)));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_intend(&h, txid_at(7), &r, 1, doomed, 2, &nd));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_validate(&h, txid_at(7)));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_O_VALIDATED,
			(int)ddsm_txh_outcome(&h, txid_at(5), false));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_O_NOT,
			(int)ddsm_txh_outcome(&h, txid_at(6), false));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_O_VALIDATED,
			(int)ddsm_txh_outcome(&h, txid_at(7), false));
	/* Not here yet: a tombstone NACKs its Intend, so NOT stays true. */
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_O_NOT,
			(int)ddsm_txh_outcome(&h, txid_at(8), false));
	KUNIT_EXPECT_EQ(test, -ESTALE,
			ddsm_txh_intend(&h, txid_at(8), &r, 1, doomed, 2, &nd));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_abort(&h, txid_at(8)));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_O_NOT,
			(int)ddsm_txh_outcome(&h, txid_at(8), false));
	/*
	 * Its coordinator down here: it may come back and send the Intend
	 * again, so NOT needs the tombstone all the same.
	 */
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_O_NOT,
			(int)ddsm_txh_outcome(&h, txid_at(9), true));
	KUNIT_EXPECT_PTR_NE(test, NULL, ddsm_txh_find(&h, txid_at(9)));
	KUNIT_EXPECT_EQ(test, -ESTALE,
			ddsm_txh_intend(&h, txid_at(9), &r, 1, doomed, 2, &nd));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_abort(&h, txid_at(9)));
	/* A running reader is doomed by the question. */
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_read(&h, txid_at(10), 1, 1));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_O_NOT,
			(int)ddsm_txh_outcome(&h, txid_at(10), false));
	KUNIT_EXPECT_EQ(test, -ESTALE, ddsm_txh_read(&h, txid_at(10), 1, 1));
	/* The slot's next epoch frees that leftover tombstone. */
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_read(&h, txid_at(11), 1, 1));
	KUNIT_EXPECT_PTR_EQ(test, NULL, ddsm_txh_find(&h, txid_at(10)));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_abort(&h, txid_at(11)));
	/* 64 epochs on, epoch 5 is too old to tell: ask again. */
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_intend(&h, txid_at(80), &r, 1, doomed, 2, &nd));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_validate(&h, txid_at(80)));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_O_UNKNOWN,
			(int)ddsm_txh_outcome(&h, txid_at(5), true));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_O_VALIDATED,
			(int)ddsm_txh_outcome(&h, txid_at(80), true));
}

/*
 * An Intend sent again after a connection went down is answered from
 * what the home holds or remembers; a Validation that comes after a
 * verdict applied the commit applies nothing.
 */
static void tx_intend_again(struct kunit *test)
{
	static struct ddsm_txh_entry ent[SLOTS];
	static struct ddsm_txh_hist hist[4 * 4];
	struct ddsm_txh h;
	struct ddsm_tx_range r = { 8, 8 };
	u64 doomed[2];
	u32 nd;

	ddsm_txh_init(&h, ent, SLOTS);
	ddsm_txh_set_hist(&h, hist, 4, 4);
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_intend(&h, txid_at(5), &r, 1, doomed, 2, &nd));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_intend(&h, txid_at(5), &r, 1, doomed, 2, &nd));
	KUNIT_EXPECT_EQ(test, 0u, nd);
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_decide(&h, txid_at(5), true));
	KUNIT_EXPECT_EQ(test, -EALREADY,
			ddsm_txh_intend(&h, txid_at(5), &r, 1, doomed, 2, &nd));
	KUNIT_EXPECT_EQ(test, -EALREADY, ddsm_txh_validate(&h, txid_at(5)));
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_txh_decide(&h, txid_at(5), true));
	/* Rolled back here: its Intend again is refused, a Validation too. */
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_intend(&h, txid_at(6), &r, 1, doomed, 2, &nd));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_decide(&h, txid_at(6), false));
	KUNIT_EXPECT_EQ(test, -ESTALE,
			ddsm_txh_intend(&h, txid_at(6), &r, 1, doomed, 2, &nd));
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_txh_validate(&h, txid_at(6)));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_O_NOT,
			(int)ddsm_txh_outcome(&h, txid_at(6), false));
}

/*
 * A coordinator that restarted (another incarnation in its ids): the
 * home's history keeps the old life's answers beside the new one's, and
 * a new life's transaction frees the old life's leftovers of its slot.
 */
static void tx_incarnation(struct kunit *test)
{
	static struct ddsm_txh_entry ent[SLOTS];
	static struct ddsm_txh_hist hist[4 * 4];
	struct ddsm_txid a = { .node = 2, .gen = 7, .slot = 1, .epoch = 40 };
	struct ddsm_txid b = { .node = 2, .gen = 8, .slot = 1, .epoch = 3 };
	struct ddsm_txh h;
	struct ddsm_tx_range r = { 8, 8 };
	u64 doomed[2];
	u32 nd;

	ddsm_txh_init(&h, ent, SLOTS);
	ddsm_txh_set_hist(&h, hist, 4, 4);
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_intend(&h, ddsm_txid_pack(a), &r, 1, doomed, 2, &nd));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_validate(&h, ddsm_txid_pack(a)));
	a.epoch = 41;
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_read(&h, ddsm_txid_pack(a), 1, 1));
	/* The new life: epoch 3 is not "older" than 40, and 41 is freed. */
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_intend(&h, ddsm_txid_pack(b), &r, 1, doomed, 2, &nd));
	KUNIT_EXPECT_PTR_EQ(test, NULL, ddsm_txh_find(&h, ddsm_txid_pack(a)));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_validate(&h, ddsm_txid_pack(b)));
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_O_VALIDATED,
			(int)ddsm_txh_outcome(&h, ddsm_txid_pack(b), false));
	a.epoch = 40;
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXH_O_VALIDATED,
			(int)ddsm_txh_outcome(&h, ddsm_txid_pack(a), true));
}

/*
 * The pessimistic fallback: a pinned line refuses the others' reads,
 * Intends and pins, while its holder reads it, and commits it even when
 * a committing reader's filter seems to hold it (a false positive).
 */
static void tx_pins(struct kunit *test)
{
	static struct ddsm_txh_entry ent[SLOTS];
	struct ddsm_txh h;
	struct ddsm_tx_range r = { 20, 21 }, other = { 40, 40 };
	u64 doomed[4];
	u32 nd;

	ddsm_txh_init(&h, ent, SLOTS);
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_pin(&h, TX(1), 20, 21));
	KUNIT_EXPECT_EQ(test, -EAGAIN, ddsm_txh_read(&h, TX(2), 21, 21));
	KUNIT_EXPECT_EQ(test, -EAGAIN, ddsm_txh_pin(&h, TX(2), 19, 20));
	KUNIT_EXPECT_EQ(test, -EBUSY, ddsm_txh_intend(&h, TX(3), &r, 1, doomed, 4, &nd));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_read(&h, TX(1), 20, 21));
	/* A committer whose read filter covers line 20 (read it earlier). */
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_read(&h, TX(4), 22, 22));
	ent[3].rd = ent[0].rd;		/* TX(4)'s filter now hits 20 and 21 */
	KUNIT_ASSERT_EQ(test, TX(4), ent[3].txid);
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_intend(&h, TX(4), &other, 1, doomed, 4, &nd));
	/* An optimistic writer would be refused by that filter ... */
	KUNIT_EXPECT_EQ(test, -EBUSY, ddsm_txh_intend(&h, TX(5), &r, 1, doomed, 4, &nd));
	/* ... the pinned one is not: nobody can have read its lines. */
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_intend(&h, TX(1), &r, 1, doomed, 4, &nd));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_validate(&h, TX(1)));
	/* Pinning waits for a committer whose filter may hold the line. */
	KUNIT_EXPECT_EQ(test, -EAGAIN, ddsm_txh_pin(&h, TX(2), 19, 20));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_validate(&h, TX(4)));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_pin(&h, TX(2), 19, 20));
	/* Pins merge; past DDSM_TXH_PINS ranges the caller reads unpinned. */
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_pin(&h, TX(2), 21, 22));
	KUNIT_EXPECT_EQ(test, 1U, (u32)ent[1].nr_pins);
	for (nd = 0; nd < DDSM_TXH_PINS - 1; nd++)
		KUNIT_EXPECT_EQ(test, 0, ddsm_txh_pin(&h, TX(2), 100 + 2 * nd, 100 + 2 * nd));
	KUNIT_EXPECT_EQ(test, -E2BIG, ddsm_txh_pin(&h, TX(2), 300, 300));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_abort(&h, TX(2)));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_read(&h, TX(6), 20, 22));
}

static struct kunit_case tx_cases[] = {
	KUNIT_CASE(tx_partial_lock),
	KUNIT_CASE(tx_blind_writes),
	KUNIT_CASE(tx_squash_races_ack),
	KUNIT_CASE(tx_epochs),
	KUNIT_CASE(tx_outcome),
	KUNIT_CASE(tx_intend_again),
	KUNIT_CASE(tx_incarnation),
	KUNIT_CASE(tx_pins),
	{}
};

static struct kunit_suite tx_suite = {
	.name = "ddsm_hades_tx",
	.test_cases = tx_cases,
};

kunit_test_suite(tx_suite);

MODULE_LICENSE("GPL");
