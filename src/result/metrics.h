/* The one table of the metrics a result's `stats` file may hold: name, unit,
 * which direction is better, the kernels (trace eras) that have it, who
 * writes it, and a one-line meaning.  Each row is written beside the code
 * that computes it, as WBLAB_METRIC(...) at file scope (below), and the
 * build collects them into this table.  stats_write prints the trace-derived
 * rows in table order; compare and report take units and the better
 * direction from here; validate and calibrate read keys by id (METRIC_KEY);
 * docs/stats.md's metric list is `wblab help metrics --markdown` (a unit
 * test checks it).  Adding a metric: its row and its computation, in the
 * one file that computes it, and the regenerated list in docs/stats.md.
 *
 * Row: WBLAB_METRIC(ID, name, unit, better, eras, producer, meaning)
 *   name      the key; a trailing "_N" stands for a decimal index
 *             (task_bw_N), a trailing "*" for any key of the table
 *             (untraced_*)
 *   better    METRIC_HIGHER, METRIC_LOWER or METRIC_NONE
 *   eras      the trace eras (enum trace_era) whose traces have it, a bit
 *             set: ERAS_ALL, ERAS_IOLESS (balance_dirty_pages and
 *             bdi_dirty_ratelimit: 3.1-rc8-ioless, 3.2, 6.x), ERAS_IOFUL
 *             (balance_dirty_start/wait: 3.1-rc8, 3.1), ERAS_NOT_6X (NFS
 *             commit events), or ERAS_NONE (not from a trace)
 *   producer  trace (stats.c and stats_control.c, from any trace), task
 *             (stats.c, per writer), sim (simulate.c), nfs (the simulated
 *             NFS client), block (the simulated block layer), real
 *             (wblab run) */
#ifndef WBLAB_METRICS_H
#define WBLAB_METRICS_H
#include <stdio.h>
#include "../trace/trace_format.h"

#define METRIC_ERA(e) (1u << (e))
#define ERAS_ALL ((1u << ERA_COUNT) - 1)
#define ERAS_IOFUL (METRIC_ERA(ERA_3_1_RC8) | METRIC_ERA(ERA_3_1))
#define ERAS_IOLESS (ERAS_ALL & ~ERAS_IOFUL)
#define ERAS_NOT_6X (ERAS_ALL & ~METRIC_ERA(ERA_6X))
#define ERAS_NONE 0u

enum metric_better { METRIC_LOWER = -1, METRIC_NONE = 0, METRIC_HIGHER = 1 };

/* A row, written where the metric is computed (at file scope, no ';'):
 *     WBLAB_METRIC(ID, name, unit, better, eras, producer, meaning)
 * It compiles to nothing there; the build (scripts/gen-metric-rows.awk, every
 * src/ file in path order, rows in file order) collects them into
 * metric_rows.h, which defines WBLAB_METRICS(X) as the list of X(...) rows. */
#define WBLAB_METRIC(...)
#include "metric_rows.h"

enum metric_id {
#define METRIC_ENUM(id, ...) M_##id,
	WBLAB_METRICS(METRIC_ENUM)
#undef METRIC_ENUM
	M__COUNT
};

struct metric_def {
	const char *name, *unit;
	int better;                     /* enum metric_better */
	unsigned eras;                  /* METRIC_ERA bits */
	const char *producer, *doc;
};

extern const struct metric_def metric_table[M__COUNT];

/* The key of a row without a pattern ("write_bw"). */
#define METRIC_KEY(id) (metric_table[M_##id].name)

/* The row describing key (exact, task_bw_N, untraced_*), or NULL. */
const struct metric_def *metric_find(const char *key);

/* The metric list as a Markdown table (docs/stats.md) or as text. */
void metric_list(FILE *f, int markdown);

#endif
