// SPDX-License-Identifier: GPL-2.0
/*
 * The commands that change the node or wait for it: pmem persist, region
 * set, cluster join, cluster wait; and the old verbs whose output differs
 * from their new form (status, region).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ddsmctl.h"
#include "ddsmctl_config.h"
#include "ddsmctl_out.h"
#include "ddsmctl_show.h"

int cmd_pmem_persist(struct ctl *c, int argc, char **argv)
{
	uint64_t gaddr = 0, len = ddsm_size(c->h);

	if (argc == 1 || (argc == 2 && (ctl_size(c, argv[0], &gaddr) ||
					ctl_size(c, argv[1], &len))))
		return EXIT_USAGE;
	if (ddsm_persist(c->h, gaddr, len))
		return ctl_fail(c, "persist");
	return EXIT_OK;
}

int cmd_region_set(struct ctl *c, int argc, char **argv)
{
	uint64_t gaddr, len;
	uint32_t model;

	(void)argc;
	if (ctl_size(c, argv[0], &gaddr) || ctl_size(c, argv[1], &len))
		return EXIT_USAGE;
	if (ddsm_model_parse(argv[2], &model)) {
		fprintf(stderr, "%s: bad model '%s' (sync, strict, read_enf, eventual, scope)\n",
			c->prog, argv[2]);
		return EXIT_USAGE;
	}
	if (ddsm_region_set_model(c->h, gaddr, len, model))
		return ctl_fail(c, "region");
	return EXIT_OK;
}

/* The old `region GADDR [LEN MODEL]`: a get prints the bare model name. */
int cmd_region_legacy(struct ctl *c, int argc, char **argv)
{
	uint64_t gaddr;
	uint32_t model;

	if (argc == 3)
		return cmd_region_set(c, argc, argv);
	if (argc != 1)
		return EXIT_USAGE;
	if (ctl_size(c, argv[0], &gaddr))
		return EXIT_USAGE;
	if (ddsm_region_model(c->h, gaddr, &model))
		return ctl_fail(c, "region");
	printf("%s\n", ddsm_model_name(model));
	return EXIT_OK;
}

