#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "statedir.h"
#include "safepath.h"

static int open_state_dir(char *err, size_t errlen)
{
	const char *dir = WBLAB_STATE_DIR;
	char parent[64];
	snprintf(parent, sizeof(parent), "%.*s", (int)(strrchr(dir, '/') - dir), dir);
	if (safe_dir_check(parent, 0, "state dir parent", err, errlen))
		return -1;
	if (mkdir(dir, 0700) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, errlen, "cannot open %s without following a link: %s", dir,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (st.st_uid != 0 || (st.st_mode & 077)) {
		snprintf(err, errlen, "%s is not a root-only directory (owner %u, mode %03o); "
			 "refusing to use it", dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777));
		close(fd);
		return -1;
	}
	return fd;
}

int state_lock(struct run_state *st, char *err, size_t errlen)
{
	st->lockfd = -1;
	st->dirfd = open_state_dir(err, errlen);
	if (st->dirfd < 0)
		return -1;
	struct stat sb;
	st->lockfd = openat(st->dirfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (st->lockfd < 0 || fstat(st->lockfd, &sb) || !S_ISREG(sb.st_mode) || sb.st_uid != 0) {
		snprintf(err, errlen, "cannot use the lock %s/lock: %s", WBLAB_STATE_DIR,
			 st->lockfd < 0 ? strerror(errno) : "not a root-owned regular file");
		goto fail;
	}
	if (flock(st->lockfd, LOCK_EX | LOCK_NB)) {
		snprintf(err, errlen, "another 'wblab run' is running on this machine (%s/lock "
			 "is held; runs change machine-wide sysctls, so one at a time); nothing "
			 "was changed", WBLAB_STATE_DIR);
		goto fail;
	}
	return 0;
fail:
	if (st->lockfd >= 0)
		close(st->lockfd);
	close(st->dirfd);
	st->lockfd = st->dirfd = -1;
	return -1;
}

int state_journal(struct run_state *st, struct journal *j, char *err, size_t errlen)
{
	return journal_open_at(j, st->dirfd, "journal", WBLAB_STATE_DIR "/journal", err, errlen);
}

void state_unlock(struct run_state *st, int remove_journal)
{
	if (st->dirfd < 0)
		return;
	if (remove_journal)
		unlinkat(st->dirfd, "journal", 0);
	if (st->lockfd >= 0)
		close(st->lockfd);
	close(st->dirfd);
	st->lockfd = st->dirfd = -1;
}
