/* Kernel log errors of the test device during a run.  A lost async page
 * write or an aborted journal on the loop device means the figures are of a
 * broken run (the writers' data never reached the disk), so the run fails
 * instead of reporting them.  /dev/kmsg is read from the position it had
 * when the case started, so only this case's messages count. */
#ifndef WBLAB_REAL_KMSG_H
#define WBLAB_REAL_KMSG_H
#include <stddef.h>

struct kmsg_watch {
	int fd;   /* -1: the kernel log cannot be read here (then only syncfs tells) */
};

void kmsg_watch_start(struct kmsg_watch *w);
/* Number of error records since the start that name dev ("loop0"), the
 * first one's text into first.  Pure matching in kmsg_record_is_error. */
int kmsg_watch_errors(struct kmsg_watch *w, const char *dev, char *first, size_t n);
void kmsg_watch_stop(struct kmsg_watch *w);
/* One /dev/kmsg record ("PRIO,SEQ,TS,FLAGS;TEXT"): 1 when it names dev as a
 * word and is of level err or worse, or says "error" at any level. */
int kmsg_record_is_error(const char *rec, const char *dev);

#endif
