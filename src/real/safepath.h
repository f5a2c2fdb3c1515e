/* Paths a root process may trust.  A path is trusted when no user but root
 * can change what it names: every directory on the way is owned by root and
 * writable by nobody else, or is sticky (like /tmp), which keeps others from
 * renaming the root-owned entry inside it.  wblab resolves a user's path once
 * (realpath), checks it this way, and from then on uses only the canonical
 * string, with every later path built below it in directories wblab itself
 * created. */
#ifndef WBLAB_REAL_SAFEPATH_H
#define WBLAB_REAL_SAFEPATH_H
#include <stddef.h>

/* Characters a canonical path wblab works under may hold: /proc/mounts
 * escapes others, and the journal is tab-separated. */
int path_chars_ok(const char *path);
/* Checks the canonical absolute directory path as above: 0, or -1 with err
 * naming the component at fault.  The last component must itself be owned by
 * root and not group/world-writable (sticky does not excuse it). */
#define SAFE_STICKY_LAST 1   /* the last component may be sticky too (a dir to create in) */
int safe_dir_check(const char *canon, int flags, const char *what, char *err, size_t errlen);
/* 1 when path lies strictly inside dir (both canonical; no ".." component). */
int path_within(const char *path, const char *dir);
/* dir + "/" + name into buf without doubling the root's slash.  0 or -1 (too long). */
int path_join(char *buf, size_t n, const char *dir, const char *name);
/* Every symlink on the way of the path as given (what names it in err) is
 * root's own: the canonical path is checked afterwards, but a link another
 * user planted would still have chosen where a root run works.  0 or -1. */
int links_trusted(const char *arg, const char *what, char *err, size_t errlen);
/* The nearest existing ancestor of path (or path itself), canonicalised;
 * path may be relative.  0 or -1 (errno). */
int existing_ancestor(const char *path, char *canon, size_t n);
/* path as root will use it: the canonical nearest existing ancestor joined
 * with the components that do not exist yet, none of them "." or "..".  0,
 * or -1 (errno: EINVAL for such a component, ENAMETOOLONG). */
int canonical_target(const char *path, char *canon, size_t n);
/* Removes the tree at path without following any symlink inside it (each
 * level opened with O_NOFOLLOW relative to its parent).  0 or -1 (errno). */
int remove_tree_nofollow(const char *path);

#endif
