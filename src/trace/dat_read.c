/* Reads back wblab's own trace.dat: the v7 options, the compressed cmdlines
 * and event-format sections, then each CPU's zstd chunks (memory: the chunk
 * being decoded and one decompressed ahead by a second thread, per CPU;
 * dat_prefetch.c), merged by timestamp.  A file counts as ours
 * when its UNAME option names a wblab era and its event formats are exactly
 * the ones dat_format.c generates for that era. */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <zstd.h>
#include "dat_io.h"
#include "dat_read.h"
#include "dat_file.h"
#include "dat_format.h"
#include "dat_prefetch.h"

#define MAX_CPUS 1024
_Static_assert(EV_TYPE_COUNT <= 64, "wbdat.declared holds one bit per event type");
_Static_assert(WB_COMM_LEN > 16, "a stored comm (16 bytes, NUL-padded) is copied whole into wb_event");
#define TS_SHIFT 27

struct rcpu {
	int cpu;
	struct dat_stream s;      /* its chunks in the file (synchronous loading) */
	struct dat_chunk_buf b;   /* the chunk being decoded */
	unsigned char *chunk;     /* b.data while a chunk is open, else NULL */
	size_t clen;
	int done;                 /* its last event went out, or its data is damaged */
	size_t page;              /* offset of the current page in chunk */
	size_t pos, pend;         /* next record, end of committed data (in chunk) */
	uint64_t ts;              /* timestamp of the last record read */
	/* the pending event */
	int have;
	uint64_t ev_ts;
	const unsigned char *ev;
	size_t ev_len;
};

struct wbdat {
	int fd;
	char path[512];
	enum trace_era era;
	struct rcpu *cpus;
	int ncpus;
	unsigned char *z;
	size_t zcap;
	ZSTD_DCtx *dc;
	char (*comm)[16];          /* zero-padded: copied whole */
	int npid;
	/* each record id's layout, worked out at its first record */
	struct rec_layout {
		const struct dat_event *de;   /* NULL: the era has no such event */
		int known;
		/* integer fields, in three tight loops by size and sign: the 8-byte
		 * ones num[0, n8), u32 [n8, nu32), s32 [nu32, nnum) (a branch per
		 * field on its kind was a tenth of the reader) */
		int n8, nu32, nnum;
		struct { unsigned short off; unsigned char f; } num[DAT_MAX_FIELDS];
		uint64_t num_present;
		/* the rest (bdi, state, reason), through the general code */
		int nspec;
		const struct dat_field *spec[DAT_MAX_FIELDS];
	} layout[EV_TYPE_COUNT];
	/* the merge: a binary heap of the CPUs holding a pending event, by
	 * (timestamp, CPU index); its root's event goes out next and only that
	 * CPU advances */
	struct mkey { uint64_t ts; int i; } *heap;   /* the key beside the CPU: no indirection */
	int nheap;
	int started;
	struct dat_prefetch *pf;   /* NULL: chunks loaded synchronously */
	uint64_t declared;         /* bit t: the file declares event type t's format */
};

static int prefetch_on = 1;

void wbdat_set_prefetch(int on)
{
	prefetch_on = on;
}

/* The thread pays off only with a second CPU to run on (it costs 5-30 % more
 * CPU time for its 1.4-1.7x less wall time); WBLAB_DAT_THREAD=0 turns it off,
 * e.g. when every CPU already runs a reader. */
static int prefetch_wanted(void)
{
	static int wanted = -1;
	if (wanted < 0) {
		const char *e = getenv("WBLAB_DAT_THREAD");
		cpu_set_t set;
		CPU_ZERO(&set);
		wanted = !(e && !strcmp(e, "0")) &&
			 (sched_getaffinity(0, sizeof(set), &set) || CPU_COUNT(&set) > 1);
	}
	return wanted;
}



