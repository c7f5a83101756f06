// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite ddsm_space: global address space geometry
 * (kernel/proto/space.c and space.h).
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/module.h>

#include "../../kernel/proto/space.h"

#define UNIT		DDSM_PROTO_UNIT_SIZE
#define MAX_NODES	DDSM_PROTO_MAX_NODES

struct init_case {
	u64 size;
	u32 nr_nodes;
	u32 node_id;
	int policy;
	int ret;
};

static void run_init_cases(struct kunit *test, const struct init_case *c,
			   unsigned int n)
{
	struct ddsm_space s;
	unsigned int i;

	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    ddsm_space_init(&s, c[i].size, c[i].nr_nodes,
						    c[i].node_id,
						    (enum ddsm_home_policy)c[i].policy),
				    c[i].ret,
				    "case %u: size %llu nodes %u node %u policy %d",
				    i, c[i].size, c[i].nr_nodes, c[i].node_id,
				    c[i].policy);
}

static void space_init_rejects_size(struct kunit *test)
{
	static const struct init_case c[] = {
		{ 0, 1, 0, DDSM_HOME_INTERLEAVE, -EINVAL },
		{ 0, 4, 1, DDSM_HOME_RANGE, -EINVAL },
		{ 1, 1, 0, DDSM_HOME_INTERLEAVE, -EINVAL },
		{ 512, 1, 0, DDSM_HOME_INTERLEAVE, -EINVAL },
		{ UNIT - 1, 1, 0, DDSM_HOME_INTERLEAVE, -EINVAL },
		{ UNIT + 1, 2, 0, DDSM_HOME_RANGE, -EINVAL },
		{ 3 * UNIT + UNIT / 2, 2, 1, DDSM_HOME_INTERLEAVE, -EINVAL },
		{ U64_MAX, 2, 1, DDSM_HOME_RANGE, -EINVAL },
	};

	run_init_cases(test, c, ARRAY_SIZE(c));
}

static void space_init_rejects_nodes(struct kunit *test)
{
	static const struct init_case c[] = {
		{ UNIT, 0, 0, DDSM_HOME_INTERLEAVE, -EINVAL },
		{ UNIT, 0, 0, DDSM_HOME_RANGE, -EINVAL },
		{ UNIT, MAX_NODES + 1, 0, DDSM_HOME_INTERLEAVE, -EINVAL },
		{ UNIT, MAX_NODES + 1, 0, DDSM_HOME_RANGE, -EINVAL },
		{ UNIT, U32_MAX, 0, DDSM_HOME_INTERLEAVE, -EINVAL },
		{ UNIT, 1, 1, DDSM_HOME_INTERLEAVE, -EINVAL },
		{ UNIT, 4, 4, DDSM_HOME_RANGE, -EINVAL },
		{ UNIT, 4, 5, DDSM_HOME_INTERLEAVE, -EINVAL },
		{ UNIT, MAX_NODES, MAX_NODES, DDSM_HOME_INTERLEAVE, -EINVAL },
		{ UNIT, 4, U32_MAX, DDSM_HOME_RANGE, -EINVAL },
	};

	run_init_cases(test, c, ARRAY_SIZE(c));
}

static void space_init_rejects_policy(struct kunit *test)
{
	static const struct init_case c[] = {
		{ UNIT, 1, 0, 2, -EINVAL },
		{ UNIT, 2, 1, 3, -EINVAL },
		{ UNIT, 2, 1, -1, -EINVAL },
		{ UNIT, 2, 0, 0x7fffffff, -EINVAL },
	};

	run_init_cases(test, c, ARRAY_SIZE(c));
}

