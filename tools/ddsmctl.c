// SPDX-License-Identifier: GPL-2.0
/*
 * ddsmctl: show and configure the local ddsm node.
 *
 *   ddsmctl [-d DEVICE] [-j] OBJECT COMMAND [ARGUMENTS]
 *
 * as rdma(8), ip(8) and ndctl do it: ddsmctl peer show, ddsmctl tx stats.
 * The commands are the table in ddsmctl_cmds.c; this file parses the
 * options, finds the command, checks its argument count, opens the device
 * (saying what to do when that fails) and runs it.  Exit statuses are in
 * ddsmctl.h: a timeout (3) is told from an error (1) and a usage error (2).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddsmctl.h"

int ctl_fail(const struct ctl *c, const char *what)
{
	fprintf(stderr, "%s: %s %s: %s\n", c->prog, what, c->dev,
		strerror(errno));
	return EXIT_ERROR;
}

int ctl_size(const struct ctl *c, const char *arg, uint64_t *v)
{
	if (!ddsm_parse_size(arg, v))
		return 0;
	fprintf(stderr, "%s: bad number '%s' (decimal, 0x hex, K/M/G suffix)\n",
		c->prog, arg);
	return -1;
}

int ctl_open(struct ctl *c)
{
	unsigned int abi;
	int err;

	c->h = ddsm_open(c->dev);
	if (c->h)
		return 0;
	err = errno;
	fprintf(stderr, "%s: %s: %s", c->prog, c->dev, strerror(err));
	switch (err) {
	case ENOENT:
		fprintf(stderr, "\n  is the ddsm module loaded? (modprobe ddsm, or systemctl start ddsm; ddsm(4))\n");
		break;
	case EACCES:
	case EPERM:
		fprintf(stderr, "\n  run as root, or join the group that owns %s (ddsm, set by 60-ddsm.rules)\n",
			c->dev);
		break;
	case EPROTO:
		abi = ctl_module_abi(c->dev);
		fprintf(stderr, "\n  the module speaks ABI %u; libddsm %s needs ABI %u or later: update ddsm-dkms and reload the module (systemctl restart ddsm)\n",
			abi, ddsm_lib_version(), ddsm_abi_min());
		break;
	case ENOTTY:
		fprintf(stderr, "\n  not a ddsm device, or a module that does not answer ABI %u's DDSM_IOC_STATUS: compare `%s --version` with the installed ddsm-dkms\n",
			ddsm_abi_version(), c->prog);
		break;
	default:
		fputc('\n', stderr);
	}
	return -1;
}

static int is_opt(const char *a, const char *s, const char *l)
{
	return !strcmp(a, s) || !strcmp(a, l);
}

static int usage_error(const struct ctl *c, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", c->prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (%s --help)\n", c->prog);
	return EXIT_USAGE;
}

/* The row for OBJECT [COMMAND]; *@used says whether COMMAND was a name. */
static const struct ddsmctl_cmd *find(const char *object, const char *name,
				      int *used, int *known_object)
{
	const struct ddsmctl_cmd *c, *bare = NULL;

	*known_object = 0;
	for (c = ddsmctl_cmds; c->object; c++) {
		if (strcmp(c->object, object))
			continue;
		*known_object = 1;
		if (!c->name) {
			bare = c;
		} else if (name && !strcmp(c->name, name)) {
			*used = 1;
			return c;
		}
	}
	*used = 0;
	return bare;
}

/* The options a command takes anywhere among its arguments: -j, --help. */
static int command_options(struct ctl *c, const struct ddsmctl_cmd *cmd,
			   int *argc, char **argv, int *help)
{
	int i, n = 0;

	for (i = 0; i < *argc; i++) {
		if (is_opt(argv[i], "-h", "--help"))
			*help = 1;
		else if (is_opt(argv[i], "-j", "--json"))
			c->json = 1;
		else
			argv[n++] = argv[i];
	}
	*argc = n;
	if (c->json && !(cmd->flags & CMD_JSON))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct ctl c = { .prog = "ddsmctl", .dev = DDSM_DEFAULT_PATH };
	const struct ddsmctl_cmd *cmd;
	int i = 1, used, known, help = 0, ret;
	char *name;

	if (argc > 0 && argv[0] && argv[0][0])
		c.prog = argv[0];
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (is_opt(argv[i], "-d", "--device") && i + 1 < argc) {
			c.dev = argv[++i];
		} else if (!strncmp(argv[i], "--device=", 9)) {
			c.dev = argv[i] + 9;
		} else if (is_opt(argv[i], "-j", "--json")) {
			c.json = 1;
		} else if (is_opt(argv[i], "-V", "--version")) {
			return cmd_version(&c, 0, NULL);
		} else if (is_opt(argv[i], "-h", "--help")) {
			ddsmctl_usage(stdout, c.prog);
			return EXIT_OK;
		} else {
			return usage_error(&c, "unknown option '%s'", argv[i]);
		}
	}
	if (i >= argc) {
		ddsmctl_usage(stderr, c.prog);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[i], "help"))
		return ddsmctl_help(&c, argc - i - 1, argv + i + 1);

	name = i + 1 < argc ? argv[i + 1] : NULL;
	cmd = find(argv[i], name, &used, &known);
	if (!cmd && !known)
		return usage_error(&c, "unknown command '%s'", argv[i]);
	if (!cmd || (!used && name && !strcmp(name, "help")) ||
	    (!used && !cmd->name && cmd->flags & CMD_ALIAS && !name &&
	     cmd->min_args)) {
		/* `ddsmctl peer`, `ddsmctl peer help`, `ddsmctl peer bogus` */
		char *obj[] = { argv[i] };

		if (name && strcmp(name, "help") && !cmd)
			fprintf(stderr, "%s: %s has no command '%s'\n", c.prog,
				argv[i], name);
		ddsmctl_help(&c, 1, obj);
		return name && !strcmp(name, "help") ? EXIT_OK : EXIT_USAGE;
	}
	argc -= i + 1 + used;
	argv += i + 1 + used;
	if (command_options(&c, cmd, &argc, argv, &help))
		return usage_error(&c, "'%s' has no JSON output", cmd->object);
	if (help) {
		char *words[] = { (char *)cmd->object, (char *)cmd->name };

		return ddsmctl_help(&c, cmd->name ? 2 : 1, words);
	}
	if (argc < cmd->min_args || argc > cmd->max_args) {
		char *words[] = { (char *)cmd->object, (char *)cmd->name };

		fprintf(stderr, "%s: wrong number of arguments\n", c.prog);
		ddsmctl_help(&c, cmd->name ? 2 : 1, words);
		return EXIT_USAGE;
	}
	if (cmd->flags & CMD_DEVICE && ctl_open(&c))
		return EXIT_ERROR;
	ret = cmd->run(&c, argc, argv);
	if (ret == EXIT_USAGE) {
		char *words[] = { (char *)cmd->object, (char *)cmd->name };

		ddsmctl_help(&c, cmd->name ? 2 : 1, words);
	}
	ddsm_close(c.h);
	if (fflush(stdout) == EOF && !ret) {
		fprintf(stderr, "%s: write: %s\n", c.prog, strerror(errno));
		ret = EXIT_ERROR;
	}
	return ret;
}
