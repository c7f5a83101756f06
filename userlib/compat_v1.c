// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ABI 11's interface (symbol version LIBDDSM_1), kept so that programs
 * built against it run unchanged with this library.  They allocate a
 * struct ddsm of their own (struct v1 below: the descriptor and a cache
 * of the geometry) and the query structures at ABI 11's sizes, so these
 * functions read and write exactly those bytes whatever this build's
 * header says.  Changes from ABI 11's library, none of which a correct
 * caller can see: a module of a later ABI is accepted (it was EPROTO),
 * and a NULL handle is EINVAL everywhere (the ddsm_tx_* calls crashed).
 *
 * Each function is built as ddsm_v1_NAME and exported as NAME@LIBDDSM_1,
 * the version a program linked without symbol versions binds to; new
 * programs link NAME@@LIBDDSM_2 (libddsm.c).  The in-tree tests and
 * workloads written against ABI 11 call ddsm_v1_NAME directly through
 * userlib/libddsm.h when they link the static archive.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

/* ABI 11's struct ddsm, allocated by its callers. */
struct v1 {
	int fd;
	uint32_t node_id;
	uint32_t nr_nodes;
	uint32_t unit_size;
	uint64_t size;
};

/* The sizes of ABI 11's structures: what its callers allocated. */
#define V1_STATUS	232
#define V1_PEER		176
#define V1_HOME		32
#define V1_PMEM		272
#define V1_TX		232

_Static_assert(sizeof(struct v1) == 24, "ABI 11's struct ddsm");
_Static_assert(sizeof(struct ddsm_status) >= V1_STATUS &&
	       sizeof(struct ddsm_peer_info) >= V1_PEER &&
	       sizeof(struct ddsm_home_query) >= V1_HOME &&
	       sizeof(struct ddsm_pmem_status) >= V1_PMEM &&
	       sizeof(struct ddsm_tx_status) >= V1_TX,
	       "the uapi structures only grow");

