// SPDX-License-Identifier: GPL-2.0
/*
 * Litmus tests of ddsm's memory model against x86-TSO, each thread on a
 * different node.  Run on every node at once: thread (role) r runs on
 * node r; tests with a final-state condition get an observer node that
 * reads the final values; nodes a test does not use just wait.
 *
 * The thread bodies are plain volatile 64-bit loads and stores with no
 * fence, exactly as the tests state them.  The allowed and forbidden
 * outcomes, and why, are in docs/litmus.md; each test below names its
 * forbidden outcome.
 *
 * Iterations, in the style of litmus7: iteration i uses slot i % RING of a
 * large array of units, and stores the value  tag(i) | v  (v = 1 or 2,
 * tag(i) = (run << 32 | (i + 1)) << 4), so no reset is needed: a load
 * that sees the tag of iteration i reads v, one that sees the slot's
 * previous use (iteration i - RING, or an earlier run of the program for
 * the first RING iterations) reads 0, the initial value.  Any other value
 * is a coherence violation in itself ("?" in the histograms; forbidden).
 * As litmus7 runs an array of test instances per synchronisation, one
 * cheap flag barrier (dsm_flagbar_n) among the nodes used starts each
 * batch of BATCH iterations (default 8, -b): each thread then runs its
 * body for the batch's iterations back to back, instance k of every
 * thread at about the same time.  The observer reads the previous batch's
 * final values just after the barrier, when all their stores are done.
 *
 * Layouts: "same": all of a test's variables in one unit (x at byte 0, y
 * at byte 256); "split": each variable in its own unit.  Slots are
 * consecutive units, so with the interleave policy the homes of the
 * variables rotate over the nodes from one iteration to the next.
 *
 * Usage: ddsm-litmus [--long] [-n ITERS] [-t TEST[,TEST...]] [-l same|split]
 *                    [-j JITTER_US] [-b BATCH]
 *   default 2000 iterations per test and layout, --long 100000;
 *   -j: random busy-wait of 0..JITTER_US before each body (default 0).
 * Output: TAP-like, one "ok"/"not ok" per test and layout (node 0 analyses
 * the outcomes; the other nodes learn its verdict through DSM memory).
 * Exit 0 iff no forbidden outcome was seen.
 */
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "libddsm.h"
#include "dsm_sync.h"
#include "test_common.h"

#define RING		512		/* slots per test and layout */
#define MAX_ROLES	5		/* 4 threads + observer */
#define MAX_REGS	4
#define BAD		3		/* a value no store of the test wrote */
#define TIMEOUT_S	120

/* Global layout (units): sync, then one region per test and layout. */
#define BASE_UNIT	8192			/* 32 MiB */
#define SYNC_OFF	0
#define RES_OFF		128			/* results, MAX_ROLES areas */
#define RES_UNITS_PER	32			/* 128 KiB: 131072 iterations */
#define TEST_OFF	(RES_OFF + MAX_ROLES * RES_UNITS_PER)
#define REGION_UNITS	(2 * RING)		/* split: 2 units per slot */
#define MAX_ITERS	(RES_UNITS_PER * DSM_UNIT)

/* Words in the sync window's free line (s->run[]). */
enum { RUN_CTR = 0, RUN_NOW = 1, VERDICT = 2 };

enum test_id { MP, SB, LB, WRC, IRIW, W22, CORR, COWW, NTESTS };

struct test {
	const char *name;
	int nthreads;
	int observer;		/* 1: node nthreads reads the final values */
	int nregs[MAX_ROLES];	/* per role: threads, then observer */
	const char *regs[MAX_REGS];
	const char *code;	/* the test, for the output and the docs */
	const char *forbidden_txt;
	int (*forbidden)(const int *r);
	const char *relaxed_txt;	/* allowed by TSO, not by SC */
	int (*relaxed)(const int *r);
};

/*
 * Forbidden outcomes under x86-TSO (reasoning in docs/litmus.md; they
 * agree with herd7's x86-TSO model).  A BAD value in any register is a
 * coherence violation and is forbidden in every test.
 */
/* MP: seeing the flag (y=1) but not the data (x=0) needs W->W or R->R
 * reordering; TSO keeps both. */
static int mp_forbidden(const int *r) { return r[0] == 1 && r[1] == 0; }
/* SB: nothing forbidden; r1=r2=0 is the store-buffer outcome TSO allows. */
static int none_forbidden(const int *r) { (void)r; return 0; }
static int sb_relaxed(const int *r) { return r[0] == 0 && r[1] == 0; }
/* LB: both loads reading the other thread's later store needs R->W
 * reordering; TSO forbids it. */
