// SPDX-License-Identifier: GPL-2.0
/*
 * The module's parameters: what a user may set at load (and, for a few,
 * at run time), checked here, and handed to the node as struct
 * ddsm_params (node.h).  Nothing else of the module reads them directly.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/moduleparam.h>
#include <linux/string.h>
#include "node.h"
#include "params.h"
#include "../selftest/selftest.h"
#include "../pmem/layout.h"

static unsigned long long size = 256ULL << 20;
static ushort mode = 0600;
static unsigned int fault_timeout_ms = 10000;
static unsigned int grace_us = 200;
static char *home_policy = "interleave";
static unsigned int node_id;
static char *nodes = "";
static ushort port = 18515;
static unsigned int heartbeat_ms = 200;
static unsigned int peer_timeout_ms = 3000;
static unsigned int reconnect_ms = 1000;
static unsigned int rdma_frames = 256;
static unsigned long cache_frames = 65536;
static char *auth_key = "";
static unsigned int rejoin_ms = 30000;
static bool migratory = true;
static bool handoff = true;
static char *pmem = "";
static bool pmem_format;
static char *pmem_model = "eventual";
static unsigned int pmem_flush_ms = 100;
static unsigned long long cluster_id;
static unsigned int nr_backups;

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
/*
 * An unsigned parameter out of [@lo, @hi] is refused with EINVAL and a
 * log line, at load and on a sysfs write alike; the kernel's own
 * param_set_uint_minmax() would refuse it without saying why.
 */
static int parse_bounded(const char *val, const struct kernel_param *kp,
			 unsigned int lo, unsigned int hi, unsigned int *v)
{
	if (kstrtouint(val, 0, v) || *v < lo || *v > hi) {
		/* Without the newline a sysfs write brings, on one line. */
		pr_err("%s=%.*s: must be %u..%u\n", kp->name,
		       (int)strcspn(val, "\n"), val, lo, hi);
		return -EINVAL;
	}
	return 0;
}

static int set_bounded(const char *val, const struct kernel_param *kp,
		       unsigned int lo, unsigned int hi)
{
	unsigned int v;
	int ret = parse_bounded(val, kp, lo, hi, &v);

	if (!ret)
		WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return ret;
}

/*
 * One set function per range: struct kernel_param carries no bounds of
 * its own (but for arrays and strings), so each range is its own ops.
 */
#define DDSM_BOUNDED_OPS(name, lo, hi)					\
static int name##_set(const char *val, const struct kernel_param *kp)	\
{									\
	return set_bounded(val, kp, lo, hi);				\
}									\
static const struct kernel_param_ops name##_ops = {			\
	.set = name##_set,						\
	.get = param_get_uint,						\
}

DDSM_BOUNDED_OPS(heartbeat, 10, 1800000);
DDSM_BOUNDED_OPS(peer_timeout, 20, 3600000);
DDSM_BOUNDED_OPS(reconnect, 10, 3600000);
DDSM_BOUNDED_OPS(rejoin, 0, 3600000);
DDSM_BOUNDED_OPS(tx_defer, 0, 100000);

/* A port is a ushort, but 0 is no port and 65536 is not ERANGE but EINVAL. */
static int port_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int ret = parse_bounded(val, kp, 1, 65535, &v);

	if (!ret)
		*(ushort *)kp->arg = v;
	return ret;
}

static const struct kernel_param_ops port_ops = {
	.set = port_set,
	.get = param_get_ushort,
};

/* Writable at run time: every fault reads it when it starts waiting. */
static int fault_timeout_set(const char *val, const struct kernel_param *kp)
{
	return set_bounded(val, kp, 100, 3600000);
}

static const struct kernel_param_ops fault_timeout_ops = {
	.set = fault_timeout_set,
	.get = param_get_uint,
};

unsigned int ddsm_fault_timeout_ms(void)
{
	return READ_ONCE(fault_timeout_ms);
}

/* Writable at run time too; rx.c reads it for every forwarded request. */
static int grace_set(const char *val, const struct kernel_param *kp)
{
	return set_bounded(val, kp, 0, 10000);
}

