// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libddsm's current interface (symbol version LIBDDSM_2): the opaque
 * handle, its getters, mappings and the calls that take a handle.  Each
 * checks its arguments for NULL (EINVAL) and hands the rest to the
 * descriptor-level helpers of fdops.c and tx.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ddsm/libddsm.h"
#include "internal.h"

#ifndef LIBDDSM_VERSION
#define LIBDDSM_VERSION	"unknown"
#endif

unsigned int ddsm_abi_version(void)
{
	return DDSM_ABI_VERSION;
}

unsigned int ddsm_abi_min(void)
{
	return LDDSM_MIN_ABI;
}

const char *ddsm_lib_version(void)
{
	return LIBDDSM_VERSION;
}

static void set_who(struct ddsm *h, const struct ddsm_status *st)
{
	__atomic_store_n(&h->who, (uint64_t)st->node_id << 32 | st->nr_nodes,
			 __ATOMIC_RELAXED);
}

static uint64_t get_who(const struct ddsm *h)
{
	return __atomic_load_n(&h->who, __ATOMIC_RELAXED);
}

struct ddsm *ddsm_open(const char *path)
{
	struct ddsm_status st;
	struct ddsm *h = calloc(1, sizeof(*h));
	int err;

	if (!h)
		return NULL;
	h->fd = lddsm_open_fd(path, &st);
	if (h->fd < 0) {
		err = errno;
		free(h);
		errno = err;
		return NULL;
	}
	h->unit_size = st.unit_size;
	h->size = st.size;
	h->module_abi = st.abi_version;
	set_who(h, &st);
	pthread_mutex_init(&h->lock, NULL);
	return h;
}

int ddsm_close(struct ddsm *h)
{
	struct lddsm_window *w;
	int ret;

	if (!h)
		return 0;
	while ((w = h->windows)) {
		h->windows = w->next;
		free(w);
	}
	pthread_mutex_destroy(&h->lock);
	/* Linux releases the descriptor even when close() reports an error. */
	ret = close(h->fd);
	free(h);
	return ret;
}

int ddsm_fd(const struct ddsm *h)
{
	return h ? h->fd : lddsm_einval();
}

uint32_t ddsm_node_id(const struct ddsm *h)
{
	return h ? (uint32_t)(get_who(h) >> 32) : 0;
}

uint32_t ddsm_nr_nodes(const struct ddsm *h)
{
	return h ? (uint32_t)get_who(h) : 0;
}

uint32_t ddsm_unit_size(const struct ddsm *h)
{
	return h ? h->unit_size : 0;
}

uint64_t ddsm_size(const struct ddsm *h)
{
	return h ? h->size : 0;
}

unsigned int ddsm_module_abi(const struct ddsm *h)
{
	return h ? h->module_abi : 0;
}

void *ddsm_map(struct ddsm *h, uint64_t gaddr, size_t len, int prot)
{
	struct lddsm_window *w;
	void *p;

	if (!h) {
		errno = EINVAL;
		return NULL;
	}
	w = malloc(sizeof(*w));
	if (!w)
		return NULL;
	/*
	 * No range checks here: the module is the authority, and checking
	 * twice would hide its errno behind ours.  off_t is signed, but the
	 * kernel reads the offset as unsigned, so the cast loses nothing.
	 */
	p = mmap(NULL, len, prot, MAP_SHARED, h->fd, (off_t)gaddr);
	if (p == MAP_FAILED) {
		free(w);
		return NULL;
	}
	w->addr = (uintptr_t)p;
	w->len = len;
	w->gaddr = gaddr;
	pthread_mutex_lock(&h->lock);
	w->next = h->windows;
	h->windows = w;
	pthread_mutex_unlock(&h->lock);
	return p;
}

int ddsm_unmap(struct ddsm *h, void *addr, size_t len)
{
	uintptr_t a = (uintptr_t)addr;
	struct lddsm_window **pw, *w;

	if (!h)
		return lddsm_einval();
	if (munmap(addr, len))
		return -1;
	/*
	 * Forget every window the range touched: a durable write into what
	 * is left of one fails with EINVAL rather than guess its address.
	 */
	pthread_mutex_lock(&h->lock);
	for (pw = &h->windows; (w = *pw);) {
		if (w->addr < a + len && a < w->addr + w->len) {
			*pw = w->next;
			free(w);
		} else {
			pw = &w->next;
		}
	}
	pthread_mutex_unlock(&h->lock);
	return 0;
}

int ddsm_query_status(struct ddsm *h, struct ddsm_status *st, size_t size)
{
	struct ddsm_status full;

	if (!h || !st)
		return lddsm_einval();
	if (lddsm_query(h->fd, DDSM_IOC_STATUS, NULL, 0, &full, sizeof(full)))
		return -1;
	set_who(h, &full);
	if (size > sizeof(full)) {
		memset((char *)st + sizeof(full), 0, size - sizeof(full));
		size = sizeof(full);
	}
	memcpy(st, &full, size);
	return 0;
}

int ddsm_query_peer(struct ddsm *h, uint32_t index, struct ddsm_peer_info *pi,
		    size_t size)
{
	struct ddsm_peer_info in = { .index = index };

	if (!h || !pi)
		return lddsm_einval();
	return lddsm_query(h->fd, DDSM_IOC_PEER, &in, sizeof(in), pi, size);
}

