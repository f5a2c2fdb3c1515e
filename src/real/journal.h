/* The undo journal of `wblab run`.  Every change to the machine is appended
 * (and fsynced) BEFORE it is made, as one line "STATE<TAB>KIND<TAB>ARG...",
 * STATE '+' while the change may be in force and '-' once it is undone.
 * Undoing replays the pending entries in reverse and marks each one done as
 * soon as its undo succeeded, so an interrupted or partly failed undo goes on
 * where it stopped instead of replaying what is already restored.  Each undo
 * also checks the change is still ours (a loop device still backed by our
 * image, a pid with the same start time), so an entry whose change never
 * happened is harmless.  The file lives in the root-only state directory
 * (statedir.h); this module only reads and writes it. */
#ifndef WBLAB_REAL_JOURNAL_H
#define WBLAB_REAL_JOURNAL_H
#include <stddef.h>
#include <sys/types.h>

#define J_MAX_ARGS 5
#define J_ARG_LEN 1024
#define J_MAX_ENTRIES 4096

struct jentry {
	char kind[16];
	int nargs;
	int done;           /* undone already ('-') */
	char args[J_MAX_ARGS][J_ARG_LEN];
	off_t off;          /* where its line starts, relative to the parsed text */
};

struct journal {
	int fd;
	char path[4096];    /* for messages */
	off_t end;
};

/* Undo action for one entry; returns 0, or -1 after printing why. */
typedef int (*jundo_fn)(const struct jentry *e, void *arg);

/* Opens (creating, mode 0600) NAME in the directory dirfd without following a
 * symlink; it must be a regular file owned by root with one link and no group
 * or other access.  `shown` is its path for messages.  0 or -1 with err. */
int journal_open_at(struct journal *j, int dirfd, const char *name, const char *shown,
		    char *err, size_t errlen);
void journal_close(struct journal *j);
/* Appends one pending entry (args NULL-terminated) and fsyncs.  0 or -1. */
int journal_add(struct journal *j, const char *kind, ...) __attribute__((sentinel));
/* Position to undo back to later. */
off_t journal_mark(const struct journal *j);
/* Entries from `from` to the end (malloc'ed, *n of them; free *e).  0 or -1. */
int journal_load(const struct journal *j, off_t from, struct jentry **e, int *n);
/* Undoes every pending entry after mark, newest first, marking each done as
 * it succeeds; when all succeeded, truncates the journal to mark.  Returns
 * the number of undo actions that failed. */
int journal_undo_to(struct journal *j, off_t mark, jundo_fn undo, void *arg);
/* Drops the entries after mark without undoing them: for changes found not
 * to have happened (or not to be this run's), whose undo would touch what
 * is someone else's.  0 or -1. */
int journal_forget_to(struct journal *j, off_t mark);

/* Pure parsing: entries of text[0..len), at most max; returns the count or
 * -1 for a malformed line (a torn last line is ignored: it was never acted on). */
int journal_parse(const char *text, size_t len, struct jentry *out, int max);
/* Calls undo for the pending ones of e[n-1] down to e[0]; returns how many failed. */
int journal_replay(const struct jentry *e, int n, jundo_fn undo, void *arg);

#endif
