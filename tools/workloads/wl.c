// SPDX-License-Identifier: GPL-2.0
/*
 * Global space access for the workloads (wl.h): libddsm, or a shared
 * file standing in for it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
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

void wl_print_counters(const struct ddsm_status *a,
		       const struct ddsm_status *b, uint64_t ops)
{
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

uint64_t wl_nonce(void)
{
	struct timespec ts;
	uint64_t t;

	clock_gettime(CLOCK_REALTIME, &ts);
	t = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	return wl_mix64(t ^ ((uint64_t)getpid() << 40)) | 1;
}
