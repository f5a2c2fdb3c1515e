#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "env.h"
#include "fileio.h"
#include "machine.h"
#include "mount.h"
#include "sysctl.h"

static void put_file(FILE *f, const char *key, const char *path)
{
	char buf[4096];
	if (file_read(path, buf, sizeof(buf)) == 0)
		fprintf(f, "%s = %s\n", key, buf);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every readable one-line knob of /sys/class/bdi/MAJ:MIN. */
static void put_bdi(FILE *f, const char *majmin)
{
	char dir[256], *names[64];
	int n = 0;
	snprintf(dir, sizeof(dir), "/sys/class/bdi/%s", majmin);
	DIR *d = opendir(dir);
	for (struct dirent *de; d && (de = readdir(d)) && n < 64;)
		if (de->d_type == DT_REG && strcmp(de->d_name, "uevent") != 0)
			names[n++] = strdup(de->d_name);
	if (d)
		closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), cmp_name);
	for (int i = 0; i < n; i++) {
		char path[512], key[128];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		snprintf(key, sizeof(key), "bdi.%s", names[i]);
		if (names[i])
			put_file(f, key, path);
		free(names[i]);
	}
}

int env_write(FILE *f, const struct env_info *e)
{
	struct utsname u;
	char buf[4096], tool[256];
	if (uname(&u) == 0)
		fprintf(f, "kernel = %s\nkernel_version = %s\nmachine = %s\n", u.release, u.version,
			u.machine);
	put_file(f, "proc_cmdline", "/proc/cmdline");
	/* what the kernel took (it refuses orders above MAX_PAGE_ORDER and keeps
	 * pageblock_order), for calibrate's host frame blocks */
	put_file(f, "page_reporting_order", "/sys/module/page_reporting/parameters/page_reporting_order");
	fprintf(f, "cpus = %d\nmem_total_mb = %llu\n", machine_cpus(),
		(unsigned long long)machine_mem_mb());
	sysctl_dump_dirty(f);
	fprintf(f, "fs = %s\n", e->fs);
	if (mkfs_tool(e->fs, tool, sizeof(tool)) == 0)
		fprintf(f, "mkfs = %s %s\n", tool, mkfs_options(e->fs));
	if (mount_options(e->mountpoint, buf, sizeof(buf)) == 0)
		fprintf(f, "mount_options = %s\n", buf);
	fprintf(f, "device = %s\nimage = %s\nbdi = %s\n", e->loop->dev, e->loop->image,
		e->loop->majmin);
	snprintf(buf, sizeof(buf), "/sys/block/%s/loop/dio", e->loop->name);
	put_file(f, "loop_direct_io", buf);
	snprintf(buf, sizeof(buf), "/sys/block/%s/queue/scheduler", e->loop->name);
	put_file(f, "io_scheduler", buf);
	put_bdi(f, e->loop->majmin);
	if (e->trace) {
		fprintf(f, "trace_buffer_kb = %u\ntrace_clock = mono\ntrace_events =", e->buffer_kb);
		for (int i = 0; i < e->trace->nevents; i++)
			fprintf(f, " writeback:%s", e->trace->events[i]);
		fputc('\n', f);
	} else {
		fprintf(f, "trace_events = none (--no-trace)\n");
	}
	return ferror(f) ? -1 : 0;
}