static const struct kernel_param_ops grace_ops = {
	.set = grace_set,
	.get = param_get_uint,
};

unsigned int ddsm_grace_us(void)
{
	return READ_ONCE(grace_us);
}

module_param_cb(fault_timeout_ms, &fault_timeout_ops, &fault_timeout_ms, 0644);
MODULE_PARM_DESC(fault_timeout_ms, "A fault waiting longer than this gets SIGBUS (default 10000, 100..3600000, writable at run time)");
module_param(home_policy, charp, 0444);
MODULE_PARM_DESC(home_policy, "Unit placement: interleave (round robin) or range (contiguous slices)");
module_param(node_id, uint, 0444);
MODULE_PARM_DESC(node_id, "This node's index in nodes= (default 0)");
module_param(nodes, charp, 0444);
MODULE_PARM_DESC(nodes, "IPv4 addresses of all nodes, comma separated, index = node id; empty: one node");
module_param_cb(port, &port_ops, &port, 0444);
MODULE_PARM_DESC(port, "rdma_cm port every node listens on (default 18515, 1..65535)");
module_param_cb(heartbeat_ms, &heartbeat_ops, &heartbeat_ms, 0444);
MODULE_PARM_DESC(heartbeat_ms, "Send a heartbeat after this long without traffic (default 200, 10..1800000)");
module_param_cb(peer_timeout_ms, &peer_timeout_ops, &peer_timeout_ms, 0444);
MODULE_PARM_DESC(peer_timeout_ms, "Declare a silent peer dead after this long (default 3000, 20..3600000, at least 2 x heartbeat_ms)");
module_param_cb(reconnect_ms, &reconnect_ops, &reconnect_ms, 0444);
MODULE_PARM_DESC(reconnect_ms, "Retry a lost connection this often (default 1000, 10..3600000)");
module_param_cb(rejoin_ms, &rejoin_ops, &rejoin_ms, 0444);
MODULE_PARM_DESC(rejoin_ms, "A node declared dead that returns within this long brings back the units it owned (default 30000, at most 3600000; 0: they are lost)");
module_param(nr_backups, uint, 0444);
MODULE_PARM_DESC(nr_backups, "Backup homes per unit: 0 (default) or 1, the next node, which keeps a replica on its pmem and serves the units after their home died (needs pmem= and 2 nodes)");
module_param_cb(grace_us, &grace_ops, &grace_us, 0644);
MODULE_PARM_DESC(grace_us, "A unit a fault just mapped is taken away no sooner than this, so the faulting instruction runs first (default 200, at most 10000, 0: off, writable at run time)");
module_param(migratory, bool, 0444);
MODULE_PARM_DESC(migratory, "Grant a read miss M when the unit migrates (read, then written, by one node after another) (default on)");
module_param(handoff, bool, 0444);
MODULE_PARM_DESC(handoff, "A home that owns a unit hands it on without waiting for the requester's UNLOCK (default on)");
module_param(rdma_frames, uint, 0444);
MODULE_PARM_DESC(rdma_frames, "Pages in the frame pool peers may read and write (default 256, at most 512)");
module_param(cache_frames, ulong, 0444);
MODULE_PARM_DESC(cache_frames, "Most frames caching units homed elsewhere; CLOCK evicts beyond (default 65536 = 256 MiB, 0: no limit)");
module_param(auth_key, charp, 0444);
MODULE_PARM_DESC(auth_key, "File holding the cluster key (16-4096 bytes): peers must prove it with HMAC-SHA256 (default: none, no authentication)");
module_param(pmem, charp, 0444);
MODULE_PARM_DESC(pmem, "Block device of a DAX pmem namespace (e.g. /dev/pmem0) that keeps the units homed here across restarts (default: none, DRAM only)");
module_param(pmem_format, bool, 0444);
MODULE_PARM_DESC(pmem_format, "Format the pmem namespace even if it holds data (default off: only a new, zeroed one is formatted)");
module_param(pmem_model, charp, 0444);
MODULE_PARM_DESC(pmem_model, "Persistency model of ranges in no region: sync, strict, read_enf, eventual (default) or scope (see DDSM_IOC_REGION)");
module_param(pmem_flush_ms, uint, 0444);
MODULE_PARM_DESC(pmem_flush_ms, "A unit written at home is durable on pmem within about this long (default 100, 1..3600000)");
module_param(cluster_id, ullong, 0444);
MODULE_PARM_DESC(cluster_id, "Identity of the cluster a pmem namespace belongs to (default 0: derived from size, nodes, port and home_policy)");
module_param_named(rt_delivery, ddsm_rt_delivery, bool, 0444);
MODULE_PARM_DESC(rt_delivery, "Deliver messages from SCHED_FIFO threads (default on; off: nice -20)");

