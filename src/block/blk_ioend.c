/* The file system's I/O completion unit (docs/storage-model.md, "Completion
 * in ioends").
 *
 * A page under writeback does not end writeback when its own bio completes
 * but when the file system's completion object for a whole range does:
 *  - ext4 since 5.6 mounts 4 KiB-block file systems with dioread_nolock, so
 *    buffered writeback allocates unwritten extents; ext4_end_bio defers the
 *    io_end to a workqueue, which converts the extent and only then ends
 *    writeback of every page of the io_end (ext4_end_io_rsv_work ->
 *    ext4_release_io_end).  ext4_writepages starts one io_end per mapped
 *    extent of at most MAX_WRITEPAGES_EXTENT_LEN (2048) blocks: 8 MiB.
 *  - xfs (iomap) builds one ioend per physically contiguous run of a
 *    writepages call.  6.x xfs converts delalloc into unwritten extents at
 *    writeback (iomap_add_to_ioend shows type UNWRITTEN on this machine) and
 *    an append also moves the on-disk size, so xfs_end_io completes the
 *    ioend from a workqueue, all of it at once (merging neighbours there;
 *    IOEND_BATCH_SIZE, 4096 folios, caps a chain): up to 16 MiB.
 * On this machine's 6.18 kernel the writeback counter falls in 8 MiB steps
 * on ext4 and 16 MiB steps on xfs between two writer samples.  The effect
 * on throttling: a chunk stays in writeback until its slowest bio is done,
 * so dirty + writeback peaks higher than with per-bio completion.
 *
 * MODEL: used for `current` on ext4 and xfs (dev.ioend=auto); the 3.x
 * models end writeback per request (3.x ext4 completed in bio context;
 * 3.x xfs ioends are not modelled).  A file's completed pages are credited
 * to its ioends in submission order (requests of one file complete nearly
 * in order on the loop and ssd devices; a reordering elevator makes this
 * an approximation).  The workqueue's delay and CPU are left out.  State:
 * three counters per file and the end of each closed ioend not yet done. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "../sim/page_writeback.h"
#include "../throttle/throttle.h"

#define EXT4_IOEND_PAGES 2048   /* MAX_WRITEPAGES_EXTENT_LEN blocks of 4 KiB */
#define XFS_IOEND_PAGES 4096    /* IOEND_BATCH_SIZE */

void (*blk_ioend_end_hook)(struct sim *s, struct inode *inode, uint64_t pages);

uint64_t blk_ioend_pages(const struct sim *s)
{
	if (s->model->era != ERA_6X || strcmp(s->p.dev.ioend, "auto"))
		return 0;
	if (!strcmp(s->c.fs, "ext4"))
		return EXT4_IOEND_PAGES;
	if (!strcmp(s->c.fs, "xfs"))
		return XFS_IOEND_PAGES;
	return 0;
}

static void ioend_push(struct blk_ioends *io, uint64_t end)
{
	if (io->n == io->cap) {
		size_t cap = io->cap ? 2 * io->cap : 8;
		uint64_t *b = malloc(cap * sizeof(*b));
		if (!b)
			abort();
		for (size_t i = 0; i < io->n; i++)
			b[i] = io->end[(io->head + i) % io->cap];
		free(io->end);
		io->end = b;
		io->cap = cap;
		io->head = 0;
	}
	io->end[(io->head + io->n) % io->cap] = end;
	io->n++;
}

/* end writeback of every closed ioend whose pages have all completed */
static void ioend_finish_ready(struct sim *s, struct inode *inode, struct blk_ioends *io)
{
	while (io->n && io->end[io->head] <= io->completed) {
		uint64_t end = io->end[io->head];
		io->head = (io->head + 1) % io->cap;
		io->n--;
		uint64_t n = end - io->ended;
		io->ended = end;
		if (blk_ioend_end_hook)
			blk_ioend_end_hook(s, inode, n);
		else
			end_page_writeback(s, inode, n, 0);
	}
}

static void ioend_close(struct blk_ioends *io)
{
	if (io->submitted > io->open_start)
		ioend_push(io, io->submitted);
	io->open_start = io->submitted;
}

void blk_ioend_add(struct blk_ioends *io, uint64_t limit, int contiguous_only, uint64_t sector, uint64_t pages)
{
	uint64_t open = io->submitted - io->open_start;
	if (open && (open + pages > limit || (contiguous_only && sector != io->next_sector)))
		ioend_close(io);
	io->submitted += pages;
	io->next_sector = sector + pages * PAGE_SECTORS;
}

void blk_ioend_submit_done(struct sim *s, struct inode *inode, struct blk_ioends *io)
{
	ioend_close(io);
	ioend_finish_ready(s, inode, io);
}

void blk_ioend_completed(struct sim *s, struct inode *inode, struct blk_ioends *io, uint64_t pages)
{
	/* pages that never went through blk_ioend_add would stay under
	 * writeback for ever: stop the run instead */
	if (pages > io->submitted - io->completed) {
		if (s)
			snprintf(s->error, sizeof(s->error), "block layer: inode %lu completed %llu pages, "
				 "%llu more than it submitted", inode->ino, (unsigned long long)pages,
				 (unsigned long long)(pages - (io->submitted - io->completed)));
		pages = io->submitted - io->completed;
	}
	io->completed += pages;
	ioend_finish_ready(s, inode, io);
}

void blk_ioends_free(struct blk_ioends *io)
{
	free(io->end);
	memset(io, 0, sizeof(*io));
}
