/* CASE = [GROUP/]FS-NDD-BS-CPUSp-MEMM-THRESH:BG, as writeback-tests named cases,
 * e.g. "thresh=100M/ext4-10dd-4k-8p-4096M-100M:10".  THRESH/BG with a unit are
 * bytes (vm.dirty_bytes / dirty_background_bytes), bare numbers are ratios. */
#ifndef WBLAB_CASE_H
#define WBLAB_CASE_H
#include <stdint.h>
#include <stddef.h>

struct dirty_knob {
	int is_bytes;      /* 1: bytes, 0: ratio in percent */
	uint64_t value;    /* bytes or percent */
	char text[24];     /* as written */
};

struct wb_case {
	char group[96];
	char name[160];    /* without group: "ext4-10dd-4k-8p-4096M-100M:10" */
	char fs[16];
	int ndd;
	uint64_t bs;       /* bytes per write() */
	int cpus;          /* 0 when written as '*' */
	uint64_t mem_mb;   /* 0 when written as '*' */
	struct dirty_knob thresh, bg;
};

/* Returns 0, or -1 with a one-line reason in err. */
int case_parse(const char *s, struct wb_case *c, char *err, size_t errlen);
/* GROUP must be a relative path inside -o, free of control characters (bytes
 * below 0x20 and 0x7f, which case_parse refuses in a whole CASE too): 0, or -1
 * with the reason in err. */
int case_group_check(const char *group, char *err, size_t errlen);
/* Fill '*' fields from the machine and rebuild name. */
void case_fill(struct wb_case *c, int cpus, uint64_t mem_mb);
/* Rebuild c->name from the fields. */
void case_format_name(struct wb_case *c);
/* "disk" file systems the simulator models with its block device. */
int case_fs_is_disk(const char *fs);

#endif
