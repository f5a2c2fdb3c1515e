/* Streaming ftrace-text reader.  Lines are parsed in place with hand-written
 * scanners (no regex, no allocation per line); field names go through a small
 * per-thread memo in front of wb_field_lookup, which is a linear search. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "trace_read.h"
#include "trace_format.h"
#include "../util/util.h"
#include "trace_write.h"
#include "dat_read.h"
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef WBLAB_HAVE_TRACECMD
#include <trace-cmd.h>
#include <event-parse.h>
#include <trace-seq.h>
#endif

#define RBUF (64 * 1024)   /* read buffer; also the longest line we keep */
#define MAX_SKIP_TOKENS 2  /* irq-flags / latency columns before the timestamp */
#define MAX_FLAGS_LEN 16   /* "d..1." today; anything longer is not a flags column */
/* trace_pipe merges per-CPU buffers as it reads them, so an event may come a
 * little after a later one; a bigger step back is a spliced or broken file. */
#define TS_BACK_TOLERANCE_US 1000

static const char DAT_MAGIC[] = "\x17\x08\x44tracing";

/* ---- small scanners over [p, end) ---- */

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_space(char c) { return c == ' ' || c == '\t'; }

static int is_ident(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static const char *skip_sp(const char *p, const char *end)
{
	while (p < end && is_space(*p))
		p++;
	return p;
}

static const char *token_end(const char *p, const char *end)
{
	while (p < end && !is_space(*p))
		p++;
	return p;
}

static int tok_eq(const char *p, const char *end, const char *lit)
{
	size_t n = strlen(lit);
	return (size_t)(end - p) == n && memcmp(p, lit, n) == 0;
}

/* Whole token as an integer: [+-]digits or 0x hex.  Values above INT64_MAX
 * (a %lu of a negative long) wrap as the kernel's unsigned print did. */
static int parse_int(const char *p, const char *end, int64_t *out)
{
	int neg = 0;
	uint64_t v = 0;
	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	if (p == end)
		return -1;
	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		for (; p < end; p++) {
			int d = is_digit(*p) ? *p - '0' : (*p | 0x20) >= 'a' && (*p | 0x20) <= 'f' ?
				(*p | 0x20) - 'a' + 10 : -1;
			if (d < 0 || v >> 60)
				return -1;
			v = v << 4 | (uint64_t)d;
		}
	} else {
		for (; p < end; p++) {
			if (!is_digit(*p))
				return -1;
			uint64_t d = (uint64_t)(*p - '0');
			if (v > (UINT64_MAX - d) / 10)
				return -1;
			v = v * 10 + d;
		}
	}
	if (neg && v > (uint64_t)INT64_MAX + 1)
		return -1;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

/* ---- name lookups, memoised per thread ---- */

struct memo { unsigned char len; signed char val; char name[30]; };

static unsigned name_hash(const char *p, size_t n)
{
	unsigned h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 16777619u;
	return h;
}

static int memo_lookup(struct memo *tab, unsigned mask, const char *p, size_t n,
		       int (*slow)(const char *, int))
{
	if (n == 0 || n >= sizeof(tab->name))
		return slow(p, (int)n);
	struct memo *m = &tab[name_hash(p, n) & mask];
	if (m->len == n && memcmp(m->name, p, n) == 0)
		return m->val;
	int v = slow(p, (int)n);
	m->len = (unsigned char)n;
	m->val = (signed char)v;
	memcpy(m->name, p, n);
	return v;
}

static int event_lookup_int(const char *p, int n)
{
	return (int)wb_event_lookup(p, n);
}

static int field_lookup(const char *p, const char *end)
{
	static _Thread_local struct memo tab[256];
	return memo_lookup(tab, 255, p, (size_t)(end - p), wb_field_lookup);
}

static enum wb_event_type event_lookup(const char *p, const char *end)
{
	static _Thread_local struct memo tab[64];
	return (enum wb_event_type)memo_lookup(tab, 63, p, (size_t)(end - p), event_lookup_int);
}

/* ---- line context: "<comm>-<pid> [(tgid)] [<cpu>] [flags] <secs>.<frac>: " ---- */

static void set_comm(struct wb_event *e, const char *p, const char *end)
{
	p = skip_sp(p, end);
	/* trace-cmd report prefixes "<buffer>: " when a file holds instances */
	const char *colon = memchr(p, ':', (size_t)(end - p));
	if (colon && colon + 1 < end && is_space(colon[1]) &&
	    token_end(p, colon) == colon && skip_sp(colon + 1, end) < end)
		p = skip_sp(colon + 1, end);
	size_t n = (size_t)(end - p);
	if (n >= sizeof(e->comm))
		n = sizeof(e->comm) - 1;
	memcpy(e->comm, p, n);
	e->comm[n] = 0;
}

/* Timestamp token "<secs>.<frac>:"; returns the char after ':' or NULL. */
static const char *parse_ts(const char *p, const char *end, int64_t *ts_us)
{
	int64_t secs = 0, us = 0;
	int nd = 0, nf = 0;
	for (; p < end && is_digit(*p) && nd <= 12; p++, nd++)
		secs = secs * 10 + (*p - '0');
	if (nd == 0 || nd > 12 || p >= end || *p != '.')
		return NULL;
	for (p++; p < end && is_digit(*p) && nf <= 12; p++, nf++)
		if (nf < 6)
			us = us * 10 + (*p - '0');
	if (nf == 0 || nf > 12 || p >= end || *p != ':')
		return NULL;
	for (; nf < 6; nf++)
		us *= 10;
	*ts_us = secs * 1000000 + us;
	return p + 1;
}

/* Backward from just before " [cpu]": optional "(tgid)", then "-<pid>". */
static const char *parse_pid_back(const char *line, const char *p, struct wb_event *e)
{
	const char *q = p;
	while (q > line && is_space(q[-1]))
		q--;
	if (q == p)
		return NULL;
	if (q > line && q[-1] == ')') {
		const char *o = q - 1;
		while (o > line && (is_digit(o[-1]) || is_space(o[-1]) || o[-1] == '-'))
			o--;
		if (o == line || o[-1] != '(')
			return NULL;
		for (q = o - 1; q > line && is_space(q[-1]); q--)
			;
	}
	const char *d = q;
	while (d > line && is_digit(d[-1]) && q - d < 9)
		d--;
	if (d == q || d == line || d[-1] != '-')
		return NULL;
	int pid = 0;
	for (const char *x = d; x < q; x++)
		pid = pid * 10 + (*x - '0');
	e->pid = pid;
	return d - 1;
}

static const char *try_context(const char *line, const char *br, const char *end,
			       struct wb_event *e)
{
	const char *p = br + 1;
	int cpu = 0, nd = 0;
	for (; p < end && is_digit(*p) && nd < 7; p++, nd++)
		cpu = cpu * 10 + (*p - '0');
	if (nd == 0 || p >= end || *p != ']')
		return NULL;
	const char *dash = parse_pid_back(line, br, e);
	if (!dash)
		return NULL;
	p++;
	for (int skip = 0; skip <= MAX_SKIP_TOKENS; skip++) {
		p = skip_sp(p, end);
		const char *after = parse_ts(p, end, &e->ts_us);
		if (after) {
			e->cpu = cpu;
			set_comm(e, line, dash);
			return after;
		}
		const char *te = token_end(p, end);
		if (te - p > MAX_FLAGS_LEN)   /* also keeps '['-rich junk lines linear */
			return NULL;
		p = te;
	}
	return NULL;
}

static const char *parse_context(const char *line, const char *end, struct wb_event *e)
{
	const char *b = line;
	while ((b = memchr(b, '[', (size_t)(end - b))) != NULL) {
		const char *after = try_context(line, b, end, e);
		if (after)
			return after;
		b++;
	}
	return NULL;
}

/* "[system:]event:" at p; sets *t and returns the payload start, or NULL. */
static const char *parse_event_name(const char *p, const char *end, enum wb_event_type *t)
{
	p = skip_sp(p, end);
	const char *n = p;
	while (p < end && is_ident(*p))
		p++;
	if (p == n || p >= end || *p != ':')
		return NULL;
	if (p + 1 < end && is_ident(p[1])) {    /* "writeback:" system prefix */
		n = ++p;
		while (p < end && is_ident(*p))
			p++;
		if (p >= end || *p != ':')
			return NULL;
	}
	*t = event_lookup(n, p);
	return p + 1;
}

/* ---- payload ---- */

static void copy_str(char *dst, size_t cap, const char *p, const char *end)
{
	size_t n = (size_t)(end - p);
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, p, n);
	dst[n] = 0;
}

