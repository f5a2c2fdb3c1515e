/* The NFS client and sunrpc behaviours that differ between the kernels the
 * throttling models stand for (docs/nfs-model.md, Client).  They belong to
 * fs/nfs and net/sunrpc, not to balance_dirty_pages, so they are described
 * here and a throttling model only names the client its kernel shipped
 * (struct throttle_model's nfs_client). */
#ifndef WBLAB_NFS_ERA_H
#define WBLAB_NFS_ERA_H

/* how nfs_writepages honours nfss->writeback above nfs_congestion_kb */
enum nfs_write_congestion {
	NFS_CONG_FLAG,   /* mainline to 5.17: a bdi congestion flag that no writeback path waits on */
	NFS_CONG_SKIP,   /* 5.18 (6df25e58532b): WB_SYNC_NONE writepages returns at once while congested */
	NFS_CONG_WAIT,   /* 2024 (Jan Kara, "nfs: Block on write congestion"): it waits instead */
};

struct nfs_client_era {
	const char *name;
	unsigned datasync_on_write : 1;       /* 3.1 nfs_updatepage marks I_DIRTY_DATASYNC per write */
	unsigned commit_skip_empty : 1;       /* 3.2+ nfs_commit_unstable_pages returns at ncommit == 0 */
	unsigned writeback_wait : 1;          /* nfs-wq: writepages waits while too much is under writeback */
	unsigned xprt_free_slot_no_wake : 1;  /* 3.1 sunrpc: freeing a dynamic slot wakes no backlog */
	unsigned unstable_as_writeback : 1;   /* 5.8: no NR_UNSTABLE_NFS; unstable pages are WB_WRITEBACK */
	unsigned commit_after_writeback : 1;  /* 4.x nfs_write_inode: WB_SYNC_NONE commits once no page is under writeback,
					       * several COMMITs of a file may be in flight */
	unsigned io_completion_commit : 1;    /* 4.x nfs_io_completion: a writepages call's last WRITE reply commits the file */
	unsigned rpc_queue_fair : 1;          /* 5.0 sunrpc: priority lists without per-owner batches (rpc_wait_queue.h) */
	unsigned lowpri_background : 1;       /* 3.x wb_priority: background and kupdate WRITEs are RPC_PRIORITY_LOW
					       * (FLUSH_LOWPRI); later kernels send every WRITE at NORMAL */
	unsigned trace_6x : 1;                /* the 6.x nfs events (fs/nfs/nfstrace.h): nfs_initiate_write,
					       * nfs_writeback_done, nfs_initiate_commit, nfs_commit_done */
	enum nfs_write_congestion congestion;
};

/* 3.1's client and transport */
extern const struct nfs_client_era nfs_client_3_1;
/* 3.1's client plus Wu Fengguang's writeback wait queue (the seed's nfs-wq4 kernel) */
extern const struct nfs_client_era nfs_client_3_1_wq4;
/* 3.2: the four behaviours as 3.2 left them */
extern const struct nfs_client_era nfs_client_3_2;
/* 6.x: 3.2's plus no unstable accounting, the 4.x commit rule and waiting on write_congested */
extern const struct nfs_client_era nfs_client_6x;

#endif
