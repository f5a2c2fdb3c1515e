/* One interface for every throttling model.  A model is one file in this
 * directory that defines it with THROTTLE_MODEL() below; the simulator core
 * calls only these hooks, so models can be added without touching each other
 * or anything else in src/. */
#ifndef WBLAB_THROTTLE_H
#define WBLAB_THROTTLE_H
#include "../sim/page_writeback.h"
#include "../sim/sim.h"
#include "../trace/trace_format.h"

struct nfs_client_era;

struct throttle_model {
	const char *name;              /* as given to --kernel, e.g. "3.2-ioless" */
	const char *summary;           /* one line for --help */
	enum trace_era era;            /* trace formats this kernel printed */
	/* the NFS client / sunrpc code this kernel shipped (src/nfs/nfs_era.h) */
	const struct nfs_client_era *nfs_client;
	/* Set ratelimit_pages etc. once the machine exists. */
	void (*init)(struct sim *s);
	/* balance_dirty_pages_ratelimited_nr(): the task just dirtied nr pages.
	 * May sleep (throttle) and, in IO-ful models, write back. */
	void (*ratelimited)(struct sim *s, struct task *t, uint64_t nr);
	/* How many more pages the task can dirty before the call above would
	 * enter balance_dirty_pages() - lets writers batch without changing
	 * behaviour. */
	uint64_t (*pages_before_check)(struct sim *s, struct task *t);
	/* over_bground_thresh() for the flusher. */
	int (*over_bground_thresh)(struct sim *s, struct bdi *bdi);
	/* Called in the 200 ms bandwidth update of a dirtier (gdtc->thresh != 0;
	 * 3.2+) with BDI_DIRTIED now and the jiffies since the last stamp; NULL if
	 * none. */
	void (*update_dirty_ratelimit)(struct sim *s, const struct dirty_throttle_control *gdtc,
				       uint64_t dirtied, uint64_t elapsed);
	unsigned count_bdi_dirtied : 1;      /* BDI_DIRTIED exists (3.2+) */
	unsigned task_dirty_proportion : 1;  /* per-task vm_dirties (3.1) */
	unsigned flex_proportions : 1;       /* writeout fraction from lib/flex_proportions (3.6+) */
	/* 6.x: bandwidth is estimated around do_writepages and after an inode's
	 * writeback ends (hooks below), not after each wb_writeback round */
	unsigned bandwidth_from_writepages : 1;
	/* 4.8+ timer wheel: a timeout is queued one bucket past its expiry so
	 * it never fires early, so schedule_timeout(n) wakes at the tick n + 1
	 * jiffies on (the 3.x wheel woke at tick n) */
	unsigned timer_wheel_round_up : 1;
	/* 3.3+/5.x+ wb_writeback: a background work's cutoff is "now" at each refill
	 * of b_io (3.3+; 3.1 and 3.2: the work's start), a round that wrote nothing before the
	 * call's first refill is followed by another, and kupdate's page budget
	 * has no unstable NFS pages (gone in 5.8) */
	unsigned wb_writeback_refill : 1;
	/* do_writepages() start and end on bdi (NULL if none) */
	void (*writepages_begin)(struct sim *s, struct bdi *bdi);
	void (*writepages_end)(struct sim *s, struct bdi *bdi);
	/* the inode's last page under writeback completed (interrupt context; NULL if none) */
	void (*inode_writeback_done)(struct sim *s, struct inode *inode);
	const char *flusher_comm;            /* NULL: "flush-MAJ:MIN" (3.x per-bdi thread) */
	/* the model this one repeats under another name (the seed's kernel
	 * names); `-k all` runs the original only */
	const char *alias_of;
	/* the end of a run (NULL if none): a last check, may set s->error */
	void (*finish)(struct sim *s);
	/* a policy plug-in's model (src/throttle/policy.c): the .so's absolute path
	 * and FNV-1a hash, NULL / 0 for built-in models */
	const char *plugin_path;
	uint64_t plugin_hash;
};

/* Defines a model and registers it: the build collects every line starting
 * with THROTTLE_MODEL( in each src/throttle/ file into the list of registry.c (see
 * the Makefile), so there is no second list to keep in step.  Models are
 * listed in file-name order, then in their order within a file. */
#define THROTTLE_MODEL(sym) const struct throttle_model sym

const struct throttle_model *throttle_lookup(const char *name);
/* NULL-terminated list of all models, for --help */
const struct throttle_model *const *throttle_models(void);

#endif