/* "I_DIRTY_PAGES|I_SYNC" -> bits; names we do not model are ignored. */
static int parse_state(const char *p, const char *end, int64_t *out)
{
	static const struct { const char *name; int bit; } bits[] = {
		{ "I_DIRTY_SYNC", WB_I_DIRTY_SYNC }, { "I_DIRTY_DATASYNC", WB_I_DIRTY_DATASYNC },
		{ "I_DIRTY_PAGES", WB_I_DIRTY_PAGES }, { "I_SYNC", WB_I_SYNC },
	};
	int64_t v = 0;
	if (parse_int(p, end, out) == 0)
		return 0;
	while (p < end) {
		const char *bar = memchr(p, '|', (size_t)(end - p));
		const char *te = bar ? bar : end;
		int64_t rest;
		if (te - p > 2 && p[0] == '0' && p[1] == 'x' && parse_int(p, te, &rest) == 0)
			v |= rest;    /* bits without a name are printed as hex */
		for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
			if (tok_eq(p, te, bits[i].name))
				v |= bits[i].bit;
		p = bar ? bar + 1 : end;
	}
	*out = v;
	return 0;
}

struct cursor { const char *p, *end; const char *why; };

static int next_token(struct cursor *c, const char **t, const char **te)
{
	c->p = skip_sp(c->p, c->end);
	if (c->p >= c->end)
		return 0;
	*t = c->p;
	*te = c->p = token_end(c->p, c->end);
	return 1;
}