static void space_init_accepts(struct kunit *test)
{
	static const struct init_case c[] = {
		{ UNIT, 1, 0, DDSM_HOME_INTERLEAVE, 0 },
		{ UNIT, 1, 0, DDSM_HOME_RANGE, 0 },
		{ UNIT, 2, 1, DDSM_HOME_RANGE, 0 },
		{ 10 * UNIT, 4, 3, DDSM_HOME_INTERLEAVE, 0 },
		{ 10 * UNIT, 4, 0, DDSM_HOME_RANGE, 0 },
		{ 1ULL << 40, MAX_NODES, MAX_NODES - 1, DDSM_HOME_INTERLEAVE, 0 },
		{ 1ULL << 40, MAX_NODES, 0, DDSM_HOME_RANGE, 0 },
		{ U64_MAX & ~(UNIT - 1), 3, 2, DDSM_HOME_RANGE, 0 },
	};

	run_init_cases(test, c, ARRAY_SIZE(c));
}

static void space_init_fields(struct kunit *test)
{
	struct ddsm_space s;

	memset(&s, 0xa5, sizeof(s));
	KUNIT_ASSERT_EQ(test, ddsm_space_init(&s, 10 * UNIT, 4, 3,
					      DDSM_HOME_RANGE), 0);
	KUNIT_EXPECT_EQ(test, s.size, 10 * UNIT);
	KUNIT_EXPECT_EQ(test, s.nr_units, 10ULL);
	KUNIT_EXPECT_EQ(test, s.nr_nodes, 4U);
	KUNIT_EXPECT_EQ(test, s.node_id, 3U);
	KUNIT_EXPECT_EQ(test, (int)s.policy, (int)DDSM_HOME_RANGE);
	/* 10 units over 4 nodes: slices of 3, rounded up. */
	KUNIT_EXPECT_EQ(test, s.units_per_node, 3ULL);

	KUNIT_ASSERT_EQ(test, ddsm_space_init(&s, 8 * UNIT, 4, 0,
					      DDSM_HOME_INTERLEAVE), 0);
	KUNIT_EXPECT_EQ(test, s.nr_units, 8ULL);
	KUNIT_EXPECT_EQ(test, (int)s.policy, (int)DDSM_HOME_INTERLEAVE);
	KUNIT_EXPECT_EQ(test, s.units_per_node, 2ULL);
}

static void space_unit_helpers(struct kunit *test)
{
	struct ddsm_space s;

	KUNIT_EXPECT_EQ(test, ddsm_gaddr_unit(0), 0ULL);
	KUNIT_EXPECT_EQ(test, ddsm_gaddr_unit(UNIT - 1), 0ULL);
	KUNIT_EXPECT_EQ(test, ddsm_gaddr_unit(UNIT), 1ULL);
	KUNIT_EXPECT_EQ(test, ddsm_gaddr_unit(5 * UNIT + 17), 5ULL);
	KUNIT_EXPECT_EQ(test, ddsm_unit_gaddr(0), 0ULL);
	KUNIT_EXPECT_EQ(test, ddsm_unit_gaddr(5), 5 * UNIT);
	KUNIT_EXPECT_EQ(test, ddsm_gaddr_unit(ddsm_unit_gaddr(12345)), 12345ULL);

	KUNIT_ASSERT_EQ(test, ddsm_space_init(&s, 10 * UNIT, 3, 0,
					      DDSM_HOME_INTERLEAVE), 0);
	KUNIT_EXPECT_TRUE(test, ddsm_unit_valid(&s, 0));
	KUNIT_EXPECT_TRUE(test, ddsm_unit_valid(&s, 9));
	KUNIT_EXPECT_FALSE(test, ddsm_unit_valid(&s, 10));
	KUNIT_EXPECT_FALSE(test, ddsm_unit_valid(&s, U64_MAX));
}

struct home_case {
	u64 unit;
	u32 home;
	u64 index;
};

static void check_homes(struct kunit *test, const struct ddsm_space *s,
			const struct home_case *c, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, ddsm_unit_home(s, c[i].unit),
				    c[i].home, "unit %llu", c[i].unit);
		KUNIT_EXPECT_EQ_MSG(test, ddsm_unit_home_index(s, c[i].unit),
				    c[i].index, "unit %llu", c[i].unit);
	}
}

