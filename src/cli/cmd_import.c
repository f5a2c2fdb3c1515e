/* Placeholder until the import command lands (see the open issues). */
#include <stdio.h>
#include "commands.h"
#include "../util/util.h"

static int run_import(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	wb_error("'import' is not implemented yet");
	return 1;
}

const struct wb_command cmd_import = { "import", "(not implemented yet)", "wblab import: not implemented yet\n", run_import };
