// SPDX-License-Identifier: GPL-2.0
/*
 * ddsm-test-share: two processes, each with its own open() and mmap() of
 * /dev/ddsm (nothing inherited across fork), must see each other's stores.
 *
 * usage: ddsm-test-share [-d DEV] [-o OFFSET] [-s SIZE] [-r ROUNDS]
 *                        [-k UNITS] [-t SECONDS]
 *   -o  global offset of the test area (default 0, unit aligned)
 *   -s  bytes of the pattern window (default 1M, unit multiple)
 *   -r  ping-pong rounds (default 10000)
 *   -k  units for the pages_resident check (default 8, 0 skips it)
 *   -t  bound in seconds on every wait (default 10)
 * Numbers take 0x and K/M/G suffixes.
 *
 * Layout from OFFSET: [pattern: SIZE][ping-pong: 1 unit][overlap: 64K].
 * The pages_resident check uses a never-touched window at the top of the
 * space, so the area above must not overlap it.
 *
 * The parent prints every TAP line; the child reports through a pipe, so
 * the output never interleaves.  The pipes also order the steps, so no
 * check relies on the memory under test to synchronise itself (except the
 * ping-pong, whose point is exactly that).  Patterns depend on a per-run
 * seed and on the global address, so stale data from an earlier run or a
 * window mapped at the wrong offset cannot pass.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libddsm.h"
#include "test_common.h"

#define UNIT		((uint64_t)DDSM_UNIT_SIZE)
#define OVL_LEN		(64 * 1024)	/* parent's overlap window */
#define OVL_SUB_OFF	(16 * 1024)	/* child's window inside it */
#define OVL_SUB_LEN	(32 * 1024)

enum step { HELLO = 1, PATTERN, PINGPONG, PP_READY, OVERLAP, BYE };

/* One pipe message; smaller than PIPE_BUF so reads and writes are atomic. */
struct msg {
	uint32_t step;
	int32_t ok;
	uint64_t a, b;		/* step arguments: gaddr, length or rounds */
	uint64_t seed;
	char text[160];
};

/* The ping-pong unit: whose turn it is, and the counter both increment. */
struct pingpong {
	uint32_t turn;		/* 0: parent, 1: child */
	uint32_t pad;
	uint64_t counter;
};

static struct opts {
	const char *dev;
	uint64_t off, size, rounds, kunits;
	double timeout;
} o = { NULL, 0, 1 << 20, 10000, 8, 10.0 };


/* A fault the module gave up on arrives as SIGBUS: say so, then die. */
static void on_sigbus(int sig)
{
	static const char m[] = "not ok - SIGBUS: a ddsm fault failed\n";

	(void)sig;
	if (write(STDOUT_FILENO, m, sizeof(m) - 1) < 0) {
		/* nothing else to do from a signal handler */
	}
	_exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint8_t pat(uint64_t seed, uint64_t gaddr)
{
	uint64_t x = (gaddr + 1) * 0x9E3779B97F4A7C15ULL ^ seed;

	x ^= x >> 31;
	x *= 0xBF58476D1CE4E5B9ULL;
	return (uint8_t)(x >> 29);
}

static void fill(uint8_t *p, uint64_t gaddr, uint64_t len, uint64_t seed)
{
	for (uint64_t i = 0; i < len; i++)
		p[i] = pat(seed, gaddr + i);
}

/* Returns the number of wrong bytes; describes the first one in @why. */
static uint64_t verify(const uint8_t *p, uint64_t gaddr, uint64_t len,
		       uint64_t seed, char *why, size_t whylen)
{
	uint64_t bad = 0;

	for (uint64_t i = 0; i < len; i++) {
		uint8_t want = pat(seed, gaddr + i);

		if (p[i] == want)
			continue;
		if (!bad++)
			snprintf(why, whylen,
				 "first bad byte at gaddr 0x%" PRIx64
				 ": 0x%02x, want 0x%02x", gaddr + i, p[i],
				 want);
	}
	if (bad) {
		size_t n = strlen(why);

		snprintf(why + n, whylen - n, ", %" PRIu64 " bad", bad);
	}
	return bad;
}

static int send_msg(int fd, const struct msg *m)
{
	return write(fd, m, sizeof(*m)) == (ssize_t)sizeof(*m) ? 0 : -1;
}

/* 0 on a message, -1 on timeout, EOF or error (described in @m->text). */
static int recv_msg(int fd, struct msg *m, double timeout)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;
	int r;

	do
		r = poll(&pfd, 1, (int)(timeout * 1000));
	while (r < 0 && errno == EINTR);
	if (r <= 0) {
		snprintf(m->text, sizeof(m->text), "no reply in %.0f s",
			 timeout);
		return -1;
	}
	n = read(fd, m, sizeof(*m));
	if (n != (ssize_t)sizeof(*m)) {
		snprintf(m->text, sizeof(m->text), "peer process gone");
		return -1;
	}
	m->text[sizeof(m->text) - 1] = '\0';
	return 0;
}

