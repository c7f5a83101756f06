/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ddsmctl's cluster configuration file (/etc/ddsm/cluster.conf): parsing,
 * and the three commands built on it (configure --config, modprobe-args,
 * wait --config).  The format and every key are in ddsmctl(8).
 */
#ifndef DDSMCTL_CONFIG_H
#define DDSMCTL_CONFIG_H

#include "libddsm.h"

#define DDSMCTL_CONFIG_DEFAULT	"/etc/ddsm/cluster.conf"

/* The parsed file: one normalised value per known key, NULL if unset. */
struct ddsmctl_conf {
	const char *path;
	char *val[32];
	int node_id;			/* resolved ("auto" looked up) */
	unsigned int nr_nodes;		/* entries of nodes, 0 if unset */
	double wait_timeout;		/* seconds */
};

/* Parse @path into @c; on error print "FILE:LINE: why" and return -1. */
int ddsmctl_conf_load(struct ddsmctl_conf *c, const char *path);
void ddsmctl_conf_free(struct ddsmctl_conf *c);

/* `ddsmctl modprobe-args --config FILE`: the load-time parameters. */
int ddsmctl_modprobe_args(int argc, char **argv);

/* wait_timeout (default 60 s) for `ddsmctl wait --config FILE`. */
int ddsmctl_conf_wait_timeout(const char *path, double *timeout);

/* `ddsmctl configure --config FILE` on an open device. */
int ddsmctl_configure_file(struct ddsm *d, const char *dev, const char *path);

#endif /* DDSMCTL_CONFIG_H */
