// SPDX-License-Identifier: GPL-2.0
/*
 * ddsm-bench-transitions: latency of each coherence transition as seen by
 * the faulting access, on a cluster of at least 3 nodes.  A benchmark, not
 * a test: the numbers are printed, never judged here.  It does fail (exit
 * 1) on a coherence error: a load that returns a value other than the one
 * the protocol must deliver, a reply that never comes, or a SIGBUS.
 *
 * usage: ddsm-bench-transitions [-r REPS] [-s SCAN_MIB] [-w SETTLE_US]
 *                               [-p POLL_US] [-T TRACE_REPS] NODE_ID NR_NODES
 *   -r  repetitions per transition (default 200)
 *   -T  after the timed rounds, this many more with ftrace recording on
 *       every node (tracing_on; the events are set up by the caller), so
 *       the breakdown comes from rounds whose own timing is not reported
 *       and the tracepoints never slow the timed rounds (default 0)
 *   -s  MiB per resident-scan region (default 16)
 *   -w  pause before every timed access, so that the tail of the setup
 *       (UNLOCK, WRITEBACK, ACKs) is over (default 1000 us)
 *   -p  polling interval of the control loop (default 50 us)
 *
 * Roles by node id: A = node 0 is the home of the measured units (unless a
 * row says otherwise), B = node 1 drives the run and makes most timed
 * accesses, C = node 2 is the third party (sharer, owner, reader).  With 4
 * nodes or more, D = node 3 is a second remote sharer for one more row
 * (home A invalidates C and D); nodes 4 and up have nothing to do.  Every
 * repetition takes a fresh unit, so its state before the setup is known:
 * never touched by anyone.
 *
 * Control: B writes commands into one mailbox unit per helper (A, C, D) and
 * reads the helper's reply unit; all control units are homed on B.
 * Helpers poll with a sleep between looks, so an idle node's vCPU halts
 * instead of spinning, and a poll on an unchanged mailbox is a hit on the
 * local read-only copy (no message).  B sleeps SETTLE_US after the setup
 * and only then times the access; a helper that times an access does the
 * same.
 *
 * Output (B only), one line per row, for tools/bench/transitions/host.sh:
 *   bench row KEY N MEDIAN_US P90_US MIN_US MEAN_US MAX_US
 *   bench scan KEY MIB MEDIAN_MS MIN_MS
 *   bench errors MISMATCHES STATE_ANOMALIES
 * and '#' lines for people.  Values a load must return are checked on
 * every repetition; the local cache state (DDSM_IOC_HOME) is checked
 * around B's timed accesses, and a surprise there is reported as an
 * anomaly, not an error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "libddsm.h"
#include "test_common.h"

#define UNIT		((uint64_t)DDSM_UNIT_SIZE)
#define NODE_A		0
#define NODE_B		1
#define NODE_C		2
#define NODE_D		3	/* with 4 nodes: a second remote sharer */
#define MAX_HELPERS	3	/* A, C and (with 4 nodes) D */
#define REPLY_TIMEOUT_S	60
#define IDLE_TIMEOUT_S	900
#define SCAN_REPS	15
#define FIRST_UNIT	64	/* measured units start here */
#define MAX_REPORT	10	/* mismatches printed in full */

enum op { OP_NONE, OP_READ, OP_WRITE, OP_TRACE, OP_QUIT };

/* Mailbox, at the start of a control unit; written by B only. */
struct mbox {
	uint64_t seq;		/* written last, release */
	uint64_t op;
	uint64_t unit;
	uint64_t value;
	uint64_t timed;
	uint64_t settle_us;
};

/* Reply, at the start of another control unit; written by one helper. */
struct reply {
	uint64_t seq;		/* written last, release */
	uint64_t value;		/* what OP_READ loaded */
	uint64_t ns;		/* duration of the access if timed */
};

/* The rows, in print order. */
enum row {
	R_HIT,
	R_IS_HOME,
	R_IS_OWNER,
	R_IM0,
	R_IM1,
	R_IM2,
	R_IM2_CD,
	R_IM1_LH,
	R_IM2_LH,
	R_SM,
	R_MS_READER,
	R_MS_OWNER_READ,
	R_MS_OWNER_WRITE,
	R_NR,
};

