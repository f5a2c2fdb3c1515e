/* Small helpers shared by every part of wblab. */
#ifndef WBLAB_UTIL_H
#define WBLAB_UTIL_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define WBLAB_VERSION "0.1.0"
#define PAGE_SIZE_BYTES 4096ULL
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Exit status for bad input (usage, malformed case, unknown key). */
#define EXIT_USAGE 2

/* Prints "wblab CMD: <msg>\n" to stderr ("wblab: " before a command is known). */
void wb_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Names the subcommand wb_error's lines start with ("wblab CMD: "). */
void wb_set_command(const char *name);

/* "100M", "4k", "1G", "512" (bytes). K/M/G are binary. Returns 0 or -1. */
int parse_size(const char *s, uint64_t *bytes);
/* The first control byte (below 0x20, or 0x7f) of s, or -1.  A newline in
 * a name splits meta, cmdline and job lines in two; none has a use in one. */
int control_byte_at(const char *s);
/* Strict integer / double parse of the whole string; a double is decimal
 * ([+-]digits[.digits][e[+-]digits]: no hex, inf or nan). */
int parse_u64(const char *s, uint64_t *v);
int parse_double(const char *s, double *v);

/* Opens a file for reading only if it is a regular file (no FIFO, device or
 * directory: they could block or never end).  nofollow: a symlink is refused
 * too (files inside a result directory are never links).  NULL with a
 * one-line reason naming path in err. */
FILE *fopen_regular(const char *path, int nofollow, char *err, size_t errlen);
/* 1 when a and b are regular files (no symlinks) with the same bytes. */
int files_same(const char *a, const char *b);

/* In a worker just forked from parent: it gets SIGTERM when the parent dies
 * (a `kill PID` of wblab must not leave its workers running and committing
 * results), and exits at once if the parent is already gone. */
void die_with_parent(pid_t parent);

/* The last component of path p (trailing slashes ignored) as [*b, *b + *len). */
void path_base_span(const char *p, size_t *b, size_t *len);

/* mkdir -p; 0 or -1 with errno. */
int mkdir_p(const char *path);
/* rm -rf of a directory we created ourselves. */
int remove_tree(const char *path);

/* snprintf(out, 32, "%.9g", v) and its length, without printf's cost when
 * v is a binary fraction m/2^k (k <= 24) between 1e-4 and 1e9: the page-based
 * series saved beside each simulated result are all of that kind. */
int fmt_g9(char *out, double v);
/* snprintf(out, 24, "%lld", v) and its length */
int fmt_lld(char *out, long long v);

int ilog2_u64(uint64_t x);           /* floor(log2 x), x >= 1 */
uint64_t roundup_pow2(uint64_t x);
int fls_u64(uint64_t x);             /* index of highest set bit, from 1; 0 for 0 */

#endif
