/* The named devices.  Values are data-sheet figures of the class of device,
 * the same for every case; docs/storage-model.md gives the sources. */
#include <string.h>
#include "dev_presets.h"

static const struct dev_preset presets[] = {
	{ "hdd-2011", DEV_HDD, "7200 rpm SATA disk of 2011 (500 GB, 32 MiB cache, NCQ 31, SATA II)",
	  { { "dev.bw_mbps", 57 }, { "dev.capacity_gb", 500 }, { "dev.rpm", 7200 },
	    { "dev.track_ms", 1.0 }, { "dev.full_stroke_ms", 16 }, { "dev.cache_mb", 32 },
	    { "dev.link_mbps", 280 }, { "dev.queue_depth", 31 }, { "dev.max_sectors_kb", 512 },
	    { NULL, 0 } } },
	{ "ssd", DEV_SSD, "SATA flash disk (250 MiB/s writes, 60 us, 4 units, NCQ 31)",
	  { { "dev.bw_mbps", 250 }, { "dev.latency_us", 60 }, { "dev.parallel", 4 },
	    { "dev.queue_depth", 31 }, { "dev.max_sectors_kb", 512 }, { NULL, 0 } } },
	{ "nvme", DEV_SSD, "NVMe flash disk (2000 MiB/s writes, 20 us, 16 units, 1023 tags)",
	  { { "dev.bw_mbps", 2000 }, { "dev.latency_us", 20 }, { "dev.parallel", 16 },
	    { "dev.queue_depth", 1023 }, { "dev.max_sectors_kb", 512 }, { NULL, 0 } } },
	{ "loop", DEV_LOOP, "loop device on a host file: shared host bandwidth, 128 tags",
	  { { "dev.bw_mbps", 1000 }, { "dev.latency_us", 100 }, { "dev.queue_depth", 128 },
	    { "dev.max_sectors_kb", 512 }, { NULL, 0 } } },
	{ "fifo", DEV_FIFO, "the original single FIFO server (disk.* keys; src/dev/blkdev.c)",
	  { { NULL, 0 } } },
};

const char *const dev_model_names[] = { "hdd-2011", "ssd", "nvme", "loop", "fifo", NULL };
const char *const dev_elevator_names[] = { "auto", "noop", "none", "deadline", "mq-deadline", "cfq", NULL };

const struct dev_preset *dev_preset_find(const char *name)
{
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (strcmp(presets[i].name, name) == 0)
			return &presets[i];
	return NULL;
}

int dev_kind_uses(enum dev_kind kind, const char *key)
{
	/* the request queue's (blk_core.c, blk_bdi.c, blk_ioend.c) and each
	 * device model's own (dev_hdd.c, dev_ssd.c, dev_loop.c) */
	static const char *const queue[] = { "dev.elevator", "dev.ioend", "dev.nr_requests",
					     "dev.max_sectors_kb", "dev.throttle_mbps",
					     "dev.throttle_slice_ms",
					     "dev.capacity_gb",   /* also the allocator's disk size */
					     NULL };
	static const char *const hdd[] = { "dev.bw_mbps", "dev.rpm",
					   "dev.track_ms", "dev.full_stroke_ms", "dev.cache_mb",
					   "dev.link_mbps", "dev.queue_depth", NULL };
	static const char *const ssd[] = { "dev.bw_mbps", "dev.latency_us", "dev.parallel",
					   "dev.queue_depth", NULL };
	static const char *const loop[] = { "dev.bw_mbps", "dev.latency_us", "dev.queue_depth",
					    "dev.stall_every_s", "dev.stall_ms", NULL };
	if (kind == DEV_FIFO)
		return 0;
	for (const char *const *k = queue; *k; k++)
		if (!strcmp(*k, key))
			return 1;
	const char *const *own = kind == DEV_HDD ? hdd : kind == DEV_SSD ? ssd : loop;
	for (const char *const *k = own; *k; k++)
		if (!strcmp(*k, key))
			return 1;
	return 0;
}
