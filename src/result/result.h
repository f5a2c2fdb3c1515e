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
/* Path of a file inside the (temporary) directory. */
const char *result_file(const struct result_dir *r, const char *name, char *buf, size_t n);
FILE *result_fopen(const struct result_dir *r, const char *name);
/* meta: case, group, kernel, fs, job, bs, cpus, mem, thresh, bg, run, source. */
int result_write_meta(const struct result_dir *r, const struct wb_case *c, const char *kernel,
		      int run, const char *source);
/* argv joined with spaces (shell-quoted where needed) into `cmdline`. */
int result_write_cmdline(const struct result_dir *r, int argc, char **argv);
int result_commit(struct result_dir *r);
/* Removes the temporary directory and then those of root/group that
 * result_begin created, as far as they are empty (a parallel job may be
 * writing beside us). */
void result_abort(struct result_dir *r);

/* Reads "key value" or "key = value" lines (stats, meta, params).  Blank and
 * '#' lines are skipped.  cb returns nonzero to stop.  Returns 0, or -1 with
 * a one-line reason naming the file and line in err. */
int kv_read(const char *path, int (*cb)(void *arg, const char *key, const char *val),
	    void *arg, char *err, size_t errlen);

#endif
