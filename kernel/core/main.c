// SPDX-License-Identifier: GPL-2.0
/*
 * ddsm: one coherent, globally addressed memory over a cluster.
 *
 * Loaded with no parameters, ddsm is a working one-node DSM: every unit is
 * homed here and the protocol runs over the loopback transport, through
 * the same fault, directory and cache code the cluster uses.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/mount.h>
#include <linux/pseudo_fs.h>
#include <linux/fs.h>
#include <linux/string.h>
#include "ddsm.h"

#define DDSM_FS_MAGIC		0x6464736d	/* "ddsm" */
#define DDSM_MAX_SIZE		(64ULL << 30)
#define DDSM_DIR_WAIT_SLOTS	4096

static unsigned long long size = 256ULL << 20;
static ushort mode = 0600;
static unsigned int fault_timeout_ms = 10000;
static char *home_policy = "interleave";

static int size_set(const char *val, const struct kernel_param *kp)
{
	char *end;
	unsigned long long v = memparse(val, &end);

	if (end == val || (*end && *end != '\n'))
		return -EINVAL;
	if (!v || (v & (DDSM_PROTO_UNIT_SIZE - 1)) || v > DDSM_MAX_SIZE) {
		pr_err("size=%s: must be a non-zero multiple of 4K, at most 64G\n",
		       val);
		return -EINVAL;
	}
	*(unsigned long long *)kp->arg = v;
	return 0;
}

static const struct kernel_param_ops size_ops = {
	.set = size_set,
	.get = param_get_ullong,
};

module_param_cb(size, &size_ops, &size, 0444);
MODULE_PARM_DESC(size, "Bytes of global space, K/M/G suffixes allowed (default 256M, at most 64G)");
module_param(mode, ushort, 0444);
MODULE_PARM_DESC(mode, "Permissions of /dev/ddsm (default 0600)");
module_param(fault_timeout_ms, uint, 0644);
MODULE_PARM_DESC(fault_timeout_ms, "A fault waiting longer than this gets SIGBUS (default 10000)");
module_param(home_policy, charp, 0444);
MODULE_PARM_DESC(home_policy, "Unit placement: interleave (round robin) or range (contiguous slices)");

static struct vfsmount *ddsm_mnt;
static int ddsm_mnt_count;
static struct ddsm_node *ddsm_node;

static int ddsm_fs_init_fs_context(struct fs_context *fc)
{
	return init_pseudo(fc, DDSM_FS_MAGIC) ? 0 : -ENOMEM;
}

/*
 * Never registered and with no owner: it only gives the module one inode
 * whose address_space all mappings share, and must not pin the module.
 */
static struct file_system_type ddsm_fs_type = {
	.name = "ddsm",
	.init_fs_context = ddsm_fs_init_fs_context,
	.kill_sb = kill_anon_super,
};

static int ddsm_mapping_init(struct ddsm_node *n)
{
	int ret;

	ret = simple_pin_fs(&ddsm_fs_type, &ddsm_mnt, &ddsm_mnt_count);
	if (ret)
		return ret;
	n->inode = alloc_anon_inode(ddsm_mnt->mnt_sb);
	if (IS_ERR(n->inode)) {
		ret = PTR_ERR(n->inode);
		n->inode = NULL;
		simple_release_fs(&ddsm_mnt, &ddsm_mnt_count);
		return ret;
	}
	n->mapping = n->inode->i_mapping;
	return 0;
}

static void ddsm_mapping_exit(struct ddsm_node *n)
{
	if (!n->inode)
		return;
	iput(n->inode);
	simple_release_fs(&ddsm_mnt, &ddsm_mnt_count);
}

static int parse_policy(const char *s, enum ddsm_home_policy *p)
{
	if (sysfs_streq(s, "interleave"))
		*p = DDSM_HOME_INTERLEAVE;
	else if (sysfs_streq(s, "range"))
		*p = DDSM_HOME_RANGE;
	else
		return -EINVAL;
	return 0;
}

static void ddsm_node_free(struct ddsm_node *n)
{
	ddsm_frames_destroy(&n->frames);
	kvfree(n->cache.lines);
	kvfree(n->dir.entries);
	kvfree(n->dir.pool);
	kfree(n->rx_actions);
	kfree(n);
}