static void check_homed(struct kunit *test, const struct ddsm_space *s,
			const u64 *homed)
{
	u32 node;

	for (node = 0; node < s->nr_nodes; node++)
		KUNIT_EXPECT_EQ_MSG(test, ddsm_space_units_homed(s, node),
				    homed[node], "node %u", node);
	KUNIT_EXPECT_EQ(test, ddsm_space_units_homed(s, s->nr_nodes), 0ULL);
	KUNIT_EXPECT_EQ(test, ddsm_space_units_homed(s, U32_MAX), 0ULL);
}

static void space_home_interleave(struct kunit *test)
{
	/* 10 units over 4 nodes: 10 % 4 != 0. */
	static const struct home_case c[] = {
		{ 0, 0, 0 }, { 1, 1, 0 }, { 2, 2, 0 }, { 3, 3, 0 },
		{ 4, 0, 1 }, { 5, 1, 1 }, { 7, 3, 1 },
		{ 8, 0, 2 }, { 9, 1, 2 },
	};
	static const u64 homed[] = { 3, 3, 2, 2 };
	struct ddsm_space s;

	KUNIT_ASSERT_EQ(test, ddsm_space_init(&s, 10 * UNIT, 4, 2,
					      DDSM_HOME_INTERLEAVE), 0);
	check_homes(test, &s, c, ARRAY_SIZE(c));
	check_homed(test, &s, homed);
}

static void space_home_interleave_one_node(struct kunit *test)
{
	static const struct home_case c[] = {
		{ 0, 0, 0 }, { 1, 0, 1 }, { 6, 0, 6 },
	};
	static const u64 homed[] = { 7 };
	struct ddsm_space s;

	KUNIT_ASSERT_EQ(test, ddsm_space_init(&s, 7 * UNIT, 1, 0,
					      DDSM_HOME_INTERLEAVE), 0);
	check_homes(test, &s, c, ARRAY_SIZE(c));
	check_homed(test, &s, homed);
}

static void space_home_range(struct kunit *test)
{
	/* 10 units over 4 nodes: slices of 3, the last node gets 1. */
	static const struct home_case c[] = {
		{ 0, 0, 0 }, { 1, 0, 1 }, { 2, 0, 2 },
		{ 3, 1, 0 }, { 5, 1, 2 },
		{ 6, 2, 0 }, { 8, 2, 2 },
		{ 9, 3, 0 },
	};
	static const u64 homed[] = { 3, 3, 3, 1 };
	struct ddsm_space s;

	KUNIT_ASSERT_EQ(test, ddsm_space_init(&s, 10 * UNIT, 4, 0,
					      DDSM_HOME_RANGE), 0);
	check_homes(test, &s, c, ARRAY_SIZE(c));
	check_homed(test, &s, homed);
}

static void space_home_range_empty_nodes(struct kunit *test)
{
	/* 5 units over 4 nodes: slices of 2, node 3 homes nothing. */
	static const struct home_case c5[] = {
		{ 0, 0, 0 }, { 1, 0, 1 }, { 2, 1, 0 }, { 3, 1, 1 }, { 4, 2, 0 },
	};
	static const u64 homed5[] = { 2, 2, 1, 0 };
	/* Fewer units than nodes: 2 units over 5 nodes. */
	static const struct home_case c2[] = {
		{ 0, 0, 0 }, { 1, 1, 0 },
	};
	static const u64 homed2[] = { 1, 1, 0, 0, 0 };
	struct ddsm_space s;

	KUNIT_ASSERT_EQ(test, ddsm_space_init(&s, 5 * UNIT, 4, 3,
					      DDSM_HOME_RANGE), 0);
	check_homes(test, &s, c5, ARRAY_SIZE(c5));
	check_homed(test, &s, homed5);

	KUNIT_ASSERT_EQ(test, ddsm_space_init(&s, 2 * UNIT, 5, 4,
					      DDSM_HOME_RANGE), 0);
	check_homes(test, &s, c2, ARRAY_SIZE(c2));
	check_homed(test, &s, homed2);
}

