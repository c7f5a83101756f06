// SPDX-License-Identifier: GPL-2.0
/*
 * The cluster configuration file: "key = value" lines, '#' comments.  Every
 * key is either a module parameter (given at load: `ddsmctl config
 * modprobe-args`; the run-time ones are also written to the loaded module
 * by `ddsmctl cluster join --config`), the cluster membership (nodes,
 * node_id: DDSM_IOC_CONFIGURE), the cluster's regions (region, tx_region:
 * declared after the join, tools/ddsmctl_regions.c), or ddsmctl's own
 * (wait_timeout).  Values
 * are checked here against the limits the module enforces, so that a typo
 * fails on the command line with FILE:LINE, not as an insmod EINVAL with
 * the reason only in dmesg.  The format and every key are in
 * ddsm-cluster.conf(5); `ddsmctl config keys` prints this table, and
 * tests/api_host checks it against the module and the documentation.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddsmctl.h"
#include "ddsmctl_config.h"
#include "ddsmctl_out.h"

/* Where the module shows its parameters; a kernel ABI, not a local path. */
#define PARAMS_DIR	"/sys/module/ddsm/parameters"

enum kind {
	K_UINT,		/* decimal, within [lo, hi] */
	K_U64,		/* decimal, any 64-bit value */
	K_SIZE,		/* K/M/G suffixes, 4K multiple, within [lo, hi] */
	K_BOOL,		/* yes/no, on/off, true/false, 1/0 -> Y/N */
	K_MODE,		/* octal permissions, within [lo, hi] */
	K_ENUM,		/* one of choices */
	K_PATH,		/* absolute path */
	K_NODES,	/* IPv4 list */
	K_NODEID,	/* number or "auto" */
	K_SECONDS,	/* ddsmctl wait's timeout, within [lo, hi] */
	K_REGION,	/* START SIZE MODEL, repeatable */
	K_TXREGION,	/* START SIZE, repeatable */
};

enum use {
	U_LOAD,		/* module parameter, at load only */
	U_RUNTIME,	/* module parameter, also writable in PARAMS_DIR */
	U_CLUSTER,	/* DDSM_IOC_CONFIGURE */
	U_TOOL,		/* read by ddsmctl itself */
	U_REGION,	/* declared at cluster join (ioctls) */
};

struct key {
	const char *name;
	enum kind kind;
	enum use use;
	unsigned long long lo, hi;
	const char *def;	/* the module's default, as documented */
	const char *choices;
};

#define MS_MAX	3600000ULL	/* an hour: the longest timeout the module takes */

/*
 * The module's parameters with its defaults and limits (kernel/node/params.c,
 * kernel/tx/), then the membership and ddsmctl's own key; the order is
 * modprobe-args'.  Only what a user may set: the self-test build's knobs
 * (kernel/selftest/) are not configuration, and refused here.
 */
