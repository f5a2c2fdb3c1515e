#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "case_expand.h"
#include "util.h"

static int push(struct case_list *l, const char *s, size_t n, char *err, size_t errlen)
{
	if (l->n >= CASE_EXPAND_MAX) {
		snprintf(err, errlen, "more than %d cases: narrow the lists", CASE_EXPAND_MAX);
		return -1;
	}
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 16;
		char **v = realloc(l->v, (size_t)cap * sizeof(*v));
		if (v)
			l->v = v;
		char **from = v ? realloc(l->from, (size_t)cap * sizeof(*from)) : NULL;
		if (!from) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		l->from = from;
		l->cap = cap;
	}
	char *c = malloc(n + 1);
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(c, s, n);
	c[n] = 0;
	l->from[l->n] = NULL;
	l->v[l->n++] = c;
	return 0;
}

void case_list_free(struct case_list *l)
{
	for (int i = 0; i < l->n; i++) {
		free(l->v[i]);
		free(l->from[i]);
	}
	free(l->v);
	free(l->from);
	memset(l, 0, sizeof(*l));
}

/* Index of the '}' matching the '{' at s[open], or -1. */
static long matching(const char *s, size_t open)
{
	int depth = 0;
	for (size_t i = open; s[i]; i++) {
		if (s[i] == '{')
			depth++;
		else if (s[i] == '}' && --depth == 0)
			return (long)i;
	}
	return -1;
}

/* "A..B" with integers A, B (either order): the range, else 0. */
static int parse_range(const char *s, size_t n, long *a, long *b)
{
	char buf[64], *dots, *end;
	if (n >= sizeof(buf))
		return 0;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (!(dots = strstr(buf, "..")))
		return 0;
	*dots = 0;
	errno = 0;
	*a = strtol(buf, &end, 10);
	if (end == buf || *end || errno)
		return 0;
	*b = strtol(dots + 2, &end, 10);
	return end != dots + 2 && !*end && !errno;
}

static int expand(const char *s, struct case_list *l, int depth, char *err, size_t errlen);

/* prefix + alternative + suffix, expanded further. */
static int expand_with(const char *pre, size_t pl, const char *alt, size_t al, const char *suf,
		       struct case_list *l, int depth, char *err, size_t errlen)
{
	size_t sl = strlen(suf);
	char *buf = malloc(pl + al + sl + 1);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(buf, pre, pl);
	memcpy(buf + pl, alt, al);
	memcpy(buf + pl + al, suf, sl + 1);
	int rc = expand(buf, l, depth + 1, err, errlen);
	free(buf);
	return rc;
}

static int expand_braces(const char *s, size_t open, size_t close, struct case_list *l, int depth,
			 char *err, size_t errlen)
{
	const char *in = s + open + 1;
	size_t inl = close - open - 1;
	long a, b;
	if (parse_range(in, inl, &a, &b)) {
		if (labs(b - a) >= CASE_EXPAND_MAX) {
			snprintf(err, errlen, "range {%.*s} is too long", (int)inl, in);
			return -1;
		}
		for (long v = a;; v += a <= b ? 1 : -1) {
			char num[24];
			int nl = snprintf(num, sizeof(num), "%ld", v);
			if (expand_with(s, open, num, (size_t)nl, s + close + 1, l, depth, err, errlen))
				return -1;
			if (v == b)
				break;
		}
		return 0;
	}
	/* alternatives split at top-level commas */
	size_t start = 0;
	int nest = 0;
	for (size_t i = 0; i <= inl; i++) {
		if (i < inl && in[i] == '{')
			nest++;
		else if (i < inl && in[i] == '}')
			nest--;
		if (i == inl || (in[i] == ',' && nest == 0)) {
			if (expand_with(s, open, in + start, i - start, s + close + 1, l, depth, err,
					errlen))
				return -1;
			start = i + 1;
		}
	}
	return 0;
}

