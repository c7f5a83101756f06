// SPDX-License-Identifier: GPL-2.0
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include "ioctl_check.h"

int ddsm_check_peer_arg(const struct ddsm_peer_info *p, u32 nr_nodes)
{
	if (p->flags)
		return -EINVAL;
	if (p->index >= nr_nodes)
		return -ERANGE;
	return 0;
}

int ddsm_check_config_arg(const struct ddsm_config *c)
{
	if (c->flags || !memchr(c->nodes, '\0', sizeof(c->nodes)))
		return -EINVAL;
	if (c->node_id >= DDSM_MAX_NODES)
		return -ERANGE;
	return 0;
}

int ddsm_check_home_arg(const struct ddsm_home_query *q,
			const struct ddsm_space *s)
{
	if (q->flags || q->reserved)
		return -EINVAL;
	if (q->gaddr >= s->size)
		return -ERANGE;
	return 0;
}

/* A unit-aligned, non-empty range inside the space. */
static int check_unit_range(const struct ddsm_space *s, u64 gaddr, u64 len)
{
	if (!len || (gaddr | len) & (DDSM_UNIT_SIZE - 1))
		return -EINVAL;
	if (gaddr >= s->size || len > s->size - gaddr)
		return -ERANGE;
	return 0;
}

int ddsm_check_persist_arg(const struct ddsm_persist_arg *a,
			   const struct ddsm_space *s)
{
	if ((a->flags & ~DDSM_PERSIST_ALL) || a->reserved)
		return -EINVAL;
	return check_unit_range(s, a->gaddr, a->len);
}

int ddsm_check_region_arg(const struct ddsm_region_arg *a,
			  const struct ddsm_space *s)
{
	/* Backups are per node (module parameter nr_backups), not per region. */
	if ((a->flags & ~DDSM_REGION_GET) || a->reserved ||
	    (a->nr_backups && a->nr_backups != s->nr_backups))
		return -EINVAL;
	if (a->flags & DDSM_REGION_GET)
		return a->gaddr < s->size ? 0 : -ERANGE;
	if (a->model > DDSM_MODEL_SCOPE)
		return -EINVAL;
	return check_unit_range(s, a->gaddr, a->len);
}

int ddsm_check_mmap_arg(const struct ddsm_space *s, bool shared, bool exec,
			u64 off, u64 len)
{
	/* A private COW copy would escape coherence. */
	if (!shared)
		return -EINVAL;
	if (exec)
		return -EPERM;
	return ddsm_space_check_range(s, off, len);
}

/*
 * Every command with the sizes of its argument that earlier ABIs had and
 * a binary built against them still sends (include/uapi/linux/ddsm.h,
 * "Older binaries"); 0 ends a list.  Each list is shorter than the
 * current struct, whose size is always accepted too.
 */
static const struct {
	unsigned int cmd;
	u16 older[5];
} ddsm_ioc_sizes[] = {
	{ DDSM_IOC_STATUS, { 160, 200, 216 } },
	{ DDSM_IOC_PEER, { 128, 176 } },
	{ DDSM_IOC_HOME },
	{ DDSM_IOC_CONFIGURE },
	{ DDSM_IOC_PMEM_STATUS, { 208, 272 } },
	{ DDSM_IOC_PERSIST },
	{ DDSM_IOC_REGION },
	{ DDSM_IOC_TX_REGION },
	{ DDSM_IOC_TX_BEGIN },
	{ DDSM_IOC_TX_READ },
	{ DDSM_IOC_TX_WRITE },
	{ DDSM_IOC_TX_COMMIT },
	{ DDSM_IOC_TX_ABORT },
	{ DDSM_IOC_TX_STATUS, { 168, 200, 208, 216, 224 } },
	{ DDSM_IOC_TX_READV },
	{ DDSM_IOC_TX_OUTCOME },
};

unsigned int ddsm_ioctl_cmd(unsigned int cmd)
{
	unsigned int i, j, size = _IOC_SIZE(cmd);

	for (i = 0; i < ARRAY_SIZE(ddsm_ioc_sizes); i++) {
		unsigned int cur = ddsm_ioc_sizes[i].cmd;

		if (_IOC_TYPE(cmd) != _IOC_TYPE(cur) ||
		    _IOC_NR(cmd) != _IOC_NR(cur) ||
		    _IOC_DIR(cmd) != _IOC_DIR(cur))
			continue;
		if (size == _IOC_SIZE(cur))
			return cur;
		for (j = 0; j < ARRAY_SIZE(ddsm_ioc_sizes[i].older); j++)
			if (size && size == ddsm_ioc_sizes[i].older[j])
				return cur;
		return 0;
	}
	return 0;
}
