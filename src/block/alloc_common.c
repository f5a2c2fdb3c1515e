#include <stdlib.h>
#include "alloc.h"

struct alloc_base *alloc_base_create(uint64_t capacity_sectors)
{
	struct alloc_base *b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->capacity = capacity_sectors;
	b->cursor = ALLOC_FIRST_SECTOR < capacity_sectors / 2 ? ALLOC_FIRST_SECTOR : 0;
	return b;
}

void alloc_base_destroy(void *a)
{
	struct alloc_base *b = a;
	if (!b)
		return;
	for (struct alloc_inode *ai = b->all, *n; ai; ai = n) {
		n = ai->all_next;
		blk_ioends_free(&ai->ioends);
		free(ai);
	}
	free(b);
}

struct alloc_inode *alloc_inode_get(struct alloc_base *b, struct inode *inode)
{
	struct alloc_inode *ai = inode->fs_private;
	if (ai)
		return ai;
	if (!(ai = calloc(1, sizeof(*ai))))
		abort();
	ai->all_next = b->all;
	b->all = ai;
	inode->fs_private = ai;
	return ai;
}

uint64_t alloc_lookup(const struct alloc_inode *ai, uint64_t off, uint64_t want, uint64_t *sector)
{
	if (!ai->len || off < ai->lstart || off >= ai->lstart + ai->len)
		return 0;
	*sector = ai->pstart + (off - ai->lstart) * PAGE_SECTORS;
	uint64_t n = ai->lstart + ai->len - off;
	return n < want ? n : want;
}

void alloc_take(struct alloc_base *b, struct alloc_inode *ai, uint64_t lstart, uint64_t len)
{
	uint64_t sectors = len * PAGE_SECTORS;
	if (b->cursor + sectors > b->capacity)
		b->cursor = 0;      /* MODEL: a full disk wraps to its start */
	ai->lstart = lstart;
	ai->len = len;
	ai->pstart = b->cursor;
	b->cursor += sectors;
}
