/* vm.dirty_* sysctls.  The bytes and ratio forms of a threshold are one pair
 * in the kernel (writing one zeroes the other, and 0 bytes is refused), so a
 * pair is journaled and restored together: whichever old value was nonzero
 * is written back. */
#ifndef WBLAB_REAL_SYSCTL_H
#define WBLAB_REAL_SYSCTL_H
#include <stddef.h>
#include "journal.h"
#include "../util/case.h"

/* "vm.dirty_bytes" -> value text.  0 or -1. */
int sysctl_get(const char *name, char *buf, size_t n);
/* Journals the old pair, then sets the dirty (background = 0) or background
 * threshold from the knob.  0 or -1 with err. */
int sysctl_set_knob(struct journal *j, const struct dirty_knob *k, int background,
		    char *err, size_t errlen);
/* Undo of a "sysctl" entry. */
int sysctl_undo(const struct jentry *e);
/* Every vm.dirty* sysctl as "name = value" lines into f. */
void sysctl_dump_dirty(void *file);

#endif
