// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module parameters, in the self-test build alone
 * (DDSM_SELFTEST=y, what make check loads): they slow or change the
 * protocol on purpose so that a test can catch a window.  The production
 * module has none of them: the code that reads them goes through
 * selftest.h, whose helpers are constants there.
 */
#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>
#include "selftest.h"

/*
 * Test only (tests/vm/txdeath.sh, tx/commit.c): hold every commit this long between
 * its last ACK and its Validations, so that a node killed mid-run almost
 * surely leaves commits locked at the survivors.
 */
static unsigned int tx_validate_delay_ms;
module_param(tx_validate_delay_ms, uint, 0644);
MODULE_PARM_DESC(tx_validate_delay_ms, "Test only: pause between a commit's last ACK and its Validations (ms, default 0)");

/*
 * Test only (tests/vm/txdeath.sh, tx/owed.c and commit.c): pause this long after a commit's
 * first Validation to another node, so that a node killed mid-run leaves
 * commits applied at one survivor and locked at another (roll-forward).
 */
static unsigned int tx_validate_gap_ms;
module_param(tx_validate_gap_ms, uint, 0644);
MODULE_PARM_DESC(tx_validate_gap_ms, "Test only: pause after a commit's first Validation to another node (ms, default 0)");

/*
 * Test only (ddsm-test-txapi's forced race, tx/readv.c): READV asks for the first
 * part of a read that goes on at another home this long after its other
 * requests, so that commits land at that home after the other reads
 * were answered.  With tx_squash_off (below) that is the order in
 * which the code before 75be308 returned a record torn.
 */
static unsigned int tx_readv_lag_ms;
module_param(tx_readv_lag_ms, uint, 0644);
MODULE_PARM_DESC(tx_readv_lag_ms, "Test only: READV asks for the first part of a read across homes this much later (ms, default 0, at most 1000)");

/*
 * Test only (ddsm-test-txapi's forced race, tx/home.c): tell no doomed transaction
 * that it is.  The tombstone left here still refuses its Intend and its
 * reads, so it learns when it next asks this home; what it read until
 * then must still be whole (tx/read.c, confirm()).
 */
static bool tx_squash_off;
module_param(tx_squash_off, bool, 0644);
MODULE_PARM_DESC(tx_squash_off, "Test only: send no SQUASH; a doomed transaction learns it when it next asks a home (default off)");

/*
 * Test only (tests/vm/transport_mesh.sh): debugfs ddsm/inject sends
 * malformed messages to a peer (selftest/rdma.c).
 */
static bool inject;
module_param(inject, bool, 0444);
MODULE_PARM_DESC(inject, "Test only: debugfs ddsm/inject sends malformed messages (default off)");

/*
 * Test only (tests/vm/teardown, durable/takeover.c): pause this long in a
 * takeover between taking the units and announcing it (which arms the
 * bound of its wait for the others' copies), so that an rmmod lands there.
 */
static unsigned int takeover_delay_ms;
module_param(takeover_delay_ms, uint, 0644);
MODULE_PARM_DESC(takeover_delay_ms, "Test only: pause in a backup's takeover before it announces it (ms, default 0, at most 10000)");

/*
 * Test only (tests/vm/membound, durable/replica.c): a backup persists
 * each batch of its predecessor's images this much later, so that a
 * resync finds it slow and its bounds are what holds the memory.
 */
static unsigned int replica_delay_ms;
module_param(replica_delay_ms, uint, 0644);
MODULE_PARM_DESC(replica_delay_ms, "Test only: pause before a backup persists each batch of replica images (ms, default 0, at most 1000)");

/* Test only: the persist-domain checker (selftest/pmem_crash.c). */
static bool pmem_check;
module_param(pmem_check, bool, 0444);
MODULE_PARM_DESC(pmem_check, "Test only: pmem stores go to a DRAM copy and only flushed and fenced lines reach the media; debugfs ddsm/pmem_crash simulates a power failure (default off)");

/*
 * Test only (tests/vm/one_node, node/config.c): the next N calls of
 * ddsm_node_build() fail with ENOMEM before they touch anything.  2 makes
 * a DDSM_IOC_CONFIGURE's rebuild and its fallback to one node both fail,
 * which leaves the node unbuilt: every call but CONFIGURE and STATUS,
 * and mmap, fail with EIO until a CONFIGURE succeeds.  Read it for how
 * many are left.
 */
static atomic_t test_fail_build = ATOMIC_INIT(0);

static int fail_build_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v > INT_MAX)
		return -EINVAL;
	atomic_set(kp->arg, v);
	return 0;
}

static int fail_build_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(kp->arg));
}

static const struct kernel_param_ops fail_build_ops = {
	.set = fail_build_set,
	.get = fail_build_get,
};

module_param_cb(test_fail_build, &fail_build_ops, &test_fail_build, 0644);
MODULE_PARM_DESC(test_fail_build, "Test only: the next N node builds (load, DDSM_IOC_CONFIGURE and its fallback) fail with ENOMEM (default 0)");

bool ddsm_test_fail_build(void)
{
	return atomic_add_unless(&test_fail_build, -1, 0);
}

unsigned int ddsm_test_validate_delay_ms(void)
{
	return READ_ONCE(tx_validate_delay_ms);
}

unsigned int ddsm_test_validate_gap_ms(void)
{
	return READ_ONCE(tx_validate_gap_ms);
}

unsigned int ddsm_test_readv_lag_ms(void)
{
	return READ_ONCE(tx_readv_lag_ms);
}

unsigned int ddsm_test_takeover_delay_ms(void)
{
	return min(READ_ONCE(takeover_delay_ms), 10000U);
}

unsigned int ddsm_test_replica_delay_ms(void)
{
	return min(READ_ONCE(replica_delay_ms), 1000U);
}

bool ddsm_test_squash_off(void)
{
	return READ_ONCE(tx_squash_off);
}

bool ddsm_test_inject(void)
{
	return inject;
}

bool ddsm_test_pmem_check(void)
{
	return pmem_check;
}
