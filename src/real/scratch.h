/* The scratch space of a run.  --scratch names a directory that must be
 * trusted (safepath.h); wblab creates it when it is missing (and then removes
 * it when empty again), and works only inside a directory of its own made
 * there with a unique name, wblab-run.PID.N (mode 0700): the image, the mount
 * point, the private tracefs mount and an owner file naming the machine and
 * boot.  A run dir of an earlier boot of this machine (whose journal went with
 * the tmpfs it lived in) is removed by the next run using the same --scratch
 * when that is on a local file system and no loop device holds its image.  Whatever else is in
 * --scratch is never touched, and everything wblab removes lies inside run
 * dirs, its own or those earlier boots left. */
#ifndef WBLAB_REAL_SCRATCH_H
#define WBLAB_REAL_SCRATCH_H
#include <stddef.h>
#include <stdint.h>
#include "journal.h"

/* The longest --scratch: the paths journaled below it (run dir, tracefs
 * instance) add at most 64 characters, and a journal field holds J_ARG_LEN - 1. */
#define SCRATCH_ROOT_MAX (J_ARG_LEN - 1 - 64)

struct scratch {
	char root[4096];   /* --scratch, canonical */
	char run[4096];    /* root/wblab-run.PID.N: this run's own dir */
};

/* Resolves and checks --scratch (arg) without changing anything: its
 * canonical form (or that of the dir it would be created in) into s->root.
 * need_bytes of free space are required there.  0, or -1 with err. */
int scratch_check(const char *arg, uint64_t need_bytes, struct scratch *s, char *err,
		  size_t errlen);
/* Creates --scratch when missing and this run's own dir, both journaled.
 * 0 or -1 with err. */
int scratch_create(struct journal *j, struct scratch *s, char *err, size_t errlen);
/* 1 when a statfs f_type is a local file system whose run dirs only this
 * machine makes, so that one of an earlier boot may be removed. */
int scratch_fs_local(unsigned long f_type);
/* The undo of "scratch" and "rundir" is dir_undo (mount.h): rmdir when empty;
 * one that holds files wblab did not make is left in place, with a warning. */

#endif
