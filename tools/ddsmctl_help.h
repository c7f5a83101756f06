/* SPDX-License-Identifier: GPL-2.0 */
#ifndef DDSMCTL_HELP_H
#define DDSMCTL_HELP_H

#include <stdio.h>

/*
 * `ddsmctl help COMMAND`: print the lines of usage() about COMMAND, so the
 * per-command help cannot drift from `ddsmctl --help`.  Returns the exit
 * status: 0, or 2 for a command usage() does not list.
 */
int ddsmctl_help(void (*usage)(FILE *), const char *cmd);

#endif /* DDSMCTL_HELP_H */
