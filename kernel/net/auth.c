// SPDX-License-Identifier: GPL-2.0
#include <crypto/hash.h>
#include <crypto/algapi.h>
#include <linux/err.h>
#include <linux/string.h>
#include "auth.h"

#define AUTH_LABEL	"ddsm-auth-v1"

int ddsm_auth_init(struct ddsm_auth *a, const u8 *key, u32 len)
{
	struct crypto_shash *tfm;
	int ret;

	a->tfm = NULL;
	if (!len || len > DDSM_AUTH_KEY_MAX)
		return -EINVAL;
	tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	ret = crypto_shash_setkey(tfm, key, len);
	if (ret) {
		crypto_free_shash(tfm);
		return ret;
	}
	a->tfm = tfm;
	return 0;
}

void ddsm_auth_free(struct ddsm_auth *a)
{
	if (a->tfm)
		crypto_free_shash(a->tfm);
	a->tfm = NULL;
}

int ddsm_auth_mac(struct ddsm_auth *a, u32 from, u32 to,
		  const u8 *to_nonce, const u8 *from_nonce,
		  u8 mac[RDMA_MAC_SIZE])
{
	SHASH_DESC_ON_STACK(desc, a->tfm);
	__le32 ids[2] = { cpu_to_le32(from), cpu_to_le32(to) };
	int ret;

	desc->tfm = a->tfm;
	ret = crypto_shash_init(desc);
	if (!ret)
		ret = crypto_shash_update(desc, AUTH_LABEL, strlen(AUTH_LABEL));
	if (!ret)
		ret = crypto_shash_update(desc, (const u8 *)ids, sizeof(ids));
	if (!ret)
		ret = crypto_shash_update(desc, to_nonce, RDMA_NONCE_SIZE);
	if (!ret)
		ret = crypto_shash_update(desc, from_nonce, RDMA_NONCE_SIZE);
	if (!ret)
		ret = crypto_shash_final(desc, mac);
	shash_desc_zero(desc);
	return ret;
}

bool ddsm_auth_verify(struct ddsm_auth *a, u32 from, u32 to,
		      const u8 *to_nonce, const u8 *from_nonce,
		      const u8 mac[RDMA_MAC_SIZE])
{
	u8 want[RDMA_MAC_SIZE];
	bool ok;

	if (ddsm_auth_mac(a, from, to, to_nonce, from_nonce, want))
		return false;
	ok = !crypto_memneq(want, mac, RDMA_MAC_SIZE);
	memzero_explicit(want, sizeof(want));
	return ok;
}
