#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "journal.h"
#include "../util/util.h"

#define J_MAX_ENTRIES 4096

int journal_open(struct journal *j, const char *dir, char *err, size_t errlen)
{
	if (mkdir_p(dir)) {
		snprintf(err, errlen, "cannot create scratch dir '%s': %s", dir, strerror(errno));
		return -1;
	}
	if ((size_t)snprintf(j->path, sizeof(j->path), "%s/journal", dir) >= sizeof(j->path)) {
		snprintf(err, errlen, "scratch dir path too long");
		return -1;
	}
	j->fd = open(j->path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (j->fd < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", j->path, strerror(errno));
		return -1;
	}
	if (flock(j->fd, LOCK_EX | LOCK_NB)) {
		snprintf(err, errlen, "another wblab run is using scratch dir '%s' (%s is locked)",
			 dir, j->path);
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
	size_t len = (size_t)snprintf(line, sizeof(line), "%s", kind);
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
		struct jentry *e = &out[n];
		memset(e, 0, sizeof(*e));
		e->off = (off_t)pos;
		size_t end = (size_t)(nl - text);
		int field = -1;
		while (pos <= end) {
			size_t f = pos;
			while (f < end && text[f] != '\t')
				f++;
			size_t flen = f - pos;
			char *dst = field < 0 ? e->kind : e->args[field];
			size_t cap = field < 0 ? sizeof(e->kind) : J_ARG_LEN;
			if (flen >= cap || field >= J_MAX_ARGS)
				return -1;
			memcpy(dst, text + pos, flen);
			dst[flen] = 0;
			field++;
			pos = f + 1;
		}
		e->nargs = field;
		if (!e->kind[0])
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
		if (undo(&e[i], arg))
			failed++;
	return failed;
}

int journal_undo_to(struct journal *j, off_t mark, jundo_fn undo, void *arg)
{
	if (j->end <= mark)
		return 0;
	size_t len = (size_t)(j->end - mark);
	char *text = malloc(len);
	struct jentry *e = calloc(J_MAX_ENTRIES, sizeof(*e));
	int failed = 0;
	if (!text || !e || pread(j->fd, text, len, mark) != (ssize_t)len) {
		failed = 1;
		goto out;
	}
	int n = journal_parse(text, len, e, J_MAX_ENTRIES);
	if (n < 0) {
		wb_error("journal %s is malformed; fix or remove it by hand", j->path);
		failed = 1;
		goto out;
	}
	failed = journal_replay(e, n, undo, arg);
	/* keep entries whose undo failed: a later --cleanup retries them all */
	if (!failed && ftruncate(j->fd, mark) == 0 && fsync(j->fd) == 0)
		j->end = mark;
out:
	free(text);
	free(e);
	return failed;
}