/* A section's body at off (its header included), uncompressed into *out. */
static int read_section(struct wbdat *d, uint64_t off, int want_id, unsigned char **out, size_t *len)
{
	unsigned char h[16];
	*out = NULL;   /* on any failure too: the caller frees what it got */
	*len = 0;
	if (pread_all(d->fd, h, 16, off))
		return -1;
	uint64_t size = rd64(h + 8);
	if (rd16(h) != want_id || size > (1u << 30))
		return -1;
	unsigned char *raw = malloc(size ? size : 1);
	if (!raw || pread_all(d->fd, raw, size, off + 16)) {
		free(raw);
		return -1;
	}
	if (!(rd16(h + 2) & DAT_SEC_COMPRESS)) {
		*out = raw;
		*len = size;
		return 0;
	}
	if (size < 8 || rd32(raw) > size - 8 || rd32(raw + 4) > (1u << 30)) {
		free(raw);
		return -1;
	}
	size_t usize = rd32(raw + 4);
	unsigned char *u = malloc(usize ? usize : 1);
	size_t got = u ? ZSTD_decompressDCtx(d->dc, u, usize, raw + 8, rd32(raw)) : 0;
	free(raw);
	if (!u || ZSTD_isError(got) || got != usize) {
		free(u);
		return -1;
	}
	*out = u;
	*len = usize;
	return 0;
}

/* The event formats section is what we would write for the era, or what
 * an earlier wblab wrote: each format in the file is one of ours, in our
 * order, with some of ours missing (a 6.x trace.dat written before the 6.x
 * nfs events has none of them). */
static int formats_are_ours(const unsigned char *p, size_t n, enum trace_era era, uint64_t *declared)
{
	*declared = 0;
	static const char *const systems[] = { "writeback", "nfs" };
	char text[4096];
	size_t pos = 0;
	if (n < 4 || rd32(p) != 2)
		return 0;
	pos = 4;
	for (int s = 0; s < 2; s++) {
		size_t sl = strlen(systems[s]) + 1;
		if (pos + sl + 4 > n || memcmp(p + pos, systems[s], sl))
			return 0;
		pos += sl;
		uint32_t cnt = rd32(p + pos);
		pos += 4;
		int t = 1;
		for (uint32_t k = 0; k < cnt; k++) {
			if (pos + 8 > n)
				return 0;
			uint64_t flen = rd64(p + pos);
			int found = 0;
			for (; t < EV_TYPE_COUNT && !found; t++) {
				const struct dat_event *ev = dat_event_get(era, (enum wb_event_type)t);
				if (!ev || strcmp(ev->system, systems[s]))
					continue;
				size_t len = dat_event_format(ev, text, sizeof(text));
				found = flen == len && pos + 8 + len <= n && !memcmp(p + pos + 8, text, len);
			}
			if (!found)
				return 0;
			*declared |= (uint64_t)1 << (t - 1);   /* t moved past the match */
			pos += 8 + flen;
		}
	}
	return pos == n;
}

static int load_cmdlines(struct wbdat *d, const unsigned char *p, size_t n)
{
	if (n < 8 || rd64(p) > n - 8)
		return -1;
	const char *s = (const char *)p + 8, *end = s + rd64(p);
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		char line[64];
		size_t ll = (size_t)(le - s) < sizeof(line) - 1 ? (size_t)(le - s) : sizeof(line) - 1;
		memcpy(line, s, ll);
		line[ll] = 0;
		char *sp = strchr(line, ' ');
		long pid = strtol(line, NULL, 10);
		if (sp && pid > 0 && pid < (1 << 22)) {
			if (pid >= d->npid) {
				int m = d->npid ? d->npid : 4096;
				while (m <= pid)
					m *= 2;
				char (*q)[16] = realloc(d->comm, (size_t)m * sizeof(*q));
				if (!q)
					return -1;
				memset(q + d->npid, 0, (size_t)(m - d->npid) * sizeof(*q));
				d->comm = q;
				d->npid = m;
			}
			size_t cl = strnlen(sp + 1, 15);
			memset(d->comm[pid], 0, sizeof(d->comm[pid]));
			memcpy(d->comm[pid], sp + 1, cl);
		}
		s = le + 1;
	}
	return 0;
}

