// SPDX-License-Identifier: GPL-2.0
/*
 * Who may call what (docs/api.md, "Who may call what"), on a node whose
 * regions root declared through cluster.conf (`ddsmctl cluster join
 * --config`, as ddsm.service does):
 *
 *   ddsm-test-privs NODE UID GID REGION MODEL TXREGION
 *   ddsm-test-privs as UID GID CMD [ARG...]
 *
 * The second form runs CMD as UID with GID as its only group (the guest
 * has no setpriv): the examples of the docs, as a user would run them.
 *
 * A child drops to UID with GID as its only group (a member of group
 * ddsm: /dev/ddsm is root:GID 0660, as the udev rule makes it; no
 * capability left) and opens the device itself.  It gets EPERM for
 * setting a region's model (DDSM_IOC_REGION without DDSM_REGION_GET) and
 * for DDSM_IOC_TX_REGION; it still gets the model of REGION (which must
 * be MODEL, a number of enum ddsm_model) and uses the regions: a store
 * into its own unit of REGION made durable (PERSIST), a transaction
 * writing its own word of TXREGION, committed and read back.  On a file
 * opened O_RDONLY, TX_WRITE, TX_COMMIT and PERSIST fail with EBADF (the
 * transaction stays, ABORT ends it), TX_READ works; the same for root.
 * REGION and TXREGION: 16 KiB each, declared on every node; NODE's unit
 * of REGION is REGION + NODE * 4 KiB (at most 4 nodes).
 *
 * Raw ioctls where the errno is the point; TAP lines; exit 0 iff all ok.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <ddsm/libddsm.h>

#define UNIT		DDSM_UNIT_SIZE
#define DEV		"/dev/ddsm"

static int node = -1, failed;

static void tap(int good, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void tap(int good, const char *fmt, ...)
{
	va_list ap;

	failed += !good;
	printf("%sok - node%d: ", good ? "" : "not ", node);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static const char *ename(int e)
{
	return e ? strerrorname_np(e) ?: "?" : "success";
}

/* A call that must fail with @want: "errno IOCTL ENAME: how". */
static void expect(const char *ioc, int want, long ret, const char *how)
{
	int err = errno;

	tap(ret == -1 && err == want, "errno %s %s: %s (got %s)", ioc,
	    ename(want), how, ret == -1 ? ename(err) : "success");
}

static void works(long ret, const char *what)
{
	int err = errno;

	tap(ret == 0, "%s (got %s)", what, ret ? ename(err) : "success");
}

static uint64_t region, txregion;
static uint32_t model;

/* The rules of the file: BEGIN and READ on a read-only file, no writing. */
static void read_only(const char *who)
{
	struct ddsm_persist_arg pa = { .gaddr = region + node * UNIT,
				       .len = UNIT };
	uint64_t word = 0;
	struct ddsm_tx_arg a = { 0 };
	char how[96];
	int fd = open(DEV, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		tap(0, "%s: open %s O_RDONLY: %s", who, DEV, ename(errno));
		return;
	}
	works(ioctl(fd, DDSM_IOC_TX_BEGIN, &a), "O_RDONLY: TX_BEGIN works");
	a = (struct ddsm_tx_arg){ .gaddr = txregion + node * 8,
				  .buf = (uintptr_t)&word, .len = 8 };
	works(ioctl(fd, DDSM_IOC_TX_READ, &a), "O_RDONLY: TX_READ works");
	snprintf(how, sizeof(how), "%s, a file opened O_RDONLY", who);
	expect("DDSM_IOC_TX_WRITE", EBADF, ioctl(fd, DDSM_IOC_TX_WRITE, &a),
	       how);
	a = (struct ddsm_tx_arg){ 0 };
	expect("DDSM_IOC_TX_COMMIT", EBADF,
	       ioctl(fd, DDSM_IOC_TX_COMMIT, &a), how);
	/* The refused COMMIT left the transaction: ABORT ends it. */
	works(ioctl(fd, DDSM_IOC_TX_ABORT, &a),
	      "O_RDONLY: TX_ABORT ends the transaction COMMIT left");
	expect("DDSM_IOC_PERSIST", EBADF, ioctl(fd, DDSM_IOC_PERSIST, &pa),
	       how);
	close(fd);
}

static int tx_put(struct ddsm *h, void *arg)
{
	return ddsm_tx_write(h, txregion + node * 8, arg, 8, NULL);
}

