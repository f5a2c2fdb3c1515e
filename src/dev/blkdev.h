/* A single-queue block device and its disk (docs/throttling-model.md, Block
 * device): nr_requests slots, congestion on/off marks, requests of up to
 * max_request_kb, one request in service at a time, sequential bandwidth plus
 * a seek whenever consecutive requests belong to different files.
 * Simplified: FIFO service, no elevator sorting or merging across submitters,
 * no NCQ. */
#ifndef WBLAB_BLKDEV_H
#define WBLAB_BLKDEV_H
#include "../sim/sim.h"

struct blk_request {
	struct inode *inode;
	uint64_t pages;
	int from_dirtier;
	struct blk_request *next;
};

struct blkdev {
	struct disk_params dp;
	struct blk_request *head, *tail, *free_list;
	uint64_t queued;               /* requests allocated (queued or in service) */
	uint64_t congestion_on, congestion_off;
	int congested;
	int busy;
	const struct inode *last_inode;
	struct waitq wait;             /* submitters waiting for a free request */
	uint64_t max_request_pages;
	uint64_t completed_pages;
	struct bdi *bdi;
};

struct blkdev *blkdev_create(struct sim *s, struct bdi *bdi);
void blkdev_destroy(struct blkdev *d);
/* generic ->writepages for a disk: write_cache_pages + submit_bio (may sleep) */
void blkdev_writepages(struct sim *s, struct sthread *th, struct inode *inode,
		       struct writeback_control *wbc);

extern const struct bdi_ops blkdev_bdi_ops;

#endif
