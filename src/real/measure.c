#include <stdio.h>
#include <string.h>
#include "measure.h"
#include "fileio.h"
#include "writers.h"

static uint64_t vmstat_field(const char *buf, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = buf; (p = strstr(p, name)); p += n)
		if ((p == buf || p[-1] == '\n') && p[n] == ' ') {
			unsigned long long v = 0;
			sscanf(p + n, "%llu", &v);
			return v;
		}
	return 0;
}

void counters_read(struct counters *c, const struct loopdev *l)
{
	static char buf[1 << 16];
	memset(c, 0, sizeof(*c));
	c->t = mono_now();
	if (file_read("/proc/vmstat", buf, sizeof(buf)) == 0) {
		c->nr_written = vmstat_field(buf, "nr_written");
		c->nr_dirtied = vmstat_field(buf, "nr_dirtied");
	}
	loop_write_stat(l, &c->dev_sectors, &c->dev_ios, &c->dev_busy_ms);
}

void measure_diff(struct measure *m, const struct counters *a, const struct counters *b)
{
	m->seconds = b->t - a->t;
	m->vm_written_mb = (double)(b->nr_written - a->nr_written) / 256.0;
	m->vm_dirtied_mb = (double)(b->nr_dirtied - a->nr_dirtied) / 256.0;
	m->dev_written_mb = (double)(b->dev_sectors - a->dev_sectors) / 2048.0;
	m->dev_ios = (double)(b->dev_ios - a->dev_ios);
	m->dev_busy_s = (double)(b->dev_busy_ms - a->dev_busy_ms) / 1000.0;
}
