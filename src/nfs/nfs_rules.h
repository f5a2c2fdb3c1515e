/* The NFS client's decisions as pure functions of counters, so that each
 * kernel's rule can be checked by hand (tests/unit/test_nfs_rules.c):
 * the writeback congestion marks, what nfs_writepages does while congested,
 * and whether nfs_write_inode sends a COMMIT (docs/nfs-model.md, Client). */
#ifndef WBLAB_NFS_RULES_H
#define WBLAB_NFS_RULES_H
#include <stdint.h>
#include "nfs_era.h"

/* nfss->writeback against nfs_congestion_kb: congested above `on` pages,
 * cleared below `off` */
struct nfs_congestion {
	uint64_t on, off, writeback;
	int congested;
};

/* the marks for a limit of `kb` (nfs_congestion_kb).  3.x mainline and 6.x:
 * on = kb/4 pages, off = on - on/4.  The nfs-wq4 wait queue: kb first capped
 * at (dirty_thresh_kb + 1024) / 8, off = on - min(on/8, 256 pages). */
void nfs_congestion_init(struct nfs_congestion *c, uint64_t kb, int wq4, uint64_t dirty_thresh_kb);
void nfs_congestion_inc(struct nfs_congestion *c, uint64_t pages);
/* returns 1 when this decrement cleared the mark (wake the waiters) */
int nfs_congestion_dec(struct nfs_congestion *c, uint64_t pages);

enum nfs_writepages_gate { NFS_GATE_GO, NFS_GATE_SKIP, NFS_GATE_WAIT };
/* on entry to nfs_writepages: what a WB_SYNC_NONE (or sync) call does */
enum nfs_writepages_gate nfs_writepages_gate(enum nfs_write_congestion mode, int sync_all, int congested);

enum nfs_commit_action {
	NFS_COMMIT_NOTHING,   /* return at once (3.2+: nothing on the commit list) */
	NFS_COMMIT_LATER,     /* stay I_DIRTY_DATASYNC, no COMMIT now */
	NFS_COMMIT_SEND,      /* send one COMMIT of the whole commit list */
};
/* nfs_write_inode: ncommit pages on the commit list, npages all the file's
 * requests (dirty + writeback + unstable), nr_writeback of them under WRITE,
 * commit_locked a COMMIT of the file in flight (NFS_INO_COMMIT, 3.x) */
enum nfs_commit_action nfs_commit_decide(const struct nfs_client_era *era, int sync_all, uint64_t ncommit,
					 uint64_t npages, uint64_t nr_writeback, int commit_locked);

#endif
