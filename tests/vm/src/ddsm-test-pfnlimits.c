// SPDX-License-Identifier: GPL-2.0
/*
 * What the kernel refuses on ddsm memory, because it is a PFN mapping
 * (VM_PFNMAP: no struct page the kernel may pin): every interface that
 * pins user pages (get_user_pages) fails on it, with the errno that
 * docs/api.md "Limits of a PFN mapping" lists; ordinary loads, stores and
 * copies through the page tables (read/write of a file into or out of the
 * mapping) work.  One node; TAP lines; exit 0 iff every result is the
 * documented one.
 *
 *   ddsm-test-pfnlimits
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include "test_common.h"

#define LEN	(4 * DDSM_UNIT_SIZE)

/* One line: @what returned @ret/@err; documented: @want_err (0: works). */
static void expect(const char *what, long ret, int err, int want_err)
{
	int good = want_err ? ret == -1 && err == want_err : ret >= 0;

	tap(good, "%s: %s (documented: %s)", what,
	    ret >= 0 ? "works" : strerror(err),
	    want_err ? strerror(want_err) : "works");
}

int main(void)
{
	char buf[256], path[64];
	struct iovec local, remote;
	struct timespec ts = { 0, 1000000 };
	struct ddsm d;
	char *win;
	long ret;
	int fd, p[2];

	tap_node = 0;
	if (ddsm_open(&d, NULL)) {
		perror("ddsm_open");
		return 1;
	}
	win = map_window(&d, 0, LEN);
	memset(win, 0x5a, LEN);		/* resident, writable */

	/* Through the page tables: a copy to and from a pipe works. */
	if (pipe(p))
		return 1;
	ret = write(p[1], win, sizeof(buf));
	expect("write(2) from ddsm memory into a pipe", ret, errno, 0);
	ret = read(p[0], win + DDSM_UNIT_SIZE, sizeof(buf));
	expect("read(2) from a pipe into ddsm memory", ret, errno, 0);

	/* Pinning interfaces. */
	local.iov_base = buf;
	local.iov_len = sizeof(buf);
	remote.iov_base = win;
	remote.iov_len = sizeof(buf);
	ret = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	expect("process_vm_readv of ddsm memory", ret, errno, EFAULT);

	snprintf(path, sizeof(path), "/proc/%d/mem", getpid());
	fd = open(path, O_RDONLY);
	ret = fd < 0 ? -1 : pread(fd, buf, sizeof(buf), (off_t)(uintptr_t)win);
	expect("pread of /proc/PID/mem at ddsm memory (what gdb does)", ret,
	       errno, EIO);
	if (fd >= 0)
		close(fd);

	local.iov_base = win;
	ret = vmsplice(p[1], &local, 1, 0);
	expect("vmsplice of ddsm memory", ret, errno, EFAULT);

	ret = syscall(SYS_futex, (uint32_t *)win, FUTEX_WAIT, 0x5a5a5a5a, &ts,
		      NULL, 0);
	expect("FUTEX_WAIT (shared) on a ddsm word", ret, errno, EFAULT);
	ret = syscall(SYS_futex, (uint32_t *)win, FUTEX_WAIT_PRIVATE,
		      0x5a5a5a5a, &ts, NULL, 0);
	expect("FUTEX_WAIT_PRIVATE on a ddsm word (times out: it works)",
	       ret == -1 && errno == ETIMEDOUT ? 0 : ret, errno, 0);

	/* Every advice, for docs/api.md (not a check: they may change). */
	{
		static const struct { int adv; const char *name; } a[] = {
			{ MADV_NORMAL, "NORMAL" }, { MADV_RANDOM, "RANDOM" },
			{ MADV_SEQUENTIAL, "SEQUENTIAL" },
			{ MADV_WILLNEED, "WILLNEED" },
			{ MADV_DONTNEED, "DONTNEED" }, { MADV_FREE, "FREE" },
			{ MADV_REMOVE, "REMOVE" }, { MADV_COLD, "COLD" },
			{ MADV_PAGEOUT, "PAGEOUT" },
			{ MADV_POPULATE_READ, "POPULATE_READ" },
			{ MADV_POPULATE_WRITE, "POPULATE_WRITE" },
			{ MADV_HUGEPAGE, "HUGEPAGE" },
			{ MADV_MERGEABLE, "MERGEABLE" },
		};
		size_t i;

		for (i = 0; i < sizeof(a) / sizeof(a[0]); i++) {
			ret = madvise(win, LEN, a[i].adv);
			printf("# madvise(MADV_%s): %s\n", a[i].name,
			       ret ? strerror(errno) : "works");
		}
		memset(win, 0x5a, LEN);
	}
	ret = madvise(win, LEN, MADV_DONTFORK);
	expect("madvise(MADV_DONTFORK)", ret, errno, 0);
	ret = mlock(win, LEN);
	expect("mlock of ddsm memory", ret, errno, 0);
	return tap_failed ? 1 : 0;
}
