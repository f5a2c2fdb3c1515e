#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "simulate.h"
#include "sim.h"
#include "../analysis/plot.h"
#include "../analysis/stats.h"
#include "../result/result.h"
#include "../throttle/throttle.h"
#include "../util/util.h"
#include "../result/metrics.h"

/* The metrics this file computes: its rows of the one metric table.  The
 * build collects every file's WBLAB_METRIC rows into that table
 * (src/result/metrics.h says what the fields mean). */
/* producer-only figures (stats_set): the simulator */
WBLAB_METRIC(DIRTIER_WRITTEN_PAGES, "dirtier_written_pages", "pages", METRIC_NONE, ERAS_NONE, "sim",
	     "pages written by dirtiers themselves (3.1 foreground writeback)")
WBLAB_METRIC(FLUSHER_IO_COUNT, "flusher_io_count", "", METRIC_NONE, ERAS_NONE, "sim", "flusher IOs")
WBLAB_METRIC(FLUSHER_IO_MEAN_KB, "flusher_io_mean_kb", "KB", METRIC_HIGHER, ERAS_NONE, "sim",
	     "mean flusher IO size")
WBLAB_METRIC(DIRTIER_IO_COUNT, "dirtier_io_count", "", METRIC_NONE, ERAS_NONE, "sim", "dirtier IOs")

/* Figures only the simulator knows: who wrote the pages, and the I/O it issued. */
static void sim_stats(struct sim *s, struct stats_acc *st, double runtime,
		      const struct result_dir *rd)
{
	uint64_t back = 0;
	for (int i = 0; i < s->ntasks; i++) {
		stats_task(st, s->tasks[i].th.pid, s->tasks[i].pages_written, runtime);
		back += s->tasks[i].pages_written_back;
	}
	struct bdi *bdi = s->bdis[0];
	stats_set(st, METRIC_KEY(DIRTIER_WRITTEN_PAGES), (double)back);
	stats_set(st, METRIC_KEY(FLUSHER_IO_COUNT), (double)bdi->io_count[0]);
	stats_set(st, METRIC_KEY(FLUSHER_IO_MEAN_KB),
		  bdi->io_count[0] ? (double)bdi->io_pages[0] * 4 / (double)bdi->io_count[0] : 0);
	stats_set(st, METRIC_KEY(DIRTIER_IO_COUNT), (double)bdi->io_count[1]);
	if (bdi->ops->report)
		bdi->ops->report(s, bdi, st, rd);
}

static void write_params(const struct sim_job *j, FILE *f)
{
	fprintf(f, "# wblab %s simulated run\nkernel = %s\nmodel = %s\ncase = %s/%s\nseed = %llu\n"
		   "runtime = %g\n",
		WBLAB_VERSION, j->kernel_name, j->model->name, j->c.group, j->c.name,
		(unsigned long long)j->seed, j->runtime);
	if (j->model->plugin_path)
		fprintf(f, "policy = %s\npolicy_fnv1a64 = %016llx\n", j->model->plugin_path,
			(unsigned long long)j->model->plugin_hash);
	params_write(j->p, f);
}