/* A word without '=': "bdi X[:]", "sb_dev M:N", "written N", or noise. */
static int bare_word(struct cursor *c, struct wb_event *e, const char *t, const char *te)
{
	const char *v, *ve;
	int f = field_lookup(t, te);
	int is_bdi = tok_eq(t, te, "bdi"), is_sb = tok_eq(t, te, "sb_dev");
	if (!is_bdi && !is_sb && f < 0) {
		if (skip_sp(c->p, c->end) >= c->end) {
			c->why = "truncated line";
			return -1;
		}
		return 0;
	}
	if (!next_token(c, &v, &ve)) {
		c->why = "truncated line";
		return -1;
	}
	if (is_bdi) {
		if (ve > v && ve[-1] == ':')
			ve--;
		copy_str(e->bdi, sizeof(e->bdi), v, ve);
	} else if (f >= 0) {
		int64_t x;
		if (parse_int(v, ve, &x)) {
			c->why = "bad number";
			return -1;
		}
		wb_event_set(e, (enum wb_field)f, x);
	}
	return 0;
}

/* Bare hex digits (no 0x), at most 16: a verifier or a dev half. */
static int parse_hex(const char *p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	if (p == end || end - p > 16)
		return -1;
	for (; p < end; p++) {
		int d = is_digit(*p) ? *p - '0' : (*p | 0x20) >= 'a' && (*p | 0x20) <= 'f' ?
			(*p | 0x20) - 'a' + 10 : -1;
		if (d < 0)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return 0;
}

/* The 6.x nfs events' values that are not plain numbers (trace_format.h,
 * nfs_6x): fileid=MM:mm:INO, stable=NAME, verifier=16 hex digits.  1 when
 * this was one (set, or c->why said why not), 0 when it is a plain number. */
static int nfs_6x_value(struct cursor *c, struct wb_event *e, int f, const char *v, const char *ve)
{
	uint64_t a, b;
	int64_t x;
	if (f == F_INO && memchr(v, ':', (size_t)(ve - v))) {
		const char *c1 = memchr(v, ':', (size_t)(ve - v));
		const char *c2 = memchr(c1 + 1, ':', (size_t)(ve - c1 - 1));
		if (!c2 || parse_hex(v, c1, &a) || parse_hex(c1 + 1, c2, &b) || a > 0xfff ||
		    b > 0xfffff || parse_int(c2 + 1, ve, &x)) {
			c->why = "bad fileid";
			return 1;
		}
		wb_event_set(e, F_DEV, (int64_t)(a << 20 | b));
		wb_event_set(e, F_INO, x);
		return 1;
	}
	if (f == F_STABLE && ve > v && !is_digit(*v)) {
		int k = trace_stable_lookup(v, (int)(ve - v));
		if (k < 0 && parse_int(v, ve, &x)) {
			c->why = "bad stable";
			return 1;
		}
		wb_event_set(e, F_STABLE, k >= 0 ? k : x);
		return 1;
	}
	if (f == F_VERIFIER) {
		if (ve - v != 16 || parse_hex(v, ve, &a)) {
			c->why = "bad verifier";
			return 1;
		}
		uint64_t m = 0;   /* printed byte by byte in memory order */
		for (int i = 0; i < 8; i++)
			m |= (a >> (8 * (7 - i)) & 0xff) << (8 * i);
		wb_event_set(e, F_VERIFIER, (int64_t)m);
		return 1;
	}
	return 0;
}

static int name_value(struct cursor *c, struct wb_event *e, const char *t, const char *eq,
		      const char *te)
{
	int64_t x;
	if (tok_eq(t, eq, "reason")) {
		copy_str(e->reason, sizeof(e->reason), eq + 1, te);
		return 0;
	}
	int f = field_lookup(t, eq);
	if (f < 0)
		return 0;
	if ((f == F_INO || f == F_STABLE || f == F_VERIFIER) && nfs_6x_value(c, e, f, eq + 1, te))
		return c->why ? -1 : 0;
	if (f == F_STATE ? parse_state(eq + 1, te, &x) : parse_int(eq + 1, te, &x)) {
		c->why = eq + 1 == te ? "empty value" : "bad number";
		return -1;
	}
	wb_event_set(e, (enum wb_field)f, x);
	return 0;
}

static int parse_payload(struct cursor *c, struct wb_event *e)
{
	const char *t, *te;
	while (next_token(c, &t, &te)) {
		const char *eq = memchr(t, '=', (size_t)(te - t));
		int rc = eq ? name_value(c, e, t, eq, te) : bare_word(c, e, t, te);
		if (rc)
			return rc;
	}
	return 0;
}

/* Fields every supported era prints for this event (from trace_format's
 * tables), so a line cut short is caught rather than half-counted. */
static uint64_t required_fields(enum wb_event_type t, int *need_bdi)
{
	uint64_t mask = ~(uint64_t)0;
	int any = 0;
	*need_bdi = 1;
	for (int era = 0; era < ERA_COUNT; era++) {
		const struct trace_fmt *fmt = trace_fmt_get((enum trace_era)era, t);
		if (!fmt)
			continue;
		uint64_t m = 0;
		for (int i = 0; i < fmt->nfields; i++)
			m |= (uint64_t)1 << fmt->fields[i];
		mask &= m;
		*need_bdi &= fmt->prefix != PFX_NONE;
		any = 1;
	}
	if (any)
		return mask;
	if (t == EV_WRITEBACK_QUEUE_IO)
		return (uint64_t)1 << F_OLDER | (uint64_t)1 << F_AGE | (uint64_t)1 << F_ENQUEUE;
	return 0;
}

static int check_complete(const struct wb_event *e, const char **why)
{
	int need_bdi;
	uint64_t need = required_fields(e->type, &need_bdi);
	if (need_bdi && !e->bdi[0]) {
		*why = "truncated line (no bdi)";
		return -1;
	}
	if ((e->present & need) != need) {
		*why = "truncated line (missing fields)";
		return -1;
	}
	return 0;
}

/* Does the line look like "...: <known event>: ..." although its context
 * did not parse?  Then it is a damaged event line, not noise. */
static int mentions_known_event(const char *p, const char *end)
{
	while ((p = memchr(p, ':', (size_t)(end - p))) != NULL) {
		p++;
		enum wb_event_type t;
		if (p < end && is_space(*p) && parse_event_name(p, end, &t) && t != EV_UNKNOWN)
			return 1;
	}
	return 0;
}

int trace_parse_line_why(const char *line, size_t len, struct wb_event *e, const char **why)
{
	const char *end = line + len;
	static const char *dummy;
	if (!why)
		why = &dummy;
	*why = NULL;
	while (end > line && (end[-1] == '\n' || end[-1] == '\r' || is_space(end[-1])))
		end--;
	const char *p = skip_sp(line, end);
	if (p == end || *p == '#')
		return 0;
	memset(e, 0, sizeof(*e));
	const char *after = parse_context(line, end, e);
	if (!after) {
		if (!mentions_known_event(p, end))
			return 0;
		*why = "bad line context (comm-pid [cpu] timestamp)";
		return -1;
	}
	enum wb_event_type t = EV_UNKNOWN;
	const char *payload = parse_event_name(after, end, &t);
	if (!payload || t == EV_UNKNOWN)
		return 0;
	e->type = t;
	struct cursor c = { payload, end, NULL };
	if (parse_payload(&c, e)) {
		*why = c.why;
		return -1;
	}
	return check_complete(e, why) ? -1 : 1;
}

int trace_parse_line(const char *line, size_t len, struct wb_event *e)
{
	return trace_parse_line_why(line, len, e, NULL);
}

/* ---- the reader ---- */

struct dat_src;

struct trace_reader {
	FILE *f;
	int close_f;
	char *buf;
	size_t beg, end;
	int eof, skip_rest, io_errno;
	int last_nl;                /* the line text_line gave last had its newline */
	unsigned long lineno;
	int64_t max_ts_us;          /* latest timestamp so far, and its line */
	unsigned long max_ts_line;
	FILE *echo;
	struct dat_src *dat;
	struct wbdat *wd;       /* wblab's own trace.dat: decoded without text */
	char path[512];
};

static void echo(struct trace_reader *r, const char *p, size_t n)
{
	if (r->echo && n && fwrite(p, 1, n, r->echo) != n)
		r->io_errno = errno ? errno : EIO;
}

/* Compacts the buffer and reads more; 0 at EOF or when the buffer is full. */
static size_t fill(struct trace_reader *r)
{
	if (r->beg) {
		memmove(r->buf, r->buf + r->beg, r->end - r->beg);
		r->end -= r->beg;
		r->beg = 0;
	}
	if (r->eof || r->end == RBUF)
		return 0;
	size_t n = fread(r->buf + r->end, 1, RBUF - r->end, r->f);
	if (n == 0) {
		if (ferror(r->f))
			r->io_errno = errno ? errno : EIO;
		r->eof = 1;
	}
	r->end += n;
	return n;
}

/* Drops the rest of an over-long line, up to and including its newline. */
static void skip_rest(struct trace_reader *r)
{
	while (r->skip_rest) {
		char *nl = memchr(r->buf + r->beg, '\n', r->end - r->beg);
		size_t stop = nl ? (size_t)(nl - r->buf) + 1 : r->end;
		echo(r, r->buf + r->beg, stop - r->beg);
		r->beg = stop;
		if (nl || (!fill(r) && r->beg == r->end))
			r->skip_rest = 0;
	}
}

/* One line without its newline; 0 at EOF.  Lines longer than RBUF are cut
 * (*cut set) and their tail discarded, so memory stays bounded. */
static int text_line(struct trace_reader *r, const char **line, size_t *len, int *cut)
{
	skip_rest(r);
	*cut = 0;
	for (;;) {
		char *s = r->buf + r->beg;
		char *nl = memchr(s, '\n', r->end - r->beg);
		if (nl || (r->eof && r->end > r->beg) || (r->beg == 0 && r->end == RBUF)) {
			size_t n = nl ? (size_t)(nl - s) : r->end - r->beg;
			echo(r, s, n + (nl != NULL));
			r->beg += n + (nl != NULL);
			*cut = !nl && !r->eof;
			r->last_nl = nl != NULL;
			r->skip_rest = *cut;
			*line = s;
			*len = n;
			r->lineno++;
			return 1;
		}
		if (r->eof)
			return 0;
		fill(r);
	}
}

#ifdef WBLAB_HAVE_TRACECMD
/* trace-cmd .dat: each record is printed as the kernel's text line would be
 * and goes through the same parser.  One pending record per (buffer, cpu),
 * merged by timestamp, keeps memory independent of trace length.
 *
 * libtracecmd runs in a child process that writes the lines into a pipe:
 * the library trusts the file, and a damaged one can crash it (a bad
 * option section makes tracecmd_open_fd's own error path free what it never
 * set up, 1.3.x), so a crash must end the child, not wblab.  The child
 * sends one byte once the file is open, then the lines; its exit status
 * says why it stopped. */
enum { DAT_OK = 0, DAT_UNREADABLE = 2, DAT_BAD_RECORD = 3, DAT_NOMEM = 4 };

struct dat_cpu { struct tracecmd_input *h; int cpu; struct tep_record *rec; };

struct dat_in {
	struct tracecmd_input *top;
	struct dat_cpu *cpus;
	int ncpus;
	struct trace_seq info;
	char *line;
	size_t cap;
};

struct dat_src { pid_t pid; int reaped; };

static int dat_add(struct dat_in *d, struct tracecmd_input *h)
{
	int n = tep_get_cpus(tracecmd_get_tep(h));
	if (n <= 0)
		return 0;
	struct dat_cpu *c = realloc(d->cpus, sizeof(*c) * (size_t)(d->ncpus + n));
	if (!c)
		return -1;
	d->cpus = c;
	for (int i = 0; i < n; i++) {
		c[d->ncpus].h = h;
		c[d->ncpus].cpu = i;
		c[d->ncpus++].rec = tracecmd_read_cpu_first(h, i);
	}
	return 0;
}

static int dat_format(struct dat_in *d, struct tracecmd_input *h, struct tep_record *rec)
{
	struct tep_handle *tep = tracecmd_get_tep(h);
	struct tep_event *ev = tep_find_event_by_record(tep, rec);
	int pid = tep_data_pid(tep, rec);
	const char *comm = tep_data_comm_from_pid(tep, pid);
	unsigned long long us = (rec->ts + 500) / 1000;   /* rounded, as the kernel prints */
	trace_seq_reset(&d->info);
	if (ev)
		tep_print_event(tep, &d->info, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&d->info);
	for (;;) {
		int n = snprintf(d->line, d->cap, "%16s-%-5d [%03d] %5llu.%06llu: %s: %s\n",
				 comm ? comm : "<...>", pid, rec->cpu, us / 1000000, us % 1000000,
				 ev ? ev->name : "unknown", d->info.buffer ? d->info.buffer : "");
		if (n < 0)
			return -1;
		if ((size_t)n < d->cap)
			return n;
		char *nl = realloc(d->line, (size_t)n + 64);
		if (!nl)
			return -1;
		d->line = nl;
		d->cap = (size_t)n + 64;
	}
}

/* The child: every record of all buffers and CPUs in timestamp order, as
 * text lines into out.  Returns its exit status.  Nothing is freed: the
 * process ends. */
static int dat_child(const char *path, FILE *out)
{
	struct dat_in d = { 0 };
	trace_seq_init(&d.info);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	d.top = tracecmd_open(path, 0);
	if (!d.top)
		return DAT_UNREADABLE;
	if (dat_add(&d, d.top))
		return DAT_NOMEM;
	int n = tracecmd_buffer_instances(d.top);
	for (int i = 0; i < n; i++) {
		struct tracecmd_input *h = tracecmd_buffer_instance_handle(d.top, i);
		if (h && dat_add(&d, h))
			return DAT_NOMEM;
	}
	if (fputc('+', out) == EOF || fflush(out))
		return DAT_OK;   /* the reader is gone */
	for (;;) {
		struct dat_cpu *best = NULL;
		for (int i = 0; i < d.ncpus; i++)
			if (d.cpus[i].rec && (!best || d.cpus[i].rec->ts < best->rec->ts))
				best = &d.cpus[i];
		if (!best)
			break;
		int len = dat_format(&d, best->h, best->rec);
		tracecmd_free_record(best->rec);
		best->rec = tracecmd_read_data(best->h, best->cpu);
		if (len < 0)
			return DAT_NOMEM;
		if (fwrite(d.line, 1, (size_t)len, out) != (size_t)len)
			return DAT_OK;
	}
	fflush(out);
	return DAT_OK;
}

/* Why the child stopped, as the reader's error; 0 when it finished. */
static int dat_reap(struct trace_reader *r, char *err, size_t errlen)
{
	struct dat_src *d = r->dat;
	int st = 0;
	if (d->reaped)
		return 0;
	d->reaped = 1;
	pid_t got;
	while ((got = waitpid(d->pid, &st, 0)) < 0 && errno == EINTR)
		;
	if (got != d->pid)
		st = W_EXITCODE(DAT_BAD_RECORD, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st) == DAT_OK)
		return 0;
	if (WIFSIGNALED(st))
		snprintf(err, errlen, "%s: a damaged trace-cmd .dat file: libtracecmd died reading it "
			 "(signal %d)", r->path, WTERMSIG(st));
	else if (WEXITSTATUS(st) == DAT_UNREADABLE)
		snprintf(err, errlen, "%s: not a readable trace-cmd .dat file", r->path);
	else if (WEXITSTATUS(st) == DAT_NOMEM)
		snprintf(err, errlen, "%s: out of memory", r->path);
	else
		snprintf(err, errlen, "%s: cannot read trace-cmd record", r->path);
	return -1;
}

