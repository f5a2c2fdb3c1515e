/* Command lines as text: one result's `cmdline`, one line of a job list.
 * Words are written bare when they hold only safe characters, else in single
 * quotes ('\'' for a quote), which any POSIX shell, GNU parallel, a Slurm
 * batch script and `wblab rerun` read back as the same argv. */
#ifndef WBLAB_SHELLWORD_H
#define WBLAB_SHELLWORD_H
#include <stddef.h>
#include <stdio.h>

void shell_quote(FILE *f, const char *word);
/* argv[0..argc) as one line, no newline. */
void shell_join(FILE *f, int argc, char *const *argv);
/* Splits line into words (bare, '...' and "..." quoting, backslash outside
 * single quotes) into *argv (malloc'ed, NULL-terminated; free with
 * shell_words_free).  0, or -1 with err (an open quote, a shell construct
 * wblab does not run such as $, `, ;, |, &, <, >). */
int shell_split(const char *line, int *argc, char ***argv, char *err, size_t errlen);
void shell_words_free(int argc, char **argv);

#endif