static const char *const row_key[R_NR] = {
	[R_HIT]			= "hit",
	[R_IS_HOME]		= "is_home",
	[R_IS_OWNER]		= "is_owner",
	[R_IM0]			= "im_0",
	[R_IM1]			= "im_1",
	[R_IM2]			= "im_2",
	[R_IM2_CD]		= "im_2_cd",
	[R_IM1_LH]		= "im_1_lh",
	[R_IM2_LH]		= "im_2_lh",
	[R_SM]			= "sm_0",
	[R_MS_READER]		= "ms_reader",
	[R_MS_OWNER_READ]	= "ms_owner_read",
	[R_MS_OWNER_WRITE]	= "ms_owner_write",
};

static const char *const row_desc[R_NR] = {
	[R_HIT]			= "resident S hit (timer + load, no fault)",
	[R_IS_HOME]		= "I->S, B reads, served by home A (U)",
	[R_IS_OWNER]		= "I->S, B reads, C holds M",
	[R_IM0]			= "I->M, B writes, 0 sharers",
	[R_IM1]			= "I->M, B writes, 1 sharer (C)",
	[R_IM2]			= "I->M, B writes, 2 sharers (A=home, C)",
	[R_IM2_CD]		= "I->M, B writes, home A, 2 sharers (C, D)",
	[R_IM1_LH]		= "I->M, B writes, home B, 1 sharer (C)",
	[R_IM2_LH]		= "I->M, B writes, home B, 2 sharers (A, C)",
	[R_SM]			= "S->M, B holds S alone, writes",
	[R_MS_READER]		= "M->S, B holds M, C reads (timed on C)",
	[R_MS_OWNER_READ]	= "M->S, then owner B reads again",
	[R_MS_OWNER_WRITE]	= "M->S, then owner B writes (S->M, 1 sharer)",
};

struct samples {
	uint64_t *ns;
	int n;
};

static struct ddsm dd;
static volatile uint64_t *space;	/* the whole global space */
static uint64_t nr_units;
static int me, nr_nodes;
static int reps = 200;
static uint64_t scan_mib = 16;
static unsigned int settle_us = 1000, poll_us = 50;
static int trace_reps;
#define TRACING_ON	"/sys/kernel/tracing/tracing_on"
static int nr_helpers;			/* 2, or 3 with 4 nodes or more */
static uint64_t mbox_unit[MAX_HELPERS], reply_unit[MAX_HELPERS];
static uint64_t cursor[3];		/* next candidate unit per home */
static uint64_t cmd_seq;
static unsigned long mismatches, anomalies;

/* What the program is doing, for the SIGBUS report. */
static char doing[160] = "starting";

static void set_doing(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(doing, sizeof(doing), fmt, ap);
	va_end(ap);
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	char buf[320];
	int len;

	(void)sig;
	(void)uc;
	/* snprintf is not async-signal-safe in theory; we exit right after. */
	len = snprintf(buf, sizeof(buf),
		       "bench FATAL node %d: SIGBUS at %p (gaddr 0x%llx) while %s\n",
		       me, si->si_addr,
		       (unsigned long long)((char *)si->si_addr - (char *)space),
		       doing);
	if (len > 0)
		(void)!write(STDOUT_FILENO, buf, (size_t)len);
	_exit(3);
}

static volatile uint64_t *word(uint64_t unit)
{
	return space + unit * (UNIT / sizeof(uint64_t));
}

static uint64_t timed_load(uint64_t unit, uint64_t *val)
{
	volatile uint64_t *p = word(unit);
	uint64_t t0, t1;

	t0 = now_ns();
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	*val = *p;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t1 = now_ns();
	return t1 - t0;
}

static uint64_t timed_store(uint64_t unit, uint64_t val)
{
	volatile uint64_t *p = word(unit);
	uint64_t t0, t1;

	t0 = now_ns();
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	*p = val;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t1 = now_ns();
	return t1 - t0;
}

static int unit_home(uint64_t unit)
{
	struct ddsm_home_query q;

	if (ddsm_home(&dd, unit * UNIT, &q)) {
		perror("ddsm_home");
		exit(1);
	}
	return (int)q.home;
}

