/* Shared state of the block allocation models (alloc_*.c): each inode's
 * last allocated extent (writeback is sequential in file offset, so the one
 * before it is never looked at again) and the file system's allocation
 * cursor. */
#ifndef WBLAB_ALLOC_H
#define WBLAB_ALLOC_H
#include "blk.h"

struct alloc_inode {
	uint64_t lstart, len;     /* file pages [lstart, lstart + len) ... */
	uint64_t pstart;          /* ... are at this sector */
	uint64_t reserve_end;     /* xfs: end of the delalloc reservation incl. EOF prealloc */
	struct blk_ioends ioends; /* the file's completion units (blk_ioend.c) */
	struct alloc_inode *all_next;
};

struct alloc_base {
	uint64_t cursor;          /* next free sector of the group the files are in */
	uint64_t capacity;        /* sectors */
	struct alloc_inode *all;
};

/* the directory's group starts 128 MiB in (ext4: the flex group's second
 * block group, where regular files start; xfs, btrfs: the same place) */
#define ALLOC_FIRST_SECTOR (128ULL * 1048576 / SECTOR_BYTES)

struct alloc_base *alloc_base_create(uint64_t capacity_sectors);
void alloc_base_destroy(void *a);
struct alloc_inode *alloc_inode_get(struct alloc_base *b, struct inode *inode);
/* pages from off that the inode's current extent maps (0: not covered) */
uint64_t alloc_lookup(const struct alloc_inode *ai, uint64_t off, uint64_t want, uint64_t *sector);
/* len pages at the cursor, recorded as the inode's extent from file page lstart */
void alloc_take(struct alloc_base *b, struct alloc_inode *ai, uint64_t lstart, uint64_t len);

#endif
