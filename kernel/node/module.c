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
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/mount.h>
#include <linux/pseudo_fs.h>
#include <linux/fs.h>
#include <linux/string.h>
#include <linux/debugfs.h>
#include "node.h"
#include "params.h"
#include "../tx/tx.h"
#include "../selftest/selftest.h"

#define DDSM_FS_MAGIC		0x6464736d	/* "ddsm" */

/* The one table of the ways back into node/ (node.h). */
static const struct ddsm_node_ops ddsm_node_ops = {
	.send_part = ddsm_send_msg_part,
	.run_actions = ddsm_run_actions,
	.evict = ddsm_evict,
	.access = ddsm_access,
};

static struct vfsmount *ddsm_mnt;
static struct dentry *ddsm_debugfs;
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

static void ddsm_node_init_locks(struct ddsm_node *n)
{
	int i;

	mutex_init(&n->rx_lock);
	ddsm_vmas_init(&n->vmas);
	init_waitqueue_head(&n->peer_wait);
	init_rwsem(&n->cfg_sem);
	ddsm_holds_init(n);
	ddsm_rejoin_init(n);
	ddsm_barrier_init(n);
	ddsm_replica_init(n);
	for (i = 0; i < DDSM_CL_LOCKS; i++) {
		mutex_init(&n->cl_locks[i]);
		init_waitqueue_head(&n->cl_waits[i]);
	}
}

/* The node's state, from the parameters; @l: the rest of the load's. */
static struct ddsm_node *node_alloc(struct ddsm_load *l)
{
	struct ddsm_node *n;
	int ret;

	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n)
		return ERR_PTR(-ENOMEM);
	n->ops = &ddsm_node_ops;
	ret = ddsm_params_fill(&n->params, l);
	if (ret) {
		kfree(n);
		return ERR_PTR(ret);
	}
	ddsm_node_init_locks(n);
	ret = ddsm_tx_init(n);
	if (ret) {
		kfree(n);
		return ERR_PTR(ret);
	}
	return n;
}

static int __init ddsm_init(void)
{
	struct sockaddr_in *addrs;
	struct ddsm_load l;
	struct ddsm_node *n;
	int nr, ret;

	ret = ddsm_params_check();
	if (ret)
		return ret;
	addrs = kcalloc(DDSM_MAX_NODES, sizeof(*addrs), GFP_KERNEL);
	if (!addrs)
		return -ENOMEM;
	n = node_alloc(&l);
	if (IS_ERR(n)) {
		kfree(addrs);
		return PTR_ERR(n);
	}
	nr = ddsm_parse_nodes(l.nodes, n->params.port, addrs);
	if (nr < 0) {
		ret = nr;
		goto err_free;
	}
	if (l.node_id >= max(nr, 1)) {
		pr_err("node_id=%u: nodes= lists %d nodes\n", l.node_id, nr);
		ret = -EINVAL;
		goto err_free;
	}
	ret = ddsm_key_load(&n->params, l.auth_key);
	if (ret)
		goto err_free;
	ddsm_debugfs = ddsm_test_debugfs_dir();
	n->params.debugfs = ddsm_debugfs;

	ret = ddsm_mapping_init(n);
	if (ret) {
		pr_err("cannot create the shared mapping: %d\n", ret);
		goto err_debugfs;
	}
	ret = ddsm_node_build(n, max(nr, 1), l.node_id, addrs);
	if (ret)
		goto err_mapping;
	ret = ddsm_shrinker_register(n);
	if (ret) {
		pr_err("cannot register the frame shrinker: %d\n", ret);
		goto err_build;
	}
	ret = ddsm_dev_register(n, l.mode);
	if (ret) {
		pr_err("cannot register /dev/%s: %d\n", DDSM_DEV_NAME, ret);
		goto err_shrinker;
	}
	kfree(addrs);
	ddsm_node = n;
	return 0;

err_shrinker:
	ddsm_shrinker_unregister(n);
err_build:
	ddsm_node_unbuild(n);
err_mapping:
	ddsm_mapping_exit(n);
err_debugfs:
	debugfs_remove_recursive(ddsm_debugfs);
err_free:
	ddsm_tx_free(n);
	ddsm_key_free(&n->params);
	kfree(addrs);
	kfree(n);
	return ret;
}

static void __exit ddsm_exit(void)
{
	struct ddsm_node *n = ddsm_node;

	/* The start as well as the end: what ran in between ran into it. */
	pr_info("unloading\n");
	/* No file is open (they pin the module), so no mapping is left. */
	ddsm_dev_unregister(n);
	ddsm_shrinker_unregister(n);
	ddsm_node_unbuild(n);
	debugfs_remove_recursive(ddsm_debugfs);
	ddsm_mapping_exit(n);
	ddsm_tx_free(n);
	ddsm_key_free(&n->params);
	kfree(n);
	pr_info("unloaded\n");
}

module_init(ddsm_init);
module_exit(ddsm_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Distributed shared memory over RDMA with directory coherence");
MODULE_AUTHOR("ddsm developers");
