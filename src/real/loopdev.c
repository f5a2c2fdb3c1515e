#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "loopdev.h"
#include "fileio.h"
#include "safepath.h"
#include "../util/util.h"

int loop_supported(void)
{
	int fd = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static int make_image(struct journal *j, const char *image, uint64_t size, char *err, size_t n)
{
	if (journal_add(j, "file", image, NULL)) {
		snprintf(err, n, "cannot write the journal: %s", strerror(errno));
		return -1;
	}
	/* O_EXCL: the run dir is new, so an existing image is never ours */
	int fd = open(image, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)size)) {
		snprintf(err, n, "cannot create image '%s': %s", image, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* One attempt on the device the kernel calls free; another user may win it. */
static int try_attach(struct journal *j, int ctl, int img, struct loopdev *l, char *err,
		      size_t n)
{
	int nr = ioctl(ctl, LOOP_CTL_GET_FREE);
	if (nr < 0) {
		snprintf(err, n, "no free loop device: %s", strerror(errno));
		return -1;
	}
	snprintf(l->dev, sizeof(l->dev), "/dev/loop%d", nr);
	snprintf(l->name, sizeof(l->name), "loop%d", nr);
	/* attaching sets the bdi's read-ahead from the backing device, and the bdi
	 * outlives the attachment: journal the old value first, so the undo (after
	 * the detach) puts it back */
	char bdi[32], ra[32];
	off_t mark = journal_mark(j);
	snprintf(bdi, sizeof(bdi), "7:%d", nr);
	if (file_readf(ra, sizeof(ra), "/sys/class/bdi/%s/read_ahead_kb", bdi) == 0 &&
	    journal_add(j, "bdi", bdi, "read_ahead_kb", ra, NULL)) {
		snprintf(err, n, "cannot write the journal: %s", strerror(errno));
		return -1;
	}
	if (journal_add(j, "loop", l->dev, l->image, l->ident, NULL)) {
		snprintf(err, n, "cannot write the journal: %s", strerror(errno));
		return -1;
	}
	int fd = open(l->dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, n, "cannot open %s: %s", l->dev, strerror(errno));
		return -1;
	}
	struct loop_config cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = (unsigned)img;
	cfg.info.lo_flags = LO_FLAGS_DIRECT_IO;
	/* lo_file_name is informational (64 bytes); keep its tail, the telling part */
	size_t il = strlen(l->image), cap = sizeof(cfg.info.lo_file_name) - 1;
	memcpy(cfg.info.lo_file_name, l->image + (il > cap ? il - cap : 0), il > cap ? cap : il);
	int rc = ioctl(fd, LOOP_CONFIGURE, &cfg);
	int e = errno;
	struct stat st;
	if (rc == 0 && fstat(fd, &st) == 0)
		snprintf(l->majmin, sizeof(l->majmin), "%u:%u", major(st.st_rdev), minor(st.st_rdev));
	close(fd);
	if (rc) {
		snprintf(err, n, "cannot attach %s to %s: %s", l->image, l->dev, strerror(e));
		/* EBUSY: another user took the device first; it and its bdi are
		 * theirs now, so no undo may touch them */
		if (e == EBUSY && journal_forget_to(j, mark)) {
			snprintf(err, n, "cannot write the journal: %s", strerror(errno));
			return -1;
		}
		errno = e;
		return e == EBUSY ? 1 : -1;
	}
	return 0;
}

int loop_setup(struct journal *j, const char *image, uint64_t size, struct loopdev *l,
	       char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	snprintf(l->image, sizeof(l->image), "%s", image);
	if (make_image(j, image, size, err, errlen))
		return -1;
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	int img = open(image, O_RDWR | O_CLOEXEC | O_DIRECT | O_NOFOLLOW);
	struct stat ist;
	if (img >= 0 && fstat(img, &ist) == 0)
		snprintf(l->ident, sizeof(l->ident), "%llu:%llu", (unsigned long long)ist.st_dev,
			 (unsigned long long)ist.st_ino);
	if (ctl < 0 || img < 0) {
		snprintf(err, errlen, "cannot open %s: %s", ctl < 0 ? "/dev/loop-control" : image,
			 strerror(errno));
		if (ctl >= 0)
			close(ctl);
		return -1;
	}
	int rc = 1;
	for (int tries = 0; rc == 1 && tries < 10; tries++)
		rc = try_attach(j, ctl, img, l, err, errlen);
	close(ctl);
	close(img);
	return rc ? -1 : 0;
}

/* 1 when loop device dev is attached to the file st_dev:st_ino, 0 when it is
 * attached to another file or to none (ENXIO), -1 when that cannot be told
 * (no device node, not a loop device, any other error). */
static int loop_state(const char *dev, unsigned long long st_dev, unsigned long long st_ino)
{
	struct stat st;
	struct loop_info64 li;
	int fd = open(dev, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int r = -1;
	if (fstat(fd, &st) == 0 && S_ISBLK(st.st_mode) && major(st.st_rdev) == 7) {
		if (ioctl(fd, LOOP_GET_STATUS64, &li) == 0)
			r = li.lo_inode == st_ino && li.lo_device == st_dev;
		else if (errno == ENXIO)
			r = 0;
	}
	close(fd);
	return r;
}

/* 1 when dev is a loop device (major 7, /dev/loopN) whose backing file is
 * the file with the journaled identity "DEV:INO" (not a name: the image may be
 * gone already, or another file may have its name). */
static int backed_by(const char *dev, const char *ident)
{
	unsigned long long d, ino;
	char end;
	if (strncmp(dev, "/dev/loop", 9) != 0 || !dev[9] ||
	    strspn(dev + 9, "0123456789") != strlen(dev + 9) ||
	    sscanf(ident, "%llu:%llu%c", &d, &ino, &end) != 2)
		return 0;
	return loop_state(dev, d, ino) == 1;
}

int loop_backs_file(unsigned long long st_dev, unsigned long long st_ino)
{
	char dev[64];
	DIR *d = opendir("/sys/block");
	if (!d)
		return -1;
	int state = 0;
	for (struct dirent *de; state != 1 && (de = readdir(d));)
		if (strncmp(de->d_name, "loop", 4) == 0 && de->d_name[4] &&
		    strspn(de->d_name + 4, "0123456789") == strlen(de->d_name + 4) &&
		    strlen(de->d_name) < 32) {
			snprintf(dev, sizeof(dev), "/dev/%.31s", de->d_name);
			int s = loop_state(dev, st_dev, st_ino);
			if (s != 0)
				state = s;   /* attached wins; unknown is kept unless one is */
		}
	closedir(d);
	return state;
}

/* LOOP_CLR_FD on a device another process still holds open (a killed mkfs
 * whose writes are still in flight) only marks it to detach on the last
 * close, and that detach sets the bdi's read_ahead_kb again: the undo of
 * read_ahead_kb, next in the journal, must wait for it.  Up to 60 s; then -1,
 * so the entries stay for another --cleanup. */
static int wait_detached(const char *dev, const char *ident)
{
	for (int tries = 0; tries < 1200; tries++) {
		/* detached, or already attached by someone else to another file */
		if (!backed_by(dev, ident))
			return 0;
		usleep(50000);
	}
	wb_error("%s is still held open by another process, so it is not detached yet (its read-ahead "
		 "would be set again when it is): run 'wblab run --cleanup' when that process is gone", dev);
	return -1;
}

int loop_undo(const struct jentry *e, const char *rundir)
{
	char image[4200];
	if (e->nargs != 3 || path_join(image, sizeof(image), rundir, "image") ||
	    strcmp(e->args[1], image) != 0)
		return -1;
	if (!backed_by(e->args[0], e->args[2]))
		return 0;  /* detached already, or someone else's now */
	int fd = open(e->args[0], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	for (int tries = 0; fd >= 0 && tries < 50; tries++) {
		if (ioctl(fd, LOOP_CLR_FD, 0) == 0 || errno == ENXIO) {
			close(fd);
			return wait_detached(e->args[0], e->args[2]);
		}
		usleep(100000);  /* EBUSY: the file system is still going away */
	}
	wb_error("cannot detach %s (%s): %s", e->args[0], e->args[1], strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

int file_undo(const struct jentry *e)
{
	const char *base = strrchr(e->args[0], '/');
	if (e->nargs != 1 || !base || (strcmp(base, "/image") != 0 && strcmp(base, "/owner") != 0))
		return -1;  /* the only files a run creates in its dir (scratch.h) */
	if (unlink(e->args[0]) && errno != ENOENT) {
		wb_error("cannot remove '%s': %s", e->args[0], strerror(errno));
		return -1;
	}
	return 0;
}

int loop_write_stat(const struct loopdev *l, uint64_t *sectors, uint64_t *ios, uint64_t *busy_ms)
{
	char buf[512];
	unsigned long long f[10];
	if (file_readf(buf, sizeof(buf), "/sys/block/%s/stat", l->name) ||
	    sscanf(buf, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2],
		   &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9]) != 10)
		return -1;
	*ios = f[4];
	*sectors = f[6];
	*busy_ms = f[9];    /* io_ticks: time with at least one request in flight */
	return 0;
}