/* A damaged header can make libtracecmd ask for ~100 GB from a 64 KB file:
 * the child may map its file and a few times its size, at least 8 GiB, and
 * fails an allocation past that instead of pushing the machine into swap.
 * Not under ASan, whose shadow memory is terabytes of address space. */
static void limit_memory(FILE *f)
{
#if !defined(__SANITIZE_ADDRESS__)
	struct stat st;
	rlim_t lim = 8ULL << 30;
	if (!fstat(fileno(f), &st) && (rlim_t)st.st_size > lim / 8)
		lim = (rlim_t)st.st_size * 8;
	struct rlimit rl = { lim, lim };
	setrlimit(RLIMIT_AS, &rl);
#else
	(void)f;
#endif
}

static int dat_open(struct trace_reader *r, char *err, size_t errlen)
{
	int fds[2];
	struct dat_src *d = calloc(1, sizeof(*d));
	if (!d || pipe2(fds, O_CLOEXEC)) {
		snprintf(err, errlen, "%s: %s", r->path, d ? strerror(errno) : "out of memory");
		free(d);
		return -1;
	}
	fflush(NULL);   /* nothing buffered twice */
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGTERM, SIG_DFL);   /* the death signal must end it */
		die_with_parent(parent);   /* not left spinning on a damaged file */
		limit_memory(r->f);
		close(fds[0]);
		int null = open("/dev/null", O_WRONLY);   /* the library's own messages */
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		FILE *out = fdopen(fds[1], "w");
		_exit(out ? dat_child(r->path, out) : DAT_NOMEM);
	}
	close(fds[1]);
	FILE *in = pid > 0 ? fdopen(fds[0], "r") : NULL;
	if (!in) {
		snprintf(err, errlen, "%s: cannot start the .dat reader: %s", r->path, strerror(errno));
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		close(fds[0]);
		free(d);
		return -1;
	}
	d->pid = pid;
	r->dat = d;
	/* from here the reader reads the child's text instead of the file */
	if (r->close_f)
		fclose(r->f);
	r->f = in;
	r->close_f = 1;
	r->beg = r->end = 0;
	r->eof = 0;
	if (fgetc(in) != '+') {
		if (!dat_reap(r, err, errlen))
			snprintf(err, errlen, "%s: cannot read trace-cmd record", r->path);
		return -1;
	}
	return 0;
}

