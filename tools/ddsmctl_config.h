/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ddsmctl's cluster configuration file (/etc/ddsm/cluster.conf): parsing,
 * and the commands built on it (cluster join --config, cluster wait
 * --config, config check, config keys, config modprobe-args).  The format
 * and every key are in ddsm-cluster.conf(5).
 */
#ifndef DDSMCTL_CONFIG_H
#define DDSMCTL_CONFIG_H

#include "ddsmctl.h"

#ifndef SYSCONFDIR
#define SYSCONFDIR	"/etc"
#endif
#define DDSMCTL_CONFIG_DEFAULT	SYSCONFDIR "/ddsm/cluster.conf"

/* A region = or tx_region = line (tools/ddsmctl_regions.c). */
struct ddsmctl_region {
	uint64_t gaddr, len;
	uint32_t model;			/* enum ddsm_model; not for tx */
	int tx;				/* tx_region: transactional */
	int line;
};

/* The parsed file: one normalised value per known key, NULL if unset. */
struct ddsmctl_conf {
	const char *path;
	char *val[32];
	int node_id;			/* resolved ("auto" looked up) */
	unsigned int nr_nodes;		/* entries of nodes, 0 if unset */
	double wait_timeout;		/* seconds */
	struct ddsmctl_region *regions;	/* in the file's order */
	unsigned int nr_regions;
};

/* Parse @path into @c; on error print "FILE:LINE: why" and return -1. */
int ddsmctl_conf_load(struct ddsmctl_conf *c, const char *path);
void ddsmctl_conf_free(struct ddsmctl_conf *c);

/* wait_timeout (default 60 s) for `ddsmctl cluster wait --config FILE`. */
int ddsmctl_conf_wait_timeout(const char *path, double *timeout);

/* The region lines: parse one, check them all, declare them. */
int ddsmctl_region_parse(struct ddsmctl_conf *c, int tx, const char *value,
			 int line, const char **why);
int ddsmctl_regions_check(const struct ddsmctl_conf *c, uint64_t space,
			  int pmem);
int ddsmctl_regions_apply(struct ctl *ctl, const struct ddsmctl_conf *c);

/* `ddsmctl cluster join --config FILE` on the open device: exit status. */
int ddsmctl_configure_file(struct ctl *ctl, const char *path);

#endif /* DDSMCTL_CONFIG_H */
