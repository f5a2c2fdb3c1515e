#include "nfs_rules.h"

void nfs_congestion_init(struct nfs_congestion *c, uint64_t kb, int wq4, uint64_t dirty_thresh_kb)
{
	if (kb > 256 * 1024)
		kb = 256 * 1024;
	if (wq4) {
		uint64_t scaled = (dirty_thresh_kb + 1024) / 8;
		kb = scaled < kb ? scaled : kb;
	}
	uint64_t limit = kb / 4;
	uint64_t w = wq4 ? (limit / 8 < 256 ? limit / 8 : 256) : limit / 4;
	*c = (struct nfs_congestion){ .on = limit, .off = limit - w };
}

void nfs_congestion_inc(struct nfs_congestion *c, uint64_t pages)
{
	c->writeback += pages;
	if (c->writeback > c->on)
		c->congested = 1;
}

int nfs_congestion_dec(struct nfs_congestion *c, uint64_t pages)
{
	c->writeback -= pages;
	if (c->congested && c->writeback < c->off) {
		c->congested = 0;
		return 1;
	}
	return 0;
}

enum nfs_writepages_gate nfs_writepages_gate(enum nfs_write_congestion mode, int sync_all, int congested)
{
	if (sync_all || !congested || mode == NFS_CONG_FLAG)
		return NFS_GATE_GO;
	return mode == NFS_CONG_SKIP ? NFS_GATE_SKIP : NFS_GATE_WAIT;
}

enum nfs_commit_action nfs_commit_decide(const struct nfs_client_era *era, int sync_all, uint64_t ncommit,
					 uint64_t npages, uint64_t nr_writeback, int commit_locked)
{
	if (era->commit_skip_empty && !ncommit)
		return NFS_COMMIT_NOTHING;
	if (era->commit_after_writeback) {
		/* 4.x on: not while WRITEs of the file are out; no size rule, no lock */
		if (!sync_all && nr_writeback)
			return NFS_COMMIT_LATER;
		return ncommit ? NFS_COMMIT_SEND : NFS_COMMIT_LATER;
	}
	/* 3.x: WB_SYNC_NONE commits once more than half the file's requests
	 * await COMMIT, one COMMIT per file in flight */
	if (!ncommit || commit_locked || (!sync_all && ncommit <= npages / 2))
		return NFS_COMMIT_LATER;
	return NFS_COMMIT_SEND;
}