static uint32_t unit_state(uint64_t unit)
{
	struct ddsm_home_query q;

	if (ddsm_home(&dd, unit * UNIT, &q)) {
		perror("ddsm_home");
		exit(1);
	}
	return q.state;
}

/* The next never-used unit homed on @home, below @limit. */
static uint64_t fresh_unit(int home, uint64_t limit)
{
	uint64_t u;

	for (u = cursor[home]; u < limit; u++) {
		if (unit_home(u) == home) {
			cursor[home] = u + 1;
			return u;
		}
	}
	fprintf(stderr, "bench: out of units homed on node %d\n", home);
	exit(1);
}

/* Control units: the first 2 * nr_helpers units homed on B. */
static void find_control_units(void)
{
	uint64_t u, found[2 * MAX_HELPERS];
	int k = 0;

	for (u = 0; u < FIRST_UNIT && k < 2 * nr_helpers; u++)
		if (unit_home(u) == NODE_B)
			found[k++] = u;
	if (k < 2 * nr_helpers) {
		fprintf(stderr, "bench: not enough control units homed on node %d\n",
			NODE_B);
		exit(1);
	}
	for (k = 0; k < nr_helpers; k++) {
		mbox_unit[k] = found[2 * k];
		reply_unit[k] = found[2 * k + 1];
	}
}

static void note_mismatch(const char *what, uint64_t unit, int node,
			  uint64_t want, uint64_t got)
{
	if (++mismatches <= MAX_REPORT)
		printf("bench MISMATCH %s: node %d read unit %" PRIu64
		       " (gaddr 0x%" PRIx64 ") = 0x%" PRIx64 ", want 0x%" PRIx64 "\n",
		       what, node, unit, unit * UNIT, got, want);
}

static void expect_state(const char *what, uint64_t unit, uint32_t want)
{
	uint32_t got = unit_state(unit);

	if (got != want && ++anomalies <= MAX_REPORT)
		printf("# anomaly %s: node %d unit %" PRIu64 " state %s, expected %s\n",
		       what, me, unit, ddsm_unit_state_name(got),
		       ddsm_unit_state_name(want));
}

/* Switch this node's ftrace recording; a missing tracefs is not an error. */
static void tracing(bool on)
{
	FILE *f = fopen(TRACING_ON, "w");

	if (!f)
		return;
	fputs(on ? "1\n" : "0\n", f);
	fclose(f);
}

/* ---- helpers (A, C) ------------------------------------------------ */

static int helper_loop(int slot)
{
	struct mbox *mb = (struct mbox *)word(mbox_unit[slot]);
	struct reply *rp = (struct reply *)word(reply_unit[slot]);
	uint64_t last = 0, idle_since = now_ns();

	for (;;) {
		uint64_t seq, op, unit, val = 0, ns = 0;

		set_doing("polling mailbox unit %" PRIu64, mbox_unit[slot]);
		seq = __atomic_load_n(&mb->seq, __ATOMIC_ACQUIRE);
		if (seq == last) {
			if (now_ns() - idle_since > IDLE_TIMEOUT_S * 1000000000ull) {
				printf("bench node %d: no command for %d s, giving up\n",
				       me, IDLE_TIMEOUT_S);
				return 1;
			}
			usleep(poll_us);
			continue;
		}
		op = mb->op;
		unit = mb->unit;
		if (op == OP_QUIT) {
			/* Acknowledged: B knows nobody touches memory any more. */
			__atomic_store_n(&rp->seq, seq, __ATOMIC_RELEASE);
			return 0;
		}
		if (op == OP_TRACE) {
			tracing(mb->value);
			__atomic_store_n(&rp->seq, seq, __ATOMIC_RELEASE);
			last = seq;
			idle_since = now_ns();
			continue;
		}
		if (unit >= nr_units) {
			printf("bench node %d: bad command unit %" PRIu64 "\n", me, unit);
			return 1;
		}
		set_doing("%s unit %" PRIu64 " (command %" PRIu64 ")",
			  op == OP_READ ? "reading" : "writing", unit, seq);
		if (mb->timed && mb->settle_us)
			usleep((useconds_t)mb->settle_us);
		if (op == OP_READ)
			ns = timed_load(unit, &val);
		else if (op == OP_WRITE)
			ns = timed_store(unit, mb->value);
		rp->value = val;
		rp->ns = ns;
		set_doing("replying to command %" PRIu64, seq);
		__atomic_store_n(&rp->seq, seq, __ATOMIC_RELEASE);
		last = seq;
		idle_since = now_ns();
	}
}

