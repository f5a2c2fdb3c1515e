/* The seed table's second kernel, "3.1.0-rc8-nfs-wq4+": 3.1-rc8 with the
 * IO-less throttling series (modelled by the merged 3.2 code;
 * docs/throttling-model.md, The kernels the models stand for) plus Wu
 * Fengguang's NFS writeback wait queue with its threshold scaled to the dirty
 * threshold, and Feng Tang's two fixes (docs/nfs-model.md, Client, the
 * nfs-wq4 row).
 * The NFS client code is 3.1's: DATASYNC marked on every write, no early
 * return for an empty commit list. */
#include "common.h"
#include "ioless.h"
#include "../nfs/nfs_era.h"

#define NFS_WQ4                                               \
	.init = ioless_init,                                  \
	.ratelimited = ioless_ratelimited,                    \
	.pages_before_check = ioless_pages_before_check,      \
	.over_bground_thresh = over_bground_thresh_bdi,       \
	.update_dirty_ratelimit = bdi_update_dirty_ratelimit, \
	.count_bdi_dirtied = 1,                               \
	.task_dirty_proportion = 0,                           \
	.nfs_client = &nfs_client_3_1_wq4

THROTTLE_MODEL(throttle_31_nfs_wq4) = {
	.name = "3.1-nfs-wq4",
	.summary = "IO-less throttling + NFS writeback wait queue (scaled), 3.1 NFS client",
	.era = ERA_3_1_RC8_IOLESS,
	NFS_WQ4,
};

THROTTLE_MODEL(throttle_31_rc8_nfs_wq4) = {
	.name = "3.1.0-rc8-nfs-wq4+",
	.alias_of = "3.1-nfs-wq4",
	.summary = "alias of 3.1-nfs-wq4 (the seed's second kernel)",
	.era = ERA_3_1_RC8_IOLESS,
	NFS_WQ4,
};
