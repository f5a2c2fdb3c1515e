/* Placeholder until the seed command lands (see the open issues). */
#include <stdio.h>
#include "commands.h"
#include "../util/util.h"

static int run_sim(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	wb_error("'sim' is not implemented yet");
	return 1;
}

const struct wb_command cmd_sim = { "sim", "(not implemented yet)", "wblab sim: not implemented yet\n", run_sim };