static void *map_or_why(struct ddsm *d, uint64_t gaddr, uint64_t len,
			char *why, size_t whylen)
{
	void *p = ddsm_map(d, gaddr, len, PROT_READ | PROT_WRITE);

	if (!p)
		snprintf(why, whylen, "map [0x%" PRIx64 ", +0x%" PRIx64
			 "): %s", gaddr, len, strerror(errno));
	return p;
}

/*
 * Wait for our turn.  Yield while spinning: the guest may have one CPU,
 * and a pure spin would cost a whole timeslice per round.
 */
static bool wait_turn(struct pingpong *pp, uint32_t me)
{
	double deadline = now() + o.timeout;
	unsigned int spins = 0;

	while (__atomic_load_n(&pp->turn, __ATOMIC_ACQUIRE) != me) {
		if (++spins % 32)
			continue;
		sched_yield();
		if (now() > deadline)
			return false;
	}
	return true;
}

/* Rounds me, me + 2, ...: each checks the counter, bumps it, passes on. */
static bool play(struct pingpong *pp, uint32_t me, char *why, size_t whylen)
{
	for (uint64_t r = me; r < o.rounds; r += 2) {
		uint64_t c;

		if (!wait_turn(pp, me)) {
			snprintf(why, whylen, "round %" PRIu64
				 ": turn not passed in %.0f s", r, o.timeout);
			return false;
		}
		c = __atomic_load_n(&pp->counter, __ATOMIC_RELAXED);
		if (c != r) {
			snprintf(why, whylen, "round %" PRIu64
				 ": counter %" PRIu64, r, c);
			return false;
		}
		__atomic_store_n(&pp->counter, c + 1, __ATOMIC_RELAXED);
		__atomic_store_n(&pp->turn, !me, __ATOMIC_RELEASE);
	}
	return true;
}

/* ---- child ------------------------------------------------------------ */

static void child_step(struct ddsm *d, int wfd, const struct msg *m)
{
	struct msg r = { .step = m->step, .ok = 0 };
	uint8_t *p;

	p = map_or_why(d, m->a, m->step == PINGPONG ? UNIT : m->b, r.text,
		       sizeof(r.text));
	if (!p) {
		send_msg(wfd, &r);
		return;
	}
	switch (m->step) {
	case PATTERN:
	case OVERLAP:
		/* Check the parent's bytes, then answer with our own. */
		r.ok = !verify(p, m->a, m->b, m->seed, r.text, sizeof(r.text));
		fill(p, m->a, m->b, ~m->seed);
		r.b = 1;	/* wrote back */
		break;
	case PINGPONG: {
		struct msg ready = { .step = PP_READY, .ok = 1 };

		send_msg(wfd, &ready);
		r.ok = play((struct pingpong *)p, 1, r.text, sizeof(r.text));
		break;
	}
	}
	ddsm_unmap(d, p, m->step == PINGPONG ? UNIT : m->b);
	send_msg(wfd, &r);
}

