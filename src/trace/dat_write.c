/* trace-cmd .dat (v7) writer of our own: events go into per-CPU ring-buffer
 * pages as the kernel lays them out (32-bit event headers, time-extend
 * records for deltas of 2^27 ns and more), full pages are zstd-compressed in
 * chunks of DAT_CHUNK_PAGES and kept in memory; dat_writer_close writes the
 * file header, the metadata sections and the chunks.  Format:
 * Documentation/trace-cmd/trace-cmd.dat.v7.txt of trace-cmd. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define ZSTD_STATIC_LINKING_ONLY   /* ZSTD_c_literalCompressionMode */
#include <zstd.h>
#include "dat_write.h"
#include "dat_format.h"
#include "dat_file.h"
#include "../util/util.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .dat writer writes little-endian files with host-order stores"
#endif

#define MAX_CPUS 1024
#define MAX_PID (1 << 22)
#define TS_SHIFT 27
#define SUBUS_MAX 499   /* sub-microsecond tie-break; trace-cmd rounds to the us */

struct wcpu {
	unsigned char *chunk;  /* DAT_CHUNK_PAGES pages */
	int npages;            /* complete pages in chunk */
	int open;              /* page npages is being filled */
	size_t used;           /* data bytes in the open page */
	uint64_t last_ts;
	unsigned char *z;      /* compressed chunks, each [zsize][usize][bytes] */
	size_t zlen, zcap;
	uint32_t nchunks;
};

struct dat_writer {
	FILE *f;
	enum trace_era era;
	char kernel[64];
	struct wcpu *cpu[MAX_CPUS];
	int ncpus;
	char (*comm)[16];      /* by pid */
	int npid;
	ZSTD_CCtx *zc;
	int error;
	unsigned long inexact;
	int64_t prev_us;
	int prev_cpu;
	int subus;
	/* each event type's layout, looked up at its first event */
	const struct dat_event *de[EV_TYPE_COUNT];
	unsigned char de_known[EV_TYPE_COUNT];
	struct dat_plan *plan[EV_TYPE_COUNT];
	/* the last short bdi name as the event carried it (bytes after its NUL
	 * included) and NUL-padded: most events name one of a few bdis */
	char bdi_key[16], bdi_pad[16];
};

/* An event type's integer fields sorted by how they are stored, so that the
 * per-event loop is a copy (and a range check where the kernel type is
 * narrower or unsigned) instead of a switch on every field; the rest
 * (bdi name, inode state, reason) goes through the general loop. */
struct dat_slot { unsigned short offset; unsigned short f; };
struct dat_plan {
	int n8s, n8u, n4s, n4u, nrest;
	struct dat_slot s8s[DAT_MAX_FIELDS], s8u[DAT_MAX_FIELDS], s4s[DAT_MAX_FIELDS],
		s4u[DAT_MAX_FIELDS];
	const struct dat_field *rest[DAT_MAX_FIELDS];
};

static struct dat_plan *plan_make(const struct dat_event *d)
{
	struct dat_plan *pl = calloc(1, sizeof(*pl));
	if (!pl)
		return NULL;
	for (int i = 0; i < d->nfields; i++) {
		const struct dat_field *x = &d->fields[i];
		struct dat_slot sl = { x->offset, (unsigned short)x->f };
		if (x->kind != DK_NUM)
			pl->rest[pl->nrest++] = x;
		else if (x->size == 8)
			*(x->is_signed ? &pl->s8s[pl->n8s++] : &pl->s8u[pl->n8u++]) = sl;
		else
			*(x->is_signed ? &pl->s4s[pl->n4s++] : &pl->s4u[pl->n4u++]) = sl;
	}
	return pl;
}

unsigned long dat_writer_inexact(const struct dat_writer *w)
{
	return w->inexact;
}

