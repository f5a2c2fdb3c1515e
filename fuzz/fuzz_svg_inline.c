/* libFuzzer harness for the report's SVG inliner (svg_inline): the graphs of
 * a result tree may come from anyone, so a damaged or hostile svg must be
 * inlined, refused with a reason, or called missing; never a crash, an
 * endless loop, or an inlined page that still holds what svg_inline refuses
 * (it checks its own output: a refusal must say why). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz_file.h"
#include "analysis/svg_inline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/wblab-fuzz-svg.XXXXXX", why[160];
	if (fuzz_to_file(data, size, path))
		return 0;
	char *mem = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&mem, &len);
	if (out) {
		why[0] = 0;
		int rc = svg_inline(out, path, "r0-g0-", why, sizeof(why));
		fclose(out);
		if (rc == -2 && !why[0])
			__builtin_trap();       /* a refusal that does not say why */
		if (rc != 0 && len)
			__builtin_trap();       /* refused, yet written */
		if (rc == 0 && (!len || !memmem(mem, len, "<svg", 4)))
			__builtin_trap();       /* "written" with nothing of the svg */
		free(mem);
	}
	unlink(path);
	return 0;
}
