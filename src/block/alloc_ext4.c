/* ext4 (and, simplified, ext2/ext3): delayed allocation at writeback, with
 * mballoc's per-inode preallocation (docs/storage-model.md, ext4).
 *  - ext4_da_writepages maps at most 8 MiB of contiguous dirty pages at once
 *    (3.x mpage_add_bh_to_extent: no larger than mballoc will allocate);
 *  - ext4_mb_normalize_request rounds the request up by the file size
 *    (max(end of request, i_size)): up to 1 MiB the next power of two from
 *    16 KiB starting at file offset 0; up to 4 MiB a 2 MiB window; up to
 *    8 MiB a 4 MiB window; beyond, an 8 MiB window aligned to 8 MiB of file
 *    offset; a window never covers blocks the file already has;
 *  - the window becomes the inode's preallocation (ext4_mb_new_inode_pa) and
 *    later writeback of those offsets uses it;
 *  - its goal is the block after the file's last extent (ext4_ext_find_goal),
 *    and with delalloc new files start at their group's first block
 *    (ext4_inode_to_goal_block, no per-pid colour); files of one directory
 *    share the parent's group (find_group_orlov / find_group_other), so when
 *    the goal is taken mballoc's search in that group returns the next free
 *    space: here, the group's allocation cursor.
 * Concurrent dd files therefore interleave on disk in windows of up to
 * 8 MiB, each window sequential for its file.  Simplified: no locality-group
 * preallocation for small files, no buddy-bitmap search, no metadata blocks,
 * and ext2/ext3 (allocation at write time, reservation windows) use this
 * model too. */
#include "alloc.h"
#include "../throttle/throttle.h"

#define EXT4_MAX_MAP_PAGES (8ULL * 1048576 / 4096)

/* 3.x ext4_da_writepages, range-cyclic (every flusher work, and 3.1's
 * dirtier writeback): the writeback core asks for a 4 MiB-ish chunk, too
 * small for mballoc to lay a stream out well, so ext4 counts the file's
 * contiguous dirty delalloc pages from writeback_index
 * (ext4_num_dirty_pages, at most s_max_writeback_mb_bump, 128 MiB) and
 * raises nr_to_write to that; at the end it takes the raise back off, so
 * the caller sees nr_to_write <= 0 (the inode goes to b_more_io) and a
 * `wrote` beyond its chunk.  The rewritten ext4_writepages of 3.10 on
 * writes nr_to_write, so the current model has no raise.  The model's dirty
 * pages of a file are contiguous from writeback_index (sequential writers
 * only on local file systems), so the count is the file's dirty pages. */
static int64_t ext4_da_writepages_bump(const struct sim *s, int64_t nr_to_write, uint64_t contig, int64_t *giveback)
{
	*giveback = 0;
	if (s->model->era == ERA_6X)
		return nr_to_write;
	uint64_t max_pages = s->p.ext4_max_writeback_mb_bump * (1048576 / 4096);
	int64_t desired = (int64_t)(contig < max_pages ? contig : max_pages);
	if (nr_to_write >= desired)
		return nr_to_write;
	*giveback = desired - nr_to_write;
	return desired;
}

static void *ext4_create(uint64_t capacity_sectors)
{
	return alloc_base_create(capacity_sectors);
}

/* the normalised window for a request at off (pages) in a file of size pages */
static void ext4_normalize(uint64_t off, uint64_t size, uint64_t *start, uint64_t *len)
{
	uint64_t bytes = size * 4096;
	uint64_t w;
	if (bytes <= 1048576) {
		w = 16384;
		while (w < bytes)
			w *= 2;
		*start = 0;
		*len = w / 4096;
		return;
	}
	w = bytes <= 4 * 1048576 ? 2 * 1048576 : bytes <= 8 * 1048576 ? 4 * 1048576 : 8 * 1048576;
	*len = w / 4096;
	*start = off / *len * *len;
}

static uint64_t ext4_map(void *a, struct inode *inode, uint64_t off, uint64_t want, uint64_t *sector)
{
	struct alloc_base *b = a;
	struct alloc_inode *ai = alloc_inode_get(b, inode);
	uint64_t n = alloc_lookup(ai, off, want, sector);
	if (n)
		return n;
	uint64_t fe_len = want < EXT4_MAX_MAP_PAGES ? want : EXT4_MAX_MAP_PAGES;
	uint64_t size = inode->size > off + fe_len ? inode->size : off + fe_len;
	uint64_t start, len;
	ext4_normalize(off, size, &start, &len);
	uint64_t have = ai->lstart + ai->len;      /* the file's blocks end here */
	if (ai->len && start < have) {
		len = start + len > have ? start + len - have : 0;
		start = have;
	}
	if (off < start || off >= start + len) {   /* the window must hold the request */
		start = off;
		len = fe_len;
	}
	alloc_take(b, ai, start, len);
	return alloc_lookup(ai, off, want, sector);
}

const struct blk_alloc_type alloc_ext4 = {
	.name = "ext4", .create = ext4_create, .destroy = alloc_base_destroy, .map = ext4_map,
	.writepages_bump = ext4_da_writepages_bump,
};
