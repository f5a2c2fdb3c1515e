/* Placeholder until the plot command lands (see the open issues). */
#include <stdio.h>
#include "commands.h"
#include "../util/util.h"

static int run_plot(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	wb_error("'plot' is not implemented yet");
	return 1;
}

const struct wb_command cmd_plot = { "plot", "(not implemented yet)", "wblab plot: not implemented yet\n", run_plot };
