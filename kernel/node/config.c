// SPDX-License-Identifier: GPL-2.0
/*
 * Building a node's state from its cluster configuration, and replacing it
 * at runtime (DDSM_IOC_CONFIGURE, ddsmctl configure) while nothing is
 * mapped: the geometry of the space (who homes what) depends on the node
 * list, so everything sized by it is rebuilt.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/inet.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include "node.h"
#include "../selftest/selftest.h"
#include "../tx/tx.h"

#define DDSM_DIR_WAIT_SLOTS	4096

int ddsm_parse_nodes(const char *list, u16 port, struct sockaddr_in *addrs)
{
	const char *p = list;
	int count = 0;

	while (*p && *p != '\n') {
		const char *end;
		struct sockaddr_in *a;

		if (count == DDSM_MAX_NODES) {
			pr_err("nodes: more than %d nodes\n", DDSM_MAX_NODES);
			return -EINVAL;
		}
		a = &addrs[count];
		if (!in4_pton(p, -1, (u8 *)&a->sin_addr.s_addr, ',', &end) ||
		    (*end && *end != ',' && *end != '\n')) {
			pr_err("nodes: entry %d is not an IPv4 address\n", count);
			return -EINVAL;
		}
		a->sin_family = AF_INET;
		a->sin_port = htons(port);
		count++;
		p = *end == ',' ? end + 1 : end;
	}
	return count;
}

static struct ddsm_transport *make_transport(struct ddsm_node *n,
					     const struct sockaddr_in *addrs)
{
	struct ddsm_rdma_config *cfg;
	struct ddsm_transport *tp;

	if (n->space.nr_nodes == 1) {
		tp = ddsm_loop_create(n->space.node_id, ddsm_rx, n);
		return tp ? tp : ERR_PTR(-ENOMEM);
	}
	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return ERR_PTR(-ENOMEM);
	memcpy(cfg->addrs, addrs, n->space.nr_nodes * sizeof(*addrs));
	cfg->self = n->space.node_id;
	cfg->nr_nodes = n->space.nr_nodes;
	cfg->heartbeat_ms = n->params.heartbeat_ms;
	cfg->peer_timeout_ms = n->params.peer_timeout_ms;
	cfg->reconnect_ms = n->params.reconnect_ms;
	cfg->frames = n->params.rdma_frames;
	cfg->inject = n->params.inject;
	cfg->debugfs = n->params.debugfs;
	cfg->auth_key = n->params.auth_key;
	cfg->auth_key_len = n->params.auth_key_len;
	/* Said at every cluster start: the address list is then the only gate. */
	if (!cfg->auth_key_len)
		pr_warn("%u nodes without auth_key: peers are trusted by their IP address alone\n",
			cfg->nr_nodes);
	cfg->space_size = n->space.size;
	cfg->home_policy = n->space.policy;
	tp = ddsm_rdma_create(cfg, ddsm_rx, ddsm_peer_event, n);
	kfree(cfg);
	return tp;
}

static void free_state(struct ddsm_node *n)
{
	ddsm_frames_destroy(&n->frames);
	kvfree(n->cache.lines);
	kvfree(n->dir.entries);
	kvfree(n->dir.pool);
	kfree(n->rx_actions);
	n->cache.lines = NULL;
	n->dir.entries = NULL;
	n->dir.pool = NULL;
	n->rx_actions = NULL;
}

static int alloc_state(struct ddsm_node *n)
{
	u64 homed = ddsm_space_local_units(&n->space);

	n->rx_actions = kcalloc(DDSM_MAX_ACTIONS, sizeof(*n->rx_actions),
				GFP_KERNEL);
	n->cache.lines = kvcalloc(n->space.nr_units, sizeof(*n->cache.lines),
				  GFP_KERNEL);
	n->dir.entries = kvcalloc(homed, sizeof(*n->dir.entries), GFP_KERNEL);
	n->dir.pool = kvcalloc(DDSM_DIR_WAIT_SLOTS, sizeof(*n->dir.pool),
			       GFP_KERNEL);
	if (!n->rx_actions || !n->cache.lines || !n->dir.entries ||
	    !n->dir.pool || ddsm_frames_init(&n->frames, homed,
					     n->space.nr_units,
					     n->space.nr_nodes > 1,
					     n->params.cache_frames)) {
		pr_err("no memory for the metadata of %llu units\n",
		       n->space.nr_units);
		free_state(n);
		return -ENOMEM;
	}
	ddsm_cache_init(&n->cache, &n->space, n->cache.lines);
	ddsm_dir_init(&n->dir, &n->space, n->dir.entries, homed, n->dir.pool,
		      DDSM_DIR_WAIT_SLOTS);
	n->dir.rejoin = n->params.rejoin_ms != 0;
	n->cache.keep_orphans = n->params.rejoin_ms != 0;
	n->dir.migrate = n->params.migratory;
	n->dir.handoff = n->params.handoff;
	return 0;
}

