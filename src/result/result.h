/* The result directory every producer writes and every tool reads:
 *   OUT/GROUP/CASE-KERNEL[.RUN]/{trace,stats,params,meta,cmdline,...}
 * It appears whole or not at all: files go to a hidden temporary directory
 * which is renamed into place by result_commit(). */
#ifndef WBLAB_RESULT_H
#define WBLAB_RESULT_H
#include <stdio.h>
#include "../util/case.h"

struct result_dir {
	char final_path[4096];
	char tmp_path[4096];
	char created[4096];    /* topmost directory result_begin made ("": none) */
};

/* run <= 1 gives CASE-KERNEL, run N >= 2 gives CASE-KERNEL.N.  root must be
 * non-empty, c->group relative without '.'/'..' parts (case_group_check),
 * kernel one path component.  Creates root/group as needed. */
int result_begin(struct result_dir *r, const char *root, const struct wb_case *c,
		 const char *kernel, int run, char *err, size_t errlen);
/* Where result_begin of process pid puts that result's files until the
 * commit: ROOT/GROUP/.LEAF.tmp.PID (the form wblab run's undo journal knows).
 * 0, or -1 when it does not fit n. */
int result_tmp_path(char *buf, size_t n, const char *root, const struct wb_case *c, const char *kernel,
		    int run, int pid);
/* A result directory's leaf name, CASE-KERNEL[.RUN] - the one parser and
 * formatter of it (result_begin, compare without meta, import).  CASE is
 * the first six '-' separated fields (FS-JOB-BS-CPUS-MEM-THRESH:BG), kernel
 * all after the sixth '-' (has_kernel 0, kernel "", case all of leaf when
 * there are fewer); a trailing .N of kernel (digits, N >= 2) is the run:
 * run N and kernel_len the length before it, else run 1 and all of kernel.
 * 0, or -1 when a part is longer than its buffer. */
struct result_name {
	char case_name[256];
	char kernel[256];
	int has_kernel;
	int run;
	size_t kernel_len;
};
int result_name_parse(const char *leaf, struct result_name *out);
/* a kernel name that can be a result dir's leaf: not empty, ".", ".."; no
 * '/', no control character */
int result_kernel_name_ok(const char *k);
/* CASE-KERNEL, or CASE-KERNEL.RUN for run >= 2, into buf; 0, or -1 when cut. */
int result_name_format(char *buf, size_t n, const char *case_name, const char *kernel, int run);
/* "/" to put between an output root and a group, "" after a root that ends
 * in one ("/"): result paths have no empty component. */
const char *result_root_sep(const char *root);
/* Gives a begun result another kernel name (what import learns only from
 * reading the trace): the final path changes, the temporary one stays.
 * 0, or -1 with err when the name is bad or the path too long. */
int result_set_name(struct result_dir *r, const char *root, const struct wb_case *c,
		    const char *kernel, int run, char *err, size_t errlen);
/* Path of a file inside the (temporary) directory. */
const char *result_file(const struct result_dir *r, const char *name, char *buf, size_t n);
FILE *result_fopen(const struct result_dir *r, const char *name);
/* meta: case, group, kernel, fs, job, bs, cpus, mem, thresh, bg, run, source. */
int result_write_meta(const struct result_dir *r, const struct wb_case *c, const char *kernel,
		      int run, const char *source);
/* argv joined with spaces (shell-quoted where needed) into `cmdline`. */
int result_write_cmdline(const struct result_dir *r, int argc, char **argv);
/* Renames the temporary directory to the result's name, replacing an earlier
 * result in one step, also when another process commits the same result at
 * the same time.  0, or -1 with errno. */
int result_commit(struct result_dir *r);
/* Whether results can be made under -o root before any job runs: the
 * deepest existing part of root must be a directory this process may write
 * in (a directory is made there and removed to be sure).  0, or -1 after
 * printing "wblab CMD: --out: ..." (one line). */
int result_root_check(const char *cmd, const char *root);
/* Removes the temporary directory and then those of root/group that
 * result_begin created, as far as they are empty (a parallel job may be
 * writing beside us). */
