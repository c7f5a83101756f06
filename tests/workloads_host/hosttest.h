/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the host tests share: numbered TAP lines with a pass/fail count,
 * and running a workload program on HT_EMU_NODES emulated nodes (wl.h:
 * one process per node over one fresh file), each node's output in a
 * file of its own.
 */
#ifndef WL_HOSTTEST_H
#define WL_HOSTTEST_H

#include <stdbool.h>
#include <stddef.h>

#define HT_EMU_NODES	3

extern int ht_passed, ht_failed;

void check(int good, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
double now_secs(void);

/* One emulated run's outcome. */
struct ht_emu {
	int failed;		/* nodes that did not exit 0 */
	bool found;		/* node 0 printed the wanted text */
	double secs;
	char cmd[256];		/* the arguments, for the TAP line */
};

/*
 * @prog (in @dir) with @args (NULL-terminated, at most 20) on
 * HT_EMU_NODES emulated nodes at once, the last one's options being
 * --timeout=30 --emulate; look for @want (NULL: anything) in node 0's
 * output.  With @show, the nodes' outputs are printed as TAP comments
 * when a node failed or @want is missing.
 */
void ht_emu_run(struct ht_emu *e, const char *dir, const char *prog,
		const char *const *args, const char *want, bool show);
/* A check: every node must exit 0 and node 0 print @want. */
void emu_check(const char *dir, const char *prog, const char *const *args,
	       const char *want);
/*
 * Where the workload programs are: the test's argument (its Makefile
 * passes tools/workloads), else the test's own directory; in @buf.
 */
const char *ht_prog_dir(int argc, char **argv, char *buf, size_t len);

#endif /* WL_HOSTTEST_H */
