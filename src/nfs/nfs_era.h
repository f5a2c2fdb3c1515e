/* The NFS client and sunrpc behaviours that differ between the kernels the
 * throttling models stand for (docs/nfs-model.md, Client).  They belong to
 * fs/nfs and net/sunrpc, not to balance_dirty_pages, so they are described
 * here and a throttling model only names the client its kernel shipped
 * (struct throttle_model's nfs_client). */
#ifndef WBLAB_NFS_ERA_H
#define WBLAB_NFS_ERA_H

struct nfs_client_era {
	const char *name;
	unsigned datasync_on_write : 1;       /* 3.1 nfs_updatepage marks I_DIRTY_DATASYNC per write */
	unsigned commit_skip_empty : 1;       /* 3.2+ nfs_commit_unstable_pages returns at ncommit == 0 */
	unsigned writeback_wait : 1;          /* nfs-wq: writepages waits while too much is under writeback */
	unsigned xprt_free_slot_no_wake : 1;  /* 3.1 sunrpc: freeing a dynamic slot wakes no backlog */
};

/* 3.1's client and transport */
extern const struct nfs_client_era nfs_client_3_1;
/* 3.1's client plus Wu Fengguang's writeback wait queue (the seed's nfs-wq4 kernel) */
extern const struct nfs_client_era nfs_client_3_1_wq4;
/* 3.2 and later: the four behaviours as 3.2 left them (6.x alike) */
extern const struct nfs_client_era nfs_client_3_2;

#endif