/* A bare comma list in a field ("ext4,xfs-1dd-..."): braces around it. */
static int bare_commas(const char *s, struct case_list *l, int depth, char *err, size_t errlen)
{
	const char *comma = strchr(s, ',');
	size_t c = (size_t)(comma - s), b = c, e = c;
	while (b > 0 && !strchr("-/:", s[b - 1]))
		b--;
	while (s[e] && !strchr("-/:", s[e]))
		e++;
	size_t n = strlen(s);
	char *buf = malloc(n + 3);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(buf, n + 3, "%.*s{%.*s}%s", (int)b, s, (int)(e - b), s + b, s + e);
	int rc = expand(buf, l, depth + 1, err, errlen);
	free(buf);
	return rc;
}

static int expand(const char *s, struct case_list *l, int depth, char *err, size_t errlen)
{
	if (depth > 64) {
		snprintf(err, errlen, "braces nest too deep");
		return -1;
	}
	const char *open = strchr(s, '{');
	const char *close = strchr(s, '}');
	if (!open && close) {
		snprintf(err, errlen, "'}' without '{' in '%s'", s);
		return -1;
	}
	if (open) {
		long m = matching(s, (size_t)(open - s));
		if (m < 0) {
			snprintf(err, errlen, "'{' without '}' in '%s'", s);
			return -1;
		}
		/* a comma before the first brace, outside it, is a bare list */
		const char *comma = strchr(s, ',');
		if (comma && comma < open)
			return bare_commas(s, l, depth, err, errlen);
		return expand_braces(s, (size_t)(open - s), (size_t)m, l, depth, err, errlen);
	}
	if (strchr(s, ','))
		return bare_commas(s, l, depth, err, errlen);
	return push(l, s, strlen(s), err, errlen);
}

int case_expand(const char *s, struct case_list *l, char *err, size_t errlen)
{
	if (!*s) {
		snprintf(err, errlen, "empty CASE");
		return -1;
	}
	return expand(s, l, 0, err, errlen);
}

int case_expand_file(const char *path, struct case_list *l, char *err, size_t errlen)
{
	/* a regular file: /dev/zero would grow the line without end, a FIFO block */
	FILE *f = fopen_regular(path, 0, err, errlen);
	if (!f)
		return -1;
	char *line = NULL, e[400];
	size_t cap = 0;
	int lineno = 0, rc = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (strlen(line) != (size_t)n) {
			snprintf(err, errlen, "%s:%d: a NUL byte", path, lineno);
			rc = -1;
			break;
		}
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		char *p = line + strspn(line, " \t\r\n");
		char *end = p + strlen(p);
		while (end > p && strchr(" \t\r\n", end[-1]))
			*--end = 0;
		if (!*p)
			continue;
		if (strpbrk(p, " \t")) {
			snprintf(err, errlen, "%s:%d: one CASE per line ('%.60s' has blanks)", path,
				 lineno, p);
			rc = -1;
			break;
		}
		int before = l->n;
		if (case_expand(p, l, e, sizeof(e))) {
			snprintf(err, errlen, "%s:%d: %s", path, lineno, e);
			rc = -1;
			break;
		}
		/* where each case came from, for the errors found once it is parsed */
		for (int i = before; i < l->n && !rc; i++) {
			size_t fl = strlen(path) + 16;
			if (!(l->from[i] = malloc(fl))) {
				snprintf(err, errlen, "out of memory");
				rc = -1;
			} else {
				snprintf(l->from[i], fl, "%s:%d", path, lineno);
			}
		}
		if (rc)
			break;
	}
	int read_errno = ferror(f) ? errno : 0;   /* a directory opens, then reads as EISDIR */
	free(line);
	fclose(f);
	if (!rc && read_errno) {
		snprintf(err, errlen, "%s: %s", path, strerror(read_errno));
		rc = -1;
	}
	if (!rc && l->n == 0) {
		snprintf(err, errlen, "%s: no CASE in it", path);
		rc = -1;
	}
	return rc;
}
