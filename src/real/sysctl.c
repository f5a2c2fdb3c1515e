#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sysctl.h"
#include "fileio.h"
#include "../util/util.h"

static void sysctl_path(const char *name, char *path, size_t n)
{
	int len = snprintf(path, n, "/proc/sys/%s", name);
	for (char *p = path + 10; len > 0 && *p; p++)
		if (*p == '.')
			*p = '/';
}

int sysctl_get(const char *name, char *buf, size_t n)
{
	char path[256];
	sysctl_path(name, path, sizeof(path));
	return file_read(path, buf, n);
}

static int sysctl_put(const char *name, const char *val)
{
	char path[256];
	sysctl_path(name, path, sizeof(path));
	return file_write(path, val);
}

int sysctl_set_knob(struct journal *j, const struct dirty_knob *k, int background,
		    char *err, size_t errlen)
{
	const char *ratio = background ? "vm.dirty_background_ratio" : "vm.dirty_ratio";
	const char *bytes = background ? "vm.dirty_background_bytes" : "vm.dirty_bytes";
	char old_r[64], old_b[64], val[32];
	if (sysctl_get(ratio, old_r, sizeof(old_r)) || sysctl_get(bytes, old_b, sizeof(old_b))) {
		snprintf(err, errlen, "cannot read %s: %s", ratio, strerror(errno));
		return -1;
	}
	const char *name = k->is_bytes ? bytes : ratio;
	char set[96];
	snprintf(val, sizeof(val), "%" PRIu64, k->value);
	snprintf(set, sizeof(set), "%s=%s", name, val);
	off_t mark = journal_mark(j);
	if (journal_add(j, "sysctl", ratio, old_r, bytes, old_b, set, NULL)) {
		snprintf(err, errlen, "cannot write the journal: %s", strerror(errno));
		return -1;
	}
	if (sysctl_put(name, val)) {
		snprintf(err, errlen, "cannot set %s = %s: %s", name, val, strerror(errno));
		/* nothing changed: an undo would only warn that someone else did */
		journal_forget_to(j, mark);
		return -1;
	}
	return 0;
}

/* The only sysctls a run changes, hence the only ones an undo may write. */
static int sysctl_ours(const char *name)
{
	static const char *const ours[] = { "vm.dirty_ratio", "vm.dirty_bytes",
					    "vm.dirty_background_ratio",
					    "vm.dirty_background_bytes" };
	for (size_t i = 0; i < ARRAY_SIZE(ours); i++)
		if (strcmp(name, ours[i]) == 0)
			return 1;
	return 0;
}

static int digits_only(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

/* 1 when the sysctl no longer holds the value the run set (NAME=VALUE, the
 * entry's fifth field): someone changed it since, and an undo would undo
 * their change, not ours.  -1 for a bad field. */
static int changed_since(const char *set)
{
	char name[64], cur[64];
	const char *eq = strchr(set, '=');
	if (!eq || (size_t)(eq - set) >= sizeof(name) || !digits_only(eq + 1))
		return -1;
	memcpy(name, set, (size_t)(eq - set));
	name[eq - set] = 0;
	if (!sysctl_ours(name))
		return -1;
	if (sysctl_get(name, cur, sizeof(cur)) || strcmp(cur, eq + 1) == 0)
		return 0;
	wb_error("warning: %s is %s, not the %s this run set: changed by someone else since, so "
		 "left as it is", name, cur, eq + 1);
	return 1;
}

int sysctl_undo(const struct jentry *e)
{
	/* four fields: a journal of an older wblab, without the value set */
	if (e->nargs != 4 && e->nargs != 5)
		return -1;
	for (int i = 0; i < 4; i += 2)
		if (!sysctl_ours(e->args[i]) || !digits_only(e->args[i + 1]))
			return -1;
	if (e->nargs == 5) {
		int c = changed_since(e->args[4]);
		if (c)
			return c < 0 ? -1 : 0;
	}
	/* a nonzero old value is the one that was in force */
	for (int i = 0; i < 4; i += 2) {
		if (strcmp(e->args[i + 1], "0") == 0)
			continue;
		char cur[64];
		if (sysctl_get(e->args[i], cur, sizeof(cur)) == 0 && strcmp(cur, e->args[i + 1]) == 0)
			return 0;
		if (sysctl_put(e->args[i], e->args[i + 1])) {
			wb_error("cannot restore %s = %s: %s", e->args[i], e->args[i + 1],
				 strerror(errno));
			return -1;
		}
		return 0;
	}
	/* both 0: the ratio was in force at 0 (legal with the bytes at 0).  A
	 * ratio write clears the bytes only when it changes the ratio, so one
	 * already at 0 goes through 1 */
	char cr[64] = "", cb[64] = "";
	if (sysctl_get(e->args[0], cr, sizeof(cr)) == 0 && sysctl_get(e->args[2], cb, sizeof(cb)) == 0 &&
	    strcmp(cr, "0") == 0 && strcmp(cb, "0") == 0)
		return 0;
	if ((strcmp(cr, "0") == 0 && sysctl_put(e->args[0], "1")) || sysctl_put(e->args[0], "0")) {
		wb_error("cannot restore %s = 0: %s", e->args[0], strerror(errno));
		return -1;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void sysctl_dump_dirty(void *file)
{
	FILE *f = file;
	DIR *d = opendir("/proc/sys/vm");
	char *names[64];
	int n = 0;
	for (struct dirent *de; d && (de = readdir(d)) && n < 64;)
		if (strncmp(de->d_name, "dirty", 5) == 0)
			names[n++] = strdup(de->d_name);
	if (d)
		closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), cmp_str);
	for (int i = 0; i < n; i++) {
		char full[128], val[64];
		snprintf(full, sizeof(full), "vm.%s", names[i]);
		if (names[i] && sysctl_get(full, val, sizeof(val)) == 0)
			fprintf(f, "%s = %s\n", full, val);
		free(names[i]);
	}
}
