// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/ddsm: open, mmap and ioctl.  Every open file maps through the one
 * module-wide address_space, so an invalidation reaches the PTEs of every
 * process on the node with a single unmap_mapping_range().
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/uaccess.h>
#include <linux/printk.h>
#include <linux/capability.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "node.h"
#include "ioctl_check.h"
#include "../tx/tx.h"

/* An open file: its node, and its transaction (one at a time). */
struct ddsm_file {
	struct ddsm_node *n;
	struct mutex tx_lock;	/* the file's transaction calls, in turn */
	struct ddsm_txfile tx;
};

static struct ddsm_node *node_of(struct file *file)
{
	return ((struct ddsm_file *)file->private_data)->n;
}

static int ddsm_open(struct inode *inode, struct file *file)
{
	struct miscdevice *misc = file->private_data;
	struct ddsm_node *n = container_of(misc, struct ddsm_node, misc);
	struct ddsm_file *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	f->n = n;
	mutex_init(&f->tx_lock);
	file->private_data = f;
	file->f_mapping = n->mapping;
	return nonseekable_open(inode, file);
}

static int ddsm_release(struct inode *inode, struct file *file)
{
	struct ddsm_file *f = file->private_data;

	down_read(&f->n->cfg_sem);
	ddsm_tx_release(f->n, &f->tx);
	up_read(&f->n->cfg_sem);
	kfree(f);
	return 0;
}

static int ddsm_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct ddsm_node *n = node_of(file);
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 len = vma->vm_end - vma->vm_start;
	int ret;

	/* A read-only fd clears VM_SHARED but keeps VM_MAYSHARE: still shared. */
	down_read(&n->cfg_sem);
	ret = n->built ? ddsm_check_mmap_arg(&n->space,
					     !!(vma->vm_flags & VM_MAYSHARE),
					     !!(vma->vm_flags & VM_EXEC), off,
					     len) : -EIO;
	/* Transactional data never enters coherence (docs/transactions.md). */
	if (!ret)
		ret = ddsm_tx_region_mmap(n, vma, off, len);
	up_read(&n->cfg_sem);
	if (ret) {
		pr_info_ratelimited("ddsm: %s: mmap of [%#llx, +%#llx) flags %#lx refused: %d\n",
				    current->comm, off, len, vma->vm_flags, ret);
		return ret;
	}
	return 0;
}

static void fill_status(struct ddsm_node *n, struct ddsm_status *st)
{
	memset(st, 0, sizeof(*st));
	st->abi_version = DDSM_ABI_VERSION;
	st->node_id = n->space.node_id;
	st->nr_nodes = n->space.nr_nodes;
	st->unit_size = DDSM_PROTO_UNIT_SIZE;
	st->size = n->space.size;
	st->frames_limit = n->frames.limit;
	st->faults_read = atomic64_read(&n->stats.faults_read);
	st->faults_write = atomic64_read(&n->stats.faults_write);
	st->upgrades = atomic64_read(&n->stats.upgrades);
	st->remaps = atomic64_read(&n->stats.remaps);
	st->pages_resident = atomic64_read(&n->frames.resident);
	st->msgs_sent = atomic64_read(&n->stats.msgs_sent);
	st->msgs_recv = atomic64_read(&n->stats.msgs_recv);
	st->msgs_dropped = atomic64_read(&n->stats.msgs_dropped);
	st->mappings = atomic64_read(&n->stats.mappings);
	st->fault_timeouts = atomic64_read(&n->stats.fault_timeouts);
	st->home_waits = atomic64_read(&n->stats.home_waits);
	st->fault_kills = atomic64_read(&n->stats.fault_kills);
	st->hold_expired = atomic64_read(&n->stats.hold_expired);
	/* Proto counters: read without rx_lock, a torn value is harmless. */
	st->units_lost = READ_ONCE(n->dir.stats.lost);
	st->units_restored = READ_ONCE(n->dir.stats.restored);
	st->orphans = READ_ONCE(n->cache.stats.orphans);
	st->orphans_dropped = READ_ONCE(n->cache.stats.orphans_dropped);
	st->lost_retries = atomic64_read(&n->stats.lost_retries);
	st->excl_reads = READ_ONCE(n->dir.stats.excl_reads);
	st->graces = atomic64_read(&n->stats.graces);
	st->handoffs = READ_ONCE(n->dir.stats.handoffs);
	st->deferred = READ_ONCE(n->cache.stats.deferred);
	st->evictions = atomic64_read(&n->stats.evictions);
	st->cache_frames = atomic64_read(&n->frames.cached);
	st->fault_errors = atomic64_read(&n->stats.fault_errors);
}

