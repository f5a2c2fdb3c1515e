#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "scratch.h"
#include "fileio.h"
#include "loopdev.h"
#include "safepath.h"
#include "../util/util.h"

static int free_space(const char *dir, uint64_t need, char *err, size_t errlen)
{
	struct statvfs v;
	if (statvfs(dir, &v)) {
		snprintf(err, errlen, "cannot stat the file system of '%s': %s", dir, strerror(errno));
		return -1;
	}
	uint64_t avail = (uint64_t)v.f_bavail * v.f_frsize;
	if (avail < need) {
		snprintf(err, errlen, "--scratch '%s' has %llu MiB free, the run needs %llu MiB "
			 "(--image-size plus file system slack); nothing was changed", dir,
			 (unsigned long long)(avail >> 20), (unsigned long long)(need >> 20));
		return -1;
	}
	return 0;
}

int scratch_check(const char *arg, uint64_t need_bytes, struct scratch *s, char *err,
		  size_t errlen)
{
	char canon[PATH_MAX];
	struct stat st;
	memset(s, 0, sizeof(*s));
	if (links_trusted(arg, "--scratch", err, errlen))
		return -1;
	if (lstat(arg, &st) == 0 || errno != ENOENT) {
		char *r = realpath(arg, NULL);
		if (!r) {
			snprintf(err, errlen, "--scratch '%s': %s", arg, strerror(errno));
			return -1;
		}
		snprintf(canon, sizeof(canon), "%s", r);
		free(r);
		if (safe_dir_check(canon, 0, "--scratch", err, errlen))
			return -1;
	} else {
		/* to be created: its parent must exist and be safe to create in */
		char parent[PATH_MAX];
		const char *slash = strrchr(arg, '/');
		const char *name = slash ? slash + 1 : arg;
		snprintf(parent, sizeof(parent), "%.*s", slash == arg ? 1 : (int)(slash - arg), arg);
		char *r = realpath(parent, NULL);
		if (!r || !*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
			snprintf(err, errlen, "--scratch '%s': its parent directory does not exist",
				 arg);
			free(r);
			return -1;
		}
		int bad = safe_dir_check(r, SAFE_STICKY_LAST, "--scratch", err, errlen) ||
			  path_join(canon, sizeof(canon), r, name);
		free(r);
		if (bad)
			return -1;
	}
	if (!path_chars_ok(canon)) {
		snprintf(err, errlen, "--scratch '%s': use only letters, digits and '/._+-' in "
			 "its path", canon);
		return -1;
	}
	if (strlen(canon) > SCRATCH_ROOT_MAX) {
		snprintf(err, errlen, "--scratch '%.200s...': %zu characters; at most %d, so that "
			 "every path the run journals below it fits a journal entry", canon,
			 strlen(canon), SCRATCH_ROOT_MAX);
		return -1;
	}
	snprintf(s->root, sizeof(s->root), "%s", canon);
	char where[PATH_MAX];
	if (existing_ancestor(canon, where, sizeof(where))) {
		snprintf(err, errlen, "--scratch '%s': %s", canon, strerror(errno));
		return -1;
	}
	return free_space(where, need_bytes, err, errlen);
}

/* The owner file's text; the prefix alone tells a run dir's owner file.  The
 * machine id says whose, the boot id which of its boots. */
#define OWNER_PREFIX "wblab run dir\nmachine_id "
#define OWNER_FMT OWNER_PREFIX "%s\nboot_id %s\n"

static int id_file(const char *path, size_t len, char *buf, size_t n)
{
	if (file_read(path, buf, n) || strlen(buf) != len ||
	    strspn(buf, "0123456789abcdef-") != len)
		return -1;
	return 0;
}

static int boot_id(char *buf, size_t n)
{
	return id_file("/proc/sys/kernel/random/boot_id", 36, buf, n);
}

/* systemd's machine-id(5); a machine without one gets "-", and its run dirs
 * are never taken for an earlier boot's */
static void machine_id(char *buf, size_t n)
{
	if (id_file("/etc/machine-id", 32, buf, n))
		snprintf(buf, n, "-");
}

/* RUNDIR/owner: the machine and boot the run dir was made in, journaled like
 * the image */
