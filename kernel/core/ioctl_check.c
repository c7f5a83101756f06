// SPDX-License-Identifier: GPL-2.0
#include <linux/errno.h>
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

int ddsm_check_persist_arg(const struct ddsm_persist_arg *a,
			   const struct ddsm_space *s)
{
	if (a->flags || a->reserved)
		return -EINVAL;
	if (!a->len || (a->gaddr | a->len) & (DDSM_UNIT_SIZE - 1))
		return -EINVAL;
	if (a->gaddr >= s->size || a->len > s->size - a->gaddr)
		return -ERANGE;
	return 0;
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
