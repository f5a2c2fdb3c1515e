#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "runner.h"
#include "env.h"
#include "fileio.h"
#include "journal.h"
#include "loopdev.h"
#include "measure.h"
#include "mount.h"
#include "preflight.h"
#include "sysctl.h"
#include "tracefs.h"
#include "undo.h"
#include "writers.h"
#include "../analysis/stats.h"
#include "../result/result.h"
#include "../trace/trace_read.h"
#include "../util/util.h"

/* Set by SIGINT/SIGTERM/SIGHUP: the run stops at the next check and undoes. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

static void catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* One wblab run per machine: sysctls are machine-wide, and two runs (even on
 * different scratch dirs) would each restore the other's values.  An abstract
 * unix socket is the lock: no file anywhere, released by the kernel even on
 * SIGKILL.  Returns the held fd, or -1 with err. */
static int machine_lock(char *err, size_t errlen)
{
	struct sockaddr_un a;
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	const char name[] = "wblab-run-machine-lock";
	memcpy(a.sun_path + 1, name, sizeof(name) - 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a,
			    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + sizeof(name))) == 0)
		return fd;
	snprintf(err, errlen, "another 'wblab run' is running on this machine (runs change "
		 "machine-wide sysctls, so one at a time); nothing was changed");
	if (fd >= 0)
		close(fd);
	return -1;
}

struct run_ctx {
	struct run_opts *o;
	struct journal j;
	char kernel[128];
	char tracefs_dir[4200];
	int argc;
	char **argv;
};

struct case_out {
	struct measure m;
	double writer_mb[WRITERS_MAX];
	int writer_pid[WRITERS_MAX];
	int nwriters;
	uint64_t trace_bytes, overrun;
	struct trace_instance ti;   /* what was traced (nevents 0: untraced) */
};

/* --dev: the device itself plays the loop device's part; nothing to attach. */
static int use_dev(const char *dev, struct loopdev *l, char *err, size_t errlen)
{
	struct stat st;
	char real[4096];
	memset(l, 0, sizeof(*l));
	if (!realpath(dev, real) || stat(real, &st)) {
		snprintf(err, errlen, "--dev %s: %s", dev, strerror(errno));
		return -1;
	}
	snprintf(l->dev, sizeof(l->dev), "%.63s", real);
	snprintf(l->name, sizeof(l->name), "%s", strrchr(real, '/') + 1);
	snprintf(l->majmin, sizeof(l->majmin), "%u:%u", major(st.st_rdev), minor(st.st_rdev));
	snprintf(l->image, sizeof(l->image), "(none: --dev)");
	return 0;
}

static void write_params(FILE *f, const struct run_ctx *x, const struct wb_case *c, int run,
			 int traced)
{
	const struct run_opts *o = x->o;
	fprintf(f, "source = real\ncase = %s\ngroup = %s\nkernel_name = %s\nrun = %d\n"
		   "runtime_s = %g\nfs = %s\nwriters = %d\nbs = %llu\ncpus = %d\nmem_mb = %llu\n"
		   "thresh = %s\nbg = %s\nthresh_sysctl = %s\nbg_sysctl = %s\n"
		   "writer = wblab writer process: write() of BS zeroes in a loop (dd if=/dev/zero bs=BS)\n"
		   "traced = %d\ntrace_buffer_kb = %u\nscratch = %s\n",
		c->name, c->group, x->kernel, run, o->runtime, c->fs, c->ndd,
		(unsigned long long)c->bs, c->cpus, (unsigned long long)c->mem_mb, c->thresh.text,
		c->bg.text, c->thresh.is_bytes ? "vm.dirty_bytes" : "vm.dirty_ratio",
		c->bg.is_bytes ? "vm.dirty_background_bytes" : "vm.dirty_background_ratio", traced,
		o->buffer_kb, o->scratch);
	if (o->dev)
		fprintf(f, "dev = %s\n", o->dev);
	else
		fprintf(f, "image_size = %llu\n", (unsigned long long)o->image_size);
}

/* Sleeps the runtime away in short steps so a signal is acted on at once. */
static void wait_runtime(double runtime)
{
	double end = mono_now() + runtime;
	while (!interrupted && mono_now() < end)
		usleep(20000);
}

/* Device and file system for one case, journaled.  0 or -1. */
static int setup_fs(struct run_ctx *x, const struct wb_case *c, struct loopdev *l,
		    const char *mnt, char *err, size_t errlen)
{
	char image[4200];
	snprintf(image, sizeof(image), "%s/image", x->o->scratch);
	if (x->o->dev ? use_dev(x->o->dev, l, err, errlen)
		      : loop_setup(&x->j, image, x->o->image_size, l, err, errlen))
		return -1;
	if (mkfs_run(c->fs, l->dev, err, errlen) || mount_fs(&x->j, c->fs, l->dev, mnt, err, errlen))
		return -1;
	if (sysctl_set_knob(&x->j, &c->thresh, 0, err, errlen) ||
	    sysctl_set_knob(&x->j, &c->bg, 1, err, errlen))
		return -1;
	sync();
	file_write("/proc/sys/vm/drop_caches", "3");
	return 0;
}