int ddsm_node_build(struct ddsm_node *n, u32 nr_nodes, u32 self,
		    const struct sockaddr_in *addrs)
{
	int ret;

	/* Self-test build only: a failure on demand, before any change. */
	if (ddsm_test_fail_build()) {
		pr_warn("test_fail_build: this build fails with ENOMEM\n");
		return -ENOMEM;
	}
	ret = ddsm_space_init(&n->space, n->params.size, nr_nodes, self,
			      n->params.policy);
	if (ret) {
		pr_err("bad geometry: size=%llu nodes=%u node_id=%u\n",
		       n->params.size, nr_nodes, self);
		return ret;
	}
	if (n->params.nr_backups && nr_nodes < 2) {
		pr_err("nr_backups=%u needs at least 2 nodes\n",
		       n->params.nr_backups);
		return -EINVAL;
	}
	n->space.nr_backups = n->params.nr_backups;
	ret = alloc_state(n);
	if (ret)
		return ret;
	ddsm_barrier_resume(n);
	ddsm_tx_resume(n);
	/* Homed units come back from pmem before any peer can ask for one. */
	ret = ddsm_persist_mount(n, nr_nodes > 1 ? addrs : NULL);
	if (ret) {
		free_state(n);
		return ret;
	}
	ddsm_replica_start(n);
	n->tp = make_transport(n, addrs);
	if (IS_ERR(n->tp)) {
		ret = PTR_ERR(n->tp);
		n->tp = NULL;
		ddsm_persist_unmount(n);
		free_state(n);
		return ret;
	}
	ddsm_replica_run(n);
	n->built = true;
	pr_info("node %u of %u, %llu bytes in %llu units, transport %s\n",
		n->space.node_id, n->space.nr_nodes, n->space.size,
		n->space.nr_units, n->tp->ops->name);
	return 0;
}

void ddsm_node_unbuild(struct ddsm_node *n)
{
	n->built = false;
	/*
	 * The last images go to the backup while there is a transport to
	 * carry them: a backup that takes over later must have them.
	 */
	ddsm_persist_flush_all(n);
	/*
	 * The persist worker, the hold timer and a closing rejoin window
	 * (which may take units over) send: stop them first, the window
	 * before the replica, whose works a takeover arms.
	 */
	ddsm_rejoin_quiesce(n);
	ddsm_replica_quiesce(n);
	ddsm_barrier_quiesce(n);
	ddsm_holds_quiesce(n);
	ddsm_tx_quiesce(n);
	if (n->tp)
		n->tp->ops->destroy(n->tp);
	n->tp = NULL;
	ddsm_holds_stop(n);
	ddsm_rejoin_stop(n);
	ddsm_barrier_stop(n);
	ddsm_replica_stop(n);
	ddsm_persist_unmount(n);
	free_state(n);
}

int ddsm_reconfigure(struct ddsm_node *n, u32 self, const char *list)
{
	struct sockaddr_in *addrs;
	int nr, ret;

	lockdep_assert_held_write(&n->cfg_sem);
	addrs = kcalloc(DDSM_MAX_NODES, sizeof(*addrs), GFP_KERNEL);
	if (!addrs)
		return -ENOMEM;
	nr = ddsm_parse_nodes(list, n->params.port, addrs);
	if (nr < 0 || self >= max(nr, 1)) {
		kfree(addrs);
		return -EINVAL;
	}
	/* Nothing is mapped, so no fault can see the state change under it. */
	if (atomic64_read(&n->stats.mappings) ||
	    atomic64_read(&n->frames.resident)) {
		kfree(addrs);
		return -EBUSY;
	}
	ddsm_node_unbuild(n);
	ret = ddsm_node_build(n, max(nr, 1), self, addrs);
	if (ret) {
		pr_err("reconfiguration failed (%d): back to one node\n", ret);
		if (ddsm_node_build(n, 1, 0, addrs))
			pr_err("cannot rebuild even one node: every call but CONFIGURE and STATUS fails with EIO until a CONFIGURE succeeds\n");
	}
	kfree(addrs);
	return ret;
}
