/* The simulated machine: an event-driven model of the Linux buffered-write
 * path.  Time jumps from event to event; state is counters per task, inode and
 * bdi, never per page.  Kernel threads (dd, flusher) are coroutines that sleep
 * like their kernel counterparts. */
#ifndef WBLAB_SIM_H
#define WBLAB_SIM_H
#include <stdint.h>
#include "coro.h"
#include "list.h"
#include "params.h"
#include "../util/case.h"
#include "../trace/event.h"
#include "../trace/trace_write.h"
#include "../trace/dat_write.h"

typedef int64_t ktime_t;       /* simulated nanoseconds since boot */
#define NSEC_PER_SEC 1000000000LL

struct sim;
struct bdi;
struct throttle_model;
struct stats_acc;
struct plot_run;

/* ---- threads, wait queues, timers ---------------------------------------- */

struct sthread {
	struct coro co;
	struct sim *sim;
	char comm[16];
	int pid;
	int cpu;
	uint64_t wake_gen;           /* bumped by every wake-up and sleep (sim_wait's result) */
	size_t heap_pos;             /* 1 + index of its one resume event in the heap, 0: none */
	struct sthread *wq_next;     /* link while on a wait queue */
	/* or its resume is the end of an unseen burst (engine.c), kept outside the heap */
	ktime_t unseen_when;
	uint64_t burst_order;        /* burst ends of one time run in this order (engine.c) */
	size_t unseen_idx;           /* 1 + index in sim.unseen, 0: none */
};

struct waitq { struct sthread *head, *tail; };

struct sim_timer {
	void (*fn)(struct sim *, void *);
	void *arg;
	struct sim *sim;             /* set when armed: a cancel takes the expiry out of its heap */
	size_t heap_pos;             /* 1 + index of its expiry in the heap, 0: none */
	int pending;
};

/* ---- global vmstat counters with per-CPU drift --------------------------
 * (docs/throttling-model.md, Per-CPU counter drift) */

enum zone_stat_item { NR_FILE_DIRTY, NR_WRITEBACK, NR_UNSTABLE_NFS, NR_DIRTIED, NR_WRITTEN,
		      NR_VM_ITEMS };

struct vmstat {
	int64_t global[NR_VM_ITEMS];   /* folded value: what global_page_state() sees */
	int64_t exact[NR_VM_ITEMS];    /* the true sum, for invariants */
	int64_t *diff;                 /* [cpu * NR_VM_ITEMS + item] */
	int threshold;
	int overstep;                  /* 3.x __inc/__dec_zone_state: fold t/2 beyond */
};

/* percpu_counter as used for the bdi stats */
struct percpu_counter {
	int64_t count;
	int64_t *pcpu;
	int64_t sum;                   /* count + every pcpu share: what a sum reads, kept running */
	int batch;
};

/* ---- lib/proportions.c --------------------------------------------------- */

struct prop_descriptor { int shift; uint64_t events; };
struct prop_local { uint64_t events; uint64_t period; };

/* ---- lib/flex_proportions.c (3.6+; used by models that set flex_proportions) */

struct fprop_global { uint64_t events; uint64_t period; };
struct fprop_local { uint64_t events; uint64_t period; };

/* ---- inodes -------------------------------------------------------------- */

#define I_DIRTY_SYNC     1
#define I_DIRTY_DATASYNC 2
#define I_DIRTY_PAGES    4
#define I_DIRTY (I_DIRTY_SYNC | I_DIRTY_DATASYNC | I_DIRTY_PAGES)
#define I_SYNC         128

struct inode {
	unsigned long ino;
	struct bdi *bdi;
	unsigned state;
	uint64_t dirtied_when;         /* jiffies */
	struct list_node i_wb_list;    /* on b_dirty, b_io or b_more_io */
	struct waitq sync_wq;          /* waiters for I_SYNC to clear */
	/* page counts of the file's page cache, by state */
	uint64_t nr_dirty, nr_writeback, nr_unstable, nr_clean;
	uint64_t writeback_index;      /* next page offset of cyclic writeback */
	uint64_t size;                 /* pages */
	void *fs_private;              /* NFS inode state */
};

/* ---- backing device and its single writeback context -------------------- */

enum bdi_stat_item { BDI_RECLAIMABLE, BDI_WRITEBACK, BDI_DIRTIED, BDI_WRITTEN, NR_BDI_STAT_ITEMS };

struct writeback_control {
	int64_t nr_to_write;
	int64_t chunk;                 /* the per-inode chunk this call started with */
	int for_kupdate, for_background, range_cyclic, sync_all;
	uint64_t pages_skipped;
};

struct result_dir;

struct bdi_ops {
	/* ->writepages: may sleep; decrements wbc->nr_to_write */
	void (*writepages)(struct sim *, struct sthread *, struct inode *, struct writeback_control *);
	/* ->write_inode (NFS: COMMIT decision); may change nr_to_write; may be NULL */
	void (*write_inode)(struct sim *, struct sthread *, struct inode *, struct writeback_control *);
	/* ->write_begin before a write() copies into the page cache; may sleep; may be NULL */
	void (*write_begin)(struct sim *, struct sthread *, struct inode *);
	/* after n pages of the inode were dirtied by write(); may be NULL */
	void (*page_dirtied)(struct sim *, struct inode *, uint64_t n);
	/* end of run: device-specific stats and files (NFS mountstats); may be NULL */
	void (*report)(struct sim *, struct bdi *, struct stats_acc *, const struct result_dir *);
	/* frees bdi->dev */
	void (*destroy)(void *dev);
};

