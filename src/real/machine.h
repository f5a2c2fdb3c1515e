/* What the machine has, for pre-flight checks and the CASE '*' fields. */
#ifndef WBLAB_REAL_MACHINE_H
#define WBLAB_REAL_MACHINE_H
#include <stddef.h>
#include <stdint.h>
#include "../util/case.h"

int machine_cpus(void);
uint64_t machine_mem_mb(void);      /* MemTotal in MiB */
/* Fills '*' fields; 0, or -1 with a reason naming what the machine has when
 * CPUS or MEM differ (MEM within 3%: MemTotal lacks the kernel's reserve). */
int machine_match_case(struct wb_case *c, char *err, size_t errlen);

#endif