struct dat_writer *dat_writer_open(const char *path, enum trace_era era, const char *kernel_name)
{
	struct dat_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->f = fopen(path, "wb");
	w->zc = ZSTD_createCCtx();
	if (w->zc) {
		ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, DAT_ZSTD_LEVEL);
		/* each frame carries its content checksum (XXH64, 4 bytes): with
		 * literals stored raw (below) a damaged literal byte would
		 * otherwise decode into a silently wrong field */
		ZSTD_CCtx_setParameter(w->zc, ZSTD_c_checksumFlag, 1);
		/* literals stored as they are, not Huffman-coded: 7 % of the
		 * compression's instructions for 1.3 % of the file (3.2 10 dd 1M,
		 * 30 s: 1.60 -> 1.62 MB).  The parameter is of zstd's
		 * experimental API (1.4.0 on, as ZSTD_compress2): a libzstd that
		 * ever refuses it returns an error, ignored here, and compresses
		 * them as before; the value's name changed in 1.5.1 */
#if ZSTD_VERSION_NUMBER >= 10501
		ZSTD_CCtx_setParameter(w->zc, ZSTD_c_literalCompressionMode, ZSTD_ps_disable);
#else
		ZSTD_CCtx_setParameter(w->zc, ZSTD_c_literalCompressionMode, ZSTD_lcm_uncompressed);
#endif
	}
	if (!w->f || !w->zc) {
		if (w->f)
			fclose(w->f);
		ZSTD_freeCCtx(w->zc);
		free(w);
		return NULL;
	}
	w->era = era;
	w->prev_us = -1;
	snprintf(w->kernel, sizeof(w->kernel), "%s", kernel_name ? kernel_name : "");
	return w;
}

static int grow(unsigned char **p, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 1 << 16;
	while (n < need)
		n *= 2;
	unsigned char *q = realloc(*p, n);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }

static void compress_chunk(struct dat_writer *w, struct wcpu *c)
{
	size_t usize = (size_t)c->npages * DAT_PAGE_SIZE;
	size_t bound = ZSTD_compressBound(usize);
	if (grow(&c->z, &c->zcap, c->zlen + 8 + bound)) {
		w->error = ENOMEM;
		return;
	}
	size_t zs = ZSTD_compress2(w->zc, c->z + c->zlen + 8, bound, c->chunk, usize);
	if (ZSTD_isError(zs)) {
		w->error = EIO;
		return;
	}
	put32(c->z + c->zlen, (uint32_t)zs);
	put32(c->z + c->zlen + 4, (uint32_t)usize);
	c->zlen += 8 + zs;
	c->nchunks++;
	c->npages = 0;
}

static void close_page(struct dat_writer *w, struct wcpu *c)
{
	unsigned char *pg = c->chunk + (size_t)c->npages * DAT_PAGE_SIZE;
	put64(pg + 8, c->used);          /* commit */
	c->open = 0;
	if (++c->npages == DAT_CHUNK_PAGES)
		compress_chunk(w, c);
}

static struct wcpu *get_cpu(struct dat_writer *w, int cpu)
{
	if (cpu < 0 || cpu >= MAX_CPUS)
		return NULL;
	if (!w->cpu[cpu]) {
		struct wcpu *c = calloc(1, sizeof(*c));
		if (!c || !(c->chunk = malloc((size_t)DAT_CHUNK_PAGES * DAT_PAGE_SIZE))) {
			free(c);
			w->error = ENOMEM;
			return NULL;
		}
		w->cpu[cpu] = c;
	}
	if (cpu >= w->ncpus)
		w->ncpus = cpu + 1;
	return w->cpu[cpu];
}

static void note_comm(struct dat_writer *w, const struct wb_event *e)
{
	if (e->pid <= 0 || e->pid >= MAX_PID) {
		if (e->pid < 0 || e->pid >= MAX_PID || strcmp(e->comm, "<idle>"))
			w->inexact++;
		return;
	}
	if (e->pid >= w->npid) {
		int n = w->npid ? w->npid : 4096;
		while (n <= e->pid)
			n *= 2;
		char (*q)[16] = realloc(w->comm, (size_t)n * sizeof(*q));
		if (!q) {
			w->error = ENOMEM;
			return;
		}
		memset(q + w->npid, 0, (size_t)(n - w->npid) * sizeof(*q));
		w->comm = q;
		w->npid = n;
	}
	char *c = w->comm[e->pid];
	if (!c[0]) {
		if (strlen(e->comm) >= 16 || !e->comm[0])
			w->inexact++;
		const char *src = e->comm[0] ? e->comm : "<...>";
		size_t n = strnlen(src, 15);
		memcpy(c, src, n);
		c[n] = 0;
	} else if (memcmp(c, e->comm, 16) != 0) {
		/* The simulator's comms are NUL-padded, so the 16 bytes compare
		 * whole (above, one inline compare) whenever the name is the
		 * same; otherwise strncmp(c, e->comm, 16) inline, reading no
		 * byte of e->comm past its NUL; c holds at most 15 bytes and a
		 * NUL, so the loop stops by c[15] */
		const char *b = e->comm;
		int i = 0;
		while (c[i] && c[i] == b[i])
			i++;
		if (c[i] != b[i])
			w->inexact++;
	}
}

