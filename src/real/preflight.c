#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "preflight.h"
#include "bdi.h"
#include "blkthrottle.h"
#include "fileio.h"
#include "loopdev.h"
#include "machine.h"
#include "mount.h"
#include "safepath.h"
#include "tracefs.h"

/* The writers rewrite their files from the start once they hold half the
 * image (--dev: 1 GiB) between them (runner.c), so no more distinct pages
 * than that are ever dirty: a dirty threshold at or above it is never
 * reached and the run never throttles.  A ratio threshold is taken of
 * MemTotal, an upper bound of the dirtyable memory the kernel uses. */
static void warn_unreachable_threshold(const struct run_opts *o, const struct wb_case *c)
{
	uint64_t set = (o->dev ? (1ULL << 30) : o->image_size) / 2;
	uint64_t thresh = c->thresh.is_bytes ? c->thresh.value
					     : machine_mem_mb() * (1ULL << 20) / 100 * c->thresh.value;
	if (thresh >= set)
		fprintf(stderr, "wblab run: warning: %s: its dirty threshold (%s, %llu MiB) is at or above "
			"the %llu MiB its writers dirty before they rewrite their files: it will not "
			"throttle; a larger --image-size%s gives it room\n", c->name, c->thresh.text,
			(unsigned long long)(thresh >> 20), (unsigned long long)(set >> 20),
			o->dev ? " (without --dev)" : "");
}

/* The kernel's own floors (mm/page-writeback.c's sysctl table): vm.dirty_bytes
 * of at least two pages, vm.dirty_background_bytes of at least one byte.  A
 * lower value would be refused by the sysctl write, after mkfs and mount. */
static int knobs_writable(const struct wb_case *c, char *err, size_t errlen)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	if (c->thresh.is_bytes && c->thresh.value < 2 * page) {
		snprintf(err, errlen, "case '%s': dirty threshold %s is below the kernel's floor "
			 "for vm.dirty_bytes (2 pages, %llu bytes); nothing was changed", c->name,
			 c->thresh.text, (unsigned long long)(2 * page));
		return -1;
	}
	if (c->bg.is_bytes && c->bg.value < 1) {
		snprintf(err, errlen, "case '%s': background threshold %s is below the kernel's "
			 "floor for vm.dirty_background_bytes (1 byte); nothing was changed",
			 c->name, c->bg.text);
		return -1;
	}
	return 0;
}

/* mkfs.xfs (xfsprogs 5.19 on) refuses a file system below 300 MiB; found
 * only after the loop device is attached, so refused here first */
static int image_fits_fs(const struct run_opts *o, const struct wb_case *c, char *err, size_t errlen)
{
	const uint64_t xfs_min = 300ULL << 20;
	if (o->dev || strcmp(c->fs, "xfs") || o->image_size >= xfs_min)
		return 0;
	snprintf(err, errlen, "--image-size %llu MiB is too small for %s: mkfs.xfs needs at least "
		 "300 MiB; nothing was changed", (unsigned long long)(o->image_size >> 20), c->name);
	return -1;
}

int preflight_cases(struct run_opts *o, char *err, size_t errlen)
{
	for (int i = 0; i < o->ncases; i++) {
		if (machine_match_case(&o->cases[i], err, errlen) ||
		    knobs_writable(&o->cases[i], err, errlen) ||
		    image_fits_fs(o, &o->cases[i], err, errlen))
			return -1;
		warn_unreachable_threshold(o, &o->cases[i]);
	}
	return 0;
}

/* 1 when the block device rdev, or a partition of it, is mounted (by the
 * device number /proc/self/mountinfo gives each mount), swapped on, or held
 * by another device (dm, md, loop over it): why says which. */
static int rdev_busy(dev_t rdev, char *why, size_t n);

static int rdev_mounted(dev_t rdev)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[8192];
	int yes = 0;
	while (f && !yes && fgets(line, sizeof(line), f)) {
		unsigned id, parent, ma, mi;
		if (sscanf(line, "%u %u %u:%u", &id, &parent, &ma, &mi) == 4 &&
		    makedev(ma, mi) == rdev)
			yes = 1;
	}
	if (f)
		fclose(f);
	return yes;
}

static int rdev_swapped(dev_t rdev)
{
	FILE *f = fopen("/proc/swaps", "r");
	char line[8192], name[4096];
	int yes = 0;
	struct stat st;
	while (f && !yes && fgets(line, sizeof(line), f))
		if (sscanf(line, "%4095s", name) == 1 && name[0] == '/' && stat(name, &st) == 0 &&
		    ((S_ISBLK(st.st_mode) && st.st_rdev == rdev) || st.st_dev == rdev))
			yes = 1;
	if (f)
		fclose(f);
	return yes;
}

static int dir_has_entries(const char *path)
{
	DIR *d = opendir(path);
	int yes = 0;
	for (struct dirent *de; d && !yes && (de = readdir(d));)
		yes = de->d_name[0] != '.';
	if (d)
		closedir(d);
	return yes;
}

static int rdev_busy(dev_t rdev, char *why, size_t n)
{
	char sys[128];
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(rdev), minor(rdev));
	if (rdev_mounted(rdev))
		return snprintf(why, n, "is mounted"), 1;
	if (rdev_swapped(rdev))
		return snprintf(why, n, "is in use as swap"), 1;
	char holders[160];
	snprintf(holders, sizeof(holders), "%s/holders", sys);
	if (dir_has_entries(holders))
		return snprintf(why, n, "is held by another device (%s)", holders), 1;
	/* its partitions: subdirectories with a "dev" file */
	DIR *d = opendir(sys);
	int busy = 0;
	for (struct dirent *de; d && !busy && (de = readdir(d));) {
		char p[512], devs[32];
		unsigned ma, mi;
		snprintf(p, sizeof(p), "%s/%s/partition", sys, de->d_name);
		if (de->d_name[0] == '.' || access(p, F_OK))
			continue;
		if (file_readf(devs, sizeof(devs), "%s/%s/dev", sys, de->d_name) ||
		    sscanf(devs, "%u:%u", &ma, &mi) != 2)
			continue;
		char sub[256];
		if (rdev_busy(makedev(ma, mi), sub, sizeof(sub))) {
			snprintf(why, n, "has partition %.64s that %.200s", de->d_name, sub);
			busy = 1;
		}
	}
	if (d)
		closedir(d);
	return busy;
}