static int child_main(int rfd, int wfd)
{
	struct msg m = { .step = HELLO, .ok = 1 };
	struct ddsm d;

	if (ddsm_open(&d, o.dev)) {
		m.ok = 0;
		snprintf(m.text, sizeof(m.text), "child open: %s",
			 strerror(errno));
		send_msg(wfd, &m);
		return 1;
	}
	send_msg(wfd, &m);
	for (;;) {
		/* The parent may pause for a few fills between steps. */
		if (recv_msg(rfd, &m, 6 * o.timeout))
			return 1;
		if (m.step == BYE)
			break;
		child_step(&d, wfd, &m);
	}
	ddsm_close(&d);
	m.ok = 1;
	send_msg(wfd, &m);
	return 0;
}

/* ---- parent ----------------------------------------------------------- */

static int to_child, from_child;

/* Send a step and wait for the child's answer to it. */
static bool ask(struct msg *m, double timeout)
{
	uint32_t step = m->step;

	if (send_msg(to_child, m)) {
		snprintf(m->text, sizeof(m->text), "child gone");
		return false;
	}
	if (recv_msg(from_child, m, timeout))
		return false;
	if (m->step != step) {
		snprintf(m->text, sizeof(m->text), "protocol: step %u for %u",
			 m->step, step);
		return false;
	}
	return true;
}

static void test_pattern(struct ddsm *d, uint64_t seed)
{
	struct msg m = { .step = PATTERN, .a = o.off, .b = o.size,
			 .seed = seed };
	char why[160] = "";
	bool got, back;
	uint8_t *p;

	p = map_or_why(d, o.off, o.size, why, sizeof(why));
	if (!p) {
		tap(false, "(a) parent maps the pattern window: %s", why);
		return;
	}
	fill(p, o.off, o.size, seed);
	got = ask(&m, 3 * o.timeout);
	tap(got && m.ok, "(a) child sees every byte of the parent's %" PRIu64
	    " KiB pattern at 0x%" PRIx64 "%s%s", o.size >> 10, o.off,
	    got && m.ok ? "" : ": ", got && m.ok ? "" : m.text);
	if (!got || !m.b)
		snprintf(why, sizeof(why), "child wrote nothing");
	back = got && m.b && !verify(p, o.off, o.size, ~seed, why, sizeof(why));
	tap(back, "(a) parent sees every byte the child wrote back%s%s",
	    back ? "" : ": ", back ? "" : why);
	ddsm_unmap(d, p, o.size);
}

static void test_pingpong(struct ddsm *d)
{
	uint64_t gaddr = o.off + o.size;
	struct msg m = { .step = PINGPONG, .a = gaddr, .b = o.rounds };
	char why[160] = "";
	struct pingpong *pp;
	bool mine = false;
	double t0;

	pp = map_or_why(d, gaddr, UNIT, why, sizeof(why));
	if (!pp) {
		tap(false, "(b) parent maps the ping-pong unit: %s", why);
		return;
	}
	/* Reset before the child can look: an earlier run left its values. */
	pp->counter = 0;
	__atomic_store_n(&pp->turn, 0, __ATOMIC_RELEASE);

	m.step = PINGPONG;
	if (send_msg(to_child, &m) || recv_msg(from_child, &m, 3 * o.timeout) ||
	    m.step != PP_READY) {
		tap(false, "(b) ping-pong: child not ready: %s",
		    m.step == PP_READY ? "?" : m.text);
		goto out;
	}
	t0 = now();
	mine = play(pp, 0, why, sizeof(why));
	/* The child needs at most one more round after our last one. */
	if (recv_msg(from_child, &m, o.timeout + 5) || m.step != PINGPONG) {
		tap(false, "(b) ping-pong: child result: %s", m.text);
		goto out;
	}
	printf("# ping-pong: %" PRIu64 " rounds in %.3f s\n", o.rounds,
	       now() - t0);
	tap(mine && m.ok && pp->counter == o.rounds,
	    "(b) ping-pong: %" PRIu64 " alternating increments, counter %"
	    PRIu64 "%s%s%s%s", o.rounds, pp->counter,
	    mine ? "" : "; parent: ", mine ? "" : why,
	    m.ok ? "" : "; child: ", m.ok ? "" : m.text);
out:
	ddsm_unmap(d, pp, UNIT);
}

