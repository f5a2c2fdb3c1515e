#include <math.h>
#include <string.h>
#include "params.h"
#include "../util/util.h"

#define P(field) offsetof(struct sim_params, field)

/* Defaults describe a 2011 SATA box and, for NFS, a gigabit link to a
 * one-spindle server; docs/model.md and docs/nfs-model.md give the reasons. */
static const struct param_desc descs[] = {
	{ "hz", PT_U64, P(hz), 1000, 10, 10000, "kernel tick rate (jiffies per second)" },
	{ "cpu_page_ns", PT_DOUBLE, P(cpu_page_ns), 2500, 1, 1e7, "CPU time to copy one 4 KiB page in write()" },
	{ "syscall_ns", PT_DOUBLE, P(syscall_ns), 800, 0, 1e7, "fixed CPU time of one write() call" },
	{ "writeback_page_ns", PT_DOUBLE, P(writeback_page_ns), 1000, 0, 1e7, "CPU to put one page under writeback (write_cache_pages, bio or NFS request setup)" },
	{ "writeback_inode_ns", PT_DOUBLE, P(writeback_inode_ns), 2000, 1, 1e7, "CPU of one inode visit in writeback_sb_inodes (locks, list moves)" },
	{ "batch_max_us", PT_DOUBLE, P(batch_max_us), 1000, 0.1, 1e6, "longest writer CPU burst between model checks" },
	{ "wakeup_ns", PT_DOUBLE, P(wakeup_ns), 5000, 0, 1e8, "from wake_up to the woken thread running: IPI + context switch on a 2011 Xeon" },
	{ "dirty_writeback_centisecs", PT_U64, P(dirty_writeback_centisecs), 500, 0, 360000, "vm.dirty_writeback_centisecs" },
	{ "dirty_expire_centisecs", PT_U64, P(dirty_expire_centisecs), 3000, 0, 360000, "vm.dirty_expire_centisecs" },
	{ "dirtyable_pct", PT_DOUBLE, P(dirtyable_pct), 92, 1, 100, "free + page cache share of MemTotal (dirtyable memory)" },
	{ "vmstat_drift", PT_U64, P(vmstat_drift), 1, 0, 1, "1: model per-CPU vmstat counter drift; 0: exact counters" },
	{ "bdi_min_ratio", PT_U64, P(bdi_min_ratio), 0, 0, 100, "/sys/class/bdi/*/min_ratio" },
	{ "bdi_max_ratio", PT_U64, P(bdi_max_ratio), 100, 1, 100, "/sys/class/bdi/*/max_ratio" },
	{ "bdi_strict_limit", PT_U64, P(bdi_strict_limit), 0, 0, 1, "/sys/class/bdi/*/strict_limit (current model only)" },
	{ "warm_proportions", PT_U64, P(warm_proportions), 1, 0, 1, "1: bdi writeout fraction starts at steady state" },
	{ "debug_checks", PT_U64, P(debug_checks), 0, 0, 1, "1: check invariants after every event (tests)" },
	{ "stack_kb", PT_U64, P(stack_kb), 256, 64, 16384, "stack of each simulated kernel thread" },
	{ "disk.bw_mbps", PT_DOUBLE, P(disk.bw_mbps), 57, 0.1, 100000, "disk sequential write bandwidth, MiB/s" },
	{ "disk.seek_ms", PT_DOUBLE, P(disk.seek_ms), 4, 0, 1000, "disk cost of switching files: short seek + half a turn at 7200 rpm" },
	{ "disk.jitter_pct", PT_DOUBLE, P(disk.jitter_pct), 5, 0, 99, "+- random variation of each request's service time" },
	{ "disk.nr_requests", PT_U64, P(disk.nr_requests), 128, 2, 65536, "block queue nr_requests" },
	{ "disk.max_request_kb", PT_U64, P(disk.max_request_kb), 512, 4, 65536, "largest block request (max_sectors_kb)" },
	{ "nfs.net_mbps", PT_DOUBLE, P(nfs.net_mbps), 117, 0.1, 100000, "gigabit payload bandwidth, 10^6 B/s" },
	{ "nfs.net_latency_ms", PT_DOUBLE, P(nfs.net_latency_ms), 0.1, 0, 1000, "one-way network latency" },
	{ "nfs.wsize_kb", PT_U64, P(nfs.wsize_kb), 1024, 4, 1024, "negotiated NFS wsize" },
	{ "nfs.min_slots", PT_U64, P(nfs.min_slots), 2, 1, 65536, "RPC slots kept preallocated (tcp_slot_table_entries, 2 since 3.1)" },
	{ "nfs.max_slots", PT_U64, P(nfs.max_slots), 128, 1, 65536, "RPC slot table limit (tcp_max_slot_table_entries)" },
	{ "nfs.nfsd_threads", PT_U64, P(nfs.nfsd_threads), 8, 1, 1024, "server nfsd threads" },
	{ "nfs.server_disk_mbps", PT_DOUBLE, P(nfs.server_disk_mbps), 90, 0.1, 100000, "server disk sequential bandwidth, MiB/s" },
	{ "nfs.server_seek_ms", PT_DOUBLE, P(nfs.server_seek_ms), 10, 0, 1000, "server disk cost of switching files" },
	{ "nfs.server_jitter_pct", PT_DOUBLE, P(nfs.server_jitter_pct), 5, 0, 99, "+- random variation of each server disk request (as disk.jitter_pct)" },
	{ "nfs.server_sync_ms", PT_DOUBLE, P(nfs.server_sync_ms), 45, 0, 10000, "journal commit + cache flush ending a COMMIT or FILE_SYNC WRITE (fsync on a 7200 rpm disk)" },
	{ "nfs.server_fsync_locks", PT_U64, P(nfs.server_fsync_locks), 1, 0, 2, "file i_mutex during syncs: 2 whole COMMIT (2.6.3x nfsd_sync), 1 journal commit only, 0 none" },
	{ "nfs.server_sockbuf_kb", PT_U64, P(nfs.server_sockbuf_kb), 3072, 64, 1048576, "server TCP receive buffer: nfsd sets 3 x max payload" },
	{ "nfs.server_slice_ms", PT_DOUBLE, P(nfs.server_slice_ms), 100, 1, 10000, "server elevator time slice per file (CFQ slice_sync)" },
	{ "nfs.server_cpu_ms_per_mb", PT_DOUBLE, P(nfs.server_cpu_ms_per_mb), 0.7, 0, 1000, "nfsd CPU per MiB written" },
	{ "nfs.server_mem_mb", PT_U64, P(nfs.server_mem_mb), 8192, 64, 16777216, "server RAM" },
	{ "nfs.server_dirty_ratio", PT_U64, P(nfs.server_dirty_ratio), 20, 1, 100, "server vm.dirty_ratio" },
	{ "nfs.server_bg_ratio", PT_U64, P(nfs.server_bg_ratio), 10, 0, 100, "server vm.dirty_background_ratio" },
};

