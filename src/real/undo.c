#include <stdio.h>
#include <string.h>
#include "undo.h"
#include "loopdev.h"
#include "mount.h"
#include "sysctl.h"
#include "tracefs.h"
#include "writers.h"
#include "../util/util.h"

/* A result directory still hidden under its temporary name: only ever a
 * ".NAME.tmp.PID" directory, whatever the journal says. */
static int tmpresult_undo(const struct jentry *e)
{
	const char *base = strrchr(e->args[0], '/');
	if (e->nargs != 1 || !base || base[1] != '.' || !strstr(base, ".tmp."))
		return 0;
	remove_tree(e->args[0]);
	return 0;
}

int real_undo(const struct jentry *e, void *arg)
{
	int verbose = arg && *(int *)arg;
	if (verbose)
		fprintf(stderr, "wblab: undo %s %s%s%s\n", e->kind, e->args[0],
			e->nargs > 1 ? " " : "", e->nargs > 1 ? e->args[1] : "");
	if (strcmp(e->kind, "sysctl") == 0)
		return sysctl_undo(e);
	if (strcmp(e->kind, "file") == 0)
		return file_undo(e);
	if (strcmp(e->kind, "loop") == 0)
		return loop_undo(e);
	if (strcmp(e->kind, "dir") == 0)
		return dir_undo(e);
	if (strcmp(e->kind, "mount") == 0)
		return mount_undo(e);
	if (strcmp(e->kind, "instance") == 0)
		return instance_undo(e);
	if (strcmp(e->kind, "writer") == 0)
		return writer_undo(e);
	if (strcmp(e->kind, "tmpresult") == 0)
		return tmpresult_undo(e);
	wb_error("journal entry of unknown kind '%s' left in place", e->kind);
	return -1;
}

int real_cleanup_stale(struct journal *j, int quiet)
{
	if (journal_mark(j) == 0)
		return 0;
	int verbose = !quiet;
	if (!quiet)
		fprintf(stderr, "wblab: undoing what an interrupted run left (journal %s)\n", j->path);
	int failed = journal_undo_to(j, 0, real_undo, &verbose);
	if (failed) {
		wb_error("%d change(s) could not be undone; journal %s kept for another --cleanup",
			 failed, j->path);
		return -1;
	}
	return 0;
}
