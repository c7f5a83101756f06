// SPDX-License-Identifier: GPL-2.0
/*
 * ddsm-txsim: how many messages a YCSB-T commit costs under ddsm's HADES
 * (approach (A): every transactional read asks the home), one read per
 * unit as first built or one per home as built now, and under approach
 * (B) (readers keep read-only copies, a writer's home invalidates them
 * before it ACKs), without building (B).
 *
 *   ddsm-txsim [-n NODES] [-t THREADS] [-k RECORDS] [-v VALUE]
 *              [-S STRIDE] [-r READ] [--tx-ops K] [-x TXS] [-s SEED]
 *              [--data-cost R] [--lines-cost R]
 *
 * It draws the transactions ddsm-txbench's YCSB-T draws (the same
 * scrambled zipfian, distinct keys, the same record layout and homes:
 * unit u is homed on node u % NODES) and runs them one at a time, the
 * threads' turns round robin, so no two overlap: no aborts, no squashes,
 * no retries.  What it counts is therefore the floor of each approach,
 * the message pattern of a commit that nothing disturbs.
 *
 * (A), as kernel/core/txio.c sends them: one TX_READ and its answer per
 * unit read that another node homes (the parts of a unit merged), or one
 * TX_READ_MANY per such home; a record straddling two homes, neither of
 * them this node, asks both once more when all answers are in (one
 * request per home however many such records); at commit one
 * TX_INTEND, TX_ACK and TX_VALIDATE per remote home involved, read or
 * written.
 *
 * (B), the notes' section 9: a unit read that another node homes is
 * served from the reader's copy when it has one, else asked once (and
 * kept); at commit the Intend round goes only to the remote homes
 * written; each written unit's home sends INV and gets its ACK from every
 * other node keeping a copy (not the writer, not the home), before its
 * ACK; read-only transactions send nothing at commit (a copy they read
 * that a writer invalidated before their end would have doomed them).
 *
 * Data messages are counted apart: TX_READ answers and Intends.  Cost per
 * commit weighs a data message R times a header-only one when it carries
 * a 4 KiB page (default 2.54: ib_send_bw's message rate at 64 bytes over
 * its rate at 4352, busy-polled, in these guests; docs/transactions.md),
 * and --lines-cost times when it carries only the lines it needs
 * (default 1.0: 512 bytes go at the rate of 64 there).  Round trips in
 * sequence per commit: (A) one for the reads if any is remote, one for
 * the straddle confirmations if any, one for the Intend round if any
 * home is remote; (B) one for the reads that miss, one for the Intend
 * round, one more when its home must invalidate.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zipf.h"

#define UNIT		4096u
#define MAX_NODES	16
#define MAX_OPS		16
#define MAX_UNITS	(MAX_OPS * 2)

struct opts {
	int nodes, threads, ops;
	uint64_t records, value, stride, txs, seed;
	double read_frac, data_cost, lines_cost;
};

struct tally {
	uint64_t msgs, data, rtts, invs, hits, misses, commits;
};

struct tx {
	int n;
	uint64_t key[MAX_OPS];
	bool write[MAX_OPS];
};

/* Units of one transaction: each once, with whether it is written. */
struct units {
	int n;
	uint64_t u[MAX_UNITS];
	bool w[MAX_UNITS];
};

static const struct opts *O;
static bool per_home;	/* one TX_READ per remote home, not per unit */
static uint16_t *copies;	/* (B): bit i: node i keeps a copy of the unit */

static uint64_t rec_first(uint64_t k)
{
	return k * O->stride / UNIT;
}

static uint64_t rec_last(uint64_t k)
{
	return (k * O->stride + O->value - 1) / UNIT;
}

static int home_of(uint64_t u)
{
	return (int)(u % (uint64_t)O->nodes);
}

static void units_add(struct units *s, uint64_t u, bool w)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->u[i] == u) {
			s->w[i] |= w;
			return;
		}
	s->u[s->n] = u;
	s->w[s->n++] = w;
}

