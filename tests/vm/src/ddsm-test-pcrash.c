// SPDX-License-Identifier: GPL-2.0
/*
 * ddsm-test-pcrash: writers on every node log what each persistency model
 * acknowledged, for a crash (a VM killed, or all of them) at a random
 * point; after the restart every node dumps what the slots hold, and the
 * host (tests/vm/pcrash/host.sh) holds the dumps against the acks.
 *
 * usage: ddsm-test-pcrash BOOT STEPS SECS
 * Run on every node at once, once per boot; BOOT (1..) picks fresh
 * barrier units and makes this boot's sequence numbers (BOOT * 1000000 +
 * round) larger than any earlier boot's.  STEPS, in this order:
 *   d  dump: every slot of the five record regions, one line each:
 *        PC S <model> <slot> <seq> <ok|empty|torn> .
 *   v  verify the 1 MiB pattern at PAT_BASE (TAP line)
 *   p  write the 1 MiB pattern with ddsm_write_durable (Synchronous)
 *   w  write records until every model acked one here (control line
 *      "pc warm" to the host), then SECS seconds more (no barrier at the
 *      end: the crash may come at any moment), printing each ack:
 *        PC A <model> <slot> <seq> .   durable by the model's promise
 *        PC W eventual <slot> <seq> .  stored, nothing promised
 * A record fills one 4 KiB unit (a slot): magic+model, slot, owner, seq,
 * a pattern of (model, slot, seq), and a hash of all that in the last
 * word; a slot that does not hash right is torn.  Slot s of a region is
 * written only by its owner, a node that is not its home, and (for
 * Read-Enforced) read only by the third node, so no image of a slot can
 * ever be taken in the middle of its writer's copy: the writer holds the
 * unit until its own barrier or a reader's request, and a reader asks
 * only after the writer published the record and stopped writing it.
 *  sync, strict: ddsm_write_durable(); acked once it returned 0.
 *  scope: plain stores to two slots a round, then ddsm_persist() of
 *    each; a slot's store is acked once its barrier returned 0.
 *  read_enf: plain stores, then the seq is published in a control word;
 *    the reader copies the record, checks its hash and logs the ack
 *    (the version it read must survive), then answers in its own control
 *    word; the writer writes that slot's successor only after the answer.
 *  eventual: plain stores, logged as written (no promise).
 * A SIGBUS or an error on a unit homed on a dead node (the home killed)
 * marks that home dead, and the writer carries on with the other homes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "libddsm.h"
#include "test_common.h"
#include "dsm_sync.h"

#define PAT_BASE	0x000000ULL	/* 1 MiB, sync */
#define PAT_UNITS	256
#define REC_BASE	0x100000ULL	/* five regions of RSTRIDE */
#define RSTRIDE		0x40000ULL
#define SLOTS		24		/* units per record region */
#define CTRL_BASE	0x300000ULL	/* per boot: pub[owner], ack[reader] */
#define SYNC_BASE	0x380000ULL	/* barrier units, 16 per boot */
#define SYNC_STRIDE	16
#define WIN_LEN		(SYNC_BASE + 64 * SYNC_STRIDE * DSM_UNIT)
#define MAGIC		0x5043524153480000ULL
#define W		DSM_WORDS_PER_UNIT

enum { M_SYNC, M_STRICT, M_SCOPE, M_RENF, M_EVENTUAL, M_NR };
static const char *const mname[M_NR] = {
	"sync", "strict", "scope", "read_enf", "eventual",
};

static struct ddsm d;
static char *win;
static int me, nn;
static int owner[M_NR][SLOTS], home[M_NR][SLOTS], reader[M_NR][SLOTS];
static bool dead[DDSM_MAX_NODES];
static bool bad_pair[DDSM_MAX_NODES][DDSM_MAX_NODES];	/* read_enf reads */
static bool renf_off;
static uint64_t t_op;		/* when the operation in flight began */		/* this node's read_enf writes stopped */
static uint64_t got[M_NR];	/* acks this boot, per model */
static uint64_t ctrl;		/* this boot's control units (fresh: zero) */

