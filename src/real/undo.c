#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "undo.h"
#include "bdi.h"
#include "blkthrottle.h"
#include "loopdev.h"
#include "mount.h"
#include "safepath.h"
#include "scratch.h"
#include "sysctl.h"
#include "tracefs.h"
#include "writers.h"
#include "../util/util.h"

int undo_ctx_load(struct undo_ctx *ctx, const struct journal *j, int verbose)
{
	struct jentry *e;
	int n;
	memset(ctx, 0, sizeof(*ctx));
	ctx->verbose = verbose;
	if (journal_load(j, 0, &e, &n))
		return -1;
	for (int i = 0; i < n; i++)
		if (strcmp(e[i].kind, "rundir") == 0 && e[i].nargs == 1 && !ctx->rundir[0]) {
			snprintf(ctx->rundir, sizeof(ctx->rundir), "%s", e[i].args[0]);
			snprintf(ctx->scratch, sizeof(ctx->scratch), "%s", e[i].args[0]);
			char *slash = strrchr(ctx->scratch, '/');
			if (slash)
				slash[slash == ctx->scratch ? 1 : 0] = 0;
		}
	/* a run that made --scratch but failed before its run dir: the scratch
	 * entry alone names it (an rmdir, which leaves a non-empty dir) */
	for (int i = 0; i < n && !ctx->rundir[0]; i++)
		if (strcmp(e[i].kind, "scratch") == 0 && e[i].nargs == 1)
			snprintf(ctx->scratch, sizeof(ctx->scratch), "%s", e[i].args[0]);
	free(e);
	return 0;
}

/* The dirs between a result and the first one its run made (top): each
 * rmdir'ed from the result's parent up while empty, which also keeps any a
 * committed result or someone else's file is in.  Only when every one of
 * them, top included, is a directory and not a link (lstat): rmdir itself
 * would follow a link in the middle of the path. */
static void created_dirs_undo(const char *result, const char *top)
{
	char buf[4200];
	struct stat st;
	size_t tl = strlen(top);
	snprintf(buf, sizeof(buf), "%s", result);
	char *end = strrchr(buf, '/');
	if (!end)
		return;
	*end = 0;                                   /* the result's parent */
	/* buf is top or below it (path_within): buf[tl] is its end or a '/' */
	for (char *p = buf[tl] ? buf + tl : NULL;; p = strchr(p + 1, '/')) {
		char c = p ? *p : 0;
		if (p)
			*p = 0;
		int dir = lstat(buf, &st) == 0 && S_ISDIR(st.st_mode);
		if (p)
			*p = c;
		if (!dir)
			return;
		if (!p)
			break;
	}
	/* buf extends top (checked by the caller): rmdir up to top, no further */
	while (strlen(buf) >= tl && rmdir(buf) == 0) {
		char *slash = strrchr(buf, '/');
		if (!slash)
			return;
		*slash = 0;
	}
}

/* A result directory still hidden under its temporary name: only ever a
 * ".NAME.tmp.PID" directory, removed without following links; then the
 * dirs the run made above it (second argument, when it made any). */
static int tmpresult_undo(const struct jentry *e)
{
	const char *base = strrchr(e->args[0], '/');
	const char *tmp = base ? strstr(base, ".tmp.") : NULL;
	if (e->nargs < 1 || e->nargs > 2 || !base || base[1] != '.' || !tmp || !tmp[5] ||
	    strspn(tmp + 5, "0123456789") != strlen(tmp + 5) ||
	    (e->nargs == 2 && (e->args[1][0] != '/' || !path_within(e->args[0], e->args[1]))))
		return -1;
	if (remove_tree_nofollow(e->args[0])) {
		wb_error("cannot remove the unfinished result '%s'", e->args[0]);
		return -1;
	}
	if (e->nargs == 2)
		created_dirs_undo(e->args[0], e->args[1]);
	return 0;
}

/* Entries whose first argument is a path inside the run dir. */
static int inside_rundir(const struct jentry *e, const struct undo_ctx *c)
{
	return e->nargs >= 1 && c->rundir[0] && path_within(e->args[0], c->rundir);
}

static int dispatch(const struct jentry *e, const struct undo_ctx *c)
{
	const char *k = e->kind;
	if (strcmp(k, "sysctl") == 0)
		return sysctl_undo(e);
	if (strcmp(k, "bdi") == 0)
		return bdi_undo(e);
	if (strcmp(k, "blkthrottle") == 0)
		return blkthrottle_undo(e);
	if (strcmp(k, "writer") == 0)
		return writer_undo(e);
	if (strcmp(k, "tmpresult") == 0)
		return tmpresult_undo(e);
	if (strcmp(k, "rundir") == 0)
		return strcmp(e->args[0], c->rundir) == 0 ? dir_undo(e) : -1;
	if (strcmp(k, "scratch") == 0)
		return e->nargs == 1 && strcmp(e->args[0], c->scratch) == 0 ? dir_undo(e) : -1;
	if (strcmp(k, "loop") == 0)   /* its image must be RUNDIR/image */
		return c->rundir[0] ? loop_undo(e, c->rundir) : -1;
	if (!inside_rundir(e, c))
		return -1;
	if (strcmp(k, "file") == 0)
		return file_undo(e);
	if (strcmp(k, "dir") == 0)
		return dir_undo(e);
	if (strcmp(k, "mount") == 0)
		return mount_undo(e);
	if (strcmp(k, "instance") == 0)
		return instance_undo(e);
	return -1;
}

int real_undo(const struct jentry *e, void *arg)
{
	const struct undo_ctx *c = arg;
	if (c->verbose)
		wb_error("undo %s %s%s%s", e->kind, e->args[0], e->nargs > 1 ? " " : "",
			 e->nargs > 1 ? e->args[1] : "");
	int rc = dispatch(e, c);
	if (rc)
		wb_error("journal entry '%s %s' was not undone (outside what a run creates, or "
			 "it failed); it stays for another 'wblab run --cleanup'", e->kind,
			 e->nargs ? e->args[0] : "");
	return rc;
}

int real_cleanup_stale(struct journal *j, int quiet)
{
	if (journal_mark(j) == 0)
		return 0;
	struct undo_ctx ctx;
	if (undo_ctx_load(&ctx, j, !quiet))
		return -1;
	if (!quiet)
		wb_error("undoing what an interrupted run left (journal %s)", j->path);
	int failed = journal_undo_to(j, 0, real_undo, &ctx);
	if (failed) {
		wb_error("%d change(s) could not be undone; journal %s kept for another --cleanup",
			 failed, j->path);
		return -1;
	}
	return 0;
}
