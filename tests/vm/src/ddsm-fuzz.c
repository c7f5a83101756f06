// SPDX-License-Identifier: GPL-2.0
/*
 * Random system calls on /dev/ddsm from several processes at once:
 * open/close, mmap (random and boundary lengths, offsets, protections,
 * flags), munmap, mprotect, mremap, madvise, fork (the child touches the
 * mappings it inherited), ioctls with random and boundary arguments,
 * loads and stores through the live mappings, process_vm_readv on them,
 * and HADES transactions (DDSM_IOC_TX_*) on a small transactional region
 * every node declares, from the workers and from their forked children
 * on the files they share.
 * Every failure must carry an errno from the documented set for that call
 * (docs/api.md, "What the device refuses"); no access to a live mapping
 * may fault; the kernel must not complain (the cluster runner checks the
 * console for Oops/BUG/WARNING).
 *
 *   ddsm-fuzz NODE OPS SEED PROCS
 *
 * Prints a count per (call, errno) and TAP lines; exit 0 iff all ok.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include "test_common.h"

#define UNIT		DDSM_UNIT_SIZE
#define WIN_UNIT	16384		/* the fuzz window: 64 MiB in */
#define WIN_UNITS	256		/* 1 MiB */
#define TX_UNIT		(WIN_UNIT + 4 * WIN_UNITS)	/* past every fuzz mmap */
#define TX_UNITS	8
#define MAXMAP		8
#define MAXFD		4
#define NERR		134

enum op { OP_OPEN, OP_CLOSE, OP_MMAP, OP_MUNMAP, OP_MPROTECT, OP_MREMAP,
	  OP_MADVISE, OP_FORK, OP_IOCTL, OP_TOUCH, OP_VMREAD, OP_TX, OP_NR };
static const char *const op_name[OP_NR] = {
	"open", "close", "mmap", "munmap", "mprotect", "mremap", "madvise",
	"fork", "ioctl", "touch", "process_vm_readv", "tx",
};
/* The errnos each call may give on ddsm (docs/api.md). */
#define NALLOWED	10
static const int allowed[OP_NR][NALLOWED] = {
	[OP_OPEN] = { EMFILE },
	[OP_CLOSE] = { EBADF },
	[OP_MMAP] = { EINVAL, ENXIO, EPERM, EACCES, EOVERFLOW, ENOMEM, EBADF,
		      ENODEV },
	[OP_MUNMAP] = { EINVAL },
	[OP_MPROTECT] = { EACCES, EINVAL, ENOMEM },
	[OP_MREMAP] = { EINVAL, EFAULT, ENOMEM },
	[OP_MADVISE] = { EINVAL, ENODEV, ENOMEM },
	[OP_FORK] = { EAGAIN, ENOMEM },
	/* ENODEV: the pmem ioctls on a node without pmem= (the fuzz run). */
	[OP_IOCTL] = { ENOTTY, EFAULT, EINVAL, ERANGE, EBUSY, EBADF, ENODEV },
	[OP_TOUCH] = { 0 },
	[OP_VMREAD] = { EFAULT },
	/*
	 * ECANCELED: the transaction aborted; EAGAIN: every slot busy;
	 * ENOTTY/EBADF: a descriptor that is not /dev/ddsm.
	 */
	[OP_TX] = { EINVAL, EFAULT, EBUSY, ECANCELED, E2BIG, EAGAIN, ERANGE,
		    ENOTTY, EBADF, ENOMEM },
};

struct map {
	char *addr;
	size_t len;
	int prot;
	int dontfork;	/* MADV_DONTFORK: a forked child does not have it */
};

static uint64_t rng;
static int fds[MAXFD] = { -1, -1, -1, -1 };
static struct map maps[MAXMAP];
static unsigned long calls[OP_NR], errs[OP_NR][NERR];
static int bad, me;
static sigjmp_buf fault_jb;
static volatile sig_atomic_t faulted;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t pick(const uint64_t *v, size_t n)
{
	return v[rnd() % n];
}

static void on_fault(int sig)
{
	faulted = sig;
	siglongjmp(fault_jb, 1);
}