/* Stores v in size bytes; counts it when the kernel type cannot hold it. */
static inline __attribute__((always_inline)) void put_num(struct dat_writer *w, unsigned char *p,
							  const struct dat_field *x, int64_t v)
{
	if (x->size == 8) {
		if (!x->is_signed && v < 0)
			w->inexact++;
		memcpy(p, &v, 8);
	} else {
		if (x->is_signed ? v < INT32_MIN || v > INT32_MAX : v < 0 || v > (int64_t)UINT32_MAX)
			w->inexact++;
		uint32_t u = (uint32_t)v;
		memcpy(p, &u, 4);
	}
}

static void write_event(struct dat_writer *w, const struct wb_event *e)
{
	if ((unsigned)e->type >= EV_TYPE_COUNT)
		return;
	if (!w->de_known[e->type]) {
		w->de[e->type] = dat_event_get(w->era, e->type);
		w->de_known[e->type] = 1;
		if (w->de[e->type] && !(w->plan[e->type] = plan_make(w->de[e->type])))
			w->error = ENOMEM;
	}
	const struct dat_event *d = w->de[e->type];
	if (!d || w->error)
		return;
	struct wcpu *c = get_cpu(w, e->cpu);
	if (!c) {
		w->inexact++;
		return;
	}
	note_comm(w, e);
	/* A later CPU's event within the same microsecond gets a later ns, so
	 * merging the CPUs by timestamp restores the order of emission. */
	if (e->ts_us == w->prev_us) {
		if (e->cpu != w->prev_cpu) {
			if (w->subus < SUBUS_MAX)
				w->subus++;
			else
				w->inexact++;
		}
	} else {
		w->subus = 0;
	}
	w->prev_us = e->ts_us;
	w->prev_cpu = e->cpu;
	uint64_t ts = (uint64_t)(e->ts_us < 0 ? 0 : e->ts_us) * 1000 + (uint64_t)w->subus;

	size_t hdr = d->size <= 28 * 4 ? 4 : 8;
	size_t need = hdr + (size_t)d->size;
	uint64_t delta = c->open ? ts - c->last_ts : 0;
	if (c->open && delta >> TS_SHIFT)
		need += 8;
	if (c->open && c->used + need > DAT_PAGE_SIZE - DAT_PAGE_HDR) {
		close_page(w, c);
		if (w->error)
			return;
	}
	unsigned char *pg = c->chunk + (size_t)c->npages * DAT_PAGE_SIZE;
	if (!c->open) {
		memset(pg, 0, DAT_PAGE_SIZE);
		put64(pg, ts);
		c->open = 1;
		c->used = 0;
		delta = 0;
		need = hdr + (size_t)d->size;
	}
	unsigned char *p = pg + DAT_PAGE_HDR + c->used;
	if (delta >> TS_SHIFT) {    /* time extend: type 30, delta split 27 + 32 bits */
		put32(p, (uint32_t)((delta & ((1u << TS_SHIFT) - 1)) << 5) | 30);
		put32(p + 4, (uint32_t)(delta >> TS_SHIFT));
		p += 8;
		delta = 0;
	}
	if (hdr == 4) {
		put32(p, (uint32_t)(delta << 5) | (uint32_t)(d->size / 4));
	} else {
		put32(p, (uint32_t)(delta << 5));
		put32(p + 4, (uint32_t)d->size + 4);
	}
	p += hdr;
	c->used += need;
	c->last_ts = ts;

	uint16_t type = (uint16_t)d->id;
	int32_t pid = e->pid;
	/* no memset: the page was zeroed when opened and records only append */
	memcpy(p, &type, 2);
	memcpy(p + 4, &pid, 4);
	const struct dat_plan *pl = w->plan[e->type];
	unsigned long bad = 0;
	for (int i = 0; i < pl->n8s; i++)
		memcpy(p + pl->s8s[i].offset, &e->v[pl->s8s[i].f], 8);
	for (int i = 0; i < pl->n8u; i++) {
		int64_t v = e->v[pl->s8u[i].f];
		bad += v < 0;
		memcpy(p + pl->s8u[i].offset, &v, 8);
	}
	for (int i = 0; i < pl->n4s; i++) {
		int64_t v = e->v[pl->s4s[i].f];
		bad += v < INT32_MIN || v > INT32_MAX;
		uint32_t u = (uint32_t)v;
		memcpy(p + pl->s4s[i].offset, &u, 4);
	}
	for (int i = 0; i < pl->n4u; i++) {
		int64_t v = e->v[pl->s4u[i].f];
		bad += v < 0 || v > (int64_t)UINT32_MAX;
		uint32_t u = (uint32_t)v;
		memcpy(p + pl->s4u[i].offset, &u, 4);
	}
	w->inexact += bad;
	for (int i = 0; i < pl->nrest; i++) {
		const struct dat_field *x = pl->rest[i];
		unsigned char *q = p + x->offset;
		switch (x->kind) {
		case DK_BDI: {
			_Static_assert(sizeof(e->bdi) >= 16 && DAT_BDI_LEN >= 16, "bdi names");
			if (!memcmp(e->bdi, w->bdi_key, 16)) {
				memcpy(q, w->bdi_pad, 16);   /* the field was zeroed with the page */
				break;
			}
			size_t n = strnlen(e->bdi, sizeof(e->bdi));
			if (n < 16) {
				memcpy(w->bdi_key, e->bdi, 16);
				memset(w->bdi_pad, 0, 16);
				memcpy(w->bdi_pad, e->bdi, n);
			}
			if (n >= DAT_BDI_LEN) {
				n = DAT_BDI_LEN - 1;
				w->inexact++;
			}
			memcpy(q, e->bdi, n);
			break;
		}
		case DK_STATE:
			if (e->v[x->f] & ~(int64_t)(WB_I_DIRTY_SYNC | WB_I_DIRTY_DATASYNC |
						    WB_I_DIRTY_PAGES | WB_I_SYNC))
				w->inexact++;
			put_num(w, q, x, e->v[x->f]);
			break;
		case DK_SBDEV:
			break;
		case DK_REASON: {
			int code = dat_reason_code(e->reason);
			if (code < 0) {
				w->inexact++;
				code = 0;
			}
			put_num(w, q, x, code);
			break;
		}
		}
	}
}

