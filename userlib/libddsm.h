/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libddsm: a thin C wrapper around /dev/ddsm (see <linux/ddsm.h>).
 *
 * The library adds no policy: every call is one system call on the device,
 * so errno is whatever the module (or the kernel in front of it) returned.
 * Conventions: functions returning int give 0 on success and -1 with errno
 * set on failure; ddsm_map() gives NULL (not MAP_FAILED) with errno set.
 * A struct ddsm is not locked: share one between threads only if the
 * caller serialises ddsm_open()/ddsm_close() against the other calls.
 */
#ifndef LIBDDSM_H
#define LIBDDSM_H

#include <stddef.h>
#include <stdint.h>
#include <linux/ddsm.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DDSM_DEFAULT_PATH	"/dev/" DDSM_DEV_NAME

/**
 * struct ddsm - an open handle on /dev/ddsm
 * @fd:		the device file descriptor, -1 when closed
 * @node_id:	this node's id, read at open time
 * @nr_nodes:	nodes in the cluster, read at open time
 * @unit_size:	coherence unit in bytes, read at open time
 * @size:	bytes of global space, read at open time
 *
 * The geometry fields are a cache of DDSM_IOC_STATUS taken by ddsm_open()
 * (and refreshed by every ddsm_status()) so that callers can lay out their
 * windows without an ioctl per decision.  They never change while the
 * module stays loaded.
 */
struct ddsm {
	int fd;
	uint32_t node_id;
	uint32_t nr_nodes;
	uint32_t unit_size;
	uint64_t size;
};

/**
 * ddsm_open() - open the device and read its geometry
 * @d:		handle to fill in
 * @path:	device node, NULL for /dev/ddsm
 *
 * Opens read-write with O_CLOEXEC, then issues DDSM_IOC_STATUS.
 * Return: 0, or -1 with errno: the open(2) errors (ENOENT when the module is
 * not loaded, EACCES without permission), ENOTTY if @path is not a ddsm
 * device, EPROTO if the module speaks another DDSM_ABI_VERSION, EINVAL if
 * @d is NULL.  On failure @d->fd is -1 and nothing stays open.
 */
int ddsm_open(struct ddsm *d, const char *path);

/**
 * ddsm_map() - map a window of the global space
 * @d:		open handle
 * @gaddr:	global address of the window, a multiple of the unit size
 * @len:	bytes, > 0 (the kernel rounds it up to whole pages)
 * @prot:	PROT_READ and/or PROT_WRITE (PROT_EXEC is refused)
 *
 * Always MAP_SHARED: stores are visible to every other mapping of the same
 * global addresses.  The mapping survives ddsm_close().
 * Return: the address, or NULL with errno: EINVAL (misaligned @gaddr, zero
 * @len), ENXIO (window outside the space), EOVERFLOW (@gaddr + @len wraps:
 * the kernel refuses it before the module sees it), EPERM (PROT_EXEC),
 * EBADF (handle closed), ENOMEM (no address space).
 */
void *ddsm_map(struct ddsm *d, uint64_t gaddr, size_t len, int prot);

/**
 * ddsm_unmap() - undo ddsm_map()
 * @d:		the handle used to map (may already be closed)
 * @addr:	address returned by ddsm_map()
 * @len:	the length given to ddsm_map()
 *
 * Return: 0, or -1 with errno EINVAL (@addr not page aligned, @len 0).
 */
int ddsm_unmap(struct ddsm *d, void *addr, size_t len);

/**
 * ddsm_close() - close the device descriptor
 * @d:		handle; closing a closed handle is a no-op returning 0
 *
 * Live mappings keep the module pinned until they are unmapped.
 * Return: 0, or -1 with errno from close(2) (the fd is released anyway).
 */
int ddsm_close(struct ddsm *d);

/**
 * ddsm_status() - read node-wide state and counters (DDSM_IOC_STATUS)
 * @d:		open handle
 * @st:		filled in on success; the cached geometry in @d is refreshed
 *
 * Return: 0, or -1 with errno EBADF (closed), EFAULT (@st unwritable),
 * EINVAL (NULL argument).
 */