struct bdi {
	char name[16];                 /* "8:0", "0:21" */
	int id;
	const struct bdi_ops *ops;
	void *dev;                     /* blkdev or NFS client */
	uint64_t background_kicks;     /* bdi_start_background_writeback calls (tests read it) */
	struct percpu_counter stat[NR_BDI_STAT_ITEMS];
	struct prop_local completions;
	uint64_t min_ratio, max_ratio, max_prop_frac;
	/* bandwidth estimation, pages/s; stamps in jiffies / pages */
	uint64_t bw_time_stamp, written_stamp, dirtied_stamp;
	uint64_t write_bandwidth, avg_write_bandwidth;
	uint64_t dirty_ratelimit, balanced_dirty_ratelimit;   /* 3.2 */
	int dirty_exceeded;
	/* bdi_writeback */
	struct list_node b_dirty, b_io, b_more_io;
	int wb_running;                /* BDI_writeback_running: writeback_in_progress() */
	struct sthread flusher;
	int flusher_kicked;            /* a wake-up is pending for the flusher */
	int flusher_sleeping;
	uint64_t last_old_flush;       /* jiffies */
	struct sim_timer wakeup_timer;
	/* statistics of I/O issued, for `stats` */
	uint64_t io_count[2], io_pages[2];     /* [0] flusher, [1] dirtiers (3.1) */
	/* 6.x (models with flex_proportions / bandwidth_from_writepages) */
	struct fprop_local wb_completions;     /* writeout share, time-aged */
	struct sim_timer bw_dwork;             /* delayed bandwidth update after I/O ends */
};

/* ---- dd writer tasks ------------------------------------------------------ */

struct task {
	struct sthread th;
	int idx;
	struct inode *inode;
	uint64_t bs_pages;             /* pages per write() (at least 1) */
	uint64_t pages_written;        /* pages dirtied by its write() calls */
	uint64_t pages_written_back;   /* 3.1: pages it wrote back itself */
	/* 3.2 per-task poll state */
	uint64_t nr_dirtied, nr_dirtied_pause;
	/* 3.1 per-task dirtying proportion (vm_dirties) */
	struct prop_local dirties;
	/* 3.3+: virtual time of the end of the last pause (0 = none yet) */
	uint64_t dirty_paused_when;
	/* host_fault_*: pages left in the current block of guest frames, and
	 * whether the host must fault that block in (writer.c) */
	uint64_t frame_block_left;
	int frame_block_unbacked;
	/* writer.pattern=rand: pages of its file (0: a sequential dd) and the
	 * fraction of a fresh page carried between write bursts (rand_pages.h) */
	uint64_t rand_file_pages;
	double rand_carry;
	/* the unseen burst in flight (writer.c): n pages from start, one per
	 * per_page ns; a cut shortens n */
	ktime_t burst_start;
	double burst_per_page;
	uint64_t burst_n;
	int burst_in_flight;
};

/* ---- the whole machine ----------------------------------------------------- */

struct heap_ent;

struct sim {
	struct sim_params p;
	struct wb_case c;
	const struct throttle_model *model;
	ktime_t now;
	ktime_t end;
	uint64_t seq;
	struct heap_ent *heap;
	size_t heap_len, heap_cap;
	size_t *spent;                 /* heap_pos of the entry being dispatched, until it is moved */
	/* unseen bursts (engine.c): their ends, the one being dispatched, and
	 * the writers' rule that cuts bursts short of a new event */
	struct sthread **unseen;
	size_t nunseen, unseen_cap;
	int unseen_dispatch;
	uint64_t burst_pages;          /* pages of the local writers' bursts in flight (writer.c) */
	void (*unseen_cut)(struct sim *s, ktime_t before);
	struct coro sched;             /* the scheduler's own context */
	struct sthread *current;
	uint64_t rng;
	/* host_backed_mb: backed frames left for the writers (writer.c) */
	uint64_t frames_backed_left;
	int frames_backed_set;
	int ncpus;

	/* memory and limits */
	uint64_t total_pages, dirtyable_pages;
	uint64_t global_dirty_limit;   /* smoothed, pages */
	uint64_t update_time;          /* jiffies of its last update */
	uint64_t ratelimit_pages;
	uint64_t *bdp_ratelimits;      /* per-CPU dirty counters of the entry point */
	int64_t *cpu_busy_until;
	struct vmstat vm;
	struct prop_descriptor vm_completions, vm_dirties;
	int bdi_stat_batch;
	uint64_t bdi_stat_error;
	/* 6.x global wb_domain: flex proportions aged by a timer every 3 s */
	struct fprop_global completions;
	uint64_t period_time;          /* jiffies of the next aging, 0 = timer stopped */
	struct sim_timer period_timer;

