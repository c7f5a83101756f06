// SPDX-License-Identifier: GPL-2.0
/*
 * Conflict-serializability checker over logged versions (sercheck.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "sercheck.h"
#include "txn.h"

void sc_init(struct sercheck *c)
{
	memset(c, 0, sizeof(*c));
}

void sc_free(struct sercheck *c)
{
	free(c->ids);
	free(c->ops);
	sc_init(c);
}

static int sc_grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 1024;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

int sc_add_tx(struct sercheck *c, uint64_t id, const uint64_t *reads,
	      uint32_t nr, const uint64_t *writes, uint32_t nw)
{
	uint32_t i;

	if (sc_grow((void **)&c->ids, &c->cap_tx, c->ntx + 1,
		    sizeof(*c->ids)) ||
	    sc_grow((void **)&c->ops, &c->cap_ops, c->nops + nr + nw,
		    sizeof(*c->ops)))
		return -ENOMEM;
	for (i = 0; i < nr + nw; i++) {
		const uint64_t *p = i < nr ? reads + 2 * i :
				    writes + 2 * (i - nr);
		struct sc_op *op = &c->ops[c->nops++];

		op->rec = p[0];
		op->ver = p[1];
		op->tx = (uint32_t)c->ntx;
		op->write = i >= nr;
	}
	c->ids[c->ntx++] = id;
	return 0;
}

/* Length in words of the entry at @w, or 0 if it is not one. */
static size_t sc_entry_len(const uint64_t *w, size_t left)
{
	uint64_t nr, nw;

	if (left < 2 || (w[0] & TXN_LOG_TAG_MASK) != TXN_LOG_TAG)
		return 0;
	nr = (w[0] >> 16) & 0xffff;
	nw = w[0] & 0xffff;
	if (2 + 2 * (nr + nw) > left)
		return 0;
	return 2 + 2 * (nr + nw);
}

int sc_add_log(struct sercheck *c, const uint64_t *w, size_t len)
{
	size_t i = 0, n;
	int r;

	while (i < len) {
		n = sc_entry_len(w + i, len - i);
		if (!n)
			return -EBADMSG;
		r = sc_add_tx(c, w[i + 1], w + i + 2,
			      (uint32_t)((w[i] >> 16) & 0xffff),
			      w + i + 2 + 2 * ((w[i] >> 16) & 0xffff),
			      (uint32_t)(w[i] & 0xffff));
		if (r)
			return r;
		i += n;
	}
	return 0;
}

static void sc_print_id(FILE *f, uint64_t id)
{
	fprintf(f, "%" PRIu64 ".%" PRIu64 ".%" PRIu64, id >> 48,
		(id >> 32) & 0xffff, id & 0xffffffff);
}

int sc_write_text(FILE *f, const uint64_t *w, size_t len)
{
	size_t i = 0, n, k;
	uint64_t nr;

	while (i < len) {
		n = sc_entry_len(w + i, len - i);
		if (!n)
			return -EBADMSG;
		nr = (w[i] >> 16) & 0xffff;
		fputs("tx ", f);
		sc_print_id(f, w[i + 1]);
		fputs(" r", f);
		for (k = 0; k < (n - 2) / 2; k++) {
			if (k == nr)
				fputs(" w", f);
			fprintf(f, " %#" PRIx64 ":%" PRIu64, w[i + 2 + 2 * k],
				w[i + 3 + 2 * k]);
		}
		if (k == nr)
			fputs(" w", f);
		fputc('\n', f);
		i += n;
	}
	return ferror(f) ? -EIO : 0;
}

static int sc_parse_id(const char *s, uint64_t *id)
{
	unsigned long long a, b, c;
	int n;

	if (sscanf(s, "%llu.%llu.%llu%n", &a, &b, &c, &n) != 3 || s[n] ||
	    a > 0xffff || b > 0xffff || c > 0xffffffffULL)
		return -1;
	*id = (uint64_t)a << 48 | (uint64_t)b << 32 | c;
	return 0;
}

