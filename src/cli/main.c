/* wblab: a writeback lab.  Dispatch to one subcommand per file. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "../util/util.h"
#include "../result/metrics.h"

/* build/gen/commands.inc: X(name) for every WB_COMMAND(name, ORDER) line of
 * src/cli/cmd_*.c, in ORDER (see the Makefile). */
#define X(n) extern const struct wb_command cmd_##n;
#include "commands.inc"
#undef X

static const struct wb_command *const commands[] = {
#define X(n) &cmd_##n,
#include "commands.inc"
#undef X
};

/* --help, or an abbreviation of it that no option of the command shares
 * (as the option parser takes any unique prefix of a long name) */
static int is_help(const char *a, const struct po_option *opts)
{
	if (strcmp(a, "-h") == 0)
		return 1;
	if (strncmp(a, "--", 2) || !a[2] || strncmp(a + 2, "help", strlen(a + 2)))
		return 0;
	for (const struct po_option *o = opts; o && o->type != PO_END; o++)
		if (o->long_name && !strncmp(o->long_name, a + 2, strlen(a + 2)))
			return 0;
	return 1;
}

int wants_help(int argc, char **argv, const struct po_option *opts)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return 0;
		if (is_help(argv[i], opts))
			return 1;
	}
	return 0;
}

static void overview(FILE *f)
{
	fprintf(f, "wblab %s - a writeback lab: simulate, run, compare and plot Linux dirty-page\n"
		   "throttling (balance_dirty_pages) across kernels.\n\n"
		   "usage: wblab COMMAND [options]\n\ncommands:\n", WBLAB_VERSION);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(f, "  %-10s %s\n", "help", "help [COMMAND]: this text, or a command's options");
	fprintf(f, "  %-10s %s\n\n", "", "help metrics [--markdown]: the metrics of a result's stats");
	fprintf(f, "Every command takes -h/--help.  Options: --long VALUE or --long=VALUE (or a\n"
		   "unique abbreviation), -s VALUE or -sVALUE, short flags clustered (-qj2); '--'\n"
		   "ends the options.  A bad option is one line on stderr:\n"
		   "  wblab COMMAND: --option: 'VALUE' is not ...\n\n"
		   "Exit status, of every command:\n"
		   "  0  success\n"
		   "  1  failure: unreadable or malformed input, a run or a write that failed\n"
		   "  2  usage: unknown option, bad option value, bad or missing argument/CASE\n"
		   "  3  validate only: validated, but some metric missed its target\n\n");
	fprintf(f, "wblab --version prints the version.  See README.md and docs/ (docs/cli.md).\n");
}

static const struct wb_command *find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

/* Output lost on a full disk or a closed pipe must not pass as success: a
 * command that returned 0 with stdout unwritable fails, naming stdout. */
static int stdout_flushed(const char *name, int rc)
{
	int e = fflush(stdout) ? errno : 0;
	if (!e && !ferror(stdout))
		return rc;
	if (rc == 0) {
		/* an earlier write's errno is gone: name it only when this one failed */
		fprintf(stderr, "wblab %s: cannot write to standard output%s%s\n", name, e ? ": " : "",
			e ? strerror(e) : "");
		rc = 1;
	}
	return rc;
}

static int run(int argc, char **argv);

int main(int argc, char **argv)
{
	return stdout_flushed(argc > 1 ? argv[1] : "wblab", run(argc, argv));
}

static int run(int argc, char **argv)
{
	if (argc < 2) {
		overview(stderr);
		return EXIT_USAGE;
	}
	const char *c = argv[1];
	if (strcmp(c, "--version") == 0 || strcmp(c, "version") == 0) {
		printf("wblab %s\n", WBLAB_VERSION);
		return 0;
	}
	if (strcmp(c, "help") == 0 || strcmp(c, "--help") == 0 || strcmp(c, "-h") == 0) {
		if (argc > 2 && strcmp(argv[2], "metrics") == 0) {
			int md = argc > 3 && strcmp(argv[3], "--markdown") == 0;
			if (argc > 3 + md) {
				wb_error("usage: wblab help metrics [--markdown]");
				return EXIT_USAGE;
			}
			if (!md)
				printf("%-30s %-6s %-6s %-22s %-6s %s\n", "name", "unit", "better", "eras",
				       "from", "meaning (see docs/stats.md)");
			metric_list(stdout, md);
			return 0;
		}
		if (argc > 2 && strcmp(argv[2], "help") && strcmp(argv[2], "--help") && strcmp(argv[2], "-h")) {
			const struct wb_command *cmd = find(argv[2]);
			if (!cmd) {
				wb_error("unknown command '%s' (see 'wblab help')", argv[2]);
				return EXIT_USAGE;
			}
			wb_command_usage(cmd, stdout);
			return 0;
		}
		overview(stdout);
		return 0;
	}
	const struct wb_command *cmd = find(c);
	if (!cmd) {
		wb_error("unknown command '%s' (see 'wblab help')", c);
		return EXIT_USAGE;
	}
	wb_set_command(cmd->name);
	if (wants_help(argc - 1, argv + 1, cmd->options)) {
		wb_command_usage(cmd, stdout);
		return 0;
	}
	return cmd->run(argc - 1, argv + 1);
}