	struct bdi *bdis[4];
	int nbdi;
	struct task *tasks;
	int ntasks;
	struct inode *inodes;
	int ninodes;

	/* output */
	struct trace_writer *trace;    /* text trace (--trace-format text), or NULL */
	struct dat_writer *dat;        /* trace.dat (the default), or NULL */
	struct stats_acc *stats;
	struct plot_run *plot;         /* graph series computed while running, or NULL */
	uint64_t events;               /* dispatched events, for the benchmark */
	uint64_t trace_events;         /* emitted trace events, for the benchmark */
	uint32_t era_events;           /* bit per event type the model's kernel prints */
	uint64_t heap_len_sum;         /* events pending beside the one dispatched, summed over dispatches (bench) */
	int irq_cpu, flusher_cpu;
	char error[256];               /* set when an invariant breaks */
};

/* time */
static inline uint64_t jiffies(const struct sim *s) { return (uint64_t)(s->now * (int64_t)s->p.hz / NSEC_PER_SEC); }
static inline ktime_t jiffies_to_ktime(const struct sim *s, uint64_t j) { return (ktime_t)j * NSEC_PER_SEC / (ktime_t)s->p.hz; }

/* engine (sim.c) */
/* Whether a case and parameters can be simulated; a one-line reason if not. */
int sim_check(const struct wb_case *c, const struct sim_params *p, char *err, size_t errlen);
/* what a kernel model cannot run with these parameters: 0, or -1 with the reason */
int sim_check_model(const struct sim_params *p, const struct throttle_model *m, char *err, size_t errlen);
/* Why the parameter KEY, given with --set, changes nothing for this case
 * under this model, or NULL when it may matter (wblab sim warns: a sweep of
 * such a key gives identical results) */
const char *sim_param_unused(const char *key, const struct wb_case *c, const struct sim_params *p,
			     const struct throttle_model *m);
/* One warning line on stderr ("wblab CMD: warning: --set KEY ...") per key
 * that sim_param_unused names; warned[params_count()] remembers which were
 * said, so a matrix warns once per key.  Returns how many it printed. */
int sim_warn_unused(const char *cmd, const char *case_name, const struct wb_case *c,
		    const struct sim_params *p, const struct throttle_model *m, unsigned char *warned);
int sim_init(struct sim *s, const struct wb_case *c, const struct sim_params *p,
	     const struct throttle_model *m, uint64_t seed, char *err, size_t errlen);
int sim_run(struct sim *s, double seconds);
void sim_destroy(struct sim *s);
void sthread_start(struct sim *s, struct sthread *t, const char *comm, int pid, int cpu,
		   void (*fn)(void *), void *arg);
/* schedule_timeout_uninterruptible: sleep until the jiffy boundary n ticks on
 * (under a model with timer_wheel_round_up: when the 4.8+ wheel's bucket
 * fires, timer_wheel_expiry) */
void schedule_timeout(struct sim *s, uint64_t n_jiffies);
/* the jiffy a timer of n jiffies set at `now` fires in the 4.8+ wheel */
uint64_t timer_wheel_expiry(uint64_t now, uint64_t n);
void sim_sleep_ns(struct sim *s, ktime_t ns);
/* Sleep until woken through wq, or until `timeout_jiffies` (0 = none). Returns 1 if woken. */
int sim_wait(struct sim *s, struct waitq *wq, uint64_t timeout_jiffies);
void wake_up_all(struct sim *s, struct waitq *wq);
/* wakeup_ns, plus idle_exit_us when t's CPU has idled idle_residency_us */
ktime_t wake_up_latency(const struct sim *s, const struct sthread *t);
void wake_up_thread(struct sim *s, struct sthread *t);
void sim_timer_arm(struct sim *s, struct sim_timer *t, ktime_t when);
void sim_timer_cancel(struct sim_timer *t);
void sim_call_at(struct sim *s, ktime_t when, void (*fn)(struct sim *, void *), void *arg);
/* Run on the task's CPU for ns (CPUs are shared FIFO when tasks outnumber them). */
void cpu_run(struct sim *s, struct sthread *t, ktime_t ns);
/* cpu_run when start = cpu_free_at(s, t) was just taken (it moved the thread
 * to its CPU already, nothing ran since) */
void cpu_run_from(struct sim *s, struct sthread *t, ktime_t start, ktime_t ns);
/* When the thread's CPU is next free (now if idle). */
ktime_t cpu_free_at(struct sim *s, struct sthread *t);
/* The time of the earliest pending event (the run's end if none): until then
 * no other thread can look at what the running one changes. */
ktime_t sim_next_event_time(const struct sim *s);
ktime_t sim_next_event_time_all(const struct sim *s);
void sim_sleep_burst(struct sim *s, ktime_t until, int unseen);
void sim_burst_move(struct sim *s, struct sthread *t, ktime_t when);
void sim_unseen_barrier(struct sim *s);
double sim_rand(struct sim *s);        /* uniform [0,1) */
void sim_check_invariants(struct sim *s);

#endif