/* Export ddsm_v1_NAME as NAME@LIBDDSM_1 (the script hides ddsm_v1_NAME). */
#define V1(name) \
	__asm__(".symver ddsm_v1_" #name ", ddsm_" #name "@LIBDDSM_1")

static void cache(struct v1 *d, const struct ddsm_status *st)
{
	d->node_id = st->node_id;
	d->nr_nodes = st->nr_nodes;
	d->unit_size = st->unit_size;
	d->size = st->size;
}

V1(open);
int ddsm_v1_open(struct v1 *d, const char *path)
{
	struct ddsm_status st;

	if (!d)
		return lddsm_einval();
	memset(d, 0, sizeof(*d));
	d->fd = lddsm_open_fd(path, &st);
	if (d->fd < 0)
		return -1;
	cache(d, &st);
	return 0;
}

V1(map);
void *ddsm_v1_map(struct v1 *d, uint64_t gaddr, size_t len, int prot)
{
	void *p;

	if (!d) {
		errno = EINVAL;
		return NULL;
	}
	p = mmap(NULL, len, prot, MAP_SHARED, d->fd, (off_t)gaddr);
	return p == MAP_FAILED ? NULL : p;
}

V1(unmap);
int ddsm_v1_unmap(struct v1 *d, void *addr, size_t len)
{
	(void)d;	/* ABI 11 accepted a closed handle here */
	return munmap(addr, len);
}

V1(close);
int ddsm_v1_close(struct v1 *d)
{
	int fd;

	if (!d)
		return lddsm_einval();
	fd = d->fd;
	if (fd < 0)
		return 0;
	d->fd = -1;
	return close(fd);
}

V1(status);
int ddsm_v1_status(struct v1 *d, struct ddsm_status *st)
{
	if (!d || !st)
		return lddsm_einval();
	if (lddsm_query(d->fd, DDSM_IOC_STATUS, NULL, 0, st, V1_STATUS))
		return -1;
	cache(d, st);
	return 0;
}

V1(peer);
int ddsm_v1_peer(struct v1 *d, uint32_t index,
		 struct ddsm_peer_info *pi)
{
	struct ddsm_peer_info in = { .index = index };

	if (!d || !pi)
		return lddsm_einval();
	return lddsm_query(d->fd, DDSM_IOC_PEER, &in, sizeof(in), pi, V1_PEER);
}

V1(home);
int ddsm_v1_home(struct v1 *d, uint64_t gaddr,
		 struct ddsm_home_query *q)
{
	struct ddsm_home_query in = { .gaddr = gaddr };

	if (!d || !q)
		return lddsm_einval();
	return lddsm_query(d->fd, DDSM_IOC_HOME, &in, sizeof(in), q, V1_HOME);
}

V1(pmem_status);
int ddsm_v1_pmem_status(struct v1 *d,
			struct ddsm_pmem_status *ps)
{
	if (!d || !ps)
		return lddsm_einval();
	return lddsm_query(d->fd, DDSM_IOC_PMEM_STATUS, NULL, 0, ps, V1_PMEM);
}

V1(persist);
int ddsm_v1_persist(struct v1 *d, uint64_t gaddr, uint64_t len)
{
	return d ? lddsm_persist(d->fd, gaddr, len, 0) : lddsm_einval();
}

V1(write_durable);
int ddsm_v1_write_durable(struct v1 *d, void *dst,
			  uint64_t gaddr, const void *src,
			  size_t len)
{
	if (!d || !dst || !src || !len || gaddr + len < gaddr)
		return lddsm_einval();
	memcpy(dst, src, len);
	return lddsm_durable(d->fd, gaddr, len);
}

V1(region_set_model);
int ddsm_v1_region_set_model(struct v1 *d,
			     uint64_t gaddr, uint64_t len,
			     uint32_t model)
{
	return d ? lddsm_region_set(d->fd, gaddr, len, model) : lddsm_einval();
}

V1(region_model);
int ddsm_v1_region_model(struct v1 *d, uint64_t gaddr,
			 uint32_t *model)
{
	return d ? lddsm_region_get(d->fd, gaddr, model) : lddsm_einval();
}

V1(configure);
int ddsm_v1_configure(struct v1 *d, uint32_t node_id,
		      const char *nodes)
{
	struct ddsm_status st;

	if (!d)
		return lddsm_einval();
	if (lddsm_configure(d->fd, node_id, nodes))
		return -1;
	if (!lddsm_query(d->fd, DDSM_IOC_STATUS, NULL, 0, &st, sizeof(st)))
		cache(d, &st);
	return 0;
}

V1(tx_region);
int ddsm_v1_tx_region(struct v1 *d, uint64_t gaddr,
		      uint64_t len)
{
	return d ? lddsm_tx_region(d->fd, gaddr, len) : lddsm_einval();
}

V1(tx_begin);
int ddsm_v1_tx_begin(struct v1 *d)
{
	return d ? lddsm_tx_call(d->fd, DDSM_IOC_TX_BEGIN, 0, NULL, 0, NULL) :
		   lddsm_einval();
}

/* ABI 11's order: length before buffer (LIBDDSM_2 has buffer, length). */
V1(tx_read);
int ddsm_v1_tx_read(struct v1 *d, uint64_t gaddr, size_t len,
		    void *buf, uint32_t *reason)
{
	return d ? lddsm_tx_call(d->fd, DDSM_IOC_TX_READ, gaddr, buf, len,
				 reason) : lddsm_einval();
}

V1(tx_readv);
int ddsm_v1_tx_readv(struct v1 *d, const struct ddsm_tx_iov *iov,
		     unsigned int nr, uint32_t *reason)
{
	return d ? lddsm_tx_readv(d->fd, iov, nr, reason) : lddsm_einval();
}

V1(tx_write);
int ddsm_v1_tx_write(struct v1 *d, uint64_t gaddr,
		     const void *buf, size_t len,
		     uint32_t *reason)
{
	return d ? lddsm_tx_call(d->fd, DDSM_IOC_TX_WRITE, gaddr, buf, len,
				 reason) : lddsm_einval();
}

V1(tx_commit);
int ddsm_v1_tx_commit(struct v1 *d, uint32_t *reason)
{
	return d ? lddsm_tx_commit(d->fd, reason) : lddsm_einval();
}

V1(tx_abort);
int ddsm_v1_tx_abort(struct v1 *d)
{
	return d ? lddsm_tx_call(d->fd, DDSM_IOC_TX_ABORT, 0, NULL, 0, NULL) :
		   lddsm_einval();
}

V1(tx_status);
int ddsm_v1_tx_status(struct v1 *d, struct ddsm_tx_status *st)
{
	if (!d || !st)
		return lddsm_einval();
	return lddsm_query(d->fd, DDSM_IOC_TX_STATUS, NULL, 0, st, V1_TX);
}

struct run_ctx {
	struct v1 *d;
	int (*body)(struct v1 *d, void *arg);
	void *arg;
};

static int run_body(void *ctx)
{
	struct run_ctx *c = ctx;

	return c->body(c->d, c->arg);
}

V1(tx_run);
int ddsm_v1_tx_run(struct v1 *d,
		   int (*body)(struct v1 *d, void *arg), void *arg,
		   unsigned int max_tries, uint32_t *reason)
{
	struct run_ctx c = { .d = d, .body = body, .arg = arg };

	if (!d || !body)
		return lddsm_einval();
	return lddsm_tx_run(d->fd, run_body, &c, max_tries, reason);
}