/*
 * For every small geometry, (home, home_index) must map the units one to one
 * onto the pairs (node, i) with i < ddsm_space_units_homed(node): every unit
 * has a slot in its home's local arrays, and no two units share one.
 */
#define BIJ_MAX_NODES	5
#define BIJ_MAX_UNITS	40

static void check_bijection(struct kunit *test, u64 nr_units, u32 nr_nodes,
			    enum ddsm_home_policy policy)
{
	bool seen[BIJ_MAX_NODES][BIJ_MAX_UNITS];
	u64 count[BIJ_MAX_NODES] = { 0 };
	u64 homed, sum = 0;
	struct ddsm_space s;
	u64 unit, idx;
	u32 node, home;

	memset(seen, 0, sizeof(seen));
	KUNIT_ASSERT_EQ(test, ddsm_space_init(&s, nr_units * UNIT, nr_nodes,
					      nr_nodes - 1, policy), 0);

	for (unit = 0; unit < nr_units; unit++) {
		home = ddsm_unit_home(&s, unit);
		idx = ddsm_unit_home_index(&s, unit);
		KUNIT_ASSERT_LT_MSG(test, home, nr_nodes,
				    "policy %d units %llu nodes %u unit %llu",
				    policy, nr_units, nr_nodes, unit);
		homed = ddsm_space_units_homed(&s, home);
		KUNIT_ASSERT_LT_MSG(test, idx, homed,
				    "policy %d units %llu nodes %u unit %llu home %u",
				    policy, nr_units, nr_nodes, unit, home);
		KUNIT_ASSERT_LT(test, idx, (u64)BIJ_MAX_UNITS);
		KUNIT_EXPECT_FALSE_MSG(test, seen[home][idx],
				       "policy %d units %llu nodes %u: slot (%u, %llu) reused by unit %llu",
				       policy, nr_units, nr_nodes, home, idx,
				       unit);
		seen[home][idx] = true;
		count[home]++;
	}

	for (node = 0; node < nr_nodes; node++) {
		homed = ddsm_space_units_homed(&s, node);
		KUNIT_EXPECT_EQ_MSG(test, count[node], homed,
				    "policy %d units %llu nodes %u node %u",
				    policy, nr_units, nr_nodes, node);
		sum += homed;
	}
	KUNIT_EXPECT_EQ_MSG(test, sum, nr_units,
			    "policy %d units %llu nodes %u",
			    policy, nr_units, nr_nodes);
}

static void space_home_bijection_interleave(struct kunit *test)
{
	u64 units;
	u32 nodes;

	for (nodes = 1; nodes <= BIJ_MAX_NODES; nodes++)
		for (units = 1; units <= BIJ_MAX_UNITS; units++)
			check_bijection(test, units, nodes,
					DDSM_HOME_INTERLEAVE);
}

static void space_home_bijection_range(struct kunit *test)
{
	u64 units;
	u32 nodes;

	for (nodes = 1; nodes <= BIJ_MAX_NODES; nodes++)
		for (units = 1; units <= BIJ_MAX_UNITS; units++)
			check_bijection(test, units, nodes, DDSM_HOME_RANGE);
}

