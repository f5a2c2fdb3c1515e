/* Per-era binary event layouts, derived from trace_format.c's text layouts:
 * the fields in print order, each with the kernel's field name and C type
 * (include/trace/events/writeback.h of 3.1/3.2 and a 6.18 tracefs), laid out
 * after the 8-byte common header with natural alignment, as the compiler lays
 * out the kernel's TP_STRUCT__entry.  The print fmt reproduces the text
 * writer's payload exactly (checked by tests/e2e/dat_trace.sh with
 * `trace-cmd report`).  See docs/trace-formats.md, "trace.dat". */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "dat_format.h"

static const char *const era_names[ERA_COUNT] = {
	[ERA_3_1_RC8] = "3.1-rc8", [ERA_3_1] = "3.1", [ERA_3_1_RC8_IOLESS] = "3.1-rc8-ioless",
	[ERA_3_2] = "3.2", [ERA_6X] = "6.x",
};

const char *dat_era_name(enum trace_era era)
{
	return (unsigned)era < ERA_COUNT ? era_names[era] : "?";
}

int dat_era_lookup(const char *name)
{
	for (int i = 0; i < ERA_COUNT; i++)
		if (!strcmp(era_names[i], name))
			return i;
	return -1;
}

/* 3.2's WB_WORK_REASON symbols, then the simulator's own IO-ful work. */
static const char *const reasons[] = {
	"background", "try_to_free_pages", "sync", "periodic", "laptop_timer",
	"free_more_memory", "fs_free_space", "forker_thread", "balance_dirty_pages",
};
#define NREASONS (int)(sizeof(reasons) / sizeof(reasons[0]))

int dat_reason_code(const char *reason)
{
	if (!reason[0])
		return 0;   /* the text writer prints an empty reason as background */
	for (int i = 0; i < NREASONS; i++)
		if (!strcmp(reasons[i], reason))
			return i;
	return -1;
}

const char *dat_reason_name(int code)
{
	return code >= 0 && code < NREASONS ? reasons[code] : NULL;
}

struct kspec { const char *name, *ctype; unsigned char size, sgn; };

#define UL(n) { n, "unsigned long", 8, 0 }
#define SL(n) { n, "long", 8, 1 }
#define UI(n) { n, "unsigned int", 4, 0 }
#define SI(n) { n, "int", 4, 1 }

/* The kernel's name and type of field f in event t of era era. */
static struct kspec kernel_field(enum trace_era era, enum wb_event_type t, enum wb_field f)
{
	static const struct kspec none = { NULL, NULL, 0, 0 };
	switch (t) {
	case EV_GLOBAL_DIRTY_STATE:
		switch (f) {
		case F_DIRTY: return (struct kspec)UL("nr_dirty");
		case F_WRITEBACK: return (struct kspec)UL("nr_writeback");
		case F_UNSTABLE: return (struct kspec)UL("nr_unstable");
		case F_BG_THRESH: return (struct kspec)UL("background_thresh");
		case F_THRESH: return (struct kspec)UL("dirty_thresh");
		case F_LIMIT: return (struct kspec)UL("dirty_limit");
		case F_DIRTIED: return (struct kspec)UL("nr_dirtied");
		case F_WRITTEN: return (struct kspec)UL("nr_written");
		default: return none;
		}
	case EV_BALANCE_DIRTY_PAGES:
		switch (f) {
		case F_BDI_SETPOINT: return era == ERA_6X ? (struct kspec)UL("wb_setpoint")
							   : (struct kspec)UL("bdi_setpoint");
		case F_BDI_DIRTY: return era == ERA_6X ? (struct kspec)UL("wb_dirty")
						       : (struct kspec)UL("bdi_dirty");
		case F_DIRTIED: return (struct kspec)UI("dirtied");
		case F_DIRTIED_PAUSE: return (struct kspec)UI("dirtied_pause");
		case F_PAUSE: return (struct kspec)SL("pause");
		case F_THINK: return (struct kspec)SL("think");
		case F_CGROUP_INO: return (struct kspec){ "cgroup_ino", "ino_t", 8, 0 };
		default: return (struct kspec)UL(wb_field_name(f));
		}
	case EV_BDI_DIRTY_RATELIMIT:
		switch (f) {
		case F_AWRITE_BW: return (struct kspec)UL("avg_write_bw");
		case F_CGROUP_INO: return (struct kspec){ "cgroup_ino", "ino_t", 8, 0 };
		default: return (struct kspec)UL(wb_field_name(f));
		}
	case EV_BALANCE_DIRTY_WRITTEN:
		return (struct kspec)SI("written");
	case EV_WRITEBACK_SINGLE_INODE:
		switch (f) {
		case F_INDEX: return (struct kspec)UL("writeback_index");
		case F_TO_WRITE: return (struct kspec)SL("nr_to_write");
		/* the kernel computes age from jiffies at print time; here it is stored */
		default: return (struct kspec)UL(wb_field_name(f));
		}
	case EV_WRITEBACK_START:
	case EV_WRITEBACK_WRITTEN:
	case EV_WRITEBACK_WAIT:
		switch (f) {
		case F_NR_PAGES: return (struct kspec)SL("nr_pages");
		case F_SYNC_MODE: return (struct kspec)SI("sync_mode");
		case F_KUPDATE: return (struct kspec)SI("for_kupdate");
		case F_RANGE_CYCLIC: return (struct kspec)SI("range_cyclic");
		case F_BACKGROUND: return (struct kspec)SI("for_background");
		default: return none;
		}
	case EV_NFS_COMMIT_UNSTABLE_PAGES:
		switch (f) {
		case F_SYNC: return (struct kspec)SI("sync");
		case F_RET: return (struct kspec)SI("ret");
		default: return (struct kspec)UL(wb_field_name(f));
		}
	case EV_NFS_COMMIT_RELEASE:
		switch (f) {
		case F_OFFSET: return (struct kspec){ "offset", "loff_t", 8, 1 };
		default: return (struct kspec)UL(wb_field_name(f));
		}
	default:
		return none;
	}
}

