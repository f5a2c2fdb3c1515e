#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bdi.h"
#include "fileio.h"
#include "../util/util.h"

/* Kernel defaults.  The ratios are restored through their *_fine form (parts
 * per million since 6.2) so the exact old value comes back; min/max_bytes are
 * another view of the same ratio and are not written separately.  The
 * kernel refuses a min above the max in force and a max below the min in
 * force, so the order is chosen per device (knob_order). */
static const struct { const char *name, *dflt, *fallback; } knobs[] = {
	{ "max_ratio_fine", "1000000", "max_ratio" },
	{ "min_ratio_fine", "0", "min_ratio" },
	{ "strict_limit", "0", NULL },
	/* set at attach from the backing device's io_opt, so no fixed default:
	 * changed only when asked (reads play no part in these cases) */
	{ "read_ahead_kb", NULL, NULL },
};

static const char *const names[] = { "max_ratio_fine", "min_ratio_fine", "strict_limit",
				     "read_ahead_kb", "max_ratio", "min_ratio", NULL };

static int majmin_ok(const char *s)
{
	unsigned a, b;
	char end;
	return sscanf(s, "%u:%u%c", &a, &b, &end) == 2 && strspn(s, "0123456789:") == strlen(s);
}

static int digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s) && strlen(s) < 20;
}

static int knob_known(const char *k)
{
	for (int i = 0; names[i]; i++)
		if (strcmp(names[i], k) == 0)
			return 1;
	return 0;
}

static const char *wanted(const struct bdi_request *r, const char *name, const char *dflt);

int bdi_request_add(struct bdi_request *r, const char *kv, char *err, size_t errlen)
{
	const char *eq = strchr(kv, '=');
	char name[32];
	if (!eq || (size_t)(eq - kv) >= sizeof(name) || !digits(eq + 1)) {
		snprintf(err, errlen, "--set bdi.%s: expected bdi.KNOB=NUMBER", kv);
		return -1;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(eq - kv), kv);
	/* the ratio forms map onto the *_fine knobs wblab restores */
	const char *canon = NULL;
	char val[32];
	snprintf(val, sizeof(val), "%s", eq + 1);
	if (strcmp(name, "max_ratio") == 0 || strcmp(name, "min_ratio") == 0) {
		unsigned long long v = strtoull(val, NULL, 10);
		if (v > 100) {
			snprintf(err, errlen, "--set bdi.%s=%s: a ratio is 0..100", name, val);
			return -1;
		}
		snprintf(val, sizeof(val), "%llu", v * 10000);
		canon = name[1] == 'a' ? "max_ratio_fine" : "min_ratio_fine";
	}
	for (size_t i = 0; !canon && i < ARRAY_SIZE(knobs); i++)
		if (strcmp(knobs[i].name, name) == 0)
			canon = knobs[i].name;
	if (!canon) {
		snprintf(err, errlen, "--set bdi.%s: unknown bdi knob (strict_limit, min_ratio, "
			 "max_ratio, min_ratio_fine, max_ratio_fine, read_ahead_kb)", name);
		return -1;
	}
	/* the kernel's own ranges, checked here so that a bad value is a usage
	 * error before anything changes, not a failed write after mkfs */
	unsigned long long v = strtoull(val, NULL, 10);
	/* read_ahead_kb has no kernel cap; 1 GiB is past any device's */
	/* and the kernel keeps the sum of all bdis' min ratios below 100 %, so
	 * a min of 100 % alone is refused here (the sum with the other bdis' is
	 * bdi_min_ratio_fits', before anything changes) */
	int is_min = !strcmp(canon, "min_ratio_fine");
	if ((!strcmp(canon, "strict_limit") && v > 1) || (strstr(canon, "_fine") && v > 1000000) ||
	    (is_min && v >= 1000000) || (!strcmp(canon, "read_ahead_kb") && v > 1048576)) {
		snprintf(err, errlen, "--set bdi.%s=%s: out of range (%s)", name, eq + 1,
			 !strcmp(canon, "strict_limit")    ? "0 or 1"
			 : !strcmp(canon, "read_ahead_kb") ? "0..1048576 KiB"
			 : is_min ? "below 100 %: 0..99 percent, 0..999999 parts per million"
				  : "0..1000000, parts per million");
		return -1;
	}
	/* a knob given again (or under its other spelling, max_ratio and
	 * max_ratio_fine) replaces the earlier value: the last --set wins, and
	 * params holds each knob once */
	int at = 0;
	while (at < r->n && strcmp(r->k[at].name, canon))
		at++;
	if (at == BDI_MAX_KNOBS) {
		snprintf(err, errlen, "too many --set bdi.* options");
		return -1;
	}
	r->k[at].name = canon;
	snprintf(r->k[at].value, sizeof(r->k[0].value), "%s", val);
	if (at == r->n)
		r->n++;
	const char *mn = wanted(r, "min_ratio_fine", "0"), *mx = wanted(r, "max_ratio_fine", "1000000");
	if (strtoull(mn, NULL, 10) > strtoull(mx, NULL, 10)) {
		snprintf(err, errlen, "--set bdi.%s: min_ratio above max_ratio (%s > %s parts per million)",
			 name, mn, mx);
		return -1;
	}
	return 0;
}

static const char *wanted(const struct bdi_request *r, const char *name, const char *dflt)
{
	const char *v = dflt;
	for (int i = 0; r && i < r->n; i++)
		if (strcmp(r->k[i].name, name) == 0)
			v = r->k[i].value;
	return v;
}

