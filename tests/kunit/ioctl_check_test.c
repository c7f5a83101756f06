// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite ddsm_ioctl_check: validation of ioctl and mmap arguments
 * (kernel/node/ioctl_check.c), every rejected case and the accepted ones.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/string.h>

#include "../../kernel/node/ioctl_check.h"

#define UNIT	DDSM_PROTO_UNIT_SIZE
#define NODES	3
#define SIZE	(16 * UNIT)

static int ioctl_check_init(struct kunit *test)
{
	struct ddsm_space *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	KUNIT_ASSERT_EQ(test, ddsm_space_init(s, SIZE, NODES, 1,
					      DDSM_HOME_INTERLEAVE), 0);
	test->priv = s;
	return 0;
}

static void check_uapi_matches_proto(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, (u64)DDSM_UNIT_SIZE, DDSM_PROTO_UNIT_SIZE);
	KUNIT_EXPECT_EQ(test, DDSM_UNIT_SHIFT, DDSM_PROTO_UNIT_SHIFT);
	KUNIT_EXPECT_EQ(test, DDSM_MAX_NODES, DDSM_PROTO_MAX_NODES);
}

static void check_peer_rejects_flags(struct kunit *test)
{
	struct ddsm_peer_info p;

	memset(&p, 0, sizeof(p));
	p.flags = 1;
	KUNIT_EXPECT_EQ(test, ddsm_check_peer_arg(&p, NODES), -EINVAL);
	p.flags = 0x80000000;
	KUNIT_EXPECT_EQ(test, ddsm_check_peer_arg(&p, NODES), -EINVAL);
	p.flags = U32_MAX;
	KUNIT_EXPECT_EQ(test, ddsm_check_peer_arg(&p, NODES), -EINVAL);
	/* Bad flags are reported before a bad index. */
	p.flags = 1;
	p.index = NODES;
	KUNIT_EXPECT_EQ(test, ddsm_check_peer_arg(&p, NODES), -EINVAL);
}

static void check_peer_rejects_index(struct kunit *test)
{
	struct ddsm_peer_info p;

	memset(&p, 0, sizeof(p));
	p.index = NODES;
	KUNIT_EXPECT_EQ(test, ddsm_check_peer_arg(&p, NODES), -ERANGE);
	p.index = NODES + 1;
	KUNIT_EXPECT_EQ(test, ddsm_check_peer_arg(&p, NODES), -ERANGE);
	p.index = DDSM_MAX_NODES;
	KUNIT_EXPECT_EQ(test, ddsm_check_peer_arg(&p, NODES), -ERANGE);
	p.index = U32_MAX;
	KUNIT_EXPECT_EQ(test, ddsm_check_peer_arg(&p, NODES), -ERANGE);
	p.index = 1;
	KUNIT_EXPECT_EQ(test, ddsm_check_peer_arg(&p, 1), -ERANGE);
	p.index = DDSM_MAX_NODES;
	KUNIT_EXPECT_EQ(test, ddsm_check_peer_arg(&p, DDSM_MAX_NODES),
			-ERANGE);
}

static void check_peer_accepts(struct kunit *test)
{
	struct ddsm_peer_info p;
	u32 i;

	memset(&p, 0, sizeof(p));
	for (i = 0; i < NODES; i++) {
		p.index = i;
		KUNIT_EXPECT_EQ_MSG(test, ddsm_check_peer_arg(&p, NODES), 0,
				    "index %u", i);
	}
	p.index = 0;
	KUNIT_EXPECT_EQ(test, ddsm_check_peer_arg(&p, 1), 0);
	p.index = DDSM_MAX_NODES - 1;
	KUNIT_EXPECT_EQ(test, ddsm_check_peer_arg(&p, DDSM_MAX_NODES), 0);

	/* Output fields carry no meaning on input: garbage is fine. */
	memset(&p, 0xff, sizeof(p));
	p.index = NODES - 1;
	p.flags = 0;
	KUNIT_EXPECT_EQ(test, ddsm_check_peer_arg(&p, NODES), 0);
}

static void check_home_rejects_flags(struct kunit *test)
{
	const struct ddsm_space *s = test->priv;
	struct ddsm_home_query q;

	memset(&q, 0, sizeof(q));
	q.flags = 1;
	KUNIT_EXPECT_EQ(test, ddsm_check_home_arg(&q, s), -EINVAL);
	q.flags = U32_MAX;
	KUNIT_EXPECT_EQ(test, ddsm_check_home_arg(&q, s), -EINVAL);

	q.flags = 0;
	q.reserved = 1;
	KUNIT_EXPECT_EQ(test, ddsm_check_home_arg(&q, s), -EINVAL);
	q.reserved = 0x80000000;
	KUNIT_EXPECT_EQ(test, ddsm_check_home_arg(&q, s), -EINVAL);

	/* Bad flags or reserved bits are reported before a bad address. */
	q.gaddr = SIZE;
	KUNIT_EXPECT_EQ(test, ddsm_check_home_arg(&q, s), -EINVAL);
	q.reserved = 0;
	q.flags = 2;
	KUNIT_EXPECT_EQ(test, ddsm_check_home_arg(&q, s), -EINVAL);
}

