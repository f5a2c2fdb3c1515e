/* Pure logic of `wblab run`: journal parsing, reverse replay and done marks,
 * the journal file round trip (in a temporary dir), what an undo may name,
 * trusted paths, kernel-log matching, the bdi knob requests and option
 * parsing.  Nothing here changes the machine. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include "real/bdi.h"
#include "real/journal.h"
#include "real/kmsg.h"
#include "real/options.h"
#include "real/runner.h"
#include "real/safepath.h"
#include "real/sysctl.h"
#include "real/undo.h"
#include "util/util.h"

static void parse_entries(void **state)
{
	(void)state;
	const char text[] = "+\tdir\t/s/mnt\n+\tmount\t/s/mnt\text4\n"
			    "-\tsysctl\tvm.dirty_ratio\t20\tvm.dirty_bytes\t0\n";
	struct jentry e[8];
	int n = journal_parse(text, strlen(text), e, 8);
	assert_int_equal(n, 3);
	assert_string_equal(e[0].kind, "dir");
	assert_int_equal(e[0].nargs, 1);
	assert_false(e[0].done);
	assert_string_equal(e[1].args[1], "ext4");
	assert_int_equal(e[2].nargs, 4);
	assert_true(e[2].done);
	assert_string_equal(e[2].args[3], "0");
	assert_int_equal(e[1].off, 13);  /* "+\tdir\t/s/mnt\n" */
}

static void torn_last_line_ignored(void **state)
{
	(void)state;
	const char text[] = "+\tdir\t/s/mnt\n+\tmount\t/s/m";
	struct jentry e[4];
	assert_int_equal(journal_parse(text, strlen(text), e, 4), 1);
}

static void malformed_lines_are_rejected(void **state)
{
	(void)state;
	struct jentry e[4];
	assert_int_equal(journal_parse("+\t\tx\n", 5, e, 4), -1);              /* no kind */
	assert_int_equal(journal_parse("dir\t/x\n", 7, e, 4), -1);              /* no state */
	assert_int_equal(journal_parse("?\tdir\n", 6, e, 4), -1);               /* bad state */
	assert_int_equal(journal_parse("+\ta\t1\t2\t3\t4\t5\t6\n", 16, e, 4), -1); /* too many args */
	assert_int_equal(journal_parse("+\ta\n+\tb\n+\tc\n", 12, e, 2), -1);  /* over max */
	assert_int_equal(journal_parse("+\ta\0b\n", 6, e, 4), -1);             /* NUL inside */
}

static char order[64];

static int record(const struct jentry *e, void *arg)
{
	(void)arg;
	strcat(order, e->kind);
	return strcmp(e->kind, "F") == 0 ? -1 : 0;
}

static void replay_runs_newest_first_and_skips_done_entries(void **state)
{
	(void)state;
	const char text[] = "+\tA\n+\tB\n+\tF\n-\tD\n+\tC\n";
	struct jentry e[8];
	int n = journal_parse(text, strlen(text), e, 8);
	order[0] = 0;
	assert_int_equal(journal_replay(e, n, record, NULL), 1);  /* F failed, rest went on */
	assert_string_equal(order, "CFBA");
}

/* a root-only temporary dir, as the state dir is */
static int temp_dir(char *dir)
{
	if (!mkdtemp(dir))
		return -1;
	return open(dir, O_RDONLY | O_DIRECTORY);
}