int ddsm_status(struct ddsm *d, struct ddsm_status *st);

/**
 * ddsm_peer() - describe one node of the cluster (DDSM_IOC_PEER)
 * @d:		open handle
 * @index:	0 .. nr_nodes - 1 (not necessarily equal to the node id)
 * @pi:		filled in on success (input fields are set by the library)
 *
 * Return: 0, or -1 with errno ERANGE (@index >= nr_nodes), EBADF, EFAULT,
 * EINVAL (NULL argument).
 */
int ddsm_peer(struct ddsm *d, uint32_t index, struct ddsm_peer_info *pi);

/**
 * ddsm_home() - find the home node and local state of an address
 * @d:		open handle
 * @gaddr:	any byte of the global space
 * @q:		filled in on success: home node, unit number, cache state
 *
 * Return: 0, or -1 with errno ERANGE (@gaddr >= size), EBADF, EFAULT,
 * EINVAL (NULL argument).
 */
int ddsm_home(struct ddsm *d, uint64_t gaddr, struct ddsm_home_query *q);

/**
 * ddsm_pmem_status() - this node's persistent home (DDSM_IOC_PMEM_STATUS)
 * @d:		open handle
 * @ps:		filled in on success; ps->flags is 0 without pmem=
 *
 * Return: 0, or -1 with errno EBADF, EFAULT, EINVAL (NULL argument), ENOTTY
 * (a module without pmem support).
 */
int ddsm_pmem_status(struct ddsm *d, struct ddsm_pmem_status *ps);

/**
 * ddsm_persist() - make [gaddr, gaddr + len) durable (DDSM_IOC_PERSIST)
 * @d:		open handle
 * @gaddr:	unit aligned global address
 * @len:	bytes, a multiple of DDSM_UNIT_SIZE, not 0
 *
 * Returns once every unit of the range homed on this node and written
 * before the call is on this node's pmem.  Return: 0, or -1 with errno
 * ENODEV (module loaded without pmem=), EINVAL (alignment, zero length),
 * ERANGE (outside the space), EIO (the media failed), EBADF.
 */
int ddsm_persist(struct ddsm *d, uint64_t gaddr, uint64_t len);

/**
 * ddsm_write_durable() - store @len bytes and return once they are durable
 * @d:		open handle
 * @dst:	where @gaddr is mapped in this process (writable)
 * @gaddr:	global address of the first byte
 * @src, @len:	the bytes (@len not 0)
 *
 * The write of the Synchronous and Strict models: copies @src to @dst,
 * then makes every unit the bytes touch durable at its home
 * (DDSM_IOC_PERSIST with DDSM_PERSIST_ALL), also one another node took
 * meanwhile.  In Synchronous and Strict regions a 0 return means the
 * bytes (or a newer write over them) survive any crash; elsewhere it is a
 * store plus a Scope barrier.  Return: 0, or -1 with errno as for
 * ddsm_persist() (a failure leaves the bytes stored but maybe not
 * durable).
 */
int ddsm_write_durable(struct ddsm *d, void *dst, uint64_t gaddr,
		       const void *src, size_t len);

/**
 * ddsm_region_set_model() - a region's persistency model (DDSM_IOC_REGION)
 * @gaddr, @len: unit aligned range, @len not 0
 * @model:	enum ddsm_model (docs/persistency.md)
 *
 * Governs the units of the range homed on this node: set the same regions
 * on every node, before the range is touched.  Return: 0, or -1 with
 * errno as documented for DDSM_IOC_REGION in <linux/ddsm.h>.
 */
int ddsm_region_set_model(struct ddsm *d, uint64_t gaddr, uint64_t len,
			  uint32_t model);

/**
 * ddsm_region_model() - the persistency model at @gaddr into *@model
 * Return: 0, or -1 with errno ENODEV (no pmem=), ERANGE, EBADF, EINVAL.
 */
int ddsm_region_model(struct ddsm *d, uint64_t gaddr, uint32_t *model);

