#include <math.h>
#include <string.h>
#include "params.h"
#include "../util/util.h"
#include "../block/dev_presets.h"

static const char *const nfs_server_dev_names[] = { "fifo", "hdd-2011", NULL };
static const char *const dev_ioend_names[] = { "auto", "request", NULL };
static const char *const nfs_congestion_names[] = { "auto", "flag", "skip", "wait", NULL };
static const char *const writer_pattern_names[] = { "seq", "rand", NULL };

#define P(field) offsetof(struct sim_params, field)

/* Defaults describe a 2011 SATA box and, for NFS, a gigabit link to a
 * one-spindle server; docs/model.md and docs/nfs-model.md give the reasons. */
static const struct param_desc descs[] = {
	{ "hz", PT_U64, P(hz), 1000, 10, 10000, "kernel tick rate (jiffies per second)" },
	{ "cpu_page_ns", PT_DOUBLE, P(cpu_page_ns), 2500, 1, 1e7, "CPU time to copy one 4 KiB page in write()" },
	{ "syscall_ns", PT_DOUBLE, P(syscall_ns), 800, 0, 1e7, "fixed CPU time of one write() call" },
	{ "host_fault_ns", PT_DOUBLE, P(host_fault_ns), 0, 0, 1e6, "extra writer CPU per page whose guest frame the host must fault in (a VM with free page reporting: EPT fault + host zeroing); 0 = not a VM" },
	{ "host_fault_pct", PT_DOUBLE, P(host_fault_pct), 0, 0, 100, "share of the writers' frame blocks the host has to fault in" },
	{ "host_backed_mb", PT_DOUBLE, P(host_backed_mb), 0, 0, 16777216, "backed frames the writers get first, before the host_fault_pct draws: memory freed just before the run (the previous run's page cache) that the host has not taken back yet" },
	{ "host_fault_block_kb", PT_DOUBLE, P(host_fault_block_kb), 2048, 4, 4096, "frames are backed or not in blocks of this size (free page reporting's order: 9 = 2 MiB, the default; at most 10)" },
	{ "writeback_page_ns", PT_DOUBLE, P(writeback_page_ns), 1000, 0, 1e7, "CPU to put one page under writeback (write_cache_pages, bio or NFS request setup)" },
	{ "writeback_inode_ns", PT_DOUBLE, P(writeback_inode_ns), 2000, 1, 1e7, "CPU of one inode visit in writeback_sb_inodes (locks, list moves)" },
	{ "batch_max_us", PT_DOUBLE, P(batch_max_us), 1000, 0.1, 1e6, "longest writer CPU burst between model checks" },
	{ "wakeup_ns", PT_DOUBLE, P(wakeup_ns), 5000, 0, 1e8, "from wake_up to the woken thread running: IPI + context switch on a 2011 Xeon" },
	{ "idle_exit_us", PT_DOUBLE, P(idle_exit_us), 0, 0, 10000, "exit latency of the CPUs' deepest idle state, added to a wake-up onto a CPU idle for idle_residency_us or more (Nehalem C6: 200); 0 = off" },
	{ "idle_residency_us", PT_DOUBLE, P(idle_residency_us), 800, 0, 1e6, "target residency of that state: the idle time after which the CPU is in it (Nehalem C6: 800)" },
	{ "dirty_writeback_centisecs", PT_U64, P(dirty_writeback_centisecs), 500, 0, 360000, "vm.dirty_writeback_centisecs" },
	{ "dirty_expire_centisecs", PT_U64, P(dirty_expire_centisecs), 3000, 0, 360000, "vm.dirty_expire_centisecs" },
	{ "dirtyable_pct", PT_DOUBLE, P(dirtyable_pct), 92, 1, 100, "free + page cache share of MemTotal (dirtyable memory)" },
	{ "vmstat_drift", PT_U64, P(vmstat_drift), 1, 0, 1, "1: model per-CPU vmstat counter drift; 0: exact counters" },
	{ "cpu_migrate", PT_U64, P(cpu_migrate), 1, 0, 1, "1: a thread whose CPU is busy moves to the CPU that frees first (idle pull); 0: every thread pinned" },
	{ "writer_lookahead", PT_U64, P(writer_lookahead), 1, 0, 1, "1: a writer's burst runs past other writers' events that cannot see it (same results, fewer events); 0: every event cuts it" },
	{ "bdi_min_ratio", PT_U64, P(bdi_min_ratio), 0, 0, 99, "/sys/class/bdi/*/min_ratio (the kernel refuses a sum of 100 or more)" },
	{ "bdi_max_ratio", PT_U64, P(bdi_max_ratio), 100, 1, 100, "/sys/class/bdi/*/max_ratio" },
	{ "bdi_strict_limit", PT_U64, P(bdi_strict_limit), 0, 0, 1, "/sys/class/bdi/*/strict_limit (current model only)" },
	{ "ext4_max_writeback_mb_bump", PT_U64, P(ext4_max_writeback_mb_bump), 128, 0, 65536, "/sys/fs/ext4/DEV/max_writeback_mb_bump (3.x models on ext4; gone in 3.10): ext4_da_writepages writes up to this many MiB of a file's contiguous dirty pages whatever the writeback chunk; 0: the chunk" },
	{ "bdi_init_write_bw_kbps", PT_U64, P(bdi_init_write_bw_kbps), 102400, 4, 100000000, "the bdi's write bandwidth estimate (and its average) at the start, KB/s: INIT_BW of a new bdi; a reused one keeps its last" },
	{ "bdi_init_dirty_ratelimit_kbps", PT_U64, P(bdi_init_dirty_ratelimit_kbps), 102400, 4, 100000000, "the bdi's dirty_ratelimit at the start, KB/s: INIT_BW of a new bdi; a reused one keeps its last" },
	{ "warm_proportions", PT_U64, P(warm_proportions), 1, 0, 1, "1: bdi writeout fraction starts at steady state" },
	{ "debug_checks", PT_U64, P(debug_checks), 0, 0, 1, "1: check invariants after every event (tests)" },
	{ "stack_kb", PT_U64, P(stack_kb), 256, 64, 16384, "stack of each simulated kernel thread" },
	{ "disk.bw_mbps", PT_DOUBLE, P(disk.bw_mbps), 57, 0.1, 100000, "disk sequential write bandwidth, MiB/s" },
	{ "disk.seek_ms", PT_DOUBLE, P(disk.seek_ms), 4, 0, 1000, "disk cost of switching files: short seek + half a turn at 7200 rpm" },
	{ "disk.jitter_pct", PT_DOUBLE, P(disk.jitter_pct), 5, 0, 99, "+- random variation of each request's service time" },
	{ "disk.nr_requests", PT_U64, P(disk.nr_requests), 128, 2, 65536, "block queue nr_requests" },
	{ "disk.max_request_kb", PT_U64, P(disk.max_request_kb), 512, 4, 65536, "largest block request (max_sectors_kb)" },
	/* the local block device; numbers default to the hdd-2011 preset */
	{ "dev.model", PT_NAME, P(dev.model), 0, 0, 0, "local device preset: hdd-2011, ssd, nvme, loop, or fifo (the disk.* model); any disk.* key alone selects fifo", dev_model_names },
	{ "dev.elevator", PT_NAME, P(dev.elevator), 0, 0, 0, "I/O scheduler: auto (cfq for 3.x models, mq-deadline for current), noop/none, deadline/mq-deadline, cfq", dev_elevator_names },
	{ "dev.ioend", PT_NAME, P(dev.ioend), 0, 0, 0, "when a written page ends writeback: auto (current on ext4/xfs: when its whole ioend is done, 8 MiB ext4 io_end / 16 MiB xfs ioend; 3.x models: per request), request (when its request completes)", dev_ioend_names },
	{ "dev.nr_requests", PT_U64, P(dev.nr_requests), 0, 0, 65536, "block queue nr_requests; 0: the kernel's (3.x 128; blk-mq 2 x min(queue_depth, 128), queue_depth with none); else 2..65536" },
	{ "dev.max_sectors_kb", PT_U64, P(dev.max_sectors_kb), 512, 4, 65536, "largest request (max_sectors_kb)" },
	{ "dev.queue_depth", PT_U64, P(dev.queue_depth), 31, 1, 65536, "requests the device holds at once (NCQ: 31 on SATA)" },
	{ "dev.bw_mbps", PT_DOUBLE, P(dev.bw_mbps), 57, 1, 100000, "sustained write rate of the media (hdd) or device (ssd, loop), MiB/s" },
	{ "dev.capacity_gb", PT_DOUBLE, P(dev.capacity_gb), 500, 1, 100000, "hdd capacity: seek distance is measured against it" },
	{ "dev.rpm", PT_DOUBLE, P(dev.rpm), 7200, 3600, 15000, "hdd spindle speed: a non-contiguous request waits a seeded uniform share of one turn" },
	{ "dev.track_ms", PT_DOUBLE, P(dev.track_ms), 1.0, 0.1, 5, "hdd track-to-track seek" },
	{ "dev.full_stroke_ms", PT_DOUBLE, P(dev.full_stroke_ms), 16, 1, 40, "hdd full-stroke seek (seek = track + (full - track) * sqrt(distance / capacity))" },
	{ "dev.cache_mb", PT_DOUBLE, P(dev.cache_mb), 32, 0, 1024, "hdd write-back cache; 0 = write-through (completion after the media write)" },
	{ "dev.link_mbps", PT_DOUBLE, P(dev.link_mbps), 280, 10, 10000, "hdd host link payload rate (SATA II 3 Gb/s)" },
	{ "dev.latency_us", PT_DOUBLE, P(dev.latency_us), 0, 0, 100000, "ssd/loop fixed latency of each request" },
	{ "dev.parallel", PT_U64, P(dev.parallel), 1, 1, 64, "ssd internal units serving requests at once" },
	{ "dev.stall_every_s", PT_DOUBLE, P(dev.stall_every_s), 0, 0, 3600, "loop: mean time between host stalls (seeded, exponential); 0 = none" },
	{ "dev.stall_ms", PT_DOUBLE, P(dev.stall_ms), 0, 0, 10000, "loop: length of one host stall" },
	{ "dev.throttle_mbps", PT_DOUBLE, P(dev.throttle_mbps), 0, 0, 100000, "blk-throttle write cap in front of the device (wblab run --device-bw), MiB/s; 0 = none" },
	{ "dev.throttle_slice_ms", PT_DOUBLE, P(dev.throttle_slice_ms), 100, 1, 1000, "blk-throttle slice: the budget grows in whole slices (throtl_slice, HZ/10 on a rotational queue)" },
	{ "nfs.net_mbps", PT_DOUBLE, P(nfs.net_mbps), 117, 0.1, 100000, "gigabit payload bandwidth, 10^6 B/s" },
	{ "nfs.net_latency_ms", PT_DOUBLE, P(nfs.net_latency_ms), 0.1, 0, 1000, "one-way network latency" },
	{ "nfs.wsize_kb", PT_U64, P(nfs.wsize_kb), 1024, 4, 1024, "negotiated NFS wsize" },
	{ "nfs.min_slots", PT_U64, P(nfs.min_slots), 2, 1, 65536, "RPC slots kept preallocated (tcp_slot_table_entries, 2 since 3.1)" },
	{ "nfs.max_slots", PT_U64, P(nfs.max_slots), 128, 1, 65536, "RPC slot table limit (tcp_max_slot_table_entries)" },
	{ "nfs.nfsd_threads", PT_U64, P(nfs.nfsd_threads), 8, 1, 1024, "server nfsd threads" },
	{ "nfs.write_congestion", PT_NAME, P(nfs.write_congestion), 0, 0, 0, "what writeback does while nfss->writeback exceeds nfs_congestion_kb: auto (the kernel's: flag for 3.x, wait for current), flag (a bdi flag nobody waits on, to 5.17), skip (5.18: writepages returns), wait (2024: writepages waits)", nfs_congestion_names },
	{ "nfs.server_dev", PT_NAME, P(nfs.server_dev), 0, 0, 0, "server disk: fifo (one file at a time in server_slice_ms turns, server_seek_ms per switch, server_jitter_pct) or hdd-2011 (the block layer: CFQ, ext4 allocation, the hdd-2011 disk at server_disk_mbps)", nfs_server_dev_names },
	{ "nfs.server_disk_mbps", PT_DOUBLE, P(nfs.server_disk_mbps), 90, 0.1, 100000, "server disk sequential bandwidth, MiB/s" },
	{ "nfs.server_seek_ms", PT_DOUBLE, P(nfs.server_seek_ms), 10, 0, 1000, "server disk cost of switching files" },
	{ "nfs.server_jitter_pct", PT_DOUBLE, P(nfs.server_jitter_pct), 5, 0, 99, "+- random variation of each server disk request (as disk.jitter_pct)" },
	{ "nfs.server_sync_ms", PT_DOUBLE, P(nfs.server_sync_ms), 45, 0, 10000, "journal commit + cache flush ending a COMMIT or FILE_SYNC WRITE (fsync on a 7200 rpm disk)" },
	{ "nfs.server_wcache_mb", PT_DOUBLE, P(nfs.server_wcache_mb), 0, 0, 4096, "nfs.server_dev=fifo: the disk's write-back cache (MB; 2011 SATA drives had 16-64). Sequential writers' data lands at the 250 MiB/s link rate while it has room and drains at server_disk_mbps; a journal commit's cache flush waits for it inside the fsync's i_mutex (docs/nfs-model.md, fifth pass); 0 = write-through" },
	{ "nfs.server_fsync_locks", PT_U64, P(nfs.server_fsync_locks), 1, 0, 2, "file i_mutex during syncs: 2 whole COMMIT (2.6.3x nfsd_sync), 1 journal commit only, 0 none" },
	{ "nfs.server_sockbuf_kb", PT_U64, P(nfs.server_sockbuf_kb), 3072, 64, 1048576, "server TCP receive buffer: nfsd sets 3 x max payload" },
	{ "nfs.client_sndbuf_kb", PT_U64, P(nfs.client_sndbuf_kb), 4096, 0, 1048576, "client TCP send buffer (tcp_wmem max): an RPC counts as transmitted once copied into it, so mountstats RTT includes its wait there; 0 = none" },
	{ "nfs.server_slice_ms", PT_DOUBLE, P(nfs.server_slice_ms), 100, 1, 10000, "server elevator time slice per file (CFQ slice_sync)" },
	{ "nfs.server_cpu_ms_per_mb", PT_DOUBLE, P(nfs.server_cpu_ms_per_mb), 0.7, 0, 1000, "nfsd CPU per MiB written" },
	{ "nfs.server_mem_mb", PT_U64, P(nfs.server_mem_mb), 8192, 64, 16777216, "server RAM" },
	{ "nfs.server_dirty_ratio", PT_U64, P(nfs.server_dirty_ratio), 20, 1, 100, "server vm.dirty_ratio" },
	{ "nfs.server_bg_ratio", PT_U64, P(nfs.server_bg_ratio), 10, 0, 100, "server vm.dirty_background_ratio" },
	{ "writer.pattern", PT_NAME, P(writer.pattern), 0, 0, 0, "what each writer does: seq (dd: appends BS-sized write()s to its file) or rand (fio --rw=randwrite: BS-sized write()s at random page offsets of a preallocated file of writer.file_mb; nfs cases under current, bs 4k, nfs.server_dev=fifo)", writer_pattern_names },
	{ "writer.file_mb", PT_U64, P(writer.file_mb), 65536, 1, 16777216, "writer.pattern=rand: size of each writer's file, MiB" },
};

