/* wblab rerun: run a simulated result's cmdline again and check it gives the
 * same files, byte for byte. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "commands.h"
#include "../result/result.h"
#include "../util/shellword.h"
#include "../util/util.h"

/* The files a simulated run writes, cmdline aside (it names the -o root). */
static const char *const produced[] = { "stats", "params", "meta", "trace", "trace.dat", "plot-series",
						    "mountstats" };

static int read_line(const char *path, char *buf, size_t n, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	if (!f || fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: %s", path, f ? "not a regular file" : strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	if (!fgets(buf, (int)n, f) || (strlen(buf) == n - 1 && buf[n - 2] != '\n')) {
		snprintf(err, errlen, "%s: empty, or a line over %zu bytes", path, n - 1);
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* 1 when a and b hold the same bytes (both missing counts as the same). */
static int same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
	int same = !fa && !fb;
	if (fa && fb) {
		int ca, cb;
		do {
			ca = getc(fa);
			cb = getc(fb);
		} while (ca == cb && ca != EOF);
		same = ca == cb;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

static int run_child(char **argv)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 1);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

struct cli {
	int keep;
	int allow_policy;
};

#define PO_STRUCT struct cli
static const struct po_option options[] = {
	OPT_FLAG('k', "keep", keep, "keep the rerun and print where"),
	OPT_FLAG(0, "allow-policy", allow_policy,
		 "rerun a result whose cmdline loads a --policy plug-in\n"
		 "(it runs that .so's code: refused without this)"),
	OPT_END(),
};

static int run_rerun(int argc, char **argv)
{
	struct cli o = { 0 };
	char *rest[argc];
	int n = po_parse_cmd(argv[0], options, &o, argc, argv, PO_STOP_AT_NON_OPTION, rest);
	if (n < 0)
		return EXIT_USAGE;
	if (n != 1) {
		wb_error("rerun: usage: wblab rerun [-k] [--allow-policy] DIR");
		return EXIT_USAGE;
	}
	int keep = o.keep;
	const char *dir = rest[0];
	char path[4200], line[16384], err[4600];
	snprintf(path, sizeof(path), "%s/cmdline", dir);
	int wc;
	char **w;
	if (read_line(path, line, sizeof(line), err, sizeof(err)) ||
	    shell_split(line, &wc, &w, err, sizeof(err))) {
		wb_error("rerun: %s", err);
		return 1;
	}
	int oi = -1;
	for (int i = 2; i + 1 < wc; i++)
		if (strcmp(w[i], "-o") == 0 || strcmp(w[i], "--out") == 0)
			oi = i + 1;
	if (wc < 3 || strcmp(w[0], "wblab") != 0 || strcmp(w[1], "sim") != 0 || oi < 0) {
		wb_error("rerun: %s is not the cmdline of one simulated result ('wblab sim ... -o "
			 "DIR CASE'); only simulated results rerun", path);
		shell_words_free(wc, w);
		return 1;
	}
	/* a result's cmdline is data from wherever the tree came from: loading
	 * the plug-in it names runs arbitrary code, so only when asked */
	for (int i = 2; i < wc; i++)
		if ((strcmp(w[i], "--policy") == 0 || strncmp(w[i], "--policy=", 9) == 0) &&
		    !o.allow_policy) {
			wb_error("rerun: %s loads the plug-in %s; rerun it with --allow-policy if you "
				 "trust that file", path, w[i][8] == '=' ? w[i] + 9 : i + 1 < wc ? w[i + 1] : "?");
			shell_words_free(wc, w);
			return 1;
		}
	char tmp[] = "/tmp/wblab-rerun.XXXXXX";
	if (!mkdtemp(tmp)) {
		wb_error("rerun: cannot make a temporary dir: %s", strerror(errno));
		shell_words_free(wc, w);
		return 1;
	}
	char *out = w[oi];
	w[oi] = tmp;
	int rc = run_child(w);
	w[oi] = out;
	/* where the rerun put it: the same GROUP/CASE-KERNEL[.RUN] below the new
	 * root (GROUP from meta: a sweep's group has several parts) */
	char rel[4300], base[4200];
	snprintf(base, sizeof(base), "%s", dir);
	size_t bl = strlen(base);
	while (bl > 1 && base[bl - 1] == '/')
		base[--bl] = 0;
	const char *leaf = strrchr(base, '/');
	leaf = leaf ? leaf + 1 : base;
	struct kvfile meta;
	char mpath[4300], group[256] = "";
	snprintf(mpath, sizeof(mpath), "%s/meta", dir);
	if (kvf_load(&meta, mpath, err, sizeof(err)) == 0) {
		const struct kv *g = kvf_get(&meta, "group");
		if (g)
			snprintf(group, sizeof(group), "%s", g->val);
		kvf_free(&meta);
	}
	int rn = snprintf(rel, sizeof(rel), "%s/%s/%s", tmp, group, leaf);
	if (rn < 0 || rn >= (int)sizeof(rel))
		rel[0] = 0;   /* too long: every file then "differs" */
	int differ = 0, files = 0;
	if (rc != 0) {
		wb_error("rerun: the command failed (status %d): %s", rc, line);
		differ = -1;
	}
	for (size_t i = 0; !differ && i < ARRAY_SIZE(produced); i++) {
		char a[4300], b[4400];
		snprintf(a, sizeof(a), "%s/%s", dir, produced[i]);
		snprintf(b, sizeof(b), "%s/%s", rel, produced[i]);
		if (access(a, F_OK) && access(b, F_OK))
			continue;
		files++;
		if (!same_file(a, b)) {
			printf("%s: %s differs from the rerun (%s)\n", dir, produced[i], b);
			differ = 1;
		}
	}
	if (!differ)
		printf("%s: identical to its rerun (%d files)\n", dir, files);
	if (keep)
		printf("rerun kept in %s\n", rel);
	else
		remove_tree(tmp);
	shell_words_free(wc, w);
	return differ ? 1 : 0;
}

static const char usage[] =
	"usage: wblab rerun [-k] DIR\n"
	"\n"
	"Runs the command in DIR/cmdline again (a simulated result's: 'wblab sim ... -o\n"
	"ROOT CASE', the command that makes exactly that one result) into a temporary\n"
	"root, and checks that stats, params, meta, trace, trace.dat and mountstats come\n"
	"out byte for byte the same.\n"
	"\n";

static const char usage_end[] =
	"\n"
	"Exit status: 0 identical; 1 a file differs, or the command failed or is not a\n"
	"simulated result's; 2 bad usage.\n";

WB_COMMAND(rerun, 40) = {
	"rerun", "rerun a simulated result's cmdline and check it is byte-identical",
	usage, options, usage_end, NULL, run_rerun,
};
