// SPDX-License-Identifier: GPL-2.0
/*
 * The cluster key (module parameter auth_key=PATH): the file's bytes, as
 * they are, are the HMAC-SHA256 key every node must hold to be let in
 * (kernel/net/auth.h).  Read once at load; kept for reconfigurations.
 */
#define pr_fmt(fmt) "ddsm: " fmt
#include <linux/kernel_read_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/string.h>
#include <linux/printk.h>
#include "node.h"
#include "../net/auth.h"

/* A key shorter than this is refused: it would be guessable. */
#define DDSM_KEY_MIN	16

int ddsm_key_load(struct ddsm_params *p, const char *path)
{
	size_t file_size = 0;
	void *buf = NULL;
	ssize_t len;

	if (!path || !*path)
		return 0;
	len = kernel_read_file_from_path(path, 0, &buf, DDSM_AUTH_KEY_MAX,
					 &file_size, READING_UNKNOWN);
	if (len < 0) {
		pr_err("auth_key=%s: cannot read it: %zd\n", path, len);
		return len;
	}
	if (file_size > DDSM_AUTH_KEY_MAX || len < DDSM_KEY_MIN) {
		pr_err("auth_key=%s: %zu bytes; a key file holds %u to %u\n",
		       path, file_size, DDSM_KEY_MIN, DDSM_AUTH_KEY_MAX);
		vfree(buf);
		return -EINVAL;
	}
	p->auth_key = kmemdup(buf, len, GFP_KERNEL);
	memzero_explicit(buf, len);
	vfree(buf);
	if (!p->auth_key)
		return -ENOMEM;
	p->auth_key_len = len;
	pr_info("cluster key loaded from %s (%zd bytes): peers must prove it\n",
		path, len);
	return 0;
}

void ddsm_key_free(struct ddsm_params *p)
{
	kfree_sensitive(p->auth_key);
	p->auth_key = NULL;
	p->auth_key_len = 0;
}