_Static_assert(ARRAY_SIZE(descs) <= 128, "set_mask holds 128 rows");

static void store(struct sim_params *p, const struct param_desc *d, double v)
{
	char *base = (char *)p + d->offset;
	if (d->type == PT_NAME)
		snprintf(base, DEV_NAME_LEN, "%s", d->names[(size_t)v]);
	else if (d->type == PT_U64)
		*(uint64_t *)base = (uint64_t)v;
	else
		*(double *)base = v;
}

void params_defaults(struct sim_params *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < ARRAY_SIZE(descs); i++)
		store(p, &descs[i], descs[i].def);
}

static int row_of(const char *key, size_t kl)
{
	for (size_t i = 0; i < ARRAY_SIZE(descs); i++)
		if (strlen(descs[i].key) == kl && strncmp(descs[i].key, key, kl) == 0)
			return (int)i;
	return -1;
}

int params_is_set(const struct sim_params *p, const char *key)
{
	int i = row_of(key, strlen(key));
	return i >= 0 && (p->set_mask[i / 64] >> (i % 64) & 1);
}

static void mark_set(struct sim_params *p, size_t i)
{
	p->set_mask[i / 64] |= 1ULL << (i % 64);
}

/* dev.model=NAME: every dev.* number the user did not set takes the
 * preset's value (or the table default the preset leaves alone), so the
 * order of --set options does not matter */
