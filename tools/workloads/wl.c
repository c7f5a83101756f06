// SPDX-License-Identifier: GPL-2.0
/*
 * Global space access for the workloads (wl.h): libddsm, or a shared
 * file standing in for it; then the phases' scaffolding both programs
 * lay out in it (barrier, configuration, results).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "test_common.h"
#include "wl.h"
#include "zipf.h"

/* "PATH:NODE:NODES" */
static int wl_open_emu(struct wl_dsm *w, const char *spec)
{
	char path[4096];
	unsigned int me, n;
	const char *c;

	c = strrchr(spec, ':');
	if (c)
		c = memrchr(spec, ':', (size_t)(c - spec));
	if (!c || (size_t)(c - spec) >= sizeof(path) ||
	    sscanf(c, ":%u:%u", &me, &n) != 2 || !n ||
	    n > DDSM_MAX_NODES || me >= n) {
		fprintf(stderr, "--emulate wants PATH:NODE:NODES, got %s\n",
			spec);
		return -1;
	}
	memcpy(path, spec, (size_t)(c - spec));
	path[c - spec] = 0;
	w->emu_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (w->emu_fd < 0) {
		perror(path);
		return -1;
	}
	w->me = (int)me;
	w->n = (int)n;
	w->size = WL_EMU_SIZE;
	return 0;
}

int wl_open(struct wl_dsm *w, const char *emu)
{
	memset(w, 0, sizeof(*w));
	w->d.fd = -1;
	w->emu_fd = -1;
	if (emu)
		return wl_open_emu(w, emu);
	if (ddsm_open(&w->d, NULL)) {
		perror("ddsm_open");
		return -1;
	}
	w->me = (int)w->d.node_id;
	w->n = (int)w->d.nr_nodes;
	w->size = w->d.size;
	return 0;
}

/* Grow the file to cover @end; several processes may race, all growing. */
static int wl_emu_cover(int fd, uint64_t end)
{
	struct stat st;

	if (fstat(fd, &st))
		return -1;
	if ((uint64_t)st.st_size >= end)
		return 0;
	return ftruncate(fd, (off_t)end);
}

void *wl_map(struct wl_dsm *w, uint64_t gaddr, size_t len)
{
	void *p;

	if (gaddr % DDSM_UNIT_SIZE || gaddr > w->size ||
	    len > w->size - gaddr) {
		fprintf(stderr,
			"window [0x%llx, +0x%zx) is not unit aligned or not inside the %llu-byte global space (module parameter size=)\n",
			(unsigned long long)gaddr, len,
			(unsigned long long)w->size);
		return NULL;
	}
	if (w->emu_fd < 0) {
		p = ddsm_map(&w->d, gaddr, len, PROT_READ | PROT_WRITE);
		if (!p)
			perror("ddsm_map");
		return p;
	}
	if (wl_emu_cover(w->emu_fd, gaddr + len)) {
		perror("emulation file");
		return NULL;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, w->emu_fd,
		 (off_t)gaddr);
	if (p == MAP_FAILED) {
		perror("mmap emulation file");
		return NULL;
	}
	return p;
}

int wl_status(struct wl_dsm *w, struct ddsm_status *st)
{
	memset(st, 0, sizeof(*st));
	if (w->emu_fd >= 0)
		return 0;
	return ddsm_status(&w->d, st);
}

int wl_home(struct wl_dsm *w, uint64_t gaddr)
{
	struct ddsm_home_query q;

	if (w->emu_fd >= 0)
		return (int)((gaddr / DDSM_UNIT_SIZE) % (uint64_t)w->n);
	if (ddsm_home(&w->d, gaddr, &q))
		return -1;
	return (int)q.home;
}

static double per_op(uint64_t a, uint64_t b, uint64_t ops)
{
	return ops ? (double)(b - a) / (double)ops : 0;
}

void wl_span_start(struct wl_dsm *w, struct wl_span *sp)
{
	wl_status(w, &sp->st0);
	sp->t0 = dsm_now();
}

