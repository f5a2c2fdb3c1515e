#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include "mount.h"
#include "../util/util.h"

int mkfs_tool(const char *fs, char *buf, size_t n)
{
	static const char *const dirs[] = { "/usr/sbin", "/sbin", "/usr/bin", "/bin" };
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(buf, n, "%s/mkfs.%s", dirs[i], fs);
		if (access(buf, X_OK) == 0)
			return 0;
	}
	return -1;
}

const char *mkfs_options(const char *fs)
{
	/* ext4: initialise inode tables now, so no lazy-init IO competes later */
	if (strcmp(fs, "ext4") == 0 || strcmp(fs, "ext3") == 0 || strcmp(fs, "ext2") == 0)
		return "-q -F -E lazy_itable_init=0,lazy_journal_init=0";
	return "-q -f";
}

int run_quiet(char *const argv[], const volatile sig_atomic_t *stop)
{
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		/* mkfs must not outlive a killed run (it would go on writing a
		 * device the cleanup detaches), and gets the signals a shell
		 * would give it: wblab ignores SIGPIPE, exec would keep that */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	int st, killed = 0;
	for (;;) {
		/* the run is stopping: a 64G mkfs would hold the undo for half a minute */
		if (stop && *stop && !killed)
			killed = kill(pid, SIGKILL) == 0;
		if (waitpid(pid, &st, 0) >= 0)
			break;
		if (errno != EINTR)
			return -1;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int mkfs_run(const char *fs, const char *dev, const volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	char tool[256], opts[256], *argv[16];
	int argc = 0;
	if (mkfs_tool(fs, tool, sizeof(tool))) {
		snprintf(err, errlen, "mkfs.%s is not installed", fs);
		return -1;
	}
	snprintf(opts, sizeof(opts), "%s", mkfs_options(fs));
	argv[argc++] = tool;
	for (char *save = NULL, *t = strtok_r(opts, " ", &save); t && argc < 14;
	     t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	argv[argc++] = (char *)dev;
	argv[argc] = NULL;
	if (stop && *stop) {   /* stopped before it began */
		err[0] = 0;
		return -1;
	}
	int rc = run_quiet(argv, stop);
	if (rc && stop && *stop) {
		err[0] = 0;   /* stopped by the run's signal, not a failure of mkfs */
		return -1;
	}
	if (rc) {
		snprintf(err, errlen, "%s %s %s failed (status %d)", tool, mkfs_options(fs), dev, rc);
		return -1;
	}
	return 0;
}

int mount_fs(struct journal *j, const char *fs, const char *dev, const char *dir,
	     char *err, size_t errlen)
{
	if (journal_add(j, "dir", dir, NULL)) {
		snprintf(err, errlen, "cannot write the journal: %s", strerror(errno));
		return -1;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create '%s': %s", dir, strerror(errno));
		return -1;
	}
	if (journal_add(j, "mount", dir, fs, NULL)) {
		snprintf(err, errlen, "cannot write the journal: %s", strerror(errno));
		return -1;
	}
	if (mount(dev, dir, fs, 0, NULL)) {
		snprintf(err, errlen, "cannot mount %s (%s) on %s: %s", dev, fs, dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* Finds the newest mount at dir in /proc/self/mounts. */
static int find_mount(const char *dir, char *src, size_t srcn, char *opts, size_t optn)
{
	FILE *f = setmntent("/proc/self/mounts", "r");
	int found = 0;
	for (struct mntent *m; f && (m = getmntent(f));) {
		if (strcmp(m->mnt_dir, dir) != 0)
			continue;
		found = 1;
		if (src)
			snprintf(src, srcn, "%s", m->mnt_fsname);
		if (opts)
			snprintf(opts, optn, "%s", m->mnt_opts);
	}
	if (f)
		endmntent(f);
	return found;
}

int mount_options(const char *dir, char *buf, size_t n)
{
	return find_mount(dir, NULL, 0, buf, n) ? 0 : -1;
}

/* statfs magic of the file systems a run mounts */
static long fs_magic(const char *fs)
{
	static const struct { const char *name; long magic; } m[] = {
		{ "ext4", 0xEF53 }, { "ext3", 0xEF53 }, { "ext2", 0xEF53 },
		{ "xfs", 0x58465342 }, { "btrfs", 0x9123683E }, { "tracefs", 0x74726163 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(m); i++)
		if (strcmp(fs, m[i].name) == 0)
			return m[i].magic;
	return 0;
}

int mount_root_of(const char *dir, const char *fs)
{
	struct statx sx;
	struct statfs sf;
	long magic = fs_magic(fs);
	int fd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	int yes = statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &sx) == 0 &&
		  (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
		  (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) && fstatfs(fd, &sf) == 0 &&
		  magic && (long)sf.f_type == magic;
	close(fd);
	return yes;
}

int mount_undo(const struct jentry *e)
{
	if (e->nargs != 2 || !fs_magic(e->args[1]))
		return -1;
	const char *dir = e->args[0];
	/* only a mount of the journaled type whose root is this very dir */
	for (int tries = 0; mount_root_of(dir, e->args[1]); tries++) {
		if (umount2(dir, UMOUNT_NOFOLLOW) == 0)
			continue;
		if (errno != EBUSY || tries >= 50) {
			/* still busy after 5 s: detach it from the tree, the kernel finishes later */
			if (umount2(dir, MNT_DETACH | UMOUNT_NOFOLLOW)) {
				wb_error("cannot unmount '%s': %s", dir, strerror(errno));
				return -1;
			}
			continue;
		}
		usleep(100000);
	}
	return 0;
}

int dir_undo(const struct jentry *e)
{
	if (e->nargs != 1)
		return -1;
	if (rmdir(e->args[0]) == 0 || errno == ENOENT)
		return 0;
	if (errno == ENOTEMPTY || errno == EEXIST) {
		/* what is inside was not made by wblab: leave it, and do not get stuck */
		wb_error("left '%s' in place: it holds files wblab did not make", e->args[0]);
		return 0;
	}
	wb_error("cannot remove directory '%s': %s", e->args[0], strerror(errno));
	return -1;
}
