/* xfs: delayed allocation with speculative EOF preallocation
 * (docs/storage-model.md, xfs).
 *  - a write past the delalloc reservation reserves beyond EOF as well
 *    (xfs_iomap_write_delay, xfs_iomap_prealloc_size in 3.x): the file size
 *    rounded down to a power of two, capped at MAXEXTLEN (2^21 blocks), at
 *    least the write I/O size (64 KiB); later kernels base it on the previous
 *    extent's size, which for a streaming file is the same growth;
 *  - writeback converts the whole delalloc extent, preallocation included,
 *    in one allocation (xfs_iomap_write_allocate, xfs_bmapi_write), up to
 *    MAXEXTLEN;
 *  - the target is the block after the file's last extent, new files near
 *    their inode (xfs_bmap_adjacent / xfs_bmap_btalloc); files of one
 *    directory are in the parent's allocation group (xfs_ialloc_ag_select),
 *    so a taken target yields the next free space in that AG: here, the AG's
 *    allocation cursor.
 * Each file therefore gets ever larger contiguous extents (doubling with its
 * size up to 8 GiB).  Simplified: no low-space throttling of the
 * preallocation, no stripe alignment, no free-space btrees. */
#include "alloc.h"

#define XFS_MAXEXTLEN_PAGES (1ULL << 21)
#define XFS_WRITEIO_PAGES 16

static void *xfs_create(uint64_t capacity_sectors)
{
	return alloc_base_create(capacity_sectors);
}

/* The reservation grows at the write that first passes its end, sized from
 * the file size at that write.  The writer model may hand over several pages
 * at once (writer.c), so the crossing is found page by page here: however
 * the pages arrive, the reservations are the ones page-by-page write()s of
 * 4 KiB would make. */
static void xfs_dirtied(void *a, struct inode *inode, uint64_t size)
{
	struct alloc_inode *ai = alloc_inode_get(a, inode);
	while (size > ai->reserve_end) {
		uint64_t at = ai->reserve_end + 1, p = 1;   /* the size after the crossing page */
		while (p * 2 <= at + 1)
			p *= 2;
		if (p > XFS_MAXEXTLEN_PAGES)
			p = XFS_MAXEXTLEN_PAGES;
		if (p < XFS_WRITEIO_PAGES)
			p = XFS_WRITEIO_PAGES;
		ai->reserve_end = at + p;
	}
}

static uint64_t xfs_map(void *a, struct inode *inode, uint64_t off, uint64_t want, uint64_t *sector)
{
	struct alloc_base *b = a;
	struct alloc_inode *ai = alloc_inode_get(b, inode);
	uint64_t n = alloc_lookup(ai, off, want, sector);
	if (n)
		return n;
	uint64_t end = ai->reserve_end > off + want ? ai->reserve_end : off + want;
	uint64_t len = end - off;
	if (len > XFS_MAXEXTLEN_PAGES)
		len = XFS_MAXEXTLEN_PAGES;
	alloc_take(b, ai, off, len);
	return alloc_lookup(ai, off, want, sector);
}

const struct blk_alloc_type alloc_xfs = {
	.name = "xfs", .create = xfs_create, .destroy = alloc_base_destroy, .map = xfs_map,
	.dirtied = xfs_dirtied,
};
