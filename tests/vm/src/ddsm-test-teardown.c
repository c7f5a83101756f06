// SPDX-License-Identifier: GPL-2.0
/*
 * The writers of tests/vm/teardown:
 *   ddsm-test-teardown fill GADDR LEN
 *	give every unit of [GADDR, GADDR + LEN) homed on this node a new
 *	image and make it durable (the Scope barrier over the range), so
 *	that the home's pmem, and its backup's replica, hold an image of
 *	each: a later resync sends them all, long enough for the test to
 *	unload the module in the middle of it;
 *   ddsm-test-teardown dirty GADDR LEN HOME
 *	store into every unit of the range homed on HOME and leave them
 *	dirty here: when HOME dies, its backup's takeover has this node's
 *	copies to wait for (the test holds it there with takeover_delay_ms).
 * One TAP line; exit 0 iff it is ok.
 */
#include <inttypes.h>
#include <stdbool.h>
#include "test_common.h"

/* Store into the units of the range homed on @home; how many. */
static uint64_t write_units(struct ddsm *d, char *win, uint64_t gaddr,
			    uint64_t len, uint32_t home)
{
	struct ddsm_home_query q = { 0 };
	uint64_t off, n = 0;

	for (off = 0; off < len; off += DDSM_UNIT_SIZE) {
		if (ddsm_home(d, gaddr + off, &q)) {
			perror("ddsm_home");
			exit(1);
		}
		if (q.home != home)
			continue;
		memset(win + off, 0x5a ^ (int)(off >> 12), DDSM_UNIT_SIZE);
		n++;
	}
	return n;
}

int main(int argc, char **argv)
{
	uint64_t gaddr, len, n;
	struct ddsm_status st;
	bool fill, dirty;
	struct ddsm d;
	char *win;

	fill = argc == 4 && !strcmp(argv[1], "fill");
	dirty = argc == 5 && !strcmp(argv[1], "dirty");
	if ((!fill && !dirty) || ddsm_parse_size(argv[2], &gaddr) ||
	    ddsm_parse_size(argv[3], &len)) {
		fprintf(stderr, "usage: %s fill GADDR LEN | dirty GADDR LEN HOME\n",
			argv[0]);
		return 2;
	}
	if (ddsm_open(&d, NULL) || ddsm_status(&d, &st)) {
		perror("ddsm");
		return 1;
	}
	win = ddsm_map(&d, gaddr, len, PROT_READ | PROT_WRITE);
	if (!win) {
		perror("ddsm_map");
		return 1;
	}
	if (dirty) {
		n = write_units(&d, win, gaddr, len, (uint32_t)atoi(argv[4]));
		printf("ok - dirty: %" PRIu64 " units homed on node %s written, left dirty here\n",
		       n, argv[4]);
		return 0;
	}
	n = write_units(&d, win, gaddr, len, st.node_id);
	if (ddsm_persist(&d, gaddr, len)) {
		printf("not ok - fill: persist of %" PRIu64 " units: %s\n", n,
		       strerror(errno));
		return 1;
	}
	printf("ok - fill: %" PRIu64 " units homed here written and made durable\n",
	       n);
	return 0;
}
