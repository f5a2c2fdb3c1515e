/* libFuzzer harness for the key/value reader of result files (stats, meta,
 * params, env, plots/index): parse, then look every key up again and take
 * every value as a number, as compare, calibrate and validate do. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "result/result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	struct kvfile f;
	FILE *fp = fmemopen((void *)data, size, "r");
	if (!fp)
		return 0;
	if (kvf_parse(&f, fp, "fuzz", err, sizeof(err)) == 0) {
		for (int i = 0; i < f.n; i++) {
			double v;
			const struct kv *e = kvf_get(&f, f.v[i].key);
			if (!e || kvf_number(&f, e, &v, err, sizeof(err)) == 0)
				(void)v;
		}
	} else if (strncmp(err, "fuzz", 4) != 0) {
		__builtin_trap();   /* every error names the file */
	}
	kvf_free(&f);
	fclose(fp);
	return 0;
}
