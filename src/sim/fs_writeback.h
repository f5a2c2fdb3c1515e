/* The per-bdi flusher and the inode lists of fs/fs-writeback.c (3.1/3.2,
 * docs/throttling-model.md, The flusher).  Explicit work items (sync,
 * reclaim) are outside the dd scenario and not modelled: only background and
 * kupdate writeback, plus the 3.1 dirtiers' foreground writeback_inodes_wb(). */
#ifndef WBLAB_FS_WRITEBACK_H
#define WBLAB_FS_WRITEBACK_H
#include "sim.h"

struct wb_writeback_work {
	int64_t nr_pages;
	int for_kupdate, for_background, sync_all;
	const char *reason;
};

void __mark_inode_dirty(struct sim *s, struct inode *inode, unsigned flags);
int writeback_in_progress(const struct bdi *bdi);
/* Wakes the flusher to run its background check (emits writeback_wake_background). */
void bdi_start_background_writeback(struct sim *s, struct sthread *th, struct bdi *bdi);
/* 3.1 foreground writeback by a throttled dirtier; returns pages written. */
int64_t writeback_inodes_wb(struct sim *s, struct sthread *th, struct bdi *bdi, int64_t nr_pages);
/* Starts bdi's flusher thread ("flush-MAJ:MIN"). */
void bdi_flusher_start(struct sim *s, struct bdi *bdi, int pid);
int wb_has_dirty_io(const struct bdi *bdi);

#endif