static const struct key keys[] = {
	{ "nodes",             K_NODES,   U_CLUSTER, 0, 0, "", NULL },
	{ "node_id",           K_NODEID,  U_CLUSTER, 0, DDSM_MAX_NODES - 1, "0", NULL },
	{ "size",              K_SIZE,    U_LOAD,    4096, 64ULL << 30, "256M", NULL },
	{ "home_policy",       K_ENUM,    U_LOAD,    0, 0, "interleave", "interleave range" },
	{ "port",              K_UINT,    U_LOAD,    1, 65535, "18515", NULL },
	{ "mode",              K_MODE,    U_LOAD,    0, 0777, "0600", NULL },
	{ "auth_key",          K_PATH,    U_LOAD,    0, 0, "", NULL },
	{ "heartbeat_ms",      K_UINT,    U_LOAD,    10, MS_MAX / 2, "200", NULL },
	{ "peer_timeout_ms",   K_UINT,    U_LOAD,    20, MS_MAX, "3000", NULL },
	{ "reconnect_ms",      K_UINT,    U_LOAD,    10, MS_MAX, "1000", NULL },
	{ "rejoin_ms",         K_UINT,    U_LOAD,    0, MS_MAX, "30000", NULL },
	{ "fault_timeout_ms",  K_UINT,    U_RUNTIME, 100, MS_MAX, "10000", NULL },
	{ "grace_us",          K_UINT,    U_RUNTIME, 0, 10000, "200", NULL },
	{ "tx_validate_defer_us", K_UINT, U_RUNTIME, 0, 100000, "1000", NULL },
	{ "cache_frames",      K_U64,     U_LOAD,    0, 0, "65536", NULL },
	{ "rdma_frames",       K_UINT,    U_LOAD,    1, 512, "256", NULL },
	{ "migratory",         K_BOOL,    U_LOAD,    0, 1, "1", NULL },
	{ "handoff",           K_BOOL,    U_LOAD,    0, 1, "1", NULL },
	{ "rt_delivery",       K_BOOL,    U_LOAD,    0, 1, "1", NULL },
	{ "pmem",              K_PATH,    U_LOAD,    0, 0, "", NULL },
	{ "pmem_format",       K_BOOL,    U_LOAD,    0, 1, "0", NULL },
	{ "pmem_flush_ms",     K_UINT,    U_LOAD,    1, MS_MAX, "100", NULL },
	{ "pmem_model",        K_ENUM,    U_LOAD,    0, 0, "eventual", "sync strict read_enf eventual scope" },
	{ "nr_backups",        K_UINT,    U_LOAD,    0, 1, "0", NULL },
	{ "cluster_id",        K_U64,     U_LOAD,    0, 0, "0", NULL },
	{ "wait_timeout",      K_SECONDS, U_TOOL,    0, 86400, "60", NULL },
	{ "region",            K_REGION,  U_REGION,  0, 0, "", NULL },
	{ "tx_region",         K_TXREGION, U_REGION, 0, 0, "", NULL },
};
#define NR_KEYS	(sizeof(keys) / sizeof(keys[0]))
_Static_assert(NR_KEYS <= sizeof(((struct ddsmctl_conf *)0)->val) /
	       sizeof(char *), "ddsmctl_conf.val too small");

static int key_index(const char *name)
{
	size_t i;

	for (i = 0; i < NR_KEYS; i++)
		if (!strcmp(keys[i].name, name))
			return (int)i;
	return -1;
}

static const char *get(const struct ddsmctl_conf *c, const char *name)
{
	return c->val[key_index(name)];
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* "a, b ,c" -> "a,b,c", each an IPv4 address; the count into *nr. */
static char *norm_nodes(const char *v, unsigned int *nr, const char **why)
{
	char *copy = strdup(v), *out = calloc(1, strlen(v) + 1);
	char *tok, *save = NULL;
	struct in_addr a;

	*nr = 0;
	if (!copy || !out)
		goto nomem;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		tok = trim(tok);
		if (inet_pton(AF_INET, tok, &a) != 1) {
			*why = "not a list of IPv4 addresses";
			goto fail;
		}
		if (++*nr > DDSM_MAX_NODES) {
			*why = "more than 64 nodes";
			goto fail;
		}
		if (*out)
			strcat(out, ",");
		strcat(out, tok);
	}
	if (!*nr) {
		*why = "empty list";
		goto fail;
	}
	if (strlen(out) >= sizeof(((struct ddsm_config *)0)->nodes)) {
		*why = "list longer than the kernel takes (1023 bytes)";
		goto fail;
	}
	free(copy);
	return out;
nomem:
	*why = "out of memory";
fail:
	free(copy);
	free(out);
	return NULL;
}

static int parse_ulong(const char *v, unsigned long long *out)
{
	char *end;

	if (!isdigit((unsigned char)*v))
		return -1;
	errno = 0;
	*out = strtoull(v, &end, 10);
	return errno || *end ? -1 : 0;
}