/**
 * ddsm_model_name() - "sync", "strict", "read_enf", "eventual", "scope",
 * or "unknown"; ddsm_model_parse() the reverse (-1 with EINVAL).
 */
const char *ddsm_model_name(uint32_t model);
int ddsm_model_parse(const char *name, uint32_t *model);

/**
 * ddsm_peer_state_name() - printable name of an enum ddsm_peer_state
 * Return: "self", "down", "connecting", "up", "dead", or "unknown";
 * never NULL, static storage.
 */
/**
 * ddsm_configure() - make this node join a cluster (or go back to one node)
 * @node_id: this node's index in @nodes
 * @nodes:   "ip0,ip1,...", index = node id; "" for a one-node DSM
 *
 * Same effect as loading the module with node_id= and nodes=.  Returns 0,
 * or -1 with errno: EPERM without CAP_SYS_ADMIN, EBUSY once anything was
 * mapped or touched on this node, EINVAL for a bad list, ENAMETOOLONG if
 * @nodes does not fit struct ddsm_config.
 */
int ddsm_configure(struct ddsm *d, uint32_t node_id, const char *nodes);

/**
 * ddsm_parse_size() - parse a size or global address
 * @s:   decimal or 0x hex, with an optional K/M/G (binary) suffix
 * @out: the value
 *
 * Returns 0, or -1 (errno EINVAL) for anything else, a sign or overflow.
 */
int ddsm_parse_size(const char *s, uint64_t *out);

const char *ddsm_peer_state_name(uint32_t state);

/**
 * ddsm_unit_state_name() - printable name of an enum ddsm_unit_state
 * Return: "I", "S", "M", "busy", or "unknown"; never NULL, static storage.
 */
const char *ddsm_unit_state_name(uint32_t state);

/*
 * HADES transactions (docs/transactions.md), over transactional regions
 * only (ddsm_tx_region()), one transaction at a time per handle: give
 * each thread its own struct ddsm.  A call that finds the transaction
 * aborted fails with errno ECANCELED and, if @reason is not NULL, stores
 * why (enum ddsm_tx_reason); the handle then has no transaction.
 */
/* Declare [gaddr, gaddr + len) transactional, on every node, before use. */
int ddsm_tx_region(struct ddsm *d, uint64_t gaddr, uint64_t len);
int ddsm_tx_begin(struct ddsm *d);
int ddsm_tx_read(struct ddsm *d, uint64_t gaddr, size_t len, void *buf,
		 uint32_t *reason);
/*
 * @nr (1..DDSM_TX_READV_MAX) reads as ddsm_tx_read() in a row, the
 * remote ones asked of their homes at once: one round trip, not @nr.
 */
int ddsm_tx_readv(struct ddsm *d, const struct ddsm_tx_iov *iov,
		  unsigned int nr, uint32_t *reason);
int ddsm_tx_write(struct ddsm *d, uint64_t gaddr, const void *buf,
		  size_t len, uint32_t *reason);
/* 0: committed; -1 with ECANCELED and *@reason: aborted. */
int ddsm_tx_commit(struct ddsm *d, uint32_t *reason);
int ddsm_tx_abort(struct ddsm *d);
int ddsm_tx_status(struct ddsm *d, struct ddsm_tx_status *st);
const char *ddsm_tx_reason_name(uint32_t reason);

/*
 * ddsm_tx_run() - run @body in transactions until one commits
 *
 * @body begins nothing: it issues reads and writes and returns 0 to ask
 * for the commit, or -1 with errno (ECANCELED: the transaction aborted,
 * retried; anything else: given up, the transaction aborted).  At most
 * @max_tries attempts, with a random back-off growing to about 1 ms.
 * Return: 0 committed; -1 with errno (ECANCELED when every attempt
 * aborted, *@reason the last cause).
 */
int ddsm_tx_run(struct ddsm *d, int (*body)(struct ddsm *d, void *arg),
		void *arg, unsigned int max_tries, uint32_t *reason);

#ifdef __cplusplus
}
#endif

#endif /* LIBDDSM_H */