void wbdat_close(struct wbdat *d)
{
	if (!d)
		return;
	dat_prefetch_stop(d->pf);   /* before the fd and buffers it uses go */
	if (d->fd >= 0)
		close(d->fd);
	for (int i = 0; i < d->ncpus; i++)
		free(d->cpus[i].b.data);
	free(d->cpus);
	free(d->heap);
	free(d->z);
	free(d->comm);
	ZSTD_freeDCtx(d->dc);
	free(d);
}

static struct wbdat *fail(struct wbdat *d, char *err, size_t errlen, const char *why)
{
	if (why)
		snprintf(err, errlen, "%s: %s", d->path, why);
	else if (errlen)
		err[0] = 0;
	wbdat_close(d);
	return NULL;
}

struct wbdat *wbdat_open(const char *path, char *err, size_t errlen)
{
	struct wbdat *d = calloc(1, sizeof(*d));
	if (errlen)
		err[0] = 0;
	if (!d) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	snprintf(d->path, sizeof(d->path), "%s", path);
	d->fd = open(path, O_RDONLY);
	d->dc = ZSTD_createDCtx();
	if (d->fd < 0 || !d->dc)
		return fail(d, err, errlen, strerror(errno ? errno : ENOMEM));
	unsigned char h[128];
	ssize_t hn = pread(d->fd, h, sizeof(h), 0);
	/* magic, "7\0", little endian, 8-byte long, page size, "zstd\0<ver>\0", options */
	if (hn < 30 || memcmp(h, "\x17\x08\x44tracing7\0\0\x08", 14) || memcmp(h + 18, "zstd\0", 5))
		return fail(d, err, errlen, NULL);
	/* a page size not ours is refused below once the options say the file
	 * is wblab's: libtracecmd would read it with that size, silently short */
	uint32_t page_size = rd32(h + 14);
	const unsigned char *ver_end = memchr(h + 23, 0, (size_t)hn - 23);
	if (!ver_end || ver_end + 9 > h + hn)
		return fail(d, err, errlen, NULL);
	uint64_t opt_off = rd64(ver_end + 1);