/* Check @v against key @k; return the value to store (malloc'd) or NULL. */
static char *normalise(struct ddsmctl_conf *c, const struct key *k,
		       const char *v, const char **why)
{
	static char range[64];
	unsigned long long n;
	uint64_t sz;
	char *end, buf[32];
	double d;

	if (k->kind != K_NODES && strpbrk(v, " \t")) {
		*why = "value with blanks";
		return NULL;
	}
	switch (k->kind) {
	case K_UINT:
		if (parse_ulong(v, &n) || n < k->lo || n > k->hi) {
			snprintf(range, sizeof(range),
				 "not a decimal number in %llu..%llu", k->lo, k->hi);
			*why = range;
			return NULL;
		}
		return strdup(v);
	case K_U64:
		if (parse_ulong(v, &n)) {
			*why = "not a decimal number";
			return NULL;
		}
		return strdup(v);
	case K_SIZE:
		if (ddsm_parse_size(v, &sz) || sz < k->lo ||
		    sz % DDSM_UNIT_SIZE || sz > k->hi) {
			*why = "not a non-zero multiple of 4K (K/M/G suffixes), at most 64G";
			return NULL;
		}
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)sz);
		return strdup(buf);
	case K_BOOL:
		if (!strcmp(v, "yes") || !strcmp(v, "on") ||
		    !strcmp(v, "true") || !strcmp(v, "1"))
			return strdup("Y");
		if (!strcmp(v, "no") || !strcmp(v, "off") ||
		    !strcmp(v, "false") || !strcmp(v, "0"))
			return strdup("N");
		*why = "not a boolean (yes/no, on/off, true/false, 1/0)";
		return NULL;
	case K_MODE:
		errno = 0;
		n = strtoull(v, &end, 8);
		if (*v != '0' || errno || *end || n > k->hi) {
			*why = "not octal with a leading 0, at most 0777";
			return NULL;
		}
		return strdup(v);
	case K_ENUM: {
		size_t len = strlen(v);
		const char *p = strstr(k->choices, v);

		if (!len || !p || (p != k->choices && p[-1] != ' ') ||
		    (p[len] && p[len] != ' ')) {
			*why = "not one of the allowed words (see ddsmctl(8))";
			return NULL;
		}
		return strdup(v);
	}
	case K_PATH:
		if (*v != '/' || strchr(v, ',')) {
			*why = "not an absolute path (or holds a comma)";
			return NULL;
		}
		return strdup(v);
	case K_NODES:
		return norm_nodes(v, &c->nr_nodes, why);
	case K_NODEID:
		if (strcmp(v, "auto") &&
		    (parse_ulong(v, &n) || n >= DDSM_MAX_NODES)) {
			*why = "not a number below 64, or auto";
			return NULL;
		}
		return strdup(v);
	case K_SECONDS:
		errno = 0;
		d = strtod(v, &end);
		if (errno || end == v || *end || !(d >= k->lo && d <= k->hi)) {
			*why = "not a number of seconds, 0 to 86400";
			return NULL;
		}
		c->wait_timeout = d;
		return strdup(v);
	case K_REGION:
	case K_TXREGION:
		break;	/* ddsmctl_region_parse() */
	}
	*why = "internal error";
	return NULL;
}

/* The index in nodes of the one entry that is an address of this host. */
static int find_self(const char *nodes, const char **why)
{
	struct ifaddrs *ifa, *i;
	char *copy, *tok, *save = NULL;
	int idx = 0, found = -1;
	struct in_addr a;

	if (getifaddrs(&ifa)) {
		*why = "node_id auto: getifaddrs failed";
		return -1;
	}
	copy = strdup(nodes);
	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save), idx++) {
		inet_pton(AF_INET, tok, &a);
		for (i = ifa; i; i = i->ifa_next) {
			const struct sockaddr_in *sin =
				(const struct sockaddr_in *)i->ifa_addr;

			if (!sin || sin->sin_family != AF_INET ||
			    sin->sin_addr.s_addr != a.s_addr)
				continue;
			if (found >= 0 && found != idx) {
				*why = "node_id auto: two entries of nodes are addresses of this host";
				found = -2;
				goto out;
			}
			found = idx;
		}
	}
	if (found == -1)
		*why = "node_id auto: no entry of nodes is an address of this host";
