/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An in-test cluster for KUnit: the real kernel/proto directory and cache
 * on every node, per-pair FIFO channels (as RC queue pairs give), frames
 * holding one u64 "value" per unit, and the actions carried out as the
 * module does.  Nodes can die (sim_kill) and be noticed dead by each
 * survivor on its own (sim_detect, what kernel/core/rx.c peer_down does).
 * Shared by proto_test.c and death_test.c.
 */
#ifndef DDSM_KUNIT_PROTO_SIM_H
#define DDSM_KUNIT_PROTO_SIM_H

#include <kunit/test.h>
#include "../../kernel/proto/dir.h"
#include "../../kernel/proto/cache.h"

#define SIM_NODES	4
#define SIM_UNITS	6
#define SIM_QLEN	64
#define SIM_POOL	16

struct sim_item {
	struct ddsm_msg msg;
	u64 data;
};

struct sim_chan {
	struct sim_item q[SIM_QLEN];
	u32 head, len;
};

struct sim_node {
	struct ddsm_space space;
	struct ddsm_dir dir;
	struct ddsm_cache cache;
	struct ddsm_dir_entry entries[SIM_UNITS];
	struct ddsm_dir_wait pool[SIM_POOL];
	struct ddsm_cline lines[SIM_UNITS];
	u64 frame[SIM_UNITS];
	u32 zaps[SIM_UNITS];
	u32 wakes[SIM_UNITS];
	u32 frees[SIM_UNITS];
	int errors;		/* -EPROTO returns */
	bool send_failed;	/* a send to a node known dead was refused */
};

struct sim {
	struct kunit *test;
	u32 nodes, units;
	struct sim_node n[SIM_NODES];
	struct sim_chan ch[SIM_NODES][SIM_NODES];
	struct ddsm_action abuf[DDSM_MAX_ACTIONS];
	u64 truth[SIM_UNITS];	/* value of the last store to each unit */
	u64 durable[SIM_UNITS];	/* value on the home's pmem */
	u32 persists;		/* SEND_DURABLEs: persist, then send */
	u32 sent[DDSM_MSG_NR];
	u32 alive;		/* bitmask of nodes not killed */
	u32 to_dead;		/* sends to a dead node (vanished or refused) */
	u32 overflow;
	bool keep_holds;	/* else a held line's access runs at once */
	u32 holds;
};

static inline struct sim *sim_new(struct kunit *test, u32 nodes, u32 units,
			   u32 pool)
{
	struct sim *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->test = test;
	s->nodes = nodes;
	s->units = units;
	s->alive = (1u << nodes) - 1;
	for (i = 0; i < nodes; i++) {
		struct sim_node *n = &s->n[i];

		KUNIT_ASSERT_EQ(test, 0,
				ddsm_space_init(&n->space, units * 4096ULL,
						nodes, i, DDSM_HOME_INTERLEAVE));
		ddsm_dir_init(&n->dir, &n->space, n->entries,
			      ddsm_space_units_homed(&n->space, i), n->pool,
			      pool);
		ddsm_cache_init(&n->cache, &n->space, n->lines);
	}
	return s;
}

static inline u32 home(struct sim *s, u64 unit)
{
	return ddsm_unit_home(&s->n[0].space, unit);
}

static inline const struct ddsm_dir_entry *dentry(struct sim *s, u64 unit)
{
	return ddsm_dir_entry(&s->n[home(s, unit)].dir, unit);
}

static inline struct ddsm_cline *sim_line(struct sim *s, u32 node, u64 unit)
{
	return &s->n[node].lines[unit];
}

static inline u8 cstate(struct sim *s, u32 node, u64 unit)
{
	return s->n[node].lines[unit].state;
}