static int lb_forbidden(const int *r) { return r[0] == 1 && r[1] == 1; }
/* WRC: x=1 seen by P1, which then writes y=1; P2 seeing y=1 must see
 * x=1: TSO stores are multi-copy atomic and loads are not reordered. */
static int wrc_forbidden(const int *r)
{
	return r[0] == 1 && r[1] == 1 && r[2] == 0;
}
/* IRIW: the two readers disagree on the order of the independent
 * writes x=1 and y=1; TSO has one global store order. */
static int iriw_forbidden(const int *r)
{
	return r[0] == 1 && r[1] == 0 && r[2] == 1 && r[3] == 0;
}
/* 2+2W: final x=1 and y=1 would need a cycle x=2 < x=1 < y=2 < y=1 <
 * x=2 in coherence + program order; TSO keeps W->W.  A final 0 means a
 * completed store was lost. */
static int w22_forbidden(const int *r)
{
	return (r[0] == 1 && r[1] == 1) || r[0] == 0 || r[1] == 0;
}
/* CoRR: a later load of the same location may not read an older value. */
static int corr_forbidden(const int *r) { return r[0] == 1 && r[1] == 0; }
/* CoWW: two stores of one thread to x hit coherence order in program
 * order: the final value is the second (x=1 forbidden, x=0 is lost). */
static int coww_forbidden(const int *r) { return r[0] != 2; }

static const struct test tests[NTESTS] = {
	[MP] = { "MP", 2, 0, { 0, 2 }, { "r1", "r2" },
		 "P0: x=1; y=1 | P1: r1=y; r2=x",
		 "r1=1 r2=0", mp_forbidden, NULL, NULL },
	[SB] = { "SB", 2, 0, { 1, 1 }, { "r1", "r2" },
		 "P0: x=1; r1=y | P1: y=1; r2=x",
		 "none", none_forbidden, "r1=0 r2=0", sb_relaxed },
	[LB] = { "LB", 2, 0, { 1, 1 }, { "r1", "r2" },
		 "P0: r1=x; y=1 | P1: r2=y; x=1",
		 "r1=1 r2=1", lb_forbidden, NULL, NULL },
	[WRC] = { "WRC", 3, 0, { 0, 1, 2 }, { "r1", "r2", "r3" },
		  "P0: x=1 | P1: r1=x; y=1 | P2: r2=y; r3=x",
		  "r1=1 r2=1 r3=0", wrc_forbidden, NULL, NULL },
	[IRIW] = { "IRIW", 4, 0, { 0, 0, 2, 2 }, { "r1", "r2", "r3", "r4" },
		   "P0: x=1 | P1: y=1 | P2: r1=x; r2=y | P3: r3=y; r4=x",
		   "r1=1 r2=0 r3=1 r4=0", iriw_forbidden, NULL, NULL },
	[W22] = { "2+2W", 2, 1, { 0, 0, 2 }, { "x", "y" },
		  "P0: x=1; y=2 | P1: y=1; x=2 | final x, y",
		  "x=1 y=1 (or a 0: lost store)", w22_forbidden, NULL, NULL },
	[CORR] = { "CoRR", 2, 0, { 0, 2 }, { "r1", "r2" },
		   "P0: x=1 | P1: r1=x; r2=x",
		   "r1=1 r2=0", corr_forbidden, NULL, NULL },
	[COWW] = { "CoWW", 1, 1, { 0, 1 }, { "x" },
		   "P0: x=1; x=2 | final x",
		   "x=1 (or x=0: lost store)", coww_forbidden, NULL, NULL },
};

static char *win;
static int me = -1, nodes;
static uint64_t run_no;
static long iters = 2000;
static unsigned jitter_us;
static long batch = 8;

static inline uint64_t tag(long i)
{
	return ((run_no << 32) | (uint64_t)(i + 1)) << 4;
}

/* What a loaded value means in iteration i: 0 (initial), 1, 2, or BAD. */
static inline int classify(uint64_t v, long i)
{
	uint64_t t = v & ~15ULL;

	if (t == tag(i))
		return (v & 15) == 1 || (v & 15) == 2 ? (int)(v & 15) : BAD;
	if (i >= RING)
		return t == tag(i - RING) ? 0 : BAD;
	/* First use of the slot in this run: untouched, or an earlier run. */
	return (v >> 36) < run_no ? 0 : BAD;
}

