/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libddsm's private interfaces: what the current API (libddsm.c, query.c,
 * tx.c) and the ABI-11 compatibility layer (compat_v1.c) share.  Both
 * wrap the same descriptor-level helpers, so a fix lands in both.  None of
 * this is exported: the version script (libddsm.map) lists the API, and
 * LIBDDSM_HIDDEN keeps the helpers out of the dynamic symbol table even
 * before the script is applied.
 */
#ifndef LIBDDSM_INTERNAL_H
#define LIBDDSM_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "linux/ddsm.h"

#define LIBDDSM_HIDDEN	__attribute__((visibility("hidden")))

/*
 * The oldest module this library drives.  Every ioctl it issues has the
 * size of this build's uapi header; ABI 11 is the first module that
 * answers all of them at these sizes but DDSM_IOC_TX_OUTCOME (added
 * later within ABI 11), which lddsm_tx_commit() asks only after a
 * COMMIT's ETIMEDOUT and whose ENOTTY from an older module leaves that
 * ETIMEDOUT as it was.  A newer module is accepted: it
 * keeps answering the sizes of earlier ABIs (the size is in the ioctl
 * number), so callers built against any header from 11 on keep working.
 */
#define LDDSM_MIN_ABI	11

/* A window mapped with ddsm_map(), for ddsm_write_durable(). */
struct lddsm_window {
	struct lddsm_window *next;
	uintptr_t addr;
	size_t len;
	uint64_t gaddr;
};

/*
 * The opaque handle.  fd, unit_size, size and module_abi never change
 * after ddsm_open().  node_id and nr_nodes change with a reconfiguration
 * (ddsm_configure(), or `ddsmctl configure` from another process, seen at
 * this handle's next ddsm_status()); they live in one 64-bit word read and
 * written whole, so a getter never sees a node id of one configuration
 * with the node count of another.
 */
struct ddsm {
	int fd;
	uint32_t unit_size;
	uint64_t size;
	uint32_t module_abi;
	uint64_t who;			/* node_id << 32 | nr_nodes */
	pthread_mutex_t lock;		/* windows */
	struct lddsm_window *windows;
};

/* Open @path (NULL: /dev/ddsm), read and check its status; fd or -1. */
LIBDDSM_HIDDEN int lddsm_open_fd(const char *path, struct ddsm_status *st);

/*
 * Issue read ioctl @cmd (its argument as large as this build's header) on
 * @fd, with @in (may be NULL) copied in first, and hand the caller @size
 * bytes of the answer: a caller built against an older header gets the
 * fields it knows, one built against a newer header zeroes past ours.
 */
LIBDDSM_HIDDEN int lddsm_query(int fd, unsigned long cmd, const void *in,
			       size_t in_len, void *out, size_t size);

LIBDDSM_HIDDEN int lddsm_persist(int fd, uint64_t gaddr, uint64_t len,
				 uint32_t flags);
/* The units [@gaddr, @gaddr + @len) touches, made durable at their homes. */
LIBDDSM_HIDDEN int lddsm_durable(int fd, uint64_t gaddr, size_t len);
LIBDDSM_HIDDEN int lddsm_region_set(int fd, uint64_t gaddr, uint64_t len,
				    uint32_t model);
LIBDDSM_HIDDEN int lddsm_region_get(int fd, uint64_t gaddr, uint32_t *model);
LIBDDSM_HIDDEN int lddsm_configure(int fd, uint32_t node_id,
				   const char *nodes);

LIBDDSM_HIDDEN int lddsm_tx_region(int fd, uint64_t gaddr, uint64_t len);
LIBDDSM_HIDDEN int lddsm_tx_call(int fd, unsigned long cmd, uint64_t gaddr,
				 const void *buf, size_t len,
				 uint32_t *reason);
/*
 * COMMIT, and after an ETIMEDOUT (its homes decide: docs/transactions.md,
 * "The commit rule") DDSM_IOC_TX_OUTCOME every 100 ms for up to a minute:
 * 0 or -1 with ECANCELED as for any commit, ETIMEDOUT only when the
 * outcome is still not known.
 */
LIBDDSM_HIDDEN int lddsm_tx_commit(int fd, uint32_t *reason);
LIBDDSM_HIDDEN int lddsm_tx_readv(int fd, const struct ddsm_tx_iov *iov,
				  unsigned int nr, uint32_t *reason);

/*
 * ddsm_tx_run()'s loop, for either API: @body(@ctx) runs one attempt's
 * reads and writes.
 */
LIBDDSM_HIDDEN int lddsm_tx_run(int fd, int (*body)(void *ctx), void *ctx,
				unsigned int max_tries, uint32_t *reason);

/* errno = EINVAL, return -1: for the argument checks. */
LIBDDSM_HIDDEN int lddsm_einval(void);

#endif /* LIBDDSM_INTERNAL_H */