out:
	free(copy);
	freeifaddrs(ifa);
	return found;
}

static int conf_error(const char *path, int line, const char *what,
		      const char *why)
{
	if (line)
		fprintf(stderr, "%s:%d: %s: %s\n", path, line, what, why);
	else
		fprintf(stderr, "%s: %s\n", path, why);
	return -1;
}

/* The membership keys belong together; resolve node_id once both are in. */
static int resolve_node(struct ddsmctl_conf *c)
{
	const char *nodes = get(c, "nodes"), *id = get(c, "node_id");
	const char *why = NULL;
	unsigned long long n;

	c->node_id = -1;
	if (!nodes && !id)
		return 0;
	if (!nodes || !id)
		return conf_error(c->path, 0, NULL,
				  "nodes and node_id go together (one is missing)");
	if (!strcmp(id, "auto")) {
		c->node_id = find_self(nodes, &why);
		if (c->node_id < 0)
			return conf_error(c->path, 0, NULL, why);
		return 0;
	}
	parse_ulong(id, &n);
	if (n >= c->nr_nodes)
		return conf_error(c->path, 0, NULL,
				  "node_id is not an index of nodes");
	c->node_id = (int)n;
	return 0;
}

/* A key's value in the file, or the module's default. */
static unsigned long long value_or_default(const struct ddsmctl_conf *c,
					   const char *name)
{
	const char *v = get(c, name);

	return strtoull(v ? v : keys[key_index(name)].def, NULL, 10);
}

/* The limits that tie two keys together, as the module checks them. */
static int check_together(const struct ddsmctl_conf *c)
{
	unsigned long long hb = value_or_default(c, "heartbeat_ms");
	uint64_t space;

	if (value_or_default(c, "peer_timeout_ms") < 2 * hb)
		return conf_error(c->path, 0, NULL,
				  "peer_timeout_ms must be at least twice heartbeat_ms");
	if (value_or_default(c, "nr_backups") && !get(c, "pmem"))
		return conf_error(c->path, 0, NULL, "nr_backups = 1 needs pmem");
	/* size is in bytes once normalised; its default is "256M". */
	if (ddsm_parse_size(get(c, "size") ?: keys[key_index("size")].def,
			    &space))
		return conf_error(c->path, 0, NULL, "internal error: size");
	return ddsmctl_regions_check(c, space, !!get(c, "pmem"));
}

int ddsmctl_conf_load(struct ddsmctl_conf *c, const char *path)
{
	char *line = NULL, *p, *eq, *hash;
	size_t cap = 0;
	int lineno = 0, idx, ret = 0;
	const char *why;
	FILE *f;

	memset(c, 0, sizeof(*c));
	c->path = path;
	c->node_id = -1;
	c->wait_timeout = 60;
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	while (!ret && getline(&line, &cap, f) > 0) {
		lineno++;
		/* A '#' starts a comment anywhere: no value holds one. */
		hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		p = trim(line);
		if (!*p)
			continue;
		eq = strchr(p, '=');
		if (!eq) {
			ret = conf_error(path, lineno, p, "expected key = value");
			break;
		}
		*eq = 0;
		p = trim(p);
		idx = key_index(p);
		if (idx < 0) {
			ret = conf_error(path, lineno, p, "unknown key");
			break;
		}
		if (keys[idx].use == U_REGION) {
			why = "empty value";
			if (!*trim(eq + 1) ||
			    ddsmctl_region_parse(c, keys[idx].kind == K_TXREGION,
						 trim(eq + 1), lineno, &why))
				ret = conf_error(path, lineno, p, why);
			continue;
		}
		if (c->val[idx]) {
			ret = conf_error(path, lineno, p, "given twice");
			break;
		}
		why = "empty value";
		c->val[idx] = *trim(eq + 1) ?
			normalise(c, &keys[idx], trim(eq + 1), &why) : NULL;
		if (!c->val[idx])
			ret = conf_error(path, lineno, p, why);
	}
	if (!ret && ferror(f))
		ret = conf_error(path, 0, NULL, strerror(errno));
	fclose(f);
	free(line);
	if (!ret)
		ret = resolve_node(c);
	if (!ret)
		ret = check_together(c);
	if (ret)
		ddsmctl_conf_free(c);
	return ret;
}

