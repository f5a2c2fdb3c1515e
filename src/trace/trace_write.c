/* Hand-rolled integer formatting: the simulator writes millions of lines and
 * printf would dominate its run time. */
#include <stdlib.h>
#include <string.h>
#include "trace_write.h"

#define WBUF_CAP (1 << 20)

struct out { char *p; char *end; };

static void put_mem(struct out *o, const char *s, size_t n)
{
	if ((size_t)(o->end - o->p) < n) {
		o->p = o->end;
		return;
	}
	memcpy(o->p, s, n);
	o->p += n;
}

static void put_str(struct out *o, const char *s)
{
	put_mem(o, s, strlen(s));
}

static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static int ndigits(uint64_t u)
{
	static const uint64_t p10[20] = { 1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL,
		1000000ULL, 10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
		100000000000ULL, 1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
		1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
		1000000000000000000ULL, 10000000000000000000ULL };
	if (u < 10)
		return 1;
	/* bits * log10(2) estimates the digit count, off by at most one */
	int t = ((64 - __builtin_clzll(u)) * 1233) >> 12;
	return t + 1 - (u < p10[t]);
}

/* Writes exactly n digits of u ending at end, two per division. */
static void put_digits(char *end, uint64_t u, int n)
{
	while (n >= 2) {
		unsigned d = (unsigned)(u % 100) * 2;
		u /= 100;
		*--end = digit_pairs[d + 1];
		*--end = digit_pairs[d];
		n -= 2;
	}
	if (n)
		*--end = (char)('0' + u % 10);
}

/* Integer formatting is most of the writer's time: digits go straight to
 * the output. */
static void put_int(struct out *o, int64_t v)
{
	uint64_t u = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
	int n = ndigits(u), len = n + (v < 0);
	if (o->end - o->p < len) {
		o->p = o->end;
		return;
	}
	if (v < 0)
		*o->p = '-';
	put_digits(o->p + len, u, n);
	o->p += len;
}

/* Right- or left-justified integer in a field of width w, zero- or space-padded. */
static void put_int_w(struct out *o, int64_t v, int w, char pad, int left)
{
	char tmp[24];
	struct out t = { tmp, tmp + sizeof(tmp) };
	put_int(&t, v);
	int n = (int)(t.p - tmp);
	if (!left)
		for (int i = n; i < w && o->p < o->end; i++)
			*o->p++ = pad;
	for (int i = 0; i < n && o->p < o->end; i++)
		*o->p++ = tmp[i];
	if (left)
		for (int i = n; i < w && o->p < o->end; i++)
			*o->p++ = pad;
}

/* %0Nx: at least w lowercase hex digits */
static void put_hex(struct out *o, uint64_t v, int w)
{
	char tmp[16], *q = tmp + sizeof(tmp);
	do {
		*--q = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	for (int n = (int)(tmp + sizeof(tmp) - q); n < w && o->p < o->end; n++)
		*o->p++ = '0';
	put_mem(o, q, (size_t)(tmp + sizeof(tmp) - q));
}

/* A value of a 6.x nfs event in nfstrace.h's style (trace_format.h) */
static void put_nfs_6x(struct out *o, const struct wb_event *e, enum wb_field f)
{
	const char *name;
	switch (f) {
	case F_INO:     /* "%02x:%02x:%llu": MAJOR(dev), MINOR(dev), fileid */
		put_hex(o, (uint64_t)e->v[F_DEV] >> 20 & 0xfff, 2);
		put_str(o, ":");
		put_hex(o, (uint64_t)e->v[F_DEV] & 0xfffff, 2);
		put_str(o, ":");
		put_int(o, e->v[F_INO]);      /* a u64 the model keeps below 2^63 */
		return;
	case F_FHANDLE:
		put_str(o, "0x");
		put_hex(o, (uint32_t)e->v[f], 8);
		return;
	case F_STABLE:   /* __print_symbolic: an unknown value as 0x%lx */
		if ((name = trace_stable_name(e->v[f]))) {
			put_str(o, name);
		} else {
			put_str(o, "0x");
			put_hex(o, (uint64_t)e->v[f], 1);
		}
		return;
	case F_VERIFIER:  /* __print_hex_str of char[8]: the bytes in memory order */
		for (int i = 0; i < 8; i++)
			put_hex(o, (uint64_t)e->v[f] >> (8 * i) & 0xff, 2);
		return;
	case F_NBYTES:
	case F_RES:
	case F_DEV:
		put_int(o, (int64_t)(uint32_t)e->v[f]);   /* u32 fields */
		return;
	case F_ERROR:
		put_int(o, (int64_t)(int32_t)e->v[f]);
		return;
	default:
		put_int(o, e->v[f]);
	}
}

static void put_state(struct out *o, int64_t st)
{
	static const struct { int bit; const char *name; } bits[] = {
		{ WB_I_DIRTY_SYNC, "I_DIRTY_SYNC" }, { WB_I_DIRTY_DATASYNC, "I_DIRTY_DATASYNC" },
		{ WB_I_DIRTY_PAGES, "I_DIRTY_PAGES" }, { WB_I_SYNC, "I_SYNC" },
	};
	int first = 1;
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		if (!(st & bits[i].bit))
			continue;
		if (!first)
			put_str(o, "|");
		put_str(o, bits[i].name);
		first = 0;
	}
	if (first)
		put_str(o, "0");
}