int simulate_one(const struct sim_job *j)
{
	char err[512], path[4200];
	struct result_dir rd;
	struct trace_writer tw;
	struct dat_writer *dw = NULL;
	struct sim *s = calloc(1, sizeof(*s));
	struct stats_acc *st = stats_new();
	int rc = 1, have_trace = 0;
	if (!s || !st) {
		wb_error("out of memory");
		goto out;
	}
	if (result_begin(&rd, j->out, &j->c, j->kernel_name, j->run > 1 ? j->run : 1, err, sizeof(err))) {
		wb_error("%s", err);
		goto out;
	}
	if (sim_init(s, &j->c, j->p, j->model, j->seed, err, sizeof(err))) {
		wb_error("%s", err);
		goto abort;
	}
	if (!j->no_trace && j->text_trace) {
		if (trace_writer_open(&tw, result_file(&rd, "trace", path, sizeof(path)), j->model->era)) {
			wb_error("cannot write %s", path);
			goto abort;
		}
		have_trace = 1;
		s->trace = &tw;
	} else if (!j->no_trace) {
		dw = dat_writer_open(result_file(&rd, "trace.dat", path, sizeof(path)), j->model->era,
				     j->kernel_name);
		if (!dw) {
			wb_error("cannot write %s", path);
			goto abort;
		}
		s->dat = dw;
	}
	s->stats = st;
	/* with a trace, the graphs' series too, so plotting need not read it back */
	if (!j->no_trace && !(s->plot = plot_run_new(j->kernel_name, PLOT_SERIES_POINTS))) {
		wb_error("out of memory");
		goto abort;
	}
	if (s->plot)
		plot_run_expect_span(s->plot, (int64_t)(j->runtime * 1e6));
	if (sim_run(s, j->runtime)) {
		wb_error("%s/%s under %s: %s at %.6f s: %s", j->c.group, j->c.name, j->model->name,
			 j->model->plugin_path ? "policy contract violated" : "model invariant broken",
			 (double)s->now / 1e9, s->error);
		goto abort;
	}
	sim_stats(s, st, j->runtime, &rd);
	/* bench/sim-speed's counts, on stderr only: no result file changes */
	if (getenv("WBLAB_BENCH_COUNTS"))
		fprintf(stderr, "wblab-bench-counts: events %llu trace_events %llu mean_heap %.1f\n",
			(unsigned long long)s->events, (unsigned long long)s->trace_events,
			s->events ? (double)s->heap_len_sum / (double)s->events : 0.0);
	if (have_trace && trace_writer_close(&tw)) {
		have_trace = 0;
		wb_error("writing the trace of %s failed", rd.final_path);
		goto abort;
	}
	have_trace = 0;
	if (dw) {
		unsigned long inexact = dat_writer_inexact(dw);
		s->dat = NULL;
		if (dat_writer_close(dw)) {
			dw = NULL;
			wb_error("writing the trace.dat of %s failed", rd.final_path);
			goto abort;
		}
		dw = NULL;
		if (inexact)
			wb_error("warning: %s: %lu events of trace.dat will not read back exactly "
				 "(use --trace-format text)", rd.final_path, inexact);
	}
	FILE *f = result_fopen(&rd, "stats");
	FILE *pf = result_fopen(&rd, "params");
	int bad = !f || !pf || stats_write(st, f);
	if (s->plot) {  /* after the trace, whose size it records */
		struct stat ts;
		char tp[sizeof(path)];
		long long tb = stat(result_file(&rd, j->text_trace ? "trace" : "trace.dat", tp, sizeof(tp)),
				    &ts) ? -1 : (long long)ts.st_size;
		bad |= plot_run_save(s->plot, result_file(&rd, PLOT_SERIES_FILE, path, sizeof(path)), tb);
	}
	if (pf)
		write_params(j, pf);
	bad |= (f && fclose(f)) | (pf && fclose(pf));
	bad |= result_write_meta(&rd, &j->c, j->kernel_name, j->run > 1 ? j->run : 1, "sim");
	bad |= result_write_cmdline(&rd, j->argc, j->argv);
	if (bad || result_commit(&rd)) {
		wb_error("cannot write result %s", rd.final_path);
		goto abort;
	}
	rc = 0;
	goto out;
abort:
	if (have_trace)
		trace_writer_close(&tw);
	dat_writer_abort(dw);
	result_abort(&rd);
out:
	if (s)
		plot_run_free(s->plot);
	if (s && s->model)
		sim_destroy(s);
	free(s);
	stats_free(st);
	return rc;
}

/* "N/M cases, ETA" on a terminal's stderr, one line rewritten in place. */
static void progress(int done, int n, double t0, int on)
{
	if (!on || n < 2)
		return;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double el = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 - t0;
	if (done < n && done > 0)
		fprintf(stderr, "\r%d/%d cases, ETA %.0f s   ", done, n, el / done * (n - done));
	else if (done < n)
		fprintf(stderr, "\r%d/%d cases   ", done, n);
	else
		fprintf(stderr, "\r%d/%d cases in %.1f s   \n", done, n, el);
}

static volatile sig_atomic_t stop_signal;
/* the running workers, for the handler: a signal that lands just before the
 * parent blocks in wait() must still end the wait, so the handler stops
 * them itself (kill is async-signal-safe) instead of only setting a flag */
static pid_t *volatile stop_pids;
static volatile int stop_slots;

static void on_stop(int sig)
{
	stop_signal = sig;
	for (int i = 0; stop_pids && i < stop_slots; i++)
		if (stop_pids[i] > 0)
			kill(stop_pids[i], SIGTERM);
}

static const int stop_signals[] = { SIGTERM, SIGINT, SIGHUP };

static int is_stop_signal(int sig)
{
	for (size_t k = 0; k < ARRAY_SIZE(stop_signals); k++)
		if (stop_signals[k] == sig)
			return 1;
	return 0;
}

/* The worker's job, for on_exit: a plug-in hook that calls exit() ends the
 * run without the normal path's message or cleanup. */
static const struct sim_job *worker_job;

