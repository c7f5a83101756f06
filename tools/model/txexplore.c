// SPDX-License-Identifier: GPL-2.0
/*
 * txexplore: exhaustive search of HADES's commit protocol (issue 13) as
 * kernel/proto/txhome.c (the homes) and txcoord.c (the coordinators) run
 * it.  Every program of up to OPS reads and writes over LINES lines (line
 * l homed on node l % 2) is given to each of TXS transactions, and every
 * interleaving of their steps is explored: a read at its home, the
 * commit, each Intend-to-commit and its answer, each Validation or Abort,
 * and the delivery of each squash a home sent (asynchronous, so a squash
 * can race a transaction's own Intend: gap G3).  At the end of every
 * history the committed transactions must be conflict serializable (no
 * cycle of read-from, write-write and anti-dependencies, by version), no
 * home may keep an entry, and no state may be stuck (a transaction that
 * can never move again: deadlock).  States already seen are skipped by a
 * 64-bit hash of their contents (hash compaction: a collision, about
 * n^2 / 2^65 for n states, could hide a state, never invent a violation).
 *
 *   txexplore [-t TXS] [-o OPS] [-l LINES] [-r RUNS] [--plant skip-probe]
 *             [--tap] [-q]
 *
 * -r RUNS: instead of every program and interleaving, RUNS random ones
 * (random programs of 1..OPS operations, one random enabled step at a
 * time), for sizes the exhaustive search cannot reach.
 *
 * --plant skip-probe: a committer's Intend does not doom the running
 * transactions that read or wrote its lines (the write-set probe of the
 * paper's step 2 is skipped); the search must find a history that is not
 * serializable.
 */
#include <stdio.h>
#include <stdlib.h>
#include "shim.h"
#include "hashset.h"
#include "txhome.h"
#include "serial.h"

#include "txcoord.h"

#define HOMES	2
#define MAXT	3
_Static_assert(MAXT <= SERIAL_MAXT, "serial.h sizes the history");
#define MAXO	4
#define MAXL	4
#define SLOTS	4
#define MAXV	8		/* versions per line: at most MAXT writes */
#define MAXSQ	8

struct tx {
	struct ddsm_txc c;
	u8 nops, pc;
	u8 line[MAXO], is_write[MAXO];
	u8 read_ver[MAXL];	/* version read + 1, 0: not read */
	u8 wrote[MAXL];
	u8 asked, validated;
	u8 done, committed;
};

struct world {
	struct ddsm_txh home[HOMES];
	struct ddsm_txh_entry ent[HOMES][SLOTS];
	u8 ver[MAXL];
	int8_t writer[MAXL][MAXV];
	u64 sq[MAXSQ];		/* squashes sent, not delivered */
	u8 nsq;
	struct tx t[MAXT];
};

static u32 ntx = 2, nops = 2, nlines = 2, runs;
static u64 rng_state = 0x5DEECE66DULL;
static bool plant, tap, quiet;
static u64 states, histories, commits, aborts;
static const char *violation;
static u64 *seen;
static u64 seen_mask;

static void fixup(struct world *w)
{
	u32 h;

	for (h = 0; h < HOMES; h++)
		w->home[h].e = w->ent[h];
}

/* FNV-1a over what decides the future: not stats, not free entries. */
static u64 hash_world(const struct world *w)
{
	u64 x = 0xcbf29ce484222325ULL;
	const u8 *p;
	size_t i, n;
	u32 h, s;

#define MIX(ptr, len) \
	for (p = (const u8 *)(ptr), n = (len), i = 0; i < n; i++) \
		x = (x ^ p[i]) * 0x100000001b3ULL
	for (h = 0; h < HOMES; h++)
		for (s = 0; s < SLOTS; s++) {
			const struct ddsm_txh_entry *e = &w->ent[h][s];

			MIX(&e->state, 1);
			if (e->state == DDSM_TXH_FREE)
				continue;
			MIX(&e->txid, 8);
			MIX(&e->rd, sizeof(e->rd));
			MIX(&e->nr_ranges, 1);
			MIX(e->ranges, sizeof(e->ranges[0]) * e->nr_ranges);
		}
	MIX(w->ver, sizeof(w->ver));
	MIX(w->writer, sizeof(w->writer));
	MIX(&w->nsq, 1);
	MIX(w->sq, sizeof(w->sq[0]) * w->nsq);
	MIX(w->t, sizeof(w->t[0]) * ntx);
#undef MIX
	return x ? x : 1;
}

