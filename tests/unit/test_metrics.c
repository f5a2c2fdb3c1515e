/* The metric table (src/result/metrics.h) against what stats_write prints
 * and what docs/stats.md lists: every key stats_write can print is a row,
 * the trace-derived ones come out in table order, and docs/stats.md's list
 * is `wblab help metrics --markdown`.  Run from the source tree (as
 * tests/run-all.sh does) or with WBLAB_SRCDIR set. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "analysis/stats.h"
#include "result/metrics.h"
#include "trace/trace_read.h"
#include "trace/trace_format.h"
#include "stats_text.h"

static void feed(struct stats_acc *s, const char *line)
{
	struct wb_event e;
	assert_int_equal(trace_parse_line(line, strlen(line), &e), 1);
	stats_feed(s, &e);
}

static void gds(struct stats_acc *s, const char *comm, double t, long written)
{
	char line[512];
	snprintf(line, sizeof(line), "%16s-%-5d [000] %12.6f: global_dirty_state: dirty=100 "
		 "writeback=10 bg_thresh=50 thresh=100 limit=100 dirtied=%ld written=%ld",
		 comm, 42, t, written + 100, written);
	feed(s, line);
}

/* global_dirty_state with thresholds thresh=1000 bg_thresh=600 (setpoint 900) */
static void gds_sp(struct stats_acc *s, double t, int nr, long n)
{
	char line[512];
	snprintf(line, sizeof(line), "            dd-42    [000] %12.6f: global_dirty_state: dirty=%d "
		 "writeback=0 bg_thresh=600 thresh=1000 limit=1000 dirtied=%ld written=%ld",
		 t, nr, 4000 + 100 * n, 3000 + 100 * n);
	feed(s, line);
}

static void bdp_at(struct stats_acc *s, double t, int pid)
{
	char line[512];
	snprintf(line, sizeof(line), "              dd-%d   [001] %12.6f: balance_dirty_pages: bdi 8:0: "
		 "limit=1000 setpoint=900 dirty=900 wb_setpoint=900 wb_dirty=900 dirty_ratelimit=1000 "
		 "task_ratelimit=900 dirtied=32 dirtied_pause=32 paused=0 pause=10 period=10 think=0 "
		 "cgroup_ino=1", pid, t);
	feed(s, line);
}

static void bdr_at(struct stats_acc *s, double t, int rl)
{
	char line[512];
	snprintf(line, sizeof(line), "              dd-100   [001] %12.6f: bdi_dirty_ratelimit: bdi 8:0: "
		 "write_bw=1800 awrite_bw=1800 dirty_rate=1800 dirty_ratelimit=%d task_ratelimit=900 "
		 "balanced_dirty_ratelimit=900 cgroup_ino=1", t, rl);
	feed(s, line);
}

/* The control loop settles at t=7, a second writer at 7.6 disturbs it, it
 * settles again; nr_dirty and dirty_ratelimit swing (every control row). */
static void control_loop(struct stats_acc *s)
{
	static const int nr[] = { 900, 900, 1000, 900, 900, 1000, 900 };
	gds_sp(s, 6, nr[0], 0);
	gds_sp(s, 7, nr[1], 1);
	bdp_at(s, 7.5, 100);
	bdp_at(s, 7.6, 101);
	for (int i = 2; i < 7; i++) {
		bdr_at(s, 5.7 + i, i % 2 ? 1100 : 1000);
		bdp_at(s, 5.8 + i, 100);
		bdp_at(s, 5.9 + i, 101);
		gds_sp(s, 6 + i, nr[i], i);
	}
}

/* A trace with every kind of event stats.c reads (3.2+ and 3.1 and NFS at
 * once: not a real kernel, but every branch of stats_write prints). */
