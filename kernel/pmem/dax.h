/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pmem namespace a home keeps its units on: a block device with DAX
 * (an fsdax namespace, or a memmap= range), held open exclusively and
 * mapped once into the kernel's address space.
 */
#ifndef DDSM_PMEM_DAX_H
#define DDSM_PMEM_DAX_H

#include <linux/types.h>
#include "layout.h"

struct file;
struct dax_device;

struct ddsm_pmem_dev {
	struct file *file;	/* the block device, opened O_EXCL */
	struct dax_device *dax;
	void *kaddr;		/* the whole namespace, contiguous */
	u64 bytes;
	char name[32];		/* for log lines */
};

/*
 * Open @path and map it.  Errors, each with one log line: -ENOTBLK (not a
 * block device), -EOPNOTSUPP (no DAX: a raw namespace needs
 * "ndctl create-namespace -m fsdax"), -EBUSY (in use, mounted say), or the
 * open's own error.
 */
int ddsm_pmem_open(struct ddsm_pmem_dev *d, const char *path);
void ddsm_pmem_close(struct ddsm_pmem_dev *d);

/* Flush (write back the CPU cache lines) and fence on the real media. */
struct ddsm_pm_persist ddsm_pmem_persist_ops(struct ddsm_pmem_dev *d);

#endif /* DDSM_PMEM_DAX_H */