int cmd_cluster_join(struct ctl *c, int argc, char **argv)
{
	uint64_t id;

	if (!strcmp(argv[0], "--config")) {
		if (argc != 2)
			return EXIT_USAGE;
		return ddsmctl_configure_file(c, argv[1]);
	}
	if (ddsm_parse_size(argv[0], &id) || id >= DDSM_MAX_NODES) {
		fprintf(stderr, "%s: bad node id '%s' (0..%d)\n", c->prog,
			argv[0], DDSM_MAX_NODES - 1);
		return EXIT_USAGE;
	}
	if (ctl_open(c))
		return EXIT_ERROR;
	if (ddsm_configure(c->h, (uint32_t)id, argc > 1 ? argv[1] : "")) {
		fprintf(stderr, "%s: configure node %" PRIu64 " on %s: %s\n",
			c->prog, id, c->dev, strerror(errno));
		return EXIT_ERROR;
	}
	printf("node %u of %u\n", ddsm_node_id(c->h), ddsm_nr_nodes(c->h));
	return EXIT_OK;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Peers not up yet, listed into @buf; -1 (errno set) if the device fails. */
static int peers_down(struct ddsm *h, char *buf, size_t len)
{
	struct ddsm_peer_info pi;
	size_t used = 0;
	uint32_t i, nr = ddsm_nr_nodes(h);
	int down = 0;

	buf[0] = 0;
	for (i = 0; i < nr; i++) {
		if (ddsm_peer(h, i, &pi))
			return -1;
		if (pi.state == DDSM_PEER_SELF || pi.state == DDSM_PEER_UP)
			continue;
		down++;
		if (used < len)
			used += snprintf(buf + used, len - used, " %u (%s)",
					 i, ddsm_peer_state_name(pi.state));
	}
	return down;
}

int cmd_cluster_wait(struct ctl *c, int argc, char **argv)
{
	double timeout = 60, t0 = now_s();
	char which[512], *end;
	int down;

	if (argc == 2 && !strcmp(argv[0], "--timeout")) {
		errno = 0;
		timeout = strtod(argv[1], &end);
		if (errno || end == argv[1] || *end ||
		    !(timeout >= 0 && timeout <= 86400))
			return EXIT_USAGE;
	} else if (argc == 2 && !strcmp(argv[0], "--config")) {
		if (ddsmctl_conf_wait_timeout(argv[1], &timeout))
			return EXIT_ERROR;
	} else if (argc) {
		return EXIT_USAGE;
	}
	if (ctl_open(c))
		return EXIT_ERROR;
	for (;;) {
		down = peers_down(c->h, which, sizeof(which));
		if (down < 0)
			return ctl_fail(c, "peer");
		if (!down) {
			printf("all %u peers up after %.1f s\n",
			       ddsm_nr_nodes(c->h) ? ddsm_nr_nodes(c->h) - 1 : 0,
			       now_s() - t0);
			return EXIT_OK;
		}
		if (now_s() - t0 >= timeout)
			break;
		usleep(50000);
	}
	fprintf(stderr, "%s: after %g s, not up:%s\n", c->prog, timeout, which);
	return EXIT_TIMEOUT;
}

/*
 * The old `status`: everything at once, in the format scripts grep
 * ("node id: 0", one "peer N: ..." line per node, "faults_read: 3");
 * `node show`, `peer show`, `pmem show` and `tx stats` are its parts in
 * one key style.  With -j it is their four objects in one document.
 */
static void legacy_peer(const struct ddsm_peer_info *pi)
{
	printf("  peer %u: node %u state %s addr %.*s msgs %" PRIu64 "/%" PRIu64
	       " bytes %" PRIu64 "/%" PRIu64 " drops %" PRIu64
	       " retries %" PRIu64 " deaths %" PRIu64 " suspicions %" PRIu64
	       " probes_ok %" PRIu64 " ctrl %" PRIu64 " setup_timeouts %" PRIu64
	       " auth_failures %" PRIu64 "\n",
	       pi->index, pi->node_id, ddsm_peer_state_name(pi->state),
	       (int)strnlen(pi->addr, sizeof(pi->addr)),
	       pi->addr[0] ? pi->addr : "-",
	       (uint64_t)pi->msgs_sent, (uint64_t)pi->msgs_recv,
	       (uint64_t)pi->bytes_sent, (uint64_t)pi->bytes_recv,
	       (uint64_t)pi->drops, (uint64_t)pi->retries,
	       (uint64_t)pi->deaths, (uint64_t)pi->suspicions,
	       (uint64_t)pi->probes_ok, (uint64_t)pi->ctrl_sent,
	       (uint64_t)pi->setup_timeouts, (uint64_t)pi->auth_failures);
}

static void legacy_pmem(const struct ddsm_pmem_status *ps)
{
	if (!(ps->flags & DDSM_PMEM_ON)) {
		printf("pmem: none\n");
		return;
	}
	printf("pmem: %.*s (%" PRIu64 " MiB), %s at mount%s\n",
	       (int)strnlen(ps->device, sizeof(ps->device)), ps->device,
	       (uint64_t)ps->ns_bytes >> 20,
	       ps->flags & DDSM_PMEM_FORMATTED ? "formatted" :
	       ps->flags & DDSM_PMEM_WAS_CLEAN ? "clean" : "recovered",
	       ps->flags & DDSM_PMEM_CHECK ? ", persist-domain checker on" : "");
#define C(field) printf("pmem_" #field ": %" PRIu64 "\n", (uint64_t)(ps->field))
	C(generation);
	C(nr_slots);
	C(units_present);
	C(units_torn);
	C(log_seen);
	C(log_applied);
	C(log_obsolete);
	C(log_torn);
	C(persists);
	C(records);
	C(bytes);
	C(flushes);
	C(fences);
	C(dirty);
	C(errors);
	C(barriers);
	C(persist_sent);
	C(persist_served);
	C(durable_grants);
	C(durable_errors);
	if (ps->flags & DDSM_PMEM_BACKUP) {
		printf("pmem_backup: %s%s\n",
		       ps->flags & DDSM_PMEM_SYNCED ? "synced" : "degraded",
		       ps->flags & DDSM_PMEM_TOOK_OVER ?
		       ", serving the predecessor's units" : "");
		C(replica_units);
		C(replica_bytes);
		C(replica_sent);
		C(replica_acked);
		C(replica_recv);
		C(replica_degraded);
		C(replica_resyncs);
		C(failovers);
		C(replica_window_waits);
		C(replica_window_full);
		C(replica_in_peak);
	}
#undef C
}

static void legacy_tx(const struct ddsm_tx_status *ts)
{
	uint32_t r;

#define C(field) printf("tx_" #field ": %" PRIu64 "\n", (uint64_t)(ts->field))
	C(begins);
	C(commits);
	for (r = 1; r < DDSM_TX_REASON_NR; r++)
		printf("tx_aborts_%s: %" PRIu64 "\n", ddsm_tx_reason_name(r),
		       (uint64_t)ts->aborts[r]);
	C(reads);
	C(read_retries);
	C(reads_ahead);
	C(read_batches);
	C(readv_confirms);
	C(validations_carried);
	C(intends_sent);
	C(fallbacks);
	C(home_reads);
	C(home_intends);
	C(home_nacks);
	C(home_squashes);
	C(home_validations);
	C(home_aborts);
	C(home_full);
	C(home_pins);
	C(home_in_doubt);
	C(home_rollbacks);
	C(home_rollforwards);
#undef C
}

static void legacy_node(const struct ddsm_status *st)
{
	printf("space size: %" PRIu64 " (%" PRIu64 " MiB)\n",
	       (uint64_t)st->size, (uint64_t)st->size >> 20);
	printf("unit size: %u\n", st->unit_size);
	if (st->frames_limit)
		printf("frames limit: %" PRIu64 "\n", (uint64_t)st->frames_limit);
	else
		printf("frames limit: 0 (none)\n");
#define C(field) printf(#field ": %" PRIu64 "\n", (uint64_t)(st->field))
	C(faults_read);
	C(faults_write);
	C(upgrades);
	C(remaps);
	C(pages_resident);
	C(msgs_sent);
	C(msgs_recv);
	C(msgs_dropped);
	C(mappings);
	C(fault_timeouts);
	C(evictions);
	C(home_waits);
	C(fault_kills);
	C(hold_expired);
	C(units_lost);
	C(units_restored);
	C(orphans);
	C(orphans_dropped);
	C(lost_retries);
	C(excl_reads);
	C(graces);
	C(handoffs);
	C(deferred);
	C(cache_frames);
	C(fault_errors);
#undef C
}

int cmd_status(struct ctl *c, int argc, char **argv)
{
	struct ddsm_pmem_status ps;
	struct ddsm_tx_status ts;
	struct ddsm_peer_info pi;
	struct ddsm_status st;
	uint32_t i;

	(void)argc;
	(void)argv;
	if (ddsm_status(c->h, &st))
		return ctl_fail(c, "status");
	if (c->json) {
		out_start(1);
		out_object("node", NULL);
		show_node(&st);
		out_object_end();
		out_array("peers");
	} else {
		printf("abi version: %u\n", st.abi_version);
		printf("node id: %u\n", st.node_id);
		printf("nr nodes: %u\n", st.nr_nodes);
		printf("peers: (sent/recv)\n");
	}
	for (i = 0; i < st.nr_nodes; i++) {
		if (ddsm_peer(c->h, i, &pi)) {
			fflush(stdout);
			return ctl_fail(c, "peer");
		}
		if (c->json)
			show_peer(&pi);
		else
			legacy_peer(&pi);
	}
	if (ddsm_pmem_status(c->h, &ps) || ddsm_tx_status(c->h, &ts)) {
		fflush(stdout);
		return ctl_fail(c, "status");
	}
	if (!c->json) {
		legacy_node(&st);
		legacy_pmem(&ps);
		legacy_tx(&ts);
		return fflush(stdout) ? ctl_fail(c, "write") : EXIT_OK;
	}
	out_array_end();
	out_object("pmem", NULL);
	show_pmem(&ps);
	out_object_end();
	out_object("tx", NULL);
	show_tx(&ts);
	out_object_end();
	return out_finish() ? ctl_fail(c, "write") : EXIT_OK;
}