static void journal_file_round_trip_marks_undone_steps(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();   /* the journal must be root's own file */
	char dir[] = "/tmp/wblab-test-journal.XXXXXX";
	int dfd = temp_dir(dir);
	assert_true(dfd >= 0);
	struct journal j;
	char err[256];
	assert_int_equal(journal_open_at(&j, dfd, "journal", "J", err, sizeof(err)), 0);
	assert_int_equal(journal_add(&j, "A", "1", NULL), 0);
	off_t mark = journal_mark(&j);
	assert_int_equal(journal_add(&j, "B", "2", NULL), 0);
	assert_int_equal(journal_add(&j, "C", "x", "y", NULL), 0);
	assert_int_equal(journal_add(&j, "D", "tab\there", NULL), -1);   /* refused */
	order[0] = 0;
	assert_int_equal(journal_undo_to(&j, mark, record, NULL), 0);
	assert_string_equal(order, "CB");
	assert_int_equal(journal_mark(&j), mark);     /* truncated back to the mark */
	order[0] = 0;
	assert_int_equal(journal_undo_to(&j, 0, record, NULL), 0);
	assert_string_equal(order, "A");
	assert_int_equal(journal_mark(&j), 0);
	/* a failed undo keeps the journal, with the steps that did succeed marked
	 * done, so a later --cleanup retries only the failed one */
	assert_int_equal(journal_add(&j, "E", NULL), 0);
	assert_int_equal(journal_add(&j, "F", NULL), 0);
	assert_int_equal(journal_add(&j, "G", NULL), 0);
	order[0] = 0;
	assert_int_equal(journal_undo_to(&j, 0, record, NULL), 1);
	assert_string_equal(order, "GFE");
	assert_true(journal_mark(&j) > 0);
	order[0] = 0;
	assert_int_equal(journal_undo_to(&j, 0, record, NULL), 1);
	assert_string_equal(order, "F");
	/* forgetting drops what followed the mark without undoing it */
	off_t kept = journal_mark(&j);
	assert_int_equal(journal_add(&j, "H", NULL), 0);
	assert_int_equal(journal_forget_to(&j, kept), 0);
	assert_int_equal(journal_mark(&j), kept);
	assert_int_equal(journal_forget_to(&j, kept + 1), -1);  /* past the end */
	order[0] = 0;
	assert_int_equal(journal_undo_to(&j, 0, record, NULL), 1);
	assert_string_equal(order, "F");                         /* H never undone */
	journal_close(&j);
	/* a journal that names --scratch but no run dir (the run failed between
	 * the two mkdirs) still lets the scratch entry be undone */
	unlinkat(dfd, "journal", 0);
	assert_int_equal(journal_open_at(&j, dfd, "journal", "J", err, sizeof(err)), 0);
	assert_int_equal(journal_add(&j, "scratch", "/nonexistent-wblab/s", NULL), 0);
	struct undo_ctx c;
	assert_int_equal(undo_ctx_load(&c, &j, 0), 0);
	assert_string_equal(c.scratch, "/nonexistent-wblab/s");
	assert_string_equal(c.rundir, "");
	assert_int_equal(journal_undo_to(&j, 0, real_undo, &c), 0);  /* rmdir: ENOENT is done */
	assert_int_equal(journal_add(&j, "scratch", "/nonexistent-wblab/s", NULL), 0);
	assert_int_equal(journal_add(&j, "rundir", "/nonexistent-wblab/s/wblab-run.1.0", NULL), 0);
	assert_int_equal(undo_ctx_load(&c, &j, 0), 0);
	assert_string_equal(c.scratch, "/nonexistent-wblab/s");
	assert_string_equal(c.rundir, "/nonexistent-wblab/s/wblab-run.1.0");
	journal_close(&j);
	/* a journal others can read or write is refused */
	assert_int_equal(fchmodat(dfd, "journal", 0644, 0), 0);
	assert_int_equal(journal_open_at(&j, dfd, "journal", "J", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "root-only"));
	unlinkat(dfd, "journal", 0);
	/* and so is a symlink in its place */
	assert_int_equal(symlinkat("/etc/passwd", dfd, "journal"), 0);
	assert_int_equal(journal_open_at(&j, dfd, "journal", "J", err, sizeof(err)), -1);
	unlinkat(dfd, "journal", 0);
	close(dfd);
	rmdir(dir);
}

/* What the undo of a journal may touch: only what a run creates.  None of
 * these entries may have any effect, whatever the journal says. */
