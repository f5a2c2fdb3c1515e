/* Placeholder until the seed command lands (see the open issues). */
#include <stdio.h>
#include "commands.h"
#include "../util/util.h"

static int run_seed(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	wb_error("'seed' is not implemented yet");
	return 1;
}

const struct wb_command cmd_seed = { "seed", "(not implemented yet)", "wblab seed: not implemented yet\n", run_seed };