/* Busy-wait up to jitter_us (random): varies which node gets there first. */
static void jitter(uint64_t *rng)
{
	double until;

	if (!jitter_us)
		return;
	*rng = dsm_mix64(*rng);
	until = dsm_now() + (*rng % (jitter_us + 1)) / 1e6;
	while (dsm_now() < until)
		;
}

/*
 * One thread body of iteration i; returns the registers packed 2 bits
 * each.  x, y: this iteration's variables.
 */
static uint8_t body(enum test_id t, int role, volatile uint64_t *x,
		    volatile uint64_t *y, long i)
{
	const uint64_t v1 = tag(i) | 1, v2 = tag(i) | 2;
	uint64_t a = 0, b = 0;

	switch (t) {
	case MP:
		if (role == 0) {
			*x = v1;
			*y = v1;
			return 0;
		}
		a = *y;
		b = *x;
		return classify(a, i) | classify(b, i) << 2;
	case SB:
		if (role == 0) {
			*x = v1;
			a = *y;
		} else {
			*y = v1;
			a = *x;
		}
		return classify(a, i);
	case LB:
		if (role == 0) {
			a = *x;
			*y = v1;
		} else {
			a = *y;
			*x = v1;
		}
		return classify(a, i);
	case WRC:
		if (role == 0) {
			*x = v1;
			return 0;
		}
		if (role == 1) {
			a = *x;
			*y = v1;
			return classify(a, i);
		}
		a = *y;
		b = *x;
		return classify(a, i) | classify(b, i) << 2;
	case IRIW:
		if (role == 0) {
			*x = v1;
			return 0;
		}
		if (role == 1) {
			*y = v1;
			return 0;
		}
		if (role == 2) {
			a = *x;
			b = *y;
		} else {
			a = *y;
			b = *x;
		}
		return classify(a, i) | classify(b, i) << 2;
	case W22:
		if (role == 0) {
			*x = v1;
			*y = v2;
		} else {
			*y = v1;
			*x = v2;
		}
		return 0;
	case CORR:
		if (role == 0) {
			*x = v1;
			return 0;
		}
		a = *x;
		b = *x;
		return classify(a, i) | classify(b, i) << 2;
	case COWW:
		*x = v1;
		*x = v2;
		return 0;
	default:
		return BAD;
	}
}

/* The observer: final values of iteration i (all its stores are done). */
static uint8_t observe(enum test_id t, volatile uint64_t *x,
		       volatile uint64_t *y, long i)
{
	if (t == COWW)
		return classify(*x, i);
	return classify(*x, i) | classify(*y, i) << 2;
}

static void vars(enum test_id t, int split, long i, volatile uint64_t **x,
		 volatile uint64_t **y)
{
	size_t region = TEST_OFF + ((size_t)t * 2 + split) * REGION_UNITS;
	size_t slot = i % RING;
	char *u;

	if (split) {
		u = win + (region + 2 * slot) * DSM_UNIT;
		*x = (volatile uint64_t *)u;
		*y = (volatile uint64_t *)(u + DSM_UNIT);
	} else {
		u = win + (region + slot) * DSM_UNIT;
		*x = (volatile uint64_t *)u;
		*y = (volatile uint64_t *)(u + 256);
	}
}

static void outcome_text(const struct test *T, const int *r, char *buf,
			 size_t len)
{
	int k, nr = 0, off = 0;

	for (k = 0; k < MAX_ROLES; k++)
		nr += T->nregs[k];
	for (k = 0; k < nr && off < (int)len; k++) {
		if (r[k] == BAD)
			off += snprintf(buf + off, len - off, "%s%s=?",
					k ? " " : "", T->regs[k]);
		else
			off += snprintf(buf + off, len - off, "%s%s=%d",
					k ? " " : "", T->regs[k], r[k]);
	}
}

/*
 * Node 0: combine every role's registers per iteration, print the
 * histogram; return the number of forbidden outcomes.
 */