/* writeback_work_class, writeback_single_inode and wake_background call
 * the bdi name `name`; the IO-less events and the NFS patches `bdi`. */
static const char *bdi_field_name(enum wb_event_type t)
{
	switch (t) {
	case EV_BALANCE_DIRTY_PAGES:
	case EV_BDI_DIRTY_RATELIMIT:
	case EV_NFS_COMMIT_UNSTABLE_PAGES:
	case EV_NFS_COMMIT_RELEASE:
		return "bdi";
	default:
		return "name";
	}
}

/* The 6.x nfs events' TP_STRUCT__entry (fs/nfs/nfstrace.h), which is not
 * in print order: fileid prints the dev beside it, error comes first. */
struct nfs6_member { enum wb_field f; struct kspec k; unsigned char array; };
#define M(f, name, ctype, size, sgn) { f, { name, ctype, size, sgn }, 0 }
static const struct nfs6_member nfs6_head[] = {
	M(F_DEV, "dev", "dev_t", 4, 0), M(F_FHANDLE, "fhandle", "u32", 4, 0),
	M(F_INO, "fileid", "u64", 8, 0), M(F_OFFSET, "offset", "loff_t", 8, 1),
};
static const struct nfs6_member nfs6_write[] = {
	M(F_NBYTES, "count", "u32", 4, 0), M(F_STABLE, "stable", "unsigned long", 8, 0),
};
static const struct nfs6_member nfs6_write_done[] = {
	M(F_NBYTES, "arg_count", "u32", 4, 0), M(F_RES, "res_count", "u32", 4, 0),
	M(F_ERROR, "error", "int", 4, 1), M(F_STABLE, "stable", "unsigned long", 8, 0),
	{ F_VERIFIER, { "verifier", "char", 8, 0 }, 1 },
};
static const struct nfs6_member nfs6_commit[] = {
	M(F_NBYTES, "count", "u32", 4, 0),
};
static const struct nfs6_member nfs6_commit_done[] = {
	M(F_ERROR, "error", "int", 4, 1), M(F_STABLE, "stable", "unsigned long", 8, 0),
	{ F_VERIFIER, { "verifier", "char", 8, 0 }, 1 },
};
#undef M

/* Their print fmt, as the kernel's format file gives it (TRACE_DEFINE_ENUM
 * turns NFS_UNSTABLE.. into 0..2); the text writer prints the same. */
#define NFS6_FILEID "fileid=%02x:%02x:%llu fhandle=0x%08x offset=%lld"
#define NFS6_FILEID_ARGS "((unsigned int) ((REC->dev) >> 20)), ((unsigned int) ((REC->dev) & " \
	"((1U << 20) - 1))), (unsigned long long)REC->fileid, REC->fhandle, (long long)REC->offset"
#define NFS6_STABLE "__print_symbolic(REC->stable, { 0, \"UNSTABLE\" }, { 1, \"DATA_SYNC\" }, " \
	"{ 2, \"FILE_SYNC\" })"
#define NFS6_VERF "__print_hex_str(REC->verifier, 8)"

