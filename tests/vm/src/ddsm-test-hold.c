// SPDX-License-Identifier: GPL-2.0
/*
 * ddsm-test-hold: keep /dev/ddsm open and mapped until told to stop, so a
 * script can check that `rmmod ddsm` is refused meanwhile.
 *
 * usage: ddsm-test-hold [-d DEV] [-o GADDR] [--close-fd] [--no-stdin]
 *                       [READY_FILE]
 *   --close-fd  close the descriptor right after mmap: only the mapping
 *               (through vma->vm_file) then pins the module
 *   --no-stdin  wait for a signal only (a background job's stdin is often
 *               /dev/null, which reads as EOF at once)
 *
 * Once mapped, it stores a marker in the unit and writes "ready" to
 * READY_FILE (atomically, via rename) or to stdout.  It then waits for
 * SIGTERM/SIGINT or end of file on stdin, checks the marker is still
 * there, unmaps, closes and exits 0.  Exit 1 on any failure, 2 on usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "libddsm.h"

static const char *prog = "ddsm-test-hold";

static int die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
	return 1;
}

static int say_ready(const char *file)
{
	char tmp[4096];
	FILE *f;

	if (!file) {
		printf("ready\n");
		return fflush(stdout) == EOF ? -1 : 0;
	}
	/* Write then rename, so a poller never reads a half-written file. */
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", file) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	fputs("ready\n", f);
	if (fclose(f) == EOF)
		return -1;
	return rename(tmp, file);
}

/* Returns the reason we stopped, or NULL on error. */
static const char *wait_for_stop(int sfd, bool use_stdin)
{
	struct pollfd pfd[2] = {
		{ .fd = sfd, .events = POLLIN },
		{ .fd = STDIN_FILENO, .events = POLLIN },
	};
	struct signalfd_siginfo si;
	char buf[256];

	for (;;) {
		if (poll(pfd, use_stdin ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return NULL;
		}
		if (pfd[0].revents & POLLIN) {
			if (read(sfd, &si, sizeof(si)) != sizeof(si))
				return NULL;
			return strsignal(si.ssi_signo);
		}
		if (use_stdin && pfd[1].revents) {
			ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

			if (n == 0)
				return "end of stdin";
			if (n < 0 && errno != EINTR && errno != EAGAIN)
				return NULL;
			/* Anything written to us is just ignored. */
		}
	}
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "close-fd", no_argument, NULL, 'c' },
		{ "no-stdin", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dev = NULL, *ready = NULL, *why;
	bool close_fd = false, use_stdin = true;
	unsigned long long gaddr = 0;
	volatile uint64_t *word;
	uint64_t marker;
	struct ddsm d;
	sigset_t sigs;
	char *end;
	int opt, sfd;

	while ((opt = getopt_long(argc, argv, "d:o:h", lopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'o':
			errno = 0;
			gaddr = strtoull(optarg, &end, 0);
			if (errno || !*optarg || *end)
				goto usage;
			break;
		case 'c':
			close_fd = true;
			break;
		case 'n':
			use_stdin = false;
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind > 1)
		goto usage;
	if (optind < argc)
		ready = argv[optind];

	/*
	 * Take SIGTERM/SIGINT through a signalfd, blocked from the start so
	 * that one arriving before we wait is still seen, not fatal.
	 */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL))
		return die("sigprocmask");
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (sfd < 0)
		return die("signalfd");

	if (ddsm_open(&d, dev))
		return die(dev ? dev : DDSM_DEFAULT_PATH);
	word = ddsm_map(&d, gaddr, DDSM_UNIT_SIZE, PROT_READ | PROT_WRITE);
	if (!word)
		return die("map");
	marker = 0xdd5e0000ULL ^ (uint64_t)getpid();
	*word = marker;		/* touch: make the unit resident */
	if (close_fd && ddsm_close(&d))
		return die("close");

	if (say_ready(ready))
		return die(ready ? ready : "stdout");

	why = wait_for_stop(sfd, use_stdin);
	if (!why)
		return die("wait");
	fprintf(stderr, "%s: stopping on %s\n", prog, why);

	/* The mapping must have survived whatever happened meanwhile. */
	if (*word != marker) {
		fprintf(stderr, "%s: marker changed: 0x%" PRIx64 "\n", prog,
			*word);
		return 1;
	}
	if (ddsm_unmap(&d, (void *)word, DDSM_UNIT_SIZE))
		return die("unmap");
	if (ddsm_close(&d))
		return die("close");
	return 0;

usage:
	fprintf(stderr, "usage: %s [-d DEV] [-o GADDR] [--close-fd] "
		"[--no-stdin] [READY_FILE]\n", prog);
	return opt == 'h' ? 0 : 2;
}
