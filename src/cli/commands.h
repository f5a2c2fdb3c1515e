/* Every subcommand lives in its own file src/cli/cmd_<name>.c and defines it
 * with a line starting
 *
 *   WB_COMMAND(name, ORDER) = { "name", "summary", usage, options, ... };
 *
 * The build collects those lines into build/gen/commands.inc (sorted by ORDER,
 * the place in `wblab help`), which main.c includes: adding a subcommand is
 * adding that one file. */
#ifndef WBLAB_COMMANDS_H
#define WBLAB_COMMANDS_H
#include <stdio.h>
#include "parse_options.h"
#include "../util/util.h"   /* EXIT_USAGE, wb_error: what every command uses */

struct wb_command {
	const char *name;
	const char *summary;   /* one line for `wblab help` */
	const char *usage;     /* `wblab help NAME` and NAME --help: the text before the option lines */
	const struct po_option *options;   /* the options, listed by --help (NULL: none) */
	const char *usage_end;             /* text after the option lines (NULL: none) */
	void (*usage_extra)(FILE *f);      /* more text, made when printed (NULL: none) */
	int (*run)(int argc, char **argv); /* argv[0] is the command name */
};

#define WB_COMMAND(name, order) const struct wb_command cmd_##name

/* The full --help text of c. */
void wb_command_usage(const struct wb_command *c, FILE *f);

/* True if argv holds -h or --help (before a "--"). */
int wants_help(int argc, char **argv, const struct po_option *opts);

#endif