/* "<comm>-<pid> [<cpu>] ": constant per thread, so the writer caches it */
static void put_header(struct out *o, const struct wb_event *e)
{
	size_t cl = strlen(e->comm);
	for (size_t i = cl; i < 16 && o->p < o->end; i++)
		*o->p++ = ' ';
	put_mem(o, e->comm, cl);
	put_str(o, "-");
	put_int_w(o, e->pid, 5, ' ', 1);
	put_str(o, " [");
	put_int_w(o, e->cpu, 3, '0', 0);
	put_str(o, "] ");
}

/* " name=" (or "name " for balance_dirty_written) of each field of each
 * format, built once: the labels are most of a line's bytes */
struct label { char text[40]; unsigned char len; };
static struct label labels[ERA_COUNT][EV_TYPE_COUNT][16];
static unsigned char labels_ready[ERA_COUNT][EV_TYPE_COUNT];

static const struct label *field_labels(enum trace_era era, enum wb_event_type t,
					const struct trace_fmt *fmt)
{
	struct label *l = labels[era][t];
	if (labels_ready[era][t])
		return l;
	for (int i = 0; i < fmt->nfields; i++) {
		const char *name = fmt->names[i] ? fmt->names[i] : wb_field_name(fmt->fields[i]);
		int n = snprintf(l[i].text, sizeof(l[i].text), "%s%s%s",
				 i > 0 || fmt->prefix != PFX_NONE ? " " : "", name,
				 fmt->bare_written ? " " : "=");
		l[i].len = (unsigned char)(n > 0 && n < (int)sizeof(l[i].text) ? n : 0);
	}
	labels_ready[era][t] = 1;
	return l;
}

/* Everything after the header: timestamp, event name and payload. */
static void put_body(struct out *o, enum trace_era era, const struct trace_fmt *fmt,
		     const struct wb_event *e)
{
	put_int_w(o, e->ts_us / 1000000, 5, ' ', 0);
	if (o->end - o->p < 9) {
		o->p = o->end;
		return;
	}
	*o->p = '.';
	put_digits(o->p + 7, (uint64_t)(e->ts_us % 1000000), 6);   /* "%06lu" */
	o->p[7] = ':';
	o->p[8] = ' ';
	o->p += 9;
	put_str(o, wb_event_name(e->type));
	put_str(o, ": ");
	if (fmt->prefix != PFX_NONE) {
		put_str(o, "bdi ");
		put_str(o, e->bdi);
		if (fmt->prefix == PFX_BDI_COLON)
			put_str(o, ":");
	}
	if (fmt->work_class)
		put_str(o, " sb_dev 0:0");
	const struct label *lab = field_labels(era, e->type, fmt);
	for (int i = 0; i < fmt->nfields; i++) {
		enum wb_field f = fmt->fields[i];
		put_mem(o, lab[i].text, lab[i].len);
		if (f == F_STATE && fmt->state_string)
			put_state(o, e->v[f]);
		else if (fmt->nfs_6x)
			put_nfs_6x(o, e, f);
		else
			put_int(o, e->v[f]);
	}
	if (fmt->work_class && trace_era_has_reason(era)) {
		put_str(o, " reason=");
		put_str(o, e->reason[0] ? e->reason : "background");
	}
}

size_t trace_format_line(enum trace_era era, const struct wb_event *e, char *buf, size_t cap)
{
	const struct trace_fmt *fmt = trace_fmt_get(era, e->type);
	struct out o = { buf, buf + cap };
	if (!fmt || cap == 0)
		return 0;
	put_header(&o, e);
	put_body(&o, era, fmt, e);
	if (o.p >= o.end)
		return 0;
	return (size_t)(o.p - buf);
}

int trace_writer_open(struct trace_writer *w, const char *path, enum trace_era era)
{
	memset(w, 0, sizeof(*w));
	w->f = fopen(path, "w");
	if (!w->f)
		return -1;
	w->buf = malloc(WBUF_CAP);
	if (!w->buf) {
		fclose(w->f);
		return -1;
	}
	w->era = era;
	w->len = (size_t)snprintf(w->buf, WBUF_CAP, "# tracer: nop\n#\n");
	return 0;
}

static void flush_buf(struct trace_writer *w)
{
	if (w->len && fwrite(w->buf, 1, w->len, w->f) != w->len)
		w->error = 1;
	w->len = 0;
}

void trace_write_event(struct trace_writer *w, const struct wb_event *e)
{
	const struct trace_fmt *fmt = trace_fmt_get(w->era, e->type);
	if (!fmt)
		return;
	if (WBUF_CAP - w->len < 1024)
		flush_buf(w);
	struct out o = { w->buf + w->len, w->buf + WBUF_CAP - 1 };
	struct trace_hdr *h = &w->hdr[(unsigned)e->pid % TRACE_HDR_CACHE];
	if (h->len && h->pid == e->pid && h->cpu == e->cpu && !strcmp(h->comm, e->comm)) {
		put_mem(&o, h->text, h->len);
	} else {
		char *start = o.p;
		put_header(&o, e);
		size_t n = (size_t)(o.p - start);
		if (n < sizeof(h->text)) {
			memcpy(h->text, start, n);
			h->len = (unsigned char)n;
			h->pid = e->pid;
			h->cpu = e->cpu;
			snprintf(h->comm, sizeof(h->comm), "%s", e->comm);
		}
	}
	put_body(&o, w->era, fmt, e);
	if (o.p >= o.end)
		return;
	w->len = (size_t)(o.p - w->buf);
	w->buf[w->len++] = '\n';
	w->lines++;
}

int trace_writer_close(struct trace_writer *w)
{
	if (!w->f)
		return 0;
	flush_buf(w);
	int rc = w->error;
	if (fclose(w->f) != 0)
		rc = 1;
	free(w->buf);
	w->f = NULL;
	w->buf = NULL;
	return rc ? -1 : 0;
}
