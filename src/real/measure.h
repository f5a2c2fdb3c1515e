/* Counters read around a case's runtime, independent of tracing, so runs with
 * and without tracing compare like with like. */
#ifndef WBLAB_REAL_MEASURE_H
#define WBLAB_REAL_MEASURE_H
#include <stdint.h>
#include "loopdev.h"

struct counters {
	double t;                 /* CLOCK_MONOTONIC seconds */
	uint64_t nr_written, nr_dirtied;   /* /proc/vmstat, pages */
	uint64_t dev_sectors, dev_ios;     /* the test device's writes */
	uint64_t dev_busy_ms;              /* its io_ticks */
};

struct measure {
	double seconds;
	double writers_mb;        /* what the writers' write() calls returned */
	double vm_written_mb, vm_dirtied_mb;
	double dev_written_mb, dev_ios;
	double dev_busy_s;        /* time the device had a request in flight */
};

void counters_read(struct counters *c, const struct loopdev *l);
void measure_diff(struct measure *m, const struct counters *a, const struct counters *b);

#endif
