/* The row key of a result (compare's rows, report's overlays): one rule. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "result.h"

/* CASE = FS-JOB-BS-CPUS-MEM-THRESH:BG, split on '-' into exactly 6 tokens. */
static int split_case(char *name, char *tok[6])
{
	int n = 0;
	for (char *p = name, *save = NULL, *t; (t = strtok_r(p, "-", &save)); p = NULL) {
		if (n == 6)
			return -1;
		tok[n++] = t;
	}
	return n == 6 ? 0 : -1;
}

/* thresh=VALUE inside a group name, so "NFS-thresh=100M" and
 * "NFS-thresh=1G" line up when thresh is the compared field. */
static char *mask_group_thresh(const char *group)
{
	const char *p = strstr(group, "thresh=");
	char *out = NULL;
	if (!p)
		return strdup(group);
	const char *end = p + 7 + strcspn(p + 7, "-/");
	return asprintf(&out, "%.*sthresh=X%s", (int)(p - group), group, end) < 0 ? NULL : out;
}

/* A group part `FIELD=VALUE` (what `sim --set FIELD=V1,V2` sweeps add), so
 * the sweep's values line up when FIELD is the compared field. */
static char *mask_group_part(const char *group, const char *field)
{
	size_t fl = strlen(field);
	char *out = NULL;
	for (const char *p = group; *p; p += strcspn(p, "/"), p += *p == '/')
		if (strncmp(p, field, fl) == 0 && p[fl] == '=')
			return asprintf(&out, "%.*s=X%s", (int)(p - group) + (int)fl, group,
					p + fl + 1 + strcspn(p + fl + 1, "/")) < 0 ? NULL : out;
	return strdup(group);
}

char *result_row_key(const char *group, const char *case_name, const char *kernel,
		     const char *field, const char *path, char *err, size_t errlen)
{
	static const char *const tok_fields[] = { "fs", "job", "bs", "cpus", "mem", "thresh", "bg" };
	char *g = !strcmp(field, "group") ? strdup("X")
		  : !strcmp(field, "thresh") ? mask_group_thresh(group) : mask_group_part(group, field);
	char *name = strdup(case_name), *c = NULL, *key = NULL;
	int tf = -1;
	for (size_t i = 0; i < sizeof(tok_fields) / sizeof(tok_fields[0]); i++)
		if (!strcmp(field, tok_fields[i]))
			tf = (int)i;
	if (!g || !name)
		goto out;
	if (!strcmp(field, "case")) {
		c = strdup("X");
	} else if (tf < 0) {
		c = strdup(name);
	} else {
		char *tok[6];
		if (split_case(name, tok) || !strchr(tok[5], ':')) {
			snprintf(err, errlen, "%s: case '%.80s' is not FS-JOB-BS-CPUS-MEM-THRESH:BG, "
				 "cannot mask '%s'", path, case_name, field);
			goto out;
		}
		char *bg = strchr(tok[5], ':');
		*bg++ = 0;
		const char *t[7] = { tok[0], tok[1], tok[2], tok[3], tok[4], tok[5], bg };
		t[tf] = "X";
		if (asprintf(&c, "%s-%s-%s-%s-%s-%s:%s", t[0], t[1], t[2], t[3], t[4], t[5], t[6]) < 0)
			c = NULL;
	}
	if (c && asprintf(&key, "%s/%s-%s", g, c, !strcmp(field, "kernel") ? "X" : kernel) < 0)
		key = NULL;
	if (!key && !err[0])
		snprintf(err, errlen, "out of memory");
out:
	free(g);
	free(name);
	free(c);
	return key;
}