/* Next line of the child's text; at its end, whether the child finished. */
static int dat_line(struct trace_reader *r, const char **line, size_t *len, char *err,
		    size_t errlen)
{
	int cut;
	int got = text_line(r, line, len, &cut);
	if (got && cut) {
		snprintf(err, errlen, "%s:%lu: line too long", r->path, r->lineno);
		return -1;
	}
	/* the child ends every line: one without its newline is where it died
	 * mid-write, and its cut fields must not be read as an event */
	if (got && !r->last_nl) {
		if (!dat_reap(r, err, errlen))
			snprintf(err, errlen, "%s: cannot read trace-cmd record", r->path);
		return -1;
	}
	if (!got && dat_reap(r, err, errlen))
		return -1;
	return got;
}

static void dat_close(struct trace_reader *r)
{
	struct dat_src *d = r->dat;
	if (!d)
		return;
	if (!d->reaped) {
		kill(d->pid, SIGKILL);
		waitpid(d->pid, NULL, 0);
	}
	free(d);
	r->dat = NULL;
}
#else
static int dat_open(struct trace_reader *r, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: trace-cmd .dat file, but wblab was built without libtracecmd "
		 "(convert it with 'trace-cmd report' first)", r->path);
	return -1;
}
static int dat_line(struct trace_reader *r, const char **line, size_t *len, char *err,
		    size_t errlen)
{
	(void)r; (void)line; (void)len; (void)err; (void)errlen;
	return 0;
}
static void dat_close(struct trace_reader *r)
{
	(void)r;
}
#endif