/* ---- driver (B) ---------------------------------------------------- */

static int helper_slot(int node)
{
	return node == NODE_A ? 0 : node == NODE_C ? 1 : 2;
}

static int helper_node(int slot)
{
	return slot == 0 ? NODE_A : slot == 1 ? NODE_C : NODE_D;
}

/* Tell every helper the same thing (OP_NONE, OP_TRACE). */
static uint64_t cmd(int node, enum op op, uint64_t unit, uint64_t value,
		    bool timed, uint64_t *ns);
static void cmd_all(enum op op, uint64_t value)
{
	int i;

	for (i = 0; i < nr_helpers; i++)
		cmd(helper_node(i), op, 0, value, false, NULL);
}

/*
 * Have @node do @op on @unit; wait for the reply.  Returns the loaded
 * value (OP_READ); the access time goes to *@ns if not NULL.
 */
static uint64_t cmd(int node, enum op op, uint64_t unit, uint64_t value,
		    bool timed, uint64_t *ns)
{
	int slot = helper_slot(node);
	struct mbox *mb = (struct mbox *)word(mbox_unit[slot]);
	struct reply *rp = (struct reply *)word(reply_unit[slot]);
	uint64_t seq = ++cmd_seq, t0;

	set_doing("posting command %" PRIu64 " to node %d", seq, node);
	mb->op = op;
	mb->unit = unit;
	mb->value = value;
	mb->timed = timed;
	mb->settle_us = settle_us;
	__atomic_store_n(&mb->seq, seq, __ATOMIC_RELEASE);
	set_doing("waiting for node %d's reply to command %" PRIu64 " (op %d unit %" PRIu64 ")",
		  node, seq, op, unit);
	t0 = now_ns();
	while (__atomic_load_n(&rp->seq, __ATOMIC_ACQUIRE) != seq) {
		if (now_ns() - t0 > REPLY_TIMEOUT_S * 1000000000ull) {
			printf("bench FATAL: node %d did not answer command %" PRIu64
			       " (op %d unit %" PRIu64 ") within %d s\n",
			       node, seq, op, unit, REPLY_TIMEOUT_S);
			exit(1);
		}
		usleep(poll_us);
	}
	if (ns)
		*ns = rp->ns;
	return rp->value;
}

static void helper_read_expect(int node, uint64_t unit, uint64_t want,
			       const char *what)
{
	uint64_t got = cmd(node, OP_READ, unit, 0, false, NULL);

	if (got != want)
		note_mismatch(what, unit, node, want, got);
}

static void add(struct samples *s, uint64_t ns)
{
	s->ns[s->n++] = ns;
}

static void settle(void)
{
	if (settle_us)
		usleep(settle_us);
}

/* B's timed load; checks the value and the state before and after. */
static void b_timed_load(struct samples *s, enum row r, uint64_t unit,
			 uint32_t before, uint64_t want)
{
	uint64_t val;

	expect_state(row_key[r], unit, before);
	settle();
	set_doing("timed load of unit %" PRIu64 " (%s)", unit, row_key[r]);
	add(&s[r], timed_load(unit, &val));
	if (val != want)
		note_mismatch(row_key[r], unit, me, want, val);
	expect_state(row_key[r], unit, DDSM_UNIT_S);
}

static void b_timed_store(struct samples *s, enum row r, uint64_t unit,
			  uint32_t before, uint64_t val)
{
	expect_state(row_key[r], unit, before);
	settle();
	set_doing("timed store to unit %" PRIu64 " (%s)", unit, row_key[r]);
	add(&s[r], timed_store(unit, val));
	expect_state(row_key[r], unit, DDSM_UNIT_M);
}

