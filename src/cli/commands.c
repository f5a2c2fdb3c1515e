/* What every subcommand shares: its --help text, composed. */
#include "commands.h"

void wb_command_usage(const struct wb_command *c, FILE *f)
{
	fputs(c->usage, f);
	if (c->options)
		po_help(f, c->options);
	if (c->usage_end)
		fputs(c->usage_end, f);
	if (c->usage_extra)
		c->usage_extra(f);
}