void ddsmctl_conf_free(struct ddsmctl_conf *c)
{
	size_t i;

	for (i = 0; i < NR_KEYS; i++) {
		free(c->val[i]);
		c->val[i] = NULL;
	}
	free(c->regions);
	c->regions = NULL;
	c->nr_regions = 0;
}

/*
 * Load-time parameters, "key=value" separated by blanks, for
 * `modprobe ddsm $(ddsmctl config modprobe-args)`.  nodes and node_id are
 * left to `ddsmctl cluster join`, except with pmem=: a namespace is
 * checked against this node's place in the cluster when the module mounts
 * it, at load.
 */
int cmd_config_modprobe_args(struct ctl *ctl, int argc, char **argv)
{
	const char *path = DDSMCTL_CONFIG_DEFAULT, *sep = "";
	struct ddsmctl_conf c;
	size_t i;

	if (argc == 2 && !strcmp(argv[0], "--config"))
		path = argv[1];
	else if (argc)
		return EXIT_USAGE;
	if (ddsmctl_conf_load(&c, path))
		return EXIT_ERROR;
	for (i = 0; i < NR_KEYS; i++) {
		if (!c.val[i] || keys[i].use == U_TOOL)
			continue;
		if (keys[i].use == U_CLUSTER && !get(&c, "pmem"))
			continue;
		if (!strcmp(keys[i].name, "node_id"))
			printf("%snode_id=%d", sep, c.node_id);
		else
			printf("%s%s=%s", sep, keys[i].name, c.val[i]);
		sep = " ";
	}
	printf("\n");
	ddsmctl_conf_free(&c);
	return fflush(stdout) ? ctl_fail(ctl, "write") : EXIT_OK;
}

/* `config check`: the file parses; its keys as the module will get them. */
int cmd_config_check(struct ctl *ctl, int argc, char **argv)
{
	const char *path = DDSMCTL_CONFIG_DEFAULT;
	struct ddsmctl_conf c;
	size_t i;

	if (argc == 2 && !strcmp(argv[0], "--config"))
		path = argv[1];
	else if (argc)
		return EXIT_USAGE;
	if (ddsmctl_conf_load(&c, path))
		return EXIT_ERROR;
	out_start(ctl->json);
	out_str("file", path);
	if (c.node_id >= 0)
		out_u64("node_id", (uint64_t)c.node_id);
	out_object("keys", NULL);
	for (i = 0; i < NR_KEYS; i++)
		if (c.val[i] && strcmp(keys[i].name, "node_id"))
			out_str(keys[i].name, c.val[i]);
	out_object_end();
	out_array("regions");
	for (i = 0; i < c.nr_regions; i++) {
		const struct ddsmctl_region *r = &c.regions[i];

		out_object(NULL, r->tx ? "tx_region" : "region");
		out_str("kind", r->tx ? "tx_region" : "region");
		out_u64("start", r->gaddr);
		out_u64("size", r->len);
		if (!r->tx)
			out_str("model", ddsm_model_name(r->model));
		out_u64("line", (uint64_t)r->line);
		out_object_end();
	}
	out_array_end();
	ddsmctl_conf_free(&c);
	return out_finish() ? ctl_fail(ctl, "write") : EXIT_OK;
}

static const char *const use_names[] = {
	[U_LOAD] = "load",
	[U_RUNTIME] = "runtime",
	[U_CLUSTER] = "cluster",
	[U_TOOL] = "ddsmctl",
	[U_REGION] = "join",
};