static void test_overlap(struct ddsm *d, uint64_t seed)
{
	uint64_t base = o.off + o.size + UNIT;
	uint64_t sub = base + OVL_SUB_OFF;
	struct msg m = { .step = OVERLAP, .a = sub, .b = OVL_SUB_LEN,
			 .seed = seed };
	uint64_t tail = OVL_LEN - OVL_SUB_OFF - OVL_SUB_LEN;
	char why[160] = "";
	bool got, back;
	uint8_t *p;

	p = map_or_why(d, base, OVL_LEN, why, sizeof(why));
	if (!p) {
		tap(false, "(c) parent maps [base, base+64K): %s", why);
		return;
	}
	fill(p, base, OVL_LEN, seed);
	got = ask(&m, 3 * o.timeout);
	tap(got && m.ok, "(c) child window [+16K, +48K) sees the parent's "
	    "bytes of [+0, +64K) at 0x%" PRIx64 "%s%s", base,
	    got && m.ok ? "" : ": ", got && m.ok ? "" : m.text);
	/* The child wrote ~seed into its window and nowhere else. */
	if (!got || !m.b)
		snprintf(why, sizeof(why), "child wrote nothing");
	back = got && m.b &&
	       !verify(p + OVL_SUB_OFF, sub, OVL_SUB_LEN, ~seed, why,
		       sizeof(why)) &&
	       !verify(p, base, OVL_SUB_OFF, seed, why, sizeof(why)) &&
	       !verify(p + OVL_SUB_OFF + OVL_SUB_LEN, sub + OVL_SUB_LEN, tail,
		       seed, why, sizeof(why));
	tap(back, "(c) parent sees the child's stores at the same global "
	    "addresses, and nothing outside its window%s%s",
	    back ? "" : ": ", back ? "" : why);
	ddsm_unmap(d, p, OVL_LEN);
}

/*
 * Pick k units nobody has touched: at the top of the space unless an
 * earlier run (the module keeps frames while loaded) already used them, as
 * told by DDSM_IOC_HOME's cache state.
 */
static uint64_t fresh_window(struct ddsm *d, uint64_t k, uint64_t floor)
{
	uint64_t len = k * UNIT, top = d->size, g;
	struct ddsm_home_query q;

	for (; top >= floor + len; top -= len) {
		for (g = top - len; g < top; g += UNIT) {
			if (ddsm_home(d, g, &q) || q.state != DDSM_UNIT_I)
				break;
		}
		if (g == top)
			return top - len;
	}
	printf("# no never-touched window found below 0x%" PRIx64
	       "; using the top one\n", d->size);
	return d->size - len;
}