/* true if new */
static bool visit(const struct world *w)
{
	if (model_in_set(seen, seen_mask, hash_world(w), true))
		return false;
	states++;
	return true;
}

static u64 id_of(const struct tx *t)
{
	return ddsm_txid_pack(t->c.id);
}

static u32 written_at(const struct tx *t, u32 home, struct ddsm_tx_range *r)
{
	u32 l, n = 0;

	for (l = home; l < nlines; l += HOMES)
		if (t->wrote[l]) {
			r[n].first = l;
			r[n].last = l;
			n++;
		}
	return n;
}

static void planted_undoom(struct world *w, u32 h, const u64 *doomed, u32 nd)
{
	u32 k, s;

	for (k = 0; k < nd; k++)
		for (s = 0; s < SLOTS; s++)
			if (w->ent[h][s].txid == doomed[k] &&
			    w->ent[h][s].state == DDSM_TXH_DOOMED)
				w->ent[h][s].state = DDSM_TXH_ACTIVE;
}

/* One step of transaction @i; false when it cannot move now. */
static bool step(struct world *w, u32 i)
{
	struct tx *t = &w->t[i];
	struct ddsm_tx_range r[MAXL];
	u64 doomed[MAXT], to;
	u32 nd, h, l, k;
	int ret;

	if (t->done)
		return false;
	if (t->c.state == DDSM_TXC_RUNNING && t->pc < t->nops) {
		l = t->line[t->pc];
		h = l % HOMES;
		ddsm_txc_touch(&t->c, h);
		if (t->is_write[t->pc]) {
			t->wrote[l] = 1;
		} else {
			ret = ddsm_txh_read(&w->home[h], id_of(t), l, l);
			if (ret == -EAGAIN)
				return false;
			if (ret) {
				if (ret != -ESTALE)
					violation = "a read failed with neither EAGAIN nor ESTALE";
				ddsm_txc_squash(&t->c, id_of(t));
				return true;
			}
			if (!t->read_ver[l] && !t->wrote[l])
				t->read_ver[l] = (u8)(w->ver[l] + 1);
		}
		t->pc++;
		return true;
	}
	if (t->c.state == DDSM_TXC_RUNNING) {
		if (ddsm_txc_commit(&t->c, &to))
			violation = "commit refused";
		return true;
	}
	if (t->c.state == DDSM_TXC_COMMITTING) {
		for (h = 0; h < HOMES; h++) {
			if (!(t->c.pending & BIT_ULL(h)) || (t->asked & (1u << h)))
				continue;
			t->asked |= (u8)(1u << h);
			ret = ddsm_txh_intend(&w->home[h], id_of(t), r,
					      written_at(t, h, r), doomed, MAXT,
					      &nd);
			if (nd > MAXT)
				violation = "too many doomed";
			if (plant) {
				planted_undoom(w, h, doomed, nd);
			} else {
				for (k = 0; k < nd && w->nsq < MAXSQ; k++)
					w->sq[w->nsq++] = doomed[k];
				if (k < nd)
					violation = "explorer bound: squash queue full";
			}
			if (ddsm_txc_answer(&t->c, id_of(t), h, !ret) < 0)
				violation = "an Intend's answer was refused";
			return true;
		}
		return false;
	}
	for (h = 0; h < HOMES; h++) {
		if (!(t->c.involved & BIT_ULL(h)) || (t->validated & (1u << h)))
			continue;
		t->validated |= (u8)(1u << h);
		if (t->c.state == DDSM_TXC_COMMITTED) {
			for (l = h; l < nlines; l += HOMES)
				if (t->wrote[l]) {
					if (w->ver[l] + 1 >= MAXV) {
						violation = "explorer bound: versions";
						return true;
					}
					w->writer[l][++w->ver[l]] = (int8_t)i;
				}
			if (ddsm_txh_validate(&w->home[h], id_of(t)))
				violation = "Validation refused by a home that ACKed";
		} else {
			ddsm_txh_abort(&w->home[h], id_of(t));
		}
		return true;
	}
	t->done = 1;
	t->committed = t->c.state == DDSM_TXC_COMMITTED;
	return true;
}

