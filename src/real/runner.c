#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "runner.h"
#include "bdi.h"
#include "blkthrottle.h"
#include "env.h"
#include "kmsg.h"
#include "safepath.h"
#include "scratch.h"
#include "statedir.h"
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
#include "../result/metrics.h"

/* The metrics this file computes: its rows of the one metric table.  The
 * build collects every file's WBLAB_METRIC rows into that table
 * (src/result/metrics.h says what the fields mean). */
/* real runs (wblab run; docs/real-runs.md) */
WBLAB_METRIC(RUNTIME_S, "runtime_s", "s", METRIC_NONE, ERAS_NONE, "real", "measured run time")
WBLAB_METRIC(WRITERS_MB, "writers_mb", "MB", METRIC_NONE, ERAS_NONE, "real", "written by the writers")
WBLAB_METRIC(WRITERS_BW, "writers_bw", "MB/s", METRIC_HIGHER, ERAS_NONE, "real", "writers_mb / runtime_s")
WBLAB_METRIC(VMSTAT_WRITTEN_MB, "vmstat_written_mb", "MB", METRIC_NONE, ERAS_NONE, "real",
	     "/proc/vmstat nr_written delta")
WBLAB_METRIC(VMSTAT_WRITE_BW, "vmstat_write_bw", "MB/s", METRIC_HIGHER, ERAS_NONE, "real",
	     "vmstat_written_mb / runtime_s")
WBLAB_METRIC(VMSTAT_DIRTIED_BW, "vmstat_dirtied_bw", "MB/s", METRIC_NONE, ERAS_NONE, "real",
	     "/proc/vmstat nr_dirtied delta / runtime_s")
WBLAB_METRIC(DEV_WRITTEN_MB, "dev_written_mb", "MB", METRIC_NONE, ERAS_NONE, "real",
	     "written to the device (its stat file)")
WBLAB_METRIC(DEV_WRITE_BW, "dev_write_bw", "MB/s", METRIC_HIGHER, ERAS_NONE, "real",
	     "dev_written_mb / runtime_s (simulated: the block layer's completions / run)")
WBLAB_METRIC(DEV_WRITE_IOS, "dev_write_ios", "", METRIC_NONE, ERAS_NONE, "real", "write IOs of the device")
WBLAB_METRIC(DEV_BUSY_S, "dev_busy_s", "s", METRIC_NONE, ERAS_NONE, "real",
	     "time the device had a request in flight (io_ticks)")
WBLAB_METRIC(DEV_WRITE_KB_MEAN, "dev_write_kb_mean", "KB", METRIC_HIGHER, ERAS_NONE, "real",
	     "mean device write size")
WBLAB_METRIC(TRACED, "traced", "", METRIC_NONE, ERAS_NONE, "real", "1 when the run was traced")
WBLAB_METRIC(TRACE_MB, "trace_mb", "MB", METRIC_NONE, ERAS_NONE, "real", "size of the captured trace")
WBLAB_METRIC(TRACE_OVERRUN_EVENTS, "trace_overrun_events", "", METRIC_LOWER, ERAS_NONE, "real",
	     "trace events lost to ring-buffer overruns")
WBLAB_METRIC(WRITERS_CPU_S, "writers_cpu_s", "s", METRIC_LOWER, ERAS_NONE, "real",
	     "the writers' user + system CPU time")
WBLAB_METRIC(GLOBAL_WRITTEN_POLLUTED, "global_written_polluted", "", METRIC_NONE, ERAS_NONE, "real",
	     "1 when other writers inflated the global written counter")
WBLAB_METRIC(UNTRACED_X, "untraced_*", "", METRIC_NONE, ERAS_NONE, "real",
	     "runtime_s ... dev_write_kb_mean of the untraced comparison run")
WBLAB_METRIC(TRACING_OVERHEAD_PCT, "tracing_overhead_pct", "%", METRIC_LOWER, ERAS_NONE, "real",
	     "vmstat bandwidth lost to tracing")

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
	/* `wblab run ... | head` must not die of the closed pipe with nothing
	 * undone: the write fails (EPIPE) and the run goes on to its undo */
	signal(SIGPIPE, SIG_IGN);
}

