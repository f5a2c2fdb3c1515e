#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "safepath.h"

int path_chars_ok(const char *path)
{
	if (!*path)
		return 0;
	for (const char *p = path; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-", *p))
			return 0;
	return 1;
}

static int component_ok(const struct stat *st, int last)
{
	if (!S_ISDIR(st->st_mode) || st->st_uid != 0)
		return 0;
	if (!(st->st_mode & (S_IWGRP | S_IWOTH)))
		return 1;
	return !last && (st->st_mode & S_ISVTX);
}

static const char *why_bad(const struct stat *st)
{
	return !S_ISDIR(st->st_mode) ? "not a directory" :
	       st->st_uid ? "not owned by root" : "writable by group or others";
}

int safe_dir_check(const char *canon, int flags, const char *what, char *err, size_t errlen)
{
	if (canon[0] != '/' || strlen(canon) >= PATH_MAX) {
		snprintf(err, errlen, "%s '%s' is not an absolute path", what, canon);
		return -1;
	}
	struct stat st;
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, errlen, "cannot open /: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	const char *p = canon + 1;
	size_t upto = 1;   /* canon[0..upto) is the part checked so far */
	int rc = 0;
	for (;;) {
		int last = *p == 0;
		if (!component_ok(&st, last && !(flags & SAFE_STICKY_LAST))) {
			snprintf(err, errlen, "%s '%s': '%.*s' is %s; a root run trusts only "
				 "directories owned by root that no one else can write (sticky "
				 "ones above the last)", what, canon, (int)upto, canon, why_bad(&st));
			rc = -1;
			break;
		}
		if (last)
			break;
		size_t len = strcspn(p, "/");
		char name[NAME_MAX + 1];
		if (len == 0 || len > NAME_MAX) {
			snprintf(err, errlen, "%s '%s' is not a canonical path", what, canon);
			rc = -1;
			break;
		}
		memcpy(name, p, len);
		name[len] = 0;
		int next = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 || fstat(next, &st)) {
			snprintf(err, errlen, "%s '%s': cannot open '%s' without following a "
				 "link: %s", what, canon, name, strerror(errno));
			if (next >= 0)
				close(next);
			rc = -1;
			break;
		}
		close(fd);
		fd = next;
		p += len;
		upto = (size_t)(p - canon);
		if (*p == '/')
			p++;
	}
	close(fd);
	return rc;
}

int path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		n = 0;  /* everything absolute lies below / */
	if (strncmp(path, dir, n) != 0 || path[n] != '/' || !path[n + 1])
		return 0;
	for (const char *p = path; (p = strstr(p, "/..")); p += 3)
		if (p[3] == '/' || p[3] == 0)
			return 0;
	return !strstr(path, "/./") && !strstr(path, "//");
}

int path_join(char *buf, size_t n, const char *dir, const char *name)
{
	int len = strcmp(dir, "/") == 0 ? snprintf(buf, n, "/%s", name)
					: snprintf(buf, n, "%s/%s", dir, name);
	return len < 0 || (size_t)len >= n ? -1 : 0;
}

/* existing_ancestor's walk: strips path's last component (in buf, a copy of
 * path) until the rest resolves; with rest, records the stripped names
 * (pointers into buf, the last one first) and refuses "." and "..". */
static int walk_up(char *buf, size_t bufsize, char *canon, size_t n, const char **rest, int *nrest)
{
	for (;;) {
		char *r = realpath(buf, NULL);
		if (r) {
			int ok = strlen(r) < n;
			if (ok)
				memcpy(canon, r, strlen(r) + 1);
			free(r);
			return ok ? 0 : -1;
		}
		if (errno != ENOENT)
			return -1;
		char *slash = strrchr(buf, '/');
		if (rest) {
			const char *name = slash ? slash + 1 : buf;
			if (!strcmp(name, ".") || !strcmp(name, "..")) {
				errno = EINVAL;
				return -1;
			}
			if (*name)
				rest[(*nrest)++] = name;
		}
		if (!slash) {
			snprintf(buf, bufsize, ".");
			continue;
		}
		if (slash == buf) {
			buf[1] = 0;
			continue;
		}
		*slash = 0;
	}
}

static int copy_path(char *buf, size_t n, const char *path)
{
	if (!*path || strlen(path) >= n) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, strlen(path) + 1);
	return 0;
}

/* The ancestor alone, or (names) joined with the components below it. */
static int resolve(const char *path, char *canon, size_t n, int names)
{
	char buf[PATH_MAX];
	if (copy_path(buf, sizeof(buf), path))
		return -1;
	const char *rest[PATH_MAX / 2];
	int nrest = 0;
	if (walk_up(buf, sizeof(buf), canon, n, names ? rest : NULL, &nrest))
		return -1;
	for (int i = nrest - 1; i >= 0; i--) {
		char next[PATH_MAX];
		if (path_join(next, sizeof(next), canon, rest[i]) || strlen(next) >= n) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(canon, next, strlen(next) + 1);
	}
	return 0;
}

int canonical_target(const char *path, char *canon, size_t n) { return resolve(path, canon, n, 1); }

int existing_ancestor(const char *path, char *canon, size_t n) { return resolve(path, canon, n, 0); }

/* Empties the directory dfd (consumed) level by level. */
static int empty_dir(int dfd)
{
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -1;
	}
	int rc = 0;
	for (struct dirent *de; (de = readdir(d));) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0 || errno == ENOENT)
			continue;
		if (errno != EISDIR && errno != EPERM) {
			rc = -1;
			continue;
		}
		int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0 || empty_dir(sub) || unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR))
			rc = -1;
	}
	closedir(d);
	return rc;
}

int remove_tree_nofollow(const char *path)
{
	char parent[PATH_MAX];
	const char *slash = strrchr(path, '/');
	if (!slash || strlen(path) >= sizeof(parent)) {
		errno = EINVAL;
		return -1;
	}
	size_t pl = slash == path ? 1 : (size_t)(slash - path);
	memcpy(parent, path, pl);
	parent[pl] = 0;
	const char *name = slash + 1;
	int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return errno == ENOENT ? 0 : -1;  /* its parent is gone, and it with it */
	int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int rc;
	if (fd < 0)
		rc = errno == ENOENT ? 0 : unlinkat(pfd, name, 0);  /* a file or link: only it */
	else
		rc = empty_dir(fd) || unlinkat(pfd, name, AT_REMOVEDIR) ? -1 : 0;
	int e = errno;
	close(pfd);
	errno = e;
	return rc;
}

int links_trusted(const char *arg, const char *what, char *err, size_t errlen)
{
	char part[PATH_MAX];
	size_t n = strlen(arg);
	if (n >= sizeof(part)) {
		snprintf(err, errlen, "%s: the path is too long", what);
		return -1;
	}
	for (size_t i = 1; i <= n; i++) {
		if (arg[i] != '/' && arg[i] != 0)
			continue;
		memcpy(part, arg, i);
		part[i] = 0;
		struct stat st;
		if (lstat(part, &st))
			break;  /* the rest does not exist yet */
		if (S_ISLNK(st.st_mode) && st.st_uid != 0) {
			snprintf(err, errlen, "%s '%s': '%s' is a symlink owned by uid %u; "
				 "a root run follows no link another user made", what, arg, part,
				 (unsigned)st.st_uid);
			return -1;
		}
	}
	return 0;
}