static uint64_t tag(uint64_t unit, unsigned int k)
{
	return (unit << 8) | 0x5a00000000000000ull | k;
}

/* One repetition of every row, each on fresh units. */
static void one_round(struct samples *s, uint64_t limit, uint64_t hit_unit)
{
	uint64_t u, v, ns;

	/* Timer overhead: a load that hits a resident read-only copy. */
	expect_state("hit", hit_unit, DDSM_UNIT_S);
	add(&s[R_HIT], timed_load(hit_unit, &v));

	/* I->S from home: nobody has touched the unit. */
	u = fresh_unit(NODE_A, limit);
	b_timed_load(s, R_IS_HOME, u, DDSM_UNIT_I, 0);

	/* I->S from an M owner. */
	u = fresh_unit(NODE_A, limit);
	cmd(NODE_C, OP_WRITE, u, tag(u, 1), false, NULL);
	b_timed_load(s, R_IS_OWNER, u, DDSM_UNIT_I, tag(u, 1));

	/* I->M, 0 sharers; C then must see the store. */
	u = fresh_unit(NODE_A, limit);
	b_timed_store(s, R_IM0, u, DDSM_UNIT_I, tag(u, 2));
	helper_read_expect(NODE_C, u, tag(u, 2), "im_0 readback");

	/* I->M, 1 sharer: C's copy must be invalidated. */
	u = fresh_unit(NODE_A, limit);
	helper_read_expect(NODE_C, u, 0, "im_1 setup");
	b_timed_store(s, R_IM1, u, DDSM_UNIT_I, tag(u, 3));
	helper_read_expect(NODE_C, u, tag(u, 3), "im_1 readback");

	/* I->M, 2 sharers, one of them the home. */
	u = fresh_unit(NODE_A, limit);
	helper_read_expect(NODE_C, u, 0, "im_2 setup");
	helper_read_expect(NODE_A, u, 0, "im_2 setup");
	b_timed_store(s, R_IM2, u, DDSM_UNIT_I, tag(u, 4));
	helper_read_expect(NODE_C, u, tag(u, 4), "im_2 readback");
	helper_read_expect(NODE_A, u, tag(u, 4), "im_2 readback");

	/* With a fourth node: home A invalidates two remote sharers. */
	if (nr_helpers > 2) {
		u = fresh_unit(NODE_A, limit);
		helper_read_expect(NODE_C, u, 0, "im_2_cd setup");
		helper_read_expect(NODE_D, u, 0, "im_2_cd setup");
		b_timed_store(s, R_IM2_CD, u, DDSM_UNIT_I, tag(u, 10));
		helper_read_expect(NODE_C, u, tag(u, 10), "im_2_cd readback");
		helper_read_expect(NODE_D, u, tag(u, 10), "im_2_cd readback");
	}

	/* The same with B as the home: every invalidation is remote. */
	u = fresh_unit(NODE_B, limit);
	helper_read_expect(NODE_C, u, 0, "im_1_lh setup");
	b_timed_store(s, R_IM1_LH, u, DDSM_UNIT_I, tag(u, 5));
	helper_read_expect(NODE_C, u, tag(u, 5), "im_1_lh readback");

	u = fresh_unit(NODE_B, limit);
	helper_read_expect(NODE_C, u, 0, "im_2_lh setup");
	helper_read_expect(NODE_A, u, 0, "im_2_lh setup");
	b_timed_store(s, R_IM2_LH, u, DDSM_UNIT_I, tag(u, 6));
	helper_read_expect(NODE_C, u, tag(u, 6), "im_2_lh readback");
	helper_read_expect(NODE_A, u, tag(u, 6), "im_2_lh readback");

	/* S->M: B holds the only copy, read-only. */
	u = fresh_unit(NODE_A, limit);
	set_doing("setup load of unit %" PRIu64 " (sm_0)", u);
	v = *word(u);
	if (v != 0)
		note_mismatch("sm_0 setup", u, me, 0, v);
	b_timed_store(s, R_SM, u, DDSM_UNIT_S, tag(u, 7));
	helper_read_expect(NODE_C, u, tag(u, 7), "sm_0 readback");

	/*
	 * M->S: B writes, C reads (timed on C), then B reads again and
	 * writes again (an upgrade with C as the other sharer).
	 */
	u = fresh_unit(NODE_A, limit);
	set_doing("setup store to unit %" PRIu64 " (ms)", u);
	*word(u) = tag(u, 8);
	expect_state("ms setup", u, DDSM_UNIT_M);
	v = cmd(NODE_C, OP_READ, u, 0, true, &ns);
	add(&s[R_MS_READER], ns);
	if (v != tag(u, 8))
		note_mismatch("ms_reader", u, NODE_C, tag(u, 8), v);
	b_timed_load(s, R_MS_OWNER_READ, u, DDSM_UNIT_S, tag(u, 8));
	b_timed_store(s, R_MS_OWNER_WRITE, u, DDSM_UNIT_S, tag(u, 9));
	helper_read_expect(NODE_C, u, tag(u, 9), "ms_owner_write readback");
}

