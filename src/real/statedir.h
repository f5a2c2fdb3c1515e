/* The state of `wblab run` that must survive a crash: the undo journal and
 * the one-run-per-machine lock, in WBLAB_STATE_DIR, a directory only root can
 * enter (0700, owned by root, in a root-owned parent).  Nothing a user can
 * create there or around it is ever read: the directory is opened without
 * following links, and its owner and mode, and those of each file in it, are
 * checked before use. */
#ifndef WBLAB_REAL_STATEDIR_H
#define WBLAB_REAL_STATEDIR_H
#include <stddef.h>
#include "journal.h"

#define WBLAB_STATE_DIR "/run/wblab"

struct run_state {
	int dirfd;
	int lockfd;
};

/* Creates or checks the state dir and takes the machine-wide lock (flock on
 * STATE/lock, released by the kernel when the process dies, in any network
 * or mount namespace that sees the same /run).  0, or -1 with err (another
 * run holds it, or the dir is not root-only). */
int state_lock(struct run_state *st, char *err, size_t errlen);
/* Opens STATE/journal (created empty).  0 or -1 with err. */
int state_journal(struct run_state *st, struct journal *j, char *err, size_t errlen);
/* Removes the journal file (after a complete undo) and releases the lock. */
void state_unlock(struct run_state *st, int remove_journal);

#endif