struct run_ctx {
	struct run_opts *o;
	struct journal j;
	struct undo_ctx undo;      /* what the journal's entries may name */
	struct scratch sc;         /* --scratch and this run's own dir in it */
	char kernel[128];
	char tracefs_dir[4200];
	char out[4096];            /* -o as checked: canonical, used from then on */
	int argc;
	char **argv;
	int kept;                  /* results committed and printed */
};

struct case_out {
	struct measure m;
	double writer_mb[WRITERS_MAX];
	int writer_pid[WRITERS_MAX];
	int nwriters;
	double writer_cpu_s;        /* the writers' own CPU time, summed */
	int io_errors;              /* kernel log errors naming the device */
	char io_error[512];         /* the first one, or what else failed */
	uint64_t trace_bytes, overrun;
	struct trace_instance ti;   /* what was traced (nevents 0: untraced) */
};

/* --dev: the device itself plays the loop device's part; nothing to attach.
 * It is the path preflight resolved, checked again: a case runs minutes
 * after the last, and the device may have been mounted or replaced since. */
static int use_dev(const struct run_opts *o, struct loopdev *l, char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	if (preflight_dev_again(o, err, errlen))
		return -1;
	if (strlen(o->dev_path) >= sizeof(l->dev)) {
		snprintf(err, errlen, "--dev %s: path too long", o->dev_path);
		return -1;
	}
	snprintf(l->dev, sizeof(l->dev), "%.63s", o->dev_path);  /* length checked above */
	snprintf(l->name, sizeof(l->name), "%s", strrchr(o->dev_path, '/') + 1);
	snprintf(l->majmin, sizeof(l->majmin), "%u:%u", major(o->dev_rdev), minor(o->dev_rdev));
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
		o->buffer_kb, x->sc.root);
	fprintf(f, "device_bw_mbps = %g\ndevice_iops = %llu\n", o->device_bw,
		(unsigned long long)o->device_iops);
	for (int i = 0; i < o->bdi.n; i++)
		fprintf(f, "bdi.%s = %s\n", o->bdi.k[i].name, o->bdi.k[i].value);
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
	path_join(image, sizeof(image), x->sc.run, "image");
	if (x->o->dev ? use_dev(x->o, l, err, errlen)
		      : loop_setup(&x->j, image, x->o->image_size, l, err, errlen))
		return -1;
	/* the device's own writeback knobs and, for an emulated disk, its cap:
	 * the cap after mkfs and mount, so mkfs runs at the device's speed and
	 * the undo lifts the cap before the unmount flushes what is left */
	if (bdi_reset(&x->j, l->majmin, &x->o->bdi, err, errlen))
		return -1;
	if (mkfs_run(c->fs, l->dev, &interrupted, err, errlen) ||
	    mount_fs(&x->j, c->fs, l->dev, mnt, err, errlen))
		return -1;
	if ((x->o->device_bw > 0 || x->o->device_iops > 0) &&
	    blkthrottle_set(&x->j, l->majmin, (uint64_t)(x->o->device_bw * 1048576.0), x->o->device_iops,
			    err, errlen))
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
	struct kmsg_watch km;
	kmsg_watch_start(&km);
	counters_read(&a, l);
	if (writers_start(&w, &x->j, mnt, c->ndd, c->bs, cap_bytes, err, errlen)) {
		rc = -1;
	} else {
		wait_runtime(x->o->runtime);
		writers_stop(&w);
	}
	counters_read(&b, l);
	/* the trace covers the writers' runtime, as the counters and a simulated
	 * run do: the syncfs below drains the pool (15 s of 1000M at 55 MiB/s),
	 * which no simulated run has */
	if (trace_path) {
		if (trace_capture_stop(&cap, ti) && !rc) {
			snprintf(err, errlen, "trace capture to %s failed", trace_path);
			rc = -1;
		}
		out->trace_bytes = cap.bytes;
		out->overrun = real_tracefs_overrun(ti);
	}
	/* a write error the page cache swallowed shows in syncfs and the kernel
	 * log; a stopped run's result is discarded, and its flush waits for the
	 * undo, which lifts the cap first */
	int mfd = interrupted ? -2 : open(mnt, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (mfd == -1 || (mfd >= 0 && syncfs(mfd))) {
		out->io_errors++;
		snprintf(out->io_error, sizeof(out->io_error), "syncfs of %.300s failed: %s", mnt,
			 strerror(errno));
	}
	if (mfd >= 0)
		close(mfd);
	char first[512];
	int kerr = kmsg_watch_errors(&km, l->name, first, sizeof(first));
	if (kerr && !out->io_errors)
		snprintf(out->io_error, sizeof(out->io_error), "%s", first);
	out->io_errors += kerr;
	kmsg_watch_stop(&km);
	measure_diff(&out->m, &a, &b);
	double secs = w.t_stop > w.t_start ? w.t_stop - w.t_start : out->m.seconds;
	out->nwriters = w.n;
	out->m.writers_mb = 0;
	out->writer_cpu_s = 0;
	for (int i = 0; i < w.n; i++) {
		out->writer_cpu_s += w.cpu_s[i];
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
	path_join(mnt, sizeof(mnt), x->sc.run, "mnt");
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
	if (!rc && out->io_errors) {
		snprintf(err, errlen, "case %s: %d I/O error(s) on %s during the run (%s); the "
			 "figures would be of lost writes, so no result is kept", c->name,
			 out->io_errors, l.dev, out->io_error);
		rc = -1;
	}
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
	if (journal_undo_to(&x->j, mark, real_undo, &x->undo)) {
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
	SET(METRIC_KEY(RUNTIME_S), m->seconds);
	SET(METRIC_KEY(WRITERS_MB), m->writers_mb);
	SET(METRIC_KEY(WRITERS_BW), m->writers_mb / t);
	SET(METRIC_KEY(VMSTAT_WRITTEN_MB), m->vm_written_mb);
	SET(METRIC_KEY(VMSTAT_WRITE_BW), m->vm_written_mb / t);
	SET(METRIC_KEY(VMSTAT_DIRTIED_BW), m->vm_dirtied_mb / t);
	SET(METRIC_KEY(DEV_WRITTEN_MB), m->dev_written_mb);
	SET(METRIC_KEY(DEV_WRITE_BW), m->dev_written_mb / t);
	SET(METRIC_KEY(DEV_WRITE_IOS), m->dev_ios);
	SET(METRIC_KEY(DEV_BUSY_S), m->dev_busy_s);
	SET(METRIC_KEY(DEV_WRITE_KB_MEAN), m->dev_ios > 0 ? m->dev_written_mb * 1024 / m->dev_ios : 0);
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
	const char *bw = METRIC_KEY(WRITE_BW);
	size_t bwlen = strlen(bw);
	if (write_bw_override >= 0) {
		/* an untraced accumulator prints no trace rows: write_bw goes first */
		fprintf(f, "%s %.4f\n", bw, write_bw_override);
		if (strncmp(p, bw, bwlen) == 0 && p[bwlen] == ' ')
			p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p);
	}
	fputs(p, f);
	free(buf);
	return ferror(f) ? -1 : 0;
}

/* On a busy machine the global written counter (vmstat nr_written, and the
 * write_bw the trace's global_dirty_state gives) counts every device's
 * writeback.  The loop image is written with direct I/O, so on a quiet
 * machine the counter stays at or below what reached the device (which adds
 * the file system's journal); more than 10 % + 4 MiB above it is someone
 * else's writeback, and then the device's own figure is the one to trust. */
int real_written_polluted(const struct measure *m)
{
	return m->vm_written_mb > m->dev_written_mb * 1.1 + 4;
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
	stats_set(s, METRIC_KEY(TRACED), traced);
	if (traced) {
		stats_set(s, METRIC_KEY(TRACE_MB), (double)out->trace_bytes / 1048576.0);
		stats_set(s, METRIC_KEY(TRACE_OVERRUN_EVENTS), (double)out->overrun);
	}
	stats_set(s, METRIC_KEY(WRITERS_CPU_S), out->writer_cpu_s);
	stats_set(s, METRIC_KEY(GLOBAL_WRITTEN_POLLUTED), real_written_polluted(&out->m));
	if (untraced) {
		set_measure(s, "untraced_", &untraced->m);
		double u = untraced->m.vm_written_mb / untraced->m.seconds;
		double t = out->m.vm_written_mb / out->m.seconds;
		stats_set(s, METRIC_KEY(TRACING_OVERHEAD_PCT), u > 0 ? (u - t) / u * 100 : 0);
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
		*write_bw = NAN;   /* a trace too short for write_bw: none, not vmstat's */
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
		wb_error("%s/%s run %d: untraced pass (%gs)", c->group, c->name, run, x->o->runtime);
		if (run_one(x, c, NULL, NULL, run, &untraced, err, errlen))
			return -1;
		if (interrupted)
			return 0;
	}
	if (result_begin(&r, x->out, c, x->kernel, run, err, errlen))
		return -1;
	/* after a SIGKILL, --cleanup removes the half-written result too, and
	 * the dirs above it that result_begin made (-o, the group), if empty */
	off_t mark = journal_mark(&x->j);
	if (journal_add(&x->j, "tmpresult", r.tmp_path, r.created[0] ? r.created : NULL, NULL)) {
		snprintf(err, errlen, "cannot write the journal: %s", strerror(errno));
		result_abort(&r);
		return -1;
	}
	wb_error("%s/%s run %d: %s (%gs)", c->group, c->name, run, traced ? "traced" : "untraced",
		 x->o->runtime);
	const char *trace_path = traced ? result_file(&r, "trace", tpath, sizeof(tpath)) : NULL;
	double bw = 0;
	int failed = run_one(x, c, trace_path, &r, run, &out, err, errlen);
	/* from here to the printed path a signal waits, so a result is either
	 * committed and announced, or discarded and not announced */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (failed || interrupted ||
	    finish_stats(&r, &out, x->o->overhead ? &untraced : NULL, traced, &bw, err, errlen) ||
	    result_write_meta(&r, c, x->kernel, run, "real") ||
	    result_write_cmdline(&r, x->argc, x->argv) || result_commit(&r)) {
		if (!err[0] && !interrupted)
			snprintf(err, errlen, "cannot write result %.900s", r.final_path);
		result_abort(&r);
		journal_undo_to(&x->j, mark, real_undo, &x->undo);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return interrupted && !failed ? 0 : -1;
	}
	journal_undo_to(&x->j, mark, real_undo, &x->undo);  /* committed: nothing to remove */
	x->kept++;
	char bws[32] = "n/a";
	if (!isnan(bw))
		snprintf(bws, sizeof(bws), "%.1f MB/s", bw);
	printf("%s  write_bw %s  writers %.1f MB/s  device %.1f MB/s", r.final_path, bws,
	       out.m.writers_mb / out.m.seconds, out.m.dev_written_mb / out.m.seconds);
	if (x->o->overhead) {
		double u = untraced.m.vm_written_mb / untraced.m.seconds;
		double t = out.m.vm_written_mb / out.m.seconds;
		printf("  written (vmstat) untraced %.1f traced %.1f MB/s: tracing overhead %.1f%%", u,
		       t, u > 0 ? (u - t) / u * 100 : 0);
	}
	printf("\n");
	if (real_written_polluted(&out.m))
		printf("  note: the machine wrote back %.1f MB/s, this device %.1f: other writers "
		       "polluted write_bw; trust dev_write_bw (global_written_polluted 1)\n",
		       out.m.vm_written_mb / out.m.seconds, out.m.dev_written_mb / out.m.seconds);
	fflush(stdout);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return 0;
}

/* The run's safety frame, first part: the machine lock and the journal in
 * the root-only state dir, and what an earlier run left undone, before any
 * check of this run can refuse it (a crashed run's image may be what fills
 * --scratch).  0, or -1 with err (nothing of this run changed). */
static int lock_and_recover(struct run_ctx *x, struct run_state *st, char *err, size_t errlen)
{
	if (state_lock(st, err, errlen))
		return -1;
	if (state_journal(st, &x->j, err, errlen)) {
		state_unlock(st, 0);
		return -1;
	}
	if (real_cleanup_stale(&x->j, 0)) {
		snprintf(err, errlen, "an earlier run's changes could not all be undone; not "
			 "starting (see above; 'wblab run --cleanup' retries)");
		journal_close(&x->j);
		state_unlock(st, 0);
		return -1;
	}
	return 0;
}

/* Second part: --scratch and the run's own dir in it.  0, or -1 with err
 * (what it journaled is undone by close_run). */
static int open_run(struct run_ctx *x, char *err, size_t errlen)
{
	/* the undo context even when scratch_create failed half-way: what it
	 * journaled (scratch, rundir, owner) must be undone by this run */
	int rc = scratch_create(&x->j, &x->sc, err, errlen);
	if (undo_ctx_load(&x->undo, &x->j, 0))
		rc = -1;
	return rc;
}

/* Last step of every run: everything undone, the journal removed. */
static int close_run(struct run_ctx *x, struct run_state *st)
{
	int failed = journal_undo_to(&x->j, 0, real_undo, &x->undo);
	journal_close(&x->j);
	state_unlock(st, !failed);
	return failed;
}

/* Each case's GROUP is a path below -o that root creates and writes in: an
 * existing part of it must be as trusted as -o (a group 'tmp/x' under -o /,
 * or 'user/x' under -o /home, would let another user steer the writes), and
 * the longest result path must fit the undo journal, which would otherwise
 * refuse it only after the machine was changed. */
static int check_groups(const struct run_opts *o, const char *out, const char *kernel, char *err,
			size_t errlen)
{
	for (int i = 0; i < o->ncases; i++) {
		const struct wb_case *c = &o->cases[i];
		char dir[4096], canon[4096], what[160];
		snprintf(what, sizeof(what), "case %.100s: group", c->name);
		if (result_tmp_path(dir, sizeof(dir), out, c, kernel, o->repeat, 4194304) ||
		    strlen(dir) >= J_ARG_LEN) {
			snprintf(err, errlen, "-o '%.200s' with the group '%.100s': the result path is "
				 "too long (at most %d bytes); nothing was changed", out, c->group,
				 J_ARG_LEN - 1);
			return -1;
		}
		if (path_join(dir, sizeof(dir), out, c->group) || links_trusted(dir, what, err, errlen))
			return -1;
		if (existing_ancestor(dir, canon, sizeof(canon))) {
			snprintf(err, errlen, "%s '%.300s': %s", what, dir, strerror(errno));
			return -1;
		}
		if (safe_dir_check(canon, 0, what, err, errlen))
			return -1;
	}
	return 0;
}

/* -o must be a place no other user can steer: root writes, renames and
 * removes result directories there, so no symlink on the way is another
 * user's, and -o itself, or the nearest directory of it that exists (where
 * root will create the rest), is trusted (safepath.h), and not sticky: in /tmp another user could plant a symlink
 * under the name before root creates it.  And -o must not lie in a run dir
 * of --scratch (this run's is new, but one an earlier run left behind holds
 * its test file system's mount point): a result written there would vanish
 * with the mount, or be removed with the dir. */
static int check_out(const struct run_opts *o, const struct scratch *sc, const char *kernel,
		     char *out, size_t outlen, char *err, size_t errlen)
{
	char canon[4096];
	if (links_trusted(o->out, "-o", err, errlen))
		return -1;
	/* the results are written below the canonical path, never the string
	 * as given, which another user could re-point between check and use */
	if (canonical_target(o->out, out, outlen)) {
		snprintf(err, errlen, "-o '%s': %s", o->out,
			 errno == EINVAL ? "a '.' or '..' in the part that does not exist yet" : strerror(errno));
		return -1;
	}
	if (!path_chars_ok(out)) {
		snprintf(err, errlen, "-o '%.300s': only letters, digits and /._+- are allowed in the path", out);
		return -1;
	}
	/* the dir checked is the one the results go below: from the canonical
	 * path, not the string resolved a second time */
	if (existing_ancestor(out, canon, sizeof(canon))) {
		snprintf(err, errlen, "-o '%s': %s", o->out, strerror(errno));
		return -1;
	}
	if (safe_dir_check(canon, 0, "-o", err, errlen))
		return -1;
	size_t n = strcmp(sc->root, "/") == 0 ? 0 : strlen(sc->root);
	if (path_within(canon, sc->root) && strncmp(canon + n, "/wblab-run.", 11) == 0) {
		snprintf(err, errlen, "-o '%.300s' lies inside a run dir of --scratch '%.300s'; put results "
			 "elsewhere",
			 o->out, sc->root);
		return -1;
	}
	return check_groups(o, out, kernel, err, errlen);
}

/* A run refused before it takes the lock undoes nothing: say so when an
 * interrupted run's journal is waiting (only root can see it). */
static void note_pending_journal(void)
{
	struct stat st;
	if (lstat(WBLAB_STATE_DIR "/journal", &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		wb_error("note: an interrupted run's changes may still be in place (journal %s/journal); "
			 "'wblab run --cleanup' undoes them", WBLAB_STATE_DIR);
}

int real_run(struct run_opts *o, int argc, char **argv)
{
	static struct run_ctx x;
	struct run_state st;
	char err[1024] = "";
	struct utsname u;
	x.o = o;
	x.argc = argc;
	x.argv = argv;
	snprintf(x.kernel, sizeof(x.kernel), "%s",
		 o->kernel_name ? o->kernel_name : (uname(&u) == 0 ? u.release : "unknown"));
	if (preflight_cases(o, err, sizeof(err))) {
		wb_error("%s", err);
		note_pending_journal();
		return EXIT_USAGE;
	}
	if (preflight_root(err, sizeof(err))) {
		wb_error("%s", err);
		return 1;
	}
	/* results and the run's files are root's alone to change, whatever
	 * umask the caller had */
	umask(022);
	catch_signals();
	/* before the machine's checks: a crashed run's leftovers (its --dev
	 * still mounted, its loop bdi's min_ratio) must not refuse this one */
	if (lock_and_recover(&x, &st, err, sizeof(err))) {
		wb_error("%s", err);
		return 1;
	}
	/* the image is sparse but may fill to its size; 64 MiB for the fs around it */
	uint64_t need = o->dev ? (64ULL << 20) : o->image_size + (64ULL << 20);
	int refused = preflight_machine(o, err, sizeof(err)) ? 1 : 0;
	if (!refused && scratch_check(o->scratch, need, &x.sc, err, sizeof(err)))
		refused = 1;
	if (!refused && check_out(o, &x.sc, x.kernel, x.out, sizeof(x.out), err, sizeof(err)))
		refused = EXIT_USAGE;
	if (refused) {
		wb_error("%s", err);
		journal_close(&x.j);
		state_unlock(&st, 1);
		return refused;
	}
	if (open_run(&x, err, sizeof(err))) {
		wb_error("%s", err);
		if (st.dirfd >= 0 && close_run(&x, &st))
			wb_error("some changes could not be undone; run 'wblab run --cleanup'");
		return 1;
	}
	int rc = 0;
	path_join(x.tracefs_dir, sizeof(x.tracefs_dir), x.sc.run, "tracefs");
	if (!o->no_trace && real_tracefs_mount(&x.j, x.tracefs_dir, err, sizeof(err)))
		rc = 1;
	for (int i = 0; !rc && !interrupted && i < o->ncases; i++)
		for (int run = 1; !rc && !interrupted && run <= o->repeat; run++)
			if (run_case(&x, &o->cases[i], o->repeat > 1 ? run : 1, err, sizeof(err)))
				rc = 1;
	if (rc && err[0])
		wb_error("%s", err);
	int undo_failed = close_run(&x, &st);
	if (undo_failed) {
		wb_error("some changes could not be undone; run 'wblab run --cleanup'");
		rc = 1;
	}
	if (interrupted) {
		wb_error("interrupted by signal %d; %s%s", (int)interrupted,
			 undo_failed ? "the changes above were not all undone" : "every change was undone",
			 x.kept ? " (the results printed above were complete and are kept)"
				: "; no result was kept");
		return 1;
	}
	return rc;
}

int real_cleanup(const struct run_opts *o)
{
	struct run_state st;
	struct journal j;
	char err[1024];
	(void)o;
	if (geteuid() != 0) {
		wb_error("'wblab run --cleanup' must run as root; nothing was changed");
		return 1;
	}
	if (state_lock(&st, err, sizeof(err))) {
		wb_error("%s", err);
		return 1;
	}
	if (faccessat(st.dirfd, "journal", F_OK, AT_SYMLINK_NOFOLLOW)) {
		state_unlock(&st, 0);
		printf("nothing to clean up: no journal in %s\n", WBLAB_STATE_DIR);
		return 0;
	}
	if (state_journal(&st, &j, err, sizeof(err))) {
		wb_error("%s", err);
		state_unlock(&st, 0);
		return 1;
	}
	int empty = journal_mark(&j) == 0;
	if (real_cleanup_stale(&j, 0)) {
		journal_close(&j);
		state_unlock(&st, 0);
		return 1;
	}
	journal_close(&j);
	state_unlock(&st, 1);
	printf(empty ? "nothing to clean up in %s\n"
		     : "cleaned up: every change journaled in %s is undone\n", WBLAB_STATE_DIR);
	return 0;
}
