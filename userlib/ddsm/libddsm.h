/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libddsm: C access to ddsm, one coherent memory over a cluster
 * (/dev/ddsm; the kernel ABI is "linux/ddsm.h", installed beside this
 * header).  The reference is libddsm(3).
 *
 *	#include <ddsm/libddsm.h>		(or <libddsm.h> with
 *						 `pkg-config --cflags libddsm`)
 *	struct ddsm *h = ddsm_open(NULL);	(NULL + errno on failure)
 *	long *p = ddsm_map(h, 0, 4096, PROT_READ | PROT_WRITE);
 *	__atomic_fetch_add(p, 1, __ATOMIC_SEQ_CST);	(global address 0)
 *
 * Conventions.  Functions returning int give 0, or -1 with errno set;
 * those returning a pointer give NULL with errno set.  errno is the
 * module's (or the kernel's), unchanged, except for EINVAL on a NULL
 * argument, checked here.  Argument order: the handle, the global
 * address, the buffer, its length, then outputs.
 *
 * The handle is opaque (struct ddsm), so it can grow without breaking
 * callers.  The structures callers allocate for the queries are the
 * kernel's (linux/ddsm.h); they grow with new ABI versions, so every
 * query takes the caller's sizeof, which the inline wrappers below fill
 * in: a program built against this header keeps working with a later
 * library and module, which fill exactly the bytes it allocated.
 *
 * Threads.  Every call may be made on one handle from several threads at
 * once, except ddsm_close(), which must be the last call on it.  A
 * transaction belongs to the handle, not to the thread: give each thread
 * that runs transactions its own handle (ddsm_open() it).
 *
 * Versions.  Symbols are versioned (LIBDDSM_1: ABI 11's interface, kept
 * for programs built against it; LIBDDSM_2: this one).  The library
 * drives any module of ABI ddsm_abi_min() or later.
 */
#ifndef LIBDDSM_H
#define LIBDDSM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>		/* PROT_READ, PROT_WRITE for ddsm_map() */
#include "linux/ddsm.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DDSM_DEFAULT_PATH	"/dev/" DDSM_DEV_NAME

/* An open node: create with ddsm_open(), free with ddsm_close(). */
struct ddsm;

/* ---- versions ------------------------------------------------------- */

/* The DDSM_ABI_VERSION of the header this library was built with. */
unsigned int ddsm_abi_version(void);
/* The oldest module ABI this library drives (ddsm_open() fails below). */
unsigned int ddsm_abi_min(void);
/* The library's release, e.g. "1.1.0" (tools/packaging/VERSION). */
const char *ddsm_lib_version(void);

/* ---- the handle ------------------------------------------------------ */

/*
 * ddsm_open() - open the device (NULL: /dev/ddsm) and read its geometry
 * Return: the handle, or NULL with errno: the open(2) errors (ENOENT: the
 * module is not loaded; EACCES: not in group ddsm), ENOTTY (not a ddsm
 * device, or a module that does not answer this library's ioctls),
 * EPROTO (a module older than ddsm_abi_min()), ENOMEM.
 */
struct ddsm *ddsm_open(const char *path);
/* Close the descriptor and free @h (NULL: nothing); mappings stay valid. */
int ddsm_close(struct ddsm *h);

/* The device descriptor, for poll(2) or an mmap(2) of one's own. */
int ddsm_fd(const struct ddsm *h);
/* This node's id and the number of nodes, as of the last ddsm_status(). */
uint32_t ddsm_node_id(const struct ddsm *h);
uint32_t ddsm_nr_nodes(const struct ddsm *h);
/* Bytes per coherence unit (DDSM_UNIT_SIZE) and of the global space. */
uint32_t ddsm_unit_size(const struct ddsm *h);
uint64_t ddsm_size(const struct ddsm *h);
/* The module's DDSM_ABI_VERSION, read at open time. */
unsigned int ddsm_module_abi(const struct ddsm *h);

/* ---- memory ---------------------------------------------------------- */