/* "tx ID r R:V ... w R:V ..." into the checker; -EBADMSG if malformed. */
static int sc_parse_line(struct sercheck *c, char *line)
{
	uint64_t ops[2 * 2 * 256], *reads = ops, *writes = NULL, id = 0;
	uint32_t nr = 0, nw = 0;
	char *save, *t, *colon, *end;
	int state = 0;	/* 0: want "tx", 1: id, 2: "r", 3: reads, 4: writes */

	for (t = strtok_r(line, " \t\n", &save); t;
	     t = strtok_r(NULL, " \t\n", &save)) {
		if (state == 0 && !strcmp(t, "tx")) {
			state = 1;
		} else if (state == 1) {
			if (sc_parse_id(t, &id))
				return -EBADMSG;
			state = 2;
		} else if (state == 2 && !strcmp(t, "r")) {
			state = 3;
		} else if (state == 3 && !strcmp(t, "w")) {
			writes = ops + 2 * nr;
			state = 4;
		} else if (state >= 3) {
			uint64_t *p = state == 3 ? reads + 2 * nr :
				      writes + 2 * nw;

			if (nr + nw >= 256)
				return -EBADMSG;
			colon = strchr(t, ':');
			if (!colon)
				return -EBADMSG;
			*colon = 0;
			p[0] = strtoull(t, &end, 0);
			if (*end || end == t)
				return -EBADMSG;
			p[1] = strtoull(colon + 1, &end, 0);
			if (*end || end == colon + 1)
				return -EBADMSG;
			if (state == 3)
				nr++;
			else
				nw++;
		} else {
			return -EBADMSG;
		}
	}
	if (state == 0)
		return 0;	/* blank */
	if (state < 3)
		return -EBADMSG;
	return sc_add_tx(c, id, reads, nr, writes ? writes : ops + 2 * nr,
			 nw);
}

int sc_add_text(struct sercheck *c, FILE *f, size_t *bad_line)
{
	char *line = NULL, *hash;
	size_t cap = 0, no = 0;
	int r = 0;

	while (getline(&line, &cap, f) > 0) {
		no++;
		hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		r = sc_parse_line(c, line);
		if (r) {
			if (bad_line)
				*bad_line = no;
			break;
		}
	}
	free(line);
	return r;
}

/* ---- the graph ---- */

enum { E_WR, E_WW, E_RW };
static const char *const kind_names[] = { "wr", "ww", "rw" };

struct sc_edge {
	uint32_t from, to;
	uint8_t kind;
};

struct sc_graph {
	struct sc_edge *e;
	size_t n, cap;
	uint32_t *start;	/* [ntx + 1]: CSR over e sorted by from */
};

static int op_cmp(const void *a, const void *b)
{
	const struct sc_op *x = a, *y = b;

	if (x->rec != y->rec)
		return x->rec < y->rec ? -1 : 1;
	if (x->ver != y->ver)
		return x->ver < y->ver ? -1 : 1;
	/* The write of a version before its reads. */
	return (int)y->write - (int)x->write;
}

static int edge_cmp(const void *a, const void *b)
{
	const struct sc_edge *x = a, *y = b;

	return x->from < y->from ? -1 : x->from > y->from;
}

static int sc_edge(struct sc_graph *g, struct sc_result *r, uint32_t from,
		   uint32_t to, int kind)
{
	if (from == to)
		return 0;
	if (sc_grow((void **)&g->e, &g->cap, g->n + 1, sizeof(*g->e)))
		return -ENOMEM;
	g->e[g->n].from = from;
	g->e[g->n].to = to;
	g->e[g->n].kind = (uint8_t)kind;
	g->n++;
	if (kind == E_WR)
		r->wr++;
	else if (kind == E_WW)
		r->ww++;
	else
		r->rw++;
	return 0;
}

/*
 * The edges of one record's ops, ops[lo..hi), sorted by version with
 * each version's write first.
 */