/* Common part of the two openers: sniff the .dat magic. */
static struct trace_reader *reader_init(FILE *f, int close_f, const char *name, char *err,
					size_t errlen)
{
	struct trace_reader *r = calloc(1, sizeof(*r));
	if (!r || !(r->buf = malloc(RBUF))) {
		snprintf(err, errlen, "%s: out of memory", name);
		if (close_f)
			fclose(f);
		free(r);
		return NULL;
	}
	snprintf(r->path, sizeof(r->path), "%s", name);
	r->f = f;
	r->close_f = close_f;
	while (r->end < sizeof(DAT_MAGIC) - 1 && fill(r))
		;
	if (r->io_errno) {
		snprintf(err, errlen, "%s: %s", r->path, strerror(r->io_errno));
		goto fail;
	}
	if (r->end >= sizeof(DAT_MAGIC) - 1 && !memcmp(r->buf, DAT_MAGIC, sizeof(DAT_MAGIC) - 1)) {
		if (!close_f) {
			snprintf(err, errlen, "%s: a trace-cmd .dat input must be a named file", r->path);
			goto fail;
		}
		r->wd = wbdat_open(r->path, err, errlen);
		if (!r->wd && (err[0] || dat_open(r, err, errlen)))
			goto fail;
	}
	return r;
fail:
	trace_reader_close(r);
	return NULL;
}

