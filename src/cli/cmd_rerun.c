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

/* When the two params name the plug-in by different hashes, say so: the
 * .so the result's cmdline names was rebuilt or replaced since. */
static void policy_note(const char *dir, const char *a, const char *b)
{
	struct kvfile x, y;
	char err[512];
	int bad = kvf_load(&x, a, err, sizeof(err));
	bad |= kvf_load(&y, b, err, sizeof(err));
	const struct kv *hx = bad ? NULL : kvf_get(&x, "policy_fnv1a64"), *hy = bad ? NULL : kvf_get(&y, "policy_fnv1a64");
	if (hx && hy && strcmp(hx->val, hy->val))
		printf("%s: the plug-in file changed since the result was made (policy_fnv1a64 %s, now %s)\n",
		       dir, hx->val, hy->val);
	kvf_free(&x);
	kvf_free(&y);
}

static int read_line(const char *path, char *buf, size_t n, char *err, size_t errlen)
{
	FILE *f = fopen_regular(path, 1, err, errlen);   /* a FIFO would block the open */
	if (!f)
		return -1;
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
static int run_child(char **argv)
{
	fflush(NULL);
	pid_t self = getpid(), pid = fork();
	if (pid == 0) {
		die_with_parent(self);
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

/* The cmdline wblab sim writes for one result (sim_matrix.c's job_argv):
 *   wblab sim (-k NAME | --policy PATH) -t T --seed S [--run R] [--set K=V]...
 *             [--no-trace | --trace-format=text] -o ROOT CASE
 * and nothing else: no abbreviations, no second -o, no other option, so the
 * rerun's output root and any plug-in it loads are known before it runs.
 * Sets *oi to ROOT's index and *pol to PATH's (-1: none). */
static int canonical_cmdline(int wc, char **w, int *oi, int *pol, char *err, size_t n)
{
	static const char *const with_arg[] = { "-k", "--policy", "-t", "--seed", "--run", "--set",
						"-o" };
	static const char *const flags[] = { "--no-trace", "--trace-format=text" };
	int seen_k = 0, seen_t = 0, seen_seed = 0, seen_run = 0;
	*oi = *pol = -1;
	if (wc < 3 || strcmp(w[0], "wblab") || strcmp(w[1], "sim")) {
		snprintf(err, n, "does not start 'wblab sim'");
		return -1;
	}
	int i = 2;
	for (; i < wc - 1; i++) {
		int a = -1;
		for (size_t k = 0; k < ARRAY_SIZE(with_arg); k++)
			if (!strcmp(w[i], with_arg[k]))
				a = (int)k;
		if (a < 0) {
			int f = 0;
			for (size_t k = 0; k < ARRAY_SIZE(flags); k++)
				f |= !strcmp(w[i], flags[k]);
			if (!f) {
				snprintf(err, n, "'%.60s' is not an option of a result's cmdline", w[i]);
				return -1;
			}
			continue;
		}
		if (i + 1 >= wc - 1) {
			snprintf(err, n, "%s without its value", w[i]);
			return -1;
		}
		const char *opt = with_arg[a];
		int once = !strcmp(opt, "-k") || !strcmp(opt, "--policy") ? seen_k++
			   : !strcmp(opt, "-t") ? seen_t++ : !strcmp(opt, "--seed") ? seen_seed++
			   : !strcmp(opt, "--run") ? seen_run++ : !strcmp(opt, "-o") ? (*oi >= 0) : 0;
		if (once) {
			snprintf(err, n, "%s given twice", opt);
			return -1;
		}
		if (!strcmp(opt, "-k") && (strchr(w[i + 1], ',') || !strcmp(w[i + 1], "all"))) {
			snprintf(err, n, "-k names more than one model");
			return -1;
		}
		if (!strcmp(opt, "--policy"))
			*pol = i + 1;
		if (!strcmp(opt, "-o"))
			*oi = i + 1;
		i++;
	}
	if (i == wc - 1 && strpbrk(w[i], "{},")) {
		/* a list or brace matrix would expand into many results */
		snprintf(err, n, "CASE '%.80s' is a matrix, not one case", w[i]);
		return -1;
	}
	if (i != wc - 1 || w[i][0] == '-' || *oi < 0 || !seen_k || !seen_t || !seen_seed) {
		snprintf(err, n, "not '-k NAME -t T --seed S ... -o ROOT CASE'");
		return -1;
	}
	return 0;
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
	if (read_line(path, line, sizeof(line), err, sizeof(err))) {
		wb_error("rerun: %s", err);
		return 1;
	}
	if (shell_split(line, &wc, &w, err, sizeof(err))) {
		wb_error("rerun: %s: %s", path, err);
		return 1;
	}
	int oi = -1, pol = -1;
	if (canonical_cmdline(wc, w, &oi, &pol, err, sizeof(err))) {
		wb_error("rerun: %s: %s; only the cmdline 'wblab sim' writes for a simulated "
			 "result reruns", path, err);
		shell_words_free(wc, w);
		return 1;
	}
	/* a result's cmdline is data from wherever the tree came from: loading
	 * the plug-in it names runs arbitrary code, so only when asked */
	if (pol >= 0 && !o.allow_policy) {
		wb_error("rerun: %s loads the plug-in %s; rerun it with --allow-policy if you "
			 "trust that file", path, w[pol]);
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
	/* where the rerun put it: the one result below the new root (found, not
	 * derived from DIR's meta, which is as untrusted as the cmdline) */
	char rel[4300] = "";
	struct result_list found = { 0 };
	const char *root = tmp;
	if (rc == 0) {
		if (result_find(&root, 1, &found, err, sizeof(err)) || found.n != 1) {
			wb_error("rerun: the command made %d results, not one%s%s", found.n,
				 found.n ? "" : ": ", found.n ? "" : err);
			rc = -1;
		} else {
			snprintf(rel, sizeof(rel), "%s", found.v[0].path);
		}
		result_list_free(&found);
	}
	int differ = 0, files = 0;
	if (rc > 0 || rc == -1) {
		if (rc > 0)
			wb_error("rerun: the command failed (status %d): %s", rc, line);
		differ = -1;
	}
	/* every file that differs, not only the first: a rebuilt plug-in shows
	 * as its params' hash as well as in what it changed */
	for (size_t i = 0; differ >= 0 && i < ARRAY_SIZE(produced); i++) {
		char a[4300], b[4400];
		snprintf(a, sizeof(a), "%s/%s", dir, produced[i]);
		snprintf(b, sizeof(b), "%s/%s", rel, produced[i]);
		int in_a = !access(a, F_OK), in_b = !access(b, F_OK);
		if (!in_a && !in_b)
			continue;
		files++;
		/* the rerun's copy is named only when it is kept (-k) */
		if (!in_a || !in_b) {
			printf("%s: %s is %s\n", dir, produced[i],
			       in_a ? "not made by the rerun" : "missing, the rerun made one");
			differ = 1;
		} else if (!files_same(a, b)) {
			if (keep)
				printf("%s: %s differs from the rerun (%s)\n", dir, produced[i], b);
			else
				printf("%s: %s differs from the rerun (-k keeps it)\n", dir, produced[i]);
			if (!strcmp(produced[i], "params"))
				policy_note(dir, a, b);
			differ = 1;
		}
	}
	if (!differ)
		printf("%s: identical to its rerun (%d files)\n", dir, files);
	if (keep)
		printf("rerun kept in %s\n", rel[0] ? rel : tmp);
	else
		remove_tree(tmp);
	shell_words_free(wc, w);
	return differ ? 1 : 0;
}

static const char usage[] =
	"usage: wblab rerun [-k] [--allow-policy] DIR\n"
	"\n"
	"Runs the command in DIR/cmdline again (a simulated result's: 'wblab sim ... -o\n"
	"ROOT CASE', the command that makes exactly that one result) into a temporary\n"
	"root, and checks that stats, params, meta, trace, trace.dat, plot-series and\n"
	"mountstats come out byte for byte the same.  The cmdline must be exactly the\n"
	"form wblab writes (no other option, one -o, one CASE), and one that loads a\n"
	"--policy plug-in reruns only with --allow-policy.\n"
	"\n";

static const char usage_end[] =
	"\n"
	"Exit status: 0 identical; 1 a file differs, or the command failed or is not a\n"
	"simulated result's; 2 bad usage.\n";

WB_COMMAND(rerun, 40) = {
	"rerun", "rerun a simulated result's cmdline and check it is byte-identical",
	usage, options, usage_end, NULL, run_rerun,
};
