/* wblab policy plug-ins: a throttling policy as a shared object.
 *
 *     wblab sim --policy ./mypolicy.so -k 3.2-ioless,current CASE...
 *
 * A plug-in is a C file built with
 *
 *     cc -shared -fPIC -fvisibility=hidden $(pkg-config --cflags wblab-policy) \
 *        -o mypolicy.so mypolicy.c
 *
 * and linked against nothing of wblab: everything it may call comes in the
 * function table `struct wblab_api` passed to each hook, so the wblab binary
 * exports no symbols and a plug-in's own names can never clash with wblab's.
 * It defines its hooks in a `struct wblab_policy` and names it once with
 * WBLAB_POLICY(), which exports the two symbols wblab looks for:
 *
 *     wblab_policy_abi    the WBLAB_POLICY_ABI it was compiled against; checked
 *                         before any code of the plug-in runs
 *     wblab_policy_init   returns the descriptor, given the API table
 *
 * The policy runs inside the 3.2 IO-less balance_dirty_pages() loop (the
 * "3.2-ioless" model: its entry, limits, bandwidth estimation, flusher kicks
 * and trace events) and replaces the pieces it has hooks for; a hook left NULL
 * is 3.2's.  Its results are named after it: kernel `policy-NAME`.
 *
 * Contract (checked; a violation stops the run with a one-line error naming
 * it, exit 1; docs/policies.md lists them all):
 *   pause-range         pause() returned < 0 or > max_pause_limit (MAX_PAUSE)
 *   pause-spin          pause() returned 0 while task_ratelimit is 0 (over the
 *                       hard limit the loop would spin without time passing)
 *   setpoint-range      setpoint() outside [1, hard limit)
 *   ratelimit-update    update_dirty_ratelimit() ran but never called
 *                       wb->update_dirty_ratelimit_32() (no bdi_dirty_ratelimit
 *                       events; dirty_ratelimit would stay at its start value)
 *   no-throttle         balance_dirty_pages() ran but never called
 *                       wb->balance_dirty_pages_32() (no balance_dirty_pages events)
 * and at load (exit 2): missing-symbol, abi-version, bad-descriptor, bad-name.
 *
 * Units: pages (4 KiB), pages per second, jiffies (1/hz s); ratios are
 * fixed point with 1024 = 1.0.  Everything is deterministic: a plug-in must
 * not read clocks or random numbers of its own if its results are to rerun
 * byte for byte (`wblab rerun DIR`).
 */
#ifndef WBLAB_POLICY_H
#define WBLAB_POLICY_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any change to the structs below; wblab refuses any other. */
#define WBLAB_POLICY_ABI 1

/* Opaque handles into the simulator: pass them back to the API. */
struct wblab_sim;
struct wblab_bdi;
struct wblab_task;

/* What one balance_dirty_pages pass knows about the (one, global) dirty
 * domain and the task's bdi: wblab's struct dirty_throttle_control. */
struct wblab_dtc {
	struct wblab_bdi *bdi;
	uint64_t avail;                  /* dirtyable memory */
	uint64_t dirty;                  /* dirty + unstable + writeback pages */
	uint64_t thresh, bg_thresh;      /* vm.dirty_(background_)bytes/ratio in pages */
	uint64_t wb_dirty;               /* the bdi's dirty + writeback pages */
	uint64_t wb_thresh, wb_bg_thresh;   /* the bdi's share of thresh, bg_thresh */
	uint64_t pos_ratio;              /* 1024 = 1.0 */
	uint64_t limit;                  /* 6.x helpers: the hard limit used */
};

/* One pass of the loop as the pause hook sees it. */
struct wblab_pass {
	struct wblab_sim *sim;
	struct wblab_task *task;
	const struct wblab_dtc *dtc;     /* pos_ratio filled in */
	uint64_t hz;
	uint64_t dirty_ratelimit;        /* the bdi's rate limit, pages/s */
	uint64_t task_ratelimit;         /* dirty_ratelimit * pos_ratio / 1024; 0 over the hard limit */
	uint64_t pages_dirtied;          /* since the task's last pass */
	uint64_t write_bw, avg_write_bw; /* the bdi's estimated write bandwidth, pages/s */
	uint64_t nr_dirtiers;            /* tasks dirtying this bdi (the simulator knows; a kernel
					  * would estimate avg_write_bw / dirty_ratelimit) */
	uint64_t max_pause;              /* 3.2's bdi_max_pause() for this pass, jiffies */
	uint64_t max_pause_limit;        /* MAX_PAUSE (hz / 5): the contract's bound */
	int64_t pause;                   /* 3.2's pause for this pass (0: none); the hook's
					  * return value replaces it */
};

/* The 200 ms rate-limit update (3.2's bdi_update_dirty_ratelimit). */
struct wblab_ratelimit_update {
	struct wblab_sim *sim;
	const struct wblab_dtc *dtc;     /* the dirtier's pass (pos_ratio not yet set) */
	uint64_t dirtied;                /* BDI_DIRTIED now */
	uint64_t elapsed;                /* jiffies since the last update */
};

/* What wblab gives a plug-in: the built-in pieces as library calls. */
struct wblab_api {
	uint32_t abi;                    /* WBLAB_POLICY_ABI */
	uint32_t size;                   /* sizeof(struct wblab_api) */

