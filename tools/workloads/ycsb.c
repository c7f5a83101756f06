// SPDX-License-Identifier: GPL-2.0
/*
 * YCSB operation loop (ycsb.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ycsb.h"

#define YCSB_REPORTS	5	/* bad events printed per thread */

enum ycsb_op { OP_READ, OP_UPDATE, OP_INSERT, OP_RMW };

static uint64_t ycsb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static enum ycsb_op ycsb_choose_op(struct ycsb_worker *w)
{
	double u = wl_rng_double(&w->rng);

	switch (w->cfg->workload) {
	case 'A':
		return u < 0.5 ? OP_READ : OP_UPDATE;
	case 'B':
		return u < 0.95 ? OP_READ : OP_UPDATE;
	case 'D':
		return u < 0.95 ? OP_READ : OP_INSERT;
	case 'F':
		return u < 0.5 ? OP_READ : OP_RMW;
	default:
		return OP_READ;
	}
}

static uint64_t ycsb_choose_key(struct ycsb_worker *w)
{
	struct ycsb_cfg *c = w->cfg;

	switch (c->dist) {
	case YCSB_UNIFORM:
		return 1 + wl_rng_below(&w->rng, c->records);
	case YCSB_ZIPFIAN:
		return 1 + zipf_scrambled_next(&w->z, &w->rng, c->records);
	default:
		return zipf_latest_next(&w->z, &w->rng,
					__atomic_load_n(&c->newest,
							__ATOMIC_RELAXED));
	}
}

static void ycsb_bad(struct ycsb_worker *w, const char *what, uint64_t key,
		     long err)
{
	if (w->tally.bad++ < YCSB_REPORTS)
		printf("# node%d thread%d: %s of key %" PRIu64 ": %s\n",
		       w->cfg->me, w->id, what, key,
		       err ? strerror((int)-err) : "wrong value");
}

static void ycsb_error(struct ycsb_worker *w, const char *what, uint64_t key,
		       long err)
{
	if (w->tally.errors++ < YCSB_REPORTS)
		printf("# node%d thread%d: %s of key %" PRIu64 " failed: %s\n",
		       w->cfg->me, w->id, what, key, strerror((int)-err));
}

static void ycsb_read(struct ycsb_worker *w, uint64_t key)
{
	const struct kv_table *t = w->cfg->t;
	uint64_t ver;
	int r;

	w->tally.reads++;
	r = kv_get(t, key, w->buf, &ver);
	if (!r) {
		if (!kv_value_is_pattern(t, key, ver, w->buf))
			ycsb_bad(w, "read", key, 0);
	} else if (r == -ENOENT && key > w->cfg->records) {
		w->tally.read_miss++;
	} else if (r == -ENOENT || r == -EBADMSG) {
		ycsb_bad(w, "read", key, r);
	} else {
		ycsb_error(w, "read", key, r);
	}
}

static void ycsb_update(struct ycsb_worker *w, uint64_t key)
{
	int64_t v = kv_put(w->cfg->t, key, NULL);

	if (v > 0) {
		w->changes[key - 1]++;
		w->tally.updates++;
	} else {
		ycsb_error(w, "update", key, (long)v);
	}
}

static void ycsb_rmw(struct ycsb_worker *w, uint64_t key)
{
	int64_t v = kv_rmw(w->cfg->t, key, kv_rmw_pattern, (void *)w->cfg->t);

	if (v > 0) {
		w->changes[key - 1]++;
		w->tally.rmws++;
	} else if (v == -EBADMSG || v == -ENOENT) {
		ycsb_bad(w, "read-modify-write", key, (long)v);
	} else {
		ycsb_error(w, "read-modify-write", key, (long)v);
	}
}