/* 1 when rdev is a partition: its bdi, request queue, stat counters and
 * per-bdi trace events are the whole disk's, shared with its siblings (and
 * blkio refuses a partition's number). */
static int rdev_is_partition(dev_t rdev)
{
	char p[96];
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/partition", major(rdev), minor(rdev));
	return access(p, F_OK) == 0;
}

static int dev_resolve(struct run_opts *o, char *err, size_t errlen)
{
	struct stat st;
	char why[512];
	if (links_trusted(o->dev, "--dev", err, errlen))
		return -1;
	if (!realpath(o->dev, o->dev_path) || stat(o->dev_path, &st) || !S_ISBLK(st.st_mode)) {
		snprintf(err, errlen, "--dev %s is not a block device", o->dev);
		return -1;
	}
	o->dev_rdev = st.st_rdev;
	if (rdev_busy(st.st_rdev, why, sizeof(why))) {
		snprintf(err, errlen, "--dev %s (%u:%u) %s; refusing to destroy it; nothing was "
			 "changed", o->dev, major(st.st_rdev), minor(st.st_rdev), why);
		return -1;
	}
	if (rdev_is_partition(st.st_rdev)) {
		snprintf(err, errlen, "--dev %s is a partition: its bdi, counters and trace "
			 "events are the whole disk's, shared with its other partitions; give "
			 "a whole disk; nothing was changed", o->dev);
		return -1;
	}
	return 0;
}

int preflight_dev_again(const struct run_opts *o, char *err, size_t errlen)
{
	struct stat st;
	char why[512];
	if (links_trusted(o->dev_path, "--dev", err, errlen))
		return -1;
	if (lstat(o->dev_path, &st) || !S_ISBLK(st.st_mode) || st.st_rdev != o->dev_rdev) {
		snprintf(err, errlen, "--dev %s is no longer the block device %u:%u it was when "
			 "the run started", o->dev_path, major(o->dev_rdev), minor(o->dev_rdev));
		return -1;
	}
	if (rdev_busy(st.st_rdev, why, sizeof(why))) {
		snprintf(err, errlen, "--dev %s %s since the run started; not touching it",
			 o->dev_path, why);
		return -1;
	}
	return 0;
}

int preflight_root(char *err, size_t errlen)
{
	if (geteuid() == 0)
		return 0;
	snprintf(err, errlen, "'wblab run' must run as root: it sets vm.dirty_* sysctls, "
		 "attaches loop devices, mounts file systems and traces the kernel; "
		 "nothing was changed");
	return -1;
}

int preflight_machine(struct run_opts *o, char *err, size_t errlen)
{
	if (preflight_root(err, errlen))
		return -1;
	if (!o->no_trace && !real_tracefs_supported()) {
		snprintf(err, errlen, "this kernel has no tracefs (needed for the writeback "
			 "events; use --no-trace to run without); nothing was changed");
		return -1;
	}
	if (!o->dev && !loop_supported()) {
		snprintf(err, errlen, "no loop device support (/dev/loop-control; try "
			 "'modprobe loop', or --dev); nothing was changed");
		return -1;
	}
	for (int i = 0; i < o->ncases; i++) {
		char tool[256];
		if (mkfs_tool(o->cases[i].fs, tool, sizeof(tool))) {
			snprintf(err, errlen, "mkfs.%s is not installed (needed by case '%s'); "
				 "nothing was changed", o->cases[i].fs, o->cases[i].name);
			return -1;
		}
	}
	if (o->dev && dev_resolve(o, err, errlen))
		return -1;
	char majmin[32];
	snprintf(majmin, sizeof(majmin), "%u:%u", major(o->dev_rdev), minor(o->dev_rdev));
	if (bdi_min_ratio_fits(o->dev ? majmin : NULL, &o->bdi, err, errlen))
		return -1;
	/* the writers of a --dev run fill up to 1 GiB (runner.c): a smaller
	 * device, or an unattached loop device (0 bytes), would fail in mkfs or
	 * mid-run, after the machine was changed */
	if (o->dev) {
		uint64_t bytes = 0;
		int fd = open(o->dev_path, O_RDONLY | O_CLOEXEC);
		int ok = fd >= 0 && ioctl(fd, BLKGETSIZE64, &bytes) == 0;
		if (fd >= 0)
			close(fd);
		if (!ok || bytes < (1ULL << 30) + (64ULL << 20)) {
			snprintf(err, errlen, "--dev %s %s%llu MiB; a run needs at least 1088 MiB (1 GiB "
				 "for the writers and 64 MiB for the file system); nothing was changed",
				 o->dev, ok ? "holds " : "cannot be sized, ", (unsigned long long)(bytes >> 20));
			return -1;
		}
	}
	if ((o->device_bw > 0 || o->device_iops > 0) && !blkthrottle_supported()) {
		snprintf(err, errlen, "--device-bw/--device-iops need the kernel's block "
			 "throttling in a cgroup v1 blkio hierarchy (blkio.throttle.write_bps_device), "
			 "which this machine lacks; nothing was changed");
		return -1;
	}
	return 0;
}
