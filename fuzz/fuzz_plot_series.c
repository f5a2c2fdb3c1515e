/* libFuzzer harness for the saved graph series reader (plot-series beside a
 * simulated result, plot_run_load_series): a result tree may come from
 * anywhere, so a damaged file must end in an error naming it, never a crash,
 * an endless loop or more memory than its size warrants. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz_file.h"
#include "analysis/plot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/wblab-fuzz-series.XXXXXX", err[512];
	if (fuzz_to_file(data, size, path))
		return 0;
	struct plot_run *r = plot_run_new("fuzz", 0);
	if (r) {
		err[0] = 0;
		if (plot_run_load_series(r, path, err, sizeof(err)) && !err[0])
			__builtin_trap();
		plot_run_free(r);
	}
	unlink(path);
	return 0;
}
