/* SPDX-License-Identifier: GPL-2.0 */
/*
 * params.c to module.c: the load's parameters, checked.  The run-time
 * ones the node reads as it goes are declared in node.h.
 */
#ifndef DDSM_NODE_PARAMS_H
#define DDSM_NODE_PARAMS_H

#include <linux/types.h>

struct ddsm_params;

/* What the load needs beyond struct ddsm_params. */
struct ddsm_load {
	umode_t mode;		/* of /dev/ddsm */
	const char *nodes;	/* the node list, for ddsm_parse_nodes() */
	u32 node_id;
	const char *auth_key;	/* path of the cluster key, or "" */
};

/* The parameters that make a load impossible: refused before any work. */
int ddsm_params_check(void);
/* Fill @p and @l from the parameters; -EINVAL for one that is wrong. */
int ddsm_params_fill(struct ddsm_params *p, struct ddsm_load *l);

#endif /* DDSM_NODE_PARAMS_H */
