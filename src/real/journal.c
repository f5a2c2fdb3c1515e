#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "journal.h"
#include "../util/util.h"

int journal_open_at(struct journal *j, int dirfd, const char *name, const char *shown,
		    char *err, size_t errlen)
{
	struct stat st;
	snprintf(j->path, sizeof(j->path), "%s", shown);
	j->fd = openat(dirfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (j->fd < 0) {
		snprintf(err, errlen, "cannot open the journal %s: %s", shown, strerror(errno));
		return -1;
	}
	if (fstat(j->fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != 0 || st.st_nlink != 1 ||
	    (st.st_mode & 077)) {
		snprintf(err, errlen, "journal %s is not a root-only regular file; refusing to "
			 "use it (remove it after checking who made it)", shown);
		close(j->fd);
		j->fd = -1;
		return -1;
	}
	j->end = lseek(j->fd, 0, SEEK_END);
	return 0;
}

void journal_close(struct journal *j)
{
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
}

static int arg_ok(const char *s)
{
	return strlen(s) < J_ARG_LEN && !strpbrk(s, "\t\n");
}

int journal_add(struct journal *j, const char *kind, ...)
{
	char line[J_MAX_ARGS * J_ARG_LEN + 64];
	if (strlen(kind) >= sizeof(((struct jentry *)0)->kind) || !arg_ok(kind) || !*kind) {
		errno = EINVAL;
		return -1;
	}
	size_t len = (size_t)snprintf(line, sizeof(line), "+\t%s", kind);
	va_list ap;
	va_start(ap, kind);
	int nargs = 0;
	for (const char *a; (a = va_arg(ap, const char *)) != NULL; nargs++) {
		if (nargs == J_MAX_ARGS || !arg_ok(a)) {
			va_end(ap);
			errno = EINVAL;
			return -1;
		}
		len += (size_t)snprintf(line + len, sizeof(line) - len, "\t%s", a);
	}
	va_end(ap);
	line[len++] = '\n';
	if (pwrite(j->fd, line, len, j->end) != (ssize_t)len || fsync(j->fd))
		return -1;
	j->end += (off_t)len;
	return 0;
}

off_t journal_mark(const struct journal *j)
{
	return j->end;
}

/* One line text[pos..end) into e.  0 or -1. */
static int parse_line(const char *text, size_t pos, size_t end, struct jentry *e)
{
	memset(e, 0, sizeof(*e));
	e->off = (off_t)pos;
	if (end - pos < 2 || (text[pos] != '+' && text[pos] != '-') || text[pos + 1] != '\t')
		return -1;
	e->done = text[pos] == '-';
	pos += 2;
	int field = -1;
	while (pos <= end) {
		size_t f = pos;
		while (f < end && text[f] != '\t')
			f++;
		size_t flen = f - pos;
		if (field >= J_MAX_ARGS)
			return -1;
		char *dst = field < 0 ? e->kind : e->args[field];
		size_t cap = field < 0 ? sizeof(e->kind) : J_ARG_LEN;
		if (flen >= cap || memchr(text + pos, 0, flen))
			return -1;
		memcpy(dst, text + pos, flen);
		dst[flen] = 0;
		field++;
		pos = f + 1;
	}
	e->nargs = field;
	return e->kind[0] ? 0 : -1;
}

int journal_parse(const char *text, size_t len, struct jentry *out, int max)
{
	int n = 0;
	size_t pos = 0;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		if (!nl)
			break;  /* torn write: the change after it was never started */
		if (n == max)
			return -1;
		size_t end = (size_t)(nl - text);
		if (parse_line(text, pos, end, &out[n]))
			return -1;
		n++;
		pos = end + 1;
	}
	return n;
}

int journal_replay(const struct jentry *e, int n, jundo_fn undo, void *arg)
{
	int failed = 0;
	for (int i = n - 1; i >= 0; i--)
		if (!e[i].done && undo(&e[i], arg))
			failed++;
	return failed;
}

int journal_load(const struct journal *j, off_t from, struct jentry **e, int *n)
{
	*e = NULL;
	*n = 0;
	if (j->end <= from)
		return 0;
	size_t len = (size_t)(j->end - from);
	char *text = malloc(len);
	*e = calloc(J_MAX_ENTRIES, sizeof(**e));
	int rc = -1;
	if (text && *e && pread(j->fd, text, len, from) == (ssize_t)len) {
		*n = journal_parse(text, len, *e, J_MAX_ENTRIES);
		if (*n >= 0)
			rc = 0;
		else
			wb_error("journal %s is malformed; fix or remove it by hand", j->path);
	}
	free(text);
	if (rc) {
		free(*e);
		*e = NULL;
		*n = 0;
	}
	return rc;
}

int journal_undo_to(struct journal *j, off_t mark, jundo_fn undo, void *arg)
{
	struct jentry *e;
	int n, failed = 0;
	if (journal_load(j, mark, &e, &n))
		return 1;
	for (int i = n - 1; i >= 0; i--) {
		if (e[i].done)
			continue;
		if (undo(&e[i], arg)) {
			failed++;
			continue;
		}
		/* restored: never again, even if a later step fails */
		if (pwrite(j->fd, "-", 1, mark + e[i].off) != 1 || fsync(j->fd))
			failed++;
	}
	/* keep entries whose undo failed: a later --cleanup retries those alone */
	if (!failed && ftruncate(j->fd, mark) == 0 && fsync(j->fd) == 0)
		j->end = mark;
	free(e);
	return failed;
}

int journal_forget_to(struct journal *j, off_t mark)
{
	if (mark > j->end || ftruncate(j->fd, mark) || fsync(j->fd))
		return -1;
	j->end = mark;
	return 0;
}
