/* libFuzzer harness for the trace reader: the raw input as one line (not
 * NUL-terminated, so overreads show up under ASan), each of its lines, the
 * streaming reader over the whole input, and a write/parse round trip of
 * every event that parsed. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "trace/trace_read.h"
#include "trace/trace_write.h"

static void round_trip(const struct wb_event *e)
{
	char buf[2048];
	struct wb_event back;
	for (int era = 0; era < ERA_COUNT; era++) {
		size_t n = trace_format_line((enum trace_era)era, e, buf, sizeof(buf));
		if (n)
			(void)trace_parse_line(buf, n, &back);
	}
}

static void each_line(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct wb_event e;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if (trace_parse_line(p, (size_t)(le - p), &e) == 1)
			round_trip(&e);
		p = nl ? nl + 1 : end;
	}
}

static void whole_stream(const uint8_t *data, size_t size)
{
	char err[512];
	struct wb_event e;
	FILE *f = fmemopen((void *)data, size, "r");
	if (!f)
		return;
	FILE *echo = fopen("/dev/null", "w");
	struct trace_reader *r = trace_reader_fopen(f, "fuzz", err, sizeof(err));
	if (r) {
		trace_reader_set_echo(r, echo);
		while (trace_reader_next(r, &e, err, sizeof(err)) == 1)
			;
		(void)trace_reader_lineno(r);
		trace_reader_close(r);
	}
	if (echo)
		fclose(echo);
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wb_event e;
	const char *why;
	if (trace_parse_line_why((const char *)data, size, &e, &why) == 1)
		round_trip(&e);
	each_line(data, size);
	if (size)
		whole_stream(data, size);
	return 0;
}
