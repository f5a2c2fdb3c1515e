#include <errno.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blkthrottle.h"
#include "fileio.h"
#include "../util/util.h"

/* The v1 blkio hierarchy's root, from /proc/self/mounts ("" when absent). */
static void blkio_root(char *buf, size_t n)
{
	buf[0] = 0;
	FILE *f = setmntent("/proc/self/mounts", "r");
	for (struct mntent *m; f && (m = getmntent(f));)
		if (strcmp(m->mnt_type, "cgroup") == 0 && hasmntopt(m, "blkio")) {
			snprintf(buf, n, "%s", m->mnt_dir);
			break;
		}
	if (f)
		endmntent(f);
}

static int rule_path(const char *file, char *buf, size_t n)
{
	char root[512];
	blkio_root(root, sizeof(root));
	if (!root[0])
		return -1;
	snprintf(buf, n, "%s/blkio.throttle.%s", root, file);
	return file_exists(buf) ? 0 : -1;
}

int blkthrottle_supported(void)
{
	char p[600];
	return rule_path("write_bps_device", p, sizeof(p)) == 0 &&
	       rule_path("write_iops_device", p, sizeof(p)) == 0;
}

/* The rule in force for majmin in FILE ("write_bps_device"), 0 if none. */
static uint64_t blkthrottle_get(const char *file, const char *majmin)
{
	char p[600], buf[8192];
	if (rule_path(file, p, sizeof(p)) || file_read(p, buf, sizeof(buf)))
		return 0;
	size_t ml = strlen(majmin);
	for (char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (strncmp(line, majmin, ml) == 0 && line[ml] == ' ')
			return strtoull(line + ml + 1, NULL, 10);
	return 0;
}

static int put_rule(const char *file, const char *majmin, uint64_t v)
{
	char p[600], rule[64];
	if (rule_path(file, p, sizeof(p)))
		return -1;
	snprintf(rule, sizeof(rule), "%s %llu", majmin, (unsigned long long)v);
	return file_write(p, rule);
}

static int set_one(struct journal *j, const char *file, const char *majmin, uint64_t v,
		   char *err, size_t errlen)
{
	uint64_t old = blkthrottle_get(file, majmin);
	char olds[32];
	if (old == v)
		return 0;
	snprintf(olds, sizeof(olds), "%llu", (unsigned long long)old);
	if (journal_add(j, "blkthrottle", file, majmin, olds, NULL)) {
		snprintf(err, errlen, "cannot write the journal: %s", strerror(errno));
		return -1;
	}
	if (put_rule(file, majmin, v)) {
		snprintf(err, errlen, "cannot set blkio.throttle.%s '%s %llu': %s", file, majmin,
			 (unsigned long long)v, strerror(errno));
		return -1;
	}
	return 0;
}

int blkthrottle_set(struct journal *j, const char *majmin, uint64_t bps, uint64_t iops,
		    char *err, size_t errlen)
{
	return set_one(j, "write_bps_device", majmin, bps, err, errlen) ||
	       set_one(j, "write_iops_device", majmin, iops, err, errlen) ? -1 : 0;
}

int blkthrottle_undo(const struct jentry *e)
{
	unsigned a, b;
	char end;
	if (e->nargs != 3 || (strcmp(e->args[0], "write_bps_device") != 0 &&
			      strcmp(e->args[0], "write_iops_device") != 0) ||
	    sscanf(e->args[1], "%u:%u%c", &a, &b, &end) != 2 ||
	    strspn(e->args[2], "0123456789") != strlen(e->args[2]) || !e->args[2][0])
		return -1;
	uint64_t old = strtoull(e->args[2], NULL, 10);
	if (blkthrottle_get(e->args[0], e->args[1]) == old)
		return 0;
	if (put_rule(e->args[0], e->args[1], old)) {
		wb_error("cannot restore blkio.throttle.%s for %s to %s: %s", e->args[0],
			 e->args[1], e->args[2], strerror(errno));
		return -1;
	}
	return 0;
}