/*
 * ddsm_map() - map [@gaddr, @gaddr + @len) of the global space
 * @gaddr:	a multiple of the unit size
 * @len:	> 0 (rounded up to whole pages)
 * @prot:	PROT_READ and/or PROT_WRITE
 *
 * Always MAP_SHARED; survives ddsm_close().  Return: the address, or NULL
 * with errno: EINVAL (misaligned, zero length), ENXIO (outside the
 * space), EOVERFLOW (wraps), EPERM (PROT_EXEC), EACCES (overlaps a
 * transactional region), ENOMEM.
 */
void *ddsm_map(struct ddsm *h, uint64_t gaddr, size_t len, int prot);
/* Undo ddsm_map() (munmap(2)'s errors). */
int ddsm_unmap(struct ddsm *h, void *addr, size_t len);

/* ---- state ------------------------------------------------------------ */

/* The queries, each filling @size bytes: use the wrappers below. */
int ddsm_query_status(struct ddsm *h, struct ddsm_status *st, size_t size);
int ddsm_query_peer(struct ddsm *h, uint32_t index,
		    struct ddsm_peer_info *pi, size_t size);
int ddsm_query_home(struct ddsm *h, uint64_t gaddr,
		    struct ddsm_home_query *q, size_t size);
int ddsm_query_pmem(struct ddsm *h, struct ddsm_pmem_status *ps,
		    size_t size);
int ddsm_query_tx(struct ddsm *h, struct ddsm_tx_status *ts, size_t size);

/* Node-wide state and counters; refreshes ddsm_node_id()/_nr_nodes(). */
static inline int ddsm_status(struct ddsm *h, struct ddsm_status *st)
{
	return ddsm_query_status(h, st, sizeof(*st));
}

/* Node @index (0 .. nr_nodes - 1): ERANGE past the last. */
static inline int ddsm_peer(struct ddsm *h, uint32_t index,
			    struct ddsm_peer_info *pi)
{
	return ddsm_query_peer(h, index, pi, sizeof(*pi));
}

/* Home node, unit and local cache state of @gaddr: ERANGE outside. */
static inline int ddsm_home(struct ddsm *h, uint64_t gaddr,
			    struct ddsm_home_query *q)
{
	return ddsm_query_home(h, gaddr, q, sizeof(*q));
}

/* This node's persistent home; ps->flags is 0 without pmem=. */
static inline int ddsm_pmem_status(struct ddsm *h, struct ddsm_pmem_status *ps)
{
	return ddsm_query_pmem(h, ps, sizeof(*ps));
}

/* HADES counters, as coordinator and as home. */
static inline int ddsm_tx_status(struct ddsm *h, struct ddsm_tx_status *ts)
{
	return ddsm_query_tx(h, ts, sizeof(*ts));
}

/*
 * ddsm_configure() - join a cluster as node @node_id of @nodes
 * ("ip0,ip1,...", index = node id; "" for one node), like the module
 * parameters node_id= and nodes=.  EPERM without CAP_SYS_ADMIN, EBUSY
 * once anything was mapped or touched here, EINVAL for a bad list,
 * ERANGE for @node_id >= DDSM_MAX_NODES, ENAMETOOLONG for a list longer
 * than struct ddsm_config holds.  Refreshes the cached node id and count.
 */
int ddsm_configure(struct ddsm *h, uint32_t node_id, const char *nodes);

/* ---- persistence (MINOS models, docs/persistency.md) ------------------ */

/*
 * ddsm_persist() - the Scope barrier: returns once what this node wrote
 * in [@gaddr, @gaddr + @len) (unit aligned) is durable at the units'
 * homes.  ENODEV (no pmem here or at a home), EINVAL, ERANGE, EIO,
 * ETIMEDOUT, EHOSTDOWN.
 */
int ddsm_persist(struct ddsm *h, uint64_t gaddr, uint64_t len);

/*
 * ddsm_write_durable() - memcpy(@dst, @src, @len), then return once the
 * bytes are durable at their homes (also if another node took the unit
 * meanwhile).  @dst lies in a window mapped by ddsm_map() on @h (EINVAL
 * otherwise).  In Synchronous and Strict regions a 0 return means the
 * bytes survive any crash.  Errors as ddsm_persist(); a failure leaves
 * the bytes stored but maybe not durable.
 */