static void result(enum op op, long ret, int err)
{
	size_t i;

	calls[op]++;
	if (ret != -1)
		return;
	errs[op][err < NERR ? err : 0]++;
	for (i = 0; i < NALLOWED && allowed[op][i]; i++)
		if (allowed[op][i] == err)
			return;
	if (bad++ < 10)
		printf("# node%d: %s failed with %s, not a documented errno\n",
		       me, op_name[op], strerror(err));
}

static int any_fd(void)
{
	int fd = fds[rnd() % MAXFD];

	return rnd() % 16 ? fd : (int)(rnd() % 64) - 2;
}

/* An open descriptor if there is one, now and then any: for do_tx(). */
static int open_fd(void)
{
	int i, start = (int)(rnd() % MAXFD);

	for (i = 0; i < MAXFD && rnd() % 16; i++)
		if (fds[(start + i) % MAXFD] >= 0)
			return fds[(start + i) % MAXFD];
	return any_fd();
}

static struct map *any_map(void)
{
	struct map *m = &maps[rnd() % MAXMAP];

	return m->addr ? m : NULL;
}

static void do_mmap(void)
{
	static const uint64_t lens[] = { 0, 1, UNIT - 1, UNIT, 2 * UNIT,
					 16 * UNIT, WIN_UNITS * UNIT,
					 1ull << 40, ~0ull };
	static const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE,
				     PROT_NONE, PROT_WRITE,
				     PROT_READ | PROT_EXEC };
	uint64_t len = pick(lens, sizeof(lens) / sizeof(lens[0]));
	uint64_t off = (uint64_t)(WIN_UNIT + rnd() % WIN_UNITS) * UNIT;
	int prot = prots[rnd() % 5];
	int flags = rnd() % 8 ? MAP_SHARED : MAP_PRIVATE;
	struct map *slot = &maps[rnd() % MAXMAP];
	void *p;

	switch (rnd() % 8) {
	case 0:
		off += rnd() % UNIT;		/* unaligned */
		break;
	case 1:
		off = ~0ull & ~(uint64_t)(UNIT - 1);	/* wraps */
		break;
	case 2:
		off = 1ull << 38;		/* past any space */
		break;
	}
	if (len > WIN_UNITS * UNIT && len != ~0ull && rnd() % 2)
		len = WIN_UNITS * UNIT;
	p = mmap(NULL, len, prot, flags, any_fd(), (off_t)off);
	result(OP_MMAP, p == MAP_FAILED ? -1 : 0, errno);
	if (p == MAP_FAILED)
		return;
	if (slot->addr)
		munmap(slot->addr, slot->len);
	slot->addr = p;
	slot->len = (len + UNIT - 1) & ~(uint64_t)(UNIT - 1);
	slot->prot = prot;
	slot->dontfork = 0;
}

static int in_child;

static void do_touch(void)
{
	struct map *m = any_map();
	volatile uint64_t *w;
	size_t i, n = 1 + rnd() % 8;

	if (!m || m->prot == PROT_NONE || (in_child && m->dontfork))
		return;
	calls[OP_TOUCH]++;
	faulted = 0;
	if (sigsetjmp(fault_jb, 1)) {
		if (bad++ < 10)
			printf("# node%d: signal %d on a live mapping (prot %d)\n",
			       me, faulted, m->prot);
		return;
	}
	for (i = 0; i < n; i++) {
		w = (volatile uint64_t *)(m->addr +
			((rnd() % m->len) & ~(size_t)7));
		if ((m->prot & PROT_WRITE) && (m->prot & PROT_READ) &&
		    rnd() % 2)
			__atomic_fetch_add(w, 1, __ATOMIC_SEQ_CST);
		else if (m->prot & PROT_READ)
			(void)*w;
	}
}