static void remove_worker_tmp(const struct sim_job *j, pid_t pid)
{
	char tmp[4400];
	if (!result_tmp_path(tmp, sizeof(tmp), j->out, &j->c, j->kernel_name, j->run > 1 ? j->run : 1,
			     (int)pid))
		remove_tree(tmp);
}

static void worker_exit_called(int status, void *arg)
{
	(void)arg;
	const struct sim_job *j = worker_job;
	if (!j)
		return;
	wb_error("%s/%s under %s: exit(%d) was called during the run%s; its result is not written",
		 j->c.group, j->c.name, j->model->name, status,
		 j->model->plugin_path ? " (by the policy plug-in?)" : "");
	remove_worker_tmp(j, getpid());
	fflush(stderr);
	_exit(1);   /* a failed job, whatever status the plug-in gave */
}

/* A worker that ended any other way than simulate_one's return: one line
 * naming the job, and its half-written result removed.  1 if it failed. */
static int reap_worker(const struct sim_job *j, pid_t pid, int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		/* a commit renames the worker's hidden dir to the result: it is
		 * gone after a success, and still there after an _exit(0) in the
		 * middle of the run (the result of that name may be an older one) */
		struct result_dir rd;
		char err[256], tmp[4400];
		int made = result_set_name(&rd, j->out, &j->c, j->kernel_name, j->run > 1 ? j->run : 1, err,
					   sizeof(err)) == 0 && access(rd.final_path, F_OK) == 0;
		int left = !result_tmp_path(tmp, sizeof(tmp), j->out, &j->c, j->kernel_name,
					    j->run > 1 ? j->run : 1, (int)pid) && access(tmp, F_OK) == 0;
		if (made && !left)
			return 0;
		wb_error("%s/%s under %s: the run ended (status 0) without writing its result%s", j->c.group,
			 j->c.name, j->model->name,
			 j->model->plugin_path ? " (the policy plug-in called _exit()?)" : "");
	} else if (WIFSIGNALED(status) && !stop_signal && !is_stop_signal(WTERMSIG(status))) {
		/* (a worker stopped with wblab, as by a signal to the whole
		 * process group, needs no line of its own) */
		int sig = WTERMSIG(status);
		wb_error("%s/%s under %s: the run died of signal %d (%s)%s; its result is not written",
			 j->c.group, j->c.name, j->model->name, sig, strsignal(sig),
			 j->model->plugin_path ? ", in the policy plug-in or wblab" : "");
	}
	remove_worker_tmp(j, pid);
	return 1;
}

/* A stopped wblab takes its workers with it and removes what they had
 * written so far (each one's hidden ROOT/GROUP/.LEAF.tmp.PID), then dies of
 * the same signal: nothing half-written stays behind. */
static void stop_workers(const struct sim_job *js, const pid_t *pid, const int *job, int slots)
{
	for (int i = 0; i < slots; i++)
		if (pid[i] > 0)
			kill(pid[i], SIGTERM);
	for (int i = 0; i < slots; i++) {
		if (pid[i] <= 0)
			continue;
		while (waitpid(pid[i], NULL, 0) < 0 && errno == EINTR) {}
		remove_worker_tmp(&js[job[i]], pid[i]);
	}
}