void wl_span_end(struct wl_dsm *w, struct wl_span *sp)
{
	sp->secs = dsm_now() - sp->t0;
	wl_status(w, &sp->st1);
}

void wl_print_counters(const struct wl_span *sp, uint64_t ops)
{
	const struct ddsm_status *a = &sp->st0, *b = &sp->st1;

	printf(" faults_read_per_op=%.3f faults_write_per_op=%.3f upgrades_per_op=%.3f msgs_per_op=%.3f evictions_per_op=%.3f",
	       per_op(a->faults_read, b->faults_read, ops),
	       per_op(a->faults_write, b->faults_write, ops),
	       per_op(a->upgrades, b->upgrades, ops),
	       per_op(a->msgs_sent, b->msgs_sent, ops),
	       per_op(a->evictions, b->evictions, ops));
}

double wl_parse_ratio(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < 0)
		return -1;
	if (strchr(s, '.') && v <= 1)
		v *= 100;
	return v <= 100 ? v / 100 : -1;
}

/* getopt_long() codes of the common long options: clear of any letter. */
enum { WL_OPT_SEED = 0x100, WL_OPT_TIMEOUT, WL_OPT_EMULATE };

static const struct option wl_longs[] = {
	{ "seed", required_argument, NULL, WL_OPT_SEED },
	{ "timeout", required_argument, NULL, WL_OPT_TIMEOUT },
	{ "emulate", required_argument, NULL, WL_OPT_EMULATE },
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define WL_SHORTS	"b:t:s:o:"

static double wl_parse_secs(const char *s, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0)) {
		fprintf(stderr, "bad %s (seconds, more than 0): %s\n", what, s);
		exit(2);
	}
	return v;
}

static bool wl_common_opt(int opt, const char *arg, struct wl_opts *o)
{
	switch (opt) {
	case 'b':
		if (ddsm_parse_size(arg, &o->base)) {
			fprintf(stderr, "bad base: %s\n", arg);
			exit(2);
		}
		break;
	case 't':
		o->threads = (int)parse_ul(arg, "threads");
		break;
	case 's':
		o->secs = wl_parse_secs(arg, "run time");
		break;
	case 'o':
		o->ops = parse_ul(arg, "operations");
		break;
	case WL_OPT_SEED:
		o->seed = parse_ul(arg, "seed");
		break;
	case WL_OPT_TIMEOUT:
		o->timeout = wl_parse_secs(arg, "timeout");
		break;
	case WL_OPT_EMULATE:
		o->emu = arg;
		break;
	default:
		return false;
	}
	return true;
}

int wl_getopt(int argc, char **argv, const char *shorts,
	      const struct option *longs, struct wl_opts *o)
{
	/* Built on the first call: a program has one set of options. */
	static struct option lo[32];
	static char sh[64];
	size_t n = 0, i;
	int opt;

	if (!lo[0].name) {
		while (longs && longs[n].name)
			n++;
		if (n + ARRAY_SIZE(wl_longs) >= ARRAY_SIZE(lo) ||
		    strlen(shorts) + sizeof(WL_SHORTS) > sizeof(sh)) {
			fprintf(stderr, "%s: too many options\n", __func__);
			exit(2);
		}
		if (n)
			memcpy(lo, longs, n * sizeof(*lo));
		for (i = 0; i < ARRAY_SIZE(wl_longs); i++)
			lo[n + i] = wl_longs[i];
		snprintf(sh, sizeof(sh), "%s%s", shorts, WL_SHORTS);
	}
	while ((opt = getopt_long(argc, argv, sh, lo, NULL)) != -1)
		if (!wl_common_opt(opt, optarg, o))
			return opt;
	return -1;
}

bool wl_opts_ok(const struct wl_opts *o)
{
	return !(o->base % DSM_UNIT) && o->threads >= 1 &&
	       o->threads <= 256 && o->timeout > 0;
}

