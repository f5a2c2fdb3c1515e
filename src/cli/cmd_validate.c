/* Placeholder until the validate command lands (see the open issues). */
#include <stdio.h>
#include "commands.h"
#include "../util/util.h"

static int run_validate(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	wb_error("'validate' is not implemented yet");
	return 1;
}

const struct wb_command cmd_validate = { "validate", "(not implemented yet)", "wblab validate: not implemented yet\n", run_validate };