static void do_ioctl(void)
{
	static const unsigned long cmds[] = { DDSM_IOC_STATUS, DDSM_IOC_PEER,
					      DDSM_IOC_HOME, DDSM_IOC_CONFIGURE,
					      DDSM_IOC_PMEM_STATUS,
					      DDSM_IOC_PERSIST, DDSM_IOC_REGION,
					      _IO(DDSM_IOC_MAGIC, 0x77),
					      _IOR('x', 1, int) };
	union {
		struct ddsm_status st;
		struct ddsm_peer_info pi;
		struct ddsm_home_query hq;
		struct ddsm_config cfg;
		struct ddsm_pmem_status ps;
		struct ddsm_persist_arg pa;
		struct ddsm_region_arg ra;
		uint64_t raw[160];
	} u;
	unsigned long cmd = pick(cmds, sizeof(cmds) / sizeof(cmds[0]));
	size_t i;
	long ret;

	for (i = 0; i < sizeof(u.raw) / sizeof(u.raw[0]); i++)
		u.raw[i] = rnd() % 4 ? rnd() % 70 : rnd();
	if (cmd == DDSM_IOC_CONFIGURE)
		u.cfg.flags |= 1;	/* never a real reconfiguration */
	/* Past the argument checks now and then: unit-aligned ranges. */
	if (cmd == DDSM_IOC_PERSIST && rnd() % 2) {
		u.pa.gaddr = (rnd() % 80) << 12;
		u.pa.len = (rnd() % 8) << 12;
		u.pa.flags = rnd() % 3 ? 0 : DDSM_PERSIST_ALL;
		u.pa.reserved = 0;
	} else if (cmd == DDSM_IOC_REGION && rnd() % 2) {
		u.ra.gaddr = (rnd() % 80) << 12;
		u.ra.len = (rnd() % 8) << 12;
		u.ra.flags = rnd() % 2 ? 0 : DDSM_REGION_GET;
		u.ra.model = rnd() % 6;
		u.ra.nr_backups = 0;
		u.ra.reserved = 0;
	}
	ret = ioctl(any_fd(), cmd, rnd() % 8 ? (void *)&u : (void *)8);
	result(OP_IOCTL, ret, errno);
}

/* A random address for a transactional read or write. */
static uint64_t tx_gaddr(void)
{
	uint64_t base = (uint64_t)TX_UNIT * UNIT;

	switch (rnd() % 8) {
	case 0:
		return rnd() % 4 ? rnd() % (1ull << 38) : rnd();
	case 1:		/* the region's last bytes: a long access runs out */
		return base + TX_UNITS * UNIT - 1 - rnd() % 64;
	case 2:		/* across a unit boundary */
		return base + (1 + rnd() % (TX_UNITS - 1)) * UNIT - 1 - rnd() % 8;
	default:
		return base + rnd() % (TX_UNITS * UNIT);
	}
}

/* A READV: 0..17 reads, now and then a bad one among them. */
static void readv_args(struct ddsm_tx_readv_arg *v, struct ddsm_tx_iov *iov,
		       char *buf)
{
	uint32_t i;

	v->nr = (uint32_t)(rnd() % 8 ? 1 + rnd() % DDSM_TX_READV_MAX :
			   rnd() % (DDSM_TX_READV_MAX + 2));
	v->iov = (uint64_t)(uintptr_t)(rnd() % 16 ? iov : (void *)8);
	for (i = 0; i < v->nr && i <= DDSM_TX_READV_MAX; i++) {
		iov[i].gaddr = tx_gaddr();
		iov[i].len = (uint32_t)(rnd() % 16 ? 1 + rnd() % 128 :
					rnd() % (2 * UNIT));
		iov[i].buf = (uint64_t)(uintptr_t)(rnd() % 32 ? buf + i * 128 :
						   (void *)8);
		iov[i].reserved = rnd() % 32 ? 0 : 1;
	}
}

/*
 * One transactional call on a random descriptor: mostly well formed on
 * the region every node declared, now and then with bad lengths, flags,
 * addresses or buffers, or with a buffer inside a live ddsm mapping.  A
 * REGION call is either that region again or malformed: a valid one
 * elsewhere would turn the other nodes' live mappings transactional.
 */
