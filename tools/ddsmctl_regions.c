// SPDX-License-Identifier: GPL-2.0
/*
 * The cluster's regions in cluster.conf, declared by `ddsmctl cluster join
 * --config` (ddsm.service, as root) so that applications use them without
 * CAP_SYS_ADMIN (docs/api.md, "Who may call what"):
 *
 *   region = START SIZE MODEL     a persistency model (DDSM_IOC_REGION)
 *   tx_region = START SIZE        a transactional region (DDSM_IOC_TX_REGION)
 *
 * Each may be given several times.  START and SIZE: decimal, 0x hex, K/M/G
 * suffixes, 4K multiples; MODEL: sync, strict, read_enf, eventual, scope.
 * Checked here as the module would (inside the space, no overlap, at most
 * 64 and 16, region needs pmem), each refusal with FILE:LINE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddsmctl.h"
#include "ddsmctl_config.h"

#define MAX_MODEL_REGIONS	64	/* the pmem region table */

static int region_error(const struct ddsmctl_conf *c,
			const struct ddsmctl_region *r, const char *why)
{
	fprintf(stderr, "%s:%d: %s: %s\n", c->path, r->line,
		r->tx ? "tx_region" : "region", why);
	return -1;
}

/* "START SIZE MODEL" (or "START SIZE" for @tx) into c->regions. */
int ddsmctl_region_parse(struct ddsmctl_conf *c, int tx, const char *value,
			 int line, const char **why)
{
	char start[32], size[32], model[32], extra[2];
	struct ddsmctl_region *r, *grown;
	int n;

	n = sscanf(value, "%31s %31s %31s %1s", start, size, model, extra);
	if (n != (tx ? 2 : 3)) {
		*why = tx ? "expected START SIZE" : "expected START SIZE MODEL";
		return -1;
	}
	grown = realloc(c->regions, (c->nr_regions + 1) * sizeof(*r));
	if (!grown) {
		*why = "out of memory";
		return -1;
	}
	c->regions = grown;
	r = &c->regions[c->nr_regions];
	memset(r, 0, sizeof(*r));
	r->tx = tx;
	r->line = line;
	if (ddsm_parse_size(start, &r->gaddr) || r->gaddr % DDSM_UNIT_SIZE) {
		*why = "START not a multiple of 4K (decimal, 0x hex, K/M/G suffixes)";
		return -1;
	}
	if (ddsm_parse_size(size, &r->len) || !r->len ||
	    r->len % DDSM_UNIT_SIZE) {
		*why = "SIZE not a non-zero multiple of 4K (decimal, 0x hex, K/M/G suffixes)";
		return -1;
	}
	if (!tx && ddsm_model_parse(model, &r->model)) {
		*why = "MODEL not one of sync, strict, read_enf, eventual, scope";
		return -1;
	}
	c->nr_regions++;
	return 0;
}

/* What the module would refuse: outside @space, overlaps, too many. */
int ddsmctl_regions_check(const struct ddsmctl_conf *c, uint64_t space,
			  int pmem)
{
	unsigned int i, j, nr[2] = { 0, 0 };
	char why[96];

	for (i = 0; i < c->nr_regions; i++) {
		const struct ddsmctl_region *r = &c->regions[i];

		if (r->gaddr >= space || r->len > space - r->gaddr) {
			snprintf(why, sizeof(why),
				 "not inside the space (size %llu bytes)",
				 (unsigned long long)space);
			return region_error(c, r, why);
		}
		if (!r->tx && !pmem)
			return region_error(c, r,
					    "needs pmem (a model is kept on the node's pmem)");
		if (++nr[r->tx] > (r->tx ? DDSM_TX_MAX_REGIONS : MAX_MODEL_REGIONS)) {
			snprintf(why, sizeof(why), "more than %d of them",
				 r->tx ? DDSM_TX_MAX_REGIONS : MAX_MODEL_REGIONS);
			return region_error(c, r, why);
		}
		/* Models may not overlap; transactional ones would merge. */
		for (j = 0; j < i && !r->tx; j++) {
			const struct ddsmctl_region *o = &c->regions[j];

			if (o->tx || o->gaddr >= r->gaddr + r->len ||
			    r->gaddr >= o->gaddr + o->len)
				continue;
			snprintf(why, sizeof(why), "overlaps the region of line %d",
				 o->line);
			return region_error(c, r, why);
		}
	}
	return 0;
}

/*
 * Declare them on the open device, after the join: the same region again
 * is accepted (a restart of the service), so is a transactional one.
 */
int ddsmctl_regions_apply(struct ctl *ctl, const struct ddsmctl_conf *c)
{
	unsigned int i;
	int ret;

	for (i = 0; i < c->nr_regions; i++) {
		const struct ddsmctl_region *r = &c->regions[i];

		ret = r->tx ? ddsm_tx_region(ctl->h, r->gaddr, r->len) :
		      ddsm_region_set_model(ctl->h, r->gaddr, r->len, r->model);
		if (ret) {
			fprintf(stderr, "%s:%d: %s: %s on %s: %s%s\n", c->path,
				r->line, r->tx ? "tx_region" : "region",
				r->tx ? "DDSM_IOC_TX_REGION" : "DDSM_IOC_REGION",
				ctl->dev, strerror(errno),
				errno == EPERM ? " (run as root)" : "");
			return -1;
		}
		if (r->tx)
			printf("tx_region %#llx +%#llx\n",
			       (unsigned long long)r->gaddr,
			       (unsigned long long)r->len);
		else
			printf("region %#llx +%#llx %s\n",
			       (unsigned long long)r->gaddr,
			       (unsigned long long)r->len,
			       ddsm_model_name(r->model));
	}
	return 0;
}