static inline void run_actions(struct sim *s, u32 node, struct ddsm_actions *acts,
			u64 data)
{
	u32 i;

	s->overflow += acts->overflow;
	for (i = 0; i < acts->n; i++) {
		struct ddsm_action *a = &acts->a[i];
		struct sim_node *n = &s->n[node];
		struct sim_chan *c;

		switch (a->type) {
		case DDSM_ACT_SEND_DURABLE:
			/* The home frame goes to pmem before the grant leaves. */
			KUNIT_ASSERT_EQ(s->test, home(s, a->unit), node);
			s->durable[a->unit] = n->frame[a->unit];
			s->persists++;
			fallthrough;
		case DDSM_ACT_SEND:
			KUNIT_ASSERT_EQ(s->test, (u32)a->msg.src, node);
			KUNIT_ASSERT_LT(s->test, (u32)a->msg.dst, s->nodes);
			if (n->cache.dead & BIT_ULL(a->msg.dst)) {
				/* Torn down: the transport refuses. */
				n->send_failed = true;
				s->to_dead++;
				s->sent[a->msg.type]++;
				break;
			}
			if (!(s->alive & (1u << a->msg.dst))) {
				s->to_dead++;	/* vanishes */
				s->sent[a->msg.type]++;
				break;
			}
			c = &s->ch[node][a->msg.dst];
			KUNIT_ASSERT_LT(s->test, c->len, (u32)SIM_QLEN);
			c->q[(c->head + c->len) % SIM_QLEN].msg = a->msg;
			c->q[(c->head + c->len) % SIM_QLEN].data =
				n->frame[a->msg.unit];
			c->len++;
			s->sent[a->msg.type]++;
			break;
		case DDSM_ACT_STORE:
			n->frame[a->unit] = data;
			break;
		case DDSM_ACT_ZAP:
			n->zaps[a->unit]++;
			break;
		case DDSM_ACT_WAKE:
			n->wakes[a->unit]++;
			break;
		case DDSM_ACT_FREE_FRAME:
			n->frees[a->unit]++;
			break;
		case DDSM_ACT_HOLD:
			s->holds++;
			if (!s->keep_holds) {
				/* The woken access maps at once, as a fault would. */
				struct ddsm_action rbuf[2];
				struct ddsm_actions racts;

				ddsm_actions_init(&racts, rbuf, ARRAY_SIZE(rbuf));
				ddsm_cache_release(&n->cache, a->unit, &racts);
				run_actions(s, node, &racts, 0);
			}
			break;
		}
	}
}

/* Deliver the oldest message on src -> dst through the codec. */
static inline bool sim_deliver(struct sim *s, u32 src, u32 dst)
{
	struct sim_chan *c = &s->ch[src][dst];
	struct sim_node *n = &s->n[dst];
	struct ddsm_wire_msg w;
	struct ddsm_actions acts;
	struct sim_item it;
	struct ddsm_msg m;
	int ret;

	if (!c->len)
		return false;
	KUNIT_ASSERT_TRUE(s->test, s->alive & (1u << dst));
	it = c->q[c->head];
	c->head = (c->head + 1) % SIM_QLEN;
	c->len--;

	ddsm_msg_encode(&it.msg, &w);
	KUNIT_ASSERT_EQ(s->test, DDSM_MSG_OK,
			ddsm_msg_decode(&n->space, src, &w, sizeof(w), &m));
	ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
	if (ddsm_msg_to_home(m.type))
		ret = ddsm_dir_handle(&n->dir, &m, &acts);
	else
		ret = ddsm_cache_handle(&n->cache, &m, &acts);
	if (ret)
		n->errors++;
	run_actions(s, dst, &acts, it.data);
	return true;
}

/* Deliver everything, pairs in a fixed order; returns messages delivered. */
static inline u32 sim_run(struct sim *s)
{
	u32 delivered = 0, i, j;
	bool any;

	do {
		any = false;
		for (i = 0; i < s->nodes; i++)
			for (j = 0; j < s->nodes; j++)
				if (sim_deliver(s, i, j)) {
					any = true;
					delivered++;
				}
		KUNIT_ASSERT_LT(s->test, delivered, 100000U);
	} while (any);
	return delivered;
}

static inline enum ddsm_fault_result sim_fault(struct sim *s, u32 node, u64 unit,
					bool write)
{
	struct ddsm_actions acts;
	enum ddsm_fault_result r;

	ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
	r = ddsm_cache_fault(&s->n[node].cache, unit, write, &acts);
	s->n[node].send_failed = false;
	run_actions(s, node, &acts, 0);
	/* As ddsm_access(): a request that cannot go out fails its event. */
	if (s->n[node].send_failed) {
		ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
		ddsm_cache_home_lost(&s->n[node].cache, unit, EHOSTDOWN, &acts);
		run_actions(s, node, &acts, 0);
	}
	return r;
}

