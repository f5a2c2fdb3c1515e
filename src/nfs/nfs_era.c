#include "nfs_era.h"

const struct nfs_client_era nfs_client_3_1 = {
	.name = "3.1",
	.datasync_on_write = 1,
	.lowpri_background = 1,
	.xprt_free_slot_no_wake = 1,
};

const struct nfs_client_era nfs_client_3_1_wq4 = {
	.name = "3.1+nfs-wq4",
	.datasync_on_write = 1,
	.lowpri_background = 1,
	.writeback_wait = 1,
	.xprt_free_slot_no_wake = 1,
};

const struct nfs_client_era nfs_client_3_2 = {
	.name = "3.2",
	.commit_skip_empty = 1,
	.lowpri_background = 1,
};

const struct nfs_client_era nfs_client_6x = {
	.name = "6.x",
	.commit_skip_empty = 1,
	.unstable_as_writeback = 1,
	.commit_after_writeback = 1,
	.io_completion_commit = 1,
	.rpc_queue_fair = 1,
	.trace_6x = 1,
	.congestion = NFS_CONG_WAIT,
};
