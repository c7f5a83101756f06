// SPDX-License-Identifier: GPL-2.0
/*
 * GAM micro-benchmark access pattern (micro.h): block placement, traces
 * and the timed loop.
 */
#include <math.h>
#include <stdlib.h>
#include <time.h>
#include "micro.h"
#include "libddsm.h"
#include "dsm_sync.h"

#define UNIT		DDSM_UNIT_SIZE
#define WORD_STEP	0xd6e8feb86659fd93ULL
#define MICRO_CLOCK_EVERY	64

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

static uint64_t per_unit(const struct micro_cfg *c)
{
	return UNIT / c->item;
}

/* Private blocks homed elsewhere (none with one node). */
static uint64_t remote_count(const struct micro_cfg *c)
{
	if (c->nodes < 2)
		return 0;
	return (uint64_t)llround(c->remote * (double)(c->blocks - c->shared));
}

uint64_t micro_rows(const struct micro_cfg *c)
{
	uint64_t nrem = remote_count(c);
	uint64_t local = c->blocks - c->shared - nrem;
	uint64_t most = local;

	if (c->nodes > 1 && div_up(nrem, c->nodes - 1) > most)
		most = div_up(nrem, c->nodes - 1);
	most = div_up(most, per_unit(c));
	return most ? most : 1;
}

void micro_pool(const struct micro_cfg *c, int node, int thread,
		char **addr)
{
	uint64_t ipu = per_unit(c), nrem = remote_count(c);
	uint64_t owner = (uint64_t)node * c->threads + thread;
	uint64_t count[DDSM_MAX_NODES] = { 0 };
	uint64_t s, p, j, row;
	int h;

	for (s = 0; s < c->shared; s++)
		addr[s] = c->shared_area + (s % c->shared_units) * UNIT +
			  (s / c->shared_units) * c->item;
	for (p = 0; p < c->blocks - c->shared; p++) {
		h = node;
		if (p < nrem)
			h = (node + 1 + (int)(p % (c->nodes - 1))) % c->nodes;
		j = count[h]++;
		row = owner * c->rows + j / ipu;
		addr[c->shared + p] = c->private_area +
				      (row * c->nodes + h) * UNIT +
				      (j % ipu) * c->item;
	}
}

void micro_trace(const struct micro_cfg *c, int node, int thread,
		 uint32_t *trace)
{
	struct wl_rng r;
	uint64_t i, b;

	wl_rng_seed(&r, c->seed ^ wl_mix64(((uint64_t)node << 20) |
					   (uint64_t)thread));
	for (i = 0; i < c->ops; i++) {
		b = wl_rng_below(&r, c->blocks);
		trace[i] = (uint32_t)(b << 1) | (wl_rng_double(&r) >= c->read);
	}
}

uint64_t micro_word(int node, int thread, uint64_t block, int run,
		    uint64_t op)
{
	uint64_t who = ((uint64_t)node << 48) | ((uint64_t)thread << 32) |
		       (uint64_t)run;

	return wl_mix64(who ^ wl_mix64(block ^ wl_mix64(op + 1)));
}

void micro_fill(volatile uint64_t *p, uint32_t item, uint64_t w0)
{
	uint32_t i;

	for (i = 0; i < item / 8; i++)
		p[i] = w0 + i * WORD_STEP;
}

int micro_holds(const volatile uint64_t *p, uint32_t item, uint64_t w0)
{
	uint32_t i;

	for (i = 0; i < item / 8; i++)
		if (p[i] != w0 + i * WORD_STEP)
			return 0;
	return 1;
}

int micro_thread_init(struct micro_thread *m, const struct micro_cfg *c,
		      int id)
{
	uint64_t p, w0;

	m->cfg = c;
	m->id = id;
	m->addr = calloc(c->blocks, sizeof(*m->addr));
	m->trace = calloc(c->ops ? c->ops : 1, sizeof(*m->trace));
	m->last = calloc(c->blocks, sizeof(*m->last));
	m->incs = calloc(c->shared ? c->shared : 1, sizeof(*m->incs));
	if (!m->addr || !m->trace || !m->last || !m->incs)
		return -1;
	micro_pool(c, c->me, id, m->addr);
	micro_trace(c, c->me, id, m->trace);
	for (p = 0; p < c->blocks - c->shared; p++) {
		w0 = micro_word(c->me, id, p, 0, 0);
		micro_fill((volatile uint64_t *)m->addr[c->shared + p],
			   c->item, w0);
		m->last[c->shared + p] = w0;
	}
	return 0;
}

void micro_thread_free(struct micro_thread *m)
{
	free(m->addr);
	free(m->trace);
	free(m->last);
	free(m->incs);
}

static void micro_read(struct micro_thread *m, uint64_t b,
		       const volatile uint64_t *p)
{
	uint64_t v = p[0], sum = v;
	uint32_t i;

	for (i = 1; i < m->cfg->item / 8; i++)
		sum += p[i];
	m->sink += sum;
	if (b >= m->cfg->shared) {
		m->bad_reads += v != m->last[b];
		return;
	}
	/* One location: coherence forbids seeing it decrease. */
	if (v < m->last[b])
		m->backwards++;
	else
		m->last[b] = v;
}

static void micro_write(struct micro_thread *m, uint64_t b,
			volatile uint64_t *p, uint64_t op)
{
	const struct micro_cfg *c = m->cfg;
	uint64_t old;

	if (b < c->shared) {
		old = __atomic_fetch_add(p, 1, __ATOMIC_SEQ_CST);
		if (old < m->last[b])
			m->backwards++;
		m->last[b] = old + 1;
		m->incs[b]++;
		return;
	}
	m->last[b] = micro_word(c->me, m->id, b - c->shared, m->run, op);
	micro_fill(p, c->item, m->last[b]);
}

/* Whether operation @i of the run is due. */
static int micro_more(const struct micro_thread *m, uint64_t i, double end)
{
	if (!m->for_secs)
		return i < m->cfg->ops;
	/* A clock read may cost more than an operation: one per 64. */
	return i % MICRO_CLOCK_EVERY || dsm_now() < end;
}

static void *micro_body(void *arg)
{
	struct micro_thread *m = arg;
	uint64_t i, j, b;
	double t0 = dsm_now(), end = t0 + m->for_secs;

	for (i = 0, j = 0; micro_more(m, i, end); i++) {
		b = m->trace[j] >> 1;
		if (m->trace[j] & 1)
			micro_write(m, b, (volatile uint64_t *)m->addr[b], i);
		else
			micro_read(m, b, (volatile uint64_t *)m->addr[b]);
		if (++j == m->cfg->ops)
			j = 0;
	}
	m->done = i;
	m->secs = dsm_now() - t0;
	return NULL;
}

int micro_run(struct micro_thread *m, int threads, int run, double secs)
{
	int i, started, ret = 0;

	for (started = 0; started < threads; started++) {
		m[started].run = run;
		m[started].for_secs = secs > 0 ? secs : 0;
		if (pthread_create(&m[started].th, NULL, micro_body,
				   &m[started])) {
			ret = -1;
			break;
		}
	}
	for (i = 0; i < started; i++)
		pthread_join(m[i].th, NULL);
	return ret;
}
