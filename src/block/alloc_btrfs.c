/* btrfs: copy-on-write data extents allocated at writeback
 * (docs/storage-model.md, btrfs).  cow_file_range reserves one extent for
 * the delalloc range being written (btrfs_reserve_extent, at most
 * BTRFS_MAX_EXTENT_SIZE 128 MiB), and find_free_extent continues from the
 * last allocation of the data block group (the cluster / last_ptr), so the
 * writeback of interleaved files lands sequentially on disk in writeback
 * order.  Simplified: no metadata (checksum tree, extent tree) writes, no
 * DUP/RAID profiles, one data block group. */
#include "alloc.h"

#define BTRFS_MAX_EXTENT_PAGES (128ULL * 1048576 / 4096)

static void *btrfs_create(uint64_t capacity_sectors)
{
	return alloc_base_create(capacity_sectors);
}

/* writepage_delalloc (3.2 and 6.x alike): when the delalloc range found at
 * the first page to write (find_lock_delalloc_range, at most 128 MiB)
 * exceeds nr_to_write, nr_to_write becomes the whole range if it is under
 * 16384 pages, else 8192 (which may lower a larger chunk), and nothing is
 * taken off again: the caller's `wrote` (chunk - nr_to_write) then counts
 * against the raised figure.  The model's dirty pages of a file are
 * contiguous from writeback_index, so the range is the file's dirty pages
 * up to 128 MiB. */
static int64_t writepage_delalloc_bump(const struct sim *s, int64_t nr_to_write, uint64_t contig, int64_t *giveback)
{
	(void)s;
	*giveback = 0;
	int64_t range = (int64_t)(contig < BTRFS_MAX_EXTENT_PAGES ? contig : BTRFS_MAX_EXTENT_PAGES);
	if (nr_to_write >= range)
		return nr_to_write;
	return range < 2 * 8192 ? range : 8192;
}

static uint64_t btrfs_map(void *a, struct inode *inode, uint64_t off, uint64_t want, uint64_t *sector)
{
	struct alloc_base *b = a;
	struct alloc_inode *ai = alloc_inode_get(b, inode);
	uint64_t n = alloc_lookup(ai, off, want, sector);
	if (n)
		return n;
	alloc_take(b, ai, off, want < BTRFS_MAX_EXTENT_PAGES ? want : BTRFS_MAX_EXTENT_PAGES);
	return alloc_lookup(ai, off, want, sector);
}

const struct blk_alloc_type alloc_btrfs = {
	.name = "btrfs", .create = btrfs_create, .destroy = alloc_base_destroy, .map = btrfs_map,
	.writepages_bump = writepage_delalloc_bump,
};
