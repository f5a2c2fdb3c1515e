/* libFuzzer harness for a result's cmdline as `wblab rerun` reads it
 * (shell_split): it must split or refuse with a message, and what it splits,
 * joined again by shell_join, must split back to the same words. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/shellword.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), err[256];
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	int n, n2;
	char **w, **w2;
	err[0] = 0;
	if (shell_split(s, &n, &w, err, sizeof(err)) == 0) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		shell_join(f, n, w);
		fclose(f);
		if (shell_split(buf, &n2, &w2, err, sizeof(err)) || n2 != n)
			__builtin_trap();
		for (int i = 0; i < n; i++)
			if (strcmp(w[i], w2[i]))
				__builtin_trap();
		shell_words_free(n2, w2);
		shell_words_free(n, w);
		free(buf);
	} else if (!err[0]) {
		__builtin_trap();
	}
	free(s);
	return 0;
}