/* Large spaces: the last unit still has a home and a slot there. */
static void space_home_large(struct kunit *test)
{
	static const u32 nodes[] = { 1, 3, 7, MAX_NODES };
	static const u64 sizes[] = {
		1ULL << 40, (1ULL << 40) + 5 * UNIT, U64_MAX & ~(UNIT - 1),
	};
	enum ddsm_home_policy policy;
	struct ddsm_space s;
	unsigned int i, j;
	u64 last, sum;
	u32 home, node;

	for (policy = DDSM_HOME_INTERLEAVE; policy <= DDSM_HOME_RANGE; policy++)
		for (i = 0; i < ARRAY_SIZE(nodes); i++)
			for (j = 0; j < ARRAY_SIZE(sizes); j++) {
				KUNIT_ASSERT_EQ(test,
						ddsm_space_init(&s, sizes[j],
								nodes[i], 0,
								policy), 0);
				last = s.nr_units - 1;
				home = ddsm_unit_home(&s, last);
				KUNIT_EXPECT_LT(test, home, nodes[i]);
				KUNIT_EXPECT_LT(test,
						ddsm_unit_home_index(&s, last),
						ddsm_space_units_homed(&s, home));
				sum = 0;
				for (node = 0; node < nodes[i]; node++)
					sum += ddsm_space_units_homed(&s, node);
				KUNIT_EXPECT_EQ_MSG(test, sum, s.nr_units,
						    "policy %d nodes %u size %llu",
						    policy, nodes[i], sizes[j]);
			}
}

static void space_check_range(struct kunit *test)
{
	const u64 size = 16 * UNIT;
	const u64 top = U64_MAX & ~(UNIT - 1);	/* largest aligned u64 */
	struct ddsm_space s;

	KUNIT_ASSERT_EQ(test, ddsm_space_init(&s, size, 2, 0,
					      DDSM_HOME_INTERLEAVE), 0);

	/* Zero length. */
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, UNIT, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, size, 0), -EINVAL);

	/* Misaligned offset or length. */
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, 1, UNIT), -EINVAL);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, UNIT - 1, UNIT),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, UNIT + 512, UNIT),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, 0, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, 0, UNIT + 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, 0, UNIT - 1),
			-EINVAL);
	/* Misalignment is reported before the range. */
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, size + 1, UNIT),
			-EINVAL);

	/* Inside, and ending exactly at the end of the space. */
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, 0, UNIT), 0);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, 0, size), 0);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, 3 * UNIT, 5 * UNIT),
			0);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, size - UNIT, UNIT),
			0);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, UNIT, size - UNIT),
			0);

	/* One unit past the end. */
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, 0, size + UNIT),
			-ENXIO);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, size - UNIT,
						     2 * UNIT), -ENXIO);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, UNIT, size), -ENXIO);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, size, UNIT), -ENXIO);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, size + UNIT, UNIT),
			-ENXIO);

	/* off + len wraps around 2^64: must not look like a small window. */
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, UNIT, top), -ENXIO);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, size - UNIT, top),
			-ENXIO);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, top, UNIT), -ENXIO);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, top, 2 * UNIT),
			-ENXIO);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, top, top), -ENXIO);
	/* UNIT + (2^64 - UNIT) == 0 (mod 2^64). */
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, UNIT, 0 - UNIT),
			-ENXIO);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, 0 - UNIT, 2 * UNIT),
			-ENXIO);
}

static void space_check_range_huge(struct kunit *test)
{
	const u64 top = U64_MAX & ~(UNIT - 1);
	struct ddsm_space s;

	/* The largest representable space: only wrap-around can overflow. */
	KUNIT_ASSERT_EQ(test, ddsm_space_init(&s, top, 4, 1, DDSM_HOME_RANGE),
			0);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, 0, top), 0);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, top - UNIT, UNIT), 0);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, top - UNIT, 2 * UNIT),
			-ENXIO);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, UNIT, top), -ENXIO);
	KUNIT_EXPECT_EQ(test, ddsm_space_check_range(&s, top, UNIT), -ENXIO);
}

/*
 * Backup homes: a node's local arrays hold its own units, then its
 * predecessor's, one to one; and the failover mask moves exactly the
 * units placed on a node to its backup.
 */
static void check_local(struct kunit *test, u64 nr_units, u32 nr_nodes,
			enum ddsm_home_policy policy)
{
	struct ddsm_space s;
	u32 node, pred, placed;
	u64 unit, idx, nr, own;