/* Raise the node's newest key to @key (threads insert out of order). */
static void ycsb_newest(struct ycsb_cfg *c, uint64_t key)
{
	uint64_t cur = __atomic_load_n(&c->newest, __ATOMIC_RELAXED);

	while (cur < key &&
	       !__atomic_compare_exchange_n(&c->newest, &cur, key, false,
					    __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

static void ycsb_insert(struct ycsb_worker *w)
{
	struct ycsb_cfg *c = w->cfg;
	uint64_t j = __atomic_fetch_add(&c->next_insert, 1, __ATOMIC_RELAXED);
	uint64_t key = c->records + 1 + (uint64_t)c->me + (uint64_t)c->n * j;
	int64_t v;

	if (key > c->key_cap) {
		w->tally.insert_full++;
		ycsb_read(w, ycsb_choose_key(w));
		return;
	}
	v = kv_put(c->t, key, NULL);
	if (v <= 0) {
		ycsb_error(w, "insert", key, (long)v);
		return;
	}
	w->changes[key - 1]++;
	w->tally.inserts++;
	/* Version 1 or somebody else had it: partitions must not overlap. */
	if (v != 1)
		ycsb_bad(w, "insert (key existed)", key, 0);
	ycsb_newest(c, key);
}

static void ycsb_one(struct ycsb_worker *w)
{
	switch (ycsb_choose_op(w)) {
	case OP_READ:
		ycsb_read(w, ycsb_choose_key(w));
		break;
	case OP_UPDATE:
		ycsb_update(w, ycsb_choose_key(w));
		break;
	case OP_INSERT:
		ycsb_insert(w);
		break;
	case OP_RMW:
		ycsb_rmw(w, ycsb_choose_key(w));
		break;
	}
}

static void *ycsb_thread(void *arg)
{
	struct ycsb_worker *w = arg;
	struct ycsb_cfg *c = w->cfg;
	uint64_t end = (uint64_t)(c->deadline * 1e9), t0, t1, start;
	uint64_t i;

	start = ycsb_now_ns();
	t1 = start;
	for (i = 0; !c->ops || i < c->ops; i++) {
		t0 = t1;
		ycsb_one(w);
		t1 = ycsb_now_ns();
		hist_add(&w->hist, t1 - t0);
		if (!c->ops && t1 >= end)
			break;
	}
	w->tally.ops = w->hist.n;
	w->secs = (double)(t1 - start) / 1e9;
	return NULL;
}

static int ycsb_prepare(struct ycsb_cfg *c, struct ycsb_worker *w, int id)
{
	memset(w, 0, sizeof(*w));
	w->cfg = c;
	w->id = id;
	wl_rng_seed(&w->rng, c->seed ^ ((uint64_t)c->me << 40) ^
			     ((uint64_t)id << 20));
	if (c->dist == YCSB_ZIPFIAN)
		zipf_scrambled_init(&w->z);
	else if (c->dist == YCSB_LATEST)
		zipf_init(&w->z, c->records, ZIPF_THETA);
	w->changes = calloc(c->key_cap, sizeof(*w->changes));
	w->buf = malloc(c->t->value_size);
	return w->changes && w->buf ? 0 : -1;
}

int ycsb_run(struct ycsb_cfg *c, struct ycsb_worker *w, int threads)
{
	int i, started = 0, ret = 0;

	for (i = 0; i < threads; i++)
		if (ycsb_prepare(c, &w[i], i))
			return -1;
	for (i = 0; i < threads; i++, started++)
		if (pthread_create(&w[i].th, NULL, ycsb_thread, &w[i])) {
			ret = -1;
			break;
		}
	for (i = 0; i < started; i++)
		pthread_join(w[i].th, NULL);
	return ret;
}

void ycsb_free(struct ycsb_worker *w, int threads)
{
	int i;

	for (i = 0; i < threads; i++) {
		free(w[i].changes);
		free(w[i].buf);
	}
}

void ycsb_tally_add(struct ycsb_tally *dst, const struct ycsb_tally *src)
{
	dst->ops += src->ops;
	dst->reads += src->reads;
	dst->updates += src->updates;
	dst->inserts += src->inserts;
	dst->rmws += src->rmws;
	dst->read_miss += src->read_miss;
	dst->insert_full += src->insert_full;
	dst->bad += src->bad;
	dst->errors += src->errors;
}