static struct ddsm_node *ddsm_node_alloc(void)
{
	enum ddsm_home_policy policy;
	struct ddsm_dir_entry *entries;
	struct ddsm_dir_wait *pool;
	struct ddsm_cline *lines;
	struct ddsm_node *n;
	u64 homed;
	int i, ret;

	if (parse_policy(home_policy, &policy)) {
		pr_err("home_policy=%s: expected interleave or range\n",
		       home_policy);
		return ERR_PTR(-EINVAL);
	}
	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n)
		return ERR_PTR(-ENOMEM);
	ret = ddsm_space_init(&n->space, size, 1, 0, policy);
	if (ret) {
		pr_err("bad geometry: size=%llu\n", size);
		kfree(n);
		return ERR_PTR(ret);
	}
	homed = ddsm_space_units_homed(&n->space, n->space.node_id);

	n->rx_actions = kcalloc(DDSM_MAX_ACTIONS, sizeof(*n->rx_actions),
				GFP_KERNEL);
	lines = kvcalloc(n->space.nr_units, sizeof(*lines), GFP_KERNEL);
	entries = kvcalloc(homed, sizeof(*entries), GFP_KERNEL);
	pool = kvcalloc(DDSM_DIR_WAIT_SLOTS, sizeof(*pool), GFP_KERNEL);
	n->cache.lines = lines;
	n->dir.entries = entries;
	n->dir.pool = pool;
	if (!n->rx_actions || !lines || !entries || !pool ||
	    ddsm_frames_init(&n->frames, homed)) {
		pr_err("no memory for the metadata of %llu units\n",
		       n->space.nr_units);
		ddsm_node_free(n);
		return ERR_PTR(-ENOMEM);
	}
	ddsm_cache_init(&n->cache, &n->space, lines);
	ddsm_dir_init(&n->dir, &n->space, entries, homed, pool,
		      DDSM_DIR_WAIT_SLOTS);

	mutex_init(&n->rx_lock);
	for (i = 0; i < DDSM_CL_LOCKS; i++) {
		mutex_init(&n->cl_locks[i]);
		init_waitqueue_head(&n->cl_waits[i]);
	}
	n->fault_timeout_ms = fault_timeout_ms;
	return n;
}

static int __init ddsm_init(void)
{
	struct ddsm_node *n;
	int ret;

	if (mode & ~0777) {
		pr_err("mode=%#o: only permission bits are allowed\n", mode);
		return -EINVAL;
	}
	n = ddsm_node_alloc();
	if (IS_ERR(n))
		return PTR_ERR(n);

	ret = ddsm_mapping_init(n);
	if (ret) {
		pr_err("cannot create the shared mapping: %d\n", ret);
		goto err_free;
	}
	n->tp = ddsm_loop_create(n->space.node_id, ddsm_rx, n);
	if (!n->tp) {
		ret = -ENOMEM;
		goto err_mapping;
	}
	ret = ddsm_dev_register(n, mode);
	if (ret) {
		pr_err("cannot register /dev/%s: %d\n", DDSM_DEV_NAME, ret);
		goto err_tp;
	}
	ddsm_node = n;
	pr_info("node %u of %u, %llu bytes in %llu units, transport %s\n",
		n->space.node_id, n->space.nr_nodes, n->space.size,
		n->space.nr_units, n->tp->ops->name);
	return 0;

err_tp:
	n->tp->ops->destroy(n->tp);
err_mapping:
	ddsm_mapping_exit(n);
err_free:
	ddsm_node_free(n);
	return ret;
}

static void __exit ddsm_exit(void)
{
	struct ddsm_node *n = ddsm_node;

	/* No file is open (they pin the module), so no mapping is left. */
	ddsm_dev_unregister(n);
	n->tp->ops->destroy(n->tp);
	ddsm_mapping_exit(n);
	ddsm_node_free(n);
	pr_info("unloaded\n");
}

module_init(ddsm_init);
module_exit(ddsm_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Distributed shared memory over RDMA with directory coherence");
MODULE_AUTHOR("ddsm developers");