/* Nearest-rank percentile of a sorted array. */
static uint64_t pct(const uint64_t *v, int n, int p)
{
	int k = (p * n + 99) / 100;

	if (k < 1)
		k = 1;
	return v[k - 1];
}

static void print_row(enum row r, struct samples *s)
{
	uint64_t sum = 0;
	int i, n = s->n;

	qsort(s->ns, (size_t)n, sizeof(*s->ns), cmp_u64);
	for (i = 0; i < n; i++)
		sum += s->ns[i];
	printf("bench row %s %d %.1f %.1f %.1f %.1f %.1f\n", row_key[r], n,
	       pct(s->ns, n, 50) / 1e3, pct(s->ns, n, 90) / 1e3,
	       s->ns[0] / 1e3, n ? (double)sum / n / 1e3 : 0.0,
	       s->ns[n - 1] / 1e3);
	printf("# %-44s median %8.1f us  p90 %8.1f us\n", row_desc[r],
	       pct(s->ns, n, 50) / 1e3, pct(s->ns, n, 90) / 1e3);
}

/* ---- resident scan ------------------------------------------------- */

static uint64_t scan_sink;

static __attribute__((noinline)) uint64_t scan(const uint64_t *p, size_t words)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < words; i++)
		sum += p[i];
	return sum;
}

static uint64_t timed_scan(const void *p, size_t len)
{
	uint64_t t0, t1;

	t0 = now_ns();
	scan_sink += scan(p, len / sizeof(uint64_t));
	t1 = now_ns();
	return t1 - t0;
}

static uint64_t faults_so_far(void)
{
	struct ddsm_status st;

	if (ddsm_status(&dd, &st)) {
		perror("ddsm_status");
		exit(1);
	}
	return st.faults_read + st.faults_write + st.upgrades + st.remaps;
}

static void *anon_region(size_t len, bool small_pages)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap anonymous");
		exit(1);
	}
	if (small_pages)
		(void)madvise(p, len, MADV_NOHUGEPAGE);
	memset(p, 0x11, len);
	return p;
}