static const char *nfs6_print_fmt(enum wb_event_type t)
{
	switch (t) {
	case EV_NFS_INITIATE_WRITE:
		return "\"" NFS6_FILEID " count=%u stable=%s\", " NFS6_FILEID_ARGS ", REC->count, "
		       NFS6_STABLE;
	case EV_NFS_WRITEBACK_DONE:
		return "\"error=%d " NFS6_FILEID " count=%u res=%u stable=%s verifier=%s\", REC->error, "
		       NFS6_FILEID_ARGS ", REC->arg_count, REC->res_count, " NFS6_STABLE ", " NFS6_VERF;
	case EV_NFS_INITIATE_COMMIT:
		return "\"" NFS6_FILEID " count=%u\", " NFS6_FILEID_ARGS ", REC->count";
	case EV_NFS_COMMIT_DONE:
		return "\"error=%d " NFS6_FILEID " stable=%s verifier=%s\", REC->error, " NFS6_FILEID_ARGS
		       ", " NFS6_STABLE ", " NFS6_VERF;
	default:
		return NULL;
	}
}

static const struct nfs6_member *nfs6_tail(enum wb_event_type t, int *n)
{
#define TAIL(a) (*n = (int)(sizeof(a) / sizeof(a[0])), a)
	switch (t) {
	case EV_NFS_INITIATE_WRITE: return TAIL(nfs6_write);
	case EV_NFS_WRITEBACK_DONE: return TAIL(nfs6_write_done);
	case EV_NFS_INITIATE_COMMIT: return TAIL(nfs6_commit);
	case EV_NFS_COMMIT_DONE: return TAIL(nfs6_commit_done);
	default: *n = 0; return NULL;
	}
#undef TAIL
}

static struct dat_event events[ERA_COUNT][EV_TYPE_COUNT];
static unsigned char built[ERA_COUNT][EV_TYPE_COUNT];

static void add_field(struct dat_event *d, int *off, struct dat_field x)
{
	int align = x.kind == DK_BDI || x.array ? 1 : x.size;
	*off = (*off + align - 1) / align * align;
	x.offset = (unsigned short)*off;
	*off += x.size;
	d->fields[d->nfields++] = x;
}

static void build(enum trace_era era, enum wb_event_type t, const struct trace_fmt *fmt)
{
	struct dat_event *d = &events[era][t];
	int off = DAT_COMMON_SIZE;
	d->type = t;
	d->id = DAT_EVENT_ID_BASE + (int)t;
	d->system = t == EV_NFS_COMMIT_UNSTABLE_PAGES || t == EV_NFS_COMMIT_RELEASE || fmt->nfs_6x ? "nfs"
												     : "writeback";
	if (fmt->nfs_6x) {
		int n;
		const struct nfs6_member *tail = nfs6_tail(t, &n);
		for (int part = 0; part < 2; part++) {
			const struct nfs6_member *m = part ? tail : nfs6_head;
			int k = part ? n : (int)(sizeof(nfs6_head) / sizeof(nfs6_head[0]));
			for (int i = 0; i < k; i++)
				add_field(d, &off, (struct dat_field){ m[i].k.name, m[i].k.ctype, m[i].k.size,
					m[i].k.sgn, DK_NUM, 0, m[i].f, m[i].array });
		}
		d->size = (off + 7) / 8 * 8;
		return;
	}
	if (fmt->prefix != PFX_NONE)
		add_field(d, &off, (struct dat_field){ bdi_field_name(t), "char", DAT_BDI_LEN, 0,
						       DK_BDI, 0, 0 });
	for (int i = 0; i < fmt->nfields; i++) {
		enum wb_field f = fmt->fields[i];
		struct kspec k = kernel_field(era, t, f);
		add_field(d, &off, (struct dat_field){ k.name, k.ctype, k.size, k.sgn,
			f == F_STATE && fmt->state_string ? DK_STATE : DK_NUM, 0, f });
		if (fmt->work_class && f == F_NR_PAGES)   /* the kernel's order: sb_dev second */
			add_field(d, &off, (struct dat_field){ "sb_dev", "dev_t", 4, 0, DK_SBDEV, 0, 0 });
	}
	if (fmt->work_class && trace_era_has_reason(era))
		add_field(d, &off, (struct dat_field){ "reason", "int", 4, 1, DK_REASON, 0, 0 });
	d->size = (off + 7) / 8 * 8;
}

const struct dat_event *dat_event_get(enum trace_era era, enum wb_event_type t)
{
	if ((unsigned)era >= ERA_COUNT || (unsigned)t >= EV_TYPE_COUNT)
		return NULL;
	const struct trace_fmt *fmt = trace_fmt_get(era, t);
	if (!fmt)
		return NULL;
	if (!built[era][t]) {
		build(era, t, fmt);
		built[era][t] = 1;
	}
	return &events[era][t];
}