static volatile uint64_t *slot_at(int m, int s)
{
	return (volatile uint64_t *)(win + REC_BASE + m * RSTRIDE +
				     (uint64_t)s * DSM_UNIT);
}

static uint64_t slot_gaddr(int m, int s)
{
	return REC_BASE + m * RSTRIDE + (uint64_t)s * DSM_UNIT;
}

/* pub[s] of owner o's unit; ack[s] of reader r's unit (homed anywhere). */
static volatile uint64_t *pub(int o, int s)
{
	return (volatile uint64_t *)(win + ctrl + o * DSM_UNIT) + s;
}

static volatile uint64_t *ack(int r, int s)
{
	return (volatile uint64_t *)(win + ctrl + (nn + r) * DSM_UNIT) + s;
}

static uint32_t home_of(uint64_t gaddr)
{
	struct ddsm_home_query q;

	if (ddsm_home(&d, gaddr, &q))
		tap_bail("ddsm_home: %s", strerror(errno));
	return q.home;
}

static uint64_t rec_hash(const uint64_t *r)
{
	uint64_t h = 0x243f6a8885a308d3ULL, i;

	for (i = 0; i < W - 1; i++)
		h = dsm_mix64(h ^ r[i]);
	return h;
}

static void make_rec(uint64_t *r, int m, int s, uint64_t seq)
{
	uint64_t i;

	r[0] = MAGIC | m;
	r[1] = s;
	r[2] = owner[m][s];
	r[3] = seq;
	for (i = 4; i < W - 1; i++)
		r[i] = dsm_mix64(((uint64_t)m << 56) ^ ((uint64_t)s << 48) ^
				 (seq << 12) ^ i);
	r[W - 1] = rec_hash(r);
}

/* "ok", "empty" or "torn" for a copy of slot @s of region @m. */
static const char *rec_state(const uint64_t *r, int m, int s)
{
	uint64_t i, want[W];

	for (i = 0; i < W && !r[i]; i++)
		;
	if (i == W)
		return "empty";
	if (r[0] != (MAGIC | m) || r[1] != (uint64_t)s ||
	    r[2] != (uint64_t)owner[m][s] || r[W - 1] != rec_hash(r))
		return "torn";
	make_rec(want, m, s, r[3]);
	return memcmp(want, r, sizeof(want)) ? "torn" : "ok";
}

/*
 * Owners: slot s of a region is homed on h; of the slots homed on h, they
 * alternate between the two other nodes; the reader is the third node.
 */
static void layout(void)
{
	int m, s, seen[DDSM_MAX_NODES];

	for (m = 0; m < M_NR; m++) {
		memset(seen, 0, sizeof(seen));
		for (s = 0; s < SLOTS; s++) {
			int h = home_of(slot_gaddr(m, s));
			int o = (h + 1 + seen[h]++ % (nn - 1)) % nn;

			home[m][s] = h;
			owner[m][s] = o;
			reader[m][s] = (nn * (nn - 1) / 2 - h - o) % nn;
		}
	}
}

/* SIGBUS inside an operation on a slot: skip it, its home is dead. */
static sigjmp_buf op_env;
static volatile sig_atomic_t in_op;

/*
 * The compiler may move plain loads and stores (an inlined memcpy of a
 * slot) across a volatile store: fence in_op off from them.
 */
#define OP_BEGIN()	do { in_op = 1; __asm__ volatile("" ::: "memory"); } while (0)
#define OP_END()	do { __asm__ volatile("" ::: "memory"); in_op = 0; } while (0)

static void op_sigbus(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)ctx;
	if (in_op) {
		OP_END();
		siglongjmp(op_env, 1);
	}
	sigbus_handler(sig, si, ctx);
}

