/* The fuzz input as a file, for readers that take a path: written to a new
 * temporary file whose name goes into path (a "/tmp/wblab-fuzz-NAME.XXXXXX"
 * buffer).  0, or -1 when it could not be written (the run is skipped). */
#ifndef WBLAB_FUZZ_FILE_H
#define WBLAB_FUZZ_FILE_H
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static inline int fuzz_to_file(const uint8_t *data, size_t size, char *path)
{
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	return 0;
}

#endif