/* The unprivileged user: no say over regions, full use of them. */
static void user(void)
{
	struct ddsm_region_arg ra = { .gaddr = region, .len = 4 * UNIT,
				      .model = model };
	struct ddsm_tx_region_arg tr = { .gaddr = txregion, .len = 4 * UNIT };
	uint64_t word = 0x5eed0000 + node, back = 0;
	struct ddsm *h;
	uint32_t why;
	int fd = open(DEV, O_RDWR | O_CLOEXEC);
	volatile uint64_t *p;

	tap(fd >= 0, "uid %d (group %d only, no capability) opens %s O_RDWR (%s)",
	    (int)geteuid(), (int)getegid(), DEV, fd < 0 ? ename(errno) : "ok");
	if (fd < 0)
		return;
	expect("DDSM_IOC_REGION", EPERM, ioctl(fd, DDSM_IOC_REGION, &ra),
	       "set, the model root declared, without CAP_SYS_ADMIN");
	ra.gaddr = region + 4 * UNIT;
	ra.len = UNIT;
	expect("DDSM_IOC_REGION", EPERM, ioctl(fd, DDSM_IOC_REGION, &ra),
	       "set, a range of no region, without CAP_SYS_ADMIN");
	expect("DDSM_IOC_TX_REGION", EPERM,
	       ioctl(fd, DDSM_IOC_TX_REGION, &tr),
	       "without CAP_SYS_ADMIN");
	ra = (struct ddsm_region_arg){ .gaddr = region + node * UNIT,
				       .flags = DDSM_REGION_GET,
				       .model = 99 };
	works(ioctl(fd, DDSM_IOC_REGION, &ra),
	      "unprivileged: DDSM_REGION_GET works");
	tap(ra.model == model, "unprivileged: REGION get: model %u, root declared %u",
	    ra.model, model);
	close(fd);

	/* Use them: libddsm, as an application would. */
	h = ddsm_open(NULL);
	if (!h) {
		tap(0, "unprivileged: ddsm_open: %s", ename(errno));
		return;
	}
	p = ddsm_map(h, region + node * UNIT, UNIT, PROT_READ | PROT_WRITE);
	if (p) {
		*p = word;
		works(ddsm_persist(h, region + node * UNIT, UNIT),
		      "unprivileged: a store into the declared region made durable (PERSIST)");
		ddsm_unmap(h, (void *)p, UNIT);
	} else {
		tap(0, "unprivileged: map the declared region: %s", ename(errno));
	}
	works(ddsm_tx_run(h, tx_put, &word, 1000, &why),
	      "unprivileged: a transaction in the declared transactional region commits");
	works(ddsm_tx_begin(h) ||
	      ddsm_tx_read(h, txregion + node * 8, &back, 8, NULL) ||
	      ddsm_tx_abort(h), "unprivileged: and reads its write back");
	tap(back == word, "unprivileged: read %#llx, wrote %#llx",
	    (unsigned long long)back, (unsigned long long)word);
	ddsm_close(h);
	read_only("unprivileged");
}

static int drop(uid_t uid, gid_t gid)
{
	return setgroups(1, &gid) || setresgid(gid, gid, gid) ||
	       setresuid(uid, uid, uid) ? -1 : 0;
}

int main(int argc, char **argv)
{
	uid_t uid;
	gid_t gid;
	pid_t pid;
	int st;

	if (argc >= 5 && !strcmp(argv[1], "as")) {
		if (drop((uid_t)atoi(argv[2]), (gid_t)atoi(argv[3]))) {
			perror("ddsm-test-privs as: drop privileges");
			return 126;
		}
		execvp(argv[4], argv + 4);
		perror(argv[4]);
		return 127;
	}
	if (argc != 7) {
		fprintf(stderr, "usage: ddsm-test-privs NODE UID GID REGION MODEL TXREGION\n"
				"       ddsm-test-privs as UID GID CMD [ARG...]\n");
		return 2;
	}
	node = atoi(argv[1]);
	uid = (uid_t)atoi(argv[2]);
	gid = (gid_t)atoi(argv[3]);
	region = strtoull(argv[4], NULL, 0);
	model = (uint32_t)strtoul(argv[5], NULL, 0);
	txregion = strtoull(argv[6], NULL, 0);
	if (node < 0 || node > 3 || !uid) {
		fprintf(stderr, "ddsm-test-privs: NODE 0..3, UID not 0\n");
		return 2;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (drop(uid, gid)) {
			tap(0, "drop to uid %d gid %d: %s", (int)uid, (int)gid,
			    ename(errno));
			_exit(1);
		}
		user();
		_exit(failed ? 1 : 0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		tap(0, "fork/wait: %s", ename(errno));
	else
		tap(WIFEXITED(st) && !WEXITSTATUS(st),
		    "the unprivileged child's checks (exit %d)",
		    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	/* The rule is the file's, not the user's. */
	read_only("root");
	return failed ? 1 : 0;
}