static void undo_refuses_what_a_run_never_creates(void **state)
{
	(void)state;
	struct undo_ctx c;
	memset(&c, 0, sizeof(c));
	snprintf(c.rundir, sizeof(c.rundir), "/nonexistent-wblab/wblab-run.1.0");
	snprintf(c.scratch, sizeof(c.scratch), "/nonexistent-wblab");
	const char text[] =
		"+\tsysctl\tkernel.core_pattern\t|/tmp/x\tvm.dirty_bytes\t0\n"
		"+\tsysctl\tvm.dirty_ratio\t20;x\tvm.dirty_bytes\t0\n"
		"+\tfile\t/etc/passwd\n"
		"+\tfile\t/nonexistent-wblab/wblab-run.1.0/../../etc/passwd\n"
		"+\tfile\t/nonexistent-wblab/wblab-run.1.0/other\n"
		"+\tdir\t/etc\n"
		"+\tmount\t/proc\tproc\n"
		"+\tmount\t/nonexistent-wblab/wblab-run.1.0/mnt\tnfs\n"
		"+\tinstance\t/sys/kernel/tracing/instances/x\n"
		"+\tloop\t/dev/sda\t/etc/passwd\t1:2\n"
		"+\tloop\t/dev/loop0\t/elsewhere/image\t1:2\n"
		"+\tbdi\t7:0\t../../../proc/sys/kernel/core_pattern\t1\n"
		"+\tblkthrottle\t../../x\t7:0\t0\n"
		"+\ttmpresult\t/home/user/important\n"
		"+\twriter\t1\t0\n"
		"+\trundir\t/etc\n"
		"+\tscratch\t/etc\n"
		"+\tnosuchkind\tx\n";
	struct jentry e[32];
	int n = journal_parse(text, strlen(text), e, 32);
	assert_int_equal(n, 18);
	for (int i = 0; i < n; i++) {
		int rc = real_undo(&e[i], &c);
		if (strcmp(e[i].kind, "writer") == 0)
			assert_int_equal(rc, 0);   /* pid 1's start time is not 0: not ours, skipped */
		else
			assert_int_not_equal(rc, 0);  /* refused, and kept for a human to look at */
	}
}

/* An unfinished result goes with the -o and group dirs its run made, each
 * only while empty; a first dir that does not hold the result is refused. */
static void tmpresult_undo_removes_the_dirs_the_run_made(void **state)
{
	(void)state;
	char base[] = "/tmp/wblab-ut-result.XXXXXX", p[512], text[2048];
	assert_non_null(mkdtemp(base));
	struct undo_ctx c;
	memset(&c, 0, sizeof(c));
	const char *const dirs[] = { "o", "o/g", "o/g/.c-k.tmp.1", "o2", "o2/g", "o2/g/.c-k.tmp.2",
				     "o3", "o3/g", "o3/g/.c-k.tmp.3" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", base, dirs[i]);
		assert_int_equal(mkdir(p, 0755), 0);
	}
	snprintf(p, sizeof(p), "%s/o/g/.c-k.tmp.1/stats", base);
	fclose(fopen(p, "w"));
	snprintf(p, sizeof(p), "%s/o2/g/other-result", base);   /* a committed result beside it */
	fclose(fopen(p, "w"));
	snprintf(text, sizeof(text),
		 "+\ttmpresult\t%s/o/g/.c-k.tmp.1\t%s/o\n"
		 "+\ttmpresult\t%s/o2/g/.c-k.tmp.2\t%s/o2\n"
		 "+\ttmpresult\t%s/o3/g/.c-k.tmp.3\t%s/o2\n"
		 "+\ttmpresult\t%s/o3/g/.c-k.tmp.3\to3\n",
		 base, base, base, base, base, base, base);
	struct jentry e[4];
	assert_int_equal(journal_parse(text, strlen(text), e, 4), 4);
	assert_int_equal(real_undo(&e[0], &c), 0);
	snprintf(p, sizeof(p), "%s/o", base);
	assert_int_equal(access(p, F_OK), -1);          /* result, group and -o gone */
	assert_int_equal(access(base, F_OK), 0);        /* nothing above the first made */
	assert_int_equal(real_undo(&e[1], &c), 0);
	snprintf(p, sizeof(p), "%s/o2/g/.c-k.tmp.2", base);
	assert_int_equal(access(p, F_OK), -1);
	snprintf(p, sizeof(p), "%s/o2/g/other-result", base);
	assert_int_equal(access(p, F_OK), 0);           /* a dir with a result in it stays */
	assert_int_not_equal(real_undo(&e[2], &c), 0);  /* the first dir does not hold it */
	assert_int_not_equal(real_undo(&e[3], &c), 0);  /* nor does a relative one */
	snprintf(p, sizeof(p), "%s/o3/g/.c-k.tmp.3", base);
	assert_int_equal(access(p, F_OK), 0);
	/* an empty dir above the first one the run made is not the run's */
	const char *const more[] = { "e", "e/o5", "e/o5/g", "e/o5/g/.c-k.tmp.5" };
	for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", base, more[i]);
		assert_int_equal(mkdir(p, 0755), 0);
	}
	snprintf(text, sizeof(text), "+\ttmpresult\t%s/e/o5/g/.c-k.tmp.5\t%s/e/o5\n", base, base);
	assert_int_equal(journal_parse(text, strlen(text), e, 1), 1);
	assert_int_equal(real_undo(&e[0], &c), 0);
	snprintf(p, sizeof(p), "%s/e/o5", base);
	assert_int_equal(access(p, F_OK), -1);
	snprintf(p, sizeof(p), "%s/e", base);
	assert_int_equal(access(p, F_OK), 0);
	/* a link in the middle: rmdir would follow it, so nothing above the
	 * result is removed */
	char q[512];
	snprintf(p, sizeof(p), "%s/outside", base);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/outside/g", base);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/o4", base);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/outside", base);
	snprintf(q, sizeof(q), "%s/o4/link", base);
	assert_int_equal(symlink(p, q), 0);
	snprintf(text, sizeof(text), "+\ttmpresult\t%s/o4/link/g/.c-k.tmp.4\t%s/o4\n", base, base);
	assert_int_equal(journal_parse(text, strlen(text), e, 1), 1);
	real_undo(&e[0], &c);
	snprintf(p, sizeof(p), "%s/outside/g", base);
	assert_int_equal(access(p, F_OK), 0);
	snprintf(p, sizeof(p), "rm -rf '%s'", base);
	assert_int_equal(system(p), 0);
}