/* Fault until the access is allowed, delivering in between. */
static inline void sim_access(struct sim *s, u32 node, u64 unit, bool write)
{
	int tries;

	for (tries = 0; tries < 10; tries++) {
		enum ddsm_fault_result r = sim_fault(s, node, unit, write);

		if (r == DDSM_FAULT_MAP_RW || (!write && r == DDSM_FAULT_MAP_RO))
			return;
		sim_run(s);
	}
	KUNIT_FAIL(s->test, "node %u never got %s access to unit %llu", node,
		   write ? "write" : "read", unit);
}

static inline void sim_store(struct sim *s, u32 node, u64 unit, u64 v)
{
	sim_access(s, node, unit, true);
	KUNIT_ASSERT_EQ(s->test, cstate(s, node, unit), (u8)DDSM_C_M);
	s->n[node].frame[unit] = v;
	s->truth[unit] = v;
}

static inline u64 sim_load(struct sim *s, u32 node, u64 unit)
{
	sim_access(s, node, unit, false);
	return s->n[node].frame[unit];
}

static inline u64 holders(struct sim *s, u64 unit)
{
	u64 set = 0;
	u32 i;

	for (i = 0; i < s->nodes; i++)
		if (cstate(s, i, unit) == DDSM_C_S ||
		    cstate(s, i, unit) == DDSM_C_M)
			set |= 1ULL << i;
	return set;
}

static inline bool readable(u8 st)
{
	return st == DDSM_C_S || st == DDSM_C_M || st == DDSM_C_SM_AD;
}

/* Single writer, multiple readers, and every readable copy is current. */
static inline void check_invariants(struct sim *s)
{
	u64 u;
	u32 i;

	for (u = 0; u < s->units; u++) {
		u32 writers = 0, readers = 0;

		for (i = 0; i < s->nodes; i++) {
			u8 st = cstate(s, i, u);

			if (st == DDSM_C_M)
				writers++;
			else if (readable(st))
				readers++;
			if (readable(st))
				KUNIT_EXPECT_EQ_MSG(s->test, s->n[i].frame[u],
						    s->truth[u],
						    "node %u unit %llu state %s",
						    i, u, ddsm_cstate_name(st));
		}
		KUNIT_EXPECT_LE(s->test, writers, 1U);
		if (writers)
			KUNIT_EXPECT_EQ(s->test, readers, 0U);
	}
}

/* Once no message is in flight, the directory matches the caches. */
static inline void check_quiescent(struct sim *s)
{
	u64 u;
	u32 i;

	for (u = 0; u < s->units; u++) {
		const struct ddsm_dir_entry *e = dentry(s, u);

		KUNIT_EXPECT_EQ(s->test, e->copyset, holders(s, u));
		KUNIT_EXPECT_EQ(s->test, (u32)e->wlocked, 0U);
		KUNIT_EXPECT_EQ(s->test, e->rlocks, 0ULL);
		KUNIT_EXPECT_EQ(s->test, e->qhead, 0U);
		if (e->state != DDSM_G_M)
			KUNIT_EXPECT_EQ(s->test, s->n[home(s, u)].frame[u],
					s->truth[u]);
		for (i = 0; i < s->nodes; i++)
			KUNIT_EXPECT_TRUE(s->test,
					  ddsm_cstate_stable(cstate(s, i, u)));
	}
	for (i = 0; i < s->nodes; i++)
		KUNIT_EXPECT_EQ(s->test, s->n[i].errors, 0);
	KUNIT_EXPECT_EQ(s->test, s->overflow, 0U);
}

/* @node dies: its own channels and everything sent to it are lost. */
static inline void sim_kill(struct sim *s, u32 node)
{
	u32 i;

	s->alive &= ~(1u << node);
	for (i = 0; i < s->nodes; i++) {
		s->ch[i][node].len = 0;
		if (!(s->alive & (1u << i)))
			s->ch[node][i].len = 0;
	}
}

