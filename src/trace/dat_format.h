/* Binary layout of each writeback/nfs event per kernel era, as the kernel's
 * tracefs `format` file describes it: field names, C types, offsets, sizes,
 * signedness and a `print fmt` whose output is the text writer's payload.
 * Used by the trace-cmd .dat writer (dat_write.c) and by the reader's fast
 * path for wblab's own .dat files (dat_read.c). */
#ifndef WBLAB_DAT_FORMAT_H
#define WBLAB_DAT_FORMAT_H
#include <stddef.h>
#include "event.h"
#include "trace_format.h"

#define DAT_PAGE_SIZE 4096
#define DAT_PAGE_HDR 16            /* u64 timestamp, local_t commit (64-bit kernel) */
#define DAT_COMMON_SIZE 8          /* common_type, _flags, _preempt_count, _pid */
#define DAT_MAX_FIELDS 20
#define DAT_BDI_LEN 32             /* char bdi[32] / name[32], as the kernel */
#define DAT_EVENT_ID_BASE 600      /* event ID = base + enum wb_event_type */

enum dat_kind {
	DK_NUM,     /* an integer field: enum wb_field */
	DK_STATE,   /* writeback_single_inode state bits, printed by __print_flags */
	DK_BDI,     /* char[32] bdi name */
	DK_SBDEV,   /* dev_t sb_dev, printed "%d:%d" through MAJOR/MINOR */
	DK_REASON,  /* int reason, printed by __print_symbolic (3.2 work class) */
};

struct dat_field {
	const char *name;      /* kernel field name */
	const char *ctype;     /* "unsigned long", "int", "char" (array) */
	unsigned char size;    /* bytes */
	unsigned char is_signed;
	unsigned char kind;    /* enum dat_kind */
	unsigned short offset;
	enum wb_field f;       /* DK_NUM / DK_STATE */
	unsigned char array;   /* a DK_NUM stored as char[size] (the nfs verifier) */
};

struct dat_event {
	enum wb_event_type type;
	int id;
	const char *system;    /* "writeback" or "nfs" */
	int nfields;
	struct dat_field fields[DAT_MAX_FIELDS];
	int size;              /* record payload bytes, common header included */
};

/* NULL when the era has no such event (the text writer skips it too). */
const struct dat_event *dat_event_get(enum trace_era era, enum wb_event_type t);
/* The tracefs format text of an event (name, ID, fields, print fmt);
 * returns its length, or 0 if it does not fit in cap. */
size_t dat_event_format(const struct dat_event *d, char *out, size_t cap);
/* Era names as written in the .dat file ("3.2", "3.1-rc8", ...). */
const char *dat_era_name(enum trace_era era);
int dat_era_lookup(const char *name);
/* 3.2's enum wb_reason (plus wblab's "balance_dirty_pages"); -1 if unknown. */
int dat_reason_code(const char *reason);
const char *dat_reason_name(int code);   /* NULL if unknown */

#endif