void result_abort(struct result_dir *r);

/* ---- reading results: the one key/value reader and the one walker ---- */

/* Key/value files (stats, meta, params, env, plots/index): "key value" or
 * "key = value" lines; blank and '#' lines are skipped, surrounding blanks
 * trimmed.  A file must be a regular file, not a symlink, and at most
 * KV_MAX_BYTES; a key without any value, a value that reads as NaN or
 * infinity and a last line without its newline (a cut file) are errors.
 * Every error is one line naming FILE[:LINE].  kvf_number takes a decimal
 * number of magnitude at most KV_MAX_NUMBER. */
#define KV_MAX_BYTES (16L << 20)
#define KV_MAX_NUMBER 1e15

struct kv {
	char *key, *val;
	int line;                 /* 0: not from the file (e.g. parsed from a dir name) */
};

struct kvfile {
	char *path;
	struct kv *v;
	int n, cap;
};

/* 0, or -1 with the reason in err (f is then empty but must still be freed).
 * A key given twice is an error (FILE:LINE), as a line without a value and a
 * value that reads as a non-finite number are. */
int kvf_load(struct kvfile *f, const char *path, char *err, size_t errlen);
/* The same for a file people write by hand: its last line may lack the
 * newline. */
int kvf_load_by_hand(struct kvfile *f, const char *path, char *err, size_t errlen);
/* The parsing part of kvf_load, on an open stream (name for messages). */
int kvf_parse(struct kvfile *f, FILE *fp, const char *name, char *err, size_t errlen);
/* An empty kvfile named path, for entries added by hand. */
void kvf_init(struct kvfile *f, const char *path);
/* 0, or -1 when out of memory. */
int kvf_add(struct kvfile *f, const char *key, const char *val, int line);
/* The first entry with this key, or NULL. */
const struct kv *kvf_get(const struct kvfile *f, const char *key);
/* e's value as a finite number; -1 with FILE:LINE in err otherwise. */
int kvf_number(const struct kvfile *f, const struct kv *e, double *v, char *err, size_t errlen);
void kvf_free(struct kvfile *f);

/* kvf_load, then cb for each entry in order; cb returns nonzero to stop. */
int kv_read(const char *path, int (*cb)(void *arg, const char *key, const char *val),
	    void *arg, char *err, size_t errlen);
/* kv_read of a list whose keys repeat (a plots index: one `made NAME` per graph). */
int kv_read_list(const char *path, int (*cb)(void *arg, const char *key, const char *val),
		 void *arg, char *err, size_t errlen);

/* Result directories under dirs: a directory holding a `stats` entry is a
 * result (its files are checked when read); others are searched in sorted
 * (strcmp) order, skipping hidden entries and not following symlinks below
 * the DIR arguments themselves.  A result reached twice (same realpath)
 * counts once, the first time.  compare and report both use this. */
struct result_ref {
	char *path;
	int arg;                  /* index into dirs */
};

struct result_list {
	struct result_ref *v;
	int n;
};

/* 0, or -1 with a one-line reason (an arg that is not a directory, an
 * unreadable directory below it). */
int result_find(const char *const *dirs, int ndirs, struct result_list *out, char *err,
		size_t errlen);
void result_list_free(struct result_list *l);

/* The row key of a result when results are compared across the values of
 * field: GROUP/CASE-KERNEL with the part that field names replaced by X -
 * the whole group (group), the group's "thresh=V" and the case's THRESH
 * (thresh), one of the case's FS JOB BS CPUS MEM THRESH BG tokens, the whole
 * case (case) or the kernel (kernel); any other field (run, params keys)
 * is not in the name and masks nothing.  Results whose keys are equal are
 * one row.  compare and report both call it.  A malloc'd string, or NULL
 * with the reason in err (a case that is not six '-' fields when a token is
 * to be masked; path names the result). */
char *result_row_key(const char *group, const char *case_name, const char *kernel,
		     const char *field, const char *path, char *err, size_t errlen);

#endif