static long ioctl_peer(struct ddsm_node *n, struct ddsm_peer_info *pi)
{
	u32 index;
	int ret;

	ret = ddsm_check_peer_arg(pi, n->space.nr_nodes);
	if (ret)
		return ret;
	index = pi->index;
	memset(pi, 0, sizeof(*pi));
	pi->index = index;
	n->tp->ops->peer_info(n->tp, pi);
	return 0;
}

static u32 uapi_unit_state(u8 cstate)
{
	switch (cstate) {
	case DDSM_C_I:
		return DDSM_UNIT_I;
	case DDSM_C_S:
		return DDSM_UNIT_S;
	case DDSM_C_M:
		return DDSM_UNIT_M;
	default:
		return DDSM_UNIT_BUSY;
	}
}

static long ioctl_home(struct ddsm_node *n, struct ddsm_home_query *q)
{
	int ret;

	ret = ddsm_check_home_arg(q, &n->space);
	if (ret)
		return ret;
	q->unit = ddsm_gaddr_unit(q->gaddr);
	q->home = ddsm_unit_home(&n->space, q->unit);
	q->state = uapi_unit_state(READ_ONCE(ddsm_cache_line(&n->cache,
							     q->unit)->state));
	return 0;
}

static long ioctl_configure(struct ddsm_node *n, void __user *arg)
{
	struct ddsm_config *c;
	long ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	c = memdup_user(arg, sizeof(*c));
	if (IS_ERR(c))
		return PTR_ERR(c);
	ret = ddsm_check_config_arg(c);
	if (!ret) {
		down_write(&n->cfg_sem);
		ret = ddsm_reconfigure(n, c->node_id, c->nodes);
		up_write(&n->cfg_sem);
	}
	kfree(c);
	return ret;
}

/*
 * Who may call what (docs/api.md): what changes the node for every user
 * of the device (a region's model, a transactional region, written to
 * pmem or kept until unload) needs CAP_SYS_ADMIN, as CONFIGURE does; what
 * writes data needs a file opened for writing.  A get of a region's model
 * (DDSM_REGION_GET) is open to every user; @ra is read for REGION only.
 * Checked once the argument is copied in, before it is used.
 */
static long ioctl_allowed(struct file *file, unsigned int cmd,
			  const struct ddsm_region_arg *ra)
{
	bool admin = false, write = false;
	const char *what;

	switch (cmd) {
	case DDSM_IOC_REGION:
		admin = !(ra->flags & DDSM_REGION_GET);
		what = "REGION (set)";
		break;
	case DDSM_IOC_TX_REGION:
		admin = true;
		what = "TX_REGION";
		break;
	case DDSM_IOC_TX_WRITE:
		write = true;
		what = "TX_WRITE";
		break;
	case DDSM_IOC_TX_COMMIT:
		write = true;
		what = "TX_COMMIT";
		break;
	case DDSM_IOC_PERSIST:
		write = true;
		what = "PERSIST";
		break;
	default:
		return 0;
	}
	if (admin && !capable(CAP_SYS_ADMIN)) {
		pr_info_ratelimited("ddsm: %s: DDSM_IOC_%s needs CAP_SYS_ADMIN\n",
				    current->comm, what);
		return -EPERM;
	}
	if (write && !(file->f_mode & FMODE_WRITE)) {
		pr_info_ratelimited("ddsm: %s: DDSM_IOC_%s needs a file opened for writing\n",
				    current->comm, what);
		return -EBADF;
	}
	return 0;
}

/*
 * User memory is copied in and out with cfg_sem not held: a copy may
 * fault and take mmap_lock, and mmap() takes cfg_sem under mmap_lock;
 * with a CONFIGURE queued for the write side the two orders deadlock.
 */