static void check_home_rejects_gaddr(struct kunit *test)
{
	const struct ddsm_space *s = test->priv;
	struct ddsm_home_query q;

	memset(&q, 0, sizeof(q));
	q.gaddr = SIZE;
	KUNIT_EXPECT_EQ(test, ddsm_check_home_arg(&q, s), -ERANGE);
	q.gaddr = SIZE + 1;
	KUNIT_EXPECT_EQ(test, ddsm_check_home_arg(&q, s), -ERANGE);
	q.gaddr = SIZE + UNIT;
	KUNIT_EXPECT_EQ(test, ddsm_check_home_arg(&q, s), -ERANGE);
	q.gaddr = U64_MAX;
	KUNIT_EXPECT_EQ(test, ddsm_check_home_arg(&q, s), -ERANGE);
}

static void check_home_accepts(struct kunit *test)
{
	const struct ddsm_space *s = test->priv;
	struct ddsm_home_query q;

	memset(&q, 0, sizeof(q));
	KUNIT_EXPECT_EQ(test, ddsm_check_home_arg(&q, s), 0);
	/* Any byte inside the space, aligned or not. */
	q.gaddr = 1;
	KUNIT_EXPECT_EQ(test, ddsm_check_home_arg(&q, s), 0);
	q.gaddr = 5 * UNIT + 123;
	KUNIT_EXPECT_EQ(test, ddsm_check_home_arg(&q, s), 0);
	q.gaddr = SIZE - UNIT;
	KUNIT_EXPECT_EQ(test, ddsm_check_home_arg(&q, s), 0);
	q.gaddr = SIZE - 1;
	KUNIT_EXPECT_EQ(test, ddsm_check_home_arg(&q, s), 0);

	/* Output fields carry no meaning on input. */
	q.home = U32_MAX;
	q.unit = U64_MAX;
	q.state = U32_MAX;
	KUNIT_EXPECT_EQ(test, ddsm_check_home_arg(&q, s), 0);
}

static void check_persist_rejects(struct kunit *test)
{
	const struct ddsm_space *s = test->priv;
	struct ddsm_persist_arg a;

	memset(&a, 0, sizeof(a));
	a.len = UNIT;
	a.flags = DDSM_PERSIST_ALL << 1;
	KUNIT_EXPECT_EQ(test, ddsm_check_persist_arg(&a, s), -EINVAL);
	a.flags = DDSM_PERSIST_ALL;
	KUNIT_EXPECT_EQ(test, ddsm_check_persist_arg(&a, s), 0);
	a.flags = 0;
	a.reserved = 1;
	KUNIT_EXPECT_EQ(test, ddsm_check_persist_arg(&a, s), -EINVAL);
	a.reserved = 0;
	a.len = 0;
	KUNIT_EXPECT_EQ(test, ddsm_check_persist_arg(&a, s), -EINVAL);
	a.len = UNIT - 1;
	KUNIT_EXPECT_EQ(test, ddsm_check_persist_arg(&a, s), -EINVAL);
	a.len = UNIT;
	a.gaddr = 8;
	KUNIT_EXPECT_EQ(test, ddsm_check_persist_arg(&a, s), -EINVAL);
	a.gaddr = SIZE;
	KUNIT_EXPECT_EQ(test, ddsm_check_persist_arg(&a, s), -ERANGE);
	a.gaddr = SIZE - UNIT;
	a.len = 2 * UNIT;
	KUNIT_EXPECT_EQ(test, ddsm_check_persist_arg(&a, s), -ERANGE);
	/* A length that wraps the address space is out of range, not valid. */
	a.gaddr = UNIT;
	a.len = U64_MAX & ~(u64)(UNIT - 1);
	KUNIT_EXPECT_EQ(test, ddsm_check_persist_arg(&a, s), -ERANGE);
}

static void check_persist_accepts(struct kunit *test)
{
	const struct ddsm_space *s = test->priv;
	struct ddsm_persist_arg a;

	memset(&a, 0, sizeof(a));
	a.len = SIZE;
	KUNIT_EXPECT_EQ(test, ddsm_check_persist_arg(&a, s), 0);
	a.gaddr = SIZE - UNIT;
	a.len = UNIT;
	KUNIT_EXPECT_EQ(test, ddsm_check_persist_arg(&a, s), 0);
}

