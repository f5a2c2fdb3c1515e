/* libFuzzer harness for the undo journal parser of `wblab run` (journal_parse
 * in src/real/journal.c, a pure function): the raw input, not NUL-terminated,
 * so an overread shows under ASan; every entry returned must be well formed. */
#include <stdint.h>
#include <string.h>
#include "real/journal.h"

static struct jentry out[8];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int n = journal_parse((const char *)data, size, out, 8);
	if (n > 8)
		__builtin_trap();
	for (int i = 0; i < n; i++)
		if (!out[i].kind[0] || out[i].nargs < 0 || out[i].nargs > J_MAX_ARGS ||
		    (size_t)out[i].off >= size)
			__builtin_trap();
	return 0;
}
