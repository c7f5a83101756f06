// SPDX-License-Identifier: GPL-2.0
/*
 * The transactional workloads' thread loop (txwl.h).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dsm_sync.h"
#include "txwl.h"

static uint64_t txw_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void *txw_main(void *arg)
{
	struct txw_worker *w = arg;
	const struct txw_cfg *c = w->cfg;
	double t0 = dsm_now();
	uint64_t i, t;
	int r;

	for (i = 0; c->ops ? i < c->ops : dsm_now() < c->deadline; i++) {
		t = txw_now_ns();
		r = c->wl->one(w);
		hist_add(&w->hist, txw_now_ns() - t);
		w->runs++;
		if (!r)
			w->committed++;
		else if (r < 0)
			w->errors++;
		else if (w->tx->cause == TXN_C_USER)
			w->user++;
		else
			w->gave_up++;
	}
	w->secs = dsm_now() - t0;
	return NULL;
}

int txw_run(const struct txw_cfg *c, struct txw_worker *w, int threads)
{
	size_t words = (size_t)c->wl->tables * c->records;
	int i, started;

	for (i = 0; i < threads; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].cfg = c;
		w[i].id = i;
		w[i].tx = malloc(sizeof(*w[i].tx));
		w[i].delta = calloc(words, sizeof(*w[i].delta));
		if (!w[i].tx || !w[i].delta)
			return -1;
		txn_init(w[i].tx, c->env, c->me, i, threads);
		wl_rng_seed(&w[i].rng, wl_mix64(c->seed) ^
			    ((uint64_t)c->me << 32 | (uint64_t)i));
		zipf_scrambled_init(&w[i].z);
	}
	for (started = 0; started < threads; started++)
		if (pthread_create(&w[started].th, NULL, txw_main, &w[started]))
			break;
	for (i = 0; i < started; i++)
		pthread_join(w[i].th, NULL);
	return started == threads ? 0 : -1;
}

void txw_free(struct txw_worker *w, int threads)
{
	int i;

	for (i = 0; i < threads; i++) {
		if (w[i].tx)
			txn_destroy(w[i].tx);
		free(w[i].tx);
		free(w[i].delta);
		w[i].tx = NULL;
		w[i].delta = NULL;
	}
}
