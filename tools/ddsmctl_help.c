// SPDX-License-Identifier: GPL-2.0
/*
 * ddsmctl's help, from the command table: `ddsmctl --help` (everything),
 * `ddsmctl help OBJECT [COMMAND]`, `ddsmctl OBJECT COMMAND --help`, and
 * `ddsmctl help --list` / `--aliases` (one command a line, for the bash
 * completion and the tests that hold the man page to the table).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "ddsmctl.h"

#define WIDTH	78

/* @text wrapped to WIDTH, each line indented by @indent blanks. */
static void wrap(FILE *f, const char *text, int indent)
{
	const char *p = text;

	while (*p) {
		int room = WIDTH - indent, n = (int)strlen(p);

		if (n > room) {
			n = room;
			while (n > 0 && p[n] != ' ')
				n--;
			if (!n)
				n = room;
		}
		fprintf(f, "%*s%.*s\n", indent, "", n, p);
		p += n;
		while (*p == ' ')
			p++;
	}
}

static void synopsis(FILE *f, const struct ddsmctl_cmd *c)
{
	fprintf(f, "  %s%s%s%s%s\n", c->object, c->name ? " " : "",
		c->name ? c->name : "", *c->args ? " " : "", c->args);
}

static void describe(FILE *f, const struct ddsmctl_cmd *c)
{
	synopsis(f, c);
	wrap(f, c->help, 6);
}

void ddsmctl_usage(FILE *f, const char *prog)
{
	const struct ddsmctl_cmd *c;

	fprintf(f,
		"usage: %s [-d DEVICE] [-j] OBJECT COMMAND [ARGUMENTS]\n"
		"       %s OBJECT COMMAND --help | help [OBJECT [COMMAND]]\n"
		"       %s -V | --version | -h | --help\n"
		"commands:\n", prog, prog, prog);
	for (c = ddsmctl_cmds; c->object; c++)
		if (!(c->flags & CMD_ALIAS))
			describe(f, c);
	fprintf(f,
		"options:\n"
		"  -d, --device DEVICE\n"
		"      the ddsm device (default %s)\n"
		"  -j, --json\n"
		"      JSON instead of \"key: value\" lines (show commands, tx stats,\n"
		"      status, version, config check and keys)\n"
		"  -V, --version\n"
		"      the same as the version command\n"
		"  -h, --help\n"
		"      this text; after a command, that command's\n"
		"old commands (kept for scripts):\n", DDSM_DEFAULT_PATH);
	for (c = ddsmctl_cmds; c->object; c++)
		if (c->flags & CMD_ALIAS)
			describe(f, c);
	fprintf(f,
		"GADDR and LEN take decimal, 0x hex and K, M, G suffixes.\n"
		"exit status: 0 ok, 1 error, 2 usage, 3 cluster wait timed out.\n");
}

/* One line per command (current or old), each name once. */
static void list(int aliases)
{
	const struct ddsmctl_cmd *c, *prev = NULL;

	for (c = ddsmctl_cmds; c->object; prev = c, c++) {
		if (!(c->flags & CMD_ALIAS) != !aliases)
			continue;
		if (prev && !strcmp(prev->object, c->object) && prev->name &&
		    c->name && !strcmp(prev->name, c->name))
			continue;
		printf("%s%s%s\n", c->object, c->name ? " " : "",
		       c->name ? c->name : "");
	}
}

int ddsmctl_help(const struct ctl *ctl, int argc, char **argv)
{
	const struct ddsmctl_cmd *c;
	int found = 0;

	if (!argc) {
		ddsmctl_usage(stdout, ctl->prog);
		return EXIT_OK;
	}
	if (argc == 1 && (!strcmp(argv[0], "--list") ||
			  !strcmp(argv[0], "--aliases"))) {
		list(!strcmp(argv[0], "--aliases"));
		return EXIT_OK;
	}
	if (argc > 2)
		return EXIT_USAGE;
	for (c = ddsmctl_cmds; c->object; c++) {
		if (strcmp(c->object, argv[0]))
			continue;
		if (argc == 2 && (!c->name || strcmp(c->name, argv[1])))
			continue;
		if (!found++)
			printf("usage: %s [-d DEVICE]%s ...\n", ctl->prog,
			       c->flags & CMD_JSON ? " [-j]" : "");
		describe(stdout, c);
	}
	if (!found) {
		fprintf(stderr, "%s: no command '%s%s%s' (%s --help lists them)\n",
			ctl->prog, argv[0], argc == 2 ? " " : "",
			argc == 2 ? argv[1] : "", ctl->prog);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}
