#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "preflight.h"
#include "loopdev.h"
#include "machine.h"
#include "mount.h"
#include "tracefs.h"

int preflight_cases(struct run_opts *o, char *err, size_t errlen)
{
	for (int i = 0; i < o->ncases; i++)
		if (machine_match_case(&o->cases[i], err, errlen))
			return -1;
	return 0;
}

static int dev_in_use(const char *dev)
{
	char buf[65536];
	FILE *f = fopen("/proc/self/mounts", "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = 0;
	char key[4200];
	snprintf(key, sizeof(key), "%s ", dev);
	return strstr(buf, key) != NULL;
}

int preflight_machine(const struct run_opts *o, char *err, size_t errlen)
{
	if (geteuid() != 0) {
		snprintf(err, errlen, "'wblab run' must run as root: it sets vm.dirty_* sysctls, "
			 "attaches loop devices, mounts file systems and traces the kernel; "
			 "nothing was changed");
		return -1;
	}
	if (!o->no_trace && !real_tracefs_supported()) {
		snprintf(err, errlen, "this kernel has no tracefs (needed for the writeback "
			 "events; use --no-trace to run without); nothing was changed");
		return -1;
	}
	if (!o->dev && !loop_supported()) {
		snprintf(err, errlen, "no loop device support (/dev/loop-control; try "
			 "'modprobe loop', or --dev); nothing was changed");
		return -1;
	}
	for (int i = 0; i < o->ncases; i++) {
		char tool[256];
		if (mkfs_tool(o->cases[i].fs, tool, sizeof(tool))) {
			snprintf(err, errlen, "mkfs.%s is not installed (needed by case '%s'); "
				 "nothing was changed", o->cases[i].fs, o->cases[i].name);
			return -1;
		}
	}
	struct stat st;
	if (o->dev && (stat(o->dev, &st) || !S_ISBLK(st.st_mode))) {
		snprintf(err, errlen, "--dev %s is not a block device", o->dev);
		return -1;
	}
	if (o->dev && dev_in_use(o->dev)) {
		snprintf(err, errlen, "--dev %s is mounted; refusing to destroy it", o->dev);
		return -1;
	}
	return 0;
}
