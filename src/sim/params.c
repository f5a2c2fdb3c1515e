#include <string.h>
#include "params.h"
#include "../util/util.h"

#define P(field) offsetof(struct sim_params, field)

/* Defaults describe a 2011 SATA box and, for NFS, a gigabit link to a
 * one-spindle server; docs/model.md and docs/nfs-model.md give the reasons. */
static const struct param_desc descs[] = {
	{ "hz", PT_U64, P(hz), 1000, "kernel tick rate (jiffies per second)" },
	{ "cpu_page_ns", PT_DOUBLE, P(cpu_page_ns), 2500, "CPU time to copy one 4 KiB page in write()" },
	{ "syscall_ns", PT_DOUBLE, P(syscall_ns), 800, "fixed CPU time of one write() call" },
	{ "writeback_page_ns", PT_DOUBLE, P(writeback_page_ns), 1000, "CPU to put one page under writeback (write_cache_pages, bio or NFS request setup)" },
	{ "writeback_inode_ns", PT_DOUBLE, P(writeback_inode_ns), 2000, "CPU of one inode visit in writeback_sb_inodes (locks, list moves)" },
	{ "batch_max_us", PT_DOUBLE, P(batch_max_us), 1000, "longest writer CPU burst between model checks" },
	{ "wakeup_ns", PT_DOUBLE, P(wakeup_ns), 5000, "from wake_up to the woken thread running: IPI + context switch on a 2011 Xeon" },
	{ "dirty_writeback_centisecs", PT_U64, P(dirty_writeback_centisecs), 500, "vm.dirty_writeback_centisecs" },
	{ "dirty_expire_centisecs", PT_U64, P(dirty_expire_centisecs), 3000, "vm.dirty_expire_centisecs" },
	{ "dirtyable_pct", PT_DOUBLE, P(dirtyable_pct), 92, "free + page cache share of MemTotal (dirtyable memory)" },
	{ "vmstat_drift", PT_U64, P(vmstat_drift), 1, "1: model per-CPU vmstat counter drift; 0: exact counters" },
	{ "bdi_min_ratio", PT_U64, P(bdi_min_ratio), 0, "/sys/class/bdi/*/min_ratio" },
	{ "bdi_max_ratio", PT_U64, P(bdi_max_ratio), 100, "/sys/class/bdi/*/max_ratio" },
	{ "bdi_strict_limit", PT_U64, P(bdi_strict_limit), 0, "/sys/class/bdi/*/strict_limit (current model only)" },
	{ "warm_proportions", PT_U64, P(warm_proportions), 1, "1: bdi writeout fraction starts at steady state" },
	{ "debug_checks", PT_U64, P(debug_checks), 0, "1: check invariants after every event (tests)" },
	{ "stack_kb", PT_U64, P(stack_kb), 256, "stack of each simulated kernel thread" },
	{ "disk.bw_mbps", PT_DOUBLE, P(disk.bw_mbps), 57, "disk sequential write bandwidth, MiB/s" },
	{ "disk.seek_ms", PT_DOUBLE, P(disk.seek_ms), 4, "disk cost of switching files: short seek + half a turn at 7200 rpm" },
	{ "disk.jitter_pct", PT_DOUBLE, P(disk.jitter_pct), 5, "+- random variation of each request's service time" },
	{ "disk.nr_requests", PT_U64, P(disk.nr_requests), 128, "block queue nr_requests" },
	{ "disk.max_request_kb", PT_U64, P(disk.max_request_kb), 512, "largest block request (max_sectors_kb)" },
	{ "nfs.net_mbps", PT_DOUBLE, P(nfs.net_mbps), 117, "gigabit payload bandwidth, 10^6 B/s" },
	{ "nfs.net_latency_ms", PT_DOUBLE, P(nfs.net_latency_ms), 0.1, "one-way network latency" },
	{ "nfs.wsize_kb", PT_U64, P(nfs.wsize_kb), 1024, "negotiated NFS wsize" },
	{ "nfs.min_slots", PT_U64, P(nfs.min_slots), 2, "RPC slots kept preallocated (tcp_slot_table_entries, 2 since 3.1)" },
	{ "nfs.max_slots", PT_U64, P(nfs.max_slots), 128, "RPC slot table limit (tcp_max_slot_table_entries)" },
	{ "nfs.nfsd_threads", PT_U64, P(nfs.nfsd_threads), 8, "server nfsd threads" },
	{ "nfs.server_disk_mbps", PT_DOUBLE, P(nfs.server_disk_mbps), 90, "server disk sequential bandwidth, MiB/s" },
	{ "nfs.server_seek_ms", PT_DOUBLE, P(nfs.server_seek_ms), 10, "server disk cost of switching files" },
	{ "nfs.server_jitter_pct", PT_DOUBLE, P(nfs.server_jitter_pct), 5, "+- random variation of each server disk request (as disk.jitter_pct)" },
	{ "nfs.server_sync_ms", PT_DOUBLE, P(nfs.server_sync_ms), 45, "journal commit + cache flush ending a COMMIT or FILE_SYNC WRITE (fsync on a 7200 rpm disk)" },
	{ "nfs.server_fsync_locks", PT_U64, P(nfs.server_fsync_locks), 1, "file i_mutex during syncs: 2 whole COMMIT (2.6.3x nfsd_sync), 1 journal commit only, 0 none" },
	{ "nfs.server_sockbuf_kb", PT_U64, P(nfs.server_sockbuf_kb), 3072, "server TCP receive buffer: nfsd sets 3 x max payload" },
	{ "nfs.server_slice_ms", PT_DOUBLE, P(nfs.server_slice_ms), 100, "server elevator time slice per file (CFQ slice_sync)" },
	{ "nfs.server_cpu_ms_per_mb", PT_DOUBLE, P(nfs.server_cpu_ms_per_mb), 0.7, "nfsd CPU per MiB written" },
	{ "nfs.server_mem_mb", PT_U64, P(nfs.server_mem_mb), 8192, "server RAM" },
	{ "nfs.server_dirty_ratio", PT_U64, P(nfs.server_dirty_ratio), 20, "server vm.dirty_ratio" },
	{ "nfs.server_bg_ratio", PT_U64, P(nfs.server_bg_ratio), 10, "server vm.dirty_background_ratio" },
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
		if (d->type == PT_U64 ? parse_u64(eq + 1, &u) : parse_double(eq + 1, &v)) {
			snprintf(err, errlen, "--set %.*s: bad value '%s'", (int)kl, a, eq + 1);
			return -1;
		}
		if (d->type == PT_U64)
			v = (double)u;
		if (v < 0 || (d->type == PT_U64 && u > (1ULL << 52))) {
			snprintf(err, errlen, "--set %.*s: value '%s' out of range", (int)kl, a, eq + 1);
			return -1;
		}
		store(p, d, v);
		return 0;
	}
	snprintf(err, errlen, "--set: unknown parameter '%.*s' (see 'wblab sim --help')", (int)kl, a);
	return -1;
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
	for (size_t i = 0; i < ARRAY_SIZE(descs); i++)
		fprintf(f, "  %-28s %-8g %s\n", descs[i].key, descs[i].def, descs[i].doc);
}