int ddsm_write_durable(struct ddsm *h, void *dst, const void *src,
		       size_t len);

/*
 * ddsm_region_set_model() - the persistency model (enum ddsm_model) of
 * [@gaddr, @gaddr + @len) on this node; set the same regions on every
 * node, before the range is touched; needs CAP_SYS_ADMIN (EPERM), so the
 * service declares a cluster's regions from cluster.conf.
 * ddsm_region_model() reads it, as any user may.
 */
int ddsm_region_set_model(struct ddsm *h, uint64_t gaddr, uint64_t len,
			  uint32_t model);
int ddsm_region_model(struct ddsm *h, uint64_t gaddr, uint32_t *model);

/* ---- HADES transactions (docs/transactions.md) ------------------------ */

/*
 * Transactions run on transactional regions only: declare each with
 * ddsm_tx_region() on every node before any of it is mapped (it needs
 * CAP_SYS_ADMIN, EPERM: the service declares them from cluster.conf).  One
 * transaction at a time per handle.  A call that finds its transaction
 * aborted fails with ECANCELED and, if @reason is not NULL, stores why
 * (enum ddsm_tx_reason); the handle then has no transaction.
 */
int ddsm_tx_region(struct ddsm *h, uint64_t gaddr, uint64_t len);
/* EBUSY: one is running; EAGAIN: every transaction slot of the node busy. */
int ddsm_tx_begin(struct ddsm *h);
int ddsm_tx_read(struct ddsm *h, uint64_t gaddr, void *buf, size_t len,
		 uint32_t *reason);
/* @nr (1..16) reads; those homed elsewhere asked at once: one round trip. */
int ddsm_tx_readv(struct ddsm *h, const struct ddsm_tx_iov *iov,
		  unsigned int nr, uint32_t *reason);
int ddsm_tx_write(struct ddsm *h, uint64_t gaddr, const void *buf,
		  size_t len, uint32_t *reason);
/* 0: committed; -1 with ECANCELED and *@reason: aborted. */
int ddsm_tx_commit(struct ddsm *h, uint32_t *reason);
int ddsm_tx_abort(struct ddsm *h);

/*
 * ddsm_tx_run() - begin, run @body, commit; again on an abort
 *
 * @body issues the reads and writes and returns 0 to ask for the commit,
 * or -1 with errno: ECANCELED (aborted: tried again), anything else
 * (given up: the transaction is aborted and that errno returned).  A
 * begin that finds every slot busy (EAGAIN) is tried again too.  At most
 * @max_tries attempts, with a random back-off growing to about 1 ms,
 * seeded per thread.  Return: 0 committed; -1 with errno ECANCELED (every
 * attempt aborted; *@reason the last cause) or EAGAIN (no slot came free).
 */
int ddsm_tx_run(struct ddsm *h, int (*body)(struct ddsm *h, void *arg),
		void *arg, unsigned int max_tries, uint32_t *reason);

/* ---- names and numbers ------------------------------------------------ */

/* "squashed", "nacked", ... ("?" past the last). */
const char *ddsm_tx_reason_name(uint32_t reason);
/* "sync", "strict", "read_enf", "eventual", "scope" ("unknown"). */
const char *ddsm_model_name(uint32_t model);
/* The reverse; -1 with EINVAL for another word. */
int ddsm_model_parse(const char *name, uint32_t *model);
/* "self", "down", "connecting", "up", "dead" ("unknown"). */
const char *ddsm_peer_state_name(uint32_t state);
/* "I", "S", "M", "busy" ("unknown"). */
const char *ddsm_unit_state_name(uint32_t state);
/* Decimal or 0x hex, optional K/M/G (binary) suffix; -1 EINVAL else. */
int ddsm_parse_size(const char *s, uint64_t *out);

#ifdef __cplusplus
}
#endif

#endif /* LIBDDSM_H */