	unsigned char *opt = NULL, *sec = NULL;
	size_t optn, secn;
	if (read_section(d, opt_off, DAT_OPTION_DONE, &opt, &optn))
		return fail(d, err, errlen, NULL);
	uint64_t ev_off = 0, cl_off = 0, buf_pos = 0, buf_len = 0;
	int era = -1;
	for (size_t pos = 0; pos + 6 <= optn;) {
		uint16_t id = rd16(opt + pos);
		uint32_t sz = rd32(opt + pos + 2);
		const unsigned char *v = opt + pos + 6;
		if (sz > optn - pos - 6)
			break;
		if (id == DAT_OPTION_UNAME && sz > 14 && !memcmp(v, "wblab-sim era=", 14) && v[sz - 1] == 0) {
			char name[32];
			sscanf((const char *)v + 14, "%31s", name);
			era = dat_era_lookup(name);
		} else if (id == DAT_OPTION_EVENT_FORMATS && sz == 8) {
			ev_off = rd64(v);
		} else if (id == DAT_OPTION_CMDLINES && sz == 8) {
			cl_off = rd64(v);
		} else if (id == DAT_OPTION_BUFFER) {
			buf_pos = (size_t)(v - opt);
			buf_len = sz;
		}
		pos += 6 + sz;
		if (id == DAT_OPTION_DONE)
			break;
	}
	if (era >= 0 && page_size != DAT_PAGE_SIZE) {
		free(opt);
		return fail(d, err, errlen, "a wblab trace.dat with a damaged header (page size)");
	}
	if (era < 0 || !ev_off || !cl_off || !buf_len) {
		free(opt);
		return fail(d, err, errlen, NULL);
	}
	d->era = (enum trace_era)era;
	if (read_section(d, ev_off, DAT_OPTION_EVENT_FORMATS, &sec, &secn)) {
		free(opt);
		return fail(d, err, errlen, "damaged event formats section");
	}
	int ours = formats_are_ours(sec, secn, d->era, &d->declared);
	free(sec);
	sec = NULL;
	if (!ours) {
		free(opt);
		return fail(d, err, errlen, NULL);
	}
	if (read_section(d, cl_off, DAT_OPTION_CMDLINES, &sec, &secn) || load_cmdlines(d, sec, secn)) {
		free(sec);
		free(opt);
		return fail(d, err, errlen, "damaged cmdlines section");
	}
	free(sec);
	/* BUFFER: offset, "" name, clock, page size, cpu count, per CPU id/offset/size */
	const unsigned char *b = opt + buf_pos, *bend = b + buf_len;
	const unsigned char *q = b + 8;
	const unsigned char *nul = q < bend ? memchr(q, 0, (size_t)(bend - q)) : NULL;
	const unsigned char *nul2 = nul && nul + 1 < bend ? memchr(nul + 1, 0, (size_t)(bend - nul - 1)) : NULL;
	if (!nul2 || nul2 + 9 > bend) {
		free(opt);
		return fail(d, err, errlen, "damaged BUFFER option");
	}
	q = nul2 + 1 + 4;
	uint32_t ncpu = rd32(q);
	q += 4;
	if (ncpu > MAX_CPUS || q + (size_t)ncpu * 20 > bend) {
		free(opt);
		return fail(d, err, errlen, "damaged BUFFER option");
	}
	d->cpus = calloc(ncpu ? ncpu : 1, sizeof(*d->cpus));
	d->heap = calloc(ncpu ? ncpu : 1, sizeof(*d->heap));
	if (!d->cpus || !d->heap) {
		free(opt);
		return fail(d, err, errlen, "out of memory");
	}
	for (uint32_t i = 0; i < ncpu; i++, q += 20) {
		struct rcpu *c = &d->cpus[d->ncpus];
		uint64_t off = rd64(q + 4), size = rd64(q + 12);
		if (!size)
			continue;
		unsigned char cnt[4];
		if (size < 4 || pread_all(d->fd, cnt, 4, off)) {
			free(opt);
			return fail(d, err, errlen, "damaged CPU data");
		}
		c->cpu = (int)rd32(q);
		c->s.off = off + 4;
		c->s.end = off + size;
		c->s.chunks_left = rd32(cnt);
		d->ncpus++;
	}
	free(opt);
	return d;
}

/* The CPU's next chunk, from the prefetching thread or read here; 0 at its
 * end, -1 on damage. */
static int next_chunk(struct wbdat *d, struct rcpu *c)
{
	int r = d->pf ? dat_prefetch_take(d->pf, (int)(c - d->cpus), &c->b)
		      : dat_chunk_load(d->fd, d->dc, &c->s, &d->z, &d->zcap, &c->b);
	if (r <= 0)
		return r;
	c->chunk = c->b.data;
	c->clen = c->b.len;
	c->page = 0;
	c->pend = 0;
	c->pos = 0;
	return 1;
}

/* Starts the page at c->page; 0 past the chunk's end. */
static int open_page(struct rcpu *c)
{
	if (c->page + DAT_PAGE_SIZE > c->clen)
		return 0;
	const unsigned char *pg = c->chunk + c->page;
	uint64_t commit = rd64(pg + 8) & ((1ULL << 32) - 1);
	c->ts = rd64(pg);
	c->pos = c->page + DAT_PAGE_HDR;
	c->pend = c->pos + (commit <= DAT_PAGE_SIZE - DAT_PAGE_HDR ? commit : 0);
	return 1;
}

/* Finds the CPU's next data record; 0 at its end, -1 on damage. */
/* the record after a header of hdr bytes, len bytes long, delta after the last */
static inline void take_record(struct rcpu *c, uint64_t delta, size_t hdr, size_t len)
{
	c->ts += delta;
	c->ev = c->chunk + c->pos + hdr;
	c->ev_len = len;
	c->ev_ts = c->ts;
	c->pos += hdr + len;
	c->have = 1;
}