static char *all_branches(int producer_keys)
{
	struct stats_acc *s = stats_new();
	assert_non_null(s);
	for (int i = 0; i < 12; i++)
		gds(s, i % 3 ? "flush-8:0" : "dd", i * 0.5, i * 256L);
	feed(s, "              dd-100   [001]     1.000000: balance_dirty_pages: bdi 8:0: "
		"limit=1000 setpoint=800 dirty=300 wb_setpoint=400 wb_dirty=150 dirty_ratelimit=1000 "
		"task_ratelimit=900 dirtied=32 dirtied_pause=32 paused=0 pause=10 period=10 think=0 "
		"cgroup_ino=1");
	feed(s, "              dd-100   [001]     2.000000: bdi_dirty_ratelimit: bdi 8:0: "
		"write_bw=1 awrite_bw=2 dirty_rate=3 dirty_ratelimit=4 task_ratelimit=5 "
		"balanced_dirty_ratelimit=6 cgroup_ino=1");
	feed(s, "  dd-100  [000]  3.000000: balance_dirty_start: bdi 8:0");
	feed(s, "  dd-100  [000]  3.100000: balance_dirty_wait: bdi 8:0");
	feed(s, "      flush-0:21-1500  [002]    4.000000: nfs_commit_unstable_pages: bdi 0:21: "
		"ino=13 npages=2048 tocommit=2048 write_chunk=1024 sync=0 ret=512");
	/* a task the producer gave no progress for: its bandwidth from the trace */
	feed(s, "              dd-102   [001]     1.500000: balance_dirty_pages: bdi 8:0: "
		"limit=1000 setpoint=800 dirty=300 wb_setpoint=400 wb_dirty=150 dirty_ratelimit=1000 "
		"task_ratelimit=900 dirtied=32 dirtied_pause=32 paused=0 pause=10 period=10 think=0 "
		"cgroup_ino=1");
	control_loop(s);
	stats_task(s, 100, 256, 1);
	stats_task(s, 101, 512, 1);
	if (producer_keys)
		for (int i = 0; i < M__COUNT; i++) {
			const char *n = metric_table[i].name;
			if (strcmp(metric_table[i].producer, "trace") &&
			    strcmp(metric_table[i].producer, "task") && !strchr(n, '*'))
				stats_set(s, n, 1);
		}
	stats_set(s, "untraced_dev_write_bw", 1);
	return stats_text(s);
}

static void test_every_printed_key_is_a_row_in_table_order(void **state)
{
	(void)state;
	char *text = all_branches(1);
	int last = -1, nkeys = 0, seen[M__COUNT] = { 0 };
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		*strchr(l, ' ') = 0;
		const struct metric_def *m = metric_find(l);
		if (!m)
			fail_msg("stats key '%s' is not in src/result/metrics.h", l);
		int id = (int)(m - metric_table);
		seen[id] = 1;
		nkeys++;
		/* the trace-derived part in table order; producers' keys follow */
		if (!strcmp(m->producer, "trace") || !strcmp(m->producer, "task")) {
			if (id < last)
				fail_msg("'%s' printed after '%s': not in table order", l,
					 metric_table[last].name);
			last = id;
		}
	}
	/* every row is printed by some branch (the table holds no dead rows) */
	for (int i = 0; i < M__COUNT; i++)
		if (!seen[i])
			fail_msg("table row '%s' never printed", metric_table[i].name);
	assert_true(nkeys > M__COUNT);
	free(text);
}

static void test_patterns(void **state)
{
	(void)state;
	assert_ptr_equal(metric_find("task_bw_0"), &metric_table[M_TASK_BW_N]);
	assert_ptr_equal(metric_find("task_bw_123"), &metric_table[M_TASK_BW_N]);
	assert_ptr_equal(metric_find("task_bw_min"), &metric_table[M_TASK_BW_MIN]);
	assert_null(metric_find("task_bw_"));
	assert_null(metric_find("task_bw_1x"));
	assert_ptr_equal(metric_find("untraced_runtime_s"), &metric_table[M_UNTRACED_X]);
	assert_null(metric_find("untraced_untraced_runtime_s"));
	assert_null(metric_find("untraced_"));
	assert_null(metric_find("no_such_metric"));
	assert_string_equal(METRIC_KEY(WRITE_BW), "write_bw");
	for (int i = 0; i < M__COUNT; i++)
		for (int j = 0; j < i; j++)
			if (!strcmp(metric_table[i].name, metric_table[j].name))
				fail_msg("'%s' twice", metric_table[i].name);
}

