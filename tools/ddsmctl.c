// SPDX-License-Identifier: GPL-2.0
/*
 * ddsmctl: show the state of the local ddsm node.
 *
 *   ddsmctl [-d DEV] status        node, peers, geometry, counters
 *   ddsmctl [-d DEV] home GADDR    home node, unit and local state of GADDR
 *   ddsmctl [-d DEV] wait [--timeout S]   until every peer is up
 *   ddsmctl [-d DEV] configure --config FILE   (ddsmctl_config.c)
 *   ddsmctl help [COMMAND]
 * The manual page, docs/man/ddsmctl.8, follows usage() below.
 *
 * Exit: 0 ok, 1 runtime error (message on stderr), 2 usage error.
 * The output is meant for people and for grep in the guest scripts, so
 * every value sits on its own "key: value" line with a fixed key.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libddsm.h"
#include "ddsmctl_config.h"
#include "ddsmctl_help.h"

#define EXIT_RUNTIME	1
#define EXIT_USAGE	2

static const char *prog = "ddsmctl";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [-d DEVICE] COMMAND\n"
		"commands:\n"
		"  status         node id, peers, space geometry and counters\n"
		"  home GADDR     home node, unit and local cache state of a\n"
		"                 global address (decimal, 0x hex, K/M/G suffix)\n"
		"  configure ID [IP,IP,...]\n"
		"                 join a cluster as node ID (nothing may be mapped\n"
		"                 or touched yet); no list: back to one node\n"
		"  configure --config FILE\n"
		"                 join the cluster FILE describes (and set its\n"
		"                 run-time parameters); nothing to do if this\n"
		"                 node is in it already\n"
		"  modprobe-args [--config FILE]\n"
		"                 print FILE's load-time module parameters\n"
		"                 (default FILE: %s)\n"
		"  persist [GADDR LEN]\n"
		"                 make the units of the range (default: the\n"
		"                 whole space) homed here durable on pmem\n"
		"  region GADDR [LEN MODEL]\n"
		"                 the persistency model at GADDR, or set the\n"
		"                 range's model (sync, strict, read_enf,\n"
		"                 eventual, scope) on this node\n"
		"  wait [--timeout S | --config FILE]\n"
		"                 block until every configured peer is up (default\n"
		"                 60 s, or FILE's wait_timeout); exit 1 naming\n"
		"                 the peers that are not\n"
		"  help [COMMAND]\n"
		"                 this text, or only COMMAND's\n"
		"DEVICE defaults to %s.\n", prog, DDSMCTL_CONFIG_DEFAULT,
		DDSM_DEFAULT_PATH);
}

static int fail(const char *what, const char *dev)
{
	fprintf(stderr, "%s: %s %s: %s\n", prog, what, dev, strerror(errno));
	return EXIT_RUNTIME;
}


static void print_peer(const struct ddsm_peer_info *pi)
{
	/* addr is NUL terminated by contract; do not trust it blindly. */
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

static int print_pmem(struct ddsm *d, const char *dev)
{
	struct ddsm_pmem_status ps;

	if (ddsm_pmem_status(d, &ps))
		return fail("pmem status", dev);
	if (!(ps.flags & DDSM_PMEM_ON)) {
		printf("pmem: none\n");
		return 0;
	}
	printf("pmem: %.*s (%" PRIu64 " MiB), %s at mount%s\n",
	       (int)strnlen(ps.device, sizeof(ps.device)), ps.device,
	       (uint64_t)ps.ns_bytes >> 20,
	       ps.flags & DDSM_PMEM_FORMATTED ? "formatted" :
	       ps.flags & DDSM_PMEM_WAS_CLEAN ? "clean" : "recovered",
	       ps.flags & DDSM_PMEM_CHECK ? ", persist-domain checker on" : "");
#define C(field) printf("pmem_" #field ": %" PRIu64 "\n", (uint64_t)ps.field)
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
	if (ps.flags & DDSM_PMEM_BACKUP) {
		printf("pmem_backup: %s%s\n",
		       ps.flags & DDSM_PMEM_SYNCED ? "synced" : "degraded",
		       ps.flags & DDSM_PMEM_TOOK_OVER ?
		       ", serving the predecessor's units" : "");
		C(replica_units);
		C(replica_bytes);
		C(replica_sent);
		C(replica_acked);
		C(replica_recv);
		C(replica_degraded);
		C(replica_resyncs);
		C(failovers);
	}
#undef C
	return 0;
}