static int advance(struct wbdat *d, struct rcpu *c)
{
	c->have = 0;
	for (;;) {
		if (!c->chunk || c->pos >= c->pend) {
			if (c->chunk && c->pend) {
				c->page += DAT_PAGE_SIZE;
				c->pend = 0;
			}
			if (!c->chunk || !open_page(c)) {
				int r = next_chunk(d, c);
				if (r <= 0)
					return r;
				if (!open_page(c))
					return -1;
			}
			continue;
		}
		if (c->pos + 4 > c->pend)
			return -1;
		uint32_t w = rd32(c->chunk + c->pos);
		unsigned type_len = w & 31;
		uint64_t delta = w >> 5;
		size_t hdr = 4, len;
		if (type_len == 30 || type_len == 31) {   /* time extend / absolute stamp */
			if (c->pos + 8 > c->pend)
				return -1;
			uint64_t hi = rd32(c->chunk + c->pos + 4);
			c->ts = type_len == 30 ? c->ts + (hi << TS_SHIFT) + delta : (hi << TS_SHIFT) + delta;
			c->pos += 8;
			continue;
		}
		if (type_len == 29) {                      /* padding */
			if (c->pos + 8 > c->pend)
				return -1;
			c->pos += 4 + rd32(c->chunk + c->pos + 4);
			continue;
		}
		if (type_len == 0) {
			if (c->pos + 8 > c->pend)
				return -1;
			uint32_t l = rd32(c->chunk + c->pos + 4);
			if (l < 4)
				return -1;
			len = ((size_t)l - 4 + 3) & ~(size_t)3;
			hdr = 8;
		} else {
			len = (size_t)type_len * 4;
		}
		if (c->pos + hdr + len > c->pend)
			return -1;
		take_record(c, delta, hdr, len);
		return 1;
	}
}

/* strlcpy: a plain bounded copy (snprintf's "%s" was a third of the
 * reader's time at one call per event) */
static void copy_str(char *dst, size_t n, const char *src)
{
	size_t l = strnlen(src, n - 1);
	memcpy(dst, src, l);
	dst[l] = 0;
}

/* Splits an event's fields into the integer ones and the rest; all go the
 * general way if two fields name one wb_field (the last one wins there). */
static void layout_build(struct rec_layout *L, const struct dat_event *de)
{
	memset(L, 0, sizeof(*L));
	L->known = 1;
	L->de = de;
	if (!de)
		return;
	uint64_t seen = 0;
	int dup = 0;
	for (int i = 0; i < de->nfields; i++) {
		const struct dat_field *x = &de->fields[i];
		if (x->kind == DK_NUM || x->kind == DK_STATE) {
			dup |= (seen >> x->f) & 1;
			seen |= (uint64_t)1 << x->f;
		}
	}
	for (int load = 0; load < 3; load++) {   /* 8 bytes, u32, s32 */
		for (int i = 0; i < de->nfields; i++) {
			const struct dat_field *x = &de->fields[i];
			if (x->kind != DK_NUM || dup || (x->size == 8 ? 0 : x->is_signed ? 2 : 1) != load)
				continue;
			L->num[L->nnum].off = x->offset;
			L->num[L->nnum].f = (unsigned char)x->f;
			L->num_present |= (uint64_t)1 << x->f;
			L->nnum++;
		}
		if (load == 0)
			L->n8 = L->nnum;
		else if (load == 1)
			L->nu32 = L->nnum;
	}
	for (int i = 0; i < de->nfields; i++) {
		const struct dat_field *x = &de->fields[i];
		if (x->kind != DK_SBDEV && !(x->kind == DK_NUM && !dup))
			L->spec[L->nspec++] = x;
	}
}

