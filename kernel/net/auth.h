/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Peer authentication for the RDMA transport: a cluster-wide secret and a
 * challenge-response in the connection handshake, so that reaching a
 * node's port from a listed address (which a RoCE network cannot vouch
 * for) is not enough to join.  Each side sends a fresh nonce in its HELLO
 * and answers the other's with HMAC-SHA256(key, "ddsm-auth-v1" || from ||
 * to || the receiver's nonce || its own nonce); ids and both nonces are in
 * the MAC, so neither a replay nor a reflection of an answer verifies.
 */
#ifndef DDSM_NET_AUTH_H
#define DDSM_NET_AUTH_H

#include <linux/types.h>
#include "wire.h"

struct crypto_shash;

struct ddsm_auth {
	struct crypto_shash *tfm;	/* NULL: no key, no authentication */
};

/* @key of @len bytes (1..DDSM_AUTH_KEY_MAX); 0 or a negative errno. */
int ddsm_auth_init(struct ddsm_auth *a, const u8 *key, u32 len);
void ddsm_auth_free(struct ddsm_auth *a);

static inline bool ddsm_auth_on(const struct ddsm_auth *a)
{
	return a->tfm;
}

/* The answer node @from sends to node @to, whose HELLO carried @to_nonce. */
int ddsm_auth_mac(struct ddsm_auth *a, u32 from, u32 to,
		  const u8 *to_nonce, const u8 *from_nonce,
		  u8 mac[RDMA_MAC_SIZE]);

/* Does @mac prove the key for an answer from @from to @to? */
bool ddsm_auth_verify(struct ddsm_auth *a, u32 from, u32 to,
		      const u8 *to_nonce, const u8 *from_nonce,
		      const u8 mac[RDMA_MAC_SIZE]);

#define DDSM_AUTH_KEY_MAX	4096

#endif /* DDSM_NET_AUTH_H */
