#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "writers.h"
#include "fileio.h"

struct writer_shared {
	atomic_int go, stop;
	_Atomic uint64_t bytes[WRITERS_MAX];
};

double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

unsigned long long proc_start_time(pid_t pid)
{
	char buf[1024];
	if (file_readf(buf, sizeof(buf), "/proc/%d/stat", (int)pid))
		return 0;
	/* field 22; skip past the comm, which may hold spaces, at the last ')' */
	char *p = strrchr(buf, ')');
	unsigned long long st = 0;
	for (int field = 2; p && *p; p++)
		if (*p == ' ' && ++field == 22) {
			st = strtoull(p + 1, NULL, 10);
			break;
		}
	return st;
}

/* a zombie has ended: its pages and files are released, only the parent's
 * (here often a slow-reaping PID 1's) wait is left */
static int proc_is_zombie(pid_t pid)
{
	char buf[1024];
	if (file_readf(buf, sizeof(buf), "/proc/%d/stat", (int)pid))
		return 0;
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

static void writer_main(struct writer_shared *sh, int idx, const char *path, uint64_t bs,
			uint64_t cap)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, "dd");  /* as in the dd-based traces tools know */
	if (getppid() == 1)
		_exit(1);
	char *buf = calloc(1, bs);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (!buf || fd < 0)
		_exit(1);
	while (!atomic_load(&sh->go) && !atomic_load(&sh->stop))
		usleep(1000);
	uint64_t off = 0;
	while (!atomic_load(&sh->stop)) {
		ssize_t n = write(fd, buf, bs);
		if (n > 0) {
			atomic_fetch_add(&sh->bytes[idx], (uint64_t)n);
			off += (uint64_t)n;
		}
		if ((n < 0 && errno == ENOSPC) || off >= cap) {
			lseek(fd, 0, SEEK_SET);  /* rewrite from the start: the fs never fills */
			off = 0;
		} else if (n < 0 && errno != EINTR) {
			_exit(1);
		}
	}
	_exit(0);
}

int writers_start(struct writers *w, struct journal *j, const char *dir, int n, uint64_t bs,
		  uint64_t cap_bytes, char *err, size_t errlen)
{
	memset(w, 0, sizeof(*w));
	w->sh = mmap(NULL, sizeof(*w->sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (w->sh == MAP_FAILED) {
		w->sh = NULL;
		snprintf(err, errlen, "mmap: %s", strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[4200];
		snprintf(path, sizeof(path), "%s/dd%d", dir, i);
		fflush(NULL);
		pid_t pid = fork();
		if (pid == 0)
			writer_main(w->sh, i, path, bs, cap_bytes);
		if (pid < 0) {
			snprintf(err, errlen, "fork: %s", strerror(errno));
			writers_stop(w);
			return -1;
		}
		w->pid[w->n++] = pid;
		char spid[24], sst[32];
		snprintf(spid, sizeof(spid), "%d", (int)pid);
		snprintf(sst, sizeof(sst), "%llu", proc_start_time(pid));
		if (journal_add(j, "writer", spid, sst, NULL)) {
			snprintf(err, errlen, "cannot write the journal: %s", strerror(errno));
			writers_stop(w);
			return -1;
		}
	}
	w->t_start = mono_now();
	atomic_store(&w->sh->go, 1);
	return 0;
}

void writers_stop(struct writers *w)
{
	if (!w->sh)
		return;
	atomic_store(&w->sh->stop, 1);
	w->t_stop = mono_now();
	/* a writer may sit in a balance_dirty_pages pause (<= 200 ms) or in a slow fs */
	for (int i = 0; i < w->n; i++) {
		for (int tries = 0; w->pid[i] > 0; tries++) {
			struct rusage ru;
			pid_t r = wait4(w->pid[i], NULL, WNOHANG, &ru);
			if (r == w->pid[i])
				w->cpu_s[i] = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
					      (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
			if (r == w->pid[i] || (r < 0 && errno == ECHILD)) {
				w->pid[i] = -w->pid[i];  /* reaped; keep the number for messages */
				break;
			}
			if (tries == 100)
				kill(w->pid[i], SIGKILL);
			usleep(50000);
		}
	}
}

void writers_free(struct writers *w)
{
	if (w->sh)
		munmap(w->sh, sizeof(*w->sh));
	w->sh = NULL;
}

uint64_t writers_bytes(const struct writers *w, int i)
{
	return w->sh ? atomic_load(&w->sh->bytes[i]) : 0;
}

int writer_undo(const struct jentry *e)
{
	if (e->nargs != 2)
		return -1;
	if (strspn(e->args[0], "0123456789") != strlen(e->args[0]) ||
	    strspn(e->args[1], "0123456789") != strlen(e->args[1]) || !e->args[1][0])
		return -1;
	pid_t pid = (pid_t)atoi(e->args[0]);
	unsigned long long st = strtoull(e->args[1], NULL, 10);
	char comm[64];
	if (pid <= 1 || st == 0 || proc_start_time(pid) != st ||
	    file_readf(comm, sizeof(comm), "/proc/%d/comm", (int)pid) || strcmp(comm, "dd") != 0)
		return 0;  /* gone, or the pid now belongs to someone else */
	kill(pid, SIGKILL);
	usleep(1000);
	waitpid(pid, NULL, WNOHANG);  /* ours: reaped at once, not left a zombie */
	for (int tries = 0; tries < 100 && proc_start_time(pid) == st && !proc_is_zombie(pid); tries++) {
		waitpid(pid, NULL, WNOHANG);  /* reaps it when it is our child */
		usleep(20000);
	}
	return 0;
}
