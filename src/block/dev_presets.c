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
