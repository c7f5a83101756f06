// SPDX-License-Identifier: GPL-2.0
/*
 * ddsm-test-backup: writers log what was acknowledged durable in units
 * homed on one node (the victim), which the host kills; every node then
 * reads the units back from the victim's backup, which took them over
 * (tests/vm/backup/host.sh checks the reads against the acks).
 *
 * usage: ddsm-test-backup write VICTIM SECS [AGAIN]
 *        ddsm-test-backup read VICTIM
 * Two regions of REGION bytes: Synchronous at SYNC_BASE, Scope at
 * SCOPE_BASE (set by the guest script).  Of each region's units homed on
 * VICTIM, the writers (the nodes that are not VICTIM) share them out in
 * turn.  write: round after round, each of its units gets a whole new
 * image of round r (Synchronous: ddsm_write_durable(); Scope: plain
 * stores, then ddsm_persist() of the unit), for SECS seconds, printing
 *   BK W <model> <unit> <r> .   before the write (it may reach home)
 *   BK A <model> <unit> <r> .   once it was acknowledged durable
 * A write that fails (the home is dying, a barrier gives up) is not
 * acknowledged; a SIGBUS skips to the next unit (and fails the run:
 * stores to a unit whose home died wait for the backup to take it over,
 * within fault_timeout_ms).
 * First, each writer stores round 1 into its units of a third region
 * (Eventual, "dirty") and leaves them there, dirty in its cache: nothing
 * sends them home before the victim dies, so the backup must get them
 * from the writer's hand-over, or they are lost.  With AGAIN, it stores
 * round 2 into them AGAIN seconds into the run (after a false death of
 * the victim, whose return took the first round home with the orphans).
 * read: every unit of the three regions placed on VICTIM, one line each:
 *   BK R <model> <unit> <r> <ok|empty|torn> .
 * An image is magic+model, unit, round, a pattern of the three and a
 * hash; a torn one does not hash right.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libddsm.h"
#include "test_common.h"
#include "dsm_sync.h"

#define SYNC_BASE	0x000000ULL
#define SCOPE_BASE	0x080000ULL
#define DIRTY_BASE	0x100000ULL
#define REGION		0x060000ULL	/* 96 units each, 32 per home */
#define WIN_LEN		(DIRTY_BASE + REGION)
#define MAGIC		0x4241434b55500000ULL	/* "BACKUP" */
#define W		DSM_WORDS_PER_UNIT

enum { M_SYNC, M_SCOPE, M_DIRTY, M_NR };
static const char *const mname[M_NR] = { "sync", "scope", "dirty" };
static const uint64_t mbase[M_NR] = { SYNC_BASE, SCOPE_BASE, DIRTY_BASE };

static struct ddsm d;
static char *win;
static int me, nodes;

static uint64_t img_hash(const uint64_t *r)
{
	uint64_t h = 0x452821e638d01377ULL, i;

	for (i = 0; i < W - 1; i++)
		h = dsm_mix64(h ^ r[i]);
	return h;
}

static void make_img(uint64_t *r, int m, uint64_t unit, uint64_t round)
{
	uint64_t i;

	r[0] = MAGIC | m;
	r[1] = unit;
	r[2] = round;
	for (i = 3; i < W - 1; i++)
		r[i] = dsm_mix64(((uint64_t)m << 60) ^ (unit << 32) ^
				 (round << 12) ^ i);
	r[W - 1] = img_hash(r);
}

static const char *img_state(const uint64_t *r, int m, uint64_t unit)
{
	uint64_t want[W], i;

	for (i = 0; i < W && !r[i]; i++)
		;
	if (i == W)
		return "empty";
	if (r[0] != (MAGIC | m) || r[1] != unit || r[W - 1] != img_hash(r))
		return "torn";
	make_img(want, m, unit, r[2]);
	return memcmp(want, r, sizeof(want)) ? "torn" : "ok";
}

static sigjmp_buf op_env;
static volatile sig_atomic_t in_op;
#define OP_BEGIN()	do { in_op = 1; __asm__ volatile("" ::: "memory"); } while (0)
#define OP_END()	do { __asm__ volatile("" ::: "memory"); in_op = 0; } while (0)

static void op_sigbus(int sig, siginfo_t *si, void *ctx)
{
	if (in_op) {
		OP_END();
		siglongjmp(op_env, 1);
	}
	sigbus_handler(sig, si, ctx);
}

/*
 * The units of region @m placed on @victim (interleaved homes), in order;
 * returns how many.  Not ddsm_home(): after the failover it names the
 * backup.
 */
static int victim_units(int m, int victim, uint64_t *units, int max)
{
	uint64_t u, first = mbase[m] / DSM_UNIT;
	int k = 0;

	for (u = first; u < first + REGION / DSM_UNIT && k < max; u++)
		if (u % nodes == (uint64_t)victim)
			units[k++] = u;
	return k;
}

