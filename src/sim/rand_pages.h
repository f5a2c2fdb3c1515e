/* Random buffered writes (fio --rw=randwrite --bs=4k on a file of F pages) as
 * counters: what a 4 KiB write does to the dirty count, and how many runs of
 * adjacent pages writeback finds.  Dirty pages are taken to be spread
 * uniformly over the file (each write picks a page uniformly at random), so
 * every figure is the expected value; a carry keeps the fractions so that the
 * sums over many calls are exact and the results deterministic. */
#ifndef WBLAB_RAND_PAGES_H
#define WBLAB_RAND_PAGES_H
#include <stdint.h>

/* New dirty pages from `writes` random page writes into a file of
 * `file_pages` of which `dirty` are dirty: (F - d) * (1 - (1 - 1/F)^n), the
 * pages not hit before; the rest re-dirty a dirty page and account nothing. */
uint64_t rand_fresh_pages(uint64_t writes, uint64_t dirty, uint64_t file_pages, double *carry);

/* Contiguous runs among `pages` dirty pages taken in offset order from a file
 * of `file_pages` holding `dirty` dirty pages: the first page starts a run,
 * each later one starts a new run unless the page before it is dirty too,
 * which it is with probability q = (d - 1) / (F - 1); so 1 + (pages - 1)(1 - q)
 * runs, and at least pages / max_run (a run is cut at the request size). */
uint64_t rand_runs(uint64_t pages, uint64_t dirty, uint64_t file_pages, uint64_t max_run, double *carry);

/* `left` pages still to send in `parts` requests: the next one's size,
 * ceil(left / parts), so that the sizes differ by at most one page */
uint64_t rand_next_part(uint64_t left, uint64_t parts);

#endif
