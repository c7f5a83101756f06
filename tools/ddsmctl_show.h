/* SPDX-License-Identifier: GPL-2.0 */
/* The objects the show commands print, for `ddsmctl -j status` too. */
#ifndef DDSMCTL_SHOW_H
#define DDSMCTL_SHOW_H

#include <ddsm/libddsm.h>

void show_node(const struct ddsm_status *st);
void show_peer(const struct ddsm_peer_info *pi);
void show_pmem(const struct ddsm_pmem_status *ps);
void show_tx(const struct ddsm_tx_status *ts);

#endif /* DDSMCTL_SHOW_H */
