/* Policy plug-ins: loading, the API table they call, the adapter that runs
 * them as a throttle_model inside the 3.2 loop, and their contract checks
 * (docs/policies.md).
 *
 * Why a function table and not `-rdynamic`: the plug-in gets exactly the
 * calls of struct wblab_api, versioned with the ABI number; the wblab binary
 * exports nothing (no interposition of its ~1000 internal names, none of them
 * becomes ABI), it works the same in the ASan build and a static one, and a
 * plug-in links against nothing, so it builds from the installed header alone.
 *
 * This file defines no THROTTLE_MODEL: the model exists only once a plug-in
 * is loaded. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "policy.h"
#include "common.h"
#include "ioless.h"
#include "bdp_6x.h"
#include "../../include/wblab/policy.h"
#include "../nfs/nfs_era.h"
#include "../sim/page_writeback.h"
#include "../sim/vmstat.h"

static struct {
	const struct wblab_policy *pol;
	char path[PATH_MAX];
	char name[48], summary[160];
	struct throttle_model model;
	/* per run (reset by init): for the "never called" checks */
	uint64_t update_hooks, updates, bdp_hooks, bdps;
} P;

/* ---- the public control <-> the simulator's --------------------------------- */

static void to_pub(const struct dirty_throttle_control *d, struct wblab_dtc *o)
{
	*o = (struct wblab_dtc){ .bdi = (struct wblab_bdi *)d->wb, .avail = d->avail, .dirty = d->dirty,
		.thresh = d->thresh, .bg_thresh = d->bg_thresh, .wb_dirty = d->wb_dirty,
		.wb_thresh = d->wb_thresh, .wb_bg_thresh = d->wb_bg_thresh, .pos_ratio = d->pos_ratio,
		.limit = d->limit };
}

static void from_pub(const struct wblab_dtc *o, struct dirty_throttle_control *d)
{
	*d = (struct dirty_throttle_control){ .wb = (struct bdi *)o->bdi, .avail = o->avail,
		.dirty = o->dirty, .thresh = o->thresh, .bg_thresh = o->bg_thresh, .wb_dirty = o->wb_dirty,
		.wb_thresh = o->wb_thresh, .wb_bg_thresh = o->wb_bg_thresh, .pos_ratio = o->pos_ratio,
		.limit = o->limit };
}

#define SIM(x) ((struct sim *)(x))

/* The first violation of a run stops it (the engine checks s->error after
 * the event); later ones would only repeat it. */