static long analyse(const struct test *T, const char *layout,
		    uint8_t *const res[MAX_ROLES], int roles, double secs)
{
	static long hist[1 << (2 * MAX_REGS)];
	long i, forbidden = 0, relaxed = 0, bad = 0;
	int r[MAX_REGS], nr, k, j, key;
	char txt[128];

	memset(hist, 0, sizeof(hist));
	for (i = 0; i < iters; i++) {
		nr = 0;
		for (k = 0; k < roles; k++)
			for (j = 0; j < T->nregs[k]; j++)
				r[nr++] = (res[k][i] >> (2 * j)) & 3;
		key = 0;
		for (j = 0; j < nr; j++) {
			key |= r[j] << (2 * j);
			bad += r[j] == BAD;
		}
		hist[key]++;
	}
	printf("# %s %s: %s\n", T->name, layout, T->code);
	printf("# %s %s: %ld iterations in %.1f s (%.1f ms each)\n", T->name,
	       layout, iters, secs, secs * 1e3 / iters);
	for (key = 0; key < (int)(sizeof(hist) / sizeof(hist[0])); key++) {
		int is_forbidden, is_relaxed;

		if (!hist[key])
			continue;
		for (nr = 0, k = 0; k < roles; k++)
			nr += T->nregs[k];
		for (j = 0; j < nr; j++)
			r[j] = (key >> (2 * j)) & 3;
		is_forbidden = T->forbidden(r);
		for (j = 0; j < nr; j++)
			is_forbidden |= r[j] == BAD;
		is_relaxed = T->relaxed && T->relaxed(r);
		outcome_text(T, r, txt, sizeof(txt));
		printf("#   %-24s %8ld%s\n", txt, hist[key],
		       is_forbidden ? "   <== FORBIDDEN by x86-TSO" :
		       is_relaxed ? "   (allowed by TSO, not SC)" : "");
		if (is_forbidden)
			forbidden += hist[key];
		if (is_relaxed)
			relaxed += hist[key];
	}
	if (T->relaxed)
		printf("# %s %s: relaxed outcome %s seen %ld times\n", T->name,
		       layout, T->relaxed_txt, relaxed);
	if (bad)
		printf("# %s %s: %ld registers read a value no store of this "
		       "iteration or the slot's previous use wrote\n", T->name,
		       layout, bad);
	return forbidden;
}

/* Run one test in one layout on every node; 0 if no forbidden outcome. */
static int run_test(struct dsm_sync *s, enum test_id t, int split)
{
	const struct test *T = &tests[t];
	const char *layout = split ? "split" : "same";
	int roles = T->nthreads + T->observer;
	int role = me < roles ? me : -1;
	uint8_t *mine = NULL, *all[MAX_ROLES] = { 0 };
	volatile uint64_t *x, *y;
	uint64_t rng = dsm_mix64(run_no * 977 + me * 131 + t * 7 + split);
	double t0, secs;
	long i, lo, hi, forbidden = 0;
	int k, failed;

	if (roles > nodes) {
		if (me == 0)
			printf("ok - %s %s # SKIP needs %d nodes, have %d\n",
			       T->name, layout, roles, nodes);
		return 0;
	}
	if (dsm_flag_resync(s))
		tap_bail("%s %s: barrier before the test timed out", T->name, layout);
	t0 = dsm_now();
	if (role >= 0) {
		mine = calloc(iters, 1);
		if (!mine)
			tap_bail("out of memory");
		for (lo = 0; lo < iters; lo = hi) {
			hi = lo + batch < iters ? lo + batch : iters;
			if (dsm_flagbar_n(s, roles))
				tap_bail("%s %s: flag barrier timed out in iteration %ld",
				     T->name, layout, lo);
			if (role < T->nthreads) {
				for (i = lo; i < hi; i++) {
					vars(t, split, i, &x, &y);
					jitter(&rng);
					mine[i] = body(t, role, x, y, i);
				}
				continue;
			}
			/* Observer: the previous batch is complete. */
			for (i = lo - batch > 0 ? lo - batch : 0; i < lo; i++) {
				vars(t, split, i, &x, &y);
				mine[i] = observe(t, x, y, i);
			}
		}
		if (dsm_flagbar_n(s, roles))
			tap_bail("%s %s: final flag barrier timed out", T->name, layout);
		if (role == T->nthreads) {
			for (i = (iters - 1) / batch * batch; i < iters; i++) {
				vars(t, split, i, &x, &y);
				mine[i] = observe(t, x, y, i);
			}
		}
		/* Publish the registers for node 0. */
		memcpy(win + (RES_OFF + role * RES_UNITS_PER) * DSM_UNIT, mine,
		       iters);
	}
	secs = dsm_now() - t0;
	/* Idle nodes wait here for the whole test: a long timeout. */
	s->timeout = TIMEOUT_S + iters * 1.0;
	if (dsm_barrier(s))
		tap_bail("%s %s: barrier after the test timed out", T->name, layout);
	s->timeout = TIMEOUT_S;
	if (me == 0) {
		for (k = 0; k < roles; k++) {
			all[k] = malloc(iters);
			if (!all[k])
				tap_bail("out of memory");
			memcpy(all[k], win + (RES_OFF + k * RES_UNITS_PER) * DSM_UNIT,
			       iters);
		}
		forbidden = analyse(T, layout, all, roles, secs);
		for (k = 0; k < roles; k++)
			free(all[k]);
		s->run[VERDICT] = forbidden;
		printf("%sok - %s %s: forbidden %s seen %ld times in %ld iterations\n",
		       forbidden ? "not " : "", T->name, layout, T->forbidden_txt,
		       forbidden, iters);
	}
	/* Everybody learns the verdict; the result area is free again. */
	if (dsm_barrier(s))
		tap_bail("%s %s: barrier after the analysis timed out", T->name, layout);
	failed = s->run[VERDICT] != 0;
	if (me != 0 && failed)
		printf("# node%d: %s %s failed (see node 0)\n", me, T->name, layout);
	free(mine);
	return failed;
}