struct trace_reader *trace_reader_open(const char *path, char *err, size_t errlen)
{
	if (!strcmp(path, "-"))
		return reader_init(stdin, 0, "<stdin>", err, errlen);
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	return reader_init(f, 1, path, err, errlen);
}

struct trace_reader *trace_reader_open_result(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen_regular(path, 1, err, errlen);
	return f ? reader_init(f, 1, path, err, errlen) : NULL;
}

struct trace_reader *trace_reader_fopen(FILE *f, const char *name, char *err, size_t errlen)
{
	return reader_init(f, 0, name, err, errlen);
}

void trace_reader_set_echo(struct trace_reader *r, FILE *f)
{
	r->echo = f;
}

int trace_reader_is_empty(const struct trace_reader *r)
{
	/* reader_init read until it had the .dat magic's length or the end */
	return r->end == 0 && !r->dat && !r->wd;
}

int trace_reader_is_dat(const struct trace_reader *r)
{
	return r->dat != NULL || r->wd != NULL;
}

int trace_reader_era(const struct trace_reader *r)
{
	return r->wd ? (int)wbdat_era(r->wd) : -1;
}

const char *trace_result_path(const char *dir, char *buf, size_t n)
{
	snprintf(buf, n, "%s/trace.dat", dir);
	if (access(buf, F_OK) == 0)
		return buf;
	snprintf(buf, n, "%s/trace", dir);
	return buf;
}

/* A bad line for a message: printable, bounded, no NULs; when it does not
 * fit, from the event's name on (after "comm-pid [cpu] flags ts: ", the same
 * on every line) and "..." where it is cut, so the field at fault is
 * usually in view. */
static void quote_line(char *out, size_t cap, const char *line, size_t len)
{
	const char *end = line + len, *p = skip_sp(line, end);
	int fits = (size_t)(end - p) < cap;
	for (const char *q = fits ? NULL : memchr(p, ']', (size_t)(end - p)); q && q + 1 < end; q++)
		if (q[0] == ':' && q[1] == ' ') {
			p = q + 2;
			break;
		}
	size_t avail = (size_t)(end - p), keep = avail < cap ? avail : (cap > 4 ? cap - 4 : 0);
	for (size_t i = 0; i < keep; i++) {
		unsigned char c = (unsigned char)p[i];
		out[i] = c >= ' ' && c < 127 ? (char)c : '?';
	}
	if (keep < avail && cap > 4) {
		memcpy(out + keep, "...", 3);
		keep += 3;
	}
	out[keep < cap ? keep : cap - 1] = 0;
}

