/* What stats_write prints for s, which it frees: one helper for the suites
 * that compare printed stats (include after cmocka.h and analysis/stats.h). */
#ifndef WBLAB_TEST_STATS_TEXT_H
#define WBLAB_TEST_STATS_TEXT_H

static char *stats_text(struct stats_acc *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(stats_write(s, f), 0);
	fclose(f);
	stats_free(s);
	return buf;
}

#endif
