#include <stdio.h>
#include <string.h>
#include "case.h"
#include "util.h"

int case_fs_is_disk(const char *fs)
{
	static const char *const disk_fs[] = { "ext4", "ext3", "ext2", "xfs", "btrfs" };
	for (size_t i = 0; i < ARRAY_SIZE(disk_fs); i++)
		if (strcmp(fs, disk_fs[i]) == 0)
			return 1;
	return 0;
}

static int parse_knob(const char *s, struct dirty_knob *k)
{
	if (!*s || strlen(s) >= sizeof(k->text))
		return -1;
	snprintf(k->text, sizeof(k->text), "%s", s);
	size_t n = strlen(s);
	char last = s[n - 1];
	if (last >= '0' && last <= '9') {
		k->is_bytes = 0;
		return parse_u64(s, &k->value) || k->value > 100 ? -1 : 0;
	}
	k->is_bytes = 1;
	/* one spelling per size: 100m is the case 100M (a second name would be a
	 * second directory and a second compare column) */
	if (last == 'k' || last == 'm' || last == 'g' || last == 't')
		k->text[n - 1] = (char)(last - 'a' + 'A');
	return parse_size(s, &k->value) || k->value == 0 ? -1 : 0;
}

/* "10dd" -> 10 */
static int parse_suffixed(const char *tok, const char *suffix, uint64_t *v)
{
	size_t n = strlen(tok), m = strlen(suffix);
	char num[32];
	if (n <= m || n - m >= sizeof(num) || strcmp(tok + n - m, suffix) != 0)
		return -1;
	memcpy(num, tok, n - m);
	num[n - m] = 0;
	return parse_u64(num, v);
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

/* GROUP names directories under -o: relative, no empty, "." or ".." part
 * (it must stay inside -o), no hidden part (the result walkers skip those),
 * no control byte. */
int case_group_check(const char *group, char *err, size_t errlen)
{
	if (!*group)
		FAIL("empty group");
	int at = control_byte_at(group);
	if (at >= 0)   /* not echoed: the message stays one line */
		FAIL("group has a control character (byte 0x%02x at offset %d)",
		     (unsigned char)group[at], at);
	if (group[0] == '/')
		FAIL("group '%s' must not start with '/'", group);
	for (const char *p = group; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 0)
			FAIL("group '%s' has an empty '//' part", group);
		if (p[0] == '.')
			FAIL("group '%s': part '%.*s' starts with '.' (no '..', no hidden dirs)", group,
			     (int)n, p);
		p += n + (p[n] == '/');
		if (p[-1] == '/' && !*p)
			FAIL("group '%s' ends with '/'", group);
	}
	return 0;
}

/* A byte threshold at or above MEM can never be reached: a typo, not a case. */
static int knob_fits(const struct dirty_knob *k, uint64_t mem_mb)
{
	return !k->is_bytes || !mem_mb || k->value < (mem_mb << 20);
}

