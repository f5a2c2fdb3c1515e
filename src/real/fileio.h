/* Tiny helpers for the one-value files of /proc, /sys and tracefs. */
#ifndef WBLAB_REAL_FILEIO_H
#define WBLAB_REAL_FILEIO_H
#include <stddef.h>

/* Reads the whole file (up to n-1 bytes), trailing newlines cut.  0 or -1 (errno). */
int file_read(const char *path, char *buf, size_t n);
/* Writes s with one write() (what sysfs and tracefs expect).  0 or -1 (errno). */
int file_write(const char *path, const char *s);
/* Like file_read/file_write with a printf-style path. */
int file_readf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int file_exists(const char *path);

#endif