static void apply_preset(struct sim_params *p, const struct dev_preset *pr)
{
	for (size_t i = 0; i < ARRAY_SIZE(descs); i++)
		if (strncmp(descs[i].key, "dev.", 4) == 0 && descs[i].type != PT_NAME &&
		    !params_is_set(p, descs[i].key))
			store(p, &descs[i], descs[i].def);
	for (const struct dev_preset_kv *kv = pr->kv; kv->key; kv++) {
		int i = row_of(kv->key, strlen(kv->key));
		if (i >= 0 && !params_is_set(p, kv->key))
			store(p, &descs[i], kv->value);
	}
}

static int set_name(struct sim_params *p, size_t row, const char *val, char *err, size_t errlen)
{
	const struct param_desc *d = &descs[row];
	for (size_t n = 0; d->names[n]; n++)
		if (strcmp(d->names[n], val) == 0) {
			store(p, d, (double)n);
			mark_set(p, row);
			if (strcmp(d->key, "dev.model") == 0) {
				const struct dev_preset *pr = dev_preset_find(val);
				if (pr)
					apply_preset(p, pr);
			}
			return 0;
		}
	snprintf(err, errlen, "--set %s: unknown name '%s' (one of:", d->key, val);
	for (size_t n = 0; d->names[n]; n++)
		snprintf(err + strlen(err), errlen - strlen(err), " %s", d->names[n]);
	snprintf(err + strlen(err), errlen - strlen(err), ")");
	return -1;
}