static void check_region_args(struct kunit *test)
{
	const struct ddsm_space *s = test->priv;
	struct ddsm_region_arg a;

	memset(&a, 0, sizeof(a));
	a.len = UNIT;
	a.model = DDSM_MODEL_SCOPE;
	KUNIT_EXPECT_EQ(test, ddsm_check_region_arg(&a, s), 0);
	a.model = DDSM_MODEL_SCOPE + 1;
	KUNIT_EXPECT_EQ(test, ddsm_check_region_arg(&a, s), -EINVAL);
	a.model = DDSM_MODEL_EVENTUAL;
	a.nr_backups = 1;
	KUNIT_EXPECT_EQ(test, ddsm_check_region_arg(&a, s), -EINVAL);
	/* 0 or the module's nr_backups (the space's), nothing else. */
	{
		struct ddsm_space b = *s;

		b.nr_backups = 1;
		KUNIT_EXPECT_EQ(test, ddsm_check_region_arg(&a, &b), 0);
		a.nr_backups = 2;
		KUNIT_EXPECT_EQ(test, ddsm_check_region_arg(&a, &b), -EINVAL);
		a.nr_backups = 0;
		KUNIT_EXPECT_EQ(test, ddsm_check_region_arg(&a, &b), 0);
	}
	a.nr_backups = 0;
	a.flags = 2;
	KUNIT_EXPECT_EQ(test, ddsm_check_region_arg(&a, s), -EINVAL);
	a.flags = 0;
	a.reserved = 1;
	KUNIT_EXPECT_EQ(test, ddsm_check_region_arg(&a, s), -EINVAL);
	a.reserved = 0;
	a.len = 0;
	KUNIT_EXPECT_EQ(test, ddsm_check_region_arg(&a, s), -EINVAL);
	a.len = UNIT;
	a.gaddr = 1;
	KUNIT_EXPECT_EQ(test, ddsm_check_region_arg(&a, s), -EINVAL);
	a.gaddr = SIZE;
	KUNIT_EXPECT_EQ(test, ddsm_check_region_arg(&a, s), -ERANGE);
	a.gaddr = UNIT;
	a.len = U64_MAX & ~(u64)(UNIT - 1);
	KUNIT_EXPECT_EQ(test, ddsm_check_region_arg(&a, s), -ERANGE);
	/* A get needs only an address inside the space. */
	a.flags = DDSM_REGION_GET;
	a.gaddr = SIZE - 1;
	a.len = 0;
	a.model = 99;
	KUNIT_EXPECT_EQ(test, ddsm_check_region_arg(&a, s), 0);
	a.gaddr = SIZE;
	KUNIT_EXPECT_EQ(test, ddsm_check_region_arg(&a, s), -ERANGE);
}

static void check_mmap_rejects_private(struct kunit *test)
{
	const struct ddsm_space *s = test->priv;

	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, false, false, 0, UNIT),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, false, false, 0, SIZE),
			-EINVAL);
	/* MAP_PRIVATE wins over PROT_EXEC and over range errors. */
	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, false, true, 0, UNIT),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, false, false, SIZE, UNIT),
			-EINVAL);
}

static void check_mmap_rejects_exec(struct kunit *test)
{
	const struct ddsm_space *s = test->priv;

	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, true, true, 0, UNIT),
			-EPERM);
	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, true, true, 0, SIZE),
			-EPERM);
	/* PROT_EXEC wins over range errors. */
	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, true, true, 0, 0),
			-EPERM);
	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, true, true, SIZE, UNIT),
			-EPERM);
}

static void check_mmap_rejects_range(struct kunit *test)
{
	const struct ddsm_space *s = test->priv;
	const u64 top = U64_MAX & ~(UNIT - 1);

	/* Zero length, misaligned offset or length. */
	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, true, false, 0, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, true, false, 1, UNIT),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, true, false, UNIT / 2,
						  UNIT), -EINVAL);
	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, true, false, 0,
						  UNIT + 1), -EINVAL);

	/* Past the end of the space. */
	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, true, false, SIZE, UNIT),
			-ENXIO);
	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, true, false, 0,
						  SIZE + UNIT), -ENXIO);
	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, true, false, SIZE - UNIT,
						  2 * UNIT), -ENXIO);

	/* off + len wraps around 2^64. */
	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, true, false, UNIT, top),
			-ENXIO);
	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, true, false, top, UNIT),
			-ENXIO);
	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, true, false, UNIT,
						  0 - UNIT), -ENXIO);
}

