/* N writer processes, each doing BS-sized write()s of zeroes to its own file
 * (what `dd if=/dev/zero of=FILE bs=BS` does), counting the bytes it wrote.
 * They die with wblab (PR_SET_PDEATHSIG), and each pid is journaled with its
 * start time so a later cleanup never kills a recycled pid. */
#ifndef WBLAB_REAL_WRITERS_H
#define WBLAB_REAL_WRITERS_H
#include <stdint.h>
#include <sys/types.h>
#include "journal.h"

#define WRITERS_MAX 1000

struct writer_shared;

struct writers {
	int n;
	pid_t pid[WRITERS_MAX];
	struct writer_shared *sh;   /* counters and go/stop flags, shared memory */
	double t_start, t_stop;     /* CLOCK_MONOTONIC seconds */
	double cpu_s[WRITERS_MAX];  /* each writer's own CPU time (user + system), from wait4 */
};

/* Forks n writers on DIR/ddK (K = 0..n-1), each wrapping to the file's start
 * after cap_bytes (so the image never fills); they wait until all are
 * journaled, then start together.  0 or -1 with err (started ones stopped). */
int writers_start(struct writers *w, struct journal *j, const char *dir, int n, uint64_t bs,
		  uint64_t cap_bytes, char *err, size_t errlen);
/* Stops and reaps them (SIGKILL after a grace time). */
void writers_stop(struct writers *w);
/* Releases the shared counters (after reading them). */
void writers_free(struct writers *w);
/* Bytes writer i wrote. */
uint64_t writers_bytes(const struct writers *w, int i);
/* Undo of "writer": SIGKILL when the pid still has the journaled start time. */
int writer_undo(const struct jentry *e);
/* Start time (clock ticks since boot) of pid from /proc, 0 if gone. */
unsigned long long proc_start_time(pid_t pid);
double mono_now(void);

#endif
