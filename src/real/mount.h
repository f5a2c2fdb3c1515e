/* mkfs and mount of the test file system under the scratch dir. */
#ifndef WBLAB_REAL_MOUNT_H
#define WBLAB_REAL_MOUNT_H
#include <signal.h>
#include <stddef.h>
#include "journal.h"

/* Path of the mkfs tool for fs in buf, 0; or -1 when it is not installed. */
int mkfs_tool(const char *fs, char *buf, size_t n);
/* The options wblab passes to mkfs for fs (for the env record too). */
const char *mkfs_options(const char *fs);
/* Runs mkfs quietly; 0 or -1 with err (err empty when *stop was set: the
 * run is stopping, and a running mkfs is killed). */
int mkfs_run(const char *fs, const char *dev, const volatile sig_atomic_t *stop, char *err, size_t errlen);
/* Journals and creates dir, journals and mounts dev there.  0 or -1. */
int mount_fs(struct journal *j, const char *fs, const char *dev, const char *dir,
	     char *err, size_t errlen);
/* Mount options of the mount at dir as /proc/self/mounts shows them. */
int mount_options(const char *dir, char *buf, size_t n);
/* Undo of "mount" (umount, lazily when it stays busy) and "dir" (rmdir). */
int mount_undo(const struct jentry *e);
int dir_undo(const struct jentry *e);
/* 1 when dir is the root of a mount of type fs (statx STATX_ATTR_MOUNT_ROOT and
 * the statfs magic), found without following links. */
int mount_root_of(const char *dir, const char *fs);
/* Runs argv (NULL-terminated) with stdout to /dev/null; its exit status or -1;
 * SIGKILLs it once *stop (may be NULL) is set. */
int run_quiet(char *const argv[], const volatile sig_atomic_t *stop);

#endif