static long ioctl_tx(struct file *file, unsigned int cmd, unsigned int size,
		     void __user *uarg)
{
	struct ddsm_file *f = file->private_data;
	struct ddsm_node *n = f->n;
	bool rw = cmd == DDSM_IOC_TX_READ || cmd == DDSM_IOC_TX_WRITE;
	union {
		struct ddsm_tx_arg a;
		struct ddsm_tx_region_arg r;
		struct ddsm_tx_status st;
	} u;
	u8 *buf = NULL;
	long ret;

	memset(&u, 0, sizeof(u));
	if (cmd != DDSM_IOC_TX_STATUS && copy_from_user(&u, uarg, size))
		return -EFAULT;
	ret = ioctl_allowed(file, cmd, NULL);
	if (ret)
		return ret;
	if (rw) {
		if (!u.a.len || u.a.len > DDSM_UNIT_SIZE)
			return -EINVAL;
		buf = kmalloc(u.a.len, GFP_KERNEL);
		if (!buf)
			return -ENOMEM;
		if (cmd == DDSM_IOC_TX_WRITE &&
		    copy_from_user(buf, u64_to_user_ptr(u.a.buf), u.a.len)) {
			kfree(buf);
			return -EFAULT;
		}
	}
	down_read(&n->cfg_sem);
	if (!n->built) {
		ret = -EIO;
	} else if (cmd == DDSM_IOC_TX_STATUS) {
		ddsm_tx_status(n, &u.st);
		ret = 0;
	} else if (cmd == DDSM_IOC_TX_REGION) {
		ret = ddsm_tx_region_add(n, &u.r);
	} else if (cmd == DDSM_IOC_TX_OUTCOME) {
		ret = ddsm_tx_outcome(n, &u.a);
	} else {
		mutex_lock(&f->tx_lock);
		u.a.reason = 0;
		ret = ddsm_tx_ioctl(n, &f->tx, cmd, &u.a, buf);
		mutex_unlock(&f->tx_lock);
	}
	up_read(&n->cfg_sem);
	if (!ret && cmd == DDSM_IOC_TX_READ &&
	    copy_to_user(u64_to_user_ptr(u.a.buf), buf, u.a.len))
		ret = -EFAULT;
	kfree(buf);
	/* An undecided COMMIT's id too: DDSM_IOC_TX_OUTCOME asks for it. */
	if ((!ret || ret == -ECANCELED ||
	     (ret == -ETIMEDOUT && cmd == DDSM_IOC_TX_COMMIT)) &&
	    (_IOC_DIR(cmd) & _IOC_READ) && copy_to_user(uarg, &u, size))
		ret = -EFAULT;
	return ret;
}

/*
 * DDSM_IOC_TX_READV: the reads' bytes land in one kernel buffer and go
 * out to each user buffer after cfg_sem, as READ's do.
 */
static long ioctl_tx_readv(struct file *file, void __user *uarg)
{
	struct ddsm_file *f = file->private_data;
	struct ddsm_node *n = f->n;
	struct ddsm_tx_iov iov[DDSM_TX_READV_MAX];
	struct ddsm_tx_readv_arg a;
	u32 i, total = 0;
	u8 *buf;
	long ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.flags || a.reserved || !a.nr || a.nr > DDSM_TX_READV_MAX)
		return -EINVAL;
	if (copy_from_user(iov, u64_to_user_ptr(a.iov),
			   a.nr * sizeof(iov[0])))
		return -EFAULT;
	for (i = 0; i < a.nr; i++) {
		if (!iov[i].len || iov[i].len > DDSM_UNIT_SIZE ||
		    iov[i].reserved)
			return -EINVAL;
		total += iov[i].len;
	}
	buf = kvmalloc(total, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	down_read(&n->cfg_sem);
	mutex_lock(&f->tx_lock);
	a.reason = 0;
	ret = n->built ? ddsm_tx_readv(n, &f->tx, &a, iov, buf) : -EIO;
	mutex_unlock(&f->tx_lock);
	up_read(&n->cfg_sem);
	for (i = 0, total = 0; i < a.nr && !ret; i++) {
		if (copy_to_user(u64_to_user_ptr(iov[i].buf), buf + total,
				 iov[i].len))
			ret = -EFAULT;
		total += iov[i].len;
	}
	kvfree(buf);
	if ((!ret || ret == -ECANCELED) && copy_to_user(uarg, &a, sizeof(a)))
		ret = -EFAULT;
	return ret;
}

/* The ioctls that act on the node as a whole, under cfg_sem. */
union ddsm_ioc_arg {
	struct ddsm_status st;
	struct ddsm_peer_info pi;
	struct ddsm_home_query q;
	struct ddsm_pmem_status ps;
	struct ddsm_persist_arg pa;
	struct ddsm_region_arg ra;
};

