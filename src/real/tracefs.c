#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tracefs.h"
#include "fileio.h"
#include "mount.h"
#include "statedir.h"
#include "../util/util.h"

/* The events the shared stats code understands on a modern kernel. */
static const char *const wanted_events[] = {
	"global_dirty_state", "balance_dirty_pages", "bdi_dirty_ratelimit",
	"writeback_single_inode", "writeback_written",
};

int real_tracefs_supported(void)
{
	char buf[8192];
	return file_read("/proc/filesystems", buf, sizeof(buf)) == 0 && strstr(buf, "\ttracefs");
}

int real_tracefs_mount(struct journal *j, const char *dir, char *err, size_t errlen)
{
	if (journal_add(j, "dir", dir, NULL) || journal_add(j, "mount", dir, "tracefs", NULL)) {
		snprintf(err, errlen, "cannot write the journal: %s", strerror(errno));
		return -1;
	}
	if ((mkdir(dir, 0700) && errno != EEXIST) || mount("nodev", dir, "tracefs", 0, NULL)) {
		snprintf(err, errlen, "cannot mount tracefs on '%s': %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

static int inst_write(const struct trace_instance *t, const char *file, const char *val)
{
	char p[4200];
	snprintf(p, sizeof(p), "%s/%s", t->path, file);
	return file_write(p, val);
}

/* Filters an event to the test device by whichever field names the bdi on
 * this kernel ("bdi" or "name"); events without one stay unfiltered. */
static void filter_bdi(const struct trace_instance *t, const char *event, const char *bdi)
{
	static const char *const fields[] = { "bdi", "name" };
	char f[128], filter[96];
	snprintf(f, sizeof(f), "events/writeback/%s/filter", event);
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		snprintf(filter, sizeof(filter), "%s == \"%s\"", fields[i], bdi);
		if (inst_write(t, f, filter) == 0)
			return;
	}
}

static int enable_events(struct trace_instance *t, const char *bdi, char *err, size_t errlen)
{
	t->nevents = 0;
	for (size_t i = 0; i < ARRAY_SIZE(wanted_events); i++) {
		char f[128];
		snprintf(f, sizeof(f), "events/writeback/%s/enable", wanted_events[i]);
		if (inst_write(t, f, "1"))
			continue;  /* this kernel has no such event */
		if (strcmp(wanted_events[i], "global_dirty_state") != 0)
			filter_bdi(t, wanted_events[i], bdi);
		snprintf(t->events[t->nevents++], sizeof(t->events[0]), "%s", wanted_events[i]);
	}
	if (!t->nevents) {
		snprintf(err, errlen, "this kernel has none of the writeback trace events");
		return -1;
	}
	return 0;
}

int real_tracefs_instance(struct journal *j, const char *root, const char *name, unsigned buffer_kb,
		     const char *bdi, struct trace_instance *t, char *err, size_t errlen)
{
	char kb[32];
	memset(t, 0, sizeof(*t));
	snprintf(t->path, sizeof(t->path), "%s/instances/%s", root, name);
	off_t mark = journal_mark(j);
	if (journal_add(j, "instance", t->path, NULL)) {
		snprintf(err, errlen, "cannot write the journal: %s", strerror(errno));
		return -1;
	}
	if (mkdir(t->path, 0700)) {
		int e = errno;
		/* not made by this run (one of that name exists: another
		 * user's or tool's): its entry goes, so no undo removes it */
		if (journal_forget_to(j, mark))
			e = EIO;
		snprintf(err, errlen, "cannot create tracefs instance '%s': %s", t->path, strerror(e));
		return -1;
	}
	snprintf(kb, sizeof(kb), "%u", buffer_kb);
	if (inst_write(t, "tracing_on", "0") || inst_write(t, "buffer_size_kb", kb) ||
	    inst_write(t, "trace_clock", "mono")) {
		snprintf(err, errlen, "cannot configure tracefs instance '%s': %s", t->path,
			 strerror(errno));
		return -1;
	}
	return enable_events(t, bdi, err, errlen);
}

static int instance_rmdir(const char *path)
{
	for (int tries = 0; tries < 50; tries++) {
		if (rmdir(path) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			break;
		usleep(100000);  /* a reader still has trace_pipe open */
	}
	return -1;
}

/* An instance lives in tracefs, not in the mount it was made through: when
 * the run's private mount is gone (its scratch dir removed after a crash),
 * "no such file" under it says nothing, and the instance may still be
 * tracing.  So remove it through a private mount of our own, in the
 * root-only state dir. */
static int instance_undo_elsewhere(const char *name)
{
	static const char dir[] = WBLAB_STATE_DIR "/tracefs-undo";
	char p[sizeof(dir) + 1100];
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -1;
	if (!mount_root_of(dir, "tracefs") && mount("nodev", dir, "tracefs", 0, NULL))
		return -1;
	snprintf(p, sizeof(p), "%s/instances/%s", dir, name);
	int rc = instance_rmdir(p);
	int e = errno;
	umount2(dir, MNT_DETACH);
	rmdir(dir);
	errno = e;
	return rc;
}

int instance_undo(const struct jentry *e)
{
	if (e->nargs != 1)
		return 0;
	const char *name = strrchr(e->args[0], '/');
	name = name ? name + 1 : e->args[0];
	char root[4200];
	snprintf(root, sizeof(root), "%s", e->args[0]);
	char *cut = strstr(root, "/instances/");
	if (cut)
		*cut = 0;
	int through_run = cut && mount_root_of(root, "tracefs");
	/* only a name this runner makes: a journal line cannot name another's instance */
	if (strncmp(name, "wblab-", 6) || strspn(name + 6, "0123456789") != strlen(name + 6) || !name[6])
		return -1;
	if (through_run ? instance_rmdir(e->args[0]) == 0 : instance_undo_elsewhere(name) == 0)
		return 0;
	wb_error("cannot remove tracefs instance '%s': %s", e->args[0], strerror(errno));
	return -1;
}

uint64_t real_tracefs_overrun(const struct trace_instance *t)
{
	uint64_t sum = 0;
	for (int cpu = 0; cpu < 4096; cpu++) {
		char buf[2048];
		if (file_readf(buf, sizeof(buf), "%s/per_cpu/cpu%d/stats", t->path, cpu))
			break;
		const char *p = strstr(buf, "overrun:");
		if (p)
			sum += strtoull(p + 8, NULL, 10);
	}
	return sum;
}

static void *reader_main(void *arg)
{
	struct trace_capture *c = arg;
	char *buf = malloc(1 << 20);
	int idle_after_stop = 0;
	while (buf && idle_after_stop < 2) {
		ssize_t n = read(c->fd, buf, 1 << 20);
		if (n > 0) {
			if (fwrite(buf, 1, (size_t)n, c->out) != (size_t)n)
				c->error = errno ? errno : EIO;
			c->bytes += (uint64_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			c->error = errno;
			break;
		}
		if (c->stop)
			idle_after_stop++;  /* empty twice after stop: drained */
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		poll(&p, 1, 100);
	}
	free(buf);
	return NULL;
}

int trace_capture_start(struct trace_capture *c, const struct trace_instance *t,
			const char *out_path, char *err, size_t errlen)
{
	char p[4200];
	memset(c, 0, sizeof(*c));
	snprintf(p, sizeof(p), "%s/trace_pipe", t->path);
	c->fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	c->out = fopen(out_path, "w");
	if (c->fd < 0 || !c->out) {
		snprintf(err, errlen, "cannot open %s: %s", c->fd < 0 ? p : out_path,
			 strerror(errno));
		goto fail;
	}
	setvbuf(c->out, NULL, _IOFBF, 1 << 20);
	if (pthread_create(&c->thread, NULL, reader_main, c)) {
		snprintf(err, errlen, "cannot start the trace reader thread");
		goto fail;
	}
	if (inst_write(t, "tracing_on", "1")) {
		snprintf(err, errlen, "cannot turn tracing on in '%s': %s", t->path, strerror(errno));
		trace_capture_stop(c, t);
		return -1;
	}
	return 0;
fail:
	if (c->fd >= 0)
		close(c->fd);
	if (c->out)
		fclose(c->out);
	c->fd = -1;
	c->out = NULL;
	return -1;
}

int trace_capture_stop(struct trace_capture *c, const struct trace_instance *t)
{
	inst_write(t, "tracing_on", "0");
	c->stop = 1;
	pthread_join(c->thread, NULL);
	close(c->fd);
	c->fd = -1;
	int rc = fclose(c->out) || c->error ? -1 : 0;
	c->out = NULL;
	return rc;
}
