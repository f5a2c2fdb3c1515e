#include <ctype.h>
#include <string.h>
#include "metrics.h"
#include "../trace/dat_format.h"

const struct metric_def metric_table[M__COUNT] = {
#define METRIC_ROW(id, name, unit, better, eras, producer, doc) \
	[M_##id] = { name, unit, better, eras, producer, doc },
	WBLAB_METRICS(METRIC_ROW)
#undef METRIC_ROW
};

static int matches(const char *pat, const char *key, int depth)
{
	size_t n = strlen(pat);
	if (n >= 2 && strcmp(pat + n - 2, "_N") == 0) {
		/* task_bw_N: the stem, then one or more digits */
		if (strncmp(key, pat, n - 1) || !key[n - 1])
			return 0;
		for (const char *p = key + n - 1; *p; p++)
			if (!isdigit((unsigned char)*p))
				return 0;
		return 1;
	}
	if (n >= 1 && pat[n - 1] == '*') {
		/* untraced_*: the prefix, then a key of the table (no pattern of patterns) */
		if (depth || strncmp(key, pat, n - 1))
			return 0;
		for (int i = 0; i < M__COUNT; i++)
			if (matches(metric_table[i].name, key + n - 1, 1))
				return 1;
		return 0;
	}
	return strcmp(pat, key) == 0;
}

const struct metric_def *metric_find(const char *key)
{
	for (int i = 0; i < M__COUNT; i++)
		if (matches(metric_table[i].name, key, 0))
			return &metric_table[i];
	return NULL;
}

/* "all", "-" (no era), or the era names joined by ',' */
static const char *eras_text(unsigned eras, char *buf, size_t n)
{
	if (eras == ERAS_ALL)
		return "all";
	if (!eras)
		return "-";
	size_t k = 0;
	buf[0] = 0;
	for (int e = 0; e < ERA_COUNT; e++)
		if (eras & METRIC_ERA(e)) {
			int w = snprintf(buf + k, n - k, "%s%s", k ? "," : "", dat_era_name((enum trace_era)e));
			if (w < 0 || (size_t)w >= n - k)
				break;
			k += (size_t)w;
		}
	return buf;
}

static const char *better_word(int b)
{
	return b > 0 ? "higher" : b < 0 ? "lower" : "-";
}

void metric_list(FILE *f, int markdown)
{
	if (markdown)
		fputs("| name | unit | better | kernels | producer | meaning |\n"
		      "|---|---|---|---|---|---|\n", f);
	for (int i = 0; i < M__COUNT; i++) {
		const struct metric_def *m = &metric_table[i];
		char eb[128];
		const char *eras = eras_text(m->eras, eb, sizeof(eb));
		if (markdown)
			fprintf(f, "| `%s` | %s | %s | %s | %s | %s |\n", m->name,
				m->unit[0] ? m->unit : "-", better_word(m->better), eras,
				m->producer, m->doc);
		else
			fprintf(f, "%-30s %-6s %-6s %-22s %-6s %s\n", m->name,
				m->unit[0] ? m->unit : "-", better_word(m->better), eras, m->producer,
				m->doc);
	}
}
