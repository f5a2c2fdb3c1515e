/* Building the simulated machine from a CASE and the parameters, running it,
 * and the invariants checked after every event in test runs. */
#include <stdlib.h>
#include <string.h>
#include "sim.h"
#include "../trace/trace_format.h"
#include "../nfs/nfs_era.h"
#include "fs_writeback.h"
#include "page_writeback.h"
#include "proportions.h"
#include "vmstat.h"
#include "writer.h"
#include "../analysis/stats.h"
#include "../block/blk.h"
#include "../block/dev_presets.h"
#include "../dev/blkdev.h"
#include "../nfs/nfs.h"
#include "../throttle/throttle.h"
#include "../util/util.h"

int sim_run_events(struct sim *s);

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

int sim_check(const struct wb_case *c, const struct sim_params *p, char *err, size_t errlen)
{
	if (!c->cpus || !c->mem_mb)
		FAIL("case '%s': the simulator needs explicit CPUS and MEM (no '*')", c->name);
	if (!case_fs_is_disk(c->fs) && strcmp(c->fs, "nfs") != 0)
		FAIL("case '%s': unknown file system '%s' (ext2, ext3, ext4, xfs, btrfs, nfs)", c->name, c->fs);
	if (params_check(p, err, errlen))
		return -1;
	if (p->nfs.max_slots < p->nfs.min_slots)
		FAIL("nfs.min_slots=%llu must not exceed nfs.max_slots=%llu",
		     (unsigned long long)p->nfs.min_slots, (unsigned long long)p->nfs.max_slots);
	if (writer_rand_file_pages(p) && strcmp(c->fs, "nfs") != 0)
		FAIL("case '%s': writer.pattern=rand is only modelled on nfs (the local block layer lays pages out sequentially)",
		     c->name);
	if (writer_rand_file_pages(p) && strcmp(p->nfs.server_dev, "fifo") != 0)
		FAIL("writer.pattern=rand needs nfs.server_dev=fifo (the server's block layer lays pages out sequentially)");
	if (writer_rand_file_pages(p) && c->bs != PAGE_SIZE_BYTES)
		FAIL("case '%s': writer.pattern=rand needs a 4k block size (each write() is one random page)", c->name);
	if (c->bs % PAGE_SIZE_BYTES)
		FAIL("case '%s': the simulator needs a block size that is a multiple of 4k", c->name);
	if (!dev_preset_find(p->dev.model))
		FAIL("dev.model '%s' unknown", p->dev.model);
	if (p->dev.nr_requests == 1)
		FAIL("dev.nr_requests must be 0 (the kernel's) or >= 2");
	if (p->bdi_min_ratio > p->bdi_max_ratio)
		FAIL("bdi_min_ratio=%llu must not exceed bdi_max_ratio=%llu",
		     (unsigned long long)p->bdi_min_ratio, (unsigned long long)p->bdi_max_ratio);
	return 0;
}

static void vmstat_tick(struct sim *s, void *arg)
{
	(void)arg;
	vmstat_fold_all(s);
	sim_call_at(s, s->now + NSEC_PER_SEC, vmstat_tick, NULL);
}

static int bdi_init(struct sim *s, struct bdi *bdi, const char *name)
{
	snprintf(bdi->name, sizeof(bdi->name), "%s", name);
	for (int i = 0; i < NR_BDI_STAT_ITEMS; i++)
		if (percpu_counter_init(&bdi->stat[i], s->ncpus, s->bdi_stat_batch))
			return -1;
	bdi->min_ratio = s->p.bdi_min_ratio;
	bdi->max_ratio = s->p.bdi_max_ratio;
	bdi->max_prop_frac = PROP_FRAC_BASE * bdi->max_ratio / 100;
	bdi->bw_time_stamp = jiffies(s);
	/* INIT_BW by default; a calibrated run starts where the real bdi stood */
	bdi->write_bandwidth = bdi->avg_write_bandwidth = s->p.bdi_init_write_bw_kbps / 4;
	bdi->dirty_ratelimit = bdi->balanced_dirty_ratelimit =
		s->p.bdi_init_dirty_ratelimit_kbps / 4;
	list_init(&bdi->b_dirty);
	list_init(&bdi->b_io);
	list_init(&bdi->b_more_io);
	if (s->p.warm_proportions)
		prop_warm(&s->vm_completions, &bdi->completions, 1.0);
	return 0;
}

/* The parameters a kernel model cannot run: a random writer is counted per
 * newly dirtied page (6.x's folio_account_dirtied), where 3.x counted every
 * write() towards the ratelimit. */
int sim_check_model(const struct sim_params *p, const struct throttle_model *m, char *err, size_t errlen)
{
	if (writer_rand_file_pages(p) && m->nfs_client != &nfs_client_6x)
		FAIL("writer.pattern=rand is only modelled under current (kernel '%s' counts every write() towards "
		     "its ratelimit, the random writer only fresh pages)", m->name);
	return 0;
}

