#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "fileio.h"

int file_read(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t got = 0;
	while (got + 1 < n) {
		ssize_t r = read(fd, buf + got, n - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
		got--;
	buf[got] = 0;
	return 0;
}

int file_write(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t len = (ssize_t)strlen(s), w;
	do
		w = write(fd, s, (size_t)len);
	while (w < 0 && errno == EINTR);
	int e = errno;
	if (close(fd) && w == len)
		return -1;
	errno = e;
	return w == len ? 0 : -1;
}

int file_readf(char *buf, size_t n, const char *fmt, ...)
{
	char path[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return file_read(path, buf, n);
}

int file_exists(const char *path)
{
	return access(path, F_OK) == 0;
}