/* "10..10000", or with a type hint for a bad value. */
static void range_text(const struct param_desc *d, char *buf, size_t n)
{
	snprintf(buf, n, "%s%.10g..%.10g", d->type == PT_U64 ? "an integer in " : "", d->min, d->max);
}

/* A --set number is written in decimal: [+-]DIGITS[.DIGITS][e[+-]DIGITS]
 * (".5" and "5." too).  strtod also reads hex ("0x3e8"), "inf" and "nan";
 * none of them is a way anyone writes a physical quantity, and a sweep
 * tells values apart by what they parse to, so one spelling per number
 * family keeps that simple. */
static int is_decimal(const char *s)
{
	size_t digits = 0;
	s += *s == '+' || *s == '-';
	for (; *s >= '0' && *s <= '9'; s++)
		digits++;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			digits++;
	if (!digits)
		return 0;
	if (*s == 'e' || *s == 'E') {
		s++;
		s += *s == '+' || *s == '-';
		if (!(*s >= '0' && *s <= '9'))
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return !*s;
}

/* a name's index in its list for PT_NAME */
double params_get(const struct sim_params *p, const struct param_desc *d)
{
	const char *base = (const char *)p + d->offset;
	if (d->type == PT_NAME) {
		for (size_t n = 0; d->names[n]; n++)
			if (strcmp(d->names[n], base) == 0)
				return (double)n;
		return -1;
	}
	return d->type == PT_U64 ? (double)*(const uint64_t *)base : *(const double *)base;
}

int params_set(struct sim_params *p, const char *a, char *err, size_t errlen)
{
	const char *eq = strchr(a, '=');
	if (!eq) {
		snprintf(err, errlen, "--set '%s': expected KEY=VALUE", a);
		return -1;
	}
	size_t kl = (size_t)(eq - a);
	for (size_t i = 0; i < ARRAY_SIZE(descs); i++) {
		const struct param_desc *d = &descs[i];
		if (strlen(d->key) != kl || strncmp(d->key, a, kl) != 0)
			continue;
		if (d->type == PT_NAME)
			return set_name(p, i, eq + 1, err, errlen);
		double v;
		uint64_t u;
		char range[64];
		range_text(d, range, sizeof(range));
		/* a well-formed number outside the range says so, not "bad value";
		 * an integer key takes any decimal number whose value is whole
		 * (1e3, 1000.0: 1000) */
		int bad = !is_decimal(eq + 1);
		if (!bad && d->type == PT_U64 && !parse_u64(eq + 1, &u))
			v = u > (1ULL << 53) ? 1e300 : (double)u;
		else if (!bad)
			bad = parse_double(eq + 1, &v) || (d->type == PT_U64 && v != floor(v));
		if (bad) {
			snprintf(err, errlen, "--set %s: bad value '%.40s' (want %s)", d->key, eq + 1, range);
			return -1;
		}
		if (!(v >= d->min && v <= d->max)) {
			snprintf(err, errlen, "--set %s: value '%.40s' out of range %.10g..%.10g", d->key, eq + 1,
				 d->min, d->max);
			return -1;
		}
		store(p, d, v);
		mark_set(p, i);
		/* the disk.* keys describe the FIFO model: setting one without a
		 * dev.model selects it, as before the block layer existed */
		if (strncmp(d->key, "disk.", 5) == 0 && !params_is_set(p, "dev.model"))
			snprintf(p->dev.model, sizeof(p->dev.model), "fifo");
		return 0;
	}
	snprintf(err, errlen, "--set: unknown parameter '%.*s' (see 'wblab sim --help')", (int)kl, a);
	return -1;
}

int params_parse_value(const char *assignment, double *v, char *err, size_t errlen)
{
	struct sim_params p;
	const char *eq = strchr(assignment, '=');
	params_defaults(&p);
	if (params_set(&p, assignment, err, errlen))
		return -1;
	*v = params_get(&p, &descs[row_of(assignment, (size_t)(eq - assignment))]);
	return 0;
}

int params_check(const struct sim_params *p, char *err, size_t errlen)
{
	for (size_t i = 0; i < ARRAY_SIZE(descs); i++) {
		double v = params_get(p, &descs[i]);
		if (descs[i].type == PT_NAME) {
			if (v < 0) {
				snprintf(err, errlen, "parameter %s is not one of its names", descs[i].key);
				return -1;
			}
			continue;
		}
		if (!(v >= descs[i].min && v <= descs[i].max)) {
			snprintf(err, errlen, "parameter %s=%.10g out of range %.10g..%.10g", descs[i].key, v,
				 descs[i].min, descs[i].max);
			return -1;
		}
	}
	return 0;
}

size_t params_count(void)
{
	return ARRAY_SIZE(descs);
}

const struct param_desc *params_desc(size_t i)
{
	return i < ARRAY_SIZE(descs) ? &descs[i] : NULL;
}

void params_write(const struct sim_params *p, FILE *f)
{
	for (size_t i = 0; i < ARRAY_SIZE(descs); i++) {
		const char *base = (const char *)p + descs[i].offset;
		if (descs[i].type == PT_NAME)
			fprintf(f, "%s = %s\n", descs[i].key, base);
		else if (descs[i].type == PT_U64)
			fprintf(f, "%s = %llu\n", descs[i].key, (unsigned long long)*(const uint64_t *)base);
		else
			fprintf(f, "%s = %.6g\n", descs[i].key, *(const double *)base);
	}
}

void params_list(FILE *f)
{
	for (size_t i = 0; i < ARRAY_SIZE(descs); i++) {
		const struct param_desc *d = &descs[i];
		char range[40];
		if (d->type == PT_NAME) {
			fprintf(f, "  %-28s %-8s  %-14s %s\n", d->key, d->names[(size_t)d->def],
				"(a name)", d->doc);
			continue;
		}
		snprintf(range, sizeof(range), "%.10g..%.10g", d->min, d->max);
		fprintf(f, "  %-28s %-8g  %-14s %s\n", d->key, d->def, range, d->doc);
	}
}
