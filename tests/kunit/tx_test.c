// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: HADES's commit protocol in kernel/proto (txhome.c at the homes,
 * txcoord.c at the coordinators).  Directed cases for the partial lock,
 * the paper's gaps G1 (blind writes), G3 (a squash racing the Acks) and
 * G4 (epochs); then random interleavings of transactions over lines
 * homed on two nodes, whose committed history must be serializable: the
 * graph of read-from, write-write and anti-dependencies, taken from the
 * versions each transaction read and wrote, has no cycle.
 */
#include <kunit/test.h>
#include "../../kernel/proto/txhome.h"
#include "../../kernel/proto/txcoord.h"

#define HOMES	2
#define LINES	4		/* line l is homed on l % HOMES */
#define TXS	3
#define OPS	4
#define SLOTS	8

struct world {
	struct ddsm_txh home[HOMES];
	struct ddsm_txh_entry ent[HOMES][SLOTS];
	u32 ver[LINES];			/* committed version of each line */
	int writer[LINES][64];		/* tx that wrote version v, -1: initial */
};

struct tx {
	struct ddsm_txc c;
	u8 nops;
	u8 pc;			/* next op; nops: commit steps follow */
	u8 is_write[OPS];
	u8 line[OPS];
	u32 read_ver[LINES];	/* version read, +1 (0: not read) */
	u8 wrote[LINES];
	u64 asked;		/* homes whose Intend was sent */
	u64 validated;		/* homes validated or aborted at */
	bool done, committed;
};

static u64 rng_state;

static u32 rnd(u32 n)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (u32)((rng_state * 0x2545F4914F6CDD1DULL) >> 33) % n;
}

static void world_init(struct world *w)
{
	u32 h, l, v;

	memset(w, 0, sizeof(*w));
	for (h = 0; h < HOMES; h++)
		ddsm_txh_init(&w->home[h], w->ent[h], SLOTS);
	for (l = 0; l < LINES; l++)
		for (v = 0; v < 64; v++)
			w->writer[l][v] = -1;
}

static u64 id_of(struct tx *t)
{
	return ddsm_txid_pack(t->c.id);
}

static void squash_all(struct tx *txs, u32 n, const u64 *doomed, u32 nd)
{
	u32 i, k;

	for (k = 0; k < nd; k++)
		for (i = 0; i < n; i++)
			if (id_of(&txs[i]) == doomed[k])
				ddsm_txc_squash(&txs[i].c, doomed[k]);
}

/* The lines @t wrote at @home, one range each. */
static u32 written_at(const struct tx *t, u32 home, struct ddsm_tx_range *r)
{
	u32 l, n = 0;

	for (l = home; l < LINES; l += HOMES)
		if (t->wrote[l]) {
			r[n].first = l;
			r[n].last = l;
			n++;
		}
	return n;
}