int ddsm_query_home(struct ddsm *h, uint64_t gaddr, struct ddsm_home_query *q,
		    size_t size)
{
	struct ddsm_home_query in = { .gaddr = gaddr };

	if (!h || !q)
		return lddsm_einval();
	return lddsm_query(h->fd, DDSM_IOC_HOME, &in, sizeof(in), q, size);
}

int ddsm_query_pmem(struct ddsm *h, struct ddsm_pmem_status *ps, size_t size)
{
	if (!h || !ps)
		return lddsm_einval();
	return lddsm_query(h->fd, DDSM_IOC_PMEM_STATUS, NULL, 0, ps, size);
}

int ddsm_query_tx(struct ddsm *h, struct ddsm_tx_status *ts, size_t size)
{
	if (!h || !ts)
		return lddsm_einval();
	return lddsm_query(h->fd, DDSM_IOC_TX_STATUS, NULL, 0, ts, size);
}

int ddsm_configure(struct ddsm *h, uint32_t node_id, const char *nodes)
{
	struct ddsm_status st;

	if (!h)
		return lddsm_einval();
	if (lddsm_configure(h->fd, node_id, nodes))
		return -1;
	/* Keep the cached node id and count in step with the module. */
	if (!lddsm_query(h->fd, DDSM_IOC_STATUS, NULL, 0, &st, sizeof(st)))
		set_who(h, &st);
	return 0;
}

int ddsm_persist(struct ddsm *h, uint64_t gaddr, uint64_t len)
{
	return h ? lddsm_persist(h->fd, gaddr, len, 0) : lddsm_einval();
}

/* The global address of [@p, @p + @len) if one window holds it all. */
static int window_gaddr(struct ddsm *h, const void *p, size_t len,
			uint64_t *gaddr)
{
	uintptr_t a = (uintptr_t)p;
	struct lddsm_window *w;
	int ret = -1;

	pthread_mutex_lock(&h->lock);
	for (w = h->windows; w; w = w->next) {
		if (a >= w->addr && len <= w->len && a - w->addr <= w->len - len) {
			*gaddr = w->gaddr + (a - w->addr);
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&h->lock);
	return ret;
}

int ddsm_write_durable(struct ddsm *h, void *dst, const void *src, size_t len)
{
	uint64_t gaddr;

	if (!h || !dst || !src || !len || window_gaddr(h, dst, len, &gaddr))
		return lddsm_einval();
	memcpy(dst, src, len);
	return lddsm_durable(h->fd, gaddr, len);
}

int ddsm_region_set_model(struct ddsm *h, uint64_t gaddr, uint64_t len,
			  uint32_t model)
{
	return h ? lddsm_region_set(h->fd, gaddr, len, model) : lddsm_einval();
}

int ddsm_region_model(struct ddsm *h, uint64_t gaddr, uint32_t *model)
{
	return h ? lddsm_region_get(h->fd, gaddr, model) : lddsm_einval();
}

int ddsm_tx_region(struct ddsm *h, uint64_t gaddr, uint64_t len)
{
	return h ? lddsm_tx_region(h->fd, gaddr, len) : lddsm_einval();
}

int ddsm_tx_begin(struct ddsm *h)
{
	return h ? lddsm_tx_call(h->fd, DDSM_IOC_TX_BEGIN, 0, NULL, 0, NULL) :
		   lddsm_einval();
}

int ddsm_tx_read(struct ddsm *h, uint64_t gaddr, void *buf, size_t len,
		 uint32_t *reason)
{
	return h ? lddsm_tx_call(h->fd, DDSM_IOC_TX_READ, gaddr, buf, len,
				 reason) : lddsm_einval();
}

int ddsm_tx_readv(struct ddsm *h, const struct ddsm_tx_iov *iov,
		  unsigned int nr, uint32_t *reason)
{
	return h ? lddsm_tx_readv(h->fd, iov, nr, reason) : lddsm_einval();
}

int ddsm_tx_write(struct ddsm *h, uint64_t gaddr, const void *buf, size_t len,
		  uint32_t *reason)
{
	return h ? lddsm_tx_call(h->fd, DDSM_IOC_TX_WRITE, gaddr, buf, len,
				 reason) : lddsm_einval();
}

int ddsm_tx_commit(struct ddsm *h, uint32_t *reason)
{
	return h ? lddsm_tx_commit(h->fd, reason) : lddsm_einval();
}

int ddsm_tx_abort(struct ddsm *h)
{
	return h ? lddsm_tx_call(h->fd, DDSM_IOC_TX_ABORT, 0, NULL, 0, NULL) :
		   lddsm_einval();
}

struct run_ctx {
	struct ddsm *h;
	int (*body)(struct ddsm *h, void *arg);
	void *arg;
};

static int run_body(void *ctx)
{
	struct run_ctx *c = ctx;

	return c->body(c->h, c->arg);
}

int ddsm_tx_run(struct ddsm *h, int (*body)(struct ddsm *h, void *arg),
		void *arg, unsigned int max_tries, uint32_t *reason)
{
	struct run_ctx c = { .h = h, .body = body, .arg = arg };

	if (!h || !body)
		return lddsm_einval();
	return lddsm_tx_run(h->fd, run_body, &c, max_tries, reason);
}