/* A size as the documentation writes it: 4K, 64G. */
static const char *size_text(unsigned long long v, char *buf, size_t len)
{
	static const char units[] = "GMK";
	int i;

	for (i = 0; i < 3; i++) {
		unsigned int shift = 30 - 10 * i;

		if (v && !(v & ((1ULL << shift) - 1))) {
			snprintf(buf, len, "%llu%c", v >> shift, units[i]);
			return buf;
		}
	}
	snprintf(buf, len, "%llu", v);
	return buf;
}

/* A key's limits as the documentation writes them: "10..3600000", ... */
static void limits(const struct key *k, char *buf, size_t len)
{
	char lo[24], hi[24];

	switch (k->kind) {
	case K_UINT:
	case K_NODEID:
	case K_SECONDS:
		snprintf(buf, len, "%llu..%llu", k->lo, k->hi);
		break;
	case K_SIZE:
		snprintf(buf, len, "%s..%s", size_text(k->lo, lo, sizeof(lo)),
			 size_text(k->hi, hi, sizeof(hi)));
		break;
	case K_MODE:
		snprintf(buf, len, "%#llo..%#llo", k->lo, k->hi);
		break;
	case K_BOOL:
		snprintf(buf, len, "0|1");
		break;
	case K_ENUM: {
		size_t i;

		snprintf(buf, len, "%s", k->choices);
		for (i = 0; buf[i]; i++)
			if (buf[i] == ' ')
				buf[i] = '|';
		break;
	}
	case K_U64:
		snprintf(buf, len, "any");
		break;
	case K_PATH:
		snprintf(buf, len, "path");
		break;
	case K_NODES:
		snprintf(buf, len, "ipv4-list");
		break;
	case K_REGION:
		snprintf(buf, len, "START SIZE MODEL, repeatable");
		break;
	case K_TXREGION:
		snprintf(buf, len, "START SIZE, repeatable");
		break;
	}
}

/* `config keys`: every key, its default, limits and when it applies. */
int cmd_config_keys(struct ctl *ctl, int argc, char **argv)
{
	char lim[96];
	size_t i;

	(void)argc;
	(void)argv;
	if (!ctl->json) {
		/* A table for people: one key a line. */
		printf("%-22s %-11s %-36s %s\n", "KEY", "DEFAULT", "LIMITS",
		       "APPLIED");
		for (i = 0; i < NR_KEYS; i++) {
			limits(&keys[i], lim, sizeof(lim));
			printf("%-22s %-11s %-36s %s\n", keys[i].name,
			       *keys[i].def ? keys[i].def : "-", lim,
			       use_names[keys[i].use]);
		}
		return fflush(stdout) ? ctl_fail(ctl, "write") : EXIT_OK;
	}
	out_start(ctl->json);
	out_array("keys");
	for (i = 0; i < NR_KEYS; i++) {
		limits(&keys[i], lim, sizeof(lim));
		out_object(NULL, keys[i].name);
		out_str("name", keys[i].name);
		out_str("default", keys[i].def);
		out_str("limits", lim);
		out_str("applied", use_names[keys[i].use]);
		out_object_end();
	}
	out_array_end();
	return out_finish() ? ctl_fail(ctl, "write") : EXIT_OK;
}

/* The loaded module's value of a parameter, newline stripped. */
static int read_param(const char *name, char *buf, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), PARAMS_DIR "/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int write_param(const char *name, const char *val)
{
	char path[128];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), PARAMS_DIR "/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ret = fputs(val, f) < 0;
	ret |= fclose(f) != 0;
	return ret ? -1 : 0;
}

/* Numbers compare by value (mode: "0660" in the file, "432" in sysfs). */
static int same_value(const struct key *k, const char *conf, const char *mod)
{
	if (k->kind == K_MODE || k->kind == K_UINT || k->kind == K_U64 ||
	    k->kind == K_SIZE)
		return strtoull(conf, NULL, 0) == strtoull(mod, NULL, 0);
	return !strcmp(conf, mod);
}

/*
 * Load-time parameters cannot change without a reload: say which differ
 * rather than join a cluster whose peers would refuse this node.  The
 * run-time ones are written.
 */