static void sysctl_undo_writes_only_the_dirty_pairs(void **state)
{
	(void)state;
	struct jentry e;
	const char text[] = "+\tsysctl\tkernel.core_pattern\tcore\tvm.dirty_bytes\t0\n";
	assert_int_equal(journal_parse(text, strlen(text), &e, 1), 1);
	assert_int_equal(sysctl_undo(&e), -1);
}

/* The real vm.dirty_ratio back to want, whatever a test's undo did to it. */
static void put_ratio(const char *want)
{
	FILE *f = fopen("/proc/sys/vm/dirty_ratio", "w");
	if (f) {
		fputs(want, f);
		fclose(f);
	}
}

static const char *undo_then_ratio(const char *text, int *rc)
{
	static char now[64];
	struct jentry e;
	assert_int_equal(journal_parse(text, strlen(text), &e, 1), 1);
	*rc = sysctl_undo(&e);
	assert_int_equal(sysctl_get("vm.dirty_ratio", now, sizeof(now)), 0);
	return now;
}

/* A sysctl someone changed after the run set it is left as it is: the undo
 * would undo their change; one that still holds the value set is restored.
 * As root only (it reads and writes the real vm.dirty_ratio, put back after
 * each case). */
static void sysctl_undo_leaves_a_value_changed_since(void **state)
{
	(void)state;
	char ratio[64], bytes[64], text[256];
	if (geteuid() != 0 || sysctl_get("vm.dirty_ratio", ratio, sizeof(ratio)) ||
	    sysctl_get("vm.dirty_bytes", bytes, sizeof(bytes)) || strcmp(bytes, "0") ||
	    !strcmp(ratio, "37")) {
		skip();
		return;
	}
	int rc;
	/* the run set dirty_bytes = 123456789; it is 0 now (the ratio is in force) */
	const char *now = undo_then_ratio("+\tsysctl\tvm.dirty_ratio\t37\tvm.dirty_bytes\t0\t"
					  "vm.dirty_bytes=123456789\n", &rc);
	int left = !strcmp(now, ratio);
	put_ratio(ratio);
	assert_int_equal(rc, 0);
	assert_true(left);
	/* the run set the ratio to what it is now: restored to the old 37 */
	snprintf(text, sizeof(text), "+\tsysctl\tvm.dirty_ratio\t37\tvm.dirty_bytes\t0\tvm.dirty_ratio=%s\n",
		 ratio);
	now = undo_then_ratio(text, &rc);
	int restored = !strcmp(now, "37");
	put_ratio(ratio);
	assert_int_equal(rc, 0);
	assert_true(restored);
	/* a bad fifth field is refused, not taken for "unchanged" */
	undo_then_ratio("+\tsysctl\tvm.dirty_ratio\t37\tvm.dirty_bytes\t0\tkernel.x=1\n", &rc);
	put_ratio(ratio);
	assert_int_equal(rc, -1);
}