static void test_resident(struct ddsm *d)
{
	uint64_t k = o.kunits, len = k * UNIT, g, rise, bad = 0;
	struct ddsm_status s0, s1, s2;
	volatile uint8_t *p;
	uint8_t sink = 0;

	g = fresh_window(d, k, o.off + o.size + UNIT + OVL_LEN);
	p = ddsm_map(d, g, len, PROT_READ | PROT_WRITE);
	if (!p) {
		tap(false, "(d) map %" PRIu64 " units at 0x%" PRIx64 ": %s", k,
		    g, strerror(errno));
		return;
	}
	/* Half the units are touched by a load, half by a store. */
	if (ddsm_status(d, &s0)) {
		tap(false, "(d) STATUS: %s", strerror(errno));
		goto out;
	}
	for (uint64_t i = 0; i < k; i++) {
		if (i < k / 2)
			sink |= p[i * UNIT];
		else
			p[i * UNIT + 1] = 0xa5;
	}
	if (ddsm_status(d, &s1)) {
		tap(false, "(d) STATUS: %s", strerror(errno));
		goto out;
	}
	rise = s1.pages_resident - s0.pages_resident;
	tap(rise == k, "(d) touching %" PRIu64 " never-touched units at 0x%"
	    PRIx64 " raises pages_resident by exactly %" PRIu64 " (by %" PRId64
	    ")", k, g, k, (int64_t)rise);

	for (uint64_t i = 0; i < len; i++)
		if (p[i] != ((i % UNIT == 1 && i / UNIT >= k / 2) ? 0xa5 : 0))
			bad++;
	tap(!bad && !sink, "(d) never-touched units read as zeroes (%" PRIu64
	    " bad bytes)", bad);

	for (uint64_t i = 0; i < k; i++)
		p[i * UNIT + 2] = 0x3c;
	s2.pages_resident = UINT64_MAX;
	ddsm_status(d, &s2);
	tap(s2.pages_resident == s1.pages_resident,
	    "(d) touching them again allocates nothing (%" PRIu64 " -> %"
	    PRIu64 ")", (uint64_t)s1.pages_resident,
	    (uint64_t)s2.pages_resident);
out:
	ddsm_unmap(d, (void *)p, len);
}

static void test_counters(struct ddsm *d, const struct ddsm_status *s0)
{
	struct ddsm_status s1, s2, s3;
	void *p;

	if (ddsm_status(d, &s1)) {
		tap(false, "(e) STATUS: %s", strerror(errno));
		return;
	}
#define SHOW(f) printf("# %-14s %10" PRIu64 " -> %10" PRIu64 "\n", #f, \
		       (uint64_t)s0->f, (uint64_t)s1.f)
	SHOW(faults_read); SHOW(faults_write); SHOW(upgrades); SHOW(remaps);
	SHOW(pages_resident); SHOW(msgs_sent); SHOW(msgs_recv);
	SHOW(msgs_dropped); SHOW(mappings); SHOW(fault_timeouts);
#undef SHOW
	tap(s1.faults_read > s0->faults_read, "(e) faults_read increased");
	tap(s1.faults_write > s0->faults_write, "(e) faults_write increased");
	tap(s1.msgs_sent > s0->msgs_sent, "(e) msgs_sent increased");
	tap(s1.msgs_recv > s0->msgs_recv,
	    "(e) msgs_recv increased (loopback delivers what was sent)");

	p = ddsm_map(d, o.off, UNIT, PROT_READ);
	if (!p) {
		tap(false, "(e) map one unit: %s", strerror(errno));
		return;
	}
	s2.mappings = s3.mappings = UINT64_MAX;
	ddsm_status(d, &s2);
	ddsm_unmap(d, p, UNIT);
	ddsm_status(d, &s3);
	tap(s2.mappings == s1.mappings + 1 && s3.mappings == s1.mappings,
	    "(e) mappings counts a live VMA: %" PRIu64 " -> %" PRIu64 " -> %"
	    PRIu64, (uint64_t)s1.mappings, (uint64_t)s2.mappings,
	    (uint64_t)s3.mappings);
}

