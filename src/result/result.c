#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "result.h"
#include "../util/shellword.h"
#include "../util/util.h"

/* The first directory of path that does not exist yet, or "": root itself
 * or one above it when root is missing too (-o a/b/c with only a there
 * gives a/b), so that a failed or undone run removes all it made. */
static void first_missing(const char *path, char *out, size_t n)
{
	struct stat st;
	out[0] = 0;
	for (const char *p = path; *p;) {
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

/* also no control character: a newline would split meta's "kernel" line
 * and every listing of the result's name */
int result_kernel_name_ok(const char *k)
{
	return control_byte_at(k) < 0 && *k && !strchr(k, '/') && strcmp(k, ".") && strcmp(k, "..");
}

int result_name_format(char *buf, size_t n, const char *case_name, const char *kernel, int run)
{
	int k = run >= 2 ? snprintf(buf, n, "%s-%s.%d", case_name, kernel, run)
			 : snprintf(buf, n, "%s-%s", case_name, kernel);
	return k < 0 || (size_t)k >= n ? -1 : 0;
}

int result_name_parse(const char *leaf, struct result_name *out)
{
	memset(out, 0, sizeof(*out));
	const char *p = leaf;
	for (int dashes = 0; *p; p++)
		if (*p == '-' && ++dashes == 6)
			break;
	size_t n = (size_t)(p - leaf);
	if (n >= sizeof(out->case_name))
		return -1;
	memcpy(out->case_name, leaf, n);
	out->case_name[n] = 0;
	out->has_kernel = *p == '-';
	const char *k = out->has_kernel ? p + 1 : p;
	if (strlen(k) >= sizeof(out->kernel))
		return -1;
	snprintf(out->kernel, sizeof(out->kernel), "%s", k);
	out->run = 1;
	out->kernel_len = strlen(out->kernel);
	char *dot = strrchr(out->kernel, '.');
	if (dot && dot[1] && strspn(dot + 1, "0123456789") == strlen(dot + 1) && atoi(dot + 1) >= 2) {
		out->run = atoi(dot + 1);
		out->kernel_len = (size_t)(dot - out->kernel);
	}
	return 0;
}

/* "/" between -o and the group, none after a root that ends in one ("/"):
 * no empty component, which the undo of a real run would refuse */
const char *result_root_sep(const char *root)
{
	size_t n = strlen(root);
	return n && root[n - 1] == '/' ? "" : "/";
}

int result_tmp_path(char *buf, size_t n, const char *root, const struct wb_case *c, const char *kernel,
		    int run, int pid)
{
	char leaf[512];
	result_name_format(leaf, sizeof(leaf), c->name, kernel, run);
	int len = snprintf(buf, n, "%s%s%s/.%s.tmp.%d", root, result_root_sep(root), c->group, leaf, pid);
	return (size_t)len >= n ? -1 : 0;
}

/* ROOT/GROUP/CASE-KERNEL[.RUN] into r->final_path */
int result_set_name(struct result_dir *r, const char *root, const struct wb_case *c,
		    const char *kernel, int run, char *err, size_t errlen)
{
	char leaf[512];
	if (!result_kernel_name_ok(kernel) || c->name[0] == '.' || strchr(c->name, '/')) {
		snprintf(err, errlen, "bad result name '%s-%s'", c->name, kernel);
		return -1;
	}
	result_name_format(leaf, sizeof(leaf), c->name, kernel, run);
	if ((size_t)snprintf(r->final_path, sizeof(r->final_path), "%s%s%s/%s", root,
			     result_root_sep(root), c->group, leaf) >= sizeof(r->final_path)) {
		snprintf(err, errlen, "result path under '%s' too long", root);
		return -1;
	}
	return 0;
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
		/* the check's message names the group as far as it prints */
		snprintf(err, errlen, "case %s: %s", c->name, leaf);
		return -1;
	}
	if (result_set_name(r, root, c, kernel, run, err, errlen))
		return -1;
	snprintf(parent, sizeof(parent), "%s%s%s", root, result_root_sep(root), c->group);
	if (result_tmp_path(r->tmp_path, sizeof(r->tmp_path), root, c, kernel, run, (int)getpid())) {
		snprintf(err, errlen, "result path under '%s' too long", root);
		return -1;
	}
	first_missing(parent, r->created, sizeof(r->created));
	/* twice: a parallel job that failed may rmdir our parent in between.
	 * The PID keeps the name apart from another process's commit of the
	 * same result (the undo journal of wblab run knows the form) */
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

int result_write_cmdline(const struct result_dir *r, int argc, char **argv)
{
	FILE *f = result_fopen(r, "cmdline");
	if (!f)
		return -1;
	shell_join(f, argc, argv);
	fputc('\n', f);
	return fclose(f) ? -1 : 0;
}

#define COMMIT_TRIES 100

/* Without RENAME_EXCHANGE (a file system that lacks it): move the earlier
 * result aside, rename ours in, and when another commit of the same result
 * got in between, move that one aside in turn; a reader may find no result
 * for a moment, never a part of one. */
static int commit_moving_aside(struct result_dir *r)
{
	char old[sizeof(r->tmp_path) + 8];
	int moved = 0;
	snprintf(old, sizeof(old), "%s.old", r->tmp_path);
	for (int attempt = 0; attempt < COMMIT_TRIES; attempt++) {
		if (rename(r->tmp_path, r->final_path) == 0) {
			if (moved)
				remove_tree(old);
			return 0;
		}
		if (errno != EEXIST && errno != ENOTEMPTY)
			break;
		if (moved && remove_tree(old)) {
			moved = 0;   /* partly removed: never renamed back in */
			break;
		}
		moved = 0;
		if (rename(r->final_path, old) == 0)
			moved = 1;
		else if (errno != ENOENT)
			break;
	}
	if (moved && rename(old, r->final_path))
		remove_tree(old);
	return -1;
}

/*
 * The finished temporary directory takes the result's name, replacing an
 * earlier result, safely against another process committing the same
 * result at the same moment (the same job twice in a job list, two sims
 * into one root):
 *  - no result yet: RENAME_NOREPLACE moves ours in, or fails with EEXIST
 *    when another commit got there first;
 *  - a result there: RENAME_EXCHANGE swaps the two names in one step, so
 *    the name always holds a whole result; what our temporary name holds
 *    then is the earlier one, which goes.  Two exchanges at once each swap
 *    with whatever is there, and each removes what it got back.
 *  - between the two calls the result may vanish (a commit that moves
 *    aside, below): try again.
 */
int result_commit(struct result_dir *r)
{
	for (int attempt = 0; attempt < COMMIT_TRIES; attempt++) {
		if (renameat2(AT_FDCWD, r->tmp_path, AT_FDCWD, r->final_path, RENAME_NOREPLACE) == 0)
			return 0;
		if (errno == EINVAL || errno == ENOSYS)
			return commit_moving_aside(r);
		if (errno != EEXIST)
			return -1;
		if (renameat2(AT_FDCWD, r->tmp_path, AT_FDCWD, r->final_path, RENAME_EXCHANGE) == 0) {
			remove_tree(r->tmp_path);
			return 0;
		}
		if (errno == EINVAL || errno == ENOSYS)
			return commit_moving_aside(r);
		if (errno != ENOENT)
			return -1;
	}
	errno = EBUSY;
	return -1;
}

/* access() says yes to root everywhere, also in /proc or /sys where no
 * directory can be made: so make (and remove) one, as the results will */
static void probe_mkdir(const char *dir, char *why, size_t n)
{
	char t[4200];
	snprintf(t, sizeof(t), "%s/.wblab-probe.XXXXXX", dir);
	if (mkdtemp(t))
		rmdir(t);
	else
		snprintf(why, n, "'%.100s': cannot create a directory in it: %s", dir, strerror(errno));
}

int result_root_check(const char *cmd, const char *root)
{
	char p[4096], why[200];
	struct stat st;
	if (strlen(root) >= sizeof(p)) {
		fprintf(stderr, "wblab %s: --out: '%.60s...': path too long\n", cmd, root);
		return -1;
	}
	snprintf(p, sizeof(p), "%s", root);
	why[0] = 0;
	/* the deepest part of root that exists must be a directory we may
	 * write in: what is below it is made as the results are */
	for (;;) {
		if (stat(p, &st) == 0) {
			if (!S_ISDIR(st.st_mode))
				snprintf(why, sizeof(why), "'%.100s' is not a directory", p);
			else if (access(p, W_OK | X_OK))
				snprintf(why, sizeof(why), "'%.100s': %s", p, strerror(errno));
			else
				probe_mkdir(p, why, sizeof(why));
			break;
		}
		if (errno != ENOENT && errno != ENOTDIR) {
			snprintf(why, sizeof(why), "'%.100s': %s", p, strerror(errno));
			break;
		}
		char *slash = strrchr(p, '/');
		while (slash && slash > p && slash[-1] == '/')
			slash--;
		if (!slash)
			snprintf(p, sizeof(p), ".");
		else if (slash == p)
			p[1] = 0;
		else
			*slash = 0;
	}
	if (!why[0])
		return 0;
	if (strcmp(p, root))
		fprintf(stderr, "wblab %s: --out: '%.100s': %s\n", cmd, root, why);
	else
		fprintf(stderr, "wblab %s: --out: %s\n", cmd, why);
	return -1;
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

/* ---- key/value files ---- */

void kvf_init(struct kvfile *f, const char *path)
{
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
}

void kvf_free(struct kvfile *f)
{
	for (int i = 0; i < f->n; i++) {
		free(f->v[i].key);
		free(f->v[i].val);
	}
	free(f->v);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

int kvf_add(struct kvfile *f, const char *key, const char *val, int line)
{
	if (f->n == f->cap) {
		int cap = f->cap ? 2 * f->cap : 32;
		struct kv *v = realloc(f->v, (size_t)cap * sizeof(*v));
		if (!v)
			return -1;
		f->v = v;
		f->cap = cap;
	}
	char *k = strdup(key), *x = strdup(val);
	if (!k || !x) {
		free(k);
		free(x);
		return -1;
	}
	f->v[f->n++] = (struct kv){ k, x, line };
	return 0;
}

const struct kv *kvf_get(const struct kvfile *f, const char *key)
{
	for (int i = 0; i < f->n; i++)
		if (strcmp(f->v[i].key, key) == 0)
			return &f->v[i];
	return NULL;
}

/* "nan", "inf", "-Infinity", "nan(0x1)": numbers no result may hold. */
static int non_finite(const char *v)
{
	char *end;
	if (!*v)
		return 0;
	double x = strtod(v, &end);
	return !*end && !isfinite(x);
}

int kvf_number(const struct kvfile *f, const struct kv *e, double *v, char *err, size_t errlen)
{
	if (parse_double(e->val, v) || !isfinite(*v)) {
		snprintf(err, errlen, "%s:%d: '%.40s' is not a number", f->path, e->line, e->val);
		return -1;
	}
	/* no metric or parameter comes near it (events, pages, KB/s, ns); past
	 * it a change overflows to inf and a cell prints hundreds of digits */
	if (fabs(*v) > KV_MAX_NUMBER) {
		snprintf(err, errlen, "%s:%d: %.60s %.40s is out of range (|value| <= 1e15)", f->path,
			 e->line, e->key, e->val);
		return -1;
	}
	return 0;
}

/* Splits "key value" / "key = value" in place.  NULL for a blank or comment
 * line; *val NULL when nothing follows the key at all. */
static char *split_kv(char *line, char **val)
{
	char *k = line + strspn(line, " \t");
	size_t n = strlen(k);
	while (n && strchr(" \t\r\n", k[n - 1]))
		k[--n] = 0;
	*val = NULL;
	if (!*k || *k == '#')
		return NULL;
	char *sp = k + strcspn(k, " \t=");
	if (*sp == '=' || (*sp && sp[strspn(sp, " \t")])) {
		/* "key = " keeps an empty value (an empty sysfs file in env) */
		*sp++ = 0;
		*val = sp + strspn(sp, " \t=");
	}
	return k;
}

static int kv_cmp(const void *a, const void *b)
{
	const struct kv *x = *(const struct kv *const *)a, *y = *(const struct kv *const *)b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* A key given twice: the earliest second line; 0 when each key is once,
 * -1 when out of memory.  Sorting keeps a 16 MiB file at n log n. */
static int kv_find_repeat(const struct kvfile *f, const struct kv **first, const struct kv **again)
{
	*again = NULL;
	if (f->n < 2)
		return 0;
	const struct kv **v = malloc((size_t)f->n * sizeof(*v));
	if (!v)
		return -1;
	for (int i = 0; i < f->n; i++)
		v[i] = &f->v[i];
	qsort(v, (size_t)f->n, sizeof(*v), kv_cmp);
	for (int i = 1; i < f->n; i++)
		if (!strcmp(v[i]->key, v[i - 1]->key) && (!*again || v[i]->line < (*again)->line)) {
			int k = i - 1;
			while (k > 0 && !strcmp(v[k - 1]->key, v[i]->key))
				k--;
			*first = v[k];
			*again = v[i];
		}
	free(v);
	return *again != NULL;
}

/* flags: KV_REPEATS lets a key repeat (the plots index lists `made` per
 * graph); KV_BY_HAND takes a last line without its newline (a file people
 * write, such as compare's order file; wblab ends every line it writes) */
enum { KV_REPEATS = 1, KV_BY_HAND = 2 };

static int kv_parse(struct kvfile *f, FILE *fp, const char *name, int flags, char *err, size_t errlen)
{
	kvf_init(f, name);
	char *line = NULL, *val;
	size_t cap = 0;
	long total = 0;
	ssize_t len;
	int lineno = 0, rc = 0;
	while (!rc && (len = getline(&line, &cap, fp)) >= 0) {
		lineno++;
		total += len;
		if (total > KV_MAX_BYTES) {
			snprintf(err, errlen, "%s: larger than %ld MiB, not a key/value file", name,
				 KV_MAX_BYTES >> 20);
			rc = -1;
			break;
		}
		/* wblab ends every line; a last one without its newline is a
		 * file cut short, whose last value may be cut too ("5" of "56.9") */
		if (len > 0 && line[len - 1] != '\n' && !(flags & KV_BY_HAND)) {
			snprintf(err, errlen, "%s:%d: the last line has no newline (a file cut short?)",
				 name, lineno);
			rc = -1;
			break;
		}
		/* a NUL would end the value early ("5\0junk" read as 5), other
		 * control bytes would reach the terminal in our own messages; a
		 * byte-order mark would turn the first key into one nobody asks for */
		int bad = -1;
		for (ssize_t i = 0; i < len && bad < 0; i++) {
			unsigned char c = (unsigned char)line[i];
			if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
				bad = (int)i;
		}
		if (bad >= 0) {
			snprintf(err, errlen, "%s:%d: control byte 0x%02x at column %d: not a text key/value file",
				 name, lineno, (unsigned char)line[bad], bad + 1);
			rc = -1;
			break;
		}
		if (lineno == 1 && len >= 3 && !memcmp(line, "\xef\xbb\xbf", 3)) {
			snprintf(err, errlen, "%s:1: starts with a UTF-8 byte-order mark (save it without one)",
				 name);
			rc = -1;
			break;
		}
		char *key = split_kv(line, &val);
		if (!key)
			continue;
		if (!val) {
			snprintf(err, errlen, "%s:%d: '%.60s' has no value", name, lineno, key);
			rc = -1;
		} else if (non_finite(val)) {
			snprintf(err, errlen, "%s:%d: %.60s '%.40s' is not a finite number", name,
				 lineno, key, val);
			rc = -1;
		} else if (kvf_add(f, key, val, lineno)) {
			snprintf(err, errlen, "%s: out of memory", name);
			rc = -1;
		}
	}
	if (!rc && ferror(fp)) {
		snprintf(err, errlen, "%s: read error", name);
		rc = -1;
	}
	const struct kv *first, *again;
	int r = rc || (flags & KV_REPEATS) ? 0 : kv_find_repeat(f, &first, &again);
	if (r < 0) {
		snprintf(err, errlen, "%s: out of memory", name);
		rc = -1;
	} else if (r > 0) {
		/* the first would win silently: a result filed under the wrong name */
		snprintf(err, errlen, "%s:%d: '%.60s' appears twice (first on line %d)", name,
			 again->line, again->key, first->line);
		rc = -1;
	}
	free(line);
	if (rc) {
		char *keep = f->path;
		f->path = NULL;
		kvf_free(f);
		f->path = keep;
	}
	return rc;
}

int kvf_parse(struct kvfile *f, FILE *fp, const char *name, char *err, size_t errlen)
{
	return kv_parse(f, fp, name, 0, err, errlen);
}

static int kv_load(struct kvfile *f, const char *path, int flags, char *err, size_t errlen)
{
	FILE *fp = fopen_regular(path, 1, err, errlen);
	if (!fp) {
		kvf_init(f, path);
		return -1;
	}
	int rc = kv_parse(f, fp, path, flags, err, errlen);
	fclose(fp);
	return rc;
}

int kvf_load(struct kvfile *f, const char *path, char *err, size_t errlen)
{
	return kv_load(f, path, 0, err, errlen);
}

int kvf_load_by_hand(struct kvfile *f, const char *path, char *err, size_t errlen)
{
	return kv_load(f, path, KV_BY_HAND, err, errlen);
}

int kv_read_list(const char *path, int (*cb)(void *arg, const char *key, const char *val),
		 void *arg, char *err, size_t errlen)
{
	struct kvfile f;
	int rc = kv_load(&f, path, KV_REPEATS, err, errlen);
	for (int i = 0; !rc && i < f.n; i++)
		if (cb(arg, f.v[i].key, f.v[i].val))
			break;
	kvf_free(&f);
	return rc;
}

int kv_read(const char *path, int (*cb)(void *arg, const char *key, const char *val),
	    void *arg, char *err, size_t errlen)
{
	struct kvfile f;
	int rc = kvf_load(&f, path, err, errlen);
	for (int i = 0; !rc && i < f.n; i++)
		if (cb(arg, f.v[i].key, f.v[i].val))
			break;
	kvf_free(&f);
	return rc;
}

/* ---- finding result directories ---- */

#define WALK_MAX_DEPTH 32

struct names {
	char **v;
	int n, cap;
};

static int names_push(struct names *s, char *owned)
{
	if (!owned)
		return -1;
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 16;
		char **v = realloc(s->v, (size_t)cap * sizeof(*v));
		if (!v) {
			free(owned);
			return -1;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = owned;
	return 0;
}

static void names_free(struct names *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s/%s", dir, name);
	return p;
}

#define WFAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

static int walk(const char *path, int depth, struct names *out, char *err, size_t errlen)
{
	struct stat st;
	char *stats = join(path, "stats");
	if (!stats)
		WFAIL("out of memory");
	int is_result = lstat(stats, &st) == 0;
	free(stats);
	if (is_result)
		return names_push(out, strdup(path)) ? (snprintf(err, errlen, "out of memory"), -1) : 0;
	if (depth > WALK_MAX_DEPTH)
		WFAIL("%s: more than %d directory levels below the DIR argument", path,
		      WALK_MAX_DEPTH);
	DIR *d = opendir(path);
	if (!d)
		WFAIL("%s: %s", path, strerror(errno));
	struct names sub = { 0 };
	int rc = 0;
	for (struct dirent *e; !rc && (e = readdir(d));)
		if (e->d_name[0] != '.' && names_push(&sub, strdup(e->d_name)))
			rc = -1;
	closedir(d);
	if (rc) {
		names_free(&sub);
		WFAIL("out of memory");
	}
	if (sub.n)
		qsort(sub.v, (size_t)sub.n, sizeof(char *), cmp_name);
	for (int i = 0; i < sub.n && !rc; i++) {
		char *p = join(path, sub.v[i]);
		if (!p) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
		} else if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			rc = walk(p, depth + 1, out, err, errlen);
		}
		free(p);
	}
	names_free(&sub);
	return rc;
}

void result_list_free(struct result_list *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int result_find(const char *const *dirs, int ndirs, struct result_list *out, char *err,
		size_t errlen)
{
	struct names seen = { 0 };
	int rc = 0;
	memset(out, 0, sizeof(*out));
	for (int a = 0; a < ndirs && !rc; a++) {
		struct names paths = { 0 };
		struct stat st;
		int bad = stat(dirs[a], &st) ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
		if (bad) {
			snprintf(err, errlen, "%s: %s", dirs[a], strerror(bad));
			rc = -1;
		} else {
			rc = walk(dirs[a], 0, &paths, err, errlen);
		}
		for (int i = 0; !rc && i < paths.n; i++) {
			char *real = realpath(paths.v[i], NULL);
			int dup = 0;
			for (int j = 0; real && j < seen.n && !dup; j++)
				dup = strcmp(seen.v[j], real) == 0;
			if (dup) {
				free(real);
				continue;
			}
			struct result_ref *v = realloc(out->v, (size_t)(out->n + 1) * sizeof(*v));
			if (!v || names_push(&seen, real ? real : strdup(paths.v[i]))) {
				if (v)
					out->v = v;
				snprintf(err, errlen, "out of memory");
				rc = -1;
				break;
			}
			out->v = v;
			out->v[out->n++] = (struct result_ref){ paths.v[i], a };
			paths.v[i] = NULL;
		}
		names_free(&paths);
	}
	names_free(&seen);
	if (rc)
		result_list_free(out);
	return rc;
}
