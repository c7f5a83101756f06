// SPDX-License-Identifier: GPL-2.0
/*
 * `ddsmctl help COMMAND` prints the block of usage() that describes
 * COMMAND: the line starting "  COMMAND" and its indented continuation
 * lines.  usage() stays the one place the commands are described, and
 * ddsmctl(8) is checked against it by tests/packaging.sh.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "ddsmctl_help.h"

/* A command's first line: two blanks, the name, then a blank or the end. */
static int starts_command(const char *line, const char *cmd)
{
	size_t n = strlen(cmd);

	return !strncmp(line, "  ", 2) && line[2] != ' ' &&
	       !strncmp(line + 2, cmd, n) &&
	       (line[2 + n] == ' ' || line[2 + n] == '\n' || !line[2 + n]);
}

int ddsmctl_help(void (*usage)(FILE *), const char *cmd)
{
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	int in = 0, found = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return 1;
	usage(f);
	fclose(f);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (starts_command(line, cmd))
			in = found = 1;
		else if (strncmp(line, "    ", 4))
			in = 0;	/* not a continuation line */
		if (in)
			printf("%s\n", line);
	}
	free(text);
	if (!found) {
		fprintf(stderr, "ddsmctl: no command '%s' (ddsmctl --help lists them)\n",
			cmd);
		return 2;
	}
	return 0;
}
