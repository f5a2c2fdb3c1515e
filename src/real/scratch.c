#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "scratch.h"
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
	snprintf(s->root, sizeof(s->root), "%s", canon);
	char where[PATH_MAX];
	if (existing_ancestor(canon, where, sizeof(where))) {
		snprintf(err, errlen, "--scratch '%s': %s", canon, strerror(errno));
		return -1;
	}
	return free_space(where, need_bytes, err, errlen);
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
		return 0;
	}
	snprintf(err, errlen, "no free run directory name in '%s'", s->root);
	return -1;
}