/* A wblab trace.dat's next event echoed as text (wblab import keeps it). */
static int __attribute__((noinline)) dat_echo(struct trace_reader *r, const struct wb_event *e,
					       char *err, size_t errlen)
{
	char text[1024];
	size_t n = trace_format_line(wbdat_era(r->wd), e, text, sizeof(text) - 1);
	text[n++] = '\n';
	echo(r, text, n);
	if (r->io_errno) {
		snprintf(err, errlen, "%s: %s", r->path, strerror(r->io_errno));
		return -1;
	}
	return 1;
}

/* Text and libtracecmd's records: a line parsed into e (apart from the .dat
 * fast path, whose call per event stays small: this one's frame is big). */
static int __attribute__((noinline)) text_next(struct trace_reader *r, struct wb_event *e, char *err,
						size_t errlen)
{
	const char *line, *why;
	size_t len;
	int cut = 0;
	for (;;) {
		int got = r->dat ? dat_line(r, &line, &len, err, errlen)
				 : text_line(r, &line, &len, &cut);
		if (r->io_errno) {
			snprintf(err, errlen, "%s:%lu: %s", r->path, r->lineno, strerror(r->io_errno));
			return -1;
		}
		if (got < 0)
			return -1;
		if (!got)
			return 0;
		int rc = trace_parse_line_why(line, len, e, &why);
		if (rc == 1 && cut) {
			rc = -1;
			why = "line too long";
		}
		if (rc == 1 && r->max_ts_line && e->ts_us < r->max_ts_us - TS_BACK_TOLERANCE_US) {
			snprintf(err, errlen, "%s:%lu: timestamp %lld.%06lld goes back %.6f s (line %lu "
				 "is at %lld.%06lld): not one trace in time order", r->path, r->lineno,
				 (long long)(e->ts_us / 1000000), (long long)(e->ts_us % 1000000),
				 (double)(r->max_ts_us - e->ts_us) / 1e6, r->max_ts_line,
				 (long long)(r->max_ts_us / 1000000), (long long)(r->max_ts_us % 1000000));
			return -1;
		}
		if (rc == 1) {
			if (!r->max_ts_line || e->ts_us > r->max_ts_us) {
				r->max_ts_us = e->ts_us;
				r->max_ts_line = r->lineno;
			}
			return 1;
		}
		if (rc < 0) {
			char shown[200];
			quote_line(shown, sizeof(shown), line, len);
			snprintf(err, errlen, "%s:%lu: %s: '%s'", r->path, r->lineno, why, shown);
			return -1;
		}
	}
}

/* Page counts past 2^48 (1 EiB of 4 KiB pages) are no machine's: a wrapped
 * or made-up value that the sums and means of the stats would overflow on. */
#define PAGES_MAX (1LL << 48)

static int pages_sane(const struct trace_reader *r, const struct wb_event *e, char *err, size_t errlen)
{
	/* the counts, which the stats sum; not the thresholds, which a huge
	 * vm.dirty_bytes (as "no limit") makes huge on a real kernel */
	static const enum wb_field pages[] = { F_DIRTY, F_WRITEBACK, F_UNSTABLE, F_DIRTIED, F_WRITTEN };
	for (size_t i = 0; i < ARRAY_SIZE(pages); i++)
		if (wb_event_has(e, pages[i]) && (e->v[pages[i]] < 0 || e->v[pages[i]] >= PAGES_MAX)) {
			snprintf(err, errlen, "%s:%lu: %s=%lld pages is no machine's (0 to 2^48)", r->path,
				 r->lineno, wb_field_name(pages[i]), (long long)e->v[pages[i]]);
			return -1;
		}
	return 1;
}

int trace_reader_next(struct trace_reader *r, struct wb_event *e, char *err, size_t errlen)
{
	if (!r->wd) {
		int rc = text_next(r, e, err, errlen);
		return rc == 1 ? pages_sane(r, e, err, errlen) : rc;
	}
	int rc = wbdat_next(r->wd, e, err, errlen);
	if (rc == 1) {
		r->lineno++;
		if (pages_sane(r, e, err, errlen) < 0)
			return -1;
		if (r->echo)
			return dat_echo(r, e, err, errlen);
	}
	return rc;
}

unsigned long trace_reader_lineno(const struct trace_reader *r)
{
	return r->lineno;
}

void trace_reader_close(struct trace_reader *r)
{
	if (!r)
		return;
	dat_close(r);
	wbdat_close(r->wd);
	if (r->f && r->close_f)
		fclose(r->f);
	free(r->buf);
	free(r);
}
