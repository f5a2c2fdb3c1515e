/* libFuzzer harness for CASE matrices: brace lists, ranges and bare comma
 * lists (case_expand), and case list files (--cases-from, case_expand_file
 * from a temporary file).  Every expansion must be a string of the input's
 * characters less the braces; errors must come with a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz_file.h"
#include "util/case_expand.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), err[512];
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	struct case_list l = { 0 };
	err[0] = 0;
	if (strlen(s) == size) {
		if (case_expand(s, &l, err, sizeof(err)) && !err[0])
			__builtin_trap();
		for (int i = 0; i < l.n; i++)
			if (strpbrk(l.v[i], "{}"))
				if (!strchr(s, '{') || !strchr(s, '}'))
					__builtin_trap();
		case_list_free(&l);
	}
	char path[] = "/tmp/wblab-fuzz-cases.XXXXXX";
	if (fuzz_to_file(data, size, path) == 0) {
		err[0] = 0;
		if (case_expand_file(path, &l, err, sizeof(err)) && !err[0])
			__builtin_trap();
		case_list_free(&l);
		unlink(path);
	}
	free(s);
	return 0;
}