uint64_t wl_nonce(void)
{
	struct timespec ts;
	uint64_t t;

	clock_gettime(CLOCK_REALTIME, &ts);
	t = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	return wl_mix64(t ^ ((uint64_t)getpid() << 40)) | 1;
}

/* ---- the window's barrier, configuration and results ---- */

void wl_win_map(struct wl_win *ww, struct wl_dsm *w, uint64_t gaddr,
		uint64_t units, double timeout)
{
	ww->me = w->me;
	ww->n = w->n;
	ww->p = wl_map(w, gaddr, units * DSM_UNIT);
	if (!ww->p)
		exit(1);
	/* This file's copies: the SIGBUS line and bails name the node. */
	tap_node = w->me;
	sigbus_base = ww->p;
	sigbus_gaddr = gaddr;
	sigbus_install();
	if (dsm_sync_init(&ww->s, ww->p, gaddr / DSM_UNIT, ww->me, ww->n,
			  timeout))
		tap_bail("barrier setup timed out");
}

volatile uint64_t *wl_unit(const struct wl_win *ww, uint64_t unit)
{
	return (volatile uint64_t *)(ww->p + unit * DSM_UNIT);
}

void wl_barrier(struct wl_win *ww, const char *after)
{
	if (ww->p && dsm_barrier(&ww->s))
		tap_bail("barrier after %s timed out (%.0f s)", after,
			 ww->s.timeout);
}

void wl_conf_publish(struct wl_win *ww, const uint64_t *c, int words)
{
	volatile uint64_t *dst;
	int i;

	ww->nonce = wl_nonce();
	if (!ww->p)
		return;
	dst = wl_unit(ww, WL_CONF_UNIT(ww->n));
	for (i = 1; i < words; i++)
		dst[i] = c[i];
	__atomic_store_n(&dst[0], ww->nonce, __ATOMIC_RELEASE);
}

bool wl_conf_check(struct wl_win *ww, const uint64_t *c, int words)
{
	volatile uint64_t *src = wl_unit(ww, WL_CONF_UNIT(ww->n));
	bool same = true;
	int i;

	ww->nonce = __atomic_load_n(&src[0], __ATOMIC_ACQUIRE);
	for (i = 1; i < words; i++)
		same &= src[i] == c[i];
	if (same)
		tap(1, "runs node 0's configuration (run %#" PRIx64 ")",
		    ww->nonce);
	return same;
}

volatile uint64_t *wl_region(const struct wl_win *ww, int node)
{
	return wl_unit(ww, ww->results + (uint64_t)node * ww->result_units);
}

volatile uint64_t *wl_tallies(const struct wl_win *ww, int node)
{
	return wl_region(ww, node) + DSM_WORDS_PER_UNIT;
}

void wl_publish(struct wl_win *ww, uint64_t ops, double secs)
{
	volatile uint64_t *r = wl_region(ww, ww->me);

	r[WL_R_OPS] = ops;
	r[WL_R_SECS_US] = (uint64_t)(secs * 1e6);
	__atomic_store_n(&r[WL_R_NONCE], ww->nonce, __ATOMIC_RELEASE);
}

bool wl_published(const struct wl_win *ww, int node)
{
	return __atomic_load_n(&wl_region(ww, node)[WL_R_NONCE],
			       __ATOMIC_ACQUIRE) == ww->nonce;
}

void wl_totals(const struct wl_win *ww, uint64_t *ops, double *rate)
{
	volatile uint64_t *r;
	uint64_t longest = 0;
	int j;

	/*
	 * Nodes start together (a barrier) but may end apart: their work
	 * took at least the longest node's time, whereas summing each
	 * node's own rate would count non-overlapping runs as concurrent.
	 */
	*ops = 0;
	for (j = 0; j < ww->n; j++) {
		if (!wl_published(ww, j))
			continue;
		r = wl_region(ww, j);
		*ops += r[WL_R_OPS];
		if (r[WL_R_SECS_US] > longest)
			longest = r[WL_R_SECS_US];
	}
	*rate = longest ? (double)*ops / (longest / 1e6) : 0;
}
