// SPDX-License-Identifier: GPL-2.0
/*
 * Self-test build only: a media error on demand.  DDSM_IOC_PERSIST and
 * DDSM_IOC_REGION promise EIO when the media failed, and a namespace in
 * QEMU never fails, so without this no test could see either.
 *
 * debugfs ddsm/pmem_fail (with pmem=), or the module parameter
 * test_pmem_fail (/sys/module/ddsm/parameters/, no debugfs needed): write
 * N, and the next N writes to the media fail with EIO as a failed one
 * would (a batch of unit images, whoever makes it: the flusher, a
 * barrier, a durable write; or a region table entry), so that
 * DDSM_IOC_PERSIST and DDSM_IOC_REGION return EIO; read either for how
 * many are left.  The flusher's batches count too, so a test that wants
 * a barrier to see the error writes to a Scope region, which the flusher
 * leaves alone.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>
#include "../node/node.h"
#include "../durable/persist.h"
#include "selftest.h"

/* One store per module (one node), so one count. */
static atomic_t fail_next = ATOMIC_INIT(0);
static struct dentry *fail_file;

static int fail_get(void *data, u64 *val)
{
	*val = atomic_read(&fail_next);
	return 0;
}

static int fail_set(void *data, u64 val)
{
	if (val > INT_MAX)
		return -EINVAL;
	atomic_set(&fail_next, val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(fail_fops, fail_get, fail_set, "%llu\n");

/* The same count as a module parameter. */
static int fail_param_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v > INT_MAX)
		return -EINVAL;
	atomic_set(&fail_next, v);
	return 0;
}

static int fail_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&fail_next));
}

static const struct kernel_param_ops fail_param_ops = {
	.set = fail_param_set,
	.get = fail_param_get,
};

module_param_cb(test_pmem_fail, &fail_param_ops, &fail_next, 0644);
MODULE_PARM_DESC(test_pmem_fail, "Test only: the next N writes to the pmem media (unit image batches, region table entries) fail with EIO; cleared when the namespace is unmounted (default 0)");

bool ddsm_test_pmem_fail(void)
{
	return atomic_add_unless(&fail_next, -1, 0);
}

void ddsm_pmem_fail_add(struct ddsm_persist *p)
{
	struct ddsm_node *n = p->n;

	if (n->params.debugfs)
		fail_file = debugfs_create_file_unsafe("pmem_fail", 0600,
						       n->params.debugfs, NULL,
						       &fail_fops);
}

/* A count left over must not fail the next mount's first writes. */
void ddsm_pmem_fail_remove(struct ddsm_persist *p)
{
	debugfs_remove(fail_file);
	fail_file = NULL;
	atomic_set(&fail_next, 0);
}