	/* -- Linux 3.2 (docs/throttling-model.md) -- */
	/* (freerun + hard limit) / 2 */
	uint64_t (*setpoint_32)(struct wblab_sim *s, const struct wblab_dtc *dtc);
	/* bdi_position_ratio around `setpoint`: the global cubic (1.0 at setpoint, 0 at
	 * the hard limit) times the bdi line and its reserve area */
	uint64_t (*position_ratio_32)(struct wblab_sim *s, const struct wblab_dtc *dtc,
				      uint64_t setpoint);
	/* the policy's own position ratio: its hook or the above around its setpoint */
	uint64_t (*position_ratio)(struct wblab_sim *s, const struct wblab_dtc *dtc);
	/* bdi_max_pause, jiffies */
	uint64_t (*max_pause_32)(struct wblab_sim *s, struct wblab_bdi *bdi, uint64_t wb_dirty);
	/* the pause of 3.2: hz * pages_dirtied / task_rl, at most max_pause; max_pause when
	 * task_rl is 0 */
	int64_t (*pause_32)(uint64_t hz, uint64_t pages_dirtied, uint64_t task_rl, uint64_t max_pause);
	/* bdi_update_dirty_ratelimit steering to `setpoint` from `pos_ratio`; emits the
	 * bdi_dirty_ratelimit event (counted as ratelimit_updates) */
	void (*update_dirty_ratelimit_32)(const struct wblab_ratelimit_update *u, uint64_t setpoint,
					  uint64_t pos_ratio);
	/* the 3.2 loop itself with this policy's hooks inside; emits balance_dirty_pages */
	void (*balance_dirty_pages_32)(struct wblab_sim *s, struct wblab_task *t, uint64_t pages_dirtied);

	/* -- Linux 6.x (docs/current-kernel.md), pure -- */
	int64_t (*pos_ratio_polynom_6x)(int64_t setpoint, int64_t dirty, int64_t limit);
	/* wb_position_ratio: sets dtc->limit and dtc->pos_ratio */
	void (*position_ratio_6x)(struct wblab_dtc *dtc, uint64_t dom_dirty_limit, uint64_t write_bw,
				  int strict);
	uint64_t (*max_pause_6x)(uint64_t hz, uint64_t avg_write_bw, uint64_t wb_dirty);
	uint64_t (*min_pause_6x)(uint64_t hz, uint64_t avg_write_bw, uint64_t max_pause,
				 uint64_t task_rl, uint64_t dirty_ratelimit, uint64_t *nr_dirtied_pause);

	/* -- facts -- */
	uint64_t (*hz)(struct wblab_sim *s);
	uint64_t (*jiffies)(struct wblab_sim *s);
	uint64_t (*hard_dirty_limit)(struct wblab_sim *s, uint64_t thresh);
	uint64_t (*dirty_ratelimit)(struct wblab_bdi *bdi);
	uint64_t (*avg_write_bw)(struct wblab_bdi *bdi);
	uint64_t (*nr_dirtiers)(struct wblab_sim *s, struct wblab_bdi *bdi);
};

/* The policy.  Every hook is optional (NULL: 3.2's). */
struct wblab_policy {
	uint32_t abi;                    /* WBLAB_POLICY_ABI */
	uint32_t size;                   /* sizeof(struct wblab_policy) */
	const char *name;                /* [a-z0-9_], 1-32 chars: results are policy-NAME */
	const char *summary;             /* one line */

	/* once per run, after 3.2's init */
	void (*init)(const struct wblab_api *wb, struct wblab_sim *s);
	/* the point the controller steers the dirty count to (position ratio and
	 * rate-limit direction both use it); default setpoint_32 */
	uint64_t (*setpoint)(const struct wblab_api *wb, struct wblab_sim *s, const struct wblab_dtc *dtc);
	/* the position ratio of a pass; default position_ratio_32 around setpoint() */
	uint64_t (*position_ratio)(const struct wblab_api *wb, struct wblab_sim *s,
				   const struct wblab_dtc *dtc);
	/* the pause of a pass, jiffies in [0, p->max_pause_limit]; p->pause holds 3.2's */
	int64_t (*pause)(const struct wblab_api *wb, const struct wblab_pass *p);
	/* the 200 ms rate-limit update; must call wb->update_dirty_ratelimit_32() */
	void (*update_dirty_ratelimit)(const struct wblab_api *wb, const struct wblab_ratelimit_update *u);
	/* balance_dirty_pages itself; must call wb->balance_dirty_pages_32() */
	void (*balance_dirty_pages)(const struct wblab_api *wb, struct wblab_sim *s, struct wblab_task *t,
				    uint64_t pages_dirtied);
};

#if defined(__GNUC__)
#define WBLAB_POLICY_EXPORT __attribute__((visibility("default")))
#else
#define WBLAB_POLICY_EXPORT
#endif

/* Names the policy (a struct wblab_policy defined in the file) for wblab. */
#define WBLAB_POLICY(desc)                                                              \
	WBLAB_POLICY_EXPORT extern const uint32_t wblab_policy_abi;                     \
	WBLAB_POLICY_EXPORT const uint32_t wblab_policy_abi = WBLAB_POLICY_ABI;         \
	WBLAB_POLICY_EXPORT const struct wblab_policy *wblab_policy_init(const struct wblab_api *wb); \
	WBLAB_POLICY_EXPORT const struct wblab_policy *wblab_policy_init(const struct wblab_api *wb) \
	{                                                                               \
		(void)wb;                                                               \
		return &(desc);                                                         \
	}

/* Fills the descriptor's header: `static const struct wblab_policy p = {
 * WBLAB_POLICY_HEADER("name", "summary"), .pause = my_pause };` */
#define WBLAB_POLICY_HEADER(nm, sum) \
	.abi = WBLAB_POLICY_ABI, .size = sizeof(struct wblab_policy), .name = (nm), .summary = (sum)

#ifdef __cplusplus
}
#endif
#endif