/* HADES transactions: this node as coordinator, then as home. */
static int print_tx(struct ddsm *d, const char *dev)
{
	struct ddsm_tx_status ts;
	uint32_t r;

	if (ddsm_tx_status(d, &ts))
		return fail("tx status", dev);
#define C(field) printf("tx_" #field ": %" PRIu64 "\n", (uint64_t)ts.field)
	C(begins);
	C(commits);
	for (r = 1; r < DDSM_TX_REASON_NR; r++)
		printf("tx_aborts_%s: %" PRIu64 "\n", ddsm_tx_reason_name(r),
		       (uint64_t)ts.aborts[r]);
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
	return 0;
}

static int cmd_persist(struct ddsm *d, const char *dev, uint64_t gaddr,
		       uint64_t len)
{
	struct ddsm_status st;

	if (!len) {
		if (ddsm_status(d, &st))
			return fail("status", dev);
		len = st.size;
	}
	if (ddsm_persist(d, gaddr, len))
		return fail("persist", dev);
	return 0;
}

static int cmd_region(struct ddsm *d, const char *dev, uint64_t gaddr,
		      uint64_t len, const char *name)
{
	uint32_t model;

	if (!name) {
		if (ddsm_region_model(d, gaddr, &model))
			return fail("region", dev);
		printf("%s\n", ddsm_model_name(model));
		return 0;
	}
	if (ddsm_model_parse(name, &model) ||
	    ddsm_region_set_model(d, gaddr, len, model))
		return fail("region", dev);
	return 0;
}

static int cmd_status(struct ddsm *d, const char *dev)
{
	struct ddsm_status st;
	struct ddsm_peer_info pi;
	uint32_t i;

	if (ddsm_status(d, &st))
		return fail("status", dev);

	printf("abi version: %u\n", st.abi_version);
	printf("node id: %u\n", st.node_id);
	printf("nr nodes: %u\n", st.nr_nodes);
	printf("peers: (sent/recv)\n");
	for (i = 0; i < st.nr_nodes; i++) {
		if (ddsm_peer(d, i, &pi)) {
			fflush(stdout);
			fprintf(stderr, "%s: peer %u on %s: %s\n", prog, i, dev,
				strerror(errno));
			return EXIT_RUNTIME;
		}
		print_peer(&pi);
	}
	printf("space size: %" PRIu64 " (%" PRIu64 " MiB)\n",
	       (uint64_t)st.size, (uint64_t)st.size >> 20);
	printf("unit size: %u\n", st.unit_size);
	if (st.frames_limit)
		printf("frames limit: %" PRIu64 "\n", (uint64_t)st.frames_limit);
	else
		printf("frames limit: 0 (none)\n");

#define C(field) printf(#field ": %" PRIu64 "\n", (uint64_t)st.field)
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
	return print_pmem(d, dev) ?: print_tx(d, dev);
}