static int write_owner(struct journal *j, const char *run, char *err, size_t errlen)
{
	char path[4200], id[64], mid[64];
	if (boot_id(id, sizeof(id))) {
		snprintf(err, errlen, "cannot read the boot id (/proc/sys/kernel/random/boot_id)");
		return -1;
	}
	machine_id(mid, sizeof(mid));
	if (path_join(path, sizeof(path), run, "owner") || journal_add(j, "file", path, NULL)) {
		snprintf(err, errlen, "cannot write the journal: %s", strerror(errno));
		return -1;
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	int ok = fd >= 0 && dprintf(fd, OWNER_FMT, mid, id) > 0 && fsync(fd) == 0;
	if (fd >= 0)
		close(fd);
	if (!ok) {
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int scratch_fs_local(unsigned long f_type)
{
	switch (f_type) {
	case 0xEF53:        /* ext2, ext3, ext4 */
	case 0x58465342:    /* xfs */
	case 0x9123683E:    /* btrfs */
	case 0xF2F52010:    /* f2fs */
	case 0x2FC12FC1:    /* zfs */
	case 0xCA451A4E:    /* bcachefs */
	case 0x01021994:    /* tmpfs */
		return 1;
	default:
		return 0;
	}
}

/* 1 when name in the directory dfd is a run dir that a run of an earlier
 * boot of this machine left (the journal, in the tmpfs /run, went with that
 * boot; the loop device, mount and sysctls too, but the image stays on
 * disk): root-owned, mode 0700, its owner file naming this machine and
 * another boot, no loop device over its image, and nothing in it but what a
 * run makes (owner, image, the mount point and tracefs dir, removed only
 * when empty). */
static int stale_rundir(int dfd, const char *name, const char *mine, const char *prefix)
{
	struct stat st, sst;
	char text[256];
	/* on --scratch's own file system: a mount there is not a run dir */
	if (strncmp(name, "wblab-run.", 10) != 0 || fstat(dfd, &sst) ||
	    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode) ||
	    st.st_uid != 0 || (st.st_mode & 07777) != 0700 || st.st_dev != sst.st_dev)
		return 0;
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	/* non-blocking and then a regular file: a FIFO planted there must not
	 * hang a run that holds the machine's lock */
	int ofd = openat(fd, "owner", O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	struct stat ost;
	if (ofd >= 0 && (fstat(ofd, &ost) || !S_ISREG(ost.st_mode))) {
		close(ofd);
		ofd = -1;
	}
	ssize_t len = ofd >= 0 ? read(ofd, text, sizeof(text) - 1) : -1;
	if (ofd >= 0)
		close(ofd);
	/* exactly the owner format: the prefix, a boot id (36 characters of a
	 * UUID) and its newline, nothing more */
	size_t pl = strlen(prefix);
	int stale = len > 0 && (text[len] = 0, strncmp(text, prefix, pl) == 0) &&
		    (size_t)len == pl + 37 && text[pl + 36] == '\n' &&
		    strspn(text + pl, "0123456789abcdef-") == 36 && strcmp(text, mine) != 0;
	int dfd2 = stale ? dup(fd) : -1;
	DIR *d = dfd2 >= 0 ? fdopendir(dfd2) : NULL;
	if (!d) {
		/* unlisted is not known to hold only what a run makes */
		stale = 0;
		if (dfd2 >= 0)
			close(dfd2);
	}
	for (struct dirent *de; d && stale && (de = readdir(d));) {
		const char *n = de->d_name;
		if (!strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, "owner"))
			continue;
		int regular = !strcmp(n, "image");
		stale = (regular || !strcmp(n, "mnt") || !strcmp(n, "tracefs")) &&
			fstatat(fd, n, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_uid == 0 &&
			(regular ? S_ISREG(st.st_mode) && st.st_nlink == 1 &&
					   loop_backs_file((unsigned long long)st.st_dev,
							   (unsigned long long)st.st_ino) == 0
				 : S_ISDIR(st.st_mode));
	}
	if (d)
		closedir(d);
	close(fd);
	return stale;
}

/* Removes the run dirs earlier boots left in root (the machine lock is
 * held, so no run of this boot owns one): their images can be gigabytes.
 * Only on a local file system: on a network or shared one (NFS, SMB, 9p,
 * virtiofs, a cluster file system) another machine's live run dir could
 * carry the same machine id (a cloned VM) and another boot id.  Best
 * effort: what cannot be removed stays, with a warning. */
static void remove_stale_rundirs(const char *root)
{
	char boot[64], mid[64], mine[256], prefix[128];
	struct statfs sf;
	machine_id(mid, sizeof(mid));
	if (!strcmp(mid, "-") || boot_id(boot, sizeof(boot)))
		return;
	snprintf(mine, sizeof(mine), OWNER_FMT, mid, boot);
	snprintf(prefix, sizeof(prefix), OWNER_PREFIX "%s\nboot_id ", mid);
	int dfd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int local = dfd >= 0 && fstatfs(dfd, &sf) == 0 && scratch_fs_local((unsigned long)sf.f_type);
	DIR *d = dfd >= 0 ? fdopendir(dup(dfd)) : NULL;
	for (struct dirent *de; d && (de = readdir(d));) {
		if (!stale_rundir(dfd, de->d_name, mine, prefix))
			continue;
		if (!local) {
			wb_error("note: %s/%s looks left by a run of an earlier boot; "
				 "not removed, as --scratch is not on a local file system wblab knows "
				 "(ext4, xfs, btrfs, f2fs, zfs, bcachefs, tmpfs) and it could be a live "
				 "run of another machine", root, de->d_name);
			continue;
		}
		int fd = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		/* the dirs first: one that is not empty (not ours) keeps the rest */
		int ok = fd >= 0 && (unlinkat(fd, "mnt", AT_REMOVEDIR) == 0 || errno == ENOENT) &&
			 (unlinkat(fd, "tracefs", AT_REMOVEDIR) == 0 || errno == ENOENT) &&
			 (unlinkat(fd, "image", 0) == 0 || errno == ENOENT) &&
			 unlinkat(fd, "owner", 0) == 0 && unlinkat(dfd, de->d_name, AT_REMOVEDIR) == 0;
		if (fd >= 0)
			close(fd);
		if (ok)
			wb_error("removed %s/%s, left by a run before the last reboot", root, de->d_name);
		else
			wb_error("warning: cannot remove %s/%s (left by a run before the last reboot)",
				 root, de->d_name);
	}
	if (d)
		closedir(d);
	if (dfd >= 0)
		close(dfd);
}

int scratch_create(struct journal *j, struct scratch *s, char *err, size_t errlen)
{
	/* created dirs are journaled right after mkdir: an empty dir left by a crash in
	 * between is harmless, removing a dir someone else made in between is not */
	if (mkdir(s->root, 0700) == 0) {
		if (journal_add(j, "scratch", s->root, NULL)) {
			rmdir(s->root);
			snprintf(err, errlen, "cannot write the journal: %s", strerror(errno));
			return -1;
		}
	} else if (errno != EEXIST) {
		snprintf(err, errlen, "cannot create --scratch '%s': %s", s->root, strerror(errno));
		return -1;
	}
	if (safe_dir_check(s->root, 0, "--scratch", err, errlen))
		return -1;
	remove_stale_rundirs(s->root);
	for (int i = 0; i < 1000; i++) {
		char name[64];
		snprintf(name, sizeof(name), "wblab-run.%d.%d", (int)getpid(), i);
		if (path_join(s->run, sizeof(s->run), s->root, name)) {
			snprintf(err, errlen, "--scratch path too long");
			return -1;
		}
		if (mkdir(s->run, 0700)) {
			if (errno == EEXIST)
				continue;
			snprintf(err, errlen, "cannot create '%s': %s", s->run, strerror(errno));
			return -1;
		}
		if (journal_add(j, "rundir", s->run, NULL)) {
			rmdir(s->run);
			snprintf(err, errlen, "cannot write the journal: %s", strerror(errno));
			return -1;
		}
		return write_owner(j, s->run, err, errlen);
	}
	snprintf(err, errlen, "no free run directory name in '%s'", s->root);
	return -1;
}