static int decode(struct wbdat *d, const struct rcpu *c, struct wb_event *e)
{
	const unsigned char *p = c->ev;
	if (c->ev_len < DAT_COMMON_SIZE)
		return -1;
	int id = rd16(p);
	if (id <= DAT_EVENT_ID_BASE || id >= DAT_EVENT_ID_BASE + EV_TYPE_COUNT)
		return -1;
	/* a record of an event the file does not declare is damage: trace-cmd
	 * would print it as an unknown event */
	if (!(d->declared >> (id - DAT_EVENT_ID_BASE) & 1))
		return -1;
	struct rec_layout *L = &d->layout[id - DAT_EVENT_ID_BASE];
	if (!L->known)
		layout_build(L, dat_event_get(d->era, (enum wb_event_type)(id - DAT_EVENT_ID_BASE)));
	const struct dat_event *de = L->de;
	if (!de || c->ev_len < (size_t)de->size)
		return -1;
	/* libc's vector memset: the inline rep stosq gcc emits for a constant
	 * size was a tenth of the reader's time */
	static volatile size_t event_size = sizeof(*e);
	memset(e, 0, event_size);
	e->type = de->type;
	e->ts_us = (int64_t)(c->ev_ts / 1000);
	int32_t pid;
	memcpy(&pid, p + 4, 4);
	e->pid = pid;
	e->cpu = c->cpu;
	if (pid > 0 && pid < d->npid && d->comm[pid][0])
		memcpy(e->comm, d->comm[pid], sizeof(d->comm[pid]));   /* NUL-padded, e->comm is longer */
	else
		copy_str(e->comm, sizeof(e->comm), pid == 0 ? "<idle>" : "<...>");
	uint64_t present = L->num_present;
	int k = 0;
	for (; k < L->n8; k++)
		e->v[L->num[k].f] = (int64_t)rd64(p + L->num[k].off);
	for (; k < L->nu32; k++)
		e->v[L->num[k].f] = (int64_t)rd32(p + L->num[k].off);
	for (; k < L->nnum; k++)
		e->v[L->num[k].f] = (int64_t)(int32_t)rd32(p + L->num[k].off);
	for (int i = 0; i < L->nspec; i++) {
		const struct dat_field *x = L->spec[i];
		const unsigned char *q = p + x->offset;
		int64_t v;
		if (x->kind == DK_BDI) {
			memcpy(e->bdi, q, DAT_BDI_LEN < WB_BDI_LEN ? DAT_BDI_LEN : WB_BDI_LEN);
			e->bdi[WB_BDI_LEN - 1] = 0;
			continue;
		}
		if (x->kind == DK_SBDEV)
			continue;
		if (x->size == 8) {
			memcpy(&v, q, 8);
		} else {
			uint32_t u = rd32(q);
			v = x->is_signed ? (int64_t)(int32_t)u : (int64_t)u;
		}
		if (x->kind == DK_NUM) {      /* here only when two fields share a wb_field */
			e->v[x->f] = v;
			present |= (uint64_t)1 << x->f;
			continue;
		}
		if (x->kind == DK_REASON) {
			const char *name = dat_reason_name((int)v);
			copy_str(e->reason, sizeof(e->reason), name ? name : "?");
			continue;
		}
		/* DK_STATE */
		e->v[x->f] = v & (WB_I_DIRTY_SYNC | WB_I_DIRTY_DATASYNC | WB_I_DIRTY_PAGES | WB_I_SYNC);
		present |= (uint64_t)1 << x->f;
	}
	e->present = present;
	return 0;
}

/* The CPU's next event; 1 if it has one, 0 at its end, -1 on damage.
 * Inlined: a call per event showed at 4 % of the reader. */
