/* Dispatch of journal entries to the undo of the module that made them.
 * Only what a run itself creates can be named: paths must lie inside the
 * run's own directory (the journal's "rundir" entry), sysctls and bdi knobs
 * come from fixed lists, loop devices are /dev/loopN backed by the run's
 * image, pids must still have their journaled start time.  An entry naming
 * anything else is refused and left, with a message. */
#ifndef WBLAB_REAL_UNDO_H
#define WBLAB_REAL_UNDO_H
#include "journal.h"

struct undo_ctx {
	int verbose;
	char rundir[J_ARG_LEN];     /* "" until the journal names one */
	char scratch[J_ARG_LEN];    /* the dir rundir lies in */
};

/* Fills ctx from the whole journal (its rundir entry).  0 or -1. */
int undo_ctx_load(struct undo_ctx *ctx, const struct journal *j, int verbose);
/* jundo_fn for every kind wblab journals (arg: struct undo_ctx); unknown
 * kinds and entries outside the rules fail (and are kept). */
int real_undo(const struct jentry *e, void *arg);
/* Replays and empties a journal an interrupted run left; prints what it
 * restored unless quiet.  0, or -1 when something could not be undone. */
int real_cleanup_stale(struct journal *j, int quiet);

#endif