static void units_of(const struct tx *t, struct units *s)
{
	uint64_t u;
	int i;

	s->n = 0;
	for (i = 0; i < t->n; i++)
		for (u = rec_first(t->key[i]); u <= rec_last(t->key[i]); u++)
			units_add(s, u, t->write[i]);
}

/* As ycsbt.c's yt_one(): distinct keys, each written with 1 - READ. */
static void draw(struct tx *t, struct zipf *z, struct wl_rng *r)
{
	int i, j, tries;

	t->n = O->ops;
	for (i = 0; i < t->n; i++) {
		for (tries = 0;; tries++) {
			t->key[i] = zipf_scrambled_next(z, r, O->records);
			for (j = 0; j < i && t->key[j] != t->key[i]; j++)
				;
			if (j == i)
				break;
			if (tries > 100)
				t->key[i] = wl_rng_below(r, O->records);
		}
		t->write[i] = wl_rng_double(r) >= O->read_frac;
	}
}

static void sim_a(int me, const struct tx *t, const struct units *s,
		  struct tally *a)
{
	uint64_t involved = 0, confirm = 0;
	int i, h, remote_reads = 0;

	for (i = 0; i < s->n; i++) {
		h = home_of(s->u[i]);
		if (h != me && (!per_home || !(involved & (1ULL << h))))
			remote_reads++;
		involved |= 1ULL << h;
	}
	a->msgs += 2 * remote_reads;
	a->data += remote_reads;
	a->rtts += remote_reads > 0;
	for (i = 0; i < t->n; i++) {
		int f = home_of(rec_first(t->key[i]));
		int l = home_of(rec_last(t->key[i]));

		if (f != l && f != me && l != me)
			confirm |= 1ULL << f | 1ULL << l;
	}
	for (h = 0; h < O->nodes; h++)
		if (confirm & (1ULL << h)) {
			a->msgs += 2;
			a->data++;
		}
	a->rtts += confirm != 0;
	involved &= ~(1ULL << me);
	for (h = 0; h < O->nodes; h++)
		if (involved & (1ULL << h)) {
			a->msgs += 3;
			a->data++;
		}
	a->rtts += involved != 0;
	a->commits++;
}

static void sim_b(int me, const struct units *s, struct tally *b)
{
	uint64_t written = 0, asked = 0;
	bool missed = false, invalidated = false;
	int i, h, o;

	for (i = 0; i < s->n; i++) {
		h = home_of(s->u[i]);
		if (h == me)
			continue;
		if (copies[s->u[i]] & (1u << me)) {
			b->hits++;
			continue;
		}
		b->misses++;
		if (!per_home || !(asked & (1ULL << h))) {
			b->msgs += 2;
			b->data++;
		}
		asked |= 1ULL << h;
		copies[s->u[i]] |= 1u << me;
		missed = true;
	}
	b->rtts += missed;
	for (i = 0; i < s->n; i++) {
		if (!s->w[i])
			continue;
		h = home_of(s->u[i]);
		written |= 1ULL << h;
		for (o = 0; o < O->nodes; o++) {
			if (o == me || o == h ||
			    !(copies[s->u[i]] & (1u << o)))
				continue;
			b->msgs += 2;
			b->invs++;
			invalidated = true;
		}
		copies[s->u[i]] &= 1u << me;
	}
	written &= ~(1ULL << me);
	for (h = 0; h < O->nodes; h++)
		if (written & (1ULL << h)) {
			b->msgs += 3;
			b->data++;
		}
	b->rtts += (written != 0) + invalidated;
	b->commits++;
}

static void print(const char *name, const struct tally *t)
{
	double c = (double)t->commits;

	printf("%-21s msgs/commit %.2f  data msgs/commit %.2f  cost/commit %.2f (pages) %.2f (lines)  round trips/commit %.2f",
	       name, t->msgs / c, t->data / c,
	       (t->msgs - t->data + O->data_cost * t->data) / c,
	       (t->msgs - t->data + O->lines_cost * t->data) / c, t->rtts / c);
	if (t->hits + t->misses)
		printf("  copy hits %.1f%%  invalidations/commit %.2f",
		       100.0 * t->hits / (t->hits + t->misses), t->invs / c);
	printf("\n");
}