int case_parse(const char *s, struct wb_case *c, char *err, size_t errlen)
{
	char buf[256], *tok[8];
	int ntok = 0;
	memset(c, 0, sizeof(*c));
	int at = control_byte_at(s);
	if (at >= 0)
		FAIL("CASE has a control character (byte 0x%02x at offset %d)", (unsigned char)s[at], at);
	if (strlen(s) >= sizeof(buf))
		FAIL("case '%.40s...': too long", s);
	const char *slash = strrchr(s, '/');
	const char *body = slash ? slash + 1 : s;
	if (slash) {
		size_t gl = (size_t)(slash - s);
		if (gl >= sizeof(c->group))
			FAIL("case '%s': group too long", s);
		memcpy(c->group, s, gl);
		char why[200];
		if (s[0] == '/' || case_group_check(c->group, why, sizeof(why)))
			FAIL("case '%s': %s", s, s[0] == '/' ? "must not start with '/'" : why);
	}
	snprintf(buf, sizeof(buf), "%s", body);
	for (char *p = buf, *save = NULL; ntok < 8; p = NULL) {
		char *t = strtok_r(p, "-", &save);
		if (!t)
			break;
		tok[ntok++] = t;
	}
	if (ntok != 6)
		FAIL("case '%s': expected FS-NDD-BS-CPUSp-MEMM-THRESH:BG", s);
	uint64_t v;
	if (strlen(tok[0]) >= sizeof(c->fs) || !*tok[0])
		FAIL("case '%s': bad file system '%s'", s, tok[0]);
	snprintf(c->fs, sizeof(c->fs), "%s", tok[0]);
	if (parse_suffixed(tok[1], "dd", &v) || v < 1 || v > 1000)
		FAIL("case '%s': bad writer count '%s' (want e.g. 10dd, 1..1000)", s, tok[1]);
	c->ndd = (int)v;
	if (parse_size(tok[2], &c->bs) || c->bs == 0 || c->bs > (64ULL << 20))
		FAIL("case '%s': bad block size '%s' (want e.g. 4k, up to 64M)", s, tok[2]);
	if (strcmp(tok[3], "*") == 0 || strcmp(tok[3], "*p") == 0)
		c->cpus = 0;
	else if (parse_suffixed(tok[3], "p", &v) || v < 1 || v > 4096)
		FAIL("case '%s': bad CPU count '%s' (want e.g. 8p)", s, tok[3]);
	else
		c->cpus = (int)v;
	if (strcmp(tok[4], "*") == 0 || strcmp(tok[4], "*M") == 0)
		c->mem_mb = 0;
	else if (parse_suffixed(tok[4], "M", &v) || v < 64 || v > (1ULL << 24))
		FAIL("case '%s': bad memory '%s' (want e.g. 4096M)", s, tok[4]);
	else
		c->mem_mb = v;
	char *colon = strchr(tok[5], ':');
	if (!colon)
		FAIL("case '%s': threshold '%s' needs THRESH:BG", s, tok[5]);
	*colon = 0;
	if (parse_knob(tok[5], &c->thresh))
		FAIL("case '%s': bad dirty threshold '%s'", s, tok[5]);
	if (parse_knob(colon + 1, &c->bg))
		FAIL("case '%s': bad background threshold '%s'", s, colon + 1);
	if (!knob_fits(&c->thresh, c->mem_mb))
		FAIL("case '%s': dirty threshold %s is not below MEM %lluM", s, c->thresh.text,
		     (unsigned long long)c->mem_mb);
	if (!knob_fits(&c->bg, c->mem_mb))
		FAIL("case '%s': background threshold %s is not below MEM %lluM", s, c->bg.text,
		     (unsigned long long)c->mem_mb);
	if (!c->group[0])
		snprintf(c->group, sizeof(c->group), "thresh=%s", c->thresh.text);
	case_format_name(c);
	return 0;
}

void case_format_name(struct wb_case *c)
{
	char bs[24], cpus[16], mem[24];
	if (c->bs % (1ULL << 20) == 0)
		snprintf(bs, sizeof(bs), "%lluM", (unsigned long long)(c->bs >> 20));
	else if (c->bs % 1024 == 0)
		snprintf(bs, sizeof(bs), "%lluk", (unsigned long long)(c->bs >> 10));
	else
		snprintf(bs, sizeof(bs), "%llu", (unsigned long long)c->bs);
	if (c->cpus)
		snprintf(cpus, sizeof(cpus), "%dp", c->cpus);
	else
		snprintf(cpus, sizeof(cpus), "*");
	if (c->mem_mb)
		snprintf(mem, sizeof(mem), "%lluM", (unsigned long long)c->mem_mb);
	else
		snprintf(mem, sizeof(mem), "*");
	snprintf(c->name, sizeof(c->name), "%s-%ddd-%s-%s-%s-%s:%s", c->fs, c->ndd, bs, cpus, mem,
		 c->thresh.text, c->bg.text);
}

void case_fill(struct wb_case *c, int cpus, uint64_t mem_mb)
{
	if (!c->cpus)
		c->cpus = cpus;
	if (!c->mem_mb)
		c->mem_mb = mem_mb;
	case_format_name(c);
}