/* The measured part: writers for the runtime, with the trace captured to
 * trace_path when it is not NULL. */
static int run_writers(struct run_ctx *x, const struct wb_case *c, const struct loopdev *l,
		       const char *mnt, const char *trace_path, struct case_out *out,
		       char *err, size_t errlen)
{
	struct trace_instance *ti = &out->ti;
	struct trace_capture cap;
	struct writers w;
	struct counters a, b;
	char name[64];
	int rc = 0;
	/* each writer wraps before the image fills, whatever the writer count */
	uint64_t cap_bytes = (x->o->dev ? (1ULL << 30) : x->o->image_size) / 2 / (uint64_t)c->ndd;
	if (trace_path) {
		snprintf(name, sizeof(name), "wblab-%d", (int)getpid());
		if (real_tracefs_instance(&x->j, x->tracefs_dir, name, x->o->buffer_kb, l->majmin, ti, err, errlen) ||
		    trace_capture_start(&cap, ti, trace_path, err, errlen))
			return -1;
	}
	counters_read(&a, l);
	if (writers_start(&w, &x->j, mnt, c->ndd, c->bs, cap_bytes, err, errlen)) {
		rc = -1;
	} else {
		wait_runtime(x->o->runtime);
		writers_stop(&w);
	}
	counters_read(&b, l);
	if (trace_path) {
		if (trace_capture_stop(&cap, ti) && !rc) {
			snprintf(err, errlen, "trace capture to %s failed", trace_path);
			rc = -1;
		}
		out->trace_bytes = cap.bytes;
		out->overrun = real_tracefs_overrun(ti);
	}
	measure_diff(&out->m, &a, &b);
	double secs = w.t_stop > w.t_start ? w.t_stop - w.t_start : out->m.seconds;
	out->nwriters = w.n;
	out->m.writers_mb = 0;
	for (int i = 0; i < w.n; i++) {
		out->writer_mb[i] = (double)writers_bytes(&w, i) / 1048576.0;
		out->writer_pid[i] = w.pid[i] < 0 ? -w.pid[i] : w.pid[i];
		out->m.writers_mb += out->writer_mb[i];
	}
	out->m.seconds = secs;
	writers_free(&w);
	return rc;
}

/* One case: set up, measure, undo back to where it began. */
static int run_one(struct run_ctx *x, const struct wb_case *c, const char *trace_path,
		   const struct result_dir *r, int run, struct case_out *out, char *err,
		   size_t errlen)
{
	struct loopdev l;
	char mnt[4200];
	snprintf(mnt, sizeof(mnt), "%s/mnt", x->o->scratch);
	off_t mark = journal_mark(&x->j);
	int rc = setup_fs(x, c, &l, mnt, err, errlen);
	if (!rc && r) {
		FILE *f = result_fopen(r, "params");
		if (f) {
			write_params(f, x, c, run, trace_path != NULL);
			fclose(f);
		}
	}
	if (!rc && !interrupted)
		rc = run_writers(x, c, &l, mnt, trace_path, out, err, errlen);
	if (r && !rc) {
		/* env is taken while the file system is still mounted */
		FILE *f = result_fopen(r, "env");
		struct env_info ei = { c->fs, mnt, &l, trace_path ? &out->ti : NULL,
				       x->o->buffer_kb };
		if (f) {
			env_write(f, &ei);
			fclose(f);
		}
	}
	if (journal_undo_to(&x->j, mark, real_undo, NULL)) {
		snprintf(err, errlen, "could not undo all changes of case %s; see above, then "
			 "'wblab run --cleanup'", c->name);
		return -1;
	}
	return rc;
}

static void set_measure(struct stats_acc *s, const char *prefix, const struct measure *m)
{
	char k[64];
	double t = m->seconds > 0 ? m->seconds : 1;
#define SET(name, v) (snprintf(k, sizeof(k), "%s%s", prefix, name), stats_set(s, k, v))
	SET("runtime_s", m->seconds);
	SET("writers_mb", m->writers_mb);
	SET("writers_bw", m->writers_mb / t);
	SET("vmstat_written_mb", m->vm_written_mb);
	SET("vmstat_write_bw", m->vm_written_mb / t);
	SET("vmstat_dirtied_bw", m->vm_dirtied_mb / t);
	SET("dev_written_mb", m->dev_written_mb);
	SET("dev_write_bw", m->dev_written_mb / t);
	SET("dev_write_ios", m->dev_ios);
	SET("dev_write_kb_mean", m->dev_ios > 0 ? m->dev_written_mb * 1024 / m->dev_ios : 0);
#undef SET
}