static int apply_params(const struct ddsmctl_conf *c)
{
	char have[256];
	int bad = 0;
	size_t i;

	for (i = 0; i < NR_KEYS; i++) {
		const struct key *k = &keys[i];

		if (!c->val[i] || (k->use != U_LOAD && k->use != U_RUNTIME))
			continue;
		if (k->use == U_RUNTIME) {
			if (write_param(k->name, c->val[i])) {
				fprintf(stderr, "ddsmctl: set %s=%s: %s\n",
					k->name, c->val[i], strerror(errno));
				bad = 1;
			}
			continue;
		}
		if (read_param(k->name, have, sizeof(have)))
			continue;	/* a module without it */
		if (!same_value(k, c->val[i], have)) {
			fprintf(stderr,
				"ddsmctl: the module was loaded with %s=%s, %s says %s: reload it (modprobe -r ddsm; modprobe ddsm $(ddsmctl modprobe-args --config %s))\n",
				k->name, have, c->path, c->val[i], c->path);
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

/* Entry @n of a normalised node list, or NULL. */
static const char *nth_node(const char *list, unsigned int n, size_t *len)
{
	while (n-- && list)
		list = strchr(list, ',') ? strchr(list, ',') + 1 : NULL;
	if (list)
		*len = strcspn(list, ",");
	return list;
}

/* Already node @c->node_id of exactly these nodes? Then nothing to do. */
static int same_cluster(struct ddsm *d, const struct ddsmctl_conf *c)
{
	struct ddsm_peer_info pi;
	const char *want;
	unsigned int i;
	size_t len;

	if (ddsm_node_id(d) != (uint32_t)c->node_id ||
	    ddsm_nr_nodes(d) != c->nr_nodes)
		return 0;
	if (c->nr_nodes == 1)
		return 1;
	for (i = 0; i < c->nr_nodes; i++) {
		/* A peer's addr is "a.b.c.d:port". */
		if (ddsm_peer(d, i, &pi))
			return 0;
		want = nth_node(get(c, "nodes"), pi.node_id, &len);
		if (!want || strncmp(pi.addr, want, len) || pi.addr[len] != ':')
			return 0;
	}
	return 1;
}

int ddsmctl_configure_file(struct ctl *ctl, const char *path)
{
	struct ddsm *d;
	struct ddsmctl_conf c;
	int ret = 1;

	if (ddsmctl_conf_load(&c, path))
		return 1;
	if (c.node_id >= 0 && ctl_open(ctl)) {
		ddsmctl_conf_free(&c);
		return 1;
	}
	d = ctl->h;
	if (c.node_id < 0) {
		fprintf(stderr, "%s: no nodes and node_id: nothing to configure\n",
			path);
		goto out;
	}
	if (apply_params(&c))
		goto out;
	if (same_cluster(d, &c)) {
		printf("node %u of %u (already)\n", ddsm_node_id(d),
		       ddsm_nr_nodes(d));
	} else if (ddsm_configure(d, (uint32_t)c.node_id,
				  c.nr_nodes > 1 ? get(&c, "nodes") : "")) {
		fprintf(stderr, "%s: configure node %d on %s: %s\n",
			ctl->prog, c.node_id, ctl->dev, strerror(errno));
		goto out;
	} else {
		printf("node %u of %u\n", ddsm_node_id(d), ddsm_nr_nodes(d));
	}
	/* The regions, before any application: the service runs this. */
	ret = ddsmctl_regions_apply(ctl, &c) ? 1 : 0;
out:
	ddsmctl_conf_free(&c);
	return ret;
}

/* wait_timeout (default 60 s) for `ddsmctl wait --config FILE`. */
int ddsmctl_conf_wait_timeout(const char *path, double *timeout)
{
	struct ddsmctl_conf c;

	if (ddsmctl_conf_load(&c, path))
		return -1;
	*timeout = c.wait_timeout;
	ddsmctl_conf_free(&c);
	return 0;
}
