/* Placeholder until the report command lands (see the open issues). */
#include <stdio.h>
#include "commands.h"
#include "../util/util.h"

static int run_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	wb_error("'report' is not implemented yet");
	return 1;
}

const struct wb_command cmd_report = { "report", "(not implemented yet)", "wblab report: not implemented yet\n", run_report };