/* stats_write's text, with write_bw replaced when there is no trace to take
 * it from (--no-trace: the /proc/vmstat written counter instead). */
static int write_stats(struct stats_acc *s, FILE *f, double write_bw_override)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m || stats_write(s, m) || fclose(m)) {
		free(buf);
		return -1;
	}
	char *p = buf;
	if (write_bw_override >= 0 && strncmp(p, "write_bw ", 9) == 0) {
		fprintf(f, "write_bw %.4f\n", write_bw_override);
		p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p);
	}
	fputs(p, f);
	free(buf);
	return ferror(f) ? -1 : 0;
}

static int finish_stats(const struct result_dir *r, const struct case_out *out,
			const struct case_out *untraced, int traced, double *write_bw,
			char *err, size_t errlen)
{
	char tpath[4200];
	struct stats_acc *s = stats_new();
	if (!s)
		return -1;
	if (traced && stats_feed_trace(s, result_file(r, "trace", tpath, sizeof(tpath)), err, errlen)) {
		stats_free(s);
		return -1;
	}
	for (int i = 0; i < out->nwriters; i++)
		stats_task(s, out->writer_pid[i], (uint64_t)(out->writer_mb[i] * 256), out->m.seconds);
	set_measure(s, "", &out->m);
	stats_set(s, "traced", traced);
	if (traced) {
		stats_set(s, "trace_mb", (double)out->trace_bytes / 1048576.0);
		stats_set(s, "trace_overrun_events", (double)out->overrun);
	}
	if (untraced) {
		set_measure(s, "untraced_", &untraced->m);
		double u = untraced->m.vm_written_mb / untraced->m.seconds;
		double t = out->m.vm_written_mb / out->m.seconds;
		stats_set(s, "tracing_overhead_pct", u > 0 ? (u - t) / u * 100 : 0);
	}
	FILE *f = result_fopen(r, "stats");
	double vm_bw = out->m.vm_written_mb / (out->m.seconds > 0 ? out->m.seconds : 1);
	int rc = f ? write_stats(s, f, traced ? -1 : vm_bw) : -1;
	if (f && fclose(f))
		rc = -1;
	if (rc)
		snprintf(err, errlen, "cannot write %.900s/stats", r->tmp_path);
	/* the figure printed for the user: the same as the stats file */
	*write_bw = vm_bw;
	if (traced) {
		char line[128];
		FILE *g = fopen(result_file(r, "stats", tpath, sizeof(tpath)), "r");
		if (g && fgets(line, sizeof(line), g))
			sscanf(line, "write_bw %lf", write_bw);
		if (g)
			fclose(g);
	}
	stats_free(s);
	return rc;
}

/* One CASE, one run number: (untraced pass for --overhead), measured pass,
 * result committed.  0, or -1 with err. */
static int run_case(struct run_ctx *x, struct wb_case *c, int run, char *err, size_t errlen)
{
	struct result_dir r;
	static struct case_out out, untraced;
	char tpath[4200];
	int traced = !x->o->no_trace;
	memset(&out, 0, sizeof(out));
	memset(&untraced, 0, sizeof(untraced));
	if (x->o->overhead) {
		fprintf(stderr, "wblab: %s/%s run %d: untraced pass (%gs)\n", c->group, c->name, run,
			x->o->runtime);
		if (run_one(x, c, NULL, NULL, run, &untraced, err, errlen))
			return -1;
		if (interrupted)
			return 0;
	}
	if (result_begin(&r, x->o->out, c, x->kernel, run, err, errlen))
		return -1;
	/* after a SIGKILL, --cleanup removes the half-written result too */
	off_t mark = journal_mark(&x->j);
	if (journal_add(&x->j, "tmpresult", r.tmp_path, NULL)) {
		snprintf(err, errlen, "cannot write the journal: %s", strerror(errno));
		result_abort(&r);
		return -1;
	}
	fprintf(stderr, "wblab: %s/%s run %d: %s (%gs)\n", c->group, c->name, run,
		traced ? "traced" : "untraced", x->o->runtime);
	const char *trace_path = traced ? result_file(&r, "trace", tpath, sizeof(tpath)) : NULL;
	double bw = 0;
	if (run_one(x, c, trace_path, &r, run, &out, err, errlen) || interrupted ||
	    finish_stats(&r, &out, x->o->overhead ? &untraced : NULL, traced, &bw, err, errlen) ||
	    result_write_meta(&r, c, x->kernel, run, "real") ||
	    result_write_cmdline(&r, x->argc, x->argv) || result_commit(&r)) {
		if (!err[0] && !interrupted)
			snprintf(err, errlen, "cannot write result %.900s", r.final_path);
		result_abort(&r);
		journal_undo_to(&x->j, mark, real_undo, NULL);
		return interrupted ? 0 : -1;
	}
	journal_undo_to(&x->j, mark, real_undo, NULL);  /* committed: nothing to remove */
	printf("%s  write_bw %.1f MB/s  writers %.1f MB/s  device %.1f MB/s", r.final_path, bw,
	       out.m.writers_mb / out.m.seconds, out.m.dev_written_mb / out.m.seconds);
	if (x->o->overhead) {
		double u = untraced.m.vm_written_mb / untraced.m.seconds;
		double t = out.m.vm_written_mb / out.m.seconds;
		printf("  written (vmstat) untraced %.1f traced %.1f MB/s: tracing overhead %.1f%%", u,
		       t, u > 0 ? (u - t) / u * 100 : 0);
	}
	printf("\n");
	fflush(stdout);
	return 0;
}