static void do_tx(void)
{
	static const uint64_t lens[] = { 0, 1, 8, 64, 100, UNIT - 1, UNIT,
					 UNIT + 1, 1ull << 32 };
	static char buf[2 * UNIT];
	struct ddsm_tx_iov iov[DDSM_TX_READV_MAX + 1];
	struct ddsm_tx_region_arg r = { 0 };
	struct ddsm_tx_readv_arg v = { 0 };
	struct ddsm_tx_arg a = { 0 };
	unsigned int k = rnd() % 20;
	unsigned long cmd;
	struct map *m;
	void *arg = &a;
	long ret;

	if (k < 4) {
		cmd = DDSM_IOC_TX_BEGIN;
	} else if (k < 9) {
		cmd = DDSM_IOC_TX_READ;
	} else if (k < 14) {
		cmd = DDSM_IOC_TX_WRITE;
	} else if (k < 17) {
		cmd = DDSM_IOC_TX_COMMIT;
	} else if (k < 18) {
		cmd = DDSM_IOC_TX_ABORT;
	} else if (k < 19) {
		cmd = rnd() % 2 ? DDSM_IOC_TX_STATUS : DDSM_IOC_TX_READV;
		arg = cmd == DDSM_IOC_TX_READV ? (void *)&v : (void *)buf;
		readv_args(&v, iov, buf);
	} else {
		cmd = DDSM_IOC_TX_REGION;
		arg = &r;
		r.gaddr = (uint64_t)(TX_UNIT + rnd() % TX_UNITS) * UNIT;
		r.len = (1 + rnd() % 2) * UNIT;
		if (r.gaddr + r.len > (uint64_t)(TX_UNIT + TX_UNITS) * UNIT)
			r.len = UNIT;
		switch (rnd() % 5) {
		case 0:
			r.gaddr += 1 + rnd() % (UNIT - 1);
			break;
		case 1:
			r.len = rnd() % 2 ? 0 : UNIT + 1;
			break;
		case 2:
			r.gaddr = 1ull << 38;
			break;
		case 3:
			r.flags = 1u << (rnd() % 32);
			break;
		}
	}
	if (cmd == DDSM_IOC_TX_READ || cmd == DDSM_IOC_TX_WRITE) {
		a.gaddr = tx_gaddr();
		a.len = (uint32_t)(rnd() % 3 ? 1 + rnd() % 256 :
				   pick(lens, sizeof(lens) / sizeof(lens[0])));
		a.buf = (uint64_t)(uintptr_t)buf;
		m = any_map();
		if (m && !(rnd() % 8))	/* a nested ddsm fault in the copy */
			a.buf = (uint64_t)(uintptr_t)m->addr;
		else if (!(rnd() % 16))
			a.buf = 8;
		if (cmd == DDSM_IOC_TX_WRITE)
			memset(buf, (int)rnd(), sizeof(buf));
	}
	if (!(rnd() % 16))
		a.flags = 1u << (rnd() % 32);
	if (!(rnd() % 16))
		a.reserved = (uint32_t)rnd();
	if (!(rnd() % 16))
		arg = (void *)8;
	ret = ioctl(open_fd(), cmd, arg);
	result(OP_TX, ret, errno);
}

