// SPDX-License-Identifier: GPL-2.0
/*
 * Claiming a pmem namespace for the home's units.  Like dm-writecache, the
 * namespace is mapped once and the address kept: the block device stays
 * open with O_EXCL and the DAX device holds us as its holder, so neither a
 * file system nor a second ddsm can use it meanwhile.
 */
#define pr_fmt(fmt) "ddsm: " fmt

#include <linux/blkdev.h>
#include <linux/dax.h>
#include <linux/fs.h>
#include <linux/pfn_t.h>
#include <linux/uio.h>
#include <linux/libnvdimm.h>
#include "dax.h"

#if IS_ENABLED(CONFIG_FS_DAX)
int ddsm_pmem_open(struct ddsm_pmem_dev *d, const char *path)
{
	struct block_device *bdev;
	u64 start_off = 0;
	long pages, got;
	pfn_t pfn;
	int id, ret;

	memset(d, 0, sizeof(*d));
	strscpy(d->name, kbasename(path), sizeof(d->name));
	d->file = filp_open(path, O_RDWR | O_EXCL | O_LARGEFILE, 0);
	if (IS_ERR(d->file)) {
		ret = PTR_ERR(d->file);
		d->file = NULL;
		pr_err("pmem=%s: cannot open: %d\n", path, ret);
		return ret;
	}
	if (!S_ISBLK(file_inode(d->file)->i_mode)) {
		pr_err("pmem=%s: not a block device\n", path);
		ret = -ENOTBLK;
		goto err_close;
	}
	bdev = I_BDEV(d->file->f_mapping->host);
	d->dax = fs_dax_get_by_bdev(bdev, &start_off, d, NULL);
	if (!d->dax) {
		pr_err("pmem=%s: no DAX (a raw namespace needs ndctl create-namespace -m fsdax) or in use\n",
		       path);
		ret = -EOPNOTSUPP;
		goto err_close;
	}
	d->bytes = bdev_nr_bytes(bdev) & PAGE_MASK;
	pages = d->bytes >> PAGE_SHIFT;
	if (!pages) {
		pr_err("pmem=%s: empty\n", path);
		ret = -ENOSPC;
		goto err_put;
	}
	id = dax_read_lock();
	got = dax_direct_access(d->dax, start_off >> PAGE_SHIFT, pages,
				DAX_ACCESS, &d->kaddr, &pfn);
	dax_read_unlock(id);
	if (got < 0) {
		pr_err("pmem=%s: direct access failed: %ld\n", path, got);
		ret = got;
		goto err_put;
	}
	/* The pmem driver maps a namespace linearly; anything else is not. */
	if (got < pages) {
		pr_err("pmem=%s: only %ld of %ld pages are contiguous\n",
		       path, got, pages);
		ret = -EOPNOTSUPP;
		goto err_put;
	}
	return 0;

err_put:
	fs_put_dax(d->dax, d);
	d->dax = NULL;
err_close:
	filp_close(d->file, NULL);
	d->file = NULL;
	d->kaddr = NULL;
	return ret;
}

void ddsm_pmem_close(struct ddsm_pmem_dev *d)
{
	if (d->dax)
		fs_put_dax(d->dax, d);
	if (d->file)
		filp_close(d->file, NULL);
	memset(d, 0, sizeof(*d));
}

static void pmem_flush(void *ctx, const void *addr, size_t len)
{
	struct ddsm_pmem_dev *d = ctx;

	dax_flush(d->dax, (void *)addr, len);
}
#else
/* A kernel without CONFIG_FS_DAX: the module works, without pmem=. */
int ddsm_pmem_open(struct ddsm_pmem_dev *d, const char *path)
{
	memset(d, 0, sizeof(*d));
	pr_err("pmem=%s: this kernel has no DAX (CONFIG_FS_DAX)\n", path);
	return -EOPNOTSUPP;
}

void ddsm_pmem_close(struct ddsm_pmem_dev *d)
{
	memset(d, 0, sizeof(*d));
}

static void pmem_flush(void *ctx, const void *addr, size_t len)
{
}
#endif

static void pmem_fence(void *ctx)
{
	pmem_wmb();
}

struct ddsm_pm_persist ddsm_pmem_persist_ops(struct ddsm_pmem_dev *d)
{
	return (struct ddsm_pm_persist){
		.flush = pmem_flush,
		.fence = pmem_fence,
		.ctx = d,
	};
}
