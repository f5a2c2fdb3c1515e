/* libFuzzer harness for the trace.dat reader (dat_read.c): the input is
 * written to a temporary file and read through wbdat_open/wbdat_next to the
 * end; a damaged file must end in an error with a message, never a crash or
 * an endless loop (events are bounded by the input's size). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz_file.h"
#include "trace/dat_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/wblab-fuzz-dat.XXXXXX", err[512];
	if (fuzz_to_file(data, size, path))
		return 0;
	err[0] = 0;
	struct wbdat *d = wbdat_open(path, err, sizeof(err));
	if (d) {
		struct wb_event e;
		int rc;
		/* a record is at least 4 bytes, and chunks decompress at most 64 pages of
		 * 4 KiB each: far more events than this means the reader is looping */
		uint64_t n = 0, cap = 1024 + (uint64_t)size * 4096;
		while ((rc = wbdat_next(d, &e, err, sizeof(err))) == 1)
			if (++n > cap)
				__builtin_trap();
		if (rc < 0 && !err[0])
			__builtin_trap();
		wbdat_close(d);
	}
	unlink(path);
	return 0;
}
