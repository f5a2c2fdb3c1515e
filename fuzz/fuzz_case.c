/* libFuzzer harness for CASE names ([GROUP/]FS-NDD-BS-CPUSp-MEMM-THRESH:BG):
 * case_parse, then the name it rebuilds must parse again to the same case,
 * and a parsed GROUP must pass case_group_check (it names dirs under -o). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/case.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), err[512], full[400];
	struct wb_case c, again;
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	(void)case_group_check(s, err, sizeof(err));
	if (case_parse(s, &c, err, sizeof(err)) == 0) {
		if (case_group_check(c.group, err, sizeof(err)))
			__builtin_trap();
		snprintf(full, sizeof(full), "%s/%s", c.group, c.name);
		/* the rebuilt name parses back to the same case (when it fits) */
		if (strlen(full) < 256 &&
		    (case_parse(full, &again, err, sizeof(err)) || strcmp(again.name, c.name) ||
		     again.bs != c.bs || again.ndd != c.ndd || again.mem_mb != c.mem_mb))
			__builtin_trap();
		case_fill(&c, 4, 4096);
	}
	free(s);
	return 0;
}