static int cmd_home(struct ddsm *d, const char *dev, uint64_t gaddr)
{
	struct ddsm_home_query q;

	if (ddsm_home(d, gaddr, &q)) {
		fprintf(stderr, "%s: home 0x%" PRIx64 " on %s: %s\n", prog,
			gaddr, dev, strerror(errno));
		return EXIT_RUNTIME;
	}
	printf("gaddr: 0x%" PRIx64 "\n", (uint64_t)q.gaddr);
	printf("home: %u\n", q.home);
	printf("unit: %" PRIu64 "\n", (uint64_t)q.unit);
	printf("state: %s\n", ddsm_unit_state_name(q.state));
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Peers not up yet, listed into @buf; -1 (errno set) if the device fails. */
static int peers_down(struct ddsm *d, char *buf, size_t len)
{
	struct ddsm_peer_info pi;
	size_t used = 0;
	uint32_t i;
	int down = 0;

	buf[0] = 0;
	for (i = 0; i < d->nr_nodes; i++) {
		if (ddsm_peer(d, i, &pi))
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

static int cmd_wait(struct ddsm *d, const char *dev, double timeout)
{
	double t0 = now_s();
	char which[512];
	int down;

	for (;;) {
		down = peers_down(d, which, sizeof(which));
		if (down < 0)
			return fail("peer", dev);
		if (!down) {
			printf("all %u peers up after %.1f s\n",
			       d->nr_nodes ? d->nr_nodes - 1 : 0, now_s() - t0);
			return 0;
		}
		if (now_s() - t0 >= timeout)
			break;
		usleep(50000);
	}
	fprintf(stderr, "%s: after %g s, not up:%s\n", prog, timeout, which);
	return EXIT_RUNTIME;
}

static int cmd_configure(struct ddsm *d, const char *dev, uint32_t id,
			 const char *nodes)
{
	if (ddsm_configure(d, id, nodes)) {
		fprintf(stderr, "%s: configure node %u on %s: %s\n", prog, id,
			dev, strerror(errno));
		return EXIT_RUNTIME;
	}
	printf("node %u of %u\n", d->node_id, d->nr_nodes);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev = DDSM_DEFAULT_PATH;
	const char *cmd;
	struct ddsm d;
	uint64_t gaddr = 0, id = 0, len = 0;
	const char *list = "", *model = NULL, *conf = NULL;
	double timeout = 60;
	int argi = 1, ret;

	if (argc > 0 && argv[0] && argv[0][0])
		prog = argv[0];

	if (argi < argc && !strcmp(argv[argi], "-d")) {
		if (argi + 1 >= argc) {
			usage(stderr);
			return EXIT_USAGE;
		}
		dev = argv[argi + 1];
		argi += 2;
	}
	if (argi >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[argi++];

	if (!strcmp(cmd, "help") && argi < argc) {
		if (argi + 1 != argc)
			goto bad;
		return ddsmctl_help(usage, argv[argi]);
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "-h") ||
	    !strcmp(cmd, "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "modprobe-args")) {
		ret = ddsmctl_modprobe_args(argc - argi, argv + argi);
		if (ret == EXIT_USAGE)
			goto bad;
		return ret;
	}
	/* Validate the command line before touching the device. */
	if (!strcmp(cmd, "status")) {
		if (argi != argc)
			goto bad;
	} else if (!strcmp(cmd, "home")) {
		if (argi + 1 != argc)
			goto bad;
		if (ddsm_parse_size(argv[argi], &gaddr)) {
			fprintf(stderr, "%s: bad global address '%s'\n", prog,
				argv[argi]);
			goto bad;
		}
	} else if (!strcmp(cmd, "configure")) {
		if (argi + 2 == argc && !strcmp(argv[argi], "--config"))
			conf = argv[argi + 1];
		else if (argi >= argc || argi + 2 < argc ||
		    ddsm_parse_size(argv[argi], &id) || id >= DDSM_MAX_NODES)
			goto bad;
		if (argi + 1 < argc)
			list = argv[argi + 1];
	} else if (!strcmp(cmd, "persist")) {
		if (argi != argc && argi + 2 != argc)
			goto bad;
		if (argi != argc && (ddsm_parse_size(argv[argi], &gaddr) ||
				     ddsm_parse_size(argv[argi + 1], &len) ||
				     !len))
			goto bad;
	} else if (!strcmp(cmd, "region")) {
		if (argi + 1 != argc && argi + 3 != argc)
			goto bad;
		if (ddsm_parse_size(argv[argi], &gaddr))
			goto bad;
		if (argi + 3 == argc) {
			uint32_t m;

			if (ddsm_parse_size(argv[argi + 1], &len) || !len ||
			    ddsm_model_parse(argv[argi + 2], &m)) {
				fprintf(stderr, "%s: bad length or model (sync, strict, read_enf, eventual, scope)\n",
					prog);
				goto bad;
			}
			model = argv[argi + 2];
		}
	} else if (!strcmp(cmd, "wait")) {
		char *end;

		if (argi == argc - 2 && !strcmp(argv[argi], "--timeout")) {
			errno = 0;
			timeout = strtod(argv[argi + 1], &end);
			if (errno || end == argv[argi + 1] || *end ||
			    !(timeout >= 0 && timeout <= 86400))
				goto bad;
		} else if (argi == argc - 2 && !strcmp(argv[argi], "--config")) {
			if (ddsmctl_conf_wait_timeout(argv[argi + 1], &timeout))
				return EXIT_RUNTIME;
		} else if (argi != argc) {
			goto bad;
		}
	} else {
		fprintf(stderr, "%s: unknown command '%s'\n", prog, cmd);
		goto bad;
	}

	if (ddsm_open(&d, dev))
		return fail("open", dev);
	if (!strcmp(cmd, "status"))
		ret = cmd_status(&d, dev);
	else if (!strcmp(cmd, "configure") && conf)
		ret = ddsmctl_configure_file(&d, dev, conf);
	else if (!strcmp(cmd, "configure"))
		ret = cmd_configure(&d, dev, (uint32_t)id, list);
	else if (!strcmp(cmd, "wait"))
		ret = cmd_wait(&d, dev, timeout);
	else if (!strcmp(cmd, "persist"))
		ret = cmd_persist(&d, dev, gaddr, len);
	else if (!strcmp(cmd, "region"))
		ret = cmd_region(&d, dev, gaddr, len, model);
	else
		ret = cmd_home(&d, dev, gaddr);
	ddsm_close(&d);
	if (fflush(stdout) == EOF && !ret) {
		fprintf(stderr, "%s: write: %s\n", prog, strerror(errno));
		ret = EXIT_RUNTIME;
	}
	return ret;

bad:
	usage(stderr);
	return EXIT_USAGE;
}