static void resident_scan(uint64_t first_unit)
{
	enum { SC_S, SC_M, SC_ANON, SC_ANON4K, SC_NR };
	static const char *const key[SC_NR] = { "ddsm_s", "ddsm_m", "anon", "anon_4k" };
	size_t len = scan_mib << 20;
	uint64_t units = len / UNIT, u, t0, f0, f1;
	uint64_t ns[SC_NR][SCAN_REPS];
	const void *base[SC_NR];
	int k, i;

	/* S region: read-faulted; M region: write-faulted, both by B. */
	set_doing("read-faulting the S scan region");
	t0 = now_ns();
	for (u = 0; u < units; u++)
		(void)*word(first_unit + u);
	printf("# read-faulted %" PRIu64 " units in %.0f ms (%.1f us each, homes mixed)\n",
	       units, (now_ns() - t0) / 1e6, (now_ns() - t0) / 1e3 / units);
	set_doing("write-faulting the M scan region");
	t0 = now_ns();
	for (u = 0; u < units; u++)
		*word(first_unit + units + u) = u;
	printf("# write-faulted %" PRIu64 " units in %.0f ms (%.1f us each, homes mixed)\n",
	       units, (now_ns() - t0) / 1e6, (now_ns() - t0) / 1e3 / units);
	base[SC_S] = (const void *)word(first_unit);
	base[SC_M] = (const void *)word(first_unit + units);
	base[SC_ANON] = anon_region(len, false);
	base[SC_ANON4K] = anon_region(len, true);

	set_doing("scanning resident memory");
	f0 = faults_so_far();
	/* One warm-up pass each, then alternate so drift hits all alike. */
	for (k = 0; k < SC_NR; k++)
		(void)timed_scan(base[k], len);
	for (i = 0; i < SCAN_REPS; i++)
		for (k = 0; k < SC_NR; k++)
			ns[k][i] = timed_scan(base[k], len);
	f1 = faults_so_far();
	printf("# ddsm faults during the scans: %" PRIu64 " (want 0)\n", f1 - f0);
	if (f1 != f0)
		anomalies++;
	for (k = 0; k < SC_NR; k++) {
		qsort(ns[k], SCAN_REPS, sizeof(uint64_t), cmp_u64);
		printf("bench scan %s %" PRIu64 " %.3f %.3f\n", key[k], scan_mib,
		       ns[k][SCAN_REPS / 2] / 1e6, ns[k][0] / 1e6);
		printf("# scan %-8s %" PRIu64 " MiB: median %.2f ms (%.2f GB/s)\n",
		       key[k], scan_mib, ns[k][SCAN_REPS / 2] / 1e6,
		       (double)len / ns[k][SCAN_REPS / 2]);
	}
	printf("# scan ratio ddsm_s/anon %.3f, ddsm_m/anon %.3f (anon_4k: %.3f, %.3f)\n",
	       (double)ns[SC_S][SCAN_REPS / 2] / ns[SC_ANON][SCAN_REPS / 2],
	       (double)ns[SC_M][SCAN_REPS / 2] / ns[SC_ANON][SCAN_REPS / 2],
	       (double)ns[SC_S][SCAN_REPS / 2] / ns[SC_ANON4K][SCAN_REPS / 2],
	       (double)ns[SC_M][SCAN_REPS / 2] / ns[SC_ANON4K][SCAN_REPS / 2]);
}

