/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ABI 11's libddsm interface (symbol version LIBDDSM_1), for the programs
 * in this tree written against it (tests/vm/src, tools/workloads): they
 * include "libddsm.h" and link the static archive.  Not installed.
 *
 * New code includes <ddsm/libddsm.h>, the current interface: an opaque
 * handle, queries sized by the caller, consistent argument order
 * (libddsm(3), "Programs written for ABI 11" maps one to the other).
 *
 * Here the caller allocates struct ddsm and may read its fields; every
 * function is the one that programs built against ABI 11 bind to in the
 * shared library (NAME@LIBDDSM_1, built as ddsm_v1_NAME: the asm labels
 * below name it, so that the same names reach it in the static archive).
 */
#ifndef LIBDDSM_V1_H
#define LIBDDSM_V1_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <linux/ddsm.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DDSM_DEFAULT_PATH	"/dev/" DDSM_DEV_NAME

/*
 * struct ddsm - an open handle on /dev/ddsm (ABI 11's layout)
 * @fd:		the device file descriptor, -1 when closed
 * @node_id, @nr_nodes: as of ddsm_open(), the last ddsm_status() or
 *		ddsm_configure() on this handle
 * @unit_size, @size: the coherence unit and the global space, in bytes
 *
 * Not locked: a handle shared by threads needs ddsm_open(), ddsm_close(),
 * ddsm_status() and ddsm_configure() (which write it) serialised
 * against the other calls.
 */
struct ddsm {
	int fd;
	uint32_t node_id;
	uint32_t nr_nodes;
	uint32_t unit_size;
	uint64_t size;
};

#define LIBDDSM_V1(name)	__asm__("ddsm_v1_" #name)

int ddsm_open(struct ddsm *d, const char *path) LIBDDSM_V1(open);
void *ddsm_map(struct ddsm *d, uint64_t gaddr, size_t len, int prot)
	LIBDDSM_V1(map);
int ddsm_unmap(struct ddsm *d, void *addr, size_t len) LIBDDSM_V1(unmap);
int ddsm_close(struct ddsm *d) LIBDDSM_V1(close);
int ddsm_status(struct ddsm *d, struct ddsm_status *st) LIBDDSM_V1(status);
int ddsm_peer(struct ddsm *d, uint32_t index, struct ddsm_peer_info *pi)
	LIBDDSM_V1(peer);
int ddsm_home(struct ddsm *d, uint64_t gaddr, struct ddsm_home_query *q)
	LIBDDSM_V1(home);
int ddsm_pmem_status(struct ddsm *d, struct ddsm_pmem_status *ps)
	LIBDDSM_V1(pmem_status);
int ddsm_persist(struct ddsm *d, uint64_t gaddr, uint64_t len)
	LIBDDSM_V1(persist);
/* @dst is where @gaddr is mapped in this process. */
int ddsm_write_durable(struct ddsm *d, void *dst, uint64_t gaddr,
		       const void *src, size_t len) LIBDDSM_V1(write_durable);
int ddsm_region_set_model(struct ddsm *d, uint64_t gaddr, uint64_t len,
			  uint32_t model) LIBDDSM_V1(region_set_model);
int ddsm_region_model(struct ddsm *d, uint64_t gaddr, uint32_t *model)
	LIBDDSM_V1(region_model);
int ddsm_configure(struct ddsm *d, uint32_t node_id, const char *nodes)
	LIBDDSM_V1(configure);

int ddsm_tx_region(struct ddsm *d, uint64_t gaddr, uint64_t len)
	LIBDDSM_V1(tx_region);
int ddsm_tx_begin(struct ddsm *d) LIBDDSM_V1(tx_begin);
/* ABI 11's order: the length before the buffer (unlike ddsm_tx_write). */
int ddsm_tx_read(struct ddsm *d, uint64_t gaddr, size_t len, void *buf,
		 uint32_t *reason) LIBDDSM_V1(tx_read);
int ddsm_tx_readv(struct ddsm *d, const struct ddsm_tx_iov *iov,
		  unsigned int nr, uint32_t *reason) LIBDDSM_V1(tx_readv);
int ddsm_tx_write(struct ddsm *d, uint64_t gaddr, const void *buf,
		  size_t len, uint32_t *reason) LIBDDSM_V1(tx_write);
int ddsm_tx_commit(struct ddsm *d, uint32_t *reason) LIBDDSM_V1(tx_commit);
int ddsm_tx_abort(struct ddsm *d) LIBDDSM_V1(tx_abort);
int ddsm_tx_status(struct ddsm *d, struct ddsm_tx_status *st)
	LIBDDSM_V1(tx_status);
int ddsm_tx_run(struct ddsm *d, int (*body)(struct ddsm *d, void *arg),
		void *arg, unsigned int max_tries, uint32_t *reason)
	LIBDDSM_V1(tx_run);

/* Unchanged in the current interface (one symbol serves both). */
const char *ddsm_tx_reason_name(uint32_t reason);
const char *ddsm_model_name(uint32_t model);
int ddsm_model_parse(const char *name, uint32_t *model);
const char *ddsm_peer_state_name(uint32_t state);
const char *ddsm_unit_state_name(uint32_t state);
int ddsm_parse_size(const char *s, uint64_t *out);

#ifdef __cplusplus
}
#endif

#endif /* LIBDDSM_V1_H */