/* The same transactions, drawn anew, through both approaches. */
static int run(uint64_t units)
{
	struct tally a = { 0 }, b = { 0 };
	int w, workers = O->nodes * O->threads;
	struct wl_rng *rng;
	struct zipf z;
	struct units s;
	struct tx t;
	uint64_t i;

	copies = calloc(units, sizeof(*copies));
	rng = calloc(workers, sizeof(*rng));
	if (!copies || !rng) {
		free(copies);
		free(rng);
		return -1;
	}
	for (w = 0; w < workers; w++)
		wl_rng_seed(&rng[w], O->seed * 1000003 + w);
	zipf_scrambled_init(&z);
	for (i = 0; i < O->txs; i++) {
		w = (int)(i % workers);
		draw(&t, &z, &rng[w]);
		units_of(&t, &s);
		sim_a(w % O->nodes, &t, &s, &a);
		sim_b(w % O->nodes, &s, &b);
	}
	print(per_home ? "A, one read per home" : "A, one per unit", &a);
	print(per_home ? "B, one read per home" : "B, one per unit", &b);
	free(copies);
	free(rng);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ddsm-txsim [-n NODES] [-t THREADS] [-k RECORDS] [-v VALUE]\n"
		"                  [-S STRIDE] [-r READ] [--tx-ops K] [-x TXS] [-s SEED]\n"
		"                  [--data-cost R] [--lines-cost R]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "tx-ops", required_argument, NULL, 'o' },
		{ "data-cost", required_argument, NULL, 'd' },
		{ "lines-cost", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 }
	};
	struct opts o = { .nodes = 3, .threads = 2, .ops = 5,
			  .records = 10000, .value = 256, .stride = 320,
			  .txs = 200000, .seed = 1, .read_frac = 0.5,
			  .data_cost = 2.54, .lines_cost = 1.0 };
	uint64_t units;
	int c;

	while ((c = getopt_long(argc, argv, "n:t:k:v:S:r:x:s:", lo,
				NULL)) != -1) {
		switch (c) {
		case 'n': o.nodes = atoi(optarg); break;
		case 't': o.threads = atoi(optarg); break;
		case 'k': o.records = strtoull(optarg, NULL, 0); break;
		case 'v': o.value = strtoull(optarg, NULL, 0); break;
		case 'S': o.stride = strtoull(optarg, NULL, 0); break;
		case 'r': o.read_frac = atof(optarg) / 100.0; break;
		case 'o': o.ops = atoi(optarg); break;
		case 'x': o.txs = strtoull(optarg, NULL, 0); break;
		case 's': o.seed = strtoull(optarg, NULL, 0); break;
		case 'd': o.data_cost = atof(optarg); break;
		case 'l': o.lines_cost = atof(optarg); break;
		default: usage();
		}
	}
	if (o.nodes < 1 || o.nodes > MAX_NODES || o.threads < 1 ||
	    o.ops < 1 || o.ops > MAX_OPS || !o.records || !o.value ||
	    o.value > UNIT || o.stride < o.value || o.read_frac < 0 ||
	    o.read_frac > 1 || (uint64_t)o.ops > o.records ||
	    o.data_cost < 0 || o.lines_cost < 0)
		usage();
	O = &o;
	units = rec_last(o.records - 1) + 1;
	printf("# %d nodes x %d threads, %" PRIu64 " records of %" PRIu64
	       " bytes %" PRIu64 " apart (%" PRIu64 " units), %d ops, %.0f%% reads, %" PRIu64 " transactions\n",
	       o.nodes, o.threads, o.records, o.value, o.stride, units, o.ops,
	       o.read_frac * 100, o.txs);
	for (per_home = false; ; per_home = true) {
		if (run(units))
			return 1;
		if (per_home)
			break;
	}
	return 0;
}