__attribute__((format(printf, 2, 3))) static void violation(struct sim *s, const char *fmt, ...)
{
	if (s->error[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->error, sizeof(s->error), fmt, ap);
	va_end(ap);
}

/* ---- the policy's pieces, its hook or 3.2's ---------------------------------- */

static const struct wblab_api api;

static uint64_t pol_setpoint(struct sim *s, const struct dirty_throttle_control *d)
{
	uint64_t sp32 = bdi_setpoint_32(s, d);
	if (!P.pol->setpoint)
		return sp32;
	struct wblab_dtc o;
	to_pub(d, &o);
	uint64_t sp = P.pol->setpoint(&api, (struct wblab_sim *)s, &o);
	uint64_t limit = hard_dirty_limit(s, d->thresh);
	if (sp < 1 || sp >= limit) {
		violation(s, "setpoint-range: setpoint() returned %llu pages, outside [1, %llu) "
			  "(the hard limit)", (unsigned long long)sp, (unsigned long long)limit);
		return sp32;
	}
	return sp;
}

/* 3.2 multiplies the rate limit (pages/s, below 2^32) by the ratio in 64
 * bits: a ratio of 2^32 (4 M x 1.0) or more would overflow it */
#define POS_RATIO_MAX (1ULL << 32)

static uint64_t pol_position_ratio(struct sim *s, const struct dirty_throttle_control *d)
{
	if (!P.pol->position_ratio)
		return bdi_position_ratio_at(s, d, pol_setpoint(s, d));
	struct wblab_dtc o;
	to_pub(d, &o);
	uint64_t r = P.pol->position_ratio(&api, (struct wblab_sim *)s, &o);
	if (r >= POS_RATIO_MAX) {
		violation(s, "position-range: position_ratio() returned %llu, not below 2^32 (1024 is 1.0; "
			  "the rate limit times it must fit 64 bits)", (unsigned long long)r);
		return bdi_position_ratio_at(s, d, pol_setpoint(s, d));
	}
	return r;
}

static uint64_t nr_dirtiers(const struct sim *s, const struct bdi *bdi)
{
	uint64_t n = 0;
	for (int i = 0; i < s->ntasks; i++)
		n += s->tasks[i].inode->bdi == bdi;
	return n;
}

static uint64_t pol_pause(struct sim *s, struct task *t, const struct bdp32_pass *p)
{
	if (!P.pol->pause)
		return p->pause;
	struct wblab_dtc o;
	to_pub(p->dtc, &o);
	struct bdi *bdi = p->dtc->wb;
	uint64_t maxp = max_pause_jiffies(s);
	struct wblab_pass ps = { .sim = (struct wblab_sim *)s, .task = (struct wblab_task *)t, .dtc = &o,
		.hz = s->p.hz, .dirty_ratelimit = p->rl, .task_ratelimit = p->task_rl,
		.pages_dirtied = p->pages_dirtied, .write_bw = bdi->write_bandwidth,
		.avg_write_bw = bdi->avg_write_bandwidth, .nr_dirtiers = nr_dirtiers(s, bdi),
		.max_pause = p->max_pause, .max_pause_limit = maxp, .pause = (int64_t)p->pause };
	int64_t r = P.pol->pause(&api, &ps);
	if (r < 0 || (uint64_t)r > maxp) {
		violation(s, "pause-range: pause() returned %lld jiffies, outside [0, %llu] (MAX_PAUSE, "
			  "hz/5)", (long long)r, (unsigned long long)maxp);
		return p->pause ? p->pause : 1;
	}
	if (r == 0 && p->task_rl == 0) {
		violation(s, "pause-spin: pause() returned 0 over the hard limit (task_ratelimit 0): "
			  "the loop would spin without time passing");
		return p->pause ? p->pause : 1;
	}
	return (uint64_t)r;
}

static const struct bdp32_hooks hooks = { pol_position_ratio, pol_pause };

static void lib_bdp(struct sim *s, struct task *t, uint64_t pages_dirtied)
{
	P.bdps++;
	balance_dirty_pages_32_hooked(s, t, pages_dirtied, &hooks);
}

static void no_throttle(struct sim *s)
{
	violation(s, "no-throttle: balance_dirty_pages() ran %llu times and never called "
		  "wb->balance_dirty_pages_32(): no balance_dirty_pages events", (unsigned long long)P.bdp_hooks);
}

/* Page cache cannot outgrow memory: a kernel would reclaim or stall the
 * writer long before.  The model has no reclaim, so a throttle that lets
 * dirty pages run away gives numbers no machine can show.  Twice memory:
 * 3.2's own loop, many writers each dirtying up to its nr_dirtied_pause
 * between checks, passes memory by a little on a limit near it (100 dd at
 * 1020M of 1024M: 0.6 %). */
static void check_memory(struct sim *s)
{
	uint64_t held = global_page_state(s, NR_FILE_DIRTY) + global_page_state(s, NR_WRITEBACK) +
			global_page_state(s, NR_UNSTABLE_NFS);
	if (held <= 2 * s->total_pages)
		return;
	if (P.bdp_hooks && !P.bdps)
		no_throttle(s);   /* what let them through: the more useful name */
	else
		violation(s, "dirty-beyond-memory: %llu pages dirty, under writeback or unstable, more than "
			  "twice the machine's %llu: the throttle did not hold the writers back",
			  (unsigned long long)held, (unsigned long long)s->total_pages);
}

static void pol_bdp(struct sim *s, struct task *t, uint64_t pages_dirtied)
{
	if (!P.pol->balance_dirty_pages) {
		lib_bdp(s, t, pages_dirtied);
	} else {
		P.bdp_hooks++;
		P.pol->balance_dirty_pages(&api, (struct wblab_sim *)s, (struct wblab_task *)t, pages_dirtied);
	}
	check_memory(s);
}

/* ---- the model's hooks ------------------------------------------------------- */

static void m_init(struct sim *s)
{
	ioless_init(s);
	P.update_hooks = P.updates = P.bdp_hooks = P.bdps = 0;
	if (P.pol->init)
		P.pol->init(&api, (struct wblab_sim *)s);
}

static void m_ratelimited(struct sim *s, struct task *t, uint64_t nr)
{
	ioless_entry(s, t, nr, pol_bdp);
}

static void lib_update(struct sim *s, const struct dirty_throttle_control *gdtc, uint64_t dirtied,
		       uint64_t elapsed, uint64_t setpoint, uint64_t pos)
{
	P.updates++;
	bdi_update_dirty_ratelimit_at(s, gdtc, dirtied, elapsed, setpoint, pos);
}

static void m_update_dirty_ratelimit(struct sim *s, const struct dirty_throttle_control *gdtc,
				     uint64_t dirtied, uint64_t elapsed)
{
	if (!P.pol->update_dirty_ratelimit) {
		/* with no setpoint or position hook this is 3.2's, call for call */
		lib_update(s, gdtc, dirtied, elapsed, pol_setpoint(s, gdtc), pol_position_ratio(s, gdtc));
		return;
	}
	struct wblab_dtc o;
	to_pub(gdtc, &o);
	struct wblab_ratelimit_update u = { (struct wblab_sim *)s, &o, dirtied, elapsed };
	P.update_hooks++;
	P.pol->update_dirty_ratelimit(&api, &u);
}

static void m_finish(struct sim *s)
{
	if (P.update_hooks && !P.updates)
		violation(s, "ratelimit-update: update_dirty_ratelimit() ran %llu times and never called "
			  "wb->update_dirty_ratelimit_32(): no bdi_dirty_ratelimit events, "
			  "ratelimit_updates would be 0", (unsigned long long)P.update_hooks);
	else if (P.bdp_hooks && !P.bdps)
		no_throttle(s);
}

/* ---- the API table ------------------------------------------------------------ */

static uint64_t a_setpoint_32(struct wblab_sim *s, const struct wblab_dtc *o)
{
	struct dirty_throttle_control d;
	from_pub(o, &d);
	return bdi_setpoint_32(SIM(s), &d);
}

static uint64_t a_position_ratio_32(struct wblab_sim *s, const struct wblab_dtc *o, uint64_t setpoint)
{
	struct dirty_throttle_control d;
	from_pub(o, &d);
	return bdi_position_ratio_at(SIM(s), &d, setpoint);
}

static uint64_t a_position_ratio(struct wblab_sim *s, const struct wblab_dtc *o)
{
	struct dirty_throttle_control d;
	from_pub(o, &d);
	return pol_position_ratio(SIM(s), &d);
}

static uint64_t a_max_pause_32(struct wblab_sim *s, struct wblab_bdi *bdi, uint64_t wb_dirty)
{
	return bdi_max_pause(SIM(s), (struct bdi *)bdi, wb_dirty);
}

static int64_t a_pause_32(uint64_t hz, uint64_t pages_dirtied, uint64_t task_rl, uint64_t max_pause)
{
	if (!task_rl)
		return (int64_t)max_pause;
	uint64_t p = hz * pages_dirtied / task_rl;
	return (int64_t)(p > max_pause ? max_pause : p);
}

static void a_update_dirty_ratelimit_32(const struct wblab_ratelimit_update *u, uint64_t setpoint,
					uint64_t pos)
{
	struct dirty_throttle_control d;
	from_pub(u->dtc, &d);
	lib_update(SIM(u->sim), &d, u->dirtied, u->elapsed, setpoint, pos);
}

static void a_bdp_32(struct wblab_sim *s, struct wblab_task *t, uint64_t pages_dirtied)
{
	lib_bdp(SIM(s), (struct task *)t, pages_dirtied);
}

static void a_position_ratio_6x(struct wblab_dtc *o, uint64_t dom_dirty_limit, uint64_t write_bw,
				int strict)
{
	struct dirty_throttle_control d;
	from_pub(o, &d);
	wb_position_ratio(&d, dom_dirty_limit, write_bw, strict);
	o->limit = d.limit;
	o->pos_ratio = d.pos_ratio;
}

static uint64_t a_hz(struct wblab_sim *s) { return SIM(s)->p.hz; }
static uint64_t a_jiffies(struct wblab_sim *s) { return jiffies(SIM(s)); }
static uint64_t a_hard_dirty_limit(struct wblab_sim *s, uint64_t thresh) { return hard_dirty_limit(SIM(s), thresh); }
static uint64_t a_dirty_ratelimit(struct wblab_bdi *b) { return ((struct bdi *)b)->dirty_ratelimit; }
static uint64_t a_avg_write_bw(struct wblab_bdi *b) { return ((struct bdi *)b)->avg_write_bandwidth; }
static uint64_t a_nr_dirtiers(struct wblab_sim *s, struct wblab_bdi *b) { return nr_dirtiers(SIM(s), (struct bdi *)b); }

static const struct wblab_api api = {
	.abi = WBLAB_POLICY_ABI,
	.size = sizeof(struct wblab_api),
	.setpoint_32 = a_setpoint_32,
	.position_ratio_32 = a_position_ratio_32,
	.position_ratio = a_position_ratio,
	.max_pause_32 = a_max_pause_32,
	.pause_32 = a_pause_32,
	.update_dirty_ratelimit_32 = a_update_dirty_ratelimit_32,
	.balance_dirty_pages_32 = a_bdp_32,
	.pos_ratio_polynom_6x = pos_ratio_polynom,
	.position_ratio_6x = a_position_ratio_6x,
	.max_pause_6x = wb_max_pause,
	.min_pause_6x = wb_min_pause,
	.hz = a_hz,
	.jiffies = a_jiffies,
	.hard_dirty_limit = a_hard_dirty_limit,
	.dirty_ratelimit = a_dirty_ratelimit,
	.avg_write_bw = a_avg_write_bw,
	.nr_dirtiers = a_nr_dirtiers,
};

/* ---- loading -------------------------------------------------------------------- */

static int name_ok(const char *n)
{
	size_t l = strlen(n);
	if (l < 1 || l > 32)
		return 0;
	for (size_t i = 0; i < l; i++)
		if (!((n[i] >= 'a' && n[i] <= 'z') || (n[i] >= '0' && n[i] <= '9') || n[i] == '_'))
			return 0;
	return 1;
}

/* FNV-1a of the file, recorded in params so a rerun with another build shows */
static int file_hash(const char *path, uint64_t *h)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	uint64_t x = 1469598103934665603ULL;
	int c;
	while ((c = getc(f)) != EOF)
		x = (x ^ (uint64_t)(unsigned char)c) * 1099511628211ULL;
	fclose(f);
	*h = x;
	return 0;
}

