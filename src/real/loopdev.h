/* Loop devices over sparse images in the scratch dir, with direct I/O so the
 * page cache of the backing file system does not blur the measurement. */
#ifndef WBLAB_REAL_LOOPDEV_H
#define WBLAB_REAL_LOOPDEV_H
#include <stddef.h>
#include <stdint.h>
#include "journal.h"

struct loopdev {
	char dev[64];       /* /dev/loopN */
	char name[32];      /* loopN */
	char majmin[32];    /* 7:N, the bdi name */
	char image[4096];
	char ident[48];     /* the image's "st_dev:st_ino", what LOOP_GET_STATUS64 reports */
};

/* 1 if /dev/loop-control is usable. */
int loop_supported(void);
/* Journals and creates a sparse image of `size` bytes, journals and attaches
 * it to a free loop device.  0 or -1 with err. */
int loop_setup(struct journal *j, const char *image, uint64_t size, struct loopdev *l,
	       char *err, size_t errlen);
/* Undo of "loop DEV IMAGE DEV:INO" (detach while still backed by the file of
 * that identity; IMAGE must be RUNDIR/image) and "file" (unlink of RUNDIR/image). */
int loop_undo(const struct jentry *e, const char *rundir);
/* 1 when a loop device is attached to the file of that identity (st_dev and
 * st_ino as stat gives them), 0 when every loop device is known to be
 * attached elsewhere or free, -1 when /sys/block cannot be listed or some
 * loop device cannot be asked (no node in /dev, an error other than ENXIO). */
int loop_backs_file(unsigned long long st_dev, unsigned long long st_ino);
int file_undo(const struct jentry *e);
/* Sectors written and write I/Os from /sys/block/NAME/stat. */
/* the device's written sectors, write IOs and io_ticks (ms with a request in flight) */
int loop_write_stat(const struct loopdev *l, uint64_t *sectors, uint64_t *ios, uint64_t *busy_ms);

#endif
