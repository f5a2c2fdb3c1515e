/* The undo journal of `wblab run`.  Every change to the machine is appended
 * (and fsynced) BEFORE it is made, as one line "KIND<TAB>ARG...".  Undoing
 * replays the entries in reverse; each undo first checks the change is still
 * ours (a loop device still backed by our image, a pid with the same start
 * time), so replaying a journal twice, or an entry whose change never
 * happened, is harmless.  The journal file is flock()ed while a run owns it. */
#ifndef WBLAB_REAL_JOURNAL_H
#define WBLAB_REAL_JOURNAL_H
#include <stddef.h>
#include <sys/types.h>

#define J_MAX_ARGS 4
#define J_ARG_LEN 1024

struct jentry {
	char kind[16];
	int nargs;
	char args[J_MAX_ARGS][J_ARG_LEN];
	off_t off;          /* where its line starts in the journal */
};

struct journal {
	int fd;
	char path[4096];
	off_t end;
};

/* Undo action for one entry; returns 0, or -1 after printing why. */
typedef int (*jundo_fn)(const struct jentry *e, void *arg);

/* Creates DIR (the scratch dir) and opens DIR/journal, locked.  Fails when
 * another live wblab run holds it. */
int journal_open(struct journal *j, const char *dir, char *err, size_t errlen);
void journal_close(struct journal *j);
/* Appends one entry (args NULL-terminated) and fsyncs.  0 or -1. */
int journal_add(struct journal *j, const char *kind, ...) __attribute__((sentinel));
/* Position to undo back to later. */
off_t journal_mark(const struct journal *j);
/* Undoes every entry after mark, newest first, then truncates the journal
 * to mark.  Returns the number of undo actions that failed. */
int journal_undo_to(struct journal *j, off_t mark, jundo_fn undo, void *arg);

/* Pure parsing: entries of text[0..len), at most max; returns the count or
 * -1 for a malformed line (a torn last line is ignored: it was never acted on). */
int journal_parse(const char *text, size_t len, struct jentry *out, int max);
/* Calls undo for e[n-1] down to e[0]; returns how many failed. */
int journal_replay(const struct jentry *e, int n, jundo_fn undo, void *arg);

#endif
