// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Names and numbers: the functions that take no handle.  Their signatures
 * have not changed since ABI 11, so they keep their one version,
 * LIBDDSM_1, and serve both APIs.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ddsm/libddsm.h"
#include "internal.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

int lddsm_einval(void)
{
	errno = EINVAL;
	return -1;
}

static const char *const model_names[] = {
	[DDSM_MODEL_SYNC] = "sync",
	[DDSM_MODEL_STRICT] = "strict",
	[DDSM_MODEL_READ_ENF] = "read_enf",
	[DDSM_MODEL_EVENTUAL] = "eventual",
	[DDSM_MODEL_SCOPE] = "scope",
};

const char *ddsm_model_name(uint32_t model)
{
	return model < ARRAY_SIZE(model_names) ? model_names[model] : "unknown";
}

int ddsm_model_parse(const char *name, uint32_t *model)
{
	uint32_t i;

	if (!name || !model)
		return lddsm_einval();
	for (i = 0; i < ARRAY_SIZE(model_names); i++) {
		if (!strcmp(name, model_names[i])) {
			*model = i;
			return 0;
		}
	}
	return lddsm_einval();
}

static const char *const peer_states[] = {
	[DDSM_PEER_SELF] = "self",
	[DDSM_PEER_DOWN] = "down",
	[DDSM_PEER_CONNECTING] = "connecting",
	[DDSM_PEER_UP] = "up",
	[DDSM_PEER_DEAD] = "dead",
};

const char *ddsm_peer_state_name(uint32_t state)
{
	return state < ARRAY_SIZE(peer_states) ? peer_states[state] : "unknown";
}

static const char *const unit_states[] = {
	[DDSM_UNIT_I] = "I",
	[DDSM_UNIT_S] = "S",
	[DDSM_UNIT_M] = "M",
	[DDSM_UNIT_BUSY] = "busy",
};

const char *ddsm_unit_state_name(uint32_t state)
{
	return state < ARRAY_SIZE(unit_states) ? unit_states[state] : "unknown";
}

static const char *const tx_reasons[DDSM_TX_REASON_NR] = {
	[DDSM_TX_COMMITTED] = "committed",
	[DDSM_TX_SQUASHED] = "squashed",
	[DDSM_TX_NACKED] = "nacked",
	[DDSM_TX_READ_LOCKED] = "read_locked",
	[DDSM_TX_PEER_DOWN] = "peer_down",
	[DDSM_TX_TIMEOUT] = "timeout",
	[DDSM_TX_FULL] = "full",
	[DDSM_TX_USER] = "user",
};

const char *ddsm_tx_reason_name(uint32_t reason)
{
	return reason < DDSM_TX_REASON_NR ? tx_reasons[reason] : "?";
}

int ddsm_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	/* strtoull() skips blanks and takes a sign, wrapping it: digits only. */
	if (!s || !out || !isdigit((unsigned char)*s))
		return lddsm_einval();
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return lddsm_einval();
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	}
	if (shift)
		end++;
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return lddsm_einval();
	*out = (uint64_t)v << shift;
	return 0;
}
