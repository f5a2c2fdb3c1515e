/* Little-endian fields and whole reads of a .dat file, shared by the reader
 * and its decompressing thread. */
#ifndef WBLAB_DAT_IO_H
#define WBLAB_DAT_IO_H
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static inline uint16_t rd16(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t rd32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t rd64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* n bytes at off, or -1 on an error or a short file */
static inline int pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	unsigned char *p = buf;
	while (n) {
		ssize_t r = pread(fd, p, n, (off_t)off);
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

#endif
