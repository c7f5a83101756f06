// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the RDMA transport's credit rules (kernel/net/rdma_credit.h).
 *
 * Two simulated peers each have a backlog of protocol messages for the
 * other; messages in flight carry the credits their sender returned.  A
 * random scheduler interleaves sends, deliveries and heartbeat ticks.  The
 * rules must deliver every backlog, keep the credit books balanced, and
 * never spend credits that do not exist.  The rules ddsm used before
 * (credit returns and heartbeats queued behind protocol messages, a credit
 * return only on an empty queue) wedge on a schedule found in a loaded
 * cluster; the first case shows that, so it keeps the old bug visible.
 */
#include <kunit/test.h>
#include "../../kernel/net/rdma_credit.h"

#define SIM_FLIGHT	(2 * RDMA_RX_DEPTH)
#define SIM_QUEUE	512

struct sim_side {
	u32 credits, owed;
	u32 backlog;			/* protocol messages still to send */
	u32 delivered;			/* protocol messages it received */
	u8 queue[SIM_QUEUE];		/* legacy rules: one FIFO, 0 = msg */
	u32 qhead, qlen;
};

struct sim_flight {
	u32 credits[SIM_FLIGHT];	/* what each message in flight returns */
	bool msg[SIM_FLIGHT];
	u32 head, n;
};

struct sim {
	struct kunit *test;
	bool legacy;
	struct sim_side side[2];
	struct sim_flight to[2];	/* to[i]: in flight towards side i */
	u32 rnd;
};

static u32 sim_rand(struct sim *s)
{
	s->rnd ^= s->rnd << 13;
	s->rnd ^= s->rnd >> 17;
	s->rnd ^= s->rnd << 5;
	return s->rnd;
}

static void post(struct sim *s, int from, bool msg)
{
	struct sim_side *me = &s->side[from];
	struct sim_flight *f = &s->to[!from];

	KUNIT_ASSERT_GT(s->test, me->credits, 0U);
	KUNIT_ASSERT_LT(s->test, f->n, (u32)SIM_FLIGHT);
	f->credits[(f->head + f->n) % SIM_FLIGHT] = me->owed;
	f->msg[(f->head + f->n) % SIM_FLIGHT] = msg;
	f->n++;
	me->credits--;
	me->owed = 0;
	if (msg)
		me->backlog--;
}

/* Today's kick_tx: a control message if due, then the backlog in order. */
static void kick_new(struct sim *s, int i, bool idle)
{
	struct sim_side *me = &s->side[i];

	if (!(me->backlog && rdma_credit_may_send_msg(me->credits)) &&
	    rdma_credit_want_ctrl(me->owed, idle) &&
	    rdma_credit_may_send_ctrl(me->credits, me->owed))
		post(s, i, false);
	while (me->backlog && rdma_credit_may_send_msg(me->credits))
		post(s, i, true);
}

/* The rules before: one FIFO, stop at the first item not affordable. */
static void kick_legacy(struct sim *s, int i)
{
	struct sim_side *me = &s->side[i];

	while (me->qlen) {
		bool msg = !me->queue[me->qhead];
		u32 need = msg ? RDMA_CREDIT_RESERVE + 1 : 1;

		if (me->credits < need)
			break;
		me->qhead = (me->qhead + 1) % SIM_QUEUE;
		me->qlen--;
		post(s, i, msg);
	}
}

static void legacy_queue(struct sim_side *me, u8 type)
{
	if (me->qlen < SIM_QUEUE) {
		me->queue[(me->qhead + me->qlen) % SIM_QUEUE] = type;
		me->qlen++;
	}
}

static void kick(struct sim *s, int i, bool idle)
{
	struct sim_side *me = &s->side[i];

	if (!s->legacy) {
		kick_new(s, i, idle);
		return;
	}
	if (idle)
		legacy_queue(me, 1);	/* heartbeat, behind the rest */
	kick_legacy(s, i);
}

static void deliver(struct sim *s, int to)
{
	struct sim_flight *f = &s->to[to];
	struct sim_side *me = &s->side[to];
	bool msg = f->msg[f->head];

	me->credits += f->credits[f->head];
	KUNIT_EXPECT_LE(s->test, me->credits, (u32)RDMA_RX_DEPTH);
	f->head = (f->head + 1) % SIM_FLIGHT;
	f->n--;
	if (msg)
		me->delivered++;
	me->owed++;			/* the receive is reposted */
	if (s->legacy) {
		if (me->owed >= RDMA_CREDIT_RETURN && !me->qlen)
			legacy_queue(me, 1);
		kick_legacy(s, to);
	} else {
		kick(s, to, false);
	}
}

static u32 carried(struct sim_flight *f)
{
	u32 k, sum = 0;

	for (k = 0; k < f->n; k++)
		sum += f->credits[(f->head + k) % SIM_FLIGHT];
	return sum;
}

/*
 * Each of side i's sends is backed by one of side !i's receives, which is
 * a credit of i, held by a message in flight to !i, owed by !i, or on
 * its way back inside a message to i.
 */
static bool check_books(struct sim *s)
{
	int i;
	bool ok = true;

	for (i = 0; i < 2; i++) {
		u32 sum = s->side[i].credits + s->to[!i].n +
			  s->side[!i].owed + carried(&s->to[i]);

		KUNIT_EXPECT_EQ(s->test, sum, (u32)RDMA_RX_DEPTH);
		ok &= sum == RDMA_RX_DEPTH;
	}
	return ok;
}