static void deliver_squash(struct world *w, u32 k)
{
	u64 id = w->sq[k];
	u32 i;

	memmove(&w->sq[k], &w->sq[k + 1], (w->nsq - k - 1) * sizeof(w->sq[0]));
	w->nsq--;
	for (i = 0; i < ntx; i++)
		if (id_of(&w->t[i]) == id &&
		    ddsm_txc_squash(&w->t[i].c, id) < 0)
			violation = "a squash reached a committed transaction";
}

static void check_history(const struct world *w)
{
	struct serial sg = { .n = ntx };
	u32 i, l, h, s;

	histories++;
	for (i = 0; i < ntx; i++) {
		commits += w->t[i].committed;
		aborts += !w->t[i].committed;
		if (!w->t[i].committed)
			continue;
		for (l = 0; l < nlines; l++)
			serial_read(&sg, i, w->writer[l], w->ver[l],
				    w->t[i].read_ver[l]);
	}
	for (l = 0; l < nlines; l++)
		serial_writes(&sg, w->writer[l], w->ver[l]);
	if (serial_cyclic(&sg))
		violation = "a committed history is not serializable";
	for (h = 0; h < HOMES; h++)
		for (s = 0; s < SLOTS; s++)
			if (w->ent[h][s].state != DDSM_TXH_FREE)
				violation = "a home kept an entry after every transaction ended";
}

static void explore(const struct world *w)
{
	struct world next;
	bool moved = false, all_done = true;
	u32 i;

	if (violation || !visit(w))
		return;
	for (i = 0; i < ntx; i++)
		all_done &= w->t[i].done;
	if (all_done && !w->nsq) {
		check_history(w);
		return;
	}
	for (i = 0; i < ntx && !violation; i++) {
		next = *w;
		fixup(&next);
		if (step(&next, i)) {
			moved = true;
			explore(&next);
		}
	}
	for (i = 0; i < w->nsq && !violation; i++) {
		next = *w;
		fixup(&next);
		deliver_squash(&next, i);
		moved = true;
		explore(&next);
	}
	if (!moved && !violation)
		violation = "deadlock: no transaction can move";
}