/*
 * A commit's Validations to other homes wait up to this long for a
 * request of this node to the same home to ride on, the next
 * transaction's TX_READ_MANY as a rule; then they go alone.  Each one
 * that rides along is a message less, for the commit's lines staying
 * locked at the home until the next request, or this long at most.
 */
static unsigned int tx_validate_defer_us = 1000;
module_param_cb(tx_validate_defer_us, &tx_defer_ops, &tx_validate_defer_us,
		0644);
MODULE_PARM_DESC(tx_validate_defer_us, "Longest a commit's Validation to another home waits to ride on a read request to it (us, default 1000, at most 100000; 0: sent at once)");

unsigned int ddsm_tx_validate_defer_us(void)
{
	return READ_ONCE(tx_validate_defer_us);
}

/* Refused before anything is allocated: a load that cannot work. */
int ddsm_params_check(void)
{
	if (mode & ~0777) {
		pr_err("mode=%#o: only permission bits are allowed\n", mode);
		return -EINVAL;
	}
	if (!rdma_frames || rdma_frames > 512) {
		pr_err("rdma_frames=%u: must be 1..512\n", rdma_frames);
		return -EINVAL;
	}
	/* A replica needs a namespace to live on: refuse, do not ignore. */
	if (nr_backups > 1 || (nr_backups && !pmem[0])) {
		pr_err("nr_backups=%u: must be 0, or 1 with pmem=\n",
		       nr_backups);
		return -EINVAL;
	}
	/* Each is in its range (DDSM_BOUNDED_OPS); only this is left. */
	if (peer_timeout_ms < 2 * heartbeat_ms) {
		pr_err("peer_timeout_ms=%u: must be at least 2 x heartbeat_ms=%u\n",
		       peer_timeout_ms, heartbeat_ms);
		return -EINVAL;
	}
	if (!pmem_flush_ms || pmem_flush_ms > 3600000) {
		pr_err("pmem_flush_ms=%u: must be 1..3600000\n", pmem_flush_ms);
		return -EINVAL;
	}
	return 0;
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

int ddsm_params_fill(struct ddsm_params *p, struct ddsm_load *l)
{
	int ret;

	if (parse_policy(home_policy, &p->policy)) {
		pr_err("home_policy=%s: expected interleave or range\n",
		       home_policy);
		return -EINVAL;
	}
	p->size = size;
	p->port = port;
	p->heartbeat_ms = heartbeat_ms;
	p->peer_timeout_ms = peer_timeout_ms;
	p->reconnect_ms = reconnect_ms;
	p->rdma_frames = rdma_frames;
	p->inject = ddsm_test_inject();
	p->cache_frames = cache_frames;
	p->rejoin_ms = rejoin_ms;
	p->migratory = migratory;
	p->handoff = handoff;
	p->pmem_path = pmem;
	p->pmem_format = pmem_format;
	p->pmem_check = ddsm_test_pmem_check();
	ret = ddsm_pm_model_parse(pmem_model);
	if (ret < 0) {
		pr_err("pmem_model=%s: expected sync, strict, read_enf, eventual or scope\n",
		       pmem_model);
		return ret;
	}
	p->pmem_model = ret;
	p->pmem_flush_ms = pmem_flush_ms;
	p->cluster_id = cluster_id;
	p->nr_backups = nr_backups;
	l->mode = mode;
	l->nodes = nodes;
	l->node_id = node_id;
	l->auth_key = auth_key;
	return 0;
}