#define LOADFAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return NULL; } while (0)

#define PROBE_LOADED 42

/* Loading runs the plug-in's code (its constructors, wblab_policy_init): do
 * it first in a child, so a plug-in that crashes or exits there is named in
 * one line instead of taking wblab down without a word.  0 when the child
 * got through; the checks themselves are made again by the real load. */
static int probe_load(const char *file, char *err, size_t errlen)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return 0;   /* no probe: the load itself still runs */
	if (pid == 0) {
		void *h = dlopen(P.path, RTLD_NOW | RTLD_LOCAL);
		const struct wblab_policy *(*init)(const struct wblab_api *) =
			h ? (const struct wblab_policy *(*)(const struct wblab_api *))dlsym(h, "wblab_policy_init")
			  : NULL;
		const uint32_t *abi = h ? dlsym(h, "wblab_policy_abi") : NULL;
		if (init && abi && *abi == WBLAB_POLICY_ABI)
			(void)init(&api);
		_exit(PROBE_LOADED);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 0;
	if (WIFSIGNALED(st)) {
		snprintf(err, errlen, "policy %s: crashed while loading (signal %d, %s): in its constructors or "
			 "wblab_policy_init()", file, WTERMSIG(st), strsignal(WTERMSIG(st)));
		return -1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != PROBE_LOADED) {
		snprintf(err, errlen, "policy %s: exited (status %d) while loading: in its constructors or "
			 "wblab_policy_init()", file, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return -1;
	}
	return 0;
}

const struct throttle_model *policy_model(void)
{
	return P.pol ? &P.model : NULL;
}

const struct throttle_model *policy_load(const char *file, char *err, size_t errlen)
{
	if (P.pol)
		LOADFAIL("--policy %s: one plug-in per run (%s is loaded)", file, P.path);
	if (!realpath(file, P.path))
		LOADFAIL("policy %s: %s", file, strerror(errno));
	if (probe_load(file, err, errlen))
		return NULL;
	/* dlopen looks a bare name up in the library path: the resolved path never is one */
	void *h = dlopen(P.path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		LOADFAIL("policy %s: cannot load: %s", file, dlerror());
	const uint32_t *abi = dlsym(h, "wblab_policy_abi");
	if (!abi)
		LOADFAIL("policy %s: missing-symbol: no 'wblab_policy_abi' (name the policy with "
			 "WBLAB_POLICY() of wblab/policy.h)", file);
	if (*abi != WBLAB_POLICY_ABI)
		LOADFAIL("policy %s: abi-version: built against policy ABI %u, this wblab has %u "
			 "(rebuild it against this wblab's wblab/policy.h)", file, *abi, WBLAB_POLICY_ABI);
	const struct wblab_policy *(*init)(const struct wblab_api *) =
		(const struct wblab_policy *(*)(const struct wblab_api *))dlsym(h, "wblab_policy_init");
	if (!init)
		LOADFAIL("policy %s: missing-symbol: no 'wblab_policy_init' (name the policy with "
			 "WBLAB_POLICY() of wblab/policy.h)", file);
	const struct wblab_policy *pol = init(&api);
	if (!pol)
		LOADFAIL("policy %s: bad-descriptor: wblab_policy_init() returned NULL", file);
	if (pol->abi != WBLAB_POLICY_ABI || pol->size != sizeof(struct wblab_policy))
		LOADFAIL("policy %s: abi-version: its descriptor says ABI %u, %u bytes; this wblab has "
			 "ABI %u, %zu bytes (use WBLAB_POLICY_HEADER())", file, pol->abi, pol->size,
			 WBLAB_POLICY_ABI, sizeof(struct wblab_policy));
	if (!pol->name || !name_ok(pol->name))
		LOADFAIL("policy %s: bad-name: the name must be 1-32 of [a-z0-9_]%s%s%s", file,
			 pol->name ? " (it is '" : "", pol->name ? pol->name : "", pol->name ? "')" : "");
	uint64_t hash;
	if (file_hash(P.path, &hash))
		LOADFAIL("policy %s: %s", file, strerror(errno));
	snprintf(P.name, sizeof(P.name), "policy-%s", pol->name);
	snprintf(P.summary, sizeof(P.summary), "plug-in %s: %s", pol->name,
		 pol->summary ? pol->summary : "");
	P.model = (struct throttle_model){
		.name = P.name,
		.summary = P.summary,
		.era = ERA_3_2,
		.nfs_client = &nfs_client_3_2,
		.init = m_init,
		.ratelimited = m_ratelimited,
		.pages_before_check = ioless_pages_before_check,
		.over_bground_thresh = over_bground_thresh_bdi,
		.update_dirty_ratelimit = m_update_dirty_ratelimit,
		.count_bdi_dirtied = 1,
		.finish = m_finish,
		.plugin_path = P.path,
		.plugin_hash = hash,
	};
	P.pol = pol;
	return &P.model;
}
