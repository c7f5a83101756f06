// SPDX-License-Identifier: GPL-2.0
/*
 * An upgrade waits without mmap_lock (issue 15): a store to a unit this
 * node holds read-only, whose home is unreachable for a while, must not
 * hold up the process's other threads.  Before, pfn_mkwrite waited with
 * mmap_lock held for as long as the home took (up to fault_timeout_ms).
 *
 *   ddsm-test-upgrade NODES HOME [ROUND]
 *
 * Reads a unit homed on HOME (a read-only copy here), says "upgrade
 * ready ROUND" on /dev/ttyS1 and waits for "upgrade go" on the control line
 * (fd 3), which the host sends once HOME's link is down.  Then one
 * thread stores to the unit, and another maps and unmaps another window
 * 20 times (mmap and munmap take mmap_lock for writing).  The check is
 * an order, not a time: the second thread must be done while the store
 * still waits.  Meanwhile a child process's transactional read of a line
 * homed on HOME waits too, and is SIGKILLed: it must be gone while the
 * store still waits (transaction waits end on a fatal signal).  Then the
 * store must complete once the host brought the link back.  The caller
 * declared the transactional region from 64 MiB (ddsm-test-bank).  ROUND
 * (default 0) picks a unit of its own for each run in one boot, so that
 * every round starts from a read-only copy.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <stdbool.h>
#include "test_common.h"

#define UNIT		4096
#define BASE_UNIT	12288		/* 48 MiB: clear of the other tests */
#define SCRATCH_UNIT	14336
#define TX_UNIT		16384		/* ddsm-test-bank's region */

static volatile uint64_t *target;
static volatile int stored, maps_done, stored_before_maps;
static int fd;

static void *store(void *arg)
{
	(void)arg;
	*target = 0x55706772616465ULL;	/* the upgrade */
	__atomic_store_n(&stored, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *map_unmap(void *arg)
{
	int i;

	(void)arg;
	usleep(300000);		/* the store is in its fault by now */
	for (i = 0; i < 20; i++) {
		void *p = mmap(NULL, UNIT, PROT_READ | PROT_WRITE, MAP_SHARED,
			       fd, (off_t)SCRATCH_UNIT * UNIT);

		if (p == MAP_FAILED)
			break;
		munmap(p, UNIT);
	}
	stored_before_maps = __atomic_load_n(&stored, __ATOMIC_ACQUIRE);
	__atomic_store_n(&maps_done, i, __ATOMIC_RELEASE);
	return NULL;
}

static bool host_says(const char *word, int secs)
{
	FILE *ctl = fdopen(dup(3), "r");
	char line[128];
	uint64_t end = now_ns() + (uint64_t)secs * 1000000000ull;

	if (!ctl)
		return false;
	while (now_ns() < end && fgets(line, sizeof(line), ctl)) {
		line[strcspn(line, "\r\n")] = 0;
		if (!strcmp(line, word)) {
			fclose(ctl);
			return true;
		}
	}
	fclose(ctl);
	return false;
}

int main(int argc, char **argv)
{
	pthread_t a, b;
	int status = 0, killed_before_store;
	pid_t child;
	uint64_t unit, v;
	char *win;
	FILE *tty;
	int nodes, home, round = 0;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: %s NODES HOME [ROUND]\n", argv[0]);
		return 2;
	}
	nodes = (int)parse_ul(argv[1], "NODES");
	home = (int)parse_ul(argv[2], "HOME");
	if (argc == 4)
		round = (int)parse_ul(argv[3], "ROUND");
	tap_node = -1;
	fd = open("/dev/ddsm", O_RDWR);
	if (fd < 0)
		tap_bail("open /dev/ddsm: %s", strerror(errno));
	unit = BASE_UNIT - BASE_UNIT % nodes + home + (uint64_t)round * nodes;
	win = mmap(NULL, UNIT, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   (off_t)unit * UNIT);
	if (win == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	target = (volatile uint64_t *)win;
	v = *target;		/* a read-only copy here */
	(void)v;
	tty = fopen("/dev/ttyS1", "w");
	if (tty) {
		fprintf(tty, "upgrade ready %d\n", round);
		fclose(tty);
	}
	if (!host_says("upgrade go", 300))
		tap_bail("no 'upgrade go' from the host");
	pthread_create(&a, NULL, store, NULL);
	pthread_create(&b, NULL, map_unmap, NULL);
	child = fork();
	if (child == 0) {
		int cfd = open("/dev/ddsm", O_RDWR);
		uint64_t buf;
		struct ddsm_tx_arg t = { 0 };
		struct ddsm_tx_arg r = {
			.gaddr = (TX_UNIT - TX_UNIT % nodes + home) * UNIT,
			.buf = (uintptr_t)&buf, .len = 8,
		};

		if (cfd < 0 || ioctl(cfd, DDSM_IOC_TX_BEGIN, &t))
			_exit(2);
		ioctl(cfd, DDSM_IOC_TX_READ, &r);	/* waits for HOME */
		_exit(3);
	}
	usleep(300000);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	killed_before_store = !__atomic_load_n(&stored, __ATOMIC_ACQUIRE);
	tap(WIFSIGNALED(status) && killed_before_store,
	    "a transaction waiting for an unreachable home ends at SIGKILL (%s, store %s)",
	    WIFSIGNALED(status) ? "killed" : "exited",
	    killed_before_store ? "still waiting" : "done first");
	pthread_join(b, NULL);
	tap(maps_done == 20 && !stored_before_maps,
	    "20 mmap/munmap of another window while a store to a unit of an unreachable home waited (done %d, store %s)",
	    maps_done, stored_before_maps ? "done first" : "still waiting");
	pthread_join(a, NULL);
	tap(*target == 0x55706772616465ULL,
	    "the store completed once its home was back");
	return tap_failed ? 1 : 0;
}