static void ack_line(const char *kind, int m, int s, uint64_t seq)
{
	got[m]++;
	printf("PC %s %s %d %" PRIu64 " .\n", kind, mname[m], s, seq);
	fflush(stdout);
}

static void mark_dead(int h, const char *why)
{
	if (!dead[h])
		printf("# node%d: node%d's units skipped from now on: %s\n",
		       me, h, why);
	dead[h] = true;
	fflush(stdout);
}

static void marker(const char *line)
{
	int fd = open("/dev/ttyS1", O_WRONLY | O_NOCTTY);

	if (fd >= 0) {
		if (write(fd, line, strlen(line)) < 0)
			perror("marker");
		close(fd);
	}
}

static void dump(void)
{
	uint64_t r[W];
	int m, s;

	for (m = 0; m < M_NR; m++)
		for (s = 0; s < SLOTS; s++) {
			memcpy(r, (const void *)slot_at(m, s), sizeof(r));
			printf("PC S %s %d %" PRIu64 " %s .\n", mname[m], s,
			       r[3], rec_state(r, m, s));
		}
	fflush(stdout);
	tap(1, "node%d dumped %d slots of %d regions", me, SLOTS, M_NR);
}

static uint64_t pat_word(uint64_t i)
{
	return dsm_mix64(0x5041545445524eULL + i);
}

static void pattern(bool write)
{
	uint64_t buf[16 * W], u, i, bad = 0, first = 0, n = 0;
	volatile uint64_t *a = (volatile uint64_t *)(win + PAT_BASE);
	int errs = 0;

	if (!write) {
		for (i = 0; i < PAT_UNITS * W; i++)
			if (a[i] != pat_word(i) && !bad++)
				first = i;
		tap(bad == 0, "node%d reads the 1 MiB Synchronous pattern back (%" PRIu64 " words wrong, first at word %" PRIu64 ")",
		    me, bad, first);
		return;
	}
	/* 16-unit blocks, node k takes blocks k, k + n, ... */
	for (u = (uint64_t)me * 16; u < PAT_UNITS; u += 16 * nn) {
		for (i = 0; i < 16 * W; i++)
			buf[i] = pat_word(u * W + i);
		if (ddsm_write_durable(&d, (void *)(a + u * W),
				       PAT_BASE + u * DSM_UNIT, buf,
				       sizeof(buf)))
			errs++;
		n++;
	}
	tap(errs == 0, "node%d wrote %" PRIu64 " blocks of the pattern with ddsm_write_durable (%d failed)",
	    me, n, errs);
}

/* One write of slot @s of region @m with seq; false if its home died. */
static bool put(int m, int s, uint64_t seq)
{
	uint64_t r[W];
	int h = home[m][s];

	if (dead[h])
		return false;
	make_rec(r, m, s, seq);
	if (sigsetjmp(op_env, 1)) {
		char why[96];

		snprintf(why, sizeof(why), "SIGBUS writing %s slot %d after %.1f s",
			 mname[m], s, (now_ns() - t_op) / 1e9);
		mark_dead(h, why);
		return false;
	}
	t_op = now_ns();
	OP_BEGIN();
	if (m == M_SYNC || m == M_STRICT) {
		if (ddsm_write_durable(&d, (void *)slot_at(m, s),
				       slot_gaddr(m, s), r, sizeof(r))) {
			OP_END();
			mark_dead(h, strerror(errno));
			printf("# node%d: ddsm_write_durable of %s slot %d failed\n",
			       me, mname[m], s);
			return false;
		}
	} else {
		memcpy((void *)slot_at(m, s), r, sizeof(r));
	}
	OP_END();
	return true;
}

