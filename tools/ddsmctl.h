/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ddsmctl's commands: OBJECT COMMAND [ARGS] (ddsmctl peer show), as rdma,
 * ip and ndctl have them.  Each command is a row of the table in
 * ddsmctl_cmds.c; the help text, the man page's COMMANDS section, the
 * bash completion and the dispatch all follow that table.
 */
#ifndef DDSMCTL_H
#define DDSMCTL_H

#include <stdint.h>
#include <stdio.h>
#include <ddsm/libddsm.h>

/* Exit statuses: scripts tell a timeout from a failure. */
#define EXIT_OK		0
#define EXIT_ERROR	1	/* the device or the system refused */
#define EXIT_USAGE	2	/* bad command line */
#define EXIT_TIMEOUT	3	/* `cluster wait`: peers not up in time */

struct ctl {
	const char *prog;
	const char *dev;	/* -d DEVICE, default /dev/ddsm */
	int json;		/* -j: JSON instead of "key: value" lines */
	struct ddsm *h;		/* opened by ctl_open() */
};

enum {
	CMD_DEVICE = 1,		/* opens the device */
	CMD_JSON = 2,		/* prints with -j too */
	CMD_ALIAS = 4,		/* an old verb, kept for scripts */
	CMD_LATE_OPEN = 8,	/* opens the device itself, after its file */
};

struct ddsmctl_cmd {
	const char *object;	/* "peer" */
	const char *name;	/* "show"; NULL: the object alone (status) */
	const char *args;	/* synopsis of the arguments, "" if none */
	const char *help;	/* what it does, one paragraph */
	unsigned int flags;
	int min_args, max_args;	/* positional arguments, options counted */
	int (*run)(struct ctl *c, int argc, char **argv);
};

extern const struct ddsmctl_cmd ddsmctl_cmds[];

/* Open c->dev into c->h; on failure say why and what to do, return 1. */
int ctl_open(struct ctl *c);
/* "PROG: WHAT: strerror(errno)" on stderr; returns EXIT_ERROR. */
int ctl_fail(const struct ctl *c, const char *what);
/* Parse a size or global address argument; complain and return -1. */
int ctl_size(const struct ctl *c, const char *arg, uint64_t *v);

/* The commands (ddsmctl_show.c, ddsmctl_admin.c, ddsmctl_config.c). */
int cmd_status(struct ctl *c, int argc, char **argv);
int cmd_node_show(struct ctl *c, int argc, char **argv);
int cmd_peer_show(struct ctl *c, int argc, char **argv);
int cmd_unit_show(struct ctl *c, int argc, char **argv);
int cmd_pmem_show(struct ctl *c, int argc, char **argv);
int cmd_tx_stats(struct ctl *c, int argc, char **argv);
int cmd_region_show(struct ctl *c, int argc, char **argv);
int cmd_region_set(struct ctl *c, int argc, char **argv);
int cmd_region_legacy(struct ctl *c, int argc, char **argv);
int cmd_pmem_persist(struct ctl *c, int argc, char **argv);
int cmd_cluster_join(struct ctl *c, int argc, char **argv);
int cmd_cluster_wait(struct ctl *c, int argc, char **argv);
int cmd_config_check(struct ctl *c, int argc, char **argv);
int cmd_config_keys(struct ctl *c, int argc, char **argv);
int cmd_config_modprobe_args(struct ctl *c, int argc, char **argv);
int cmd_version(struct ctl *c, int argc, char **argv);

/* The module's ABI, asked without libddsm (ddsmctl_version.c); 0 if none. */
unsigned int ctl_module_abi(const char *dev);

/* Help (ddsmctl_help.c): all commands, an object's, or one command's. */
void ddsmctl_usage(FILE *f, const char *prog);
int ddsmctl_help(const struct ctl *c, int argc, char **argv);

#endif /* DDSMCTL_H */