/* the ratio-fine value in the old units of a kernel before 6.2 */
static void to_knob_units(const char *knob, const char *fine, char *out, size_t n)
{
	if (strstr(knob, "ratio") && !strstr(knob, "fine"))
		snprintf(out, n, "%llu", strtoull(fine, NULL, 10) / 10000);
	else
		snprintf(out, n, "%s", fine);
}

/* A ratio knob in parts per million, from its _fine form or the percent
 * form of a kernel before 6.2; -1 when the device has neither. */
static long long ratio_ppm(const char *majmin, const char *fine)
{
	char v[64];
	if (file_readf(v, sizeof(v), "/sys/class/bdi/%s/%s", majmin, fine) == 0 && digits(v))
		return strtoll(v, NULL, 10);
	if (file_readf(v, sizeof(v), "/sys/class/bdi/%s/%.9s", majmin, fine) == 0 && digits(v))
		return strtoll(v, NULL, 10) * 10000;  /* "max_ratio" / "min_ratio" */
	return -1;
}

/* Indexes of knobs[] in the order to set them: max first when the new max
 * is not below the min in force, else min first (then the new min is at most
 * the max in force, as new min <= new max < old min <= old max).  Either way
 * every step keeps min <= max, and so does the undo, which replays the
 * journal backwards. */
static void knob_order(const char *majmin, const struct bdi_request *r, size_t order[4])
{
	long long cur_min = ratio_ppm(majmin, "min_ratio_fine");
	long long want_max = strtoll(wanted(r, "max_ratio_fine", "1000000"), NULL, 10);
	int min_first = cur_min > want_max;
	for (size_t i = 0; i < ARRAY_SIZE(knobs); i++)
		order[i] = i < 2 && min_first ? 1 - i : i;
}

int bdi_min_ratio_fits(const char *majmin, const struct bdi_request *r, char *err,
		       size_t errlen)
{
	long long want = strtoll(wanted(r, "min_ratio_fine", "0"), NULL, 10), sum = 0;
	char held[160] = "";
	if (want <= 0)
		return 0;
	DIR *d = opendir("/sys/class/bdi");
	for (struct dirent *de; d && (de = readdir(d));) {
		/* every bdi counts, also those not named MAJ:MIN (btrfs-1, ceph-...) */
		if (de->d_name[0] == '.' || (majmin && !strcmp(de->d_name, majmin)))
			continue;
		long long v = ratio_ppm(de->d_name, "min_ratio_fine");
		if (v <= 0)
			continue;
		sum += v;
		size_t n = strlen(held);
		if (n < sizeof(held) - 40)
			snprintf(held + n, sizeof(held) - n, "%s%.20s %lld.%04lld %%", n ? ", " : "",
				 de->d_name, v / 10000, v % 10000);
		else if (strcmp(held + n - 5, ", ...") != 0)
			snprintf(held + n, sizeof(held) - n, ", ...");
	}
	if (d)
		closedir(d);
	if (sum + want < 1000000)
		return 0;
	snprintf(err, errlen, "--set bdi.min_ratio: other bdis already hold %lld.%04lld %% (%s), and "
		 "the kernel keeps the sum of all min ratios below 100 %%; nothing was changed",
		 sum / 10000, sum % 10000, held);
	return -1;
}

int bdi_reset(struct journal *j, const char *majmin, const struct bdi_request *r, char *err,
	      size_t errlen)
{
	if (!majmin_ok(majmin)) {
		snprintf(err, errlen, "bad bdi name '%s'", majmin);
		return -1;
	}
	size_t order[ARRAY_SIZE(knobs)];
	knob_order(majmin, r, order);
	for (size_t o = 0; o < ARRAY_SIZE(knobs); o++) {
		size_t i = order[o];
		const char *knob = knobs[i].name;
		char path[256], old[64], val[32];
		snprintf(path, sizeof(path), "/sys/class/bdi/%s/%s", majmin, knob);
		if (file_read(path, old, sizeof(old))) {
			if (!knobs[i].fallback)
				continue;  /* this kernel has no such knob */
			knob = knobs[i].fallback;
			snprintf(path, sizeof(path), "/sys/class/bdi/%s/%s", majmin, knob);
			if (file_read(path, old, sizeof(old)))
				continue;
		}
		const char *want = wanted(r, knobs[i].name, knobs[i].dflt);
		if (!want)
			continue;
		to_knob_units(knob, want, val, sizeof(val));
		if (strcmp(old, val) == 0)
			continue;  /* already so: nothing to change or restore */
		if (!digits(old) || journal_add(j, "bdi", majmin, knob, old, NULL)) {
			snprintf(err, errlen, "cannot journal %s (value '%s'): %s", path, old,
				 strerror(errno));
			return -1;
		}
		if (file_write(path, val)) {
			snprintf(err, errlen, "cannot set %s = %s: %s", path, val, strerror(errno));
			return -1;
		}
	}
	return 0;
}

int bdi_undo(const struct jentry *e)
{
	if (e->nargs != 3 || !majmin_ok(e->args[0]) || !knob_known(e->args[1]) ||
	    !digits(e->args[2])) {
		wb_error("journal bdi entry '%s %s' names no knob wblab sets", e->args[0],
			 e->args[1]);
		return -1;
	}
	char path[2200], cur[64];
	snprintf(path, sizeof(path), "/sys/class/bdi/%s/%s", e->args[0], e->args[1]);
	if (file_read(path, cur, sizeof(cur)) == 0 && strcmp(cur, e->args[2]) == 0)
		return 0;
	if (file_write(path, e->args[2])) {
		if (errno == ENOENT)
			return 0;  /* the device is gone, and its knobs with it */
		wb_error("cannot restore %s = %s: %s", path, e->args[2], strerror(errno));
		return -1;
	}
	return 0;
}
