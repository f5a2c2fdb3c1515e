/* An emulated disk for real runs: the kernel's block throttling caps the
 * loop device's write bandwidth (and IOPS), so the running kernel sees a
 * device as slow as a 2011 SATA disk and simulation and reality can meet on
 * the same device.  The cap is a rule of the root blkio cgroup (cgroup v1
 * blkio.throttle.write_bps_device / write_iops_device), which throttles the
 * flusher's writeback too; it is journaled with the rule it replaced and
 * restored on every exit path. */
#ifndef WBLAB_REAL_BLKTHROTTLE_H
#define WBLAB_REAL_BLKTHROTTLE_H
#include <stddef.h>
#include <stdint.h>
#include "journal.h"

/* 1 when this machine has the root-group throttle files. */
int blkthrottle_supported(void);
/* Journals and sets the root group's write_bps (bytes/s, 0: none) and
 * write_iops (0: none) rules for majmin.  0, or -1 with err. */
int blkthrottle_set(struct journal *j, const char *majmin, uint64_t bps, uint64_t iops,
		    char *err, size_t errlen);
/* Undo of "blkthrottle": the old rule (0 removes it). */
int blkthrottle_undo(const struct jentry *e);

#endif