/* One step of @t; false when it cannot move now. */
static bool step(struct kunit *test, struct world *w, struct tx *txs,
		 u32 n, struct tx *t, u32 me)
{
	struct ddsm_tx_range r[LINES];
	u64 doomed[TXS], to;
	u32 nd, h, l;
	int ret;

	if (t->done)
		return false;
	if (t->c.state == DDSM_TXC_RUNNING && t->pc < t->nops) {
		l = t->line[t->pc];
		h = l % HOMES;
		ddsm_txc_touch(&t->c, h);
		if (t->is_write[t->pc]) {
			t->wrote[l] = 1;	/* buffered at the coordinator */
		} else {
			ret = ddsm_txh_read(&w->home[h], id_of(t), l, l);
			if (ret == -EAGAIN)
				return false;	/* a committer holds it */
			if (ret) {
				KUNIT_EXPECT_EQ(test, ret, -ESTALE);
				ddsm_txc_squash(&t->c, id_of(t));
				return true;
			}
			if (!t->read_ver[l] && !t->wrote[l])
				t->read_ver[l] = w->ver[l] + 1;
		}
		t->pc++;
		return true;
	}
	if (t->c.state == DDSM_TXC_RUNNING) {
		KUNIT_EXPECT_EQ(test, 0, ddsm_txc_commit(&t->c, &to));
		return true;
	}
	if (t->c.state == DDSM_TXC_COMMITTING) {
		for (h = 0; h < HOMES; h++) {
			if (!(t->c.pending & BIT_ULL(h)) || (t->asked & BIT_ULL(h)))
				continue;
			t->asked |= BIT_ULL(h);
			ret = ddsm_txh_intend(&w->home[h], id_of(t), r,
					      written_at(t, h, r), doomed, TXS,
					      &nd);
			KUNIT_EXPECT_LE(test, nd, (u32)TXS);
			squash_all(txs, n, doomed, nd);
			ret = ddsm_txc_answer(&t->c, id_of(t), h, !ret);
			KUNIT_EXPECT_GE(test, ret, 0);
			return true;
		}
		return false;
	}
	/* COMMITTED: validate home by home; ABORTED: abort at each. */
	for (h = 0; h < HOMES; h++) {
		if (!(t->c.involved & BIT_ULL(h)) || (t->validated & BIT_ULL(h)))
			continue;
		t->validated |= BIT_ULL(h);
		if (t->c.state == DDSM_TXC_COMMITTED) {
			for (l = h; l < LINES; l += HOMES)
				if (t->wrote[l] && w->ver[l] < 63)
					w->writer[l][++w->ver[l]] = (int)me;
			KUNIT_EXPECT_EQ(test, 0,
					ddsm_txh_validate(&w->home[h], id_of(t)));
		} else {
			ddsm_txh_abort(&w->home[h], id_of(t));
		}
		return true;
	}
	t->done = true;
	t->committed = t->c.state == DDSM_TXC_COMMITTED;
	return true;
}

/* Depth-first search for a cycle in the dependency graph. */
static bool cyclic(const u8 (*edge)[TXS], u32 n)
{
	u8 mark[TXS] = { 0 };
	u32 stack[TXS * TXS], next[TXS * TXS], sp = 0, s, v, u;

	for (s = 0; s < n; s++) {
		if (mark[s])
			continue;
		stack[sp] = s;
		next[sp++] = 0;
		mark[s] = 1;
		while (sp) {
			v = stack[sp - 1];
			u = next[sp - 1]++;
			if (u >= n) {
				mark[v] = 2;
				sp--;
				continue;
			}
			if (!edge[v][u])
				continue;
			if (mark[u] == 1)
				return true;
			if (!mark[u]) {
				mark[u] = 1;
				stack[sp] = u;
				next[sp++] = 0;
			}
		}
	}
	return false;
}

static bool serializable(const struct world *w, const struct tx *txs, u32 n)
{
	u8 edge[TXS][TXS] = { { 0 } };
	u32 i, l, v;

	for (i = 0; i < n; i++) {
		if (!txs[i].committed)
			continue;
		for (l = 0; l < LINES; l++) {
			if (txs[i].read_ver[l]) {
				int from, to;

				v = txs[i].read_ver[l] - 1;
				from = w->writer[l][v];
				to = v < w->ver[l] ? w->writer[l][v + 1] : -1;
				if (from >= 0 && from != (int)i)
					edge[from][i] = 1;	/* read from */
				if (to >= 0 && to != (int)i)
					edge[i][to] = 1;	/* anti */
			}
		}
	}
	for (l = 0; l < LINES; l++)
		for (v = 1; v < w->ver[l]; v++)
			if (w->writer[l][v] != w->writer[l][v + 1])
				edge[w->writer[l][v]][w->writer[l][v + 1]] = 1;
	return !cyclic(edge, n);
}

