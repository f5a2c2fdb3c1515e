/* Placeholder until the run command lands (see the open issues). */
#include <stdio.h>
#include "commands.h"
#include "../util/util.h"

static int run_run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	wb_error("'run' is not implemented yet");
	return 1;
}

const struct wb_command cmd_run = { "run", "(not implemented yet)", "wblab run: not implemented yet\n", run_run };