static int open_journal(struct run_ctx *x, char *err, size_t errlen)
{
	if (journal_open(&x->j, x->o->scratch, err, errlen))
		return -1;
	return real_cleanup_stale(&x->j, 0) ? (snprintf(err, errlen, "an earlier run's changes "
				"could not all be undone; not starting"), -1) : 0;
}

/* Last step of every run: everything undone, the journal removed. */
static int close_journal(struct run_ctx *x)
{
	int failed = journal_undo_to(&x->j, 0, real_undo, NULL);
	if (!failed)
		unlink(x->j.path);
	journal_close(&x->j);
	if (!failed)
		rmdir(x->o->scratch);  /* only when empty: nothing of ours is left */
	return failed;
}

int real_run(struct run_opts *o, int argc, char **argv)
{
	static struct run_ctx x;
	char err[1024] = "";
	struct utsname u;
	x.o = o;
	x.argc = argc;
	x.argv = argv;
	snprintf(x.kernel, sizeof(x.kernel), "%s",
		 o->kernel_name ? o->kernel_name : (uname(&u) == 0 ? u.release : "unknown"));
	if (preflight_cases(o, err, sizeof(err))) {
		wb_error("%s", err);
		return EXIT_USAGE;
	}
	if (preflight_machine(o, err, sizeof(err))) {
		wb_error("%s", err);
		return 1;
	}
	int lock = machine_lock(err, sizeof(err));
	if (lock < 0) {
		wb_error("%s", err);
		return 1;
	}
	catch_signals();
	if (open_journal(&x, err, sizeof(err))) {
		wb_error("%s", err);
		return 1;
	}
	int rc = 0;
	snprintf(x.tracefs_dir, sizeof(x.tracefs_dir), "%s/tracefs", o->scratch);
	if (!o->no_trace && real_tracefs_mount(&x.j, x.tracefs_dir, err, sizeof(err)))
		rc = 1;
	for (int i = 0; !rc && !interrupted && i < o->ncases; i++)
		for (int run = 1; !rc && !interrupted && run <= o->repeat; run++)
			if (run_case(&x, &o->cases[i], o->repeat > 1 ? run : 1, err, sizeof(err)))
				rc = 1;
	if (rc)
		wb_error("%s", err);
	if (close_journal(&x)) {
		wb_error("some changes could not be undone; run 'wblab run --cleanup'");
		rc = 1;
	}
	close(lock);
	if (interrupted) {
		wb_error("interrupted by signal %d; every change was undone", (int)interrupted);
		return 1;
	}
	return rc;
}

int real_cleanup(const struct run_opts *o)
{
	struct journal j;
	char err[1024], path[4200];
	if (geteuid() != 0) {
		wb_error("'wblab run --cleanup' must run as root; nothing was changed");
		return 1;
	}
	if (machine_lock(err, sizeof(err)) < 0) {
		wb_error("%s", err);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/journal", o->scratch);
	if (!file_exists(path)) {
		printf("nothing to clean up: no journal in %s\n", o->scratch);
		return 0;
	}
	if (journal_open(&j, o->scratch, err, sizeof(err))) {
		wb_error("%s", err);
		return 1;
	}
	int empty = journal_mark(&j) == 0;
	if (real_cleanup_stale(&j, 0)) {
		journal_close(&j);
		return 1;
	}
	unlink(j.path);
	journal_close(&j);
	rmdir(o->scratch);
	printf(empty ? "nothing to clean up in %s\n"
		     : "cleaned up: every change journaled in %s is undone\n", o->scratch);
	return 0;
}
