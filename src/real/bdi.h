/* The per-device writeback knobs of /sys/class/bdi/MAJ:MIN.  A loop device's
 * bdi outlives its attachment, so knobs an earlier user left on loopN (a
 * strict_limit, a max_ratio or max_bytes) would silently shape the next run
 * on it.  Before each case wblab journals the value of each knob that shapes
 * writeback (strict_limit, min/max ratio, which min/max_bytes are views of)
 * and puts it to the kernel default, or to what `--set bdi.KNOB=V` asks
 * (read_ahead_kb too, only when asked); the undo writes the old values back. */
#ifndef WBLAB_REAL_BDI_H
#define WBLAB_REAL_BDI_H
#include <stddef.h>
#include "journal.h"

#define BDI_MAX_KNOBS 8

struct bdi_knob_set {
	const char *name;    /* one of the knobs bdi.c controls (see bdi_request_add) */
	char value[32];
};

struct bdi_request {
	int n;
	struct bdi_knob_set k[BDI_MAX_KNOBS];
};

/* Parses "KNOB=VALUE" (after "bdi.") into r.  0, or -1 with err. */
int bdi_request_add(struct bdi_request *r, const char *kv, char *err, size_t errlen);
/* Journals and sets every knob of bdi majmin ("7:0") to its default or r's
 * value.  Knobs this kernel lacks are skipped (the *_fine, *_bytes and
 * strict_limit files came in 6.2; before that min/max_ratio are used).
 * 0, or -1 with err. */
int bdi_reset(struct journal *j, const char *majmin, const struct bdi_request *r, char *err,
	      size_t errlen);
/* 0 when r's min ratio fits beside the min ratios every other bdi holds
 * (the kernel keeps their sum below 100 %; majmin, the device's own bdi, is
 * left out of the sum, NULL when not known yet: a loop device not attached
 * counts whatever its bdi holds); -1 with err naming the bdis that hold them. */
int bdi_min_ratio_fits(const char *majmin, const struct bdi_request *r, char *err,
		       size_t errlen);
/* Undo of a "bdi" entry: writes the old value back. */
int bdi_undo(const struct jentry *e);

#endif