static void do_one(void)
{
	enum op op = rnd() % OP_NR;
	struct map *m;
	long r, ret;
	int i;

	switch (op) {
	case OP_OPEN:
		i = rnd() % MAXFD;
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = open("/dev/ddsm", O_RDWR);
		result(op, fds[i], fds[i] < 0 ? errno : 0);
		break;
	case OP_CLOSE:
		i = rnd() % MAXFD;
		r = close(fds[i]);
		result(op, r, errno);
		fds[i] = -1;
		break;
	case OP_MMAP:
		do_mmap();
		break;
	case OP_MUNMAP:
		m = any_map();
		if (!m)
			break;
		r = munmap(m->addr, m->len);
		result(op, r, errno);
		m->addr = NULL;
		break;
	case OP_MPROTECT: {
		static const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE,
					     PROT_NONE, PROT_EXEC };
		int prot = prots[rnd() % 4];

		m = any_map();
		if (!m)
			break;
		r = mprotect(m->addr, m->len, prot);
		result(op, r, errno);
		if (!r)
			m->prot = prot;
		break;
	}
	case OP_MREMAP: {
		size_t len;
		void *p;

		m = any_map();
		if (!m)
			break;
		len = (1 + rnd() % 32) * UNIT;
		p = mremap(m->addr, m->len, len, rnd() % 2 ? MREMAP_MAYMOVE : 0);
		result(op, p == MAP_FAILED ? -1 : 0, errno);
		if (p != MAP_FAILED) {
			m->addr = p;
			m->len = len;
		}
		break;
	}
	case OP_MADVISE: {
		static const int adv[] = { MADV_NORMAL, MADV_RANDOM,
					   MADV_SEQUENTIAL, MADV_WILLNEED,
					   MADV_DONTNEED, MADV_REMOVE,
					   MADV_DONTFORK, MADV_DOFORK,
					   MADV_FREE, MADV_COLD, MADV_PAGEOUT,
					   MADV_POPULATE_READ };

		int a = adv[rnd() % 12];

		m = any_map();
		if (!m)
			break;
		r = madvise(m->addr, m->len, a);
		result(op, r, errno);
		if (!r && (a == MADV_DONTFORK || a == MADV_DOFORK))
			m->dontfork = a == MADV_DONTFORK;
		break;
	}
	case OP_FORK: {
		pid_t pid = fork();

		result(op, pid, errno);
		if (pid == 0) {
			in_child = 1;
			bad = 0;
			alarm(60);
			for (i = 0; i < 4; i++) {
				do_touch();
				do_tx();	/* on the parent's files */
			}
			_exit(bad ? 1 : 0);
		}
		if (pid > 0) {
			int st;

			waitpid(pid, &st, 0);
			if (!WIFEXITED(st) || WEXITSTATUS(st)) {
				if (bad++ < 10)
					printf("# node%d: forked child ended with status %#x\n",
					       me, st);
			}
		}
		break;
	}
	case OP_IOCTL:
		do_ioctl();
		break;
	case OP_TOUCH:
		do_touch();
		break;
	case OP_TX:
		do_tx();
		break;
	case OP_VMREAD: {
		struct iovec l, rv;
		char buf[64];

		m = any_map();
		if (!m)
			break;
		l.iov_base = buf;
		l.iov_len = sizeof(buf);
		rv.iov_base = m->addr;
		rv.iov_len = sizeof(buf);
		ret = process_vm_readv(getpid(), &l, 1, &rv, 1, 0);
		result(op, ret, errno);
		break;
	}
	case OP_NR:
		break;
	}
}

static int worker(int proc, unsigned long ops, uint64_t seed)
{
	struct sigaction sa;
	unsigned long i;
	int op, e;

	rng = seed ^ ((uint64_t)me << 40) ^ ((uint64_t)proc << 20) ^ 0x9e3779b9;
	if (!rng)
		rng = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fault;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	for (i = 0; i < ops; i++)
		do_one();
	for (i = 0; i < MAXMAP; i++)
		if (maps[i].addr)
			munmap(maps[i].addr, maps[i].len);
	for (op = 0; op < OP_NR; op++) {
		printf("# node%d.%d: %s %lu calls", me, proc, op_name[op],
		       calls[op]);
		for (e = 0; e < NERR; e++)
			if (errs[op][e])
				printf(", %s %lu", e ? strerrorname_np(e) : "?",
				       errs[op][e]);
		printf("\n");
	}
	return bad ? 1 : 0;
}

/* The region do_tx() works on, before any worker can map or touch it. */
static int declare_tx_region(void)
{
	struct ddsm_tx_region_arg r = {
		.gaddr = (uint64_t)TX_UNIT * UNIT,
		.len = (uint64_t)TX_UNITS * UNIT,
	};
	int fd = open("/dev/ddsm", O_RDWR);
	int ret = fd < 0 ? -1 : ioctl(fd, DDSM_IOC_TX_REGION, &r);

	tap(ret == 0, "transactional region of %u units at unit %u declared (%s)",
	    TX_UNITS, TX_UNIT, ret ? strerror(errno) : "ok");
	if (fd >= 0)
		close(fd);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long ops, procs, p, failed = 0;
	uint64_t seed;

	if (argc != 5)
		return 2;
	me = (int)parse_ul(argv[1], "node");
	ops = parse_ul(argv[2], "ops");
	seed = parse_ul(argv[3], "seed");
	procs = parse_ul(argv[4], "procs");
	tap_node = me;
	if (!procs || procs > 16)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (declare_tx_region())
		return 1;
	for (p = 0; p < procs; p++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(worker((int)p, ops / procs, seed));
	}
	for (p = 0; p < procs; p++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			failed++;
	}
	tap(!failed, "%lu random calls in %lu processes (seed %llu): every refusal a documented errno, no fault on a live mapping (%lu processes failed)",
	    ops, procs, (unsigned long long)seed, failed);
	return failed ? 1 : 0;
}
