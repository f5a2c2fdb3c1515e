/* Placeholder until the calibrate command lands (see the open issues). */
#include <stdio.h>
#include "commands.h"
#include "../util/util.h"

static int run_calibrate(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	wb_error("'calibrate' is not implemented yet");
	return 1;
}

const struct wb_command cmd_calibrate = { "calibrate", "(not implemented yet)", "wblab calibrate: not implemented yet\n", run_calibrate };
