/* Placeholder until the compare command lands (see the open issues). */
#include <stdio.h>
#include "commands.h"
#include "../util/util.h"

static int run_compare(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	wb_error("'compare' is not implemented yet");
	return 1;
}

const struct wb_command cmd_compare = { "compare", "(not implemented yet)", "wblab compare: not implemented yet\n", run_compare };
