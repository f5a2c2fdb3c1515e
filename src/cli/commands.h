/* Every subcommand lives in its own file src/cli/cmd_<name>.c and exports one
 * `const struct wb_command cmd_<name>`; main.c dispatches on argv[1]. */
#ifndef WBLAB_COMMANDS_H
#define WBLAB_COMMANDS_H

struct wb_command {
	const char *name;
	const char *summary;   /* one line for `wblab help` */
	const char *usage;     /* full text for `wblab help NAME` and NAME --help */
	int (*run)(int argc, char **argv);   /* argv[0] is the command name */
};

extern const struct wb_command cmd_sim, cmd_seed, cmd_compare, cmd_plot, cmd_report,
	cmd_import, cmd_run, cmd_calibrate, cmd_validate, cmd_jobs, cmd_rerun, cmd_trace;

/* True if argv holds -h or --help (before a "--"). */
int wants_help(int argc, char **argv);

#endif