const char *sim_param_unused(const char *key, const struct wb_case *c, const struct sim_params *p,
			     const struct throttle_model *m)
{
	int nfs = strcmp(c->fs, "nfs") == 0;
	/* the NFS server's block-layer disk is the hdd-2011 preset at
	 * nfs.server_disk_mbps (nfs_server.c), not the dev.* the user set */
	if (nfs && (!strncmp(key, "disk.", 5) || !strncmp(key, "dev.", 4)))
		return "a local device's key on an NFS case (its server's disk is set by nfs.server_*)";
	if (!strncmp(key, "disk.", 5) && strcmp(p->dev.model, "fifo") != 0)
		return "the disk.* keys describe dev.model=fifo";
	const struct dev_preset *pr = dev_preset_find(p->dev.model);
	if (!nfs && pr && !strncmp(key, "dev.", 4) && strcmp(key, "dev.model") &&
	    !dev_kind_uses(pr->kind, key))
		return pr->kind == DEV_FIFO ? "dev.model=fifo (the disk.* model, which any disk.* key "
					      "selects) has no block layer: its keys are disk.*"
		       : pr->kind == DEV_HDD ? "the hdd device model does not read it"
		       : pr->kind == DEV_SSD ? "the ssd/nvme device model does not read it"
					     : "the loop device model does not read it";
	if (!strcmp(key, "dev.stall_ms") && p->dev.stall_every_s <= 0)
		return "a detail of dev.stall_every_s, which is 0";
	if (!strcmp(key, "dev.stall_every_s") && p->dev.stall_ms <= 0)
		return "stalls of dev.stall_ms, which is 0, last no time";
	if (!strcmp(key, "dev.throttle_slice_ms") && p->dev.throttle_mbps <= 0)
		return "a detail of dev.throttle_mbps, which is 0";
	if (!nfs && !strncmp(key, "nfs.", 4))
		return "an NFS key on a local file system's case";
	if (!strcmp(key, "nfs.server_wcache_mb") && (strcmp(p->nfs.server_dev, "fifo") || writer_rand_file_pages(p)))
		return "the write-back cache of nfs.server_dev=fifo under sequential writers";
	if (!strcmp(key, "ext4_max_writeback_mb_bump") &&
	    (strcmp(c->fs, "ext4") || m->era == ERA_6X || !pr || pr->kind == DEV_FIFO))
		return "only 3.x ext4 on the block layer raises writepages' nr_to_write (gone in 3.10; "
		       "dev.model=fifo has no file-system writepages)";
	if (!strcmp(key, "bdi_strict_limit") && m->era != ERA_6X)
		return "only the current model has strict_limit (3.16 on)";
	if (!strcmp(key, "writer.file_mb") && !writer_rand_file_pages(p))
		return "the file size of writer.pattern=rand";
	if (!strcmp(key, "idle_residency_us") && p->idle_exit_us <= 0)
		return "the residency of idle_exit_us, which is 0";
	if (!strncmp(key, "host_", 5) && strcmp(key, "host_fault_ns") != 0 && p->host_fault_ns <= 0)
		return "a detail of host_fault_ns, which is 0";
	return NULL;
}

int sim_warn_unused(const char *cmd, const char *case_name, const struct wb_case *c,
		    const struct sim_params *p, const struct throttle_model *m, unsigned char *warned)
{
	int n = 0;
	for (size_t i = 0; i < params_count(); i++) {
		const char *key = params_desc(i)->key, *why;
		if (warned[i] || !params_is_set(p, key) || !(why = sim_param_unused(key, c, p, m)))
			continue;
		warned[i] = 1;
		fprintf(stderr, "wblab %s: warning: --set %s has no effect on %s under %s: %s\n", cmd, key,
			case_name, m->name, why);
		n++;
	}
	return n;
}