static int driver(void)
{
	struct samples s[R_NR];
	uint64_t scan_first, hit_unit, t0, v;
	int r, i;

	scan_first = nr_units - 2 * ((scan_mib << 20) / UNIT);
	/* About 9 units homed on A per round, A being every nr_nodes'th. */
	if (scan_first < FIRST_UNIT + 12ull * (uint64_t)nr_nodes *
			 (uint64_t)(reps + trace_reps)) {
		fprintf(stderr, "bench: space too small for %d+%d reps and 2 x %" PRIu64
			" MiB of scan\n", reps, trace_reps, scan_mib);
		return 1;
	}
	for (r = 0; r < R_NR; r++) {
		/* The traced rounds reuse the arrays after the rows are printed. */
		s[r].ns = calloc((size_t)(reps > trace_reps ? reps : trace_reps),
				 sizeof(uint64_t));
		s[r].n = 0;
		if (!s[r].ns) {
			perror("calloc");
			return 1;
		}
	}
	/* The hit row's unit: read once, stays S (nobody else touches it). */
	hit_unit = fresh_unit(NODE_A, scan_first);
	v = *word(hit_unit);
	if (v != 0)
		note_mismatch("hit setup", hit_unit, me, 0, v);

	/* Every helper answers before anything is timed. */
	cmd_all(OP_NONE, 0);

	printf("# %d reps, settle %u us, poll %u us, control units mbox %" PRIu64
	       ",%" PRIu64 " reply %" PRIu64 ",%" PRIu64 "\n", reps, settle_us,
	       poll_us, mbox_unit[0], mbox_unit[1], reply_unit[0], reply_unit[1]);
	t0 = now_ns();
	for (i = 0; i < reps; i++) {
		one_round(s, scan_first, hit_unit);
		if ((i + 1) % 50 == 0)
			printf("# %d/%d rounds, %.1f s\n", i + 1, reps,
			       (now_ns() - t0) / 1e9);
		fflush(stdout);
	}
	for (r = 0; r < R_NR; r++)
		if (s[r].n)
			print_row((enum row)r, &s[r]);
	fflush(stdout);

	if (trace_reps) {
		cmd_all(OP_TRACE, 1);
		tracing(true);
		for (r = 0; r < R_NR; r++)
			s[r].n = 0;
		for (i = 0; i < trace_reps; i++)
			one_round(s, scan_first, hit_unit);
		tracing(false);
		cmd_all(OP_TRACE, 0);
		printf("# %d traced rounds done (timings not reported)\n",
		       trace_reps);
	}

	resident_scan(scan_first);

	/* Let the helpers go. */
	for (i = 0; i < nr_helpers; i++) {
		int node = helper_node(i);
		struct mbox *mb = (struct mbox *)word(mbox_unit[i]);
		struct reply *rp = (struct reply *)word(reply_unit[i]);
		uint64_t seq = ++cmd_seq;

		mb->op = OP_QUIT;
		__atomic_store_n(&mb->seq, seq, __ATOMIC_RELEASE);
		t0 = now_ns();
		while (__atomic_load_n(&rp->seq, __ATOMIC_ACQUIRE) != seq &&
		       now_ns() - t0 < REPLY_TIMEOUT_S * 1000000000ull)
			usleep(poll_us);
		if (__atomic_load_n(&rp->seq, __ATOMIC_ACQUIRE) != seq)
			printf("bench FATAL: node %d did not acknowledge QUIT\n", node);
	}
	printf("bench errors %lu %lu\n", mismatches, anomalies);
	return mismatches ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	int opt, rc;

	while ((opt = getopt(argc, argv, "r:s:w:p:T:")) != -1) {
		switch (opt) {
		case 'r': reps = (int)parse_ul(optarg, "-r"); break;
		case 'T': trace_reps = (int)parse_ul(optarg, "-T"); break;
		case 's': scan_mib = parse_ul(optarg, "-s"); break;
		case 'w': settle_us = (unsigned int)parse_ul(optarg, "-w"); break;
		case 'p': poll_us = (unsigned int)parse_ul(optarg, "-p"); break;
		default:
			fprintf(stderr, "usage: %s [-r REPS] [-s SCAN_MIB] [-w SETTLE_US] [-p POLL_US] [-T TRACE_REPS] NODE_ID NR_NODES\n",
				argv[0]);
			return 2;
		}
	}
	if (argc - optind != 2)
		return 2;
	me = (int)parse_ul(argv[optind], "node id");
	nr_nodes = (int)parse_ul(argv[optind + 1], "node count");
	if (reps < 1 || scan_mib < 1 || nr_nodes < 3 || me >= nr_nodes) {
		fprintf(stderr, "bench: needs REPS >= 1, SCAN_MIB >= 1, 3 nodes or more\n");
		return 2;
	}
	nr_helpers = nr_nodes > NODE_D ? 3 : 2;
	if (me > NODE_D || (me == NODE_D && nr_helpers < 3))
		return 0;	/* nothing to do */

	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGBUS, &sa, NULL);

	if (ddsm_open(&dd, NULL)) {
		perror("ddsm_open");
		return 1;
	}
	if (dd.unit_size != UNIT || dd.nr_nodes != (uint32_t)nr_nodes ||
	    dd.node_id != (uint32_t)me) {
		fprintf(stderr, "bench: module says node %u of %u, unit %u\n",
			dd.node_id, dd.nr_nodes, dd.unit_size);
		return 1;
	}
	nr_units = dd.size / UNIT;
	space = ddsm_map(&dd, 0, dd.size, PROT_READ | PROT_WRITE);
	if (!space) {
		perror("ddsm_map");
		return 1;
	}
	find_control_units();
	cursor[NODE_A] = cursor[NODE_B] = cursor[NODE_C] = FIRST_UNIT;

	if (me == NODE_B)
		rc = driver();
	else
		rc = helper_loop(helper_slot(me));
	ddsm_unmap(&dd, (void *)space, dd.size);
	ddsm_close(&dd);
	return rc;
}
