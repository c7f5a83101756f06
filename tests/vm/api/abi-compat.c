// SPDX-License-Identifier: GPL-2.0
/*
 * A program of ABI 11: built against the libddsm.h and linux/ddsm.h of
 * commit 1bb8847 and linked against that commit's libddsm.so.1
 * (tests/vm/api/host.sh builds all three from git).  It must run
 * unchanged with the current libddsm.so.1 put on its library path, which
 * binds it to the LIBDDSM_1 symbols: every structure it allocates (the
 * handle included) is followed by a canary the library must not touch,
 * and every call it makes gives what it gave with its own library.
 *
 *   abi-compat old|new   (which library the run expects: "new" has
 *                         ddsm_abi_version(), which ABI 11's had not)
 *
 * TAP lines; exit 0 iff all ok.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>	/* ABI 11's libddsm.h did not include it */
#include <libddsm.h>

#define CANARY	0x5a

static int node = -1, failed;

static void tap(int good, const char *what)
{
	printf("%sok - node%d: abi-compat: %s\n", good ? "" : "not ", node, what);
	failed |= !good;
}

static int intact(const unsigned char *c, size_t n)
{
	while (n--)
		if (c[n] != CANARY)
			return 0;
	return 1;
}

#define GUARDED(type) struct { type v; unsigned char canary[64]; }
#define GUARD(g) memset((g).canary, CANARY, sizeof((g).canary))
#define SAFE(g) intact((g).canary, sizeof((g).canary))

int main(int argc, char **argv)
{
	GUARDED(struct ddsm) d;
	GUARDED(struct ddsm_status) st;
	GUARDED(struct ddsm_peer_info) pi;
	GUARDED(struct ddsm_home_query) q;
	GUARDED(struct ddsm_pmem_status) ps;
	GUARDED(struct ddsm_tx_status) ts;
	int want_new = argc > 1 && !strcmp(argv[1], "new");
	int is_new = dlsym(RTLD_DEFAULT, "ddsm_abi_version") != NULL;
	uint64_t tx = 0, v, got = 0, *p;
	uint32_t i, reason;
	char what[160];

	setvbuf(stdout, NULL, _IOLBF, 0);
	GUARD(d);
	if (ddsm_open(&d.v, NULL)) {
		printf("Bail out! ddsm_open: %s\n", strerror(errno));
		return 1;
	}
	node = (int)d.v.node_id;
	snprintf(what, sizeof(what), "runs with %s libddsm.so.1 (wanted %s)",
		 is_new ? "the current" : "ABI 11's", want_new ? "current" : "ABI 11's");
	tap(is_new == want_new, what);
	tap(SAFE(d) && d.v.fd >= 0 && d.v.unit_size == 4096,
	    "ddsm_open fills the caller's 24-byte struct ddsm, nothing past it");

	GUARD(st);
	tap(!ddsm_status(&d.v, &st.v) && SAFE(st) &&
	    st.v.abi_version >= 11 && st.v.node_id == d.v.node_id,
	    "ddsm_status: ABI 11's struct ddsm_status, nothing past it");
	for (i = 0; i < d.v.nr_nodes; i++) {
		int ret;

		GUARD(pi);
		ret = ddsm_peer(&d.v, i, &pi.v);
		snprintf(what, sizeof(what), "ddsm_peer %u: %s, nothing past it",
			 i, ret ? strerror(errno) : ddsm_peer_state_name(pi.v.state));
		tap(!ret && SAFE(pi), what);
	}
	GUARD(q);
	tap(!ddsm_home(&d.v, 4096, &q.v) && SAFE(q) && q.v.unit == 1,
	    "ddsm_home: unit 1, nothing past it");
	GUARD(ps);
	tap(!ddsm_pmem_status(&d.v, &ps.v) && SAFE(ps),
	    "ddsm_pmem_status: nothing past ABI 11's structure");
	GUARD(ts);
	tap(!ddsm_tx_status(&d.v, &ts.v) && SAFE(ts),
	    "ddsm_tx_status: nothing past ABI 11's structure");

	/* Plain memory: a unit of this node's own, 32 MiB in. */
	p = ddsm_map(&d.v, (32 << 20) + (uint64_t)node * 4096, 4096,
		     PROT_READ | PROT_WRITE);
	tap(p != NULL, "ddsm_map");
	if (p) {
		__atomic_fetch_add(p, 1, __ATOMIC_SEQ_CST);
		tap(!ddsm_unmap(&d.v, p, 4096), "ddsm_unmap");
	}

	/* A transaction in ABI 11's argument order, on a unit homed here. */
	for (v = 40 << 20; v < (41 << 20); v += 4096) {
		if (!ddsm_home(&d.v, v, &q.v) && q.v.home == d.v.node_id) {
			tx = v;
			break;
		}
	}
	v = 0x11 + (uint64_t)node;
	tap(tx && !ddsm_tx_region(&d.v, tx, 4096) && !ddsm_tx_begin(&d.v) &&
	    !ddsm_tx_write(&d.v, tx, &v, sizeof(v), &reason) &&
	    !ddsm_tx_commit(&d.v, &reason) && !ddsm_tx_begin(&d.v) &&
	    !ddsm_tx_read(&d.v, tx, sizeof(got), &got, &reason) &&
	    !ddsm_tx_commit(&d.v, &reason) && got == v,
	    "ddsm_tx_read(d, gaddr, len, buf): reads back what was committed");
	errno = 0;
	tap(ddsm_tx_abort(&d.v) == -1 && errno == EINVAL,
	    "ddsm_tx_abort without a transaction: EINVAL");

	/* The durable write took both addresses in ABI 11. */
	if (ps.v.flags & DDSM_PMEM_ON) {
		uint64_t g = (48 << 20) + (uint64_t)node * 4096, rec = 0xabc;

		p = ddsm_map(&d.v, g, 4096, PROT_READ | PROT_WRITE);
		tap(p && !ddsm_write_durable(&d.v, p, g, &rec, sizeof(rec)) &&
		    *p == rec, "ddsm_write_durable(d, dst, gaddr, src, len)");
		if (p)
			ddsm_unmap(&d.v, p, 4096);
	}
	tap(!ddsm_close(&d.v) && d.v.fd == -1 && SAFE(d),
	    "ddsm_close sets the caller's fd to -1, nothing past it");
	return failed;
}