int sim_init(struct sim *s, const struct wb_case *c, const struct sim_params *p,
	     const struct throttle_model *m, uint64_t seed, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	if (sim_check(c, p, err, errlen) || sim_check_model(p, m, err, errlen))
		return -1;
	s->c = *c;
	s->p = *p;
	s->model = m;
	for (int t = 1; t < EV_TYPE_COUNT; t++)
		if (trace_fmt_get(m->era, (enum wb_event_type)t))
			s->era_events |= 1u << t;
	s->rng = seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL;
	if (!s->rng)
		s->rng = 1;
	s->ncpus = c->cpus;
	s->total_pages = c->mem_mb * 256;
	s->dirtyable_pages = (uint64_t)((double)s->total_pages * p->dirtyable_pct / 100.0);
	s->irq_cpu = 0;
	s->flusher_cpu = c->ndd % s->ncpus;
	s->bdi_stat_batch = 8 * (1 + ilog2_u64((uint64_t)s->ncpus));
	s->bdi_stat_error = (uint64_t)s->ncpus * (uint64_t)s->bdi_stat_batch;
	if (vmstat_init(s))
		FAIL("out of memory");
	s->bdp_ratelimits = calloc((size_t)s->ncpus, sizeof(uint64_t));
	s->cpu_busy_until = calloc((size_t)s->ncpus, sizeof(int64_t));
	s->tasks = calloc((size_t)c->ndd, sizeof(struct task));
	s->inodes = calloc((size_t)c->ndd, sizeof(struct inode));
	struct bdi *bdi = calloc(1, sizeof(*bdi));
	if (!s->bdp_ratelimits || !s->cpu_busy_until || !s->tasks || !s->inodes || !bdi)
		FAIL("out of memory");
	s->bdis[s->nbdi++] = bdi;

	uint64_t bg, thresh;
	dirty_thresholds(s, &bg, &thresh);
	int shift = prop_calc_shift(thresh);
	prop_descriptor_init(&s->vm_completions, shift);
	prop_descriptor_init(&s->vm_dirties, shift);
	int nfs = strcmp(c->fs, "nfs") == 0;
	/* an NFS mount's bdi is named by its anonymous device number (0:NN) */
	if (bdi_init(s, bdi, nfs ? "0:21" : "8:0"))
		FAIL("out of memory");

	s->ntasks = s->ninodes = c->ndd;
	for (int i = 0; i < c->ndd; i++) {
		struct inode *inode = &s->inodes[i];
		inode->ino = 12 + (unsigned long)i;
		inode->bdi = bdi;
		list_init(&inode->i_wb_list);
		struct task *t = &s->tasks[i];
		t->idx = i;
		t->inode = inode;
		t->bs_pages = c->bs / PAGE_SIZE_BYTES;
		t->th.cpu = i % s->ncpus;
		if (s->p.warm_proportions && m->task_dirty_proportion)
			prop_warm(&s->vm_dirties, &t->dirties, 1.0 / c->ndd);
	}
	if (nfs) {
		if (nfs_mount_create(s, bdi))
			FAIL("out of memory");
	} else if (strcmp(s->p.dev.model, "fifo") == 0) {
		bdi->ops = &blkdev_bdi_ops;
		bdi->dev = blkdev_create(s, bdi);
		if (!bdi->dev)
			FAIL("out of memory");
	} else {
		bdi->ops = &blk_bdi_ops;
		bdi->dev = blk_bdi_create(s, bdi, err, errlen);
		if (!bdi->dev)
			return -1;
	}
	m->init(s);
	s->now = 0;
	bdi_flusher_start(s, bdi, 1500);
	for (int i = 0; i < s->ntasks; i++)
		writer_start(s, &s->tasks[i]);
	sim_call_at(s, NSEC_PER_SEC, vmstat_tick, NULL);
	return 0;
}

int sim_run(struct sim *s, double seconds)
{
	s->end = (ktime_t)(seconds * (double)NSEC_PER_SEC);
	if (sim_run_events(s))
		return -1;
	if (s->model->finish)
		s->model->finish(s);
	return s->error[0] ? -1 : 0;
}

void sim_destroy(struct sim *s)
{
	for (int i = 0; i < s->ntasks; i++)
		coro_free(&s->tasks[i].th.co);
	for (int b = 0; b < s->nbdi; b++) {
		struct bdi *bdi = s->bdis[b];
		coro_free(&bdi->flusher.co);
		for (int i = 0; i < NR_BDI_STAT_ITEMS; i++)
			percpu_counter_destroy(&bdi->stat[i]);
		if (bdi->ops && bdi->ops->destroy)
			bdi->ops->destroy(bdi->dev);
		free(bdi);
	}
	vmstat_destroy(s);
	free(s->bdp_ratelimits);
	free(s->cpu_busy_until);
	free(s->tasks);
	free(s->inodes);
	free(s->heap);
	free(s->unseen);
	memset(s, 0, sizeof(*s));
}

#define BAD(...) do { snprintf(s->error, sizeof(s->error), __VA_ARGS__); return; } while (0)

void sim_check_invariants(struct sim *s)
{
	const int64_t *ex = s->vm.exact;
	int64_t dirty = 0, wb = 0, unstable = 0, clean = 0;
	for (int i = 0; i < s->ninodes; i++) {
		const struct inode *in = &s->inodes[i];
		if ((int64_t)(in->nr_dirty | in->nr_writeback | in->nr_unstable | in->nr_clean) < 0)
			BAD("inode %lu: a page count went negative", in->ino);
		dirty += (int64_t)in->nr_dirty;
		wb += (int64_t)in->nr_writeback;
		unstable += (int64_t)in->nr_unstable;
		clean += (int64_t)in->nr_clean;
	}
	if (ex[NR_DIRTIED] != dirty + wb + unstable + clean)
		BAD("pages not conserved: dirtied %lld != dirty %lld + writeback %lld + unstable %lld + clean %lld",
		    (long long)ex[NR_DIRTIED], (long long)dirty, (long long)wb, (long long)unstable,
		    (long long)clean);
	if (ex[NR_FILE_DIRTY] != dirty || ex[NR_WRITEBACK] != wb || ex[NR_UNSTABLE_NFS] != unstable)
		BAD("global counters disagree with the inodes");
	if (ex[NR_WRITTEN] != unstable + clean)
		BAD("written %lld != unstable + clean %lld", (long long)ex[NR_WRITTEN],
		    (long long)(unstable + clean));
	for (int i = 0; i < NR_VM_ITEMS; i++)
		if (ex[i] < 0)
			BAD("vmstat item %d negative", i);
}