/* @node runs kernel/core/rx.c peer_down() for @gone (alive or not). */
static inline void sim_peer_down(struct sim *s, u32 node, u32 gone)
{
	struct sim_node *n = &s->n[node];
	struct ddsm_actions acts;
	u64 unit;

	ddsm_dir_node_dead(&n->dir, gone);
	ddsm_cache_node_dead(&n->cache, gone);
	for (unit = 0; unit < s->units; unit++) {
		ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
		if (ddsm_unit_home(&n->space, unit) == node)
			ddsm_dir_reclaim(&n->dir, unit, gone, &acts);
		ddsm_cache_peer_lost(&n->cache, unit, gone, &acts);
		run_actions(s, node, &acts, 0);
	}
}

/* @node learns that @dead is gone: kernel/core/rx.c peer_down(). */
static inline void sim_detect(struct sim *s, u32 node, u32 dead)
{
	KUNIT_ASSERT_FALSE(s->test, s->alive & (1u << dead));
	s->ch[dead][node].len = 0;
	sim_peer_down(s, node, dead);
}

/*
 * A false death: @a and @b are both alive but their connection is torn
 * down (one declared the other dead); what was in flight between them is
 * lost and each settles the other.
 */
static inline void sim_cut(struct sim *s, u32 a, u32 b)
{
	s->ch[a][b].len = 0;
	s->ch[b][a].len = 0;
	sim_peer_down(s, a, b);
	sim_peer_down(s, b, a);
}

/* @node hears that @back is up again: rx.c peer_up() with rejoin.c. */
static inline void sim_peer_up(struct sim *s, u32 node, u32 back)
{
	struct sim_node *n = &s->n[node];
	struct ddsm_actions acts;
	u64 unit;

	ddsm_dir_node_up(&n->dir, back);
	ddsm_cache_node_up(&n->cache, back);
	for (unit = 0; unit < s->units; unit++) {
		if (ddsm_unit_home(&n->space, unit) != back)
			continue;
		ddsm_actions_init(&acts, s->abuf, DDSM_MAX_ACTIONS);
		ddsm_cache_rejoin(&n->cache, unit, &acts);
		run_actions(s, node, &acts, 0);
	}
}

/* Every node keeps orphans and every home waits for them (rejoin_ms). */
static inline void sim_enable_rejoin(struct sim *s)
{
	u32 i;

	for (i = 0; i < s->nodes; i++) {
		s->n[i].dir.rejoin = true;
		s->n[i].cache.keep_orphans = true;
	}
}

/* Nothing in flight, no survivor waits, nobody returned -EPROTO. */
static inline void sim_settled(struct sim *s)
{
	u32 i, j;
	u64 u;

	for (i = 0; i < s->nodes; i++)
		for (j = 0; j < s->nodes; j++)
			KUNIT_EXPECT_EQ(s->test, s->ch[i][j].len, 0U);
	for (i = 0; i < s->nodes; i++) {
		if (!(s->alive & (1u << i)))
			continue;
		KUNIT_EXPECT_EQ_MSG(s->test, s->n[i].errors, 0, "node %u", i);
		for (u = 0; u < s->units; u++)
			KUNIT_EXPECT_TRUE_MSG(s->test,
					      ddsm_cstate_stable(s->n[i].lines[u].state),
					      "node %u unit %llu is %s", i, u,
					      ddsm_cstate_name(s->n[i].lines[u].state));
	}
	KUNIT_EXPECT_EQ(s->test, s->overflow, 0U);
}

/* A new access by @node to @unit fails with @err and leaves the line I. */
static inline void sim_expect_fail(struct sim *s, u32 node, u64 unit, bool write,
			     u8 err)
{
	KUNIT_EXPECT_EQ(s->test, DDSM_FAULT_WAIT,
			sim_fault(s, node, unit, write));
	sim_run(s);
	KUNIT_EXPECT_EQ(s->test, (u8)DDSM_C_I, (&s->n[node].lines[unit])->state);
	KUNIT_EXPECT_EQ(s->test, err, (&s->n[node].lines[unit])->err);
}

#endif /* DDSM_KUNIT_PROTO_SIM_H */