struct sbuf { char *p; size_t n, cap; };

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b->p + b->n, b->n < b->cap ? b->cap - b->n : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->n += (size_t)n;
}

static const char *conv(const struct dat_field *x)
{
	if (x->size == 8)
		return x->is_signed ? (strcmp(x->ctype, "loff_t") ? "%ld" : "%lld") : "%lu";
	return x->is_signed ? "%d" : "%u";
}

static const struct dat_field *field_of(const struct dat_event *d, int kind, enum wb_field f)
{
	for (int i = 0; i < d->nfields; i++)
		if (d->fields[i].kind == kind && (kind != DK_NUM && kind != DK_STATE ?
						  1 : d->fields[i].f == f))
			return &d->fields[i];
	return NULL;
}

size_t dat_event_format(const struct dat_event *d, char *out, size_t cap)
{
	struct sbuf b = { out, 0, cap };
	enum trace_era era = (enum trace_era)(d - &events[0][0]) / EV_TYPE_COUNT;
	const struct trace_fmt *fmt = trace_fmt_get(era, d->type);
	sb_printf(&b, "name: %s\nID: %d\nformat:\n", wb_event_name(d->type), d->id);
	sb_printf(&b, "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		      "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		      "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		      "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n");
	for (int i = 0; i < d->nfields; i++) {
		const struct dat_field *x = &d->fields[i];
		if (x->kind == DK_BDI || x->array)
			sb_printf(&b, "\tfield:char %s[%d];\toffset:%u;\tsize:%u;\tsigned:0;\n",
				  x->name, x->size, x->offset, x->size);
		else
			sb_printf(&b, "\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:%u;\n", x->ctype,
				  x->name, x->offset, x->size, x->is_signed);
	}
	if (fmt->nfs_6x) {
		sb_printf(&b, "\nprint fmt: %s\n", nfs6_print_fmt(d->type));
		return b.n < cap ? b.n : 0;
	}
	/* print fmt: the text writer's payload, piece by piece */
	sb_printf(&b, "\nprint fmt: \"");
	if (fmt->prefix != PFX_NONE)
		sb_printf(&b, "bdi %%s%s", fmt->prefix == PFX_BDI_COLON ? ":" : "");
	if (fmt->work_class)
		sb_printf(&b, " sb_dev %%d:%%d");
	for (int i = 0; i < fmt->nfields; i++) {
		const char *name = fmt->names[i] ? fmt->names[i] : wb_field_name(fmt->fields[i]);
		const struct dat_field *x = field_of(d, fmt->fields[i] == F_STATE && fmt->state_string ?
						     DK_STATE : DK_NUM, fmt->fields[i]);
		sb_printf(&b, "%s%s%s%s", i > 0 || fmt->prefix != PFX_NONE ? " " : "", name,
			  fmt->bare_written ? " " : "=", x->kind == DK_STATE ? "%s" : conv(x));
	}
	const struct dat_field *reason = field_of(d, DK_REASON, 0);
	if (reason)
		sb_printf(&b, " reason=%%s");
	sb_printf(&b, "\"");
	if (fmt->prefix != PFX_NONE)
		sb_printf(&b, ", REC->%s", bdi_field_name(d->type));
	if (fmt->work_class)
		sb_printf(&b, ", ((unsigned int) ((REC->sb_dev) >> 20)), "
			      "((unsigned int) ((REC->sb_dev) & ((1U << 20) - 1)))");
	for (int i = 0; i < fmt->nfields; i++) {
		const struct dat_field *x = field_of(d, fmt->fields[i] == F_STATE && fmt->state_string ?
						     DK_STATE : DK_NUM, fmt->fields[i]);
		if (x->kind == DK_STATE)
			/* the text writer prints a state of 0 as "0" */
			sb_printf(&b, ", REC->%s ? __print_flags(REC->%s, \"|\", {%d, \"I_DIRTY_SYNC\"}, "
				      "{%d, \"I_DIRTY_DATASYNC\"}, {%d, \"I_DIRTY_PAGES\"}, "
				      "{%d, \"I_SYNC\"}) : \"0\"", x->name, x->name, WB_I_DIRTY_SYNC,
				  WB_I_DIRTY_DATASYNC, WB_I_DIRTY_PAGES, WB_I_SYNC);
		else
			sb_printf(&b, ", REC->%s", x->name);
	}
	if (reason) {
		sb_printf(&b, ", __print_symbolic(REC->reason");
		for (int i = 0; i < NREASONS; i++)
			sb_printf(&b, ", { %d, \"%s\" }", i, reasons[i]);
		sb_printf(&b, ")");
	}
	sb_printf(&b, "\n");
	return b.n < cap ? b.n : 0;
}
