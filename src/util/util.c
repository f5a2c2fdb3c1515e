#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util.h"

void wb_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("wblab: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	if (!s || !*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

int parse_double(const char *s, double *v)
{
	char *end;
	if (!s || !*s || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	double x = strtod(s, &end);
	if (errno || *end || x != x)
		return -1;
	*v = x;
	return 0;
}

int parse_size(const char *s, uint64_t *bytes)
{
	char num[32];
	size_t n = strlen(s);
	if (n == 0 || n >= sizeof(num))
		return -1;
	memcpy(num, s, n + 1);
	uint64_t mult = 1;
	switch (num[n - 1]) {
	case 'k': case 'K': mult = 1ULL << 10; break;
	case 'm': case 'M': mult = 1ULL << 20; break;
	case 'g': case 'G': mult = 1ULL << 30; break;
	case 't': case 'T': mult = 1ULL << 40; break;
	default: break;
	}
	if (mult != 1)
		num[n - 1] = 0;
	uint64_t v;
	if (parse_u64(num, &v) || (v && mult > UINT64_MAX / v))
		return -1;
	*bytes = v * mult;
	return 0;
}

FILE *fopen_regular(const char *path, int nofollow, char *err, size_t errlen)
{
	/* O_NONBLOCK: opening a FIFO must not hang before fstat can refuse it */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (nofollow ? O_NOFOLLOW : 0));
	struct stat st;
	if (fd < 0) {
		if (errno == ELOOP && nofollow)
			snprintf(err, errlen, "%s: is a symbolic link (result files must be regular files)",
				 path);
		else
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		close(fd);
		return NULL;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	FILE *f = fdopen(fd, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

int mkdir_p(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);
	if (n == 0 || n >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(p);
}

int remove_tree(const char *path)
{
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int ilog2_u64(uint64_t x)
{
	return x ? 63 - __builtin_clzll(x) : 0;
}

int fls_u64(uint64_t x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

uint64_t roundup_pow2(uint64_t x)
{
	if (x <= 1)
		return 1;
	return 1ULL << (ilog2_u64(x - 1) + 1);
}
