#include "common.h"
#include "../sim/page_writeback.h"
#include "../sim/vmstat.h"
#include "../util/util.h"

void read_bdi_dirty(struct sim *s, struct bdi *bdi, uint64_t bdi_thresh,
		    uint64_t *bdi_reclaimable, uint64_t *bdi_dirty)
{
	if (bdi_thresh < 2 * s->bdi_stat_error) {
		*bdi_reclaimable = bdi_stat_sum(s, bdi, BDI_RECLAIMABLE);
		*bdi_dirty = *bdi_reclaimable + bdi_stat_sum(s, bdi, BDI_WRITEBACK);
	} else {
		*bdi_reclaimable = bdi_stat(bdi, BDI_RECLAIMABLE);
		*bdi_dirty = *bdi_reclaimable + bdi_stat(bdi, BDI_WRITEBACK);
	}
}

int over_bground_thresh_global(struct sim *s, struct bdi *bdi)
{
	uint64_t bg, thresh;
	global_dirty_limits(s, &bdi->flusher, &bg, &thresh);
	return global_page_state(s, NR_FILE_DIRTY) + global_page_state(s, NR_UNSTABLE_NFS) > bg;
}

int over_bground_thresh_bdi(struct sim *s, struct bdi *bdi)
{
	uint64_t bg, thresh;
	global_dirty_limits(s, &bdi->flusher, &bg, &thresh);
	if (global_page_state(s, NR_FILE_DIRTY) + global_page_state(s, NR_UNSTABLE_NFS) > bg)
		return 1;
	return bdi_stat(bdi, BDI_RECLAIMABLE) > bdi_dirty_limit(s, bdi, bg);
}

uint64_t nr_dirtied_limit(const struct task *t)
{
	uint64_t limit = t->nr_dirtied_pause;
	if (t->inode->bdi->dirty_exceeded && limit > 8)
		limit = 8;
	return limit;
}