static inline __attribute__((always_inline)) int refill(struct wbdat *d, int i, char *err, size_t errlen)
{
	struct rcpu *c = &d->cpus[i];
	if (!c->have && c->chunk && c->pos + 8 <= c->pend) {
		/* a data record within the page here, what advance() does for it
		 * (its length in type_len, or in the word after it when longer
		 * than 112 bytes): a call per event was a tenth of the reader */
		uint32_t w = rd32(c->chunk + c->pos), l = rd32(c->chunk + c->pos + 4);
		unsigned type_len = w & 31;
		size_t hdr = type_len ? 4 : 8;
		size_t len = type_len ? (size_t)type_len * 4 : ((size_t)l - 4 + 3) & ~(size_t)3;
		if (type_len <= 28 && (type_len || l >= 4) && c->pos + hdr + len <= c->pend) {
			take_record(c, w >> 5, hdr, len);
			return 1;
		}
	}
	if (!c->have && !c->done) {
		int r = advance(d, c);
		if (r < 0) {
			snprintf(err, errlen, "%s: damaged ring-buffer data of CPU %d", d->path, c->cpu);
			return -1;
		}
		if (!r) {
			free(c->b.data);
			c->b = (struct dat_chunk_buf){ 0 };
			c->chunk = NULL;
			c->clen = 0;
			c->done = 1;
		}
	}
	return c->have;
}

/* earlier timestamp first, the lower CPU index on a tie (as a scan would) */
static int merge_less(struct mkey a, struct mkey b)
{
	return a.ts < b.ts || (a.ts == b.ts && a.i < b.i);
}

static void merge_sift_down(struct wbdat *d, int i)
{
	struct mkey x = d->heap[i];
	for (;;) {
		int l = 2 * i + 1, m = l;
		if (l >= d->nheap)
			break;
		if (l + 1 < d->nheap && merge_less(d->heap[l + 1], d->heap[l]))
			m = l + 1;
		if (!merge_less(d->heap[m], x))
			break;
		d->heap[i] = d->heap[m];
		i = m;
	}
	d->heap[i] = x;
}

/* The earliest pending event of all CPUs. */
int wbdat_next(struct wbdat *d, struct wb_event *e, char *err, size_t errlen)
{
	if (!d->started) {
		uint64_t chunks = 0;
		for (int i = 0; i < d->ncpus; i++)
			chunks += d->cpus[i].s.chunks_left;
		if (prefetch_on && chunks > 1 && !d->pf && prefetch_wanted()) {   /* !pf: a retry after an error */
			struct dat_stream st[MAX_CPUS];
			for (int i = 0; i < d->ncpus; i++)
				st[i] = d->cpus[i].s;
			d->pf = dat_prefetch_start(d->fd, d->dc, st, d->ncpus);
		}
		for (int i = 0; i < d->ncpus; i++) {
			int r = refill(d, i, err, errlen);
			if (r < 0) {
				d->nheap = 0;   /* a call after the error starts no half-built merge */
				return -1;
			}
			if (r)
				d->heap[d->nheap++] = (struct mkey){ d->cpus[i].ev_ts, i };
		}
		for (int i = d->nheap / 2 - 1; i >= 0; i--)
			merge_sift_down(d, i);
		d->started = 1;
	} else if (d->nheap) {
		/* the root's event went out last time: its CPU's next one */
		int r = refill(d, d->heap[0].i, err, errlen);
		if (r < 0)
			return -1;
		if (!r)
			d->heap[0] = d->heap[--d->nheap];
		else
			d->heap[0].ts = d->cpus[d->heap[0].i].ev_ts;
		/* most often the same CPU's next event is still the earliest */
		if (d->nheap > 1 && (merge_less(d->heap[1], d->heap[0]) ||
				     (d->nheap > 2 && merge_less(d->heap[2], d->heap[0]))))
			merge_sift_down(d, 0);
	}
	if (!d->nheap)
		return 0;
	struct rcpu *best = &d->cpus[d->heap[0].i];
	if (decode(d, best, e)) {
		snprintf(err, errlen, "%s: unknown or short record on CPU %d", d->path, best->cpu);
		return -1;
	}
	best->have = 0;
	return 1;
}

enum trace_era wbdat_era(const struct wbdat *d)
{
	return d->era;
}