/* Reap the child within the time bound, killing it if it hangs. */
static bool reap(pid_t pid)
{
	double deadline = now() + o.timeout;
	int status;
	pid_t r;

	while ((r = waitpid(pid, &status, WNOHANG)) == 0 && now() < deadline)
		usleep(10000);
	if (r == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return false;
	}
	return r == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Early failure: the child is of no further use. */
static int abandon(pid_t child)
{
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return 1;
}

static int parent_main(pid_t child)
{
	struct ddsm_status s0;
	struct msg m;
	struct ddsm d;
	uint64_t seed, need;

	if (ddsm_open(&d, o.dev)) {
		tap(false, "open %s: %s", o.dev ? o.dev : DDSM_DEFAULT_PATH,
		    strerror(errno));
		return abandon(child);
	}
	if (ddsm_status(&d, &s0)) {
		tap(false, "STATUS: %s", strerror(errno));
		return abandon(child);
	}
	need = o.off + o.size + UNIT + OVL_LEN + o.kunits * UNIT;
	if (need > d.size || need < o.off) {
		tap(false, "layout: 0x%" PRIx64 " bytes from 0x%" PRIx64
		    " do not fit in a space of 0x%" PRIx64, need - o.off,
		    o.off, d.size);
		return abandon(child);
	}
	if (recv_msg(from_child, &m, 3 * o.timeout) || !m.ok) {
		tap(false, "child opens %s itself: %s",
		    o.dev ? o.dev : DDSM_DEFAULT_PATH, m.text);
		return abandon(child);
	}

	seed = ((uint64_t)time(NULL) << 20) ^ ((uint64_t)getpid() << 1) ^
	       (uint64_t)(now() * 1e9);
	printf("# seed 0x%" PRIx64 ", area 0x%" PRIx64 "..0x%" PRIx64
	       " of 0x%" PRIx64 "\n", seed, o.off,
	       o.off + o.size + UNIT + OVL_LEN, d.size);
	test_pattern(&d, seed);
	test_pingpong(&d);
	test_overlap(&d, seed * 3 + 1);

	m = (struct msg){ .step = BYE };
	tap(ask(&m, 3 * o.timeout) && m.ok && reap(child),
	    "child unmaps, closes and exits 0");

	if (o.kunits)
		test_resident(&d);
	test_counters(&d, &s0);
	ddsm_close(&d);

	printf("# share: %d checks, %d failed\n", tap_checks, tap_failed);
	return tap_failed ? 1 : 0;
}


static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-d DEV] [-o OFFSET] [-s SIZE] [-r ROUNDS] "
		"[-k UNITS] [-t SECONDS]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	int p2c[2], c2p[2], opt;
	uint64_t t;
	pid_t pid;

	while ((opt = getopt(argc, argv, "d:o:s:r:k:t:h")) != -1) {
		switch (opt) {
		case 'd': o.dev = optarg; break;
		case 'o': if (ddsm_parse_size(optarg, &o.off)) usage(argv[0]); break;
		case 's': if (ddsm_parse_size(optarg, &o.size)) usage(argv[0]); break;
		case 'r': if (ddsm_parse_size(optarg, &o.rounds)) usage(argv[0]); break;
		case 'k': if (ddsm_parse_size(optarg, &o.kunits)) usage(argv[0]); break;
		case 't':
			if (ddsm_parse_size(optarg, &t) || !t || t > 3600)
				usage(argv[0]);
			o.timeout = t;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (optind != argc || o.off % UNIT || !o.size || o.size % UNIT ||
	    o.kunits > 4096 || o.rounds < 2) {
		fprintf(stderr, "%s: OFFSET and SIZE must be multiples of %"
			PRIu64 ", SIZE > 0, UNITS <= 4096, ROUNDS >= 2\n",
			argv[0], UNIT);
		usage(argv[0]);
	}

	signal(SIGBUS, on_sigbus);
	signal(SIGPIPE, SIG_IGN);	/* a dead child shows up as EPIPE */
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# ddsm-test-share on %s\n", o.dev ? o.dev : DDSM_DEFAULT_PATH);
	if (pipe(p2c) || pipe(c2p)) {
		tap(false, "pipe: %s", strerror(errno));
		return 1;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		tap(false, "fork: %s", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		/* Do not outlive a parent that died or timed out. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p2c[1]);
		close(c2p[0]);
		_exit(child_main(p2c[0], c2p[1]));
	}
	close(p2c[0]);
	close(c2p[1]);
	to_child = p2c[1];
	from_child = c2p[0];
	return parent_main(pid);
}