	for (node = 0; node < nr_nodes; node++) {
		KUNIT_ASSERT_EQ(test, ddsm_space_init(&s, nr_units * UNIT,
						      nr_nodes, node, policy),
				0);
		s.nr_backups = 1;
		pred = ddsm_space_pred_of(&s, node);
		own = ddsm_space_units_homed(&s, node);
		nr = ddsm_space_local_units(&s);
		KUNIT_EXPECT_EQ(test, nr,
				own + ddsm_space_units_homed(&s, pred));
		for (idx = 0; idx < nr; idx++) {
			unit = ddsm_space_local_unit(&s, idx);
			KUNIT_ASSERT_LT(test, unit, nr_units);
			KUNIT_EXPECT_EQ_MSG(test,
					    ddsm_unit_local_index(&s, unit),
					    idx, "node %u idx %llu", node, idx);
			KUNIT_EXPECT_EQ(test, ddsm_unit_placed(&s, unit),
					idx < own ? node : pred);
		}
		for (unit = 0; unit < nr_units; unit++) {
			placed = ddsm_unit_placed(&s, unit);
			idx = ddsm_unit_local_index(&s, unit);
			if (placed != node && placed != pred)
				KUNIT_EXPECT_EQ(test, idx, U64_MAX);
			else
				KUNIT_EXPECT_LT(test, idx, nr);
			/* Before any failover, homes are the placement. */
			KUNIT_EXPECT_EQ(test, ddsm_unit_home(&s, unit),
					placed);
		}
		/* pred taken over by this node: its units, and only them. */
		s.failover = BIT_ULL(pred);
		for (unit = 0; unit < nr_units; unit++) {
			placed = ddsm_unit_placed(&s, unit);
			KUNIT_EXPECT_EQ(test, ddsm_unit_home(&s, unit),
					placed == pred ? node : placed);
		}
		/* Without backups the arrays are the node's own units. */
		s.failover = 0;
		s.nr_backups = 0;
		KUNIT_EXPECT_EQ(test, ddsm_space_local_units(&s), own);
		for (idx = own; idx < nr; idx++) {
			unit = ddsm_space_local_unit(&s, idx);
			KUNIT_EXPECT_EQ(test, ddsm_unit_local_index(&s, unit),
					U64_MAX);
		}
	}
}

static void space_backup_local_arrays(struct kunit *test)
{
	u64 units;
	u32 nodes;

	for (nodes = 2; nodes <= BIJ_MAX_NODES; nodes++) {
		for (units = 1; units <= BIJ_MAX_UNITS; units++) {
			check_local(test, units, nodes, DDSM_HOME_INTERLEAVE);
			check_local(test, units, nodes, DDSM_HOME_RANGE);
		}
	}
	KUNIT_EXPECT_EQ(test, ddsm_space_backup_of(&(struct ddsm_space){
		.nr_nodes = 3 }, 2), 0U);
}

static struct kunit_case ddsm_space_cases[] = {
	KUNIT_CASE(space_init_rejects_size),
	KUNIT_CASE(space_init_rejects_nodes),
	KUNIT_CASE(space_init_rejects_policy),
	KUNIT_CASE(space_init_accepts),
	KUNIT_CASE(space_init_fields),
	KUNIT_CASE(space_unit_helpers),
	KUNIT_CASE(space_home_interleave),
	KUNIT_CASE(space_home_interleave_one_node),
	KUNIT_CASE(space_home_range),
	KUNIT_CASE(space_home_range_empty_nodes),
	KUNIT_CASE(space_home_bijection_interleave),
	KUNIT_CASE(space_home_bijection_range),
	KUNIT_CASE(space_home_large),
	KUNIT_CASE(space_check_range),
	KUNIT_CASE(space_check_range_huge),
	KUNIT_CASE(space_backup_local_arrays),
	{}
};

static struct kunit_suite ddsm_space_suite = {
	.name = "ddsm_space",
	.test_cases = ddsm_space_cases,
};

kunit_test_suite(ddsm_space_suite);

MODULE_DESCRIPTION("KUnit tests for ddsm's address space geometry");
MODULE_LICENSE("GPL");
