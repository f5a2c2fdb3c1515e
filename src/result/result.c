#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "result.h"
#include "../util/util.h"

/* The first directory of path (below root) that does not exist yet, or "". */
static void first_missing(const char *root, const char *path, char *out, size_t n)
{
	struct stat st;
	size_t rl = strlen(root);
	out[0] = 0;
	if (stat(root, &st) != 0) {
		snprintf(out, n, "%s", root);
		return;
	}
	for (const char *p = path + rl; *p;) {
		p += strspn(p, "/");
		p += strcspn(p, "/");
		snprintf(out, n, "%.*s", (int)(p - path), path);
		if (stat(out, &st) != 0)
			return;
	}
	out[0] = 0;
}

/* rmdir from dir up to and including top, stopping at the first that is not
 * empty (or not ours: nothing above top is touched). */
static void remove_created(const char *dir, const char *top)
{
	char buf[4096];
	size_t tl = strlen(top);
	if (!tl || strncmp(dir, top, tl) != 0 || (dir[tl] && dir[tl] != '/'))
		return;
	snprintf(buf, sizeof(buf), "%s", dir);
	while (strlen(buf) >= tl) {
		if (rmdir(buf) != 0)
			return;
		char *slash = strrchr(buf, '/');
		if (!slash || (size_t)(slash - buf) < tl)
			return;
		*slash = 0;
	}
}

static int kernel_leaf_ok(const char *k)
{
	return *k && !strchr(k, '/') && strcmp(k, ".") && strcmp(k, "..");
}

int result_begin(struct result_dir *r, const char *root, const struct wb_case *c,
		 const char *kernel, int run, char *err, size_t errlen)
{
	char parent[4096];
	char leaf[512];
	r->created[0] = 0;
	if (!root || !*root) {
		snprintf(err, errlen, "empty output directory (-o '')");
		return -1;
	}
	if (case_group_check(c->group, leaf, sizeof(leaf))) {
		snprintf(err, errlen, "case '%s/%s': %s", c->group, c->name, leaf);
		return -1;
	}
	if (!kernel_leaf_ok(kernel) || c->name[0] == '.' || strchr(c->name, '/')) {
		snprintf(err, errlen, "bad result name '%s-%s'", c->name, kernel);
		return -1;
	}
	if (run >= 2)
		snprintf(leaf, sizeof(leaf), "%s-%s.%d", c->name, kernel, run);
	else
		snprintf(leaf, sizeof(leaf), "%s-%s", c->name, kernel);
	if ((size_t)snprintf(parent, sizeof(parent), "%s/%s", root, c->group) >= sizeof(parent) ||
	    (size_t)snprintf(r->final_path, sizeof(r->final_path), "%s/%s", parent, leaf) >=
		    sizeof(r->final_path) ||
	    (size_t)snprintf(r->tmp_path, sizeof(r->tmp_path), "%s/.%s.tmp.%d", parent, leaf,
			     (int)getpid()) >= sizeof(r->tmp_path)) {
		snprintf(err, errlen, "result path under '%s' too long", root);
		return -1;
	}
	first_missing(root, parent, r->created, sizeof(r->created));
	/* twice: a parallel job that failed may rmdir our parent in between */
	int rc = -1;
	for (int attempt = 0; attempt < 2 && rc; attempt++) {
		if (mkdir_p(parent)) {
			snprintf(err, errlen, "cannot create '%s': %s", parent, strerror(errno));
			break;
		}
		remove_tree(r->tmp_path);
		rc = mkdir(r->tmp_path, 0755);
		if (rc)
			snprintf(err, errlen, "cannot create '%s': %s", r->tmp_path, strerror(errno));
	}
	if (rc) {
		remove_created(parent, r->created);
		return -1;
	}
	return 0;
}

const char *result_file(const struct result_dir *r, const char *name, char *buf, size_t n)
{
	snprintf(buf, n, "%s/%s", r->tmp_path, name);
	return buf;
}

FILE *result_fopen(const struct result_dir *r, const char *name)
{
	char p[4200];
	return fopen(result_file(r, name, p, sizeof(p)), "w");
}

int result_write_meta(const struct result_dir *r, const struct wb_case *c, const char *kernel,
		      int run, const char *source)
{
	FILE *f = result_fopen(r, "meta");
	if (!f)
		return -1;
	fprintf(f, "case %s\ngroup %s\nkernel %s\nfs %s\njob %ddd\nbs %llu\ncpus %d\nmem %llu\n"
		   "thresh %s\nbg %s\nrun %d\nsource %s\nwblab_version %s\n",
		c->name, c->group, kernel, c->fs, c->ndd, (unsigned long long)c->bs, c->cpus,
		(unsigned long long)c->mem_mb, c->thresh.text, c->bg.text, run < 1 ? 1 : run,
		source, WBLAB_VERSION);
	return fclose(f) ? -1 : 0;
}

static int needs_quote(const char *s)
{
	if (!*s)
		return 1;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=/.,:+%@", *s))
			return 1;
	return 0;
}

int result_write_cmdline(const struct result_dir *r, int argc, char **argv)
{
	FILE *f = result_fopen(r, "cmdline");
	if (!f)
		return -1;
	for (int i = 0; i < argc; i++) {
		if (i)
			fputc(' ', f);
		if (!needs_quote(argv[i])) {
			fputs(argv[i], f);
			continue;
		}
		fputc('\'', f);
		for (const char *p = argv[i]; *p; p++)
			*p == '\'' ? fputs("'\\''", f) : fputc(*p, f);
		fputc('\'', f);
	}
	fputc('\n', f);
	return fclose(f) ? -1 : 0;
}

int result_commit(struct result_dir *r)
{
	char old[4200];
	struct stat st;
	if (stat(r->final_path, &st) == 0) {
		/* replace an earlier result: move it aside first so the swap is atomic enough */
		snprintf(old, sizeof(old), "%s.old.%d", r->tmp_path, (int)getpid());
		if (rename(r->final_path, old))
			return -1;
		if (rename(r->tmp_path, r->final_path)) {
			rename(old, r->final_path);
			return -1;
		}
		remove_tree(old);
		return 0;
	}
	return rename(r->tmp_path, r->final_path);
}

void result_abort(struct result_dir *r)
{
	remove_tree(r->tmp_path);
	char parent[4096];
	snprintf(parent, sizeof(parent), "%s", r->tmp_path);
	char *slash = strrchr(parent, '/');
	if (slash) {
		*slash = 0;
		remove_created(parent, r->created);
	}
}

int kv_read(const char *path, int (*cb)(void *arg, const char *key, const char *val),
	    void *arg, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int lineno = 0, rc = 0;
	while ((n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		char *k = line;
		while (*k == ' ' || *k == '\t')
			k++;
		if (!*k || *k == '#')
			continue;
		char *sp = k + strcspn(k, " \t=");
		if (!*sp) {
			snprintf(err, errlen, "%s:%d: '%.60s' has no value", path, lineno, k);
			rc = -1;
			break;
		}
		char *v = sp;
		*v++ = 0;
		v += strspn(v, " \t=");
		if (cb(arg, k, v))
			break;
	}
	free(line);
	fclose(f);
	return rc;
}