static void tx_random_histories_serializable(struct kunit *test)
{
	static struct world w;
	struct tx txs[TXS];
	u32 run, i, k, commits = 0, aborts = 0, bad = 0;

	rng_state = 0x5DEECE66DULL;
	for (run = 0; run < 20000; run++) {
		world_init(&w);
		memset(txs, 0, sizeof(txs));
		for (i = 0; i < TXS; i++) {
			ddsm_txc_begin(&txs[i].c, (u16)i, 0);
			txs[i].nops = (u8)(1 + rnd(OPS));
			for (k = 0; k < txs[i].nops; k++) {
				txs[i].line[k] = (u8)rnd(LINES);
				txs[i].is_write[k] = (u8)rnd(2);
			}
		}
		for (k = 0; k < 1000; k++) {
			u32 busy = 0, start = rnd(TXS);

			for (i = 0; i < TXS; i++)
				busy += !txs[i].done;
			if (!busy)
				break;
			/* A random transaction that can move. */
			for (i = 0; i < TXS; i++)
				if (step(test, &w, txs, TXS,
					 &txs[(start + i) % TXS],
					 (start + i) % TXS))
					break;
			KUNIT_ASSERT_LT(test, i, (u32)TXS);	/* no deadlock */
		}
		for (i = 0; i < TXS; i++) {
			KUNIT_ASSERT_TRUE(test, txs[i].done);
			commits += txs[i].committed;
			aborts += !txs[i].committed;
		}
		if (!serializable(&w, txs, TXS))
			bad++;
		/* Every entry is gone at every home: nothing leaks. */
		for (i = 0; i < HOMES; i++)
			for (k = 0; k < SLOTS; k++)
				KUNIT_EXPECT_EQ(test, (u32)w.ent[i][k].state,
						(u32)DDSM_TXH_FREE);
	}
	kunit_info(test, "20000 histories of 3 transactions: %u commits, %u aborts, %u not serializable\n",
		   commits, aborts, bad);
	KUNIT_EXPECT_EQ(test, bad, 0U);
	KUNIT_EXPECT_GT(test, commits, 20000U);
	KUNIT_EXPECT_GT(test, aborts, 1000U);
}

/* A committer's locked lines refuse readers and other committers. */
static void tx_partial_lock(struct kunit *test)
{
	static struct ddsm_txh_entry ent[SLOTS];
	struct ddsm_txh h;
	struct ddsm_tx_range r = { 8, 9 };
	u64 doomed[2];
	u32 nd;

	ddsm_txh_init(&h, ent, SLOTS);
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_intend(&h, 1, &r, 1, doomed, 2, &nd));
	KUNIT_EXPECT_EQ(test, -EAGAIN, ddsm_txh_read(&h, 2, 9, 9));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_read(&h, 2, 10, 10));
	/* Writing a line the holder wrote: squashed, never waiting. */
	KUNIT_EXPECT_EQ(test, -EBUSY, ddsm_txh_intend(&h, 3, &r, 1, doomed, 2, &nd));
	KUNIT_EXPECT_EQ(test, -ESTALE, ddsm_txh_read(&h, 3, 1, 1));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_validate(&h, 1));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_read(&h, 2, 9, 9));
	KUNIT_EXPECT_EQ(test, -EPROTO, ddsm_txh_validate(&h, 1));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_abort(&h, 3));
	KUNIT_EXPECT_EQ(test, 0, ddsm_txh_abort(&h, 2));
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
	ddsm_txc_begin(&reader, 1, 0);
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

	ddsm_txc_begin(&t, 2, 3);
	old = ddsm_txid_pack(t.id);
	KUNIT_EXPECT_EQ(test, (int)DDSM_TXC_ABORTED, ddsm_txc_abort(&t));
	ddsm_txc_begin(&t, 2, 3);
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
	/* Squashes in a row lead to the pessimistic fallback. */
	for (i = 0; i < DDSM_TXC_SQUASH_LIMIT; i++) {
		ddsm_txc_begin(&t, 2, 3);
		KUNIT_EXPECT_FALSE(test, ddsm_txc_fallback(&t));
		ddsm_txc_touch(&t, 1);
		ddsm_txc_commit(&t, &to);
		ddsm_txc_squash(&t, ddsm_txid_pack(t.id));
	}
	ddsm_txc_begin(&t, 2, 3);
	KUNIT_EXPECT_TRUE(test, ddsm_txc_fallback(&t));
}

static struct kunit_case tx_cases[] = {
	KUNIT_CASE(tx_partial_lock),
	KUNIT_CASE(tx_blind_writes),
	KUNIT_CASE(tx_squash_races_ack),
	KUNIT_CASE(tx_epochs),
	KUNIT_CASE(tx_random_histories_serializable),
	{}
};

static struct kunit_suite tx_suite = {
	.name = "ddsm_hades_tx",
	.test_cases = tx_cases,
};

kunit_test_suite(tx_suite);

MODULE_LICENSE("GPL");
