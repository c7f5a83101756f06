// SPDX-License-Identifier: GPL-2.0
/*
 * ddsm-sercheck: merge transaction logs in sercheck.h's text form (what
 * ddsm-txbench --check --log-file writes, one file per node, or a
 * history written by hand) and say whether the history is conflict
 * serializable.
 *
 * usage: ddsm-sercheck FILE...   ("-" for standard input)
 *
 * Output: one TAP line, "ok - serializable: ..." or "not ok - ...: cycle
 * T1 -rw-> T2 -ww-> T1" (the transactions as NODE.THREAD.SEQ).  Exit 0 iff
 * the history is serializable and well formed; 1 if not; 2 for bad usage
 * or an unreadable file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "sercheck.h"

int main(int argc, char **argv)
{
	struct sercheck sc;
	struct sc_result res;
	char desc[1024];
	size_t line = 0;
	FILE *f;
	int i, r;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE...\n", argv[0]);
		return 2;
	}
	sc_init(&sc);
	for (i = 1; i < argc; i++) {
		f = strcmp(argv[i], "-") ? fopen(argv[i], "r") : stdin;
		if (!f) {
			perror(argv[i]);
			return 2;
		}
		r = sc_add_text(&sc, f, &line);
		if (f != stdin)
			fclose(f);
		if (r == -EBADMSG) {
			fprintf(stderr, "%s:%zu: not a transaction line\n",
				argv[i], line);
			return 2;
		}
		if (r) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(-r));
			return 2;
		}
	}
	r = sc_check(&sc, &res);
	if (r) {
		fprintf(stderr, "check: %s\n", strerror(-r));
		return 2;
	}
	sc_describe(&res, desc, sizeof(desc));
	printf("%sok - %s: %s\n", sc_ok(&res) ? "" : "not ",
	       sc_ok(&res) ? "serializable" : "not serializable", desc);
	sc_free(&sc);
	return sc_ok(&res) ? 0 : 1;
}