static int sc_record_edges(struct sc_graph *g, struct sc_result *r,
			   const struct sc_op *ops, size_t lo, size_t hi)
{
	size_t i, j, next_w;
	const struct sc_op *writer = NULL;	/* latest created so far */
	bool created_any = false;

	/* next_w: index of the first write at or after i. */
	for (i = lo; i < hi; i = j) {
		const struct sc_op *w = NULL;

		for (j = i; j < hi && ops[j].ver == ops[i].ver; j++) {
			if (!ops[j].write)
				continue;
			if (w)
				r->dup_writes++;
			else
				w = &ops[j];
		}
		if (w && writer && sc_edge(g, r, writer->tx, w->tx, E_WW))
			return -ENOMEM;
		for (next_w = j; next_w < hi && !ops[next_w].write; next_w++)
			;
		for (; i < j; i++) {
			if (ops[i].write)
				continue;
			if (w) {
				if (sc_edge(g, r, w->tx, ops[i].tx, E_WR))
					return -ENOMEM;
			} else if (created_any) {
				/* Newer than a created version, created by none. */
				r->bad_reads++;
			}
			if (next_w < hi &&
			    sc_edge(g, r, ops[i].tx, ops[next_w].tx, E_RW))
				return -ENOMEM;
		}
		if (w) {
			writer = w;
			created_any = true;
		}
	}
	return 0;
}

static int sc_build(struct sercheck *c, struct sc_graph *g,
		    struct sc_result *r)
{
	size_t i, j;

	qsort(c->ops, c->nops, sizeof(*c->ops), op_cmp);
	for (i = 0; i < c->nops; i = j) {
		for (j = i; j < c->nops && c->ops[j].rec == c->ops[i].rec; j++)
			;
		if (sc_record_edges(g, r, c->ops, i, j))
			return -ENOMEM;
	}
	qsort(g->e, g->n, sizeof(*g->e), edge_cmp);
	g->start = calloc(c->ntx + 1, sizeof(*g->start));
	if (!g->start)
		return -ENOMEM;
	for (i = 0; i < g->n; i++)
		g->start[g->e[i].from + 1]++;
	for (i = 0; i < c->ntx; i++)
		g->start[i + 1] += g->start[i];
	return 0;
}

/*
 * The shortest cycle through edge @e (u -> v): a breadth-first search for
 * the shortest path from v back to u.  The DFS that found @e may have
 * walked a long way round; a short cycle is what a reader can follow.
 */
static int sc_short_cycle(const struct sercheck *c, const struct sc_graph *g,
			  uint32_t e, struct sc_result *r)
{
	uint32_t u = g->e[e].from, v = g->e[e].to, x, f;
	uint32_t *via = malloc(c->ntx * sizeof(*via) + 1);	/* edge in */
	uint32_t *q = malloc(c->ntx * sizeof(*q) + 1);	/* queue, then path */
	size_t head = 0, tail = 0, m = 0, i;

	if (!via || !q) {
		free(via);
		free(q);
		return -ENOMEM;
	}
	memset(via, 0xff, c->ntx * sizeof(*via));
	q[tail++] = v;
	via[v] = e;
	while (head < tail && via[u] == UINT32_MAX) {
		x = q[head++];
		for (f = g->start[x]; f < g->start[x + 1]; f++) {
			if (via[g->e[f].to] != UINT32_MAX)
				continue;
			via[g->e[f].to] = f;
			q[tail++] = g->e[f].to;
		}
	}
	/* The path's edges from u back to v, then reversed in place. */
	for (x = u; x != v; x = g->e[via[x]].from)
		q[m++] = via[x];
	for (i = 0; i < m / 2; i++) {
		f = q[i];
		q[i] = q[m - 1 - i];
		q[m - 1 - i] = f;
	}
	q[m] = e;
	r->cycle = true;
	r->cycle_len = m + 1;
	for (i = 0; i <= m && i < SC_CYCLE_MAX; i++) {
		r->cycle_ids[i] = c->ids[g->e[q[i]].from];
		memcpy(r->cycle_kind[i], kind_names[g->e[q[i]].kind], 3);
	}
	free(via);
	free(q);
	return 0;
}

/*
 * An edge a -> b with an edge b -> a, if there is one, else @fallback: a
 * lost update or a write skew is such a pair, and the shortest report.
 * Bounded work: hot transactions have many edges.
 */