static void paths_inside_a_dir(void **state)
{
	(void)state;
	assert_true(path_within("/s/r/mnt", "/s/r"));
	assert_false(path_within("/s/r", "/s/r"));
	assert_false(path_within("/s/rx/mnt", "/s/r"));
	assert_false(path_within("/s/r/../etc", "/s/r"));
	assert_false(path_within("/s/r/a/..", "/s/r"));
	assert_false(path_within("/s/r//a", "/s/r"));
	assert_false(path_within("/s/r/./a", "/s/r"));
	assert_true(path_within("/wblab-run.1.0", "/"));
	assert_true(path_within("/s/r/..a", "/s/r"));
	char b[64];
	assert_int_equal(path_join(b, sizeof(b), "/", "x"), 0);
	assert_string_equal(b, "/x");
	assert_int_equal(path_join(b, sizeof(b), "/a", "x"), 0);
	assert_string_equal(b, "/a/x");
	assert_int_equal(path_join(b, 4, "/abc", "x"), -1);
	assert_true(path_chars_ok("/var/lib/wblab-1.2_x+y"));
	assert_false(path_chars_ok("/var/tmp/a b"));
	assert_false(path_chars_ok("/var/tmp/a\tb"));
	assert_false(path_chars_ok(""));
}

static void trusted_dirs_are_root_owned_and_closed(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	char dir[] = "/tmp/wblab-test-safe.XXXXXX", p[128], err[512];
	int dfd = temp_dir(dir);
	assert_true(dfd >= 0);
	assert_int_equal(safe_dir_check(dir, 0, "t", err, sizeof(err)), 0);  /* /tmp is sticky */
	assert_int_equal(safe_dir_check("/tmp", 0, "t", err, sizeof(err)), -1);  /* not as the last */
	assert_int_equal(safe_dir_check("/tmp", SAFE_STICKY_LAST, "t", err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/open", dir);
	assert_int_equal(mkdir(p, 0777), 0);
	assert_int_equal(chmod(p, 0777), 0);
	assert_int_equal(safe_dir_check(p, 0, "t", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "writable by group or others"));
	snprintf(p, sizeof(p), "%s/open/sub", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(safe_dir_check(p, 0, "t", err, sizeof(err)), -1);  /* under a 0777 dir */
	rmdir(p);
	snprintf(p, sizeof(p), "%s/open", dir);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/nobody", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(chown(p, 65534, 65534), 0);
	assert_int_equal(safe_dir_check(p, 0, "t", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not owned by root"));
	rmdir(p);
	/* a symlink is never followed, even to a good dir */
	snprintf(p, sizeof(p), "%s/link", dir);
	assert_int_equal(symlink("/var", p), 0);
	assert_int_equal(safe_dir_check(p, 0, "t", err, sizeof(err)), -1);
	unlink(p);
	/* remove_tree_nofollow removes the link, not what it points at */
	char tree[160], keep[160];
	snprintf(tree, sizeof(tree), "%s/tree", dir);
	snprintf(keep, sizeof(keep), "%s/keep", dir);
	assert_int_equal(mkdir(tree, 0700), 0);
	assert_int_equal(mkdir(keep, 0700), 0);
	snprintf(p, sizeof(p), "%s/tree/l", dir);
	assert_int_equal(symlink(keep, p), 0);
	snprintf(p, sizeof(p), "%s/keep/file", dir);
	close(open(p, O_CREAT | O_WRONLY, 0600));
	assert_int_equal(remove_tree_nofollow(tree), 0);
	assert_int_equal(access(tree, F_OK), -1);
	assert_int_equal(access(p, F_OK), 0);
	unlink(p);
	rmdir(keep);
	close(dfd);
	rmdir(dir);
}

static void kernel_log_errors_of_the_device(void **state)
{
	(void)state;
	assert_true(kmsg_record_is_error("3,812,12345,-;Buffer I/O error on dev loop1, logical "
					 "block 99, lost async page write", "loop1"));
	assert_true(kmsg_record_is_error("3,1,1,-;I/O error, dev loop1, sector 8 op 0x1:(WRITE)",
					 "loop1"));
	assert_true(kmsg_record_is_error("2,1,1,-;Aborting journal on device loop1-8.", "loop1"));
	assert_true(kmsg_record_is_error("4,1,1,-;EXT4-fs warning (device loop1): ext4_end_bio:"
					 "343: I/O error 10 writing to inode 12", "loop1"));
	assert_false(kmsg_record_is_error("3,1,1,-;I/O error, dev loop10, sector 8", "loop1"));
	assert_false(kmsg_record_is_error("3,1,1,-;I/O error, dev sda, sector 8", "loop1"));
	assert_false(kmsg_record_is_error("6,1,1,-;EXT4-fs (loop1): mounted filesystem r/w",
					  "loop1"));
	assert_false(kmsg_record_is_error("6,1,1,-;loop1: detected capacity change", "loop1"));
	assert_false(kmsg_record_is_error("no semicolon loop1 error", "loop1"));
}

static void written_counter_pollution(void **state)
{
	(void)state;
	struct measure m = { .seconds = 10, .dev_written_mb = 1000, .vm_written_mb = 990 };
	assert_false(real_written_polluted(&m));      /* quiet: at or below the device */
	m.vm_written_mb = 1100 + 4;
	assert_false(real_written_polluted(&m));      /* within 10 % + 4 MiB */
	m.vm_written_mb = 1105;
	assert_true(real_written_polluted(&m));
	m.dev_written_mb = 39;                        /* the 3.9 vs 608 MB/s */
	m.vm_written_mb = 6080;
	assert_true(real_written_polluted(&m));
}

static void bdi_knob_requests(void **state)
{
	(void)state;
	struct bdi_request r;
	char err[256];
	memset(&r, 0, sizeof(r));
	assert_int_equal(bdi_request_add(&r, "strict_limit=1", err, sizeof(err)), 0);
	assert_int_equal(bdi_request_add(&r, "max_ratio=30", err, sizeof(err)), 0);
	assert_string_equal(r.k[1].name, "max_ratio_fine");
	assert_string_equal(r.k[1].value, "300000");
	assert_int_equal(bdi_request_add(&r, "max_ratio=101", err, sizeof(err)), -1);
	assert_int_equal(bdi_request_add(&r, "stable_pages_required=1", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown bdi knob"));
	assert_int_equal(bdi_request_add(&r, "strict_limit=-1", err, sizeof(err)), -1);
	assert_int_equal(bdi_request_add(&r, "strict_limit", err, sizeof(err)), -1);
	assert_int_equal(bdi_request_add(&r, "read_ahead_kb=1048577", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "0..1048576 KiB"));
	assert_int_equal(r.n, 2);
	assert_int_equal(bdi_request_add(&r, "read_ahead_kb=1048576", err, sizeof(err)), 0);
	assert_int_equal(r.n, 3);
	/* a min of 100 % the kernel refuses (min ratios sum below 100 %) */
	assert_int_equal(bdi_request_add(&r, "min_ratio=100", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "below 100 %"));
	assert_int_equal(bdi_request_add(&r, "min_ratio_fine=1000000", err, sizeof(err)), -1);
	assert_int_equal(r.n, 3);
	/* the same knob again, under either spelling: the last value, held once
	 * (params lists each knob once, and a key twice is damage) */
	assert_int_equal(bdi_request_add(&r, "max_ratio_fine=200000", err, sizeof(err)), 0);
	assert_int_equal(bdi_request_add(&r, "max_ratio=40", err, sizeof(err)), 0);
	assert_int_equal(r.n, 3);
	assert_string_equal(r.k[1].name, "max_ratio_fine");
	assert_string_equal(r.k[1].value, "400000");
}

static int parse(struct run_opts *o, char *err, ...)
{
	char *argv[16];
	int argc = 0;
	va_list ap;
	va_start(ap, err);
	argv[argc++] = "run";
	for (char *a; (a = va_arg(ap, char *)) != NULL;)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	return run_opts_parse(o, argc, argv, err, 256);
}

static void options(void **state)
{
	(void)state;
	static struct run_opts o;
	char err[256];
	assert_int_equal(parse(&o, err, "-t", "2.5", "-o", "r", "--repeat", "3", "--no-trace",
			       "ext4-2dd-4k-*-*-100M:10", "xfs-1dd-1M-2p-1024M-10:5", NULL), 0);
	assert_true(o.runtime == 2.5);
	assert_string_equal(o.out, "r");
	assert_int_equal(o.repeat, 3);
	assert_int_equal(o.no_trace, 1);
	assert_int_equal(o.ncases, 2);
	assert_int_equal(o.cases[0].ndd, 2);
	assert_int_equal(o.cases[0].cpus, 0);     /* '*' until the machine fills it */
	assert_string_equal(o.cases[1].fs, "xfs");
	assert_string_equal(o.scratch, "/var/lib/wblab");
	assert_int_equal(parse(&o, err, "--cleanup", NULL), 0);
	assert_int_equal(o.cleanup, 1);
	assert_int_equal(parse(&o, err, "--cleanup", "ext4-1dd-4k-*-*-1G:10", NULL), -1);
	assert_int_equal(parse(&o, err, "--bogus", "ext4-1dd-4k-*-*-1G:10", NULL), -1);
	assert_non_null(strstr(err, "--bogus"));
	assert_int_equal(parse(&o, err, "-t", "0", "ext4-1dd-4k-*-*-1G:10", NULL), -1);
	assert_int_equal(parse(&o, err, "--scratch", "rel", "ext4-1dd-4k-*-*-1G:10", NULL), -1);
	assert_int_equal(parse(&o, err, "--dev", "/dev/sdz", "ext4-1dd-4k-*-*-1G:10", NULL), -1);
	assert_non_null(strstr(err, "--yes-destroy"));
	assert_int_equal(parse(&o, err, "nfs-1dd-4k-*-*-1G:10", NULL), -1);
	assert_non_null(strstr(err, "NFS"));
	assert_int_equal(parse(&o, err, "tmpfs-1dd-4k-*-*-1G:10", NULL), -1);
	assert_int_equal(parse(&o, err, NULL), -1);
	assert_non_null(strstr(err, "no CASE"));
	assert_int_equal(parse(&o, err, "--no-trace", "--overhead", "ext4-1dd-4k-*-*-1G:10", NULL), -1);
	assert_int_equal(parse(&o, err, "-o", "", "ext4-1dd-4k-*-*-1G:10", NULL), -1);
	assert_int_equal(parse(&o, err, "--device-bw", "55", "--device-iops", "150",
			       "--set", "bdi.strict_limit=1", "ext4-1dd-4k-*-*-1G:10", NULL), 0);
	assert_true(o.device_bw == 55);
	assert_int_equal(o.device_iops, 150);
	assert_int_equal(o.bdi.n, 1);
	assert_int_equal(parse(&o, err, "--device-bw", "0", "ext4-1dd-4k-*-*-1G:10", NULL), -1);
	assert_int_equal(parse(&o, err, "--device-bw", "1e300", "ext4-1dd-4k-*-*-1G:10", NULL), -1);
	assert_int_equal(parse(&o, err, "--set", "disk.bw_mbps=5", "ext4-1dd-4k-*-*-1G:10", NULL), -1);
	assert_non_null(strstr(err, "bdi.KNOB"));
	/* --image-size: 256M..1024T, so image + 64M never wraps */
	assert_int_equal(parse(&o, err, "--image-size", "1024T", "ext4-1dd-4k-*-*-1G:10", NULL), 0);
	assert_int_equal(parse(&o, err, "--image-size", "1025T", "ext4-1dd-4k-*-*-1G:10", NULL), -1);
	assert_int_equal(parse(&o, err, "--image-size", "16777215T", "ext4-1dd-4k-*-*-1G:10", NULL), -1);
	assert_int_equal(parse(&o, err, "--image-size", "255M", "ext4-1dd-4k-*-*-1G:10", NULL), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_entries),
		cmocka_unit_test(torn_last_line_ignored),
		cmocka_unit_test(malformed_lines_are_rejected),
		cmocka_unit_test(replay_runs_newest_first_and_skips_done_entries),
		cmocka_unit_test(journal_file_round_trip_marks_undone_steps),
		cmocka_unit_test(undo_refuses_what_a_run_never_creates),
		cmocka_unit_test(tmpresult_undo_removes_the_dirs_the_run_made),
		cmocka_unit_test(sysctl_undo_writes_only_the_dirty_pairs),
		cmocka_unit_test(sysctl_undo_leaves_a_value_changed_since),
		cmocka_unit_test(paths_inside_a_dir),
		cmocka_unit_test(trusted_dirs_are_root_owned_and_closed),
		cmocka_unit_test(kernel_log_errors_of_the_device),
		cmocka_unit_test(written_counter_pollution),
		cmocka_unit_test(bdi_knob_requests),
		cmocka_unit_test(options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