static long ioctl_node(struct ddsm_node *n, unsigned int cmd,
		       union ddsm_ioc_arg *u)
{
	switch (cmd) {
	case DDSM_IOC_STATUS:
		fill_status(n, &u->st);
		return 0;
	case DDSM_IOC_PEER:
		return ioctl_peer(n, &u->pi);
	case DDSM_IOC_PMEM_STATUS:
		ddsm_persist_status(n, &u->ps);
		return 0;
	case DDSM_IOC_REGION:
		return ddsm_check_region_arg(&u->ra, &n->space) ?:
		       ddsm_persist_region(n, &u->ra);
	case DDSM_IOC_PERSIST:
		return ddsm_check_persist_arg(&u->pa, &n->space) ?:
		       ddsm_barrier(n, u->pa.gaddr, u->pa.len, u->pa.flags);
	default:
		return ioctl_home(n, &u->q);
	}
}

/*
 * The same rule for every ioctl (ioctl_tx).  A command is known by its
 * type, number and direction; its size may be an earlier ABI's
 * (ddsm_ioctl_cmd()), and then only that many bytes are copied in, the
 * rest read as zero, and out.
 */
static long ddsm_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct ddsm_node *n = node_of(file);
	void __user *uarg = (void __user *)arg;
	unsigned int size;
	union ddsm_ioc_arg u;
	long ret;

	size = _IOC_SIZE(cmd);
	cmd = ddsm_ioctl_cmd(cmd);
	size = min(size, _IOC_SIZE(cmd));
	switch (cmd) {
	case DDSM_IOC_CONFIGURE:
		return ioctl_configure(n, uarg);
	case DDSM_IOC_TX_REGION:
	case DDSM_IOC_TX_BEGIN:
	case DDSM_IOC_TX_READ:
	case DDSM_IOC_TX_WRITE:
	case DDSM_IOC_TX_COMMIT:
	case DDSM_IOC_TX_ABORT:
	case DDSM_IOC_TX_STATUS:
	case DDSM_IOC_TX_OUTCOME:
		return ioctl_tx(file, cmd, size, uarg);
	case DDSM_IOC_TX_READV:
		return ioctl_tx_readv(file, uarg);
	case DDSM_IOC_PEER:
	case DDSM_IOC_HOME:
	case DDSM_IOC_PERSIST:
	case DDSM_IOC_REGION:
		memset(&u, 0, sizeof(u));
		if (copy_from_user(&u, uarg, size))
			return -EFAULT;
		/* After the copy: REGION's flags tell a get from a set. */
		ret = ioctl_allowed(file, cmd, &u.ra);
		if (ret)
			return ret;
		break;
	case DDSM_IOC_STATUS:
	case DDSM_IOC_PMEM_STATUS:
		break;
	default:
		return -ENOTTY;
	}

	down_read(&n->cfg_sem);
	/* After a reconfiguration failed twice, only STATUS still works. */
	ret = n->built || cmd == DDSM_IOC_STATUS ? ioctl_node(n, cmd, &u) :
						   -EIO;
	up_read(&n->cfg_sem);
	if (!ret && (_IOC_DIR(cmd) & _IOC_READ) &&
	    copy_to_user(uarg, &u, size))
		ret = -EFAULT;
	return ret;
}

/*
 * msync(MS_SYNC) and fsync: the file offsets are global addresses.  The
 * Scope barrier (barrier.c); without pmem= there is nothing to make
 * durable, which is not an error for fsync.
 */
static int ddsm_fsync(struct file *file, loff_t start, loff_t end,
		      int datasync)
{
	struct ddsm_node *n = node_of(file);
	u64 size;
	int ret;

	down_read(&n->cfg_sem);
	size = n->space.size;
	if (!n->built || start < 0 || start >= size || end < start) {
		up_read(&n->cfg_sem);
		return 0;
	}
	end = min_t(u64, end, size - 1);
	ret = ddsm_barrier(n, start, end - start + 1, 0);
	up_read(&n->cfg_sem);
	return ret == -ENODEV ? 0 : ret;
}

static const struct file_operations ddsm_fops = {
	.owner = THIS_MODULE,
	.open = ddsm_open,
	.release = ddsm_release,
	.mmap = ddsm_mmap,
	.unlocked_ioctl = ddsm_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.fsync = ddsm_fsync,
	.llseek = no_llseek,
};

int ddsm_dev_register(struct ddsm_node *n, umode_t mode)
{
	n->misc.minor = MISC_DYNAMIC_MINOR;
	n->misc.name = DDSM_DEV_NAME;
	n->misc.fops = &ddsm_fops;
	n->misc.mode = mode;
	return misc_register(&n->misc);
}

void ddsm_dev_unregister(struct ddsm_node *n)
{
	misc_deregister(&n->misc);
}