static uint32_t sc_two_cycle(const struct sc_graph *g, uint32_t fallback)
{
	size_t e, f, budget = 20 * g->n + 1000000;

	for (e = 0; e < g->n; e++) {
		uint32_t b = g->e[e].to;

		for (f = g->start[b]; f < g->start[b + 1]; f++) {
			if (!budget--)
				return fallback;
			if (g->e[f].to == g->e[e].from)
				return (uint32_t)e;
		}
	}
	return fallback;
}

/* Iterative DFS until a back edge, which lies on a cycle. */
static int sc_find_cycle(const struct sercheck *c, const struct sc_graph *g,
			 struct sc_result *r)
{
	uint8_t *color = calloc(c->ntx, 1);	/* 0 white, 1 grey, 2 black */
	uint32_t *stack = malloc(c->ntx * sizeof(*stack) + 1);
	uint32_t *pos = malloc(c->ntx * sizeof(*pos) + 1);
	size_t root, sp;
	int ret = 0;
	bool found = false;
	uint32_t back = 0;

	if (!color || !stack || !pos) {
		free(color);
		free(stack);
		free(pos);
		return -ENOMEM;
	}
	for (root = 0; root < c->ntx && !found; root++) {
		if (color[root])
			continue;
		sp = 0;
		stack[sp++] = (uint32_t)root;
		pos[root] = g->start[root];
		color[root] = 1;
		while (sp && !found) {
			uint32_t u = stack[sp - 1], v, e;

			if (pos[u] == g->start[u + 1]) {
				color[u] = 2;
				sp--;
				continue;
			}
			e = pos[u]++;
			v = g->e[e].to;
			if (color[v] == 0) {
				color[v] = 1;
				pos[v] = g->start[v];
				stack[sp++] = v;
			} else if (color[v] == 1) {
				found = true;
				back = e;
			}
		}
	}
	if (found)
		ret = sc_short_cycle(c, g, sc_two_cycle(g, back), r);
	free(color);
	free(stack);
	free(pos);
	return ret;
}

int sc_check(struct sercheck *c, struct sc_result *r)
{
	struct sc_graph g = { 0 };
	size_t i;
	int ret;

	memset(r, 0, sizeof(*r));
	r->txs = c->ntx;
	for (i = 0; i < c->nops; i++) {
		if (c->ops[i].write)
			r->writes++;
		else
			r->reads++;
	}
	ret = sc_build(c, &g, r);
	if (!ret)
		ret = sc_find_cycle(c, &g, r);
	free(g.e);
	free(g.start);
	return ret;
}

bool sc_ok(const struct sc_result *r)
{
	return !r->cycle && !r->dup_writes && !r->bad_reads;
}

void sc_describe(const struct sc_result *r, char *buf, size_t len)
{
	size_t n, i;

	n = (size_t)snprintf(buf, len,
			     "%zu transactions, %zu reads, %zu writes, edges wr %zu ww %zu rw %zu, versions created twice %zu, reads of uncreated versions %zu: %s",
			     r->txs, r->reads, r->writes, r->wr, r->ww, r->rw,
			     r->dup_writes, r->bad_reads,
			     r->cycle ? "cycle" : "acyclic");
	for (i = 0; r->cycle && i < r->cycle_len && i < SC_CYCLE_MAX &&
	     n < len; i++) {
		uint64_t id = r->cycle_ids[i];

		n += (size_t)snprintf(buf + n, len - n,
				      " %" PRIu64 ".%" PRIu64 ".%" PRIu64 " -%s->",
				      id >> 48, (id >> 32) & 0xffff,
				      id & 0xffffffff, r->cycle_kind[i]);
	}
	if (r->cycle && r->cycle_len > SC_CYCLE_MAX && n < len)
		n += (size_t)snprintf(buf + n, len - n, " ...");
	if (r->cycle && n < len) {
		uint64_t id = r->cycle_ids[0];

		snprintf(buf + n, len - n, " %" PRIu64 ".%" PRIu64 ".%" PRIu64,
			 id >> 48, (id >> 32) & 0xffff, id & 0xffffffff);
	}
}