/* One image of @round into unit @u: 0 acked, -1 failed, 1 SIGBUS. */
static int write_one(int m, uint64_t u, uint64_t round)
{
	uint64_t img[W], g = u * DSM_UNIT;
	char *dst = win + g;
	int ret;

	make_img(img, m, u, round);
	printf("BK W %s %llu %llu .\n", mname[m], (unsigned long long)u,
	       (unsigned long long)round);
	fflush(stdout);
	if (sigsetjmp(op_env, 1))
		return 1;
	OP_BEGIN();
	if (m == M_SYNC) {
		ret = ddsm_write_durable(&d, dst, g, img, DSM_UNIT);
	} else {
		memcpy(dst, img, DSM_UNIT);
		ret = ddsm_persist(&d, g, DSM_UNIT);
	}
	OP_END();
	if (ret) {
		printf("# node%d: %s unit %llu round %llu: %s\n", me, mname[m],
		       (unsigned long long)u, (unsigned long long)round,
		       strerror(errno));
		return -1;
	}
	printf("BK A %s %llu %llu .\n", mname[m], (unsigned long long)u,
	       (unsigned long long)round);
	fflush(stdout);
	return 0;
}

/* Plain stores of @round into this writer's dirty units, kept dirty. */
static void dirty_round(const uint64_t *units, int nu, int writer, int nn,
			uint64_t round)
{
	uint64_t img[W];
	int i;

	for (i = writer; i < nu; i += nn - 1) {
		make_img(img, M_DIRTY, units[i], round);
		printf("BK W %s %llu %llu .\n", mname[M_DIRTY],
		       (unsigned long long)units[i], (unsigned long long)round);
		memcpy(win + units[i] * DSM_UNIT, img, DSM_UNIT);
	}
	fflush(stdout);
}

static int do_write(int victim, int nn, unsigned int secs, unsigned int again)
{
	uint64_t units[M_NR][96], round, t_start, t_end, n[3] = { 0, 0, 0 };
	int nu[M_NR], m, i, writer = (me - victim - 1 + nn) % nn;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = op_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGBUS, &sa, NULL);
	for (m = 0; m < M_NR; m++)
		nu[m] = victim_units(m, victim, units[m], 96);
	printf("# node%d: writer %d of %d, %d + %d + %d units homed on node%d\n",
	       me, writer, nn - 1, nu[M_SYNC], nu[M_SCOPE], nu[M_DIRTY],
	       victim);
	dirty_round(units[M_DIRTY], nu[M_DIRTY], writer, nn, 1);
	t_start = now_ns();
	t_end = t_start + secs * 1000000000ULL;
	for (round = 1; now_ns() < t_end; round++) {
		if (again && now_ns() >= t_start + again * 1000000000ULL) {
			dirty_round(units[M_DIRTY], nu[M_DIRTY], writer, nn, 2);
			again = 0;
		}
		for (m = 0; m < M_DIRTY; m++)
			for (i = writer; i < nu[m]; i += nn - 1)
				n[1 + write_one(m, units[m][i], round)]++;
	}
	printf("# node%d: %llu rounds, %llu writes acked, %llu failed, %llu SIGBUS\n",
	       me, (unsigned long long)round - 1, (unsigned long long)n[1],
	       (unsigned long long)n[0], (unsigned long long)n[2]);
	tap(n[1] > 0, "wrote and had acknowledged %llu images in node%d's units",
	    (unsigned long long)n[1], victim);
	/* A fault on the dead home's units waits for its backup instead. */
	tap(!n[2], "no access got SIGBUS through node%d's death (%llu)",
	    victim, (unsigned long long)n[2]);
	return tap_failed ? 1 : 0;
}

static int do_read(int victim)
{
	uint64_t units[96], img[W];
	int m, i, n, bad = 0;

	sigbus_install();
	for (m = 0; m < M_NR; m++) {
		n = victim_units(m, victim, units, 96);
		for (i = 0; i < n; i++) {
			const char *st;

			memcpy(img, win + units[i] * DSM_UNIT, DSM_UNIT);
			st = img_state(img, m, units[i]);
			bad += !strcmp(st, "torn");
			printf("BK R %s %llu %llu %s .\n", mname[m],
			       (unsigned long long)units[i],
			       (unsigned long long)(strcmp(st, "ok") ? 0 : img[2]),
			       st);
		}
	}
	fflush(stdout);
	tap(!bad, "read every unit homed on node%d: %d torn", victim, bad);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct ddsm_status st;
	int victim;

	if (argc < 3)
		goto usage;
	if (ddsm_open(&d, NULL))
		tap_bail("ddsm_open: %s", strerror(errno));
	if (ddsm_status(&d, &st))
		tap_bail("ddsm_status: %s", strerror(errno));
	me = st.node_id;
	nodes = st.nr_nodes;
	tap_node = me;
	victim = parse_ul(argv[2], "VICTIM");
	win = map_window(&d, 0, WIN_LEN);
	if (!strcmp(argv[1], "write") && (argc == 4 || argc == 5))
		return do_write(victim, st.nr_nodes,
				parse_ul(argv[3], "SECS"),
				argc == 5 ? parse_ul(argv[4], "AGAIN") : 0);
	if (!strcmp(argv[1], "read"))
		return do_read(victim);
usage:
	fprintf(stderr, "usage: ddsm-test-backup write VICTIM SECS [AGAIN] | read VICTIM\n");
	return 2;
}
