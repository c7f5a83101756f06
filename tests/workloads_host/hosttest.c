// SPDX-License-Identifier: GPL-2.0
/*
 * Host test helpers (hosttest.h).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "hosttest.h"

#define EMU_NODES	HT_EMU_NODES

int ht_passed, ht_failed;

void check(int good, const char *fmt, ...)
{
	va_list ap;

	if (good)
		ht_passed++;
	else
		ht_failed++;
	printf("%sok %d - ", good ? "" : "not ", ht_passed + ht_failed);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

double now_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Files of one emulated run: the shared "global space", node logs. */
struct emu_run {
	char space[64];
	char log[EMU_NODES][64];
};

static int emu_temp(char *name, size_t len, const char *what)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(name, len, "%s/ddsm-%s.XXXXXX", dir ? dir : "/tmp", what);
	fd = mkstemp(name);
	if (fd < 0)
		perror(name);
	return fd;
}

/* Node @k: @prog (in @dir) with @args, then its --emulate option. */
static pid_t emu_node(const struct emu_run *r, int k, const char *dir,
		      const char *prog, const char *const *args)
{
	char path[4096], spec[96];
	const char *argv[24];
	int i = 0, fd;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", dir, prog);
	snprintf(spec, sizeof(spec), "%s:%d:%d", r->space, k, EMU_NODES);
	argv[i++] = path;
	while (*args && i < 20)
		argv[i++] = *args++;
	argv[i++] = "--timeout=30";
	argv[i++] = "--emulate";
	argv[i++] = spec;
	argv[i] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid)
		return pid;
	fd = open(r->log[k], O_WRONLY | O_TRUNC);
	if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		_exit(126);
	execv(path, (char *const *)argv);
	perror(path);
	_exit(127);
}

/* Print @path's lines as TAP comments. */
static void emu_show(const char *path)
{
	char line[4096];
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f))
		printf("# %s", line);
	if (f)
		fclose(f);
}

/* Whether @path holds @what. */
static int emu_holds(const char *path, const char *what)
{
	char line[4096];
	FILE *f = fopen(path, "r");
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f))
		found = !!strstr(line, what);
	if (f)
		fclose(f);
	return found;
}

void ht_emu_run(struct ht_emu *e, const char *dir, const char *prog,
		const char *const *args, const char *want, bool show)
{
	struct emu_run r;
	pid_t pid[EMU_NODES];
	int k, st, fd;
	double t0 = now_secs();

	memset(e, 0, sizeof(*e));
	for (k = 0; args[k]; k++)
		snprintf(e->cmd + strlen(e->cmd), sizeof(e->cmd) - strlen(e->cmd),
			 " %s", args[k]);
	fd = emu_temp(r.space, sizeof(r.space), "emu");
	if (fd < 0) {
		e->failed = EMU_NODES;
		return;
	}
	close(fd);
	for (k = 0; k < EMU_NODES; k++) {
		fd = emu_temp(r.log[k], sizeof(r.log[k]), "log");
		if (fd >= 0)
			close(fd);
	}
	for (k = 0; k < EMU_NODES; k++)
		pid[k] = emu_node(&r, k, dir, prog, args);
	for (k = 0; k < EMU_NODES; k++)
		if (pid[k] < 0 || waitpid(pid[k], &st, 0) != pid[k] ||
		    !WIFEXITED(st) || WEXITSTATUS(st))
			e->failed++;
	e->found = !want || emu_holds(r.log[0], want);
	e->secs = now_secs() - t0;
	for (k = 0; k < EMU_NODES; k++) {
		if (show && (e->failed || !e->found))
			emu_show(r.log[k]);
		unlink(r.log[k]);
	}
	unlink(r.space);
}

const char *ht_prog_dir(int argc, char **argv, char *buf, size_t len)
{
	if (argc > 1)
		return argv[1];
	snprintf(buf, len, "%s", argc > 0 ? argv[0] : ".");
	return dirname(buf);
}

void emu_check(const char *dir, const char *prog, const char *const *args,
	       const char *want)
{
	struct ht_emu e;

	ht_emu_run(&e, dir, prog, args, want, true);
	check(!e.failed && e.found, "%s%s on %d emulated nodes: %d failed, node 0 printed \"%s\": %s (%.2f s)",
	      prog, e.cmd, EMU_NODES, e.failed, want, e.found ? "yes" : "no",
	      e.secs);
}