static void store(struct sim_params *p, const struct param_desc *d, double v)
{
	char *base = (char *)p + d->offset;
	if (d->type == PT_U64)
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

/* "10..10000", or with a type hint for a bad value. */
static void range_text(const struct param_desc *d, char *buf, size_t n)
{
	snprintf(buf, n, "%s%.10g..%.10g", d->type == PT_U64 ? "an integer in " : "", d->min, d->max);
}

double params_get(const struct sim_params *p, const struct param_desc *d)
{
	const char *base = (const char *)p + d->offset;
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
		double v;
		uint64_t u;
		char range[64];
		range_text(d, range, sizeof(range));
		/* a well-formed number outside the range says so, not "bad value" */
		int bad = d->type == PT_U64 ? parse_u64(eq + 1, &u) : parse_double(eq + 1, &v);
		if (d->type == PT_U64 && !bad)
			v = u > (1ULL << 53) ? 1e300 : (double)u;
		if (bad && !parse_double(eq + 1, &v) && d->type == PT_U64 && v == floor(v))
			bad = 0;
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
		return 0;
	}
	snprintf(err, errlen, "--set: unknown parameter '%.*s' (see 'wblab sim --help')", (int)kl, a);
	return -1;
}

int params_check(const struct sim_params *p, char *err, size_t errlen)
{
	for (size_t i = 0; i < ARRAY_SIZE(descs); i++) {
		double v = params_get(p, &descs[i]);
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
		if (descs[i].type == PT_U64)
			fprintf(f, "%s = %llu\n", descs[i].key, (unsigned long long)*(const uint64_t *)base);
		else
			fprintf(f, "%s = %.6g\n", descs[i].key, *(const double *)base);
	}
}

void params_list(FILE *f)
{
	for (size_t i = 0; i < ARRAY_SIZE(descs); i++) {
		char range[40];
		snprintf(range, sizeof(range), "%.10g..%.10g", descs[i].min, descs[i].max);
		fprintf(f, "  %-28s %-8g %-14s %s\n", descs[i].key, descs[i].def, range, descs[i].doc);
	}
}