static void check_mmap_accepts(struct kunit *test)
{
	const struct ddsm_space *s = test->priv;

	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, true, false, 0, UNIT), 0);
	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, true, false, 0, SIZE), 0);
	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, true, false, 3 * UNIT,
						  4 * UNIT), 0);
	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, true, false, SIZE - UNIT,
						  UNIT), 0);
	KUNIT_EXPECT_EQ(test, ddsm_check_mmap_arg(s, true, false, UNIT,
						  SIZE - UNIT), 0);
}

/* @cmd with its number, type and direction, and another size. */
static unsigned int resized(unsigned int cmd, unsigned int size)
{
	return _IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd), size);
}

static void check_ioctl_sizes(struct kunit *test)
{
	static const unsigned int st[] = { 160, 200, 216 };
	static const unsigned int tx[] = { 168, 200, 208, 216, 224 };
	unsigned int i;

	KUNIT_EXPECT_EQ(test, ddsm_ioctl_cmd(DDSM_IOC_STATUS), DDSM_IOC_STATUS);
	KUNIT_EXPECT_EQ(test, ddsm_ioctl_cmd(DDSM_IOC_TX_OUTCOME),
			DDSM_IOC_TX_OUTCOME);
	for (i = 0; i < ARRAY_SIZE(st); i++)
		KUNIT_EXPECT_EQ(test,
				ddsm_ioctl_cmd(resized(DDSM_IOC_STATUS, st[i])),
				DDSM_IOC_STATUS);
	for (i = 0; i < ARRAY_SIZE(tx); i++)
		KUNIT_EXPECT_EQ(test,
				ddsm_ioctl_cmd(resized(DDSM_IOC_TX_STATUS, tx[i])),
				DDSM_IOC_TX_STATUS);
	KUNIT_EXPECT_EQ(test, ddsm_ioctl_cmd(resized(DDSM_IOC_PEER, 128)),
			DDSM_IOC_PEER);
	KUNIT_EXPECT_EQ(test, ddsm_ioctl_cmd(resized(DDSM_IOC_PMEM_STATUS, 208)),
			DDSM_IOC_PMEM_STATUS);
	/* Any other size, direction, type or number: unknown. */
	KUNIT_EXPECT_EQ(test, ddsm_ioctl_cmd(resized(DDSM_IOC_STATUS, 224)), 0U);
	KUNIT_EXPECT_EQ(test, ddsm_ioctl_cmd(resized(DDSM_IOC_STATUS, 0)), 0U);
	KUNIT_EXPECT_EQ(test, ddsm_ioctl_cmd(resized(DDSM_IOC_PEER, 160)), 0U);
	KUNIT_EXPECT_EQ(test, ddsm_ioctl_cmd(resized(DDSM_IOC_HOME, 24)), 0U);
	KUNIT_EXPECT_EQ(test, ddsm_ioctl_cmd(_IOW(DDSM_IOC_MAGIC, 0x01,
						  struct ddsm_status)), 0U);
	KUNIT_EXPECT_EQ(test, ddsm_ioctl_cmd(_IOR('x', 0x01,
						  struct ddsm_status)), 0U);
	KUNIT_EXPECT_EQ(test, ddsm_ioctl_cmd(_IO(DDSM_IOC_MAGIC, 0x7f)), 0U);
}

static struct kunit_case ddsm_ioctl_check_cases[] = {
	KUNIT_CASE(check_uapi_matches_proto),
	KUNIT_CASE(check_peer_rejects_flags),
	KUNIT_CASE(check_peer_rejects_index),
	KUNIT_CASE(check_peer_accepts),
	KUNIT_CASE(check_home_rejects_flags),
	KUNIT_CASE(check_home_rejects_gaddr),
	KUNIT_CASE(check_home_accepts),
	KUNIT_CASE(check_persist_rejects),
	KUNIT_CASE(check_persist_accepts),
	KUNIT_CASE(check_region_args),
	KUNIT_CASE(check_mmap_rejects_private),
	KUNIT_CASE(check_mmap_rejects_exec),
	KUNIT_CASE(check_mmap_rejects_range),
	KUNIT_CASE(check_mmap_accepts),
	KUNIT_CASE(check_ioctl_sizes),
	{}
};

static struct kunit_suite ddsm_ioctl_check_suite = {
	.name = "ddsm_ioctl_check",
	.init = ioctl_check_init,
	.test_cases = ddsm_ioctl_check_cases,
};

kunit_test_suite(ddsm_ioctl_check_suite);

MODULE_DESCRIPTION("KUnit tests for ddsm's ioctl and mmap argument checks");
MODULE_LICENSE("GPL");