static void sim_init(struct sim *s, struct kunit *test, bool legacy,
		     u32 backlog, u32 seed)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->test = test;
	s->legacy = legacy;
	s->rnd = seed ?: 1;
	for (i = 0; i < 2; i++) {
		s->side[i].credits = RDMA_RX_DEPTH;
		s->side[i].backlog = backlog;
		if (legacy) {
			u32 k;

			for (k = 0; k < backlog && k < SIM_QUEUE; k++)
				legacy_queue(&s->side[i], 0);
		}
	}
}

static bool sim_done(struct sim *s, u32 backlog)
{
	return s->side[0].delivered == backlog &&
	       s->side[1].delivered == backlog;
}

/*
 * Both sides burst until their credits allow no more, then everything in
 * flight lands: the schedule a loaded cluster produced.  Then only ticks.
 */
static bool burst_then_tick(struct sim *s, u32 backlog, u32 ticks)
{
	u32 t;

	kick(s, 0, false);
	kick(s, 1, false);
	while (s->to[0].n || s->to[1].n) {
		if (s->to[1].n)
			deliver(s, 1);
		if (s->to[0].n)
			deliver(s, 0);
	}
	for (t = 0; t < ticks && !sim_done(s, backlog); t++) {
		kick(s, 0, true);
		kick(s, 1, true);
		while (s->to[0].n || s->to[1].n) {
			if (s->to[1].n)
				deliver(s, 1);
			if (s->to[0].n)
				deliver(s, 0);
		}
	}
	return sim_done(s, backlog);
}

static void credit_old_rules_wedge(struct kunit *test)
{
	struct sim *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	sim_init(s, test, true, 200, 1);
	/* Each side is left with the reserve, owes 30, and waits for ever. */
	KUNIT_EXPECT_FALSE(test, burst_then_tick(s, 200, 1000));
	KUNIT_EXPECT_EQ(test, s->side[0].credits, (u32)RDMA_CREDIT_RESERVE);
	KUNIT_EXPECT_GE(test, s->side[0].owed, (u32)RDMA_CREDIT_RETURN);
}

static void credit_rules_burst(struct kunit *test)
{
	struct sim *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	sim_init(s, test, false, 200, 1);
	KUNIT_EXPECT_TRUE(test, burst_then_tick(s, 200, 1000));
	check_books(s);
}

/* Random interleavings: every backlog is delivered, the books balance. */
static void credit_rules_never_wedge(struct kunit *test)
{
	struct sim *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	const u32 backlog = 300;
	u32 seed;

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (seed = 1; seed <= 200; seed++) {
		u32 steps;

		sim_init(s, test, false, backlog, seed * 2654435761u);
		for (steps = 0; steps < 200000 && !sim_done(s, backlog);
		     steps++) {
			u32 r = sim_rand(s) % 16;

			if (r < 6 && s->to[0].n)
				deliver(s, 0);
			else if (r < 12 && s->to[1].n)
				deliver(s, 1);
			else if (r < 14)
				kick(s, r & 1, false);
			else
				kick(s, r & 1, true);	/* a heartbeat tick */
			if (!check_books(s))
				return;
		}
		KUNIT_EXPECT_TRUE_MSG(test, sim_done(s, backlog),
				      "seed %u: %u/%u delivered after %u steps",
				      seed, s->side[0].delivered,
				      s->side[1].delivered, steps);
		if (!sim_done(s, backlog))
			return;
	}
}

/* The last credit only ever returns credits; the reserve is respected. */
static void credit_rules_edges(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, rdma_credit_may_send_msg(RDMA_CREDIT_RESERVE));
	KUNIT_EXPECT_TRUE(test,
			  rdma_credit_may_send_msg(RDMA_CREDIT_RESERVE + 1));
	KUNIT_EXPECT_FALSE(test, rdma_credit_may_send_ctrl(0, 5));
	KUNIT_EXPECT_FALSE(test, rdma_credit_may_send_ctrl(1, 0));
	KUNIT_EXPECT_TRUE(test, rdma_credit_may_send_ctrl(1, 1));
	KUNIT_EXPECT_TRUE(test, rdma_credit_may_send_ctrl(2, 0));
	KUNIT_EXPECT_FALSE(test, rdma_credit_want_ctrl(RDMA_CREDIT_RETURN - 1,
						       false));
	KUNIT_EXPECT_TRUE(test, rdma_credit_want_ctrl(RDMA_CREDIT_RETURN,
						      false));
	KUNIT_EXPECT_TRUE(test, rdma_credit_want_ctrl(0, true));
	/* A credit return must be possible before the reserve is all gone. */
	KUNIT_EXPECT_LE(test, RDMA_CREDIT_RETURN,
			RDMA_RX_DEPTH - RDMA_CREDIT_RESERVE);
}

static struct kunit_case credit_cases[] = {
	KUNIT_CASE(credit_old_rules_wedge),
	KUNIT_CASE(credit_rules_burst),
	KUNIT_CASE(credit_rules_never_wedge),
	KUNIT_CASE(credit_rules_edges),
	{}
};

static struct kunit_suite credit_suite = {
	.name = "ddsm_credit",
	.test_cases = credit_cases,
};

kunit_test_suite(credit_suite);