/* A row's eras are those whose trace format has its source event. */
static void test_eras_follow_the_trace_formats(void **state)
{
	(void)state;
	static const struct { const char *prefix; enum wb_event_type ev; } src[] = {
		{ "pause_", EV_BALANCE_DIRTY_PAGES }, { "paused_", EV_BALANCE_DIRTY_PAGES },
		{ "task_ratelimit_", EV_BALANCE_DIRTY_PAGES },
		{ "dirty_ratelimit_", EV_BDI_DIRTY_RATELIMIT },
		{ "balanced_ratelimit_", EV_BDI_DIRTY_RATELIMIT },
		{ "avg_write_bw_", EV_BDI_DIRTY_RATELIMIT },
		{ "bdw_", EV_BALANCE_DIRTY_START }, { "commit_", EV_NFS_COMMIT_UNSTABLE_PAGES },
		/* the setpoint is balance_dirty_pages', the fair share needs both */
		{ "setpoint_", EV_BALANCE_DIRTY_PAGES }, { "settle_", EV_BALANCE_DIRTY_PAGES },
		{ "disturbances", EV_BALANCE_DIRTY_PAGES },
		{ "ratelimit_osc_", EV_BDI_DIRTY_RATELIMIT },
	};
	int checked = 0;
	for (int i = 0; i < M__COUNT; i++) {
		const struct metric_def *m = &metric_table[i];
		if (strcmp(m->producer, "trace") && strcmp(m->producer, "task")) {
			assert_int_equal(m->eras, ERAS_NONE);
			continue;
		}
		if (m->eras == ERAS_ALL)
			continue;
		size_t k = 0;
		while (k < sizeof(src) / sizeof(src[0]) && strncmp(m->name, src[k].prefix,
								  strlen(src[k].prefix)))
			k++;
		if (k == sizeof(src) / sizeof(src[0]))
			fail_msg("'%s': eras not all, but no source event known to the test", m->name);
		unsigned want = 0;
		for (int e = 0; e < ERA_COUNT; e++)
			if (trace_fmt_get((enum trace_era)e, src[k].ev))
				want |= METRIC_ERA(e);
		if (m->eras != want)
			fail_msg("'%s': eras %#x, its event is in %#x", m->name, m->eras, want);
		checked++;
	}
	assert_true(checked >= 20);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s (run from the source tree or set WBLAB_SRCDIR)", path);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	char *buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

static void test_docs_list_is_the_table(void **state)
{
	(void)state;
	const char *dir = getenv("WBLAB_SRCDIR");
	char path[4096];
	snprintf(path, sizeof(path), "%s/docs/stats.md", dir && *dir ? dir : ".");
	char *doc = slurp(path);
	const char *b = strstr(doc, "<!-- metrics:begin -->\n"), *e = strstr(doc, "<!-- metrics:end -->");
	assert_non_null(b);
	assert_non_null(e);
	b += strlen("<!-- metrics:begin -->\n");
	char *want = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&want, &len);
	metric_list(m, 1);
	fclose(m);
	if (e < b || (size_t)(e - b) != len || memcmp(b, want, len))
		fail_msg("docs/stats.md's metric list differs from the table: regenerate it with "
			 "'wblab help metrics --markdown'");
	free(want);
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_printed_key_is_a_row_in_table_order),
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_eras_follow_the_trace_formats),
		cmocka_unit_test(test_docs_list_is_the_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