static u32 rnd(u32 n)
{
	/* xorshift64*: a fixed seed, so a run can be replayed. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (u32)((rng_state * 0x2545F4914F6CDD1DULL) >> 33) % n;
}

/* One random history from @w: a random enabled step at a time. */
static void walk(struct world *w)
{
	static struct world next[MAXT + MAXSQ];
	u32 i, n, all_done;

	for (;;) {
		n = 0;
		for (i = 0; i < ntx; i++) {
			next[n] = *w;
			fixup(&next[n]);
			if (step(&next[n], i))
				n++;
		}
		for (i = 0; i < w->nsq; i++) {
			next[n] = *w;
			fixup(&next[n]);
			deliver_squash(&next[n++], i);
		}
		if (violation)
			return;
		if (!n) {
			for (all_done = 1, i = 0; i < ntx; i++)
				all_done &= w->t[i].done;
			if (all_done)
				check_history(w);
			else
				violation = "deadlock: no transaction can move";
			return;
		}
		*w = next[rnd(n)];
		fixup(w);
		states++;
	}
}

/* Program number @p: its op count and ops, over nlines lines. */
static void set_program(struct tx *t, u32 p)
{
	u32 k, per = 2 * nlines, n = 1, base = per;

	while (p >= base && n < nops) {
		p -= base;
		base *= per;
		n++;
	}
	t->nops = (u8)n;
	for (k = 0; k < n; k++) {
		t->line[k] = (u8)(p % per / 2);
		t->is_write[k] = (u8)(p % 2);
		p /= per;
	}
}

int main(int argc, char **argv)
{
	static struct world w;
	u64 combos = 1, c, x;
	u32 programs = 0, per, i;
	int a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-t") && a + 1 < argc)
			ntx = (u32)atoi(argv[++a]);
		else if (!strcmp(argv[a], "-o") && a + 1 < argc)
			nops = (u32)atoi(argv[++a]);
		else if (!strcmp(argv[a], "-l") && a + 1 < argc)
			nlines = (u32)atoi(argv[++a]);
		else if (!strcmp(argv[a], "-r") && a + 1 < argc)
			runs = (u32)atoi(argv[++a]);
		else if (!strcmp(argv[a], "--plant") && a + 1 < argc &&
			 !strcmp(argv[a + 1], "skip-probe"))
			plant = true, a++;
		else if (!strcmp(argv[a], "--tap"))
			tap = true;
		else if (!strcmp(argv[a], "-q"))
			quiet = true;
		else
			goto usage;
	}
	if (ntx < 1 || ntx > MAXT || nops < 1 || nops > MAXO || nlines < 1 ||
	    nlines > MAXL)
		goto usage;
	seen_mask = (1ULL << 24) - 1;
	seen = calloc(seen_mask + 1, sizeof(*seen));
	if (!seen) {
		fprintf(stderr, "txexplore: out of memory\n");
		return 2;
	}
	for (per = 1, i = 0; i < nops; i++) {
		per *= 2 * nlines;
		programs += per;
	}
	for (i = 0; i < ntx; i++)
		combos *= programs;
	if (!runs && combos > 1000000) {
		fprintf(stderr, "txexplore: %llu program tuples: too many to search, use -r\n",
			(unsigned long long)combos);
		return 2;
	}
	for (c = 0; c < runs && !violation; c++) {
		memset(&w, 0, sizeof(w));
		for (i = 0; i < HOMES; i++)
			ddsm_txh_init(&w.home[i], w.ent[i], SLOTS);
		memset(w.writer, -1, sizeof(w.writer));
		for (i = 0; i < ntx; i++) {
			ddsm_txc_begin(&w.t[i].c, (u16)i, 1, 0);
			set_program(&w.t[i], rnd(programs));
		}
		walk(&w);
	}
	for (c = 0; c < combos && !runs && !violation; c++) {
		memset(&w, 0, sizeof(w));
		for (i = 0; i < HOMES; i++)
			ddsm_txh_init(&w.home[i], w.ent[i], SLOTS);
		memset(w.writer, -1, sizeof(w.writer));
		for (x = c, i = 0; i < ntx; i++, x /= programs) {
			ddsm_txc_begin(&w.t[i].c, (u16)i, 1, 0);
			set_program(&w.t[i], x % programs);
		}
		explore(&w);
	}
	if (plant) {
		if (tap)
			printf("%s - txmodel planted skip-probe %s in %s%u tx x %u ops over %u lines%s%s\n",
			       violation ? "ok" : "not ok",
			       violation ? "caught" : "NOT caught",
			       runs ? "random runs of " : "", ntx, nops,
			       nlines, violation ? ": " : "",
			       violation ? violation : "");
		return violation ? 0 : 1;
	}
	if (tap && runs)
		printf("%s - txmodel %u random histories of %u tx x 1-%u ops over %u lines: %llu steps (%llu commits, %llu aborts)%s%s\n",
		       violation ? "not ok" : "ok", runs, ntx, nops, nlines,
		       (unsigned long long)states,
		       (unsigned long long)commits,
		       (unsigned long long)aborts,
		       violation ? ": " : ", serializable, no deadlock",
		       violation ? violation : "");
	else if (tap)
		printf("%s - txmodel %u tx x %u ops over %u lines: %u programs each, %llu states, %llu end states (%llu commits, %llu aborts)%s%s\n",
		       violation ? "not ok" : "ok", ntx, nops, nlines, programs,
		       (unsigned long long)states,
		       (unsigned long long)histories,
		       (unsigned long long)commits,
		       (unsigned long long)aborts,
		       violation ? ": " : ", serializable, no deadlock",
		       violation ? violation : "");
	else if (!quiet)
		printf("%llu states, %llu end states: %s\n",
		       (unsigned long long)states,
		       (unsigned long long)histories,
		       violation ? violation : "no violation");
	free(seen);
	return violation ? 1 : 0;
usage:
	fprintf(stderr, "usage: txexplore [-t 1..%u] [-o 1..%u] [-l 1..%u] [--plant skip-probe] [--tap] [-q]\n",
		MAXT, MAXO, MAXL);
	return 2;
}