/* Read-Enforced: publish, then copy and ack what the others published. */
static void renf_read(int s)
{
	int o = owner[M_RENF][s], h = home[M_RENF][s];
	uint64_t p, r[W];

	if (dead[h] || dead[o] || bad_pair[h][o])
		return;
	if (sigsetjmp(op_env, 1)) {
		/* The home or the owner died: skip what they share. */
		printf("# node%d: SIGBUS reading read_enf slot %d (home node%d, writer node%d): skipping their slots\n",
		       me, s, h, o);
		fflush(stdout);
		bad_pair[h][o] = true;
		return;
	}
	OP_BEGIN();
	p = __atomic_load_n(pub(o, s), __ATOMIC_ACQUIRE);
	if (p && p != *ack(me, s)) {
		memcpy(r, (const void *)slot_at(M_RENF, s), sizeof(r));
		OP_END();
		if (strcmp(rec_state(r, M_RENF, s), "ok") || r[3] != p) {
			printf("# node%d: read_enf slot %d: published %" PRIu64 ", read %s seq %" PRIu64 "\n",
			       me, s, p, rec_state(r, M_RENF, s), r[3]);
			tap(0, "node%d read a whole published read_enf record", me);
			return;
		}
		ack_line("A", M_RENF, s, p);
		OP_BEGIN();
		__atomic_store_n(ack(me, s), p, __ATOMIC_RELEASE);
	}
	OP_END();
}

static void write_loop(uint64_t boot, unsigned secs)
{
	int mine[M_NR][SLOTS], nmine[M_NR] = { 0 }, m, s, k;
	uint64_t round, seq, t_end = now_ns() + 120 * 1000000000ULL;
	uint64_t scope_seq[SLOTS], renf_last[SLOTS] = { 0 }, acks = 0;
	int scope_n, renf_next = 0;
	bool warm = false;

	for (m = 0; m < M_NR; m++)
		for (s = 0; s < SLOTS; s++)
			if (owner[m][s] == me)
				mine[m][nmine[m]++] = s;
	marker("pc writing\n");
	printf("# node%d: writing %d/%d/%d/%d/%d slots for %u s\n", me,
	       nmine[0], nmine[1], nmine[2], nmine[3], nmine[4], secs);
	fflush(stdout);
	for (round = 1; now_ns() < t_end; round++) {
		seq = boot * 1000000 + round;
		for (m = M_SYNC; m <= M_STRICT; m++) {
			s = mine[m][round % nmine[m]];
			if (put(m, s, seq)) {
				ack_line("A", m, s, seq);
				acks++;
			}
		}
		/* Scope: two slots a round, then their barriers. */
		scope_n = 0;
		for (k = 0; k < 2; k++) {
			s = mine[M_SCOPE][(2 * round + k) % nmine[M_SCOPE]];
			if (put(M_SCOPE, s, seq))
				scope_seq[scope_n++] = s;
		}
		/* Each slot's own barrier: a dead home fails only its slots. */
		for (k = 0; k < scope_n; k++) {
			struct ddsm_home_query q;

			s = scope_seq[k];
			/* Diagnostics (the host's checker skips "PC D"). */
			if (!ddsm_home(&d, slot_gaddr(M_SCOPE, s), &q))
				printf("PC D scope %d %" PRIu64 " state %u before the barrier .\n",
				       s, seq, q.state);
			if (ddsm_persist(&d, slot_gaddr(M_SCOPE, s), DSM_UNIT)) {
				printf("# node%d: ddsm_persist of scope slot %d: %s\n",
				       me, s, strerror(errno));
				mark_dead(home[M_SCOPE][s], "persist failed");
			} else {
				ack_line("A", M_SCOPE, s, seq);
				acks++;
			}
		}
		s = mine[M_EVENTUAL][round % nmine[M_EVENTUAL]];
		if (put(M_EVENTUAL, s, seq))
			ack_line("W", M_EVENTUAL, s, seq);
		/*
		 * Read-Enforced: the next own slot is written once its reader
		 * answered the previous record there (or it never had one).
		 */
		s = mine[M_RENF][renf_next];
		if (!renf_off && !dead[reader[M_RENF][s]] &&
		    !dead[home[M_RENF][s]]) {
			bool free_ = !renf_last[s];

			if (!free_) {
				if (sigsetjmp(op_env, 1)) {
					mark_dead(reader[M_RENF][s], "SIGBUS on ack");
				} else {
					OP_BEGIN();
					free_ = __atomic_load_n(ack(reader[M_RENF][s], s),
								__ATOMIC_ACQUIRE) ==
						renf_last[s];
					OP_END();
				}
			}
			if (free_ && put(M_RENF, s, seq)) {
				renf_last[s] = seq;
				if (sigsetjmp(op_env, 1)) {
					printf("# node%d: SIGBUS publishing: read_enf writes stop\n", me);
					renf_off = true;
				} else {
					OP_BEGIN();
					__atomic_store_n(pub(me, s), seq,
							 __ATOMIC_RELEASE);
					OP_END();
				}
				renf_next = (renf_next + 1) % nmine[M_RENF];
			}
		} else {
			renf_next = (renf_next + 1) % nmine[M_RENF];
		}
		for (s = 0; s < SLOTS; s++)
			if (reader[M_RENF][s] == me)
				renf_read(s);
		/*
		 * Every model acked something here: the host may crash us
		 * from now on, and we write SECS more seconds.
		 */
		if (!warm && got[M_SYNC] && got[M_STRICT] && got[M_SCOPE] &&
		    got[M_RENF] && got[M_EVENTUAL]) {
			warm = true;
			t_end = now_ns() + secs * 1000000000ULL;
			marker("pc warm\n");
		}
	}
	printf("# node%d: %" PRIu64 " rounds, %" PRIu64 " durable writes acked\n",
	       me, round - 1, acks);
	fflush(stdout);
	tap(warm, "node%d's writer ran %" PRIu64 " rounds, every model acked (%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 " sync/strict/scope/read_enf acks, %" PRIu64 " eventual stores)",
	    me, round - 1, got[M_SYNC], got[M_STRICT], got[M_SCOPE],
	    got[M_RENF], got[M_EVENTUAL]);
}

