/* Matrices in one CASE argument: brace lists and ranges, expanded by wblab so
 * they work without a shell (quoted, from a file, from a job list).
 *   {ext4,xfs}-{1,2,10}dd-4k-8p-4096M-{1M,10M}:10   ->  2 x 3 x 2 = 12 cases
 *   ext4-{1..3}dd-...                               ->  1dd, 2dd, 3dd
 *   ext4,xfs-1dd-...                                ->  a bare comma list in a
 *                                                       field means the same
 * Fields are separated by '-', '/' and ':'; braces may nest.  Expansion is
 * left to right, the first field varying slowest, as bash does. */
#ifndef WBLAB_CASE_EXPAND_H
#define WBLAB_CASE_EXPAND_H
#include <stddef.h>

#define CASE_EXPAND_MAX 100000   /* more cases than this is a mistake, not a matrix */

struct case_list {
	int n, cap;
	char **v;
	char **from;    /* [n]: "FILE:LINE" of a case_expand_file case, else NULL */
};

/* Appends the expansions of s to l.  0, or -1 with err (unbalanced braces, a
 * bad range, too many cases). */
int case_expand(const char *s, struct case_list *l, char *err, size_t errlen);
/* Appends the expansions of every case in FILE: one per line, '#' starts a
 * comment, blank lines skipped.  Errors name file:line.  0 or -1. */
int case_expand_file(const char *path, struct case_list *l, char *err, size_t errlen);
void case_list_free(struct case_list *l);

#endif
