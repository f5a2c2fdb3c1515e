/* Dispatch of journal entries to the undo of the module that made them. */
#ifndef WBLAB_REAL_UNDO_H
#define WBLAB_REAL_UNDO_H
#include "journal.h"

/* jundo_fn for every kind wblab journals; unknown kinds fail (kept). */
int real_undo(const struct jentry *e, void *arg);
/* Replays and empties a journal an interrupted run left in scratch; prints
 * what it restored unless quiet.  0, or -1 when something could not be undone. */
int real_cleanup_stale(struct journal *j, int quiet);

#endif