/* The warning names events: one however many of its values are off. */
void dat_write_event(struct dat_writer *w, const struct wb_event *e)
{
	unsigned long before = w->inexact;
	write_event(w, e);
	if (w->inexact > before)
		w->inexact = before + 1;
}

/* ---- the file ---- */

struct buf { unsigned char *p; size_t n, cap; int err; };

static void b_put(struct buf *b, const void *s, size_t n)
{
	if (!n)
		return;
	if (b->err || grow(&b->p, &b->cap, b->n + n)) {
		b->err = 1;
		return;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
}
static void b_u16(struct buf *b, uint16_t v) { b_put(b, &v, 2); }
static void b_u32(struct buf *b, uint32_t v) { b_put(b, &v, 4); }
static void b_u64(struct buf *b, uint64_t v) { b_put(b, &v, 8); }
static void b_str(struct buf *b, const char *s) { b_put(b, s, strlen(s) + 1); }

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
static const char header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

/* A compressed section body: [zsize][usize][zstd frame]. */
static int compress_section(struct dat_writer *w, const struct buf *in, struct buf *out)
{
	size_t bound = ZSTD_compressBound(in->n);
	if (in->err || grow(&out->p, &out->cap, 8 + bound))
		return -1;
	size_t zs = ZSTD_compressCCtx(w->zc, out->p + 8, bound, in->p, in->n, DAT_ZSTD_LEVEL);
	if (ZSTD_isError(zs))
		return -1;
	put32(out->p, (uint32_t)zs);
	put32(out->p + 4, (uint32_t)in->n);
	out->n = 8 + zs;
	return 0;
}

static void event_formats(struct dat_writer *w, struct buf *b)
{
	static const char *const systems[] = { "writeback", "nfs" };
	char text[4096];
	b_u32(b, 2);
	for (int s = 0; s < 2; s++) {
		uint32_t n = 0;
		for (int t = 1; t < EV_TYPE_COUNT; t++) {
			const struct dat_event *d = dat_event_get(w->era, (enum wb_event_type)t);
			n += d && !strcmp(d->system, systems[s]);
		}
		b_str(b, systems[s]);
		b_u32(b, n);
		for (int t = 1; t < EV_TYPE_COUNT; t++) {
			const struct dat_event *d = dat_event_get(w->era, (enum wb_event_type)t);
			if (!d || strcmp(d->system, systems[s]))
				continue;
			size_t len = dat_event_format(d, text, sizeof(text));
			if (!len)
				b->err = 1;
			b_u64(b, len);
			b_put(b, text, len);
		}
	}
}

static void cmdlines(struct dat_writer *w, struct buf *b)
{
	struct buf t = { 0 };
	char line[64];
	for (int pid = 1; pid < w->npid; pid++)
		if (w->comm[pid][0]) {
			int n = snprintf(line, sizeof(line), "%d %s\n", pid, w->comm[pid]);
			b_put(&t, line, (size_t)n);
		}
	b_u64(b, t.n);
	b_put(b, t.p, t.n);
	b->err |= t.err;
	free(t.p);
}

static void section_header(struct buf *b, uint16_t id, uint16_t flags, uint32_t str, uint64_t size)
{
	b_u16(b, id);
	b_u16(b, flags);
	b_u32(b, str);
	b_u64(b, size);
}

static void free_cpus(struct dat_writer *w)
{
	for (int i = 0; i < w->ncpus; i++)
		if (w->cpu[i]) {
			free(w->cpu[i]->chunk);
			free(w->cpu[i]->z);
			free(w->cpu[i]);
		}
	free(w->comm);
	for (int i = 0; i < EV_TYPE_COUNT; i++)
		free(w->plan[i]);
	ZSTD_freeCCtx(w->zc);
}

void dat_writer_abort(struct dat_writer *w)
{
	if (!w)
		return;
	fclose(w->f);
	free_cpus(w);
	free(w);
}

int dat_writer_close(struct dat_writer *w)
{
	if (!w)
		return 0;
	for (int i = 0; i < w->ncpus; i++) {
		struct wcpu *c = w->cpu[i];
		if (c && c->open)
			close_page(w, c);
		if (c && c->npages && !w->error)
			compress_chunk(w, c);
	}
	if (w->ncpus == 0)
		w->ncpus = 1;   /* one empty CPU: trace-cmd wants a buffer */

	/* strings: the section descriptions */
	static const char strings[] = "options\0headers\0events\0cmdlines\0flyrecord\0strings";
	enum { S_OPTIONS = 0, S_HEADERS = 8, S_EVENTS = 16, S_CMDLINES = 23, S_FLY = 32,
	       S_STRINGS = 42 };
	struct buf hi = { 0 }, ev = { 0 }, cl = { 0 }, zhi = { 0 }, zev = { 0 }, zcl = { 0 };
	struct buf head = { 0 }, opt = { 0 }, out = { 0 };
	b_put(&hi, "header_page", 12);
	b_u64(&hi, sizeof(header_page) - 1);
	b_put(&hi, header_page, sizeof(header_page) - 1);
	b_put(&hi, "header_event", 13);
	b_u64(&hi, sizeof(header_event) - 1);
	b_put(&hi, header_event, sizeof(header_event) - 1);
	event_formats(w, &ev);
	cmdlines(w, &cl);
	int bad = w->error || compress_section(w, &hi, &zhi) || compress_section(w, &ev, &zev) ||
		  compress_section(w, &cl, &zcl);

	/* file header */
	b_put(&head, "\x17\x08\x44tracing", 10);
	b_str(&head, "7");
	b_put(&head, "\0\x08", 2);           /* little endian, 8-byte long */
	b_u32(&head, DAT_PAGE_SIZE);
	b_str(&head, "zstd");
	b_str(&head, ZSTD_versionString());
	uint64_t opt_off = head.n + 8;
	b_u64(&head, opt_off);

	/* option sizes are fixed once the CPU count is known: compute the layout */
	char uname[160], version[64];
	snprintf(uname, sizeof(uname), "wblab-sim era=%s kernel=%s", dat_era_name(w->era), w->kernel);
	snprintf(version, sizeof(version), "wblab %s", WBLAB_VERSION);
	size_t buffer_opt = 8 + 1 + 6 + 4 + 4 + (size_t)w->ncpus * 20;
	size_t opt_body = (6 + 4) + (6 + strlen(uname) + 1) + (6 + strlen(version) + 1) +
			  3 * (6 + 8) + (6 + buffer_opt) + (6 + 8);
	uint64_t hi_off = opt_off + 16 + opt_body;
	uint64_t ev_off = hi_off + 16 + zhi.n;
	uint64_t cl_off = ev_off + 16 + zev.n;
	uint64_t str_off = cl_off + 16 + zcl.n;
	uint64_t fly_off = str_off + 16 + sizeof(strings);
	uint64_t data_off = (fly_off + 16 + DAT_PAGE_SIZE - 1) / DAT_PAGE_SIZE * DAT_PAGE_SIZE;
	uint64_t cpu_off[MAX_CPUS], cpu_size[MAX_CPUS], end = data_off;
	for (int i = 0; i < w->ncpus; i++) {
		struct wcpu *c = w->cpu[i];
		cpu_size[i] = c && c->nchunks ? 4 + c->zlen : 0;
		cpu_off[i] = cpu_size[i] ? end : 0;
		end += cpu_size[i];
	}

	section_header(&opt, DAT_OPTION_DONE, 0, S_OPTIONS, opt_body);
	b_u16(&opt, DAT_OPTION_CPUCOUNT);
	b_u32(&opt, 4);
	b_u32(&opt, (uint32_t)w->ncpus);
	b_u16(&opt, DAT_OPTION_UNAME);
	b_u32(&opt, (uint32_t)strlen(uname) + 1);
	b_str(&opt, uname);
	b_u16(&opt, DAT_OPTION_VERSION);
	b_u32(&opt, (uint32_t)strlen(version) + 1);
	b_str(&opt, version);
	const uint16_t sec_ids[3] = { DAT_OPTION_HEADER_INFO, DAT_OPTION_EVENT_FORMATS,
				      DAT_OPTION_CMDLINES };
	const uint64_t sec_offs[3] = { hi_off, ev_off, cl_off };
	for (int i = 0; i < 3; i++) {
		b_u16(&opt, sec_ids[i]);
		b_u32(&opt, 8);
		b_u64(&opt, sec_offs[i]);
	}
	b_u16(&opt, DAT_OPTION_BUFFER);
	b_u32(&opt, (uint32_t)buffer_opt);
	b_u64(&opt, fly_off);
	b_str(&opt, "");
	b_str(&opt, "local");
	b_u32(&opt, DAT_PAGE_SIZE);
	b_u32(&opt, (uint32_t)w->ncpus);
	for (int i = 0; i < w->ncpus; i++) {
		b_u32(&opt, (uint32_t)i);
		b_u64(&opt, cpu_off[i]);
		b_u64(&opt, cpu_size[i]);
	}
	b_u16(&opt, DAT_OPTION_DONE);
	b_u32(&opt, 8);
	b_u64(&opt, 0);
	if (opt.n != 16 + opt_body)
		bad = 1;

	section_header(&out, DAT_OPTION_HEADER_INFO, DAT_SEC_COMPRESS, S_HEADERS, zhi.n);
	b_put(&out, zhi.p, zhi.n);
	section_header(&out, DAT_OPTION_EVENT_FORMATS, DAT_SEC_COMPRESS, S_EVENTS, zev.n);
	b_put(&out, zev.p, zev.n);
	section_header(&out, DAT_OPTION_CMDLINES, DAT_SEC_COMPRESS, S_CMDLINES, zcl.n);
	b_put(&out, zcl.p, zcl.n);
	section_header(&out, DAT_OPTION_STRINGS, 0, S_STRINGS, sizeof(strings));
	b_put(&out, strings, sizeof(strings));
	section_header(&out, DAT_OPTION_BUFFER, DAT_SEC_COMPRESS, S_FLY, end - (fly_off + 16));
	static const unsigned char zero[DAT_PAGE_SIZE];
	b_put(&out, zero, (size_t)(data_off - (fly_off + 16)));
	bad |= head.err || opt.err || out.err;
	if (!bad && (fwrite(head.p, 1, head.n, w->f) != head.n ||
		     fwrite(opt.p, 1, opt.n, w->f) != opt.n || fwrite(out.p, 1, out.n, w->f) != out.n))
		bad = 1;
	for (int i = 0; i < w->ncpus && !bad; i++) {
		struct wcpu *c = w->cpu[i];
		if (!cpu_size[i])
			continue;
		unsigned char cnt[4];
		put32(cnt, c->nchunks);
		if (fwrite(cnt, 1, 4, w->f) != 4 || fwrite(c->z, 1, c->zlen, w->f) != c->zlen)
			bad = 1;
	}
	if (fclose(w->f) != 0)
		bad = 1;
	free(hi.p); free(ev.p); free(cl.p); free(zhi.p); free(zev.p); free(zcl.p);
	free(head.p); free(opt.p); free(out.p);
	free_cpus(w);
	free(w);
	return bad ? -1 : 0;
}