static void usage(void)
{
	fprintf(stderr, "usage: ddsm-litmus [--long] [-n ITERS] [-t TEST,...] "
		"[-l same|split] [-j JITTER_US] [-b BATCH]\ntests:");
	for (int t = 0; t < NTESTS; t++)
		fprintf(stderr, " %s", tests[t].name);
	fprintf(stderr, "\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "long", no_argument, NULL, 'L' },
		{ "iters", required_argument, NULL, 'n' },
		{ "tests", required_argument, NULL, 't' },
		{ "layout", required_argument, NULL, 'l' },
		{ "jitter", required_argument, NULL, 'j' },
		{ "batch", required_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 }
	};
	int want_test[NTESTS], want_layout[2] = { 1, 1 };
	struct dsm_sync s;
	struct ddsm d;
	size_t win_units;
	int opt, t, l, failed = 0, ran = 0;
	char *tok, *save;
	double t_all;

	for (t = 0; t < NTESTS; t++)
		want_test[t] = 1;
	while ((opt = getopt_long(argc, argv, "n:t:l:j:b:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'L':
			iters = 100000;
			break;
		case 'n':
			iters = atol(optarg);
			break;
		case 't':
			for (t = 0; t < NTESTS; t++)
				want_test[t] = 0;
			for (tok = strtok_r(optarg, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				for (t = 0; t < NTESTS; t++)
					if (!strcasecmp(tok, tests[t].name))
						break;
				if (t == NTESTS)
					usage();
				want_test[t] = 1;
			}
			break;
		case 'l':
			want_layout[0] = !strcmp(optarg, "same");
			want_layout[1] = !strcmp(optarg, "split");
			if (!want_layout[0] && !want_layout[1])
				usage();
			break;
		case 'j':
			jitter_us = atoi(optarg);
			break;
		case 'b':
			batch = atol(optarg);
			break;
		default:
			usage();
		}
	}
	if (iters < 1 || iters > (long)MAX_ITERS || batch < 1 ||
	    batch > RING / 2)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (ddsm_open(&d, NULL)) {
		perror("ddsm_open");
		return 1;
	}
	me = d.node_id;
	tap_node = me;
	nodes = d.nr_nodes;
	win_units = TEST_OFF + (size_t)NTESTS * 2 * REGION_UNITS;
	win = map_window(&d, BASE_UNIT * DSM_UNIT, win_units * DSM_UNIT);
	t_all = dsm_now();
	if (dsm_sync_init(&s, win + SYNC_OFF * DSM_UNIT, BASE_UNIT + SYNC_OFF,
			  me, nodes, TIMEOUT_S))
		tap_bail("initial barrier timed out");
	/* A run number makes this run's stores distinguishable from any
	 * earlier run's in the same module session. */
	if (me == 0)
		s.run[RUN_NOW] = __atomic_add_fetch(&s.run[RUN_CTR], 1,
						    __ATOMIC_SEQ_CST);
	if (dsm_barrier(&s))
		tap_bail("barrier after the run number timed out");
	run_no = s.run[RUN_NOW];
	if (me == 0)
		printf("# ddsm-litmus: %d nodes, run %llu, %ld iterations per test "
		       "and layout, %ld per barrier, jitter %u us\n", nodes,
		       (unsigned long long)run_no, iters, batch, jitter_us);
	for (t = 0; t < NTESTS; t++)
		for (l = 0; l < 2; l++) {
			if (!want_test[t] || !want_layout[l])
				continue;
			failed |= run_test(&s, t, l);
			ran++;
		}
	if (dsm_barrier(&s))
		tap_bail("final barrier timed out");
	printf("# node%d: %d litmus runs in %.1f s\n", me, ran, dsm_now() - t_all);
	ddsm_unmap(&d, win, win_units * DSM_UNIT);
	ddsm_close(&d);
	return failed;
}
