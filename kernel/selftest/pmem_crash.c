// SPDX-License-Identifier: GPL-2.0
/*
 * Self-test build only: the persist-domain checker (pmem_check=1) and
 * the crash tests' debugfs files.  With it the store works on a DRAM copy of the
 * namespace and only flushed and fenced lines reach the media
 * (pmem/shadow.c); ddsm/pmem_crash and ddsm/pmem_crash_arm play a power
 * failure, ddsm/pmem_slots shows every slot's timestamp.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/random.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include "../node/node.h"
#include "../durable/durable.h"
#include "../durable/persist.h"
#include "selftest.h"
#include "../pmem/shadow.h"

/* debugfs ddsm/pmem_crash: write P, and each unfenced line survives with P%. */
static ssize_t crash_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	struct ddsm_persist *p = file->private_data;
	struct ddsm_pm_shadow_rng rng = { .state = get_random_u64() };
	u64 dropped;
	int ret;

	ret = kstrtou32_from_user(ubuf, len, 0, &rng.pct);
	if (ret)
		return ret;
	if (rng.pct > 100)
		return -EINVAL;
	mutex_lock(&p->lock);
	if (p->crashed) {
		mutex_unlock(&p->lock);
		return -EALREADY;
	}
	p->crashed = true;
	dropped = ddsm_pm_shadow_crash(p->shadow, ddsm_pm_shadow_keep_random,
				       &rng);
	mutex_unlock(&p->lock);
	pr_warn("pmem %s: simulated power failure: %llu unfenced pieces dropped, %llu kept (%u%%); nothing more reaches the media\n",
		p->dev.name, dropped, p->shadow->kept, rng.pct);
	return len;
}

static const struct file_operations crash_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = crash_write,
	.llseek = no_llseek,
};

/*
 * debugfs ddsm/pmem_crash_arm: write "N P": the power fails at the N-th
 * fence from now, inside whatever the store is doing then (a log append,
 * an apply), each unfenced line surviving with P%.  A crash in the middle
 * of a commit is what the recovery has to survive; a crash between two
 * commits (pmem_crash) finds nothing unfenced.
 */
static ssize_t arm_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	struct ddsm_persist *p = file->private_data;
	char buf[32];
	u64 nth;
	u32 pct;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (sscanf(buf, "%llu %u", &nth, &pct) != 2 || !nth || pct > 100)
		return -EINVAL;
	mutex_lock(&p->lock);
	if (p->crashed || p->shadow->crashed) {
		mutex_unlock(&p->lock);
		return -EALREADY;
	}
	p->arm_rng.state = get_random_u64();
	p->arm_rng.pct = pct;
	ddsm_pm_shadow_arm(p->shadow, nth, ddsm_pm_shadow_keep_random,
			   &p->arm_rng);
	mutex_unlock(&p->lock);
	pr_info("pmem %s: simulated power failure armed at fence %llu (%llu from now)\n",
		p->dev.name, p->shadow->crash_fence, nth);
	return len;
}

static const struct file_operations arm_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = arm_write,
	.llseek = no_llseek,
};

/*
 * debugfs ddsm/pmem_slots: "unit ts" for every slot that holds an image
 * (the units placed here, then the replicas).  The crash tests read it at
 * each boot: a unit's timestamp must never go back across a crash and its
 * recovery (MINOS's no-rollback), whatever the data says.
 */
static int slots_show(struct seq_file *sf, void *unused)
{
	struct ddsm_persist *p = sf->private;
	u64 idx, ts;
	int ret;

	for (idx = 0; idx < p->nr_home; idx++) {
		mutex_lock(&p->lock);
		ret = ddsm_pstore_slot_ts(&p->ps, idx, &ts);
		mutex_unlock(&p->lock);
		if (!ret)
			seq_printf(sf, "%llu %llu\n", ddsm_persist_unit_of(p->n, idx), ts);
		else if (ret == -EBADMSG)
			seq_printf(sf, "%llu torn\n", ddsm_persist_unit_of(p->n, idx));
		cond_resched();
	}
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(slots);

/*
 * The persist-domain checker between the store and the media: the store
 * sees a DRAM copy; only the lines it flushes and fences are copied to
 * the namespace, so a VM killed at any moment leaves on its NVDIMM file
 * exactly what a power failure that dropped every unfenced line would.
 */
int ddsm_pmem_check_start(struct ddsm_persist *p)
{
	struct ddsm_node *n = p->n;
	u64 len = p->dev.bytes;
	int ret;

	p->shadow = kzalloc(sizeof(*p->shadow), GFP_KERNEL);
	p->work_copy = vmalloc(len);
	p->flushed = vzalloc(DDSM_PM_SHADOW_BITMAP_BYTES(len));
	if (!p->shadow || !p->work_copy || !p->flushed) {
		pr_err("pmem %s: pmem_check needs %llu MiB of memory\n",
		       p->dev.name, len >> 20);
		return -ENOMEM;
	}
	memcpy(p->work_copy, p->dev.kaddr, len);
	ret = ddsm_pm_shadow_init(p->shadow, p->work_copy, p->dev.kaddr,
				  p->flushed, len);
	if (ret)
		return ret;
	/* pmem is failure atomic per aligned 8 bytes, not per line. */
	p->shadow->tear_words = true;
	p->ops = ddsm_pm_shadow_ops(p->shadow);
	if (n->params.debugfs) {
		p->crash_file = debugfs_create_file("pmem_crash", 0200,
						    n->params.debugfs, p,
						    &crash_fops);
		p->arm_file = debugfs_create_file("pmem_crash_arm", 0200,
						  n->params.debugfs, p,
						  &arm_fops);
	}
	pr_warn("pmem %s: pmem_check: stores go to a DRAM copy, only fenced lines reach the media\n",
		p->dev.name);
	return 0;
}

void ddsm_pmem_check_stop(struct ddsm_persist *p)
{
	debugfs_remove(p->arm_file);
	debugfs_remove(p->crash_file);
	p->arm_file = NULL;
	p->crash_file = NULL;
	vfree(p->flushed);
	vfree(p->work_copy);
	kfree(p->shadow);
	p->flushed = NULL;
	p->work_copy = NULL;
	p->shadow = NULL;
}

/* debugfs ddsm/pmem_slots, for the crash tests (slots_show()). */
void ddsm_pmem_slots_add(struct ddsm_persist *p)
{
	struct ddsm_node *n = p->n;

	if (n->params.debugfs)
		p->slots_file = debugfs_create_file("pmem_slots", 0400,
						    n->params.debugfs, p,
						    &slots_fops);
}

void ddsm_pmem_slots_remove(struct ddsm_persist *p)
{
	debugfs_remove(p->slots_file);
	p->slots_file = NULL;
}
