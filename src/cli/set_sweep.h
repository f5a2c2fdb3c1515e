/* `--set KEY=V1,V2,...`: a sweep of one parameter over a list of values (a
 * plain `--set KEY=V` is a list of one).  Each value is checked as a --set
 * of its own, and two values that set the same number (40 and 40.0, 1e3 and
 * 1000) or name are one value listed twice: they would run each case twice
 * under two directories, a repeat with no spread. */
#ifndef WBLAB_SET_SWEEP_H
#define WBLAB_SET_SWEEP_H
#include <stddef.h>

#define SET_SWEEP_MAX 512          /* a --set KEY=V1,V2,... is shorter than this */
#define SET_SWEEP_MAX_VALUES 10000

/* The number of values (1: a plain --set, or no '=' at all). */
int set_sweep_size(const char *arg);
/* "KEY=V" of value k (0-based, below set_sweep_size) of an arg that
 * set_sweep_check accepted, into buf of SET_SWEEP_MAX bytes. */
void set_sweep_item(const char *arg, int k, char *buf, size_t n);
/* A sweep of two or more values: at most SET_SWEEP_MAX - 1 characters and
 * SET_SWEEP_MAX_VALUES values, none empty, each a valid --set, none the
 * same value as another.  0, or -1 with a one-line reason in err. */
int set_sweep_check(const char *arg, char *err, size_t n);

#endif