int simulate_all(const struct sim_job *js, int n, int jobs, int show_progress)
{
	int failed = 0, running = 0, next = 0, done = 0;
	int on = show_progress && isatty(STDERR_FILENO);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double t0 = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	progress(0, n, t0, on);
	if (jobs < 1)
		jobs = 1;
	/* -j1 too runs each job in a worker: a stopped wblab then removes the
	 * half-written result whatever -j was */
	pid_t *pid = calloc((size_t)jobs, sizeof(*pid));
	int *job = calloc((size_t)jobs, sizeof(*job));
	if (!pid || !job) {
		free(pid);
		free(job);
		wb_error("out of memory");
		return n;
	}
	/* no SA_RESTART: the signal ends the wait below */
	struct sigaction sa = { .sa_handler = on_stop }, old[ARRAY_SIZE(stop_signals)];
	sigset_t block, prev;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	stop_signal = 0;
	stop_slots = jobs;
	stop_pids = pid;
	for (size_t k = 0; k < ARRAY_SIZE(stop_signals); k++) {
		sigaction(stop_signals[k], &sa, &old[k]);
		/* one ignored on entry (nohup, a background job's SIGINT) stays so */
		if (old[k].sa_handler == SIG_IGN)
			sigaction(stop_signals[k], &old[k], NULL);
		sigaddset(&block, stop_signals[k]);
	}
	fflush(NULL);
	pid_t self = getpid();
	while ((next < n || running) && !stop_signal) {
		if (next < n && running < jobs) {
			int slot = 0;
			while (pid[slot] > 0)
				slot++;
			/* a worker starts with the default actions, and a signal
			 * between fork and that waits until the parent knows its pid */
			sigprocmask(SIG_BLOCK, &block, &prev);
			pid_t p = fork();
			if (p == 0) {
				/* the actions wblab was started with (an ignored
				 * SIGHUP under nohup stays ignored) */
				for (size_t k = 0; k < ARRAY_SIZE(stop_signals); k++)
					sigaction(stop_signals[k], &old[k], NULL);
				sigprocmask(SIG_SETMASK, &prev, NULL);
				die_with_parent(self);
				worker_job = &js[next];
				on_exit(worker_exit_called, NULL);
				int r = simulate_one(&js[next]);
				fflush(NULL);
				_exit(r ? 1 : 0);
			}
			if (p > 0) {
				pid[slot] = p;
				job[slot] = next;
				running++;
			}
			sigprocmask(SIG_SETMASK, &prev, NULL);
			if (p < 0) {
				failed += simulate_one(&js[next]);
				progress(++done, n, t0, on);
			}
			next++;
			continue;
		}
		int status;
		pid_t p = wait(&status);
		if (p < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		/* reaped: off the handler's list first, its pid may be reused */
		sigprocmask(SIG_BLOCK, &block, &prev);
		int slot = -1;
		for (int i = 0; i < jobs; i++)
			if (pid[i] == p) {
				pid[i] = 0;
				slot = i;
			}
		sigprocmask(SIG_SETMASK, &prev, NULL);
		if (slot < 0)
			continue;   /* not a worker of ours (a plug-in's own child) */
		running--;
		failed += reap_worker(&js[job[slot]], p, status);
		progress(++done, n, t0, on);
	}
	int sig = stop_signal;
	if (sig)
		stop_workers(js, pid, job, jobs);
	for (size_t k = 0; k < ARRAY_SIZE(stop_signals); k++)
		sigaction(stop_signals[k], &old[k], NULL);
	stop_pids = NULL;
	free(pid);
	free(job);
	if (sig)
		raise(sig);   /* the old action: by default, die of it */
	return failed;
}

/* The shortest of %.15g..%.17g that reads back as x: -t 0.1 stays "0.1"
 * (%.17g alone writes 0.10000000000000001), and 300 stays "300" (a
 * precision below 15 would give 3e+02). */
static void fmt_shortest(char *buf, size_t n, double x)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, n, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			return;
	}
}

char **sim_job_cmdline(const struct sim_job *j, const char *const *sets, int nsets, int *argc)
{
	char **v = calloc((size_t)(16 + 2 * nsets), sizeof(*v));
	char num[64], cs[512];
	int n = 0;
	if (!v)
		return NULL;
	v[n++] = strdup("wblab");
	v[n++] = strdup("sim");
	if (j->model->plugin_path) {
		/* --policy alone runs exactly the plug-in */
		v[n++] = strdup("--policy");
		v[n++] = strdup(j->model->plugin_path);
	} else {
		v[n++] = strdup("-k");
		v[n++] = strdup(j->kernel_name);
	}
	fmt_shortest(num, sizeof(num), j->runtime);
	v[n++] = strdup("-t");
	v[n++] = strdup(num);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)j->seed);
	v[n++] = strdup("--seed");
	v[n++] = strdup(num);
	if (j->run > 1) {
		snprintf(num, sizeof(num), "%d", j->run);
		v[n++] = strdup("--run");
		v[n++] = strdup(num);
	}
	for (int i = 0; i < nsets; i++) {
		v[n++] = strdup("--set");
		v[n++] = strdup(sets[i]);
	}
	if (j->no_trace)
		v[n++] = strdup("--no-trace");
	else if (j->text_trace)
		v[n++] = strdup("--trace-format=text");
	v[n++] = strdup("-o");
	v[n++] = strdup(j->out);
	snprintf(cs, sizeof(cs), "%s/%s", j->c.group, j->c.name);
	v[n++] = strdup(cs);
	for (int i = 0; i < n; i++)
		if (!v[i]) {
			for (int k = 0; k < n; k++)
				free(v[k]);
			free(v);
			return NULL;
		}
	*argc = n;
	return v;
}

void sim_jobs_free_cmdlines(struct sim_job *js, int n)
{
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < js[i].argc; k++)
			free(js[i].argv[k]);
		free(js[i].argv);
		js[i].argv = NULL;
		js[i].argc = 0;
	}
}