int main(int argc, char **argv)
{
	uint64_t boot, sync_unit;
	struct sigaction sa;
	struct dsm_sync s;
	unsigned secs;
	const char *steps;

	if (argc != 4) {
		fprintf(stderr, "usage: %s BOOT STEPS SECS\n", argv[0]);
		return 2;
	}
	boot = parse_ul(argv[1], "boot");
	steps = argv[2];
	secs = parse_ul(argv[3], "seconds");
	if (!boot || boot > 20 || ddsm_open(&d, NULL)) {
		perror("ddsm_open");
		return 1;
	}
	me = d.node_id;
	nn = d.nr_nodes;
	tap_node = me;
	if (nn != 3)
		tap_bail("written for 3 nodes, not %d", nn);
	win = map_window(&d, 0, WIN_LEN);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = op_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGBUS, &sa, NULL);
	layout();
	ctrl = CTRL_BASE + boot * 2 * nn * DSM_UNIT;
	sync_unit = SYNC_BASE / DSM_UNIT + boot * SYNC_STRIDE;
	if (dsm_sync_init(&s, win + sync_unit * DSM_UNIT, sync_unit, me, nn,
			  120))
		tap_bail("first barrier timed out");
	if (strchr(steps, 'd'))
		dump();
	if (strchr(steps, 'v'))
		pattern(false);
	if (dsm_barrier(&s))
		tap_bail("barrier after the checks timed out");
	if (strchr(steps, 'p')) {
		pattern(true);
		if (dsm_barrier(&s))
			tap_bail("barrier after the pattern timed out");
	}
	if (strchr(steps, 'w'))
		write_loop(boot, secs);
	return tap_failed ? 1 : 0;
}
